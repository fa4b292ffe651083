"""The shipped bots: `ppo` alone loads agents/pretrained/<game>_ppo.zip and plays legal games."""

from __future__ import annotations

import pytest

from cardwar import agents
from cardwar.agents.ppo_agent import pretrained_path
from cardwar.envs import make_raw_env
from tests.agents.test_agents import _play


@pytest.mark.parametrize("game, scenario", [("naval", None), ("hexwar", "random:test"), ("hexwar", "river_crossing")])
def test_the_shipped_model_plays_whole_legal_games(game, scenario):
    path = pretrained_path(game)
    assert path.is_file() and path.stat().st_size < 8_000_000  # small enough to ship in the repository
    for seed in range(3):  # `_play` asserts every move is in the mask; the raw env raises on an illegal one
        specs = ("ppo", "random") if seed % 2 == 0 else ("random", "ppo")
        _, returns = _play(game, scenario, specs, seed)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_ppo_is_deterministic_by_default_and_seeded_when_sampling():
    env = make_raw_env("naval")
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    view = env.view(env.agent_selection)
    greedy = [agents.make("ppo", "naval", seed=s).act(obs, view) for s in range(3)]
    assert len(set(greedy)) == 1
    sampled = [agents.make("ppo:deterministic=false", "naval", seed=9).act(obs, view) for _ in range(2)]
    assert sampled[0] == sampled[1]
