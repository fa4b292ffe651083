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


def batch_key(agent: Any) -> Any:
    """What :func:`batched_ppo_actions` groups decisions by: a snapshot opponent's model file and its action
    space (``(path, steps)``: every agent of that file has the same weights); None for an agent that decides
    alone (heuristic, random, anything but a :class:`~cardwar.agents.ppo_agent.PPOAgent`)."""
    from cardwar.agents.ppo_agent import PPOAgent

    if type(agent) is not PPOAgent:
        return None
    return (agent.path if agent.path != "<in memory>" else id(agent.model)), agent.steps


def batched_ppo_actions(group: list[Any], requests: list[tuple[dict, Any]]) -> list[int]:
    """``[agent.act(*request) ...]`` for PPO agents of one :func:`batch_key`, with one forward pass per
    decision depth instead of one per agent: the same choice rule as ``PPOAgent.act`` (masked argmax, or a
    draw from the masked probabilities by each agent's own generator, in the same order), naval-v1 models
    choosing a whole move's steps one by one as ``PPOAgent._act_in_steps`` does."""
    model = group[0].model
    masks = [np.asarray(obs["action_mask"], dtype=bool) for obs, _ in requests]
    if not all(m.any() for m in masks):
        raise ValueError("no legal action in the mask")
    flat = [np.asarray(obs["observation"], dtype=np.float32) for obs, _ in requests]
    if not group[0].steps:
        return _choose_rows(model, group, np.stack(flat), np.stack(masks))
    from cardwar.agents.ppo_agent import step_choices
    from cardwar.envs.naval_v1 import OBS_SIZE, PENDING_OFFSET, write_pending

    legal = [np.flatnonzero(m) for m in masks]
    pending: list[tuple[int, ...]] = [() for _ in group]
    moves: list[int | None] = [None] * len(group)
    while True:
        rows, obs_rows, mask_rows = [], [], []
        for i in range(len(group)):
            if moves[i] is not None:
                continue
            nexts, move = step_choices(legal[i], pending[i])
            if move is not None:
                moves[i] = move
                continue
            obs = np.zeros(OBS_SIZE, dtype=np.float32)
            obs[:PENDING_OFFSET] = flat[i]
            write_pending(pending[i], obs)
            step_mask = np.zeros(model.action_space.n, dtype=bool)
            step_mask[nexts] = True
            rows.append(i)
            obs_rows.append(obs)
            mask_rows.append(step_mask)
        if not rows:
            return [int(m) for m in moves]  # type: ignore[arg-type]
        chosen = _choose_rows(model, [group[i] for i in rows], np.stack(obs_rows), np.stack(mask_rows))
        for i, step in zip(rows, chosen):
            pending[i] = (*pending[i], step)


def _choose_rows(model: Any, group: list[Any], obs: np.ndarray, masks: np.ndarray) -> list[int]:
    """One forward pass over ``obs``; each row's action by its agent's rule (``PPOAgent._choose``)."""
    import torch

    with torch.no_grad():
        dist = model.policy.get_distribution(torch.as_tensor(obs, dtype=torch.float32), action_masks=masks)
        probs = dist.distribution.probs.numpy().astype(np.float64)
    out = []
    for agent, p, mask in zip(group, probs, masks):
        if agent.deterministic:
            out.append(int(np.argmax(np.where(mask, p, -1.0))))
        else:
            p = np.where(mask, p, 0.0)
            out.append(int(agent.rng.choice(p.size, p=p / p.sum())))
    return out
