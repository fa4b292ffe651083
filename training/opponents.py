"""The opponent pool of self-play: frozen snapshots of the learner, ``heuristic`` and ``random``.

Each episode draws one member by the weights in force (``mix``), then, for
``snapshots``, one snapshot uniformly. Snapshot files are loaded once per
process and play by sampling their policy, which keeps the learner facing
varied play. The trainer updates the pool of every env through ``set_pool``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar import agents


class OpponentPool:
    """Opponents of one env; cheap to copy into each worker process."""

    def __init__(self, game: str, mix: dict[str, float] | None = None, heuristic: str = "heuristic",
                 snapshots: list[str] | None = None, seed: int | None = None) -> None:
        self.game = game
        self.heuristic_spec = heuristic
        self.mix = dict(mix or {"random": 1.0})
        self.snapshots = list(snapshots or [])
        self.seed = seed
        self._fixed: dict[str, Any] = {}
        self._loaded: dict[str, Any] = {}

    def update(self, snapshots: list[str], mix: dict[str, float]) -> None:
        """New snapshot files and weights; snapshots no longer listed are forgotten."""
        self.snapshots = list(snapshots)
        self.mix = dict(mix)
        self._loaded = {p: a for p, a in self._loaded.items() if p in self.snapshots}

    def members(self) -> dict[str, float]:
        """The weights that can be drawn now (``snapshots`` counts only once one exists)."""
        return {k: w for k, w in self.mix.items() if w > 0 and (k != "snapshots" or self.snapshots)}

    def draw(self, rng: np.random.Generator) -> tuple[str, Any]:
        """``(name, agent)`` for the next episode."""
        weights = self.members()
        if not weights:  # only snapshots wanted and none taken yet: the learner meets random play
            weights = {"random": 1.0}
        names = list(weights)
        p = np.array([weights[n] for n in names], dtype=float)
        name = names[int(rng.choice(len(names), p=p / p.sum()))]
        if name == "snapshots":
            path = self.snapshots[int(rng.integers(len(self.snapshots)))]
            if path not in self._loaded:  # uncached: a snapshot dropped from the pool is freed
                from cardwar.agents.ppo_agent import PPOAgent

                self._loaded[path] = PPOAgent(self.game, path=path, deterministic=False,
                                              seed=int(rng.integers(2**31)), cache=False)
            return f"snapshot:{path.rsplit('/', 1)[-1]}", self._loaded[path]
        if name not in self._fixed:
            spec = self.heuristic_spec if name == "heuristic" else "random"
            self._fixed[name] = agents.make(spec, self.game, seed=int(rng.integers(2**31)))
        return name, self._fixed[name]
