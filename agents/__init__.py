"""Agents that play one seat from what that seat may know.

An agent gets the seat's observation dict (``observation`` and ``action_mask``)
and the engine's information view of that seat, and returns a legal action id.
Agents are named by spec strings; :func:`make` builds one. Only ``random``
exists so far; heuristic, search and trained agents follow.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

GAMES = ("naval", "hexwar")


class Agent(Protocol):
    """One seat's player."""

    name: str

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        """Choose a legal action id."""


class RandomAgent:
    """Uniform over the legal actions, from its own seeded Generator."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(legal.size)])


_AGENTS = {"random": RandomAgent}


class AgentSpecError(ValueError):
    """An agent spec that names no agent."""


def make(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game``; a clear error lists what exists."""
    if game not in GAMES:
        raise AgentSpecError(f"unknown game {game!r}; games: {', '.join(GAMES)}")
    name = spec.split(":", 1)[0].strip().lower()
    if name not in _AGENTS:
        raise AgentSpecError(f"unknown agent {spec!r}; agents: {', '.join(sorted(_AGENTS))}")
    if ":" in spec:
        raise AgentSpecError(f"agent {name!r} takes no options, got {spec!r}")
    return _AGENTS[name](seed=seed)
