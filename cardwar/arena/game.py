"""The one game loop: two players, one env, clocks, forfeits and the record.

Every caller that plays a game - ``cardwar match``, tournaments, training's
evaluation, the server - goes through :func:`play_game`, so a forfeit rule, a
clock or the record format is written once.

A player is anything with ``act(observation, view) -> action``; one with ``prepare(observation, view)`` is
given its seat's first observation before any clock runs, for its set-up (a model's first forward pass). A
player that can
keep to a time budget (an engine process) also has ``act_within(observation, view,
budget_ms, history)``; it is given the seat's visible move history (a
:class:`cardwar.arena.table.SeatHistory`: the public log's lines, and ``history.moves``
in notation) and the time it has left. The seat's view is built before its clock
starts. Forfeits follow Kaggle's environments' classification:

- ``error``: the player raised or its process crashed;
- ``timeout``: it took longer than the move time or ran out of game time (an
  in-process agent cannot be interrupted, so its time is checked after it answers;
  an engine process is killed when its budget runs out);
- ``illegal``: it returned a move that is not legal (or not a move at all).

The forfeiting seat loses (-1, the other +1) whatever the position.

An engine seat's wait between its answer and its next question is padded (:mod:`cardwar.arena.padding`)
once the game has hidden a step from it, so its stopwatch cannot count the other seat's hidden steps or
time the dealer's work on hidden things; our own agents in process are not kept waiting.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardwar.arena.padding import SeatPadding
from cardwar.arena.table import Table, is_legal
from cardwar.record import SEATS, GameRecord, Move

FORFEIT_REASONS = ("error", "timeout", "illegal")


class PlayerFailure(Exception):
    """Raised by a player (an engine driver) that cannot give a move; ``reason`` is a forfeit reason."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass(frozen=True)
class Clock:
    """Time limits: per move and per game (each seat's own total), in seconds; None for no limit."""

    move_seconds: float | None = None
    game_seconds: float | None = None

    def budget(self, used: float) -> float | None:
        """Seconds a seat may think now, having used ``used`` this game."""
        limits = [t for t in (self.move_seconds,
                              None if self.game_seconds is None else max(0.0, self.game_seconds - used)) if t is not None]
        return min(limits) if limits else None


@dataclass(frozen=True)
class Forfeit:
    """A game lost by a seat's misbehaviour."""

    seat: int
    reason: str  # one of FORFEIT_REASONS
    detail: str


@dataclass
class GameOutcome:
    """What a game gave: returns per seat, the moves, their thinking times, any forfeit, the record."""

    returns: list[float]
    moves: list[Move] = field(default_factory=list)
    times: list[float] = field(default_factory=list)
    forfeit: Forfeit | None = None
    record: GameRecord | None = None

    @property
    def length(self) -> int:
        return len(self.moves)


def ask(player: Any, obs: dict, view: Any, budget: float | None, history: list[str]) -> Any:
    """``player``'s move: with the time budget and the seat's history if it can use them (an engine)."""
    if hasattr(player, "act_within"):
        return player.act_within(obs, view, None if budget is None else int(budget * 1000), history)
    return player.act(obs, view)


PAD_MIN_MS = 100.0
"""The first budget of a padded wait (it grows on its grid when a wait overruns it)."""


def _paddings(players: Sequence[Any], pad_hidden: bool) -> list[SeatPadding | None]:
    """A padded wait for each engine seat (one that can keep a time budget: a process that may time us)."""
    return [SeatPadding(PAD_MIN_MS) if pad_hidden and hasattr(p, "act_within") else None for p in players]


def prepare(players: Sequence[Any], table: Table) -> None:
    """Each player's set-up, before any clock runs (issue 28): a player with ``prepare(observation, view)``
    (a model's first forward pass) is given its seat's first observation; an engine did its own before
    ``hello``."""
    for seat, player in enumerate(players):
        ready = getattr(player, "prepare", None)
        if callable(ready) and not hasattr(player, "act_within"):
            ready(table.observation(seat), table.view(seat))


def play_game(env: Any, players: Sequence[Any], seed: int, *, game: str, specs: Sequence[str] = ("?", "?"),
              scenario: str | None = None, clock: Clock | None = None,
              on_move: Callable[[str, dict, int], None] | None = None, forfeits: bool = True,
              pad_hidden: bool = True) -> GameOutcome:
    """Play one game of ``env`` (a raw AEC env of ``game``) between ``players`` (in seat order) from ``seed``.

    ``on_move(agent_name, observation, action)`` sees every accepted move. The outcome's
    record replays with :func:`cardwar.record.replay_states` (a forfeit ends it early).
    With ``forfeits=False`` (our own agents, where a crash or an illegal move is a bug
    to see, not a result) the error is raised instead. ``pad_hidden``: an engine seat's waits are padded
    (the module docstring).
    """
    clock = clock or Clock()
    table = Table(env, game, seed, specs=tuple(specs), scenario=scenario)  # type: ignore[arg-type]
    out = GameOutcome(returns=[0.0, 0.0])
    used = [0.0, 0.0]
    pads = _paddings(players, pad_hidden)
    prepare(players, table)
    while not table.over:
        seat = table.to_move
        assert seat is not None
        agent, obs, view = table.seats[seat], table.observation(seat), table.view(seat)  # the dealer's work:
        budget = clock.budget(used[seat])  # not on the seat's clock
        if pads[seat] is not None:
            pads[seat].before_question()  # not on the seat's clock either
        start = time.perf_counter()
        try:
            action = ask(players[seat], obs, view, budget, table.history[seat])
        except PlayerFailure as failure:
            if not forfeits:
                raise
            out.forfeit = Forfeit(seat, failure.reason, failure.detail)
            break
        except Exception as err:  # noqa: BLE001 - any crash of an agent is its forfeit, not ours
            if not forfeits:
                raise
            out.forfeit = Forfeit(seat, "error", f"{type(err).__name__}: {err}".splitlines()[0][:300])
            break
        spent = time.perf_counter() - start
        if pads[seat] is not None:
            pads[seat].answered()
        used[seat] += spent
        if budget is not None and spent > budget:
            out.forfeit = Forfeit(seat, "timeout", f"took {spent * 1000:.0f} ms of {budget * 1000:.0f} ms")
            break
        if not hasattr(action, "__index__") or not is_legal(env.game, int(action)):
            if not forfeits:
                raise ValueError(f"{agent} played {action!r}, which is not a legal move")
            out.forfeit = Forfeit(seat, "illegal", f"{action!r} is not a legal move")
            break
        if on_move is not None:
            on_move(agent, obs, int(action))
        told = [len(h.moves) for h in table.history]
        table.play(int(action))
        out.times.append(spent)
        for k, pad in enumerate(pads):
            if pad is not None and k != seat:
                pad.saw(told=len(table.history[k].moves) > told[k])
    out.moves = list(table.moves)
    if out.forfeit is not None:
        out.returns = [1.0, 1.0]
        out.returns[out.forfeit.seat] = -1.0
        f, seats = out.forfeit, SEATS[game]
        result = {"winner": seats[1 - f.seat], "returns": out.returns, "turns": env.game.turn,
                  "forfeit": {"seat": seats[f.seat], "reason": f.reason, "detail": f.detail}}
        out.record = table.record(finished=True, result=result)
    else:
        out.returns = list(env.game.returns())
        out.record = table.record()
    return out


def play_agents(env: Any, first: Any, second: Any, seed: int,
                on_move: Callable[[str, dict, int], None] | None = None) -> list[float]:
    """One game of ``env`` between two agent objects through the one loop; the seats' returns.

    ``on_move(agent_name, observation, action)``, if given, sees every move as it is made.
    For our own agents (training's evaluation, imitation data): a crash or an illegal move is raised,
    not scored as a forfeit.
    """
    game = env.metadata["name"].split("_v")[0]
    return play_game(env, (first, second), seed, game=game, on_move=on_move, forfeits=False).returns

