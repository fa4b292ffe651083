"""hexwar-v1: the channels-last observation is v0's, transposed, for the same play."""

from __future__ import annotations

import warnings

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test

import cardwar.envs  # noqa: F401  (registers cardwar/hexwar-v1)
from cardwar.envs import hexwar_v0, hexwar_v1


@pytest.mark.parametrize("scenario", ["river_crossing", "random"])
def test_v1_observation_is_v0_channels_last_for_the_same_play(scenario):
    v0, v1 = hexwar_v0.env(scenario=scenario), hexwar_v1.env(scenario=scenario)
    v0.reset(seed=5)
    v1.reset(seed=5)
    rng, steps = np.random.default_rng(5), 0
    for agent in v0.agent_iter():
        assert agent == v1.agent_selection
        for other in v0.possible_agents:  # both seats' observations, not only the mover's
            o0, o1 = v0.observe(other), v1.observe(other)
            assert o1["observation"].shape == (10, 12, 59)
            for p in range(59):  # element by element: plane p of v0 is channel p of v1
                np.testing.assert_array_equal(o1["observation"][:, :, p], o0["observation"][p])
            np.testing.assert_array_equal(o1["action_mask"], o0["action_mask"])
        obs, reward, term, trunc, _ = v0.last()
        assert (reward, term, trunc) == v1.last()[1:4]
        action = None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"])))
        v0.step(action)
        v1.step(action)
        steps += 1
    assert steps > 20 and not v1.agents


def test_v1_passes_pettingzoo_api_test_and_its_space_is_channels_last():
    e = hexwar_v1.env(scenario="random")
    api_test(e, num_cycles=200)
    space = e.observation_space("blue")["observation"]
    assert space.shape == (10, 12, 59) and space.dtype == np.float32
    assert e.unwrapped.metadata["name"] == "hexwar_v1"


def test_v0_and_v1_are_both_registered_and_make_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for version in ("v0", "v1"):
            e = pettingzoo.make("aec", f"cardwar/hexwar-{version}")
            e.reset(seed=0)
            assert e.unwrapped.metadata["name"] == f"hexwar_{version}"
