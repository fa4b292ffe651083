"""An engine's stopwatch counts nothing hidden (issue 27; cardwar/arena/padding.py, docs/engine-protocol.md).

In the skirmish's phases the other seat's declaration steps are not told (RULES.md §9.1), and its time on them
grows with their number. The arena waits out a budget before an engine seat's next question whenever the
other seat moved in between, once the game has hidden a step from it, so every such gap takes the budget.
"""

from __future__ import annotations

import time

import numpy as np

from cardwar.arena import game as arena
from cardwar.arena.padding import SeatPadding, hidden_budget
from cardwar.envs import make_raw_env


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_every_wait_takes_the_budget_once_the_game_has_hidden_a_step():
    clock = FakeClock()
    pad = SeatPadding(100.0, clock=clock, sleep=clock.sleep)
    pad.answered()
    clock.now += 0.030
    pad.saw(told=True)
    pad.before_question()
    assert clock.now == 0.030  # nothing hidden yet: no wait
    for steps in (1, 7, 24, 0):  # however many steps were hidden (or none in this gap), the wait is the budget
        pad.answered()
        start = clock.now
        for _ in range(steps):
            clock.now += 0.002
            pad.saw(told=False)
        pad.before_question()
        assert abs((clock.now - start) - 0.100) < 1e-9
    assert len(pad.waits) == 4


def test_an_overrun_raises_the_budget_on_its_grid_and_it_never_comes_down():
    clock = FakeClock()
    pad = SeatPadding(100.0, clock=clock, sleep=clock.sleep)
    pad.answered()
    pad.saw(told=False)
    clock.now += 0.120
    pad.before_question()
    assert pad.budget_ms == hidden_budget(100.0, 120.0) == 150.0 and abs(clock.now - 0.150) < 1e-9
    pad.answered()
    pad.saw(told=False)
    pad.before_question()
    assert pad.budget_ms == 150.0 and abs(clock.now - 0.300) < 1e-9


class Stopwatch:
    """An engine-like seat (it has ``act_within``) that times the gap from its answer to its next question; the
    test (not the seat) also notes how many moves the other seat made in each gap."""

    def __init__(self, other: SlowInProcess) -> None:
        self.rng, self.other, self.last, self.gaps = np.random.default_rng(0), other, None, []

    def act_within(self, obs, view, budget_ms, history):
        now = time.perf_counter()
        if self.last is not None:
            self.gaps.append((now - self.last, self.other.moves - self.moves_then))
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[int(self.rng.integers(legal.size))])
        self.moves_then = self.other.moves
        self.last = time.perf_counter()
        return action


class SlowInProcess:
    """An in-process opponent that takes 5 ms a move: its hidden declarations add up in the gaps."""

    def __init__(self) -> None:
        self.rng, self.moves = np.random.default_rng(1), 0

    def act(self, obs, view):
        self.moves += 1
        time.sleep(0.005)
        legal = np.flatnonzero(obs["action_mask"])
        return int(legal[int(self.rng.integers(legal.size))])


def _gaps(pad_hidden: bool, monkeypatch) -> list[tuple[float, int]]:
    monkeypatch.setattr(arena, "PAD_MIN_MS", 100.0)
    other = SlowInProcess()
    spy = Stopwatch(other)
    env = make_raw_env("skirmish", scenario="duel", rules={"sequence": "phases"})
    arena.play_game(env, (spy, other), 3, game="skirmish", pad_hidden=pad_hidden)
    return spy.gaps


def test_an_engines_gaps_do_not_follow_the_other_seats_steps(monkeypatch):
    """Unpadded, a gap grows with the other seat's moves in it (5 ms each, most of them hidden declarations):
    r about 0.75; padded, once a step has been hidden every gap takes the budget (100 ms, above every gap
    here), and r is near 0."""
    raw = _gaps(False, monkeypatch)
    padded = _gaps(True, monkeypatch)
    first = next(i for i, (g, _) in enumerate(padded) if g > 0.095)  # from the first gap after a hidden step
    padded = padded[first:]
    assert len(raw) >= 20 and len(padded) >= 20
    r_raw = np.corrcoef([g for g, _ in raw], [n for _, n in raw])[0, 1]
    r_padded = np.corrcoef([g for g, _ in padded], [n for _, n in padded])[0, 1]
    assert r_raw > 0.5, r_raw
    assert abs(r_padded) < 0.3, r_padded
    assert min(g for g, _ in padded) >= 0.099
