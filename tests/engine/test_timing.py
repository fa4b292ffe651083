"""Nothing the dealer sends an engine during a game follows the other seat's time (issue 27).

In a skirmish of the phases sequence the enemy's declaration steps that cause nothing public are hidden, their
number too (RULES.md §9.1): a clock that counted the other seat's thinking would tell it. ``time_ms`` is the
seat's own budget (the move limit, or its own game time left) and no other message carries a time, so the
lines sent to an engine are the same whether its opponent thinks long or not at all in its hidden steps.
(After the game the record, with every step, is no secret: a tournament report's times a move are fine.)
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

from cardwar import agents
from cardwar.arena import play_game
from cardwar.arena.game import Clock
from cardwar.arena.table import Table
from cardwar.envs import make_raw_env
from cardwar.record import SEATS, GameRecord, make_env
from tests.engine.conftest import bot_spec

SETUP = {"scenario": "duel", "rules": {"sequence": "phases"}}
TIME_KEY = re.compile(r"time|elapsed|duration|clock|(^|_)(ms|us|ns|s)$", re.IGNORECASE)


class SlowInHiddenSteps:
    """The heuristic, thinking ``pause`` seconds more in each declaration step (the steps the other seat is not
    told of unless they cause something public)."""

    def __init__(self, game: str, seed: int, pause: float) -> None:
        self.agent, self.pause, self.slept = agents.make("heuristic", game, seed=seed), pause, 0.0

    def act(self, observation: dict, view: Any) -> int:
        if self.pause and view.step is not None and int(view.step) <= 5:  # MODE .. TARGET: declarations
            time.sleep(self.pause)
            self.slept += self.pause
        return self.agent.act(observation, view)


def hidden_steps(record: GameRecord, seat: int) -> int:
    """How many moves of the other seat ``seat`` was never told of (replayed as the server's log counts them)."""
    table, hidden = Table(make_env(record), record.game, record.seed), 0
    for m in record.moves:
        mover, told = table.to_move, len(table.history[seat].moves)
        table.play(table.parse(m.move))
        hidden += mover != seat and len(table.history[seat].moves) == told
    return hidden


def play(engines: Any, tmp_path: Path, name: str, pause: float, clock: Clock, seed: int = 3):
    """The example bot (seat 0, its lines kept) against the heuristic slowed by ``pause`` in declarations; the
    lines sent to the bot, the outcome and the opponent."""
    game = "skirmish"
    transcript = tmp_path / f"{name}.jsonl"
    bot = engines(bot_spec(), game, seed=seed, transcript=transcript)
    other = SlowInHiddenSteps(game, seed, pause)
    # the lines sent, not the waits, are this test's subject (tests/arena/test_padding.py pads them)
    out = play_game(make_raw_env(game, **SETUP), (bot, other), seed, game=game, clock=clock, pad_hidden=False)
    bot.game_over(out.record.result)
    bot.close()
    assert out.forfeit is None
    sent = [json.loads(line[2:]) for line in transcript.read_text().splitlines() if line.startswith("> ")]
    return sent, out, other


def time_fields(value: Any, path: str = "") -> list[str]:
    """The paths of every key of a message that looks like a time."""
    out = []
    if isinstance(value, dict):
        for k, v in value.items():
            where = f"{path}.{k}" if path else k
            out += [where] * bool(TIME_KEY.search(k)) + time_fields(v, where)
    elif isinstance(value, list):
        for x in value:
            out += time_fields(x, f"{path}[]")
    return out


def test_an_engine_is_sent_the_same_lines_however_long_the_other_seat_thinks_in_hidden_steps(engines, tmp_path):
    clock = Clock(move_seconds=5.0)
    fast, out_fast, _ = play(engines, tmp_path, "fast", 0.0, clock)
    slow, out_slow, other = play(engines, tmp_path, "slow", 0.003, clock)
    assert out_slow.record.moves == out_fast.record.moves  # the same game
    hidden = hidden_steps(out_slow.record, 0)
    assert hidden >= 20 and other.slept >= 0.1  # the other seat hid steps, and took its time over them
    assert slow == fast  # line for line: nothing sent follows the other seat's time
    assert {m["time_ms"] for m in slow if m["type"] == "move"} == {5000}
    for m in slow:  # the only time in any message is a move's own budget
        assert set(time_fields(m)) <= ({"time_ms"} if m["type"] == "move" else set()), m["type"]
    assert [m["type"] for m in slow[-2:]] == ["game_over", "quit"]


def test_a_game_clock_counts_the_seats_own_time_only(engines, tmp_path):
    """With a game clock, each request's ``time_ms`` is the game time less the seat's own time so far, to the
    millisecond: the other seat's time (its hidden steps' included) is not in it."""
    sent, out, other = play(engines, tmp_path, "clock", 0.003, Clock(game_seconds=100.0))
    assert other.slept >= 0.1 and hidden_steps(out.record, 0) >= 20
    own = [t for m, t in zip(out.moves, out.times) if m.seat == SEATS["skirmish"][0]]
    requests = [m for m in sent if m["type"] == "move"]
    assert len(requests) == len(own)
    used = 0.0
    for request, spent in zip(requests, own):
        assert request["time_ms"] == int(max(0.0, 100.0 - used) * 1000)
        used += spent
