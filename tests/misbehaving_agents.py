"""Agents that misbehave on purpose, for the tests of forfeits (arena, replay)."""

from __future__ import annotations

import numpy as np


class Crashing:
    """Plays randomly, then raises on its ``at``-th move (an agent that forfeits for error)."""

    def __init__(self, at: int) -> None:
        self.n, self.at, self.rng = 0, at, np.random.default_rng(0)

    def act(self, obs, view):
        self.n += 1
        if self.n >= self.at:
            raise RuntimeError("segfault in my evaluation function")
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))
