"""The PettingZoo AEC environment naval_v0."""

from __future__ import annotations

import pathlib

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import cardwar.envs  # noqa: F401  (registers cardwar/naval-v0)
from cardwar.envs import naval_v0
from tests.engine_purity import rl_imports
from cardwar.envs.naval import IllegalActionError, NavalState, string_to_action
from cardwar.envs.naval.cards import card_to_str
from cardwar.envs.naval.observation import encode_observation


def test_pettingzoo_api_test():
    api_test(naval_v0.env(), num_cycles=500)


def test_pettingzoo_api_test_with_other_rules():
    api_test(naval_v0.env(rules={"supply_cut": "always", "royal_flush": "any_pair"}), num_cycles=300)


def test_pettingzoo_seed_test():
    seed_test(naval_v0.env, num_cycles=500)


def test_pettingzoo_render_test():
    render_test(naval_v0.env)


def test_registered_with_pettingzoo_make():
    e = pettingzoo.make("aec", "cardwar/naval-v0")
    e.reset(seed=1)
    assert e.unwrapped.metadata["name"] == "naval_v0"
    assert e.possible_agents == ["captain_a", "captain_b"]


def _play_to_end(e, seed: int):
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in e.possible_agents}
    for agent in e.agent_iter():
        obs, rew, term, trunc, _ = e.last()
        totals[agent] += rew
        if term or trunc:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return totals


def test_rewards_are_plus_minus_one_at_the_end():
    for seed in range(30):
        e = naval_v0.env()
        totals = _play_to_end(e, seed)
        s = e.unwrapped.game
        assert [totals["captain_a"], totals["captain_b"]] == s.returns()
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_mask_matches_the_engine_and_only_the_current_agent_has_moves():
    e = naval_v0.raw_env()
    e.reset(seed=3)
    rng = np.random.default_rng(3)
    while not e.game.is_terminal():
        cur = e.agent_selection
        other = [a for a in e.agents if a != cur][0]
        m = e.observe(cur)["action_mask"]
        assert np.flatnonzero(m).tolist() == e.game.legal_actions()
        assert e.observe(other)["action_mask"].sum() == 0
        e.step(int(rng.choice(np.flatnonzero(m))))


def test_raw_env_refuses_an_illegal_action_with_a_clear_error():
    e = naval_v0.raw_env()
    e.reset(seed=0)
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(IllegalActionError, match="not legal"):
        e.step(illegal)


def test_wrapped_env_ends_the_game_on_an_illegal_action_like_classic_envs():
    e = naval_v0.env()
    e.reset(seed=0)
    agent = e.agent_selection
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)  # PettingZoo logs "Illegal move made" and ends the game
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1


def test_observation_reveals_nothing_hidden():
    """Two states that differ only in what captain A cannot see give A the same observation."""
    rng = np.random.default_rng(0)
    for g in range(40):
        s = NavalState.new_game(seed=g)
        for _ in range(int(rng.integers(0, 50))):
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
        for seat in (0, 1):
            t = s.clone()
            t.rng = np.random.default_rng(99)
            # Shuffle the other hand and the deck together, keeping their sizes.
            pool = t.hands[1 - seat] + t.deck
            rng.shuffle(pool)
            n = len(t.hands[1 - seat])
            t.hands[1 - seat], t.deck = pool[:n], pool[n:]
            assert np.array_equal(encode_observation(s.information_view(seat)),
                                  encode_observation(t.information_view(seat)))
            assert s.information_view(seat).to_dict() == t.information_view(seat).to_dict()


def test_observation_shows_own_hand_and_the_unseen_cards():
    from cardwar.envs.naval.observation import UNSEEN_OFFSET

    e = naval_v0.raw_env()
    e.reset(seed=4)
    obs = e.observe("captain_a")["observation"]
    assert sorted(np.flatnonzero(obs[:52]).tolist()) == sorted(e.game.hands[0])
    unseen = np.flatnonzero(obs[UNSEEN_OFFSET:UNSEEN_OFFSET + 52]).tolist()
    assert unseen == sorted(e.view("captain_a").unseen_cards())
    assert set(unseen) == set(e.game.deck) | set(e.game.hands[1])


def test_ansi_render_shows_only_the_viewers_hand():
    e = naval_v0.raw_env(render_mode="ansi", render_viewer="captain_a")
    e.reset(seed=2)
    text = e.render()
    a_hand = {card_to_str(c) for c in e.game.hands[0]}
    b_hand = {card_to_str(c) for c in e.game.hands[1]}
    words = set(text.replace(":", " ").split())
    assert a_hand <= words and not (b_hand & words)
    spectator = naval_v0.raw_env(render_mode="ansi")
    spectator.reset(seed=2)
    words = set(spectator.render().replace(":", " ").split())
    assert not (a_hand | b_hand) & words and "(hidden)" in words


def test_unknown_rule_option_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown naval rule option.*known options"):
        naval_v0.env(rules={"supply_cutt": "always"})
    with pytest.raises(ValueError, match="supply_cut='sometimes' is not one of"):
        naval_v0.env(rules={"supply_cut": "sometimes"})


def test_notation_moves_through_the_env():
    e = naval_v0.raw_env(rules={"mulligan": False, "first_player": "B"})
    e.reset(seed=9)
    hand = sorted(e.game.hands[1])
    e.step(string_to_action(f"deploy {card_to_str(hand[0])} B"))
    assert e.game.ship[1] == hand[0]


def test_rules_engine_imports_no_rl_library():
    """envs/naval/ is pure: no gymnasium, pettingzoo or torch imports."""
    package = pathlib.Path(naval_v0.__file__).parent.joinpath("naval")
    assert rl_imports(package) == []
