"""The one game loop: two players, one env, clocks, forfeits and the record.

Every caller that plays a game - ``cardwar match``, tournaments, training's
evaluation, the server - goes through :func:`play_game`, so a forfeit rule, a
clock or the record format is written once.

A player is anything with ``act(observation, view) -> action``. A player that can
keep to a time budget (an engine process) also has ``act_within(observation, view,
budget_ms, history)``; it is given the seat's visible move history and the time it
has left. Forfeits follow Kaggle's environments' classification:

- ``error``: the player raised or its process crashed;
- ``timeout``: it took longer than the move time or ran out of game time (an
  in-process agent cannot be interrupted, so its time is checked after it answers;
  an engine process is killed when its budget runs out);
- ``illegal``: it returned a move that is not legal (or not a move at all).

The forfeiting seat loses (-1, the other +1) whatever the position.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from cardwar.arena.visibility import visible_lines
from cardwar.record import SEATS, GameRecord, Move, result_of

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


def _notation(game: str) -> tuple[Callable[[int], str], Callable[[str], int]]:
    if game == "naval":
        from cardwar.envs.naval import action_to_string, string_to_action
    else:
        from cardwar.envs.hexwar import action_to_string, string_to_action  # type: ignore[assignment]
    return action_to_string, string_to_action


def _ask(player: Any, obs: dict, view: Any, budget: float | None, history: list[str]) -> Any:
    if hasattr(player, "act_within"):
        return player.act_within(obs, view, None if budget is None else int(budget * 1000), history)
    return player.act(obs, view)


def play_game(env: Any, players: Sequence[Any], seed: int, *, game: str, specs: Sequence[str] = ("?", "?"),
              scenario: str | None = None, clock: Clock | None = None,
              on_move: Callable[[str, dict, int], None] | None = None, forfeits: bool = True) -> GameOutcome:
    """Play one game of ``env`` (a raw AEC env of ``game``) between ``players`` (in seat order) from ``seed``.

    ``on_move(agent_name, observation, action)`` sees every accepted move. The outcome's
    record replays with :func:`cardwar.record.replay_states` (a forfeit ends it early).
    With ``forfeits=False`` (our own agents, where a crash or an illegal move is a bug
    to see, not a result) the error is raised instead.
    """
    clock = clock or Clock()
    to_str, _ = _notation(game)
    env.reset(seed=seed)
    seats = list(env.possible_agents)
    out = GameOutcome(returns=[0.0, 0.0])
    used = [0.0, 0.0]
    history: list[list[str]] = [[], []]
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = seats.index(agent)
        budget = clock.budget(used[seat])
        start = time.perf_counter()
        try:
            action = _ask(players[seat], obs, env.view(agent), budget, history[seat])
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
        used[seat] += spent
        if budget is not None and spent > budget:
            out.forfeit = Forfeit(seat, "timeout", f"took {spent * 1000:.0f} ms of {budget * 1000:.0f} ms")
            break
        if not hasattr(action, "__index__") or not env.state.is_legal(int(action)):
            if not forfeits:
                raise ValueError(f"{agent} played {action!r}, which is not a legal move")
            out.forfeit = Forfeit(seat, "illegal", f"{action!r} is not a legal move")
            break
        action = int(action)
        if on_move is not None:
            on_move(agent, obs, action)
        before = env.state.clone()
        env.step(action)
        out.moves.append(Move(agent, to_str(action)))
        out.times.append(spent)
        lines = visible_lines(game, before, action, env.state)
        for k in (0, 1):  # the mover sees its move in notation, and both see what it publicly caused
            history[k].append("; ".join([to_str(action), *lines[1:]]) if k == seat else "; ".join(lines))
    state = env.state
    if out.forfeit is not None:
        out.returns = [1.0, 1.0]
        out.returns[out.forfeit.seat] = -1.0
    else:
        out.returns = list(state.returns())
    out.record = _record(env, game, seed, specs, scenario, out)
    return out


def _record(env: Any, game: str, seed: int, specs: Sequence[str], scenario: str | None, out: GameOutcome) -> GameRecord:
    s, seats = env.state, SEATS[game]
    if out.forfeit is not None:
        f = out.forfeit
        result: dict[str, Any] = {"winner": seats[1 - f.seat], "returns": out.returns, "turns": s.turn,
                                  "forfeit": {"seat": seats[f.seat], "reason": f.reason, "detail": f.detail}}
    else:
        result = result_of(s, seats)
    return GameRecord(game=game, seed=seed, players=dict(zip(seats, specs)), moves=tuple(out.moves),
                      rules=env.config.to_dict(), scenario=scenario,
                      scenario_data=s.scenario.to_dict() if game == "hexwar" else None,
                      finished=True, result=result)
