"""naval-v1: the same game in small decisions (a card, then a zone; an attack's line, then its card)."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from cardwar.envs import naval_v1
from cardwar.envs.naval.observation import encode_observation
from cardwar.envs.naval import NUM_ACTIONS, IllegalActionError, NavalState, action_to_string, string_to_action
from cardwar.envs.naval.steps import (
    NUM_STEPS, STEPS_OF, StepState, move_to_steps, step_to_string, steps_to_action, string_to_step,
)


def test_every_move_has_its_own_steps_and_the_space_is_small():
    assert NUM_STEPS == 113  # instead of 3029
    assert len(set(STEPS_OF)) == NUM_ACTIONS  # no two moves share their steps
    assert all(1 <= len(s) <= 2 and all(0 <= x < NUM_STEPS for x in s) for s in STEPS_OF)
    assert {x for s in STEPS_OF for x in s} == set(range(NUM_STEPS))  # every step is used


def test_a_whole_move_keeps_its_one_string_notation_and_maps_to_its_steps():
    assert [step_to_string(s) for s in move_to_steps("attack E>F broadside 4D")] == ["attack E>F broadside", "card 4D"]
    assert [step_to_string(s) for s in move_to_steps("deploy 7H D")] == ["card 7H", "zone D"]
    assert [step_to_string(s) for s in move_to_steps("defend 9S")] == ["card 9S"]
    assert [step_to_string(s) for s in move_to_steps("sink E")] == ["zone E"]
    assert [step_to_string(s) for s in move_to_steps("pass")] == ["pass"]
    for s in range(NUM_STEPS):
        assert string_to_step(step_to_string(s)) == s
    for a in range(NUM_ACTIONS):
        assert steps_to_action(move_to_steps(action_to_string(a))) == a
    with pytest.raises(ValueError, match="steps look like"):
        string_to_step("fire E")


def test_legal_steps_are_exactly_the_first_steps_of_legal_moves_and_a_move_is_the_flat_move():
    """Random games step by step: the mask against the flat legal moves; the moves made equal naval-v0's."""
    rng = np.random.default_rng(0)
    for seed in range(40):
        s = StepState(NavalState.new_game(seed=seed))
        flat = NavalState.new_game(seed=seed)
        while not s.is_terminal():
            legal_moves = flat.legal_actions()
            firsts = {STEPS_OF[a][0] for a in legal_moves}
            assert s.legal_actions() == sorted(firsts)
            first = int(rng.choice(s.legal_actions()))
            player = s.current_player
            made = s.apply_action(first)
            if made is None:  # a second step: it must finish one of the moves that began so
                seconds = {STEPS_OF[a][1] for a in legal_moves if STEPS_OF[a][0] == first and len(STEPS_OF[a]) == 2}
                assert s.legal_actions() == sorted(seconds) and s.current_player == player
                made = s.apply_action(int(rng.choice(s.legal_actions())))
            assert made in legal_moves
            flat.apply_action(made)
            assert s.engine.information_view(0) == flat.information_view(0)
        assert s.returns() == flat.returns() and s.result == flat.result


def test_a_card_begins_a_deploy_in_the_action_phase_and_is_a_defence_when_defending():
    s = StepState(NavalState.new_game(seed=3))
    while s.engine.phase.name != "ACTION":
        s.apply_action(s.legal_actions()[0])
    card = next(x for x in s.legal_actions() if step_to_string(x).startswith("card"))
    assert s.apply_action(card) is None and s.pending == (card,)  # a deploy waits for its zone
    assert all(step_to_string(x).startswith("zone") for x in s.legal_actions())
    with pytest.raises(IllegalActionError, match="not a legal step now after card"):
        s.apply_action(string_to_step("pass"))


def test_pettingzoo_api_and_seed_tests():
    api_test(naval_v1.env(), num_cycles=500)
    seed_test(naval_v1.env, num_cycles=200)


def test_the_observation_says_which_step_is_pending_to_the_mover_only():
    env = naval_v1.raw_env()
    env.reset(seed=5)
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if env.game.engine.phase.name == "ACTION" and not env.game.pending:
            break
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    mover = env.agent_selection
    other = next(a for a in env.agents if a != mover)
    p = naval_v1.PENDING_OFFSET
    assert env.observe(mover)["observation"][p] == 1.0  # a move's first step
    card = next(x for x in env.game.legal_actions() if step_to_string(x).startswith("card"))
    env.step(card)
    assert env.agent_selection == mover  # the same captain takes the zone step
    obs = env.observe(mover)["observation"]
    assert obs[p + 1] == 1.0 and obs[p + 3 + card] == 1.0 and obs[p:].sum() == 2.0
    assert not env.observe(other)["observation"][p:].any()  # the other captain never sees the choice
    assert np.array_equal(obs[:p], encode_observation(env.view(mover)))  # naval-v0's features come first


def test_naval_v0_and_v1_are_both_registered():
    from pettingzoo import aec_registry

    import cardwar.envs  # noqa: F401 - registers

    assert {"cardwar/naval-v0", "cardwar/naval-v1"} <= set(aec_registry)
    assert string_to_action("attack E>F broadside 4D") < NUM_ACTIONS  # v0's notation unchanged
