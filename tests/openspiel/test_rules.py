"""The bridge's games take the rule options as OpenSpiel parameters, so optional rules (hidden units) occur."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from cardwar import games as registry  # noqa: E402
from cardwar.envs.hexwar.scenario import load_scenario  # noqa: E402
from cardwar.envs.naval.state import Phase  # noqa: E402
from cardwar.openspiel import games  # noqa: E402


class Sampler:
    """A seeded stand-in for OpenSpiel's UniformProbabilitySampler."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self) -> float:
        return float(self.rng.random())


@pytest.mark.parametrize("game", list(games.GAME_NAMES))
def test_every_rule_option_is_a_parameter_with_the_rules_default(game: str) -> None:
    spec = pyspiel.load_game(games.GAME_NAMES[game]).get_type().parameter_specification
    rules = registry.get(game).default_rules()
    assert {k: spec[k] for k in rules} == rules
    assert spec["seed"] == -1
    assert ("scenario" in spec) == registry.get(game).has_scenarios


def _hidden_game(**rules: bool) -> games.CardwarGame:
    return games.load("hexwar", seed=3, scenario="hill_and_hedgerows", **rules)


def test_hidden_units_occur_with_the_hidden_units_rule() -> None:
    """RULES.md 10 (optional rule 'Hidden Units'): the scenario's hidden units start hidden only with the rule."""
    marked = [i for i, u in enumerate(load_scenario("hill_and_hedgerows").units) if u.hidden]
    assert marked  # the scenario marks some of red's units hidden
    with_rule = _hidden_game(hidden_units=True).new_initial_state().engine
    assert with_rule.config.hidden_units is True
    assert sorted(u for u, h in enumerate(with_rule.hidden) if h) == marked
    without = _hidden_game().new_initial_state().engine
    assert not any(without.hidden)


def test_a_hidden_unit_is_not_in_the_other_sides_information_state_and_samples_move_it() -> None:
    state = _hidden_game(hidden_units=True).new_initial_state()
    hidden = [u for u, h in enumerate(state.engine.hidden) if h]
    blue = 1 - state.engine.side[hidden[0]]
    samples = [state.resample_from_infostate(blue, Sampler(k)) for k in range(8)]
    for s in samples:
        assert s.information_state_string(blue) == state.information_state_string(blue)
        assert s.observation_tensor(blue) == state.observation_tensor(blue)
    true_cells = sorted(state.engine.cell[u] for u in hidden)
    sampled = {tuple(sorted(c for c, h in zip(s.engine.cell, s.engine.hidden) if h)) for s in samples}
    assert any(cells != tuple(true_cells) for cells in sampled)  # the hidden hexes are redrawn
    assert all(len(cells) == len(hidden) for cells in sampled)  # but never lost: the seat knows how many


def test_openspiels_ismcts_as_shipped_searches_a_game_with_hidden_units() -> None:
    """The bot's own resampling (no resampler set) checks each sample's information state against the root's:
    with hidden units in play it must still hold (the samples keep them, redrawn)."""
    g = _hidden_game(hidden_units=True)
    rs = np.random.RandomState(0)
    bots = [ismcts.ISMCTSBot(g, mcts.RandomRolloutEvaluator(1, rs), 2.0, 2, random_state=rs,
                             allow_inconsistent_action_sets=True) for _ in range(2)]
    state = g.new_initial_state()
    for _ in range(30):
        if state.is_terminal():
            break
        assert any(state.engine.hidden) or state.move_number() > 0
        action = bots[state.current_player()].step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
    assert state.move_number() > 0


def test_naval_rule_options_reach_the_engine() -> None:
    """hand_size and mulligan (RULES.md's optional rules): a hand of 5, and no mulligan decision first."""
    state = pyspiel.load_game("python_cardwar_naval(hand_size=5,mulligan=False,seed=4)").new_initial_state()
    assert [len(h) for h in state.engine.hands] == [5, 5]
    assert state.engine.phase != Phase.MULLIGAN
    assert pyspiel.load_game(games.GAME_NAMES["naval"], {"seed": 4}).new_initial_state().engine.phase == Phase.MULLIGAN


def test_a_bad_rule_value_names_the_option() -> None:
    with pytest.raises(Exception, match="hand_size"):
        games.load("naval", hand_size=40)
