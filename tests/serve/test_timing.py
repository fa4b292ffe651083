"""No answer of the server carries a timing that tells the player what the log does not (issue 27).

A skirmish in the phases sequence hides how the enemy's figures declared: the steps of a declaration that
cause nothing public are not in the player's log, not even their number (docs/serve.md, RULES.md §9.1). The
bot's thinking time and the server's work both grow with that number (``bot_ms`` correlated 0.77-0.90 with
it), so by default no timing is sent at all, in the body or a header; ``cardwar serve --timing`` (an operator
measuring his own server: the load benchmark) sends them. A client's own stopwatch is the padding's business
(tests/serve/test_hidden_padding.py): these games, against a server with padding on, take its waits too.
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest

from cardwar.cli import build_parser
from cardwar.serve.command import settings_from_args
from tests.serve.conftest import make_api

TIMING_KEY = re.compile(r"time|elapsed|duration|clock|(^|_)(ms|us|ns|s)$", re.IGNORECASE)
"""A key of the answer's JSON that could hold a time."""


@pytest.fixture
def api(tmp_path: Any) -> Iterator[Any]:
    yield from make_api(tmp_path, max_sessions_per_client=50)


@pytest.fixture
def timed_api(tmp_path: Any) -> Iterator[Any]:
    """A server started with ``--timing``."""
    yield from make_api(tmp_path, timing=True)


def time_fields(value: Any, path: str = "") -> dict[str, Any]:
    """Every field of a JSON value whose key looks like a time, by its path (``state.bot.move_ms``)."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for k, v in value.items():
            where = f"{path}.{k}" if path else k
            if TIMING_KEY.search(k):
                out[where] = v
            out.update(time_fields(v, where))
    elif isinstance(value, list):
        for x in value:
            out.update({k: v for k, v in time_fields(x, f"{path}[]").items() if k not in out})
    return out


def hidden_game(api: Any, seat: str, seed: int, rng: random.Random) -> list[tuple[int, Any]]:
    """A skirmish (phases) against the heuristic with random legal moves: ``(hidden bot steps, response)`` for
    the new game and every move, where the count is the bot's steps that the player's log leaves out."""
    r = api.new(game="skirmish", agent="heuristic", seed=seed, seat=seat, rules={"sequence": "phases"})
    assert r.status_code == 201, r.text
    session = api.manager.get(r.json()["id"])
    out = [(session.public.count(False), r)]
    sid, auth, state = r.json()["id"], {"Authorization": f"Bearer {r.json()['token']}"}, r.json()["state"]
    while state["status"] == "your_turn":
        before = len(session.public)
        r = api.move(sid, auth, move=rng.choice(state["legal"])["move"], version=state["version"])
        assert r.status_code == 200, r.text
        out.append((session.public[before + 1:].count(False), r))  # the person's own move is the first
        state = r.json()["state"]
    return out


def test_no_answer_carries_a_timing_that_follows_the_hidden_steps(api) -> None:
    """By default the answers have no timing and no Server-Timing header; what they have that looks like a time
    (the session's ``move_ms``) is the same in every answer, however many steps the bot hid."""
    rng, answers = random.Random(3), []
    for k, seat in enumerate(("player_0", "player_1")):
        answers += hidden_game(api, seat, 40 + k, rng)
    hidden = [n for n, _ in answers]
    assert sum(n > 0 for n in hidden) >= 10 and len(set(hidden)) >= 4  # the bot hid steps, in varying numbers
    headers = {frozenset(k.lower() for k in r.headers if k.lower() != "content-length") for _, r in answers}
    assert len(headers) == 1, headers  # the same headers in every answer
    assert "server-timing" not in next(iter(headers))
    fields = set()
    for _, r in answers:
        body = r.json()
        assert "timing" not in body, body.get("timing")
        fields.add(tuple(sorted(time_fields(body).items(), key=str)))
    assert fields == {(("state.bot.move_ms", 300),)}, fields  # the bot's time per move, as the session chose it


def test_the_operator_flag_sends_the_timings(timed_api) -> None:
    """``--timing`` (the load benchmark's): ``timing`` in the body and the same figures in Server-Timing."""
    api = timed_api
    sid, auth, state = api.start(seed=2)
    r = api.move(sid, auth, move=state["legal"][0]["move"], version=state["version"])
    timing = r.json()["timing"]
    assert set(timing) == {"server_ms", "bot_ms"} and min(timing.values()) >= 0
    assert r.headers["server-timing"] == f"server;dur={timing['server_ms']:.3f}, bot;dur={timing['bot_ms']:.3f}"
    assert "timing" in api.new(seed=3).json()


def test_timing_is_off_unless_the_command_asks(tmp_path) -> None:
    parser = build_parser()
    db = str(tmp_path / "s.db")
    assert settings_from_args(parser.parse_args(["serve", "--db", db])).timing is False
    assert settings_from_args(parser.parse_args(["serve", "--db", db, "--timing"])).timing is True
