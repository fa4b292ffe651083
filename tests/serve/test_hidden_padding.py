"""A client's own stopwatch does not count the bot's hidden steps (issue 27.3; docs/serve.md, "Timing").

In a skirmish of the phases sequence the steps of a declaration that cause nothing public are not in the
player's log, not even their number. The server sends no timing (tests/serve/test_timing.py), but a client can
time its requests: an answer in which the bot took such steps is therefore made to take the session's hidden
budget (:func:`cardwar.serve.sessions.hidden_budget`), however many there were.

The first tests run on a fake clock (the bot's thinking and the server's wait advance it; nothing else does),
so they check the padding itself, exactly and on any machine. The last one times real answers (the bot slowed
by a sleep in each declaration step, so that the count shows in the time without padding, even on a busy CI
machine): the correlation between the round trip and the hidden count is strong without padding and near
zero with it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from scipy.stats import spearmanr

from cardwar.cli import build_parser
from cardwar.serve import sessions
from cardwar.serve.command import settings_from_args
from cardwar.serve.sessions import hidden_budget
from tests.serve.conftest import make_api

PHASES = {"sequence": "phases"}
DECLARING = ("declare_move", "declare_combat")


# ---------------------------------------------------------------------------- the grid
def test_an_answer_within_the_budget_takes_the_budget() -> None:
    assert hidden_budget(100.0, 0.0, 1.5) == 100.0
    assert hidden_budget(100.0, 99.9, 1.5) == 100.0
    assert hidden_budget(100.0, 100.0, 1.5) == 100.0


def test_an_overrun_takes_the_next_step_of_the_grid() -> None:
    """The budget times a power of the ratio, the first at or above the time spent: an overrun tells only which
    step of the grid it reached."""
    assert hidden_budget(100.0, 100.1, 1.5) == pytest.approx(150.0)
    assert hidden_budget(100.0, 150.0, 1.5) == pytest.approx(150.0)
    assert hidden_budget(100.0, 151.0, 1.5) == pytest.approx(225.0)
    for spent in np.geomspace(1.0, 1e6, 200):
        target = hidden_budget(40.0, float(spent), 1.5)
        k = round(math.log(target / 40.0, 1.5))
        assert target == pytest.approx(40.0 * 1.5 ** k) and target >= spent
        assert k == 0 or 40.0 * 1.5 ** (k - 1) < spent  # the first step of the grid that holds it


def test_the_command_line_turns_padding_off_for_benchmarks_only(tmp_path) -> None:
    parser = build_parser()
    db = str(tmp_path / "s.db")
    on = settings_from_args(parser.parse_args(["serve", "--db", db]))
    assert on.pad_hidden is True and on.pad_hidden_min_ms == 100.0
    off = settings_from_args(parser.parse_args(["serve", "--db", db, "--no-pad-hidden", "--pad-hidden-min-ms", "40"]))
    assert off.pad_hidden is False and off.pad_hidden_min_ms == 40.0
    with pytest.raises(SystemExit):
        parser.parse_args(["serve", "--db", db, "--pad-hidden-min-ms", "0"])


# ---------------------------------------------------------------------------- a fake clock
class FakeClock:
    """Time that passes only when the bot thinks (``cost_ms`` a step, more in a declaration step) or the server
    waits."""

    def __init__(self, cost_ms: float, declare_ms: float) -> None:
        self.now, self.cost_ms, self.declare_ms, self.waits = 0.0, cost_ms, declare_ms, 0
        self.on_sleep: Any = None

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        assert seconds > 0
        if self.on_sleep is not None:
            self.on_sleep()
        self.now += seconds
        self.waits += 1

    def think(self, view: Any) -> None:
        declaring = getattr(view, "stage", None) in DECLARING
        self.now += (self.declare_ms if declaring else self.cost_ms) / 1000


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    """``fake(tmp_path, cost_ms, declare_ms, **settings)``: an API whose manager runs on a fake clock."""
    clock_of: dict[str, FakeClock] = {}
    real_ask = sessions.ask

    def ask(player: Any, obs: Any, view: Any, budget: Any, history: Any) -> Any:
        clock_of["clock"].think(view)
        return real_ask(player, obs, view, budget, history)

    monkeypatch.setattr(sessions, "ask", ask)
    apis = []

    def make(tmp_path: Any, cost_ms: float, declare_ms: float, **settings: Any) -> tuple[Any, FakeClock]:
        gen = make_api(tmp_path, max_sessions_per_client=50, **settings)
        api = next(gen)
        apis.append(gen)
        clock = clock_of["clock"] = FakeClock(cost_ms, declare_ms)
        api.manager.clock, api.manager.sleep = clock, clock.sleep
        return api, clock

    yield make
    for gen in apis:
        gen.close()


def timed_answers(api: Any, clock: FakeClock, game: str, seed: int, seat: str | None, rng: random.Random,
                  **body: Any) -> list[tuple[int, int, float, Any]]:
    """A game with random legal moves: ``(hidden bot steps, bot steps, time on the clock in ms, session)`` for the
    new game and every move (the clock advances only inside the server)."""
    t0 = clock.now
    seated = {"seat": seat} if seat else {}
    r = api.client.post("/api/sessions", json={"game": game, "agent": "heuristic", "seed": seed, **seated, **body})
    assert r.status_code == 201, r.text
    session = api.manager.get(r.json()["id"])
    out = [(session.public.count(False), len(session.public), (clock.now - t0) * 1000, session)]
    sid, auth, state = r.json()["id"], {"Authorization": f"Bearer {r.json()['token']}"}, r.json()["state"]
    while state["status"] == "your_turn":
        before, t0 = len(session.public), clock.now
        r = api.move(sid, auth, move=rng.choice(state["legal"])["move"], version=state["version"])
        assert r.status_code == 200, r.text
        bot = session.public[before + 1:]  # the person's own move is the first
        out.append((bot.count(False), len(bot), (clock.now - t0) * 1000, session))
        state = r.json()["state"]
    return out


def test_every_answer_with_hidden_steps_takes_the_same_time(fake, tmp_path) -> None:
    """A bot that spends 3 ms a declaration step: without padding an answer's time is the hidden count to the
    step (correlation near 1); with it every answer with hidden steps takes the budget exactly, 4 hidden steps or
    24, and so does every later answer in which the bot moves (one whose only declaration step was told, as it
    revealed, too); the budget never moved (the answers fit in it), and an answer the bot has no step in does
    not wait."""
    rng = random.Random(5)
    off, off_clock = fake(tmp_path / "off", 0.5, 3.0, pad_hidden=False)
    answers = [a for k, seat in enumerate(("player_0", "player_1"))
               for a in timed_answers(off, off_clock, "skirmish", 60 + k, seat, rng, rules=PHASES)]
    hidden = np.array([n for n, _, _, _ in answers if n])
    took = np.array([ms for n, _, ms, _ in answers if n])
    assert len(hidden) >= 30 and hidden.min() <= 8 and hidden.max() >= 20 and off_clock.waits == 0
    assert np.corrcoef(hidden, took)[0, 1] > 0.9  # the stopwatch counts them

    rng = random.Random(5)
    on, on_clock = fake(tmp_path / "on", 0.5, 3.0)
    unpublished = []

    def saved_not_published() -> None:  # the wait: after the move is saved, before any read can see it
        for session in list(on.manager._cache.values()):
            if session.lock.locked() and session.snapshots:  # the session being played (a new one: not yet)
                unpublished.append(session.snapshots["player"]["version"] < session.version)

    on_clock.on_sleep = saved_not_published
    answers = [a for k, seat in enumerate(("player_0", "player_1"))
               for a in timed_answers(on, on_clock, "skirmish", 60 + k, seat, rng, rules=PHASES)]
    assert [n for n, _, _, _ in answers if n] == hidden.tolist()  # the same games
    padded = [ms for n, steps, ms, _ in answers if n or steps]  # a phases game hides steps from its first turn
    assert len(padded) > len(hidden)  # the bot's told steps too (a watcher's fire, a revealing declaration)
    assert all(ms == pytest.approx(100.0) for ms in padded), sorted({round(ms, 6) for ms in padded})
    assert {s.settings["hidden_budget_ms"] for _, _, _, s in answers} == {100.0}
    assert on_clock.waits == len(padded)
    assert len(unpublished) >= len(padded) - 2 and all(unpublished)
    assert {ms for _, steps, ms, _ in answers if not steps} == {0.0}  # no bot step: no wait


def test_an_overrun_raises_the_budget_for_the_rest_of_the_game(fake, tmp_path) -> None:
    """Declaration steps of 10 ms overrun the first 100 ms: each answer the bot moves in then takes the budget as
    it stands, a step of the grid 100 * 1.5 ** k; the budget only grows, and is kept with the session (a
    restarted server goes on with it)."""
    api, clock = fake(tmp_path, 0.5, 10.0)
    answers = timed_answers(api, clock, "skirmish", 61, "player_1", random.Random(7), rules=PHASES)
    session = answers[0][3]
    assert answers[0][0] > 0  # the bot declared first, in the answer that made the game
    times = [round(ms, 6) for _, steps, ms, _ in answers if steps]
    assert len(times) >= 10
    steps = [math.log(ms / 100.0, 1.5) for ms in times]
    assert all(abs(k - round(k)) < 1e-6 for k in steps), times  # on the grid
    assert times == sorted(times) and times[-1] > 100.0  # it grew, and never came down
    assert times[-1] == pytest.approx(session.settings["hidden_budget_ms"])
    assert len(set(round(k) for k in steps)) <= 4  # a few overruns at most: the first runs set it
    stored = api.manager.store.get(session.id).settings["hidden_budget_ms"]
    assert round(stored, 6) in times[-2:]  # saved with the move (a raise in the last answer, with the next)


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_games_that_tell_every_move_never_wait(fake, tmp_path, game) -> None:
    api, clock = fake(tmp_path, 2.0, 2.0)
    answers = timed_answers(api, clock, game, 3, None, random.Random(1))
    assert sum(n for n, _, _, _ in answers) == 0 and clock.waits == 0


def test_the_deck_sequence_never_waits(fake, tmp_path) -> None:
    """The deck sequence tells the enemy every step (as ``?`` where unseen): nothing to pad."""
    api, clock = fake(tmp_path, 2.0, 2.0)
    answers = timed_answers(api, clock, "skirmish", 3, "player_0", random.Random(1), rules={"sequence": "deck"},
                            scenario="duel")
    assert len(answers) > 10 and sum(n for n, _, _, _ in answers) == 0 and clock.waits == 0


# ---------------------------------------------------------------------------- real time
@pytest.fixture
def slow_declarations(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bot sleeps 12 ms more in each declaration step (as a timed search spends its time on every step), so
    that the hidden count shows in the round trip above the machine's noise, without using its CPU (with 8 ms
    and Pearson's r, one loaded 2-core CI run measured only 0.38 without padding)."""
    real_ask = sessions.ask

    def ask(player: Any, obs: Any, view: Any, budget: Any, history: Any) -> Any:
        if getattr(view, "stage", None) in DECLARING:
            time.sleep(0.012)
        return real_ask(player, obs, view, budget, history)

    monkeypatch.setattr(sessions, "ask", ask)


def round_trips(api: Any, games: int) -> tuple[np.ndarray, np.ndarray]:
    """Duels (phases) against the heuristic, random moves, the player in either seat: the hidden bot steps and
    the client's round trip (ms) of each answer in which the bot moved (which the client knows: the phases
    say when the bot declares, and the log shows its other steps)."""
    rng, hidden, took = random.Random(11), [], []
    for g in range(games):
        body = {"game": "skirmish", "agent": "heuristic", "seed": 300 + g, "seat": ("player_0", "player_1")[g % 2],
                "scenario": "duel", "rules": PHASES}
        t0 = time.perf_counter()
        r = api.client.post("/api/sessions", json=body)
        ms = (time.perf_counter() - t0) * 1000
        assert r.status_code == 201, r.text
        session = api.manager.get(r.json()["id"])
        answers = [(session.public.count(False), len(session.public), ms)]
        sid, auth, state = r.json()["id"], {"Authorization": f"Bearer {r.json()['token']}"}, r.json()["state"]
        while state["status"] == "your_turn":
            before, t0 = len(session.public), time.perf_counter()
            r = api.move(sid, auth, move=rng.choice(state["legal"])["move"], version=state["version"])
            bot = session.public[before + 1:]
            answers.append((bot.count(False), len(bot), (time.perf_counter() - t0) * 1000))
            assert r.status_code == 200, r.text
            state = r.json()["state"]
        for n, steps, ms in answers:
            if steps:
                hidden.append(n)
                took.append(ms)
    return np.array(hidden), np.array(took)


@pytest.mark.slow
def test_a_clients_stopwatch_does_not_follow_the_hidden_count(tmp_path, slow_declarations) -> None:
    """Real round trips (in process: no network to blur them). Without padding the round trip follows the hidden
    count (Spearman's r > 0.5: ranks, so that one pause of the machine does not decide it); with padding |r| < 0.3
    over the same 111 answers, on a quiet machine or a busy one. The padded server's budget starts at 250 ms, above
    what the longest answer takes (9 hidden steps), so that it measures the padding and not the grid's overruns,
    which the fake-clock tests above check exactly. On this project's 2-core machine, r without and with padding:
    0.91-0.92 and -0.05 quiet; 0.92 and -0.02 with four busy processes beside it (Pearson's r there: 0.64)."""
    games = 12
    gen = make_api(tmp_path / "off", max_sessions_per_client=50, pad_hidden=False)
    off = next(gen)
    hidden, took = round_trips(off, games)
    gen.close()
    assert len(hidden) >= 100 and len(set(hidden.tolist())) >= 5 and 0 in hidden
    r_off = spearmanr(hidden, took).statistic  # ranks: one pause of the machine does not decide it
    gen = make_api(tmp_path / "on", max_sessions_per_client=50, pad_hidden_min_ms=250.0)
    on = next(gen)
    hidden_on, took_on = round_trips(on, games)
    gen.close()
    assert hidden_on.tolist() == hidden.tolist()  # the same games
    r_on = spearmanr(hidden_on, took_on).statistic
    assert r_off > 0.5, (r_off, r_on)
    assert abs(r_on) < 0.3, (r_off, r_on)
