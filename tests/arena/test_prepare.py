"""A player's set-up is done before any clock runs (issue 28): a model's first forward pass is not a move.

A player with ``prepare(observation, view)`` is given its seat's first observation before the first move; its
time there is on no clock, so a slow set-up on a busy machine is never a forfeit.
"""

from __future__ import annotations

import time

import numpy as np

from cardwar.arena import Clock, play_game
from cardwar.envs import make_raw_env


class SlowToLoad:
    """A player whose set-up takes 0.3 s and whose moves are instant (a model's load and first pass)."""

    def __init__(self) -> None:
        self.prepared, self.rng = 0, np.random.default_rng(0)

    def prepare(self, observation, view) -> None:
        assert observation["observation"].shape and view is not None
        time.sleep(0.3)
        self.prepared += 1

    def act(self, observation, view) -> int:
        assert self.prepared == 1, "a move asked before the set-up"
        return int(self.rng.choice(np.flatnonzero(observation["action_mask"])))


def test_a_slow_set_up_is_not_on_the_move_clock():
    players = (SlowToLoad(), SlowToLoad())
    out = play_game(make_raw_env("naval"), players, 3, game="naval", clock=Clock(move_seconds=0.2))
    assert out.forfeit is None and all(p.prepared == 1 for p in players)
    assert max(out.times) < 0.2


def test_the_shipped_ppo_prepares_without_using_its_randomness():
    """PPOAgent.prepare makes one greedy forward pass: a sampling agent's moves are the same with or without it."""
    from cardwar.agents.ppo_agent import PPOAgent

    env = make_raw_env("naval")
    env.reset(seed=4)
    obs, view = env.observe(env.agent_selection), env.view(env.agent_selection)
    a, b = PPOAgent("naval", deterministic=False, seed=9), PPOAgent("naval", deterministic=False, seed=9)
    a.prepare(obs, view)
    assert [a.act(obs, view) for _ in range(20)] == [b.act(obs, view) for _ in range(20)]
    assert a.deterministic is False
