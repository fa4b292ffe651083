"""The pieces of cardwar.envs.turn_based_env the games share: random-scenario splits and the render protocol."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.turn_based_env import GENERATOR_SEED_BITS, RANDOM_SPLITS, ScenarioEnv, render_frame, split_seed


def test_split_seeds_are_disjoint_halves():
    assert [split_seed(s, None) for s in range(4)] == [0, 1, 2, 3]
    assert {split_seed(s, 0) for s in range(10)} == {0, 2, 4, 6, 8}
    assert {split_seed(s, 1) for s in range(10)} == {1, 3, 5, 7, 9}


class _Env(ScenarioEnv):
    def _generate(self, seed: int, deal: int) -> tuple:
        return ("generated", seed, deal)


@pytest.mark.parametrize("name", list(RANDOM_SPLITS))
def test_random_scenarios_draw_game_seed_then_generator_seed_then_deal(name):
    """The game's seed, then a 63-bit generator seed in the split (the public map), then the deal of what is
    hidden on it: three draws, so the generator seed does not give the deal."""
    e = _Env()
    e._choose_scenario(name, tuple, lambda s: pytest.fail("a random scenario is not loaded"))
    assert e.random_scenarios and e.fixed_scenario is None and e.split == RANDOM_SPLITS[name]
    seed, scenario = e._draw_game(np.random.default_rng(7))
    rng = np.random.default_rng(7)
    assert seed == int(rng.integers(2**63))
    assert scenario == ("generated", split_seed(int(rng.integers(2**63)), RANDOM_SPLITS[name]),
                        int(rng.integers(2**63)))
    assert GENERATOR_SEED_BITS == 63
    seeds = {e._draw_game(np.random.default_rng(k))[1][1] for k in range(200)}
    assert len(seeds) == 200 and max(seeds) >= 2**40  # wide seeds: no table from maps to seeds


def test_fixed_scenarios_are_loaded_or_taken_as_they_are():
    e = _Env()
    e._choose_scenario("duel", tuple, lambda s: ("loaded", s))
    assert not e.random_scenarios and e.split is None and e.fixed_scenario == ("loaded", "duel")
    e._choose_scenario(("mine",), tuple, lambda s: pytest.fail("a scenario object is not loaded"))
    assert e.fixed_scenario == ("mine",)
    assert e._draw_game(np.random.default_rng(1))[1] == ("mine",)


def test_render_frame(capsys):
    assert render_frame("ansi", lambda: "board") == "board"
    assert render_frame("human", lambda: "board") is None
    assert capsys.readouterr().out == "board\n\n"
    assert render_frame("rgb_array", lambda: "board", lambda: np.zeros(1)).shape == (1,)
    assert render_frame(None, lambda: pytest.fail("no text without a render mode")) is None
