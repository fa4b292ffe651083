"""A view taken of a state keeps a copy of it and builds its JSON-ready ``data`` only when read; the
observation read from the copy, and the env's read straight from the state, are the one read from ``data``
(RULES.md 18: all are the state less the dice)."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.tankattack import TankAttackRules, TankState, TankView, load_scenario
from cardwar.envs.tankattack.generator import generate_scenario
from cardwar.envs.tankattack.observation import encode_observation, encode_state


def _games():
    yield TankState.new_game(load_scenario("trench_raid"), seed=4)
    yield TankState.new_game(load_scenario("cambrai"), seed=5)
    yield TankState.new_game(generate_scenario(8), TankAttackRules(deployment="players"), seed=6)


@pytest.mark.parametrize("k", range(3))
def test_copy_and_data_give_the_same_observation(k):
    s = list(_games())[k]
    rng = np.random.default_rng(k)
    n = 0
    while not s.is_terminal() and n < 300:
        for seat in (0, 1, None):
            v = s.information_view(seat)
            from_data = TankView(seat, v.data)
            assert from_data.public is None and from_data == v
            assert np.array_equal(encode_observation(v), encode_observation(from_data))
            assert np.array_equal(encode_state(s, seat), encode_observation(from_data))  # the env's read
        d = s.to_dict()
        del d["rng"]
        assert s.information_view(0).data == d
        legal = s.legal_actions()
        s.apply_action(int(rng.choice(legal)))
        n += 1


def test_a_view_does_not_change_with_the_state():
    s = TankState.new_game(load_scenario("trench_raid"), seed=1)
    v = s.information_view(0)
    obs = encode_observation(v)
    for _ in range(30):
        s.apply_action(s.legal_actions()[0])
    assert np.array_equal(encode_observation(v), obs)
    assert v.data["move_number"] == 0 and v.turn == 1
