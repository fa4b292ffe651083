"""Explicit chance nodes through the OpenSpiel bridge (Tank Attack's dice): OpenSpiel's own MCTS searches them."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from open_spiel.python.algorithms import mcts  # noqa: E402

from cardwar import games as registry  # noqa: E402
from cardwar.envs.tankattack import END  # noqa: E402
from cardwar.openspiel import games  # noqa: E402


class EvaluateHook(mcts.Evaluator):
    """OpenSpiel's evaluator from the registry's ``evaluate`` search hook (uniform priors)."""

    def __init__(self) -> None:
        self.value = registry.resolve(registry.get("tankattack").extra["evaluate"])

    def evaluate(self, state):
        v = self.value(state.engine, 0)
        return np.array([v, -v])

    def prior(self, state):
        if state.is_chance_node():
            return state.chance_outcomes()
        legal = state.legal_actions()
        return [(a, 1.0 / len(legal)) for a in legal]


def _game():
    return games.load("tankattack", seed=4, scenario="trench_raid")


def test_a_decision_that_rolls_becomes_chance_nodes_of_six_faces():
    state = _game().new_initial_state()
    rng = np.random.default_rng(0)
    chance_nodes = 0
    while not state.is_terminal() and chance_nodes < 30:
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert [a for a, _ in outcomes] == list(range(6)) and all(p == pytest.approx(1 / 6) for _, p in outcomes)
            assert state.legal_actions() == list(range(6))
            assert state.action_to_string(pyspiel.PlayerId.CHANCE, 2) == "die 3"
            chance_nodes += 1
            state.apply_action(int(rng.integers(6)))
        else:
            legal = state.legal_actions()
            state.apply_action(END if END in legal else int(rng.choice(legal)))
    assert chance_nodes == 30


def test_the_pip_die_chosen_by_the_chance_player_is_the_pips_of_the_bound():
    """End every bound at once: the die that starts the next bound (shooting dice of the bound's end, given 1s,
    come before it) is a chance node whose face becomes the new bound's PIPs."""
    state = _game().new_initial_state()
    for face in (1, 6, 3, 5):
        bound = state.engine.bound
        while state.engine.bound == bound or state.is_chance_node():
            if state.is_chance_node():
                before = state.clone()
                before.apply_action(face - 1)
                if not before.is_chance_node() and before.engine.bound != bound:
                    state = before  # this die was the PIP roll: the next bound has begun
                    break
                state.apply_action(0)  # a shooting die
            else:
                legal = state.legal_actions()
                state.apply_action(END if END in legal else legal[0])
        assert state.engine.bound == bound + 1 and state.engine.pip_roll == face


def test_openspiels_mcts_bot_searches_the_dice_as_chance_and_plays_legal_moves():
    game = _game()
    bot = mcts.MCTSBot(game, uct_c=1.0, max_simulations=24, evaluator=EvaluateHook(),
                       random_state=np.random.RandomState(1), solve=False)
    state = game.new_initial_state()
    rng = np.random.default_rng(1)
    decisions = 0
    while not state.is_terminal() and decisions < 25:
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        decisions += 1
    assert decisions == 25
