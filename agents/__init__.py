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

import inspect
from typing import Any, Protocol

import numpy as np

from cardwar.agents.spec import AgentSpecError, parse_spec

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


def _heuristic(game: str, seed: int | None = None, **options: Any):
    if game == "naval":
        from cardwar.agents.naval_heuristic import NavalHeuristic

        return NavalHeuristic(seed=seed, **options)
    from cardwar.agents.hexwar_heuristic import HexHeuristic

    return HexHeuristic(seed=seed, **options)


def _mcts(game: str, seed: int | None = None, **options: Any):
    if game == "naval":
        from cardwar.agents.naval_search import NavalSearch

        return NavalSearch(seed=seed, **options)
    from cardwar.agents.hexwar_search import HexSearch

    return HexSearch(seed=seed, **options)


def _ppo(game: str, seed: int | None = None, path: str | None = None, deterministic: bool = True):
    from cardwar.agents.ppo_agent import PPOAgent

    return PPOAgent(game, path=path, deterministic=deterministic, seed=seed)


_REGISTRY = {"random": RandomAgent, "heuristic": _heuristic, "mcts": _mcts, "ppo": _ppo}


def available() -> list[str]:
    """Names of the agents :func:`make` knows."""
    return sorted(_REGISTRY)


def make(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game``; a clear error lists what exists."""
    if game not in GAMES:
        raise AgentSpecError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    name, options = parse_spec(spec)
    if name not in _REGISTRY:
        raise AgentSpecError(f"unknown agent {spec!r}; agents: {', '.join(available())}")
    factory = _REGISTRY[name]
    try:
        return factory(game, seed=seed, **options)
    except TypeError as err:
        params = [p for p in inspect.signature(factory).parameters if p not in ("game", "seed", "options")]
        raise AgentSpecError(f"agent {name!r} does not take the options {sorted(options)} ({err}); "
                             f"its options: {', '.join(params) or 'none'}") from None


__all__ = ["Agent", "AgentSpecError", "RandomAgent", "available", "make", "parse_spec"]
