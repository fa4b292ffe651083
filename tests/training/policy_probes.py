"""Shared by the policy tests: a policy with every weight given a say, and decisions from random play."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from gymnasium import spaces

from cardwar.envs import make_raw_env


def probe_policy(cls: Any, shape: tuple[int, ...], actions: int, channels: int = 8, blocks: int = 1,
                 randomise: bool = True) -> Any:
    """``cls`` (an SB3 policy taking ``channels`` and ``blocks``) over ``shape`` and ``actions``, in eval mode."""
    torch.manual_seed(0)
    policy = cls(spaces.Box(0.0, 1.0, shape, dtype=np.float32), spaces.Discrete(actions), lambda _: 3e-4,
                 channels=channels, blocks=blocks)
    if randomise:  # fresh residual branches start at zero and logits near zero: give every weight a say
        with torch.no_grad():
            for p in policy.parameters():
                p.normal_(0.0, 0.3)
    return policy.eval()


def random_decisions(game: str, scenario: str, count: int, seed: int = 0) -> list[dict]:
    """``count`` observations (with masks) of the seat to decide in ``game``, from random play."""
    env = make_raw_env(game, scenario)
    rng = np.random.default_rng(seed)
    out: list[dict] = []
    env.reset(seed=seed)
    while len(out) < count:
        if env.game.is_terminal():
            env.reset(seed=int(rng.integers(2**31)))
        obs = env.observe(env.agent_selection)
        out.append(obs)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return out


def assert_only_legal_mass(policies: list[Any], batch: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """Each policy's masked distribution sums to 1, puts no mass on an illegal id and samples only legal ones;
    returns the last policy's probabilities."""
    for p in policies:
        dist = p.get_distribution(torch.as_tensor(batch), action_masks=masks)
        probs = dist.distribution.probs.detach().numpy()
        assert np.allclose(probs.sum(axis=1), 1.0, atol=1e-5)
        assert (probs[~masks] < 1e-6).all()
        for _ in range(5):
            picked = dist.sample().numpy()
            assert masks[np.arange(len(batch)), picked].all()
    return probs
