"""Agents that play one seat from what that seat may know.

An agent gets the seat's observation dict (``observation`` and ``action_mask``)
and the engine's information view of that seat, and returns a legal action
id. It never reads the full state: the other hand, the deck order, hidden
units and future dice are out of its reach by construction.

Agents are named by spec strings (:mod:`cardwar.agents.spec`); :func:`make` builds one:

    agents.make("heuristic", "naval", seed=1)
    agents.make("random", "hexwar")
"""

from __future__ import annotations

import difflib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from cardwar.agents.spec import AgentSpecError, Option, coerce_options, parse_spec

GAMES = ("naval", "hexwar")


class Agent(Protocol):
    """One seat's player."""

    name: str

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """Choose a legal action id from the seat's observation and information view."""


class RandomAgent:
    """Uniform over the legal actions, from its own seeded Generator."""

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(legal.size)])


def _heuristic(game: str, seed: int | None = None, **options: Any) -> Agent:
    if game == "naval":
        from cardwar.agents.naval_heuristic import NavalHeuristic

        return NavalHeuristic(seed=seed, **options)
    from cardwar.agents.hexwar_heuristic import HexHeuristic

    return HexHeuristic(seed=seed, **options)


def _mcts(game: str, seed: int | None = None, **options: Any) -> Agent:
    if game == "naval":
        from cardwar.agents.naval_search import NavalSearch

        return NavalSearch(seed=seed, **options)
    from cardwar.agents.hexwar_search import HexSearch

    return HexSearch(seed=seed, **options)


def _ppo(game: str, seed: int | None = None, path: str | None = None, deterministic: bool = True) -> Agent:
    from cardwar.agents.ppo_agent import PPOAgent

    return PPOAgent(game, path=path, deterministic=deterministic, seed=seed)


def _mcts_options(rollout_depth: int, extra: tuple[Option, ...] = ()) -> tuple[Option, ...]:
    return (
        Option("seconds", float, 0.2, "thinking time per move", minimum=0, min_exclusive=True, maximum=3600,
               nullable=True),
        Option("iterations", int, None, "search iterations per move (alone: reproducible)", minimum=1,
               maximum=10**7, nullable=True),
        Option("exploration", float, 0.8, "UCT exploration constant", minimum=0, maximum=100),
        Option("rollout_depth", int, rollout_depth, "moves per play-out before the evaluation", minimum=1,
               maximum=10_000),
        Option("model", str, None, "a trained network guides the search (PUCT priors, leaf values): "
               "ppo (the shipped model) or a model file", nullable=True),
        *extra,
    )


@dataclass(frozen=True)
class AgentInfo:
    """An agent :func:`make` can build: its name, what it does, and the options it takes in each game."""

    name: str
    summary: str
    factory: Callable[..., Agent]
    options: dict[str, tuple[Option, ...]]  # by game

    def to_dict(self, game: str) -> dict[str, Any]:
        """A JSON-friendly description (for ``cardwar agents`` and the server's discovery)."""
        return {"name": self.name, "summary": self.summary,
                "options": [{"name": o.name, "type": o.kind.__name__, "default": o.default, "help": o.help,
                             "range": o.bounds() or None, "nullable": o.nullable} for o in self.options[game]]}


_PPO_OPTIONS = (Option("path", str, None, "model file (default: the shipped model of the game)", nullable=True),
                Option("deterministic", bool, True, "play the most likely move (false: sample the policy)"))

REGISTRY: dict[str, AgentInfo] = {a.name: a for a in (
    AgentInfo("random", "uniform over the legal moves", RandomAgent, {"naval": (), "hexwar": ()}),
    AgentInfo("heuristic", "hand-written rules of thumb", _heuristic, {
        "naval": (Option("samples", int, 32, "deals of the unseen cards per battle estimate", minimum=1,
                         maximum=100_000),
                  Option("attack_threshold", float, 0.45, "least win chance to attack", minimum=0, maximum=1)),
        "hexwar": ()}),
    AgentInfo("mcts", "information-set Monte Carlo tree search over determinizations of the seat's view", _mcts, {
        "naval": _mcts_options(16),
        "hexwar": _mcts_options(8, (Option("margin", float, 0.05, "value margin to override the heuristic's move",
                                           minimum=0, maximum=2),))}),
    AgentInfo("ppo", "a MaskablePPO model trained by cardwar train", _ppo, {"naval": _PPO_OPTIONS,
                                                                           "hexwar": _PPO_OPTIONS}),
)}


def available() -> list[str]:
    """Names of the agents :func:`make` knows."""
    return sorted(REGISTRY)


def check_spec(spec: str, game: str) -> tuple[str, dict[str, Any]]:
    """``(name, typed options)`` of ``spec`` for ``game``; one-line :class:`AgentSpecError` if anything is wrong.

    Cheap (no model is loaded), so callers check every spec before a game, a worker or a run starts.
    """
    if game not in GAMES:
        raise AgentSpecError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    name, given = parse_spec(spec)
    if name not in REGISTRY:
        close = difflib.get_close_matches(name, available(), n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise AgentSpecError(f"unknown agent {spec!r}{hint}; agents: {', '.join(available())}")
    options = coerce_options(name, REGISTRY[name].options[game], given)
    if name == "mcts" and "iterations" in options and "seconds" not in options:
        options["seconds"] = None  # an iteration budget alone makes the agent reproducible
    if name == "mcts" and options.get("iterations", None) is None and options.get("seconds", 0.2) is None:
        raise AgentSpecError(f"mcts needs a budget: give iterations=N or seconds=S (in {spec!r})")
    if name == "ppo" and options.get("path"):
        from pathlib import Path

        if not Path(options["path"]).is_file():
            raise AgentSpecError(f"ppo: no model file at {options['path']!r} (train one with `cardwar train`, "
                                 f"or use the shipped `ppo`)")
    return name, options


def make(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game``; a clear one-line error lists what exists."""
    name, options = check_spec(spec, game)
    return REGISTRY[name].factory(game, seed=seed, **options)


__all__ = ["REGISTRY", "Agent", "AgentInfo", "AgentSpecError", "Option", "RandomAgent", "available", "check_spec",
           "make", "parse_spec"]
