"""The seed's rules and worked examples, position by position (boards drawn as text)."""

from __future__ import annotations

import pytest

from cardwar.envs.naval import (
    HandCategory, IllegalActionError, NavalConfig, NavalState, Phase, action_to_string, string_to_action,
)
from cardwar.envs.naval.cards import card_to_str, parse_card
from cardwar.envs.naval.diagram import state_from_diagram
from cardwar.envs.naval.seemap import parse_zone

A, B = 0, 1


def play(s: NavalState, *moves: str) -> NavalState:
    for m in moves:
        s.apply_action(string_to_action(m))
    return s


def legal(s: NavalState) -> set[str]:
    return {action_to_string(a) for a in s.legal_actions()}


def deploy_zones(s: NavalState, card: str) -> set[str]:
    return {m.split()[-1] for m in legal(s) if m.startswith(f"deploy {card} ")}


def board(s: NavalState) -> dict[str, str]:
    """The Seemap as {zone: "CAPTAIN:CARD"}."""
    return {"ABCDEFGHI"[z]: "AB"[s.owner[z]] + ":" + card_to_str(s.ship[z]) for z in range(9) if s.owner[z] >= 0}


# ------------------------------------------------------------------ Deploy
def test_figure_2_first_ship_of_a_sealane_goes_to_a_seaport():
    s = state_from_diagram(". . .\n. . .\n. . .", hands={"B": ["7H", "8C"]}, active="B")
    assert deploy_zones(s, "7H") == {"A", "B", "C"}


def test_figure_2_second_turn_b_may_deploy_in_b_c_or_d_but_not_e_or_f():
    # "On Captain B's second Turn, Captain B may place a Card in Seazone B or C
    # (Seaport Spaces) or in Seazone D, because there is already a Card in Seazone A."
    s = state_from_diagram(". . .\n. . .\nB:2H . .", hands={"B": ["7H", "8C"]}, active="B")
    assert deploy_zones(s, "7H") == {"B", "C", "D"}


def test_captain_a_deploys_from_the_top_row():
    s = state_from_diagram(". A:5C .\n. . .\n. . .", hands={"A": ["7H"]}, active="A")
    assert deploy_zones(s, "7H") == {"G", "E", "I"}


def test_supply_route_blocked_by_an_enemy_ship():
    # Lane A-D-G: B's ship at A, A's ship at D: B cannot go past D; A cannot go past D either.
    s = state_from_diagram("A:3C . .\nA:4C . .\nB:5C . .", hands={"B": ["7H"]}, active="B")
    assert deploy_zones(s, "7H") == {"B", "C"}


def test_at_most_one_deploy_and_one_attack_per_turn():
    s = state_from_diagram("A:3C . .\n. . .\nB:9C . .", hands={"B": ["7H", "8H", "2D"]}, active="B")
    play(s, "deploy 7H B")
    assert not any(m.startswith("deploy") for m in legal(s))
    s = state_from_diagram(". . .\nA:3C . .\nB:9C . .", hands={"B": ["7H", "8H", "2D"]}, active="B")
    play(s, "attack A>D normal 2D")
    play(s, "nodefend")
    assert not any(m.startswith("attack") for m in legal(s))
    assert any(m.startswith("deploy") for m in legal(s))


def test_turn_draws_one_card_at_the_end_and_one_at_the_start_of_the_next():
    s = state_from_diagram(". . .\n. . .\n. . .", hands={"A": ["2C"], "B": ["3C"]}, deck_top=["KS", "QS"],
                           active="B")
    play(s, "pass", "pass")
    assert parse_card("KS") in s.hands[B]  # B's end-of-turn draw
    assert parse_card("QS") in s.hands[A]  # A's start-of-turn draw
    assert s.active == A and s.turn == 3


def test_first_turn_of_the_game_skips_the_opening_draw():
    s = NavalState.new_game(NavalConfig(mulligan=False, first_player="A"), seed=3)
    assert len(s.hands[A]) == 7 and len(s.deck) == 38
    play(s, "pass", "pass")
    assert len(s.hands[A]) == 8  # only the end-of-turn draw
    assert len(s.hands[B]) == 8  # B's start-of-turn draw


# ------------------------------------------------------------------ Attacks
def test_attacks_only_orthogonally_adjacent_ships():
    s = state_from_diagram(". . A:3C\n. A:4C .\nB:5C . .", hands={"B": ["2D"]}, active="B")
    assert not any(m.startswith("attack") for m in legal(s))  # E and I are diagonal/far from A


def test_normal_attack_uses_ship_and_facedown_card_only():
    s = state_from_diagram(". . .\nA:9S A:2C .\nB:8D . .", hands={"B": ["8C"], "A": ["KD"]}, active="B")
    play(s, "attack A>D normal 8C", "nodefend")
    b = s.last_battle
    assert sorted(b.attack_hand) == sorted(map(parse_card, ["8D", "8C"]))
    assert b.defence_hand == (parse_card("9S"),)  # no support in a Normal Attack
    assert b.attacker_won and "D" not in board(s)


def test_defender_wins_nothing_happens():
    s = state_from_diagram(". . .\nA:9S . .\nB:3D . .", hands={"B": ["4C"], "A": ["9H"]}, active="B")
    play(s, "attack A>D normal 4C", "defend 9H")
    assert not s.last_battle.attacker_won
    assert board(s) == {"D": "A:9S", "A": "B:3D"}
    assert {parse_card("4C"), parse_card("9H")} <= set(s.discards)  # post-battle cleanup


def test_ramming_uses_both_ships_of_the_sealane():
    s = state_from_diagram("A:2C A:KH .\nB:5H . .\nB:6H . .", hands={"B": ["4H"]}, active="B")
    assert "attack D>G ram 4H" in legal(s)
    play(s, "attack D>G ram 4H", "nodefend")
    b = s.last_battle
    assert b.attack_category == HandCategory.STRAIGHT_FLUSH
    # Bastion Defence: the adjacent ship in the Seaport supports the rammed ship.
    assert sorted(b.defence_hand) == sorted(map(parse_card, ["2C", "KH"]))
    assert "G" not in board(s)


def test_ramming_needs_two_ships_in_the_sealane():
    s = state_from_diagram("A:2C . .\nB:5H . .\n. . .", hands={"B": ["4H"]}, active="B")
    assert not any(" ram " in m for m in legal(s))
    with pytest.raises(IllegalActionError):
        s.apply_action(string_to_action("attack D>G ram 4H"))


def test_bastion_defence_picks_the_better_neighbour():
    s = state_from_diagram("A:QC A:QD A:2S\n. B:3H .\n. B:4H .", hands={"B": ["5H"], "A": ["QS"]}, active="B")
    play(s, "attack E>H ram 5H", "defend QS")
    # Q-Q-Q with the Queen of clubs neighbour beats Q-Q-2: three of a kind vs a straight flush 5-4-3.
    assert s.last_battle.defence_category == HandCategory.THREE_OF_A_KIND
    assert s.last_battle.attack_category == HandCategory.STRAIGHT_FLUSH
    assert s.last_battle.attacker_won


def test_figure_3_broadside_with_supply_cut():
    # Captain A spans the right Sealane (6S at I, 3C at F, 7D at C); B has 5D at E, 5S at B.
    s = state_from_diagram(". . A:6S\n. B:5D A:3C\n. B:5S A:7D", hands={"B": ["4D", "KC"], "A": ["2H"]},
                           deck_top=["6D"], active="B")
    play(s, "attack E>F broadside 4D", "nodefend")
    b = s.last_battle
    assert sorted(b.attack_hand) == sorted(map(parse_card, ["6D", "5D", "4D"]))
    assert b.attack_category == HandCategory.STRAIGHT_FLUSH and b.defence_hand == (parse_card("3C"),)
    # "Captain A's 3 of Clubs is removed ... Captain A's 7 of Diamonds is also removed."
    assert board(s) == {"I": "A:6S", "E": "B:5D", "B": "B:5S"}
    assert set(map(parse_card, ["4D", "6D", "3C", "7D"])) <= set(s.discards)


def test_broadside_defence_uses_the_second_ship_of_the_row():
    s = state_from_diagram(". . .\nB:9D A:3C A:3H\nB:2S . .", hands={"B": ["KC"], "A": []}, deck_top=["4S"],
                           active="B")
    play(s, "attack D>E broadside KC", "nodefend")
    assert sorted(s.last_battle.defence_hand) == sorted(map(parse_card, ["3C", "3H"]))
    assert not s.last_battle.attacker_won  # pair of 3s beats K-9-4 high card


def test_normal_attack_does_not_cut_supply_by_default():
    # B sinks A's middle ship E with a Normal Attack: A's ship at B, further forward, stays.
    s2 = state_from_diagram(". A:6S .\n. A:3C B:QS\n. A:7D B:9D", hands={"B": ["QC"]}, active="B")
    play(s2, "attack F>E normal QC", "nodefend")
    assert board(s2) == {"H": "A:6S", "B": "A:7D", "F": "B:QS", "C": "B:9D"}


def test_supply_cut_always_option_cuts_after_any_destroyed_ship():
    cfg = NavalConfig(mulligan=False, supply_cut="always")
    s2 = state_from_diagram(". A:6S .\n. A:3C B:QS\n. A:7D B:9D", hands={"B": ["QC"]}, active="B", config=cfg)
    play(s2, "attack F>E normal QC", "nodefend")
    assert board(s2) == {"H": "A:6S", "F": "B:QS", "C": "B:9D"}


def test_broadside_needs_a_card_in_the_deck_by_default():
    s = state_from_diagram(". . .\nB:9D A:3C .\nB:2S . .", hands={"B": ["KC"]}, active="B")
    s.deck = []
    assert "attack D>E broadside KC" not in legal(s) and "attack D>E normal KC" in legal(s)
    cfg = NavalConfig(mulligan=False, broadside_empty_deck="two_cards")
    s = state_from_diagram(". . .\nB:9D A:3C .\nB:2S . .", hands={"B": ["KC"]}, active="B", config=cfg)
    s.deck = []
    play(s, "attack D>E broadside KC", "nodefend")
    assert len(s.last_battle.attack_hand) == 2


# ------------------------------------------------------------------ High Royal Flush
def test_high_royal_flush_sinks_the_loser_and_one_adjacent_ship():
    # B broadsides A's 5D at E from D: AS + KS + the deck's QS is a High Royal Flush.
    s = state_from_diagram("A:2C A:3C A:4D\nB:AS A:5D .\nB:9H . .", hands={"B": ["KS"], "A": []},
                           deck_top=["QS"], active="B")
    play(s, "attack D>E broadside KS", "nodefend")
    assert s.last_battle.royal_flush and s.phase == Phase.ROYAL_FLUSH and s.current == B
    # E is sunk; its only remaining enemy neighbour is H (A:3C).
    assert legal(s) == {"pass", "sink H"}
    play(s, "sink H")
    assert "H" not in board(s) and "E" not in board(s)
    assert s.phase == Phase.ACTION and s.current == B


def test_high_royal_flush_off_option_gives_no_double_kill():
    cfg = NavalConfig(mulligan=False, royal_flush="off")
    s = state_from_diagram("A:2C A:3C A:4D\nB:AS A:5D .\nB:9H . .", hands={"B": ["KS"]}, deck_top=["QS"],
                           active="B", config=cfg)
    play(s, "attack D>E broadside KS", "nodefend")
    assert s.phase == Phase.ACTION and board(s).get("H") == "A:3C"


def test_defender_with_high_royal_flush_sinks_the_attacker():
    s = state_from_diagram("A:AH A:KH .\nB:2C . .\nB:3D B:4D .", hands={"B": ["5C"], "A": ["QH"]}, active="B")
    play(s, "attack D>G ram 5C", "defend QH")
    b = s.last_battle
    assert not b.attacker_won and b.royal_flush and b.defence_category == HandCategory.HIGH_ROYAL_FLUSH
    assert "D" not in board(s)  # the attacking ship is destroyed
    assert s.phase == Phase.ROYAL_FLUSH and s.current == A and legal(s) == {"pass"} | {"sink A"}


def test_any_pair_option_sinks_two_adjacent_ships_anywhere():
    cfg = NavalConfig(mulligan=False, royal_flush="any_pair")
    s = state_from_diagram("A:2C A:3C A:4D\nB:AS A:5D .\nB:9H . .", hands={"B": ["KS"]}, deck_top=["QS"],
                           active="B", config=cfg)
    play(s, "attack D>E broadside KS", "nodefend")
    assert s.phase == Phase.ROYAL_FLUSH and board(s)["E"] == "A:5D"  # the picks replace the normal result
    assert legal(s) == {"pass", "sink G", "sink H", "sink I", "sink E"}
    play(s, "sink G")
    assert legal(s) == {"pass", "sink H"}  # the second ship must be next to the first
    play(s, "sink H")
    # H was A's Seaport ship behind E: a won Broadside cuts the supply of E as well.
    assert board(s) == {"I": "A:4D", "D": "B:AS", "A": "B:9H"}


def test_any_pair_declined_keeps_the_normal_result():
    cfg = NavalConfig(mulligan=False, royal_flush="any_pair")
    s = state_from_diagram("A:2C A:3C A:4D\nB:AS A:5D .\nB:9H . .", hands={"B": ["KS"]}, deck_top=["QS"],
                           active="B", config=cfg)
    play(s, "attack D>E broadside KS", "nodefend", "pass")
    assert "E" not in board(s) and s.phase == Phase.ACTION


def test_winner_adjacent_option_sinks_up_to_two_neighbours_of_the_winning_ship():
    cfg = NavalConfig(mulligan=False, royal_flush="winner_adjacent")
    s = state_from_diagram("A:2C A:3C .\nB:AS A:5D .\nB:9H . .", hands={"B": ["KS"]}, deck_top=["QS"],
                           active="B", config=cfg)
    play(s, "attack D>E broadside KS", "nodefend")
    assert legal(s) == {"pass", "sink G", "sink E"}  # enemy neighbours of the winning ship at D
    play(s, "sink G", "sink E")
    assert board(s) == {"H": "A:3C", "D": "B:AS", "A": "B:9H"}


def test_bastion_any_attack_option_supports_a_seaport_against_a_normal_attack():
    diagram = "A:9C A:9D .\nB:5S . .\nB:2H . ."
    s = state_from_diagram(diagram, hands={"B": ["KC"]}, active="B")
    play(s, "attack D>G normal KC", "nodefend")
    assert s.last_battle.attacker_won  # K-5 high card beats a lone 9
    cfg = NavalConfig(mulligan=False, bastion="any_attack")
    s = state_from_diagram(diagram, hands={"B": ["KC"]}, active="B", config=cfg)
    play(s, "attack D>G normal KC", "nodefend")
    assert not s.last_battle.attacker_won  # the Bastion makes a pair of nines
    assert sorted(s.last_battle.defence_hand) == sorted(map(parse_card, ["9C", "9D"]))


# ------------------------------------------------------------------ Victory
def test_blockade_of_all_three_enemy_seaports_wins_at_once():
    s = state_from_diagram("B:2C B:3C .\nB:4C B:5C B:6C\nB:7C B:8C B:9C", hands={"B": ["10C"]}, active="B")
    play(s, "deploy 10C I")
    assert s.is_terminal() and s.winner == B and s.result["reason"] == "blockade"
    assert s.returns() == [-1.0, 1.0]


def test_blockade_all_zones_option_needs_all_nine_seazones():
    cfg = NavalConfig(mulligan=False, blockade="all_zones")
    s = state_from_diagram("B:2C B:3C .\n. B:4C B:5C\nB:6C B:7C B:8C", hands={"B": ["9C", "10C"]}, active="B",
                           config=cfg)
    play(s, "deploy 9C I")
    assert not s.is_terminal()  # D is empty: only 8 Seazones held
    s = state_from_diagram("B:2C B:3C .\n. B:4C B:5C\nB:6C B:7C B:8C", hands={"B": ["9C"]}, active="B")
    play(s, "deploy 9C I")
    assert s.is_terminal() and s.winner == B  # default: the three enemy Seaports suffice


def _deck_out(diagram: str, hands: dict, config: NavalConfig | None = None) -> NavalState:
    s = state_from_diagram(diagram, hands=hands, active="B", config=config)
    s.deck = [parse_card("2H")]  # B's end-of-turn draw takes the last card
    play(s, "pass", "pass")
    assert s.is_terminal() and s.result["reason"] == "deck exhausted"
    return s


def test_deck_exhaustion_most_enemy_sealanes_wins():
    s = _deck_out(". . .\n. . .\nA:2C . .", hands={"A": ["3C"], "B": ["4C", "5C", "6C"]})
    assert s.winner == A and s.result["decided_by"] == "sealanes"


def test_deck_exhaustion_tie_on_sealanes_goes_to_most_cards_in_hand():
    # B's last draw (2H) makes it A 3 cards, B 2 cards.
    s = _deck_out(". . .\n. . .\n. . .", hands={"A": ["3C", "KS", "QD"], "B": ["4C"]})
    assert s.winner == A and s.result["decided_by"] == "cards in hand"


def test_deck_exhaustion_last_tie_breaker_is_the_best_poker_hand():
    s = _deck_out(". . .\n. . .\n. . .", hands={"A": ["3C", "KS"], "B": ["4C", "4D"]})
    # Hands after B's final draw: A {3C, KS} (2), B {4C, 4D, 2H} (3): B has more cards.
    assert s.winner == B and s.result["decided_by"] == "cards in hand"
    s = _deck_out(". . .\n. . .\n. . .", hands={"A": ["3C", "KS", "KD"], "B": ["4C", "4D"]})
    # 3 cards each; A's pair of kings beats B's pair of fours.
    assert s.winner == A and s.result["decided_by"] == "best poker hand"
    best_a, best_b = (set(h.split()) for h in s.result["best_hands"])  # revealed because they decided it
    assert {"KS", "KD"} <= best_a and {"4C", "4D"} <= best_b


def test_hands_stay_secret_when_cards_in_hand_decide():
    s = _deck_out(". . .\n. . .\n. . .", hands={"A": ["3C", "KS", "QD"], "B": ["4C"]})
    assert "best_hands" not in s.result


def test_alternate_win_condition_counts_seazones_before_cards():
    cfg = NavalConfig(mulligan=False, alternate_win=True)
    s = _deck_out(". . .\n. . .\nB:2C B:9D .", hands={"A": ["3C", "KS", "5S", "6S"], "B": []}, config=cfg)
    assert s.winner == B and s.result["decided_by"] == "seazones"
    s = _deck_out(". . .\n. . .\nB:2C B:9D .", hands={"A": ["3C", "KS", "5S", "6S"], "B": []})
    assert s.winner == A and s.result["decided_by"] == "cards in hand"


def test_majority_sealane_control_option():
    cfg = NavalConfig(mulligan=False, sealane_control="majority")
    s = _deck_out(". . .\n. . .\nB:2C B:9D .", hands={"A": ["3C", "KS", "5S", "6S"], "B": []}, config=cfg)
    assert s.winner == B and s.result["decided_by"] == "sealanes"


def test_game_ends_at_the_end_of_the_turn_that_empties_the_deck():
    s = state_from_diagram(". . .\n. . .\n. . .", hands={"A": ["3C"], "B": ["4C"]}, active="A")
    s.deck = [parse_card("2H")]
    play(s, "pass", "pass")  # A draws the last card at the end of the turn
    assert s.is_terminal()


def test_immediate_deck_out_option_ends_before_the_next_action():
    cfg = NavalConfig(mulligan=False, deck_out="immediate")
    s = state_from_diagram(". . .\n. . .\n. . .", hands={"A": ["3C"], "B": ["4C"]}, active="A", config=cfg)
    s.deck = [parse_card("2H"), parse_card("5H")]
    play(s, "pass", "pass")  # A draws one at the end, B draws the last at the start of its turn
    assert s.is_terminal()


# ------------------------------------------------------------------ Setup
def test_mulligan_redraws_and_reshuffles_the_shown_cards():
    s = NavalState.new_game(NavalConfig(first_player="A"), seed=11)
    old_a = list(s.hands[A])
    assert s.current == A and s.information_view(B).first_player == -1  # Setup 4 comes after Setup 3
    play(s, "mulligan")
    assert s.hands[A] == old_a  # the redraw waits for both decisions
    assert s.information_view(B).mulligan_choices == (None, None)  # A's choice is not shown to B yet
    play(s, "keep")
    assert s.phase == Phase.ACTION and s.current == A
    assert len(s.hands[A]) == 7 and not set(s.hands[A]) & set(old_a)
    assert sorted(s.mulligan_shown) == sorted(old_a)
    assert set(old_a) <= set(s.deck) and len(s.deck) == 38
    assert s.information_view(B).mulligan_choices == (True, False)


def test_illegal_moves_are_refused_with_a_reason():
    s = state_from_diagram(". . .\n. . .\n. . .", hands={"B": ["7H"]}, active="B")
    with pytest.raises(IllegalActionError, match="deploy 7H E"):
        s.apply_action(string_to_action("deploy 7H E"))
    with pytest.raises(IllegalActionError):
        s.apply_action(string_to_action("deploy 8H A"))  # not in hand
    assert s.hands[B] == [parse_card("7H")]  # nothing changed


def test_zone_letters_follow_figure_2():
    assert [parse_zone(x) for x in "GHI"] == [6, 7, 8]
