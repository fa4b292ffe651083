"""Rule options."""

from __future__ import annotations

import pytest

from cardwar.envs.naval import ConfigError, NavalConfig, NavalState, max_game_steps


def test_defaults_are_the_readings_in_rules_md():
    c = NavalConfig()
    assert (c.supply_cut, c.sealane_control, c.deck_out, c.broadside_empty_deck, c.royal_flush) == (
        "broadside", "enemy_seaport", "end_of_turn", "forbidden", "loser_and_adjacent")
    assert c.mulligan and c.royal_flush_defender and not c.alternate_win


def test_from_dict_round_trips_and_rejects_unknown_keys():
    c = NavalConfig(supply_cut="always", alternate_win=True)
    assert NavalConfig.from_dict(c.to_dict()) == c
    with pytest.raises(ConfigError, match="unknown naval rule option.*supply_cut"):
        NavalConfig.from_dict({"suply_cut": "always"})


@pytest.mark.parametrize("bad", [{"deck_out": "never"}, {"mulligan": "yes"}, {"hand_size": 0}, {"bastion": "x"},
                                 {"first_player": "C"}])
def test_bad_values_are_rejected(bad):
    with pytest.raises(ConfigError):
        NavalConfig.from_dict(bad)


def test_first_player_option_and_step_bound():
    assert NavalState.new_game(NavalConfig(first_player="B", mulligan=False), seed=0).current_player == 1
    assert max_game_steps(NavalConfig()) == 2 + 20 * 5


def test_hand_size_leaves_room_for_two_mulligans():
    with pytest.raises(ConfigError, match="1..13"):
        NavalConfig(hand_size=14)
