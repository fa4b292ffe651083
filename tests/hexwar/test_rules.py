"""The seed's rules, one test each, on small maps drawn as text (RULES.md sections)."""

from __future__ import annotations

import pytest

from cardwar.envs.hexwar.actions import EVADE, NO_EVADE, PASS, action_to_string, string_to_action
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.diagram import position, scenario_from_text
from cardwar.envs.hexwar.hexgrid import label, parse_label
from cardwar.envs.hexwar.scenario import cell_of, hex_of
from cardwar.envs.hexwar.shooting import shot_modifier, type_modifier
from cardwar.envs.hexwar.state import ELIMINATED, HexIllegalActionError, HexPhase, HexState, card_order_key
from cardwar.envs.hexwar.units import UnitType as U

OPEN5 = """
. . . . . .
. . . . . .
. . . . . .
. . . . . .
. . . . . .
"""


def moves(s: HexState) -> set[str]:
    return {action_to_string(a)[5:] for a in s.legal_actions() if action_to_string(a).startswith("move ")}


def shots(s: HexState) -> set[str]:
    return {action_to_string(a)[6:] for a in s.legal_actions() if action_to_string(a).startswith("shoot ")}


def at(s: HexState, u: int) -> str:
    return label(hex_of(s.cell[u]))


def play(s: HexState, *ms: str) -> HexState:
    for m in ms:
        s.apply_action(string_to_action(m))
    return s


def within(hexname: str, n: int, width: int = 6, height: int = 5) -> set[str]:
    from cardwar.envs.hexwar.hexgrid import distance, rectangle

    h = parse_label(hexname)
    return {label(x) for x in rectangle(width, height) if 0 < distance(h, x) <= n}


# ------------------------------------------------------------------ movement (RULES 4)
@pytest.mark.parametrize("utype, allowance", [("foot", 1), ("at_gun", 1), ("mortar", 1), ("tank", 2),
                                               ("mechanised", 2), ("motorised", 2), ("armoured_car", 3)])
def test_movement_allowance(utype, allowance):
    sc = scenario_from_text(OPEN5, blue=[(utype, "C3")], red=[("foot", "F5")])
    s = position(sc, order=[0])
    assert moves(s) == within("C3", allowance) - {"F5"} - within("F5", 0)


def test_motorised_infantry_becomes_foot_after_a_hit():
    sc = scenario_from_text(OPEN5, blue=[("tank", "B2")], red=[("motorised", "C2")])
    s = position(sc, order=[0], seed=1)
    for seed in range(20):
        t = position(sc, order=[0], seed=seed)
        play(t, "shoot C2")
        if t.phase == HexPhase.EVADE:
            play(t, "no evade")
        if t.hits[1] > 0:
            assert t.utype[1] == U.FOOT
            break
    else:
        pytest.fail("no hit in 20 seeds")
    assert s.utype[1] == U.MOTORISED


def test_woods_limit_a_move_to_one_hex():
    sc = scenario_from_text("""
        . . . . . .
        . . W . . .
        . . . . . .
    """, blue=[("tank", "A1")], red=[("foot", "F3")])
    s = position(sc, order=[0])
    # Into woods (C2 from A1 is 2 away) is not possible in one move; B2 is adjacent to C2 only via a step.
    assert "C2" not in moves(s)
    sc = scenario_from_text("""
        . . . . . .
        . W . . . .
        . . . . . .
    """, blue=[("tank", "B2")], red=[("foot", "F3")])
    s = position(sc, order=[0])
    assert moves(s) == within("B2", 1)  # out of woods: one hex


def test_rivers_are_crossed_only_at_bridges_and_fords():
    sc = scenario_from_text("""
        . . . . .
        ~ = ~ F ~
        . . . . .
    """, blue=[("armoured_car", "A1")], red=[("foot", "E3")])
    s = position(sc, order=[0])
    m = moves(s)
    assert "B2" in m and not {"A2", "C2", "E2"} & m
    assert "B3" in m or "A3" in m  # across the bridge


def test_marsh_and_lakes_are_impassable():
    sc = scenario_from_text("""
        . M L
        . . .
    """, blue=[("armoured_car", "A1")], red=[("foot", "C2")])
    s = position(sc, order=[0])
    assert not {"B1", "C1"} & moves(s)


def test_stacking_two_in_clear_one_in_terrain():
    sc = scenario_from_text("""
        . . . . . .
        . . . . . .
    """, blue=[("foot", "A1"), ("foot", "B1"), ("foot", "B1")], red=[("foot", "F2")])
    s = position(sc, order=[0])
    assert "B1" not in moves(s)  # full with two
    sc = scenario_from_text("""
        . W . . . .
        . . . . . .
    """, blue=[("foot", "A1"), ("foot", "B1")], red=[("foot", "F2")])
    s = position(sc, order=[0])
    assert "B1" not in moves(s)  # woods hold one


def test_stop_on_entering_a_hex_next_to_the_enemy():
    sc = scenario_from_text(OPEN5, blue=[("armoured_car", "A3")], red=[("foot", "D3")])
    s = position(sc, order=[0])
    m = moves(s)
    assert "C3" in m  # may enter enemy adjacency ...
    assert "E3" not in m and "E2" not in m  # ... but not go on past it


def test_leave_an_enemy_adjacent_hex_only_to_a_hex_not_adjacent_to_an_enemy():
    sc = scenario_from_text(OPEN5, blue=[("foot", "C3")], red=[("foot", "D3")])
    s = position(sc, order=[0])
    m = moves(s)
    assert m and not (m & within("D3", 1))  # only away from the enemy
    assert m == within("C3", 1) - within("D3", 1) - {"D3"}


def test_friendly_units_pass_through_each_other():
    sc = scenario_from_text("""
        . . . . . .
        . W . . . .
        . . . . . .
    """, blue=[("tank", "A1"), ("foot", "B1"), ("foot", "B1")], red=[("foot", "F3")])
    s = position(sc, order=[0])
    assert "C1" in moves(s)  # through the full hex B1


# ------------------------------------------------------------------ sighting and shooting (RULES 5, 6)
def test_direct_fire_range_is_two_hexes():
    sc = scenario_from_text(OPEN5, blue=[("tank", "A3")], red=[("foot", "C3"), ("foot", "D3")])
    s = position(sc, order=[0])
    assert shots(s) == {"C3"}


def test_woods_between_block_the_line_of_sight():
    sc = scenario_from_text("""
        . W . . . .
        . . . . . .
    """, blue=[("tank", "A1")], red=[("foot", "C1")])
    assert shots(position(sc, order=[0])) == set()


def test_units_between_block_sight_unless_only_enemy_units_block():
    sc = scenario_from_text(OPEN5, blue=[("tank", "A3"), ("foot", "B3")], red=[("foot", "C3")])
    assert "C3" not in shots(position(sc, order=[0]))
    cfg = HexConfig(los_blocked_by="enemy_units")
    assert "C3" in shots(position(sc, order=[0], config=cfg))


def test_line_along_an_edge_is_clear_if_either_side_is_clear():
    # A1 -> B2 runs along the edge between B1 and A2 (odd-r layout); woods on A2 only.
    sc = scenario_from_text("""
        . . . .
        W . . .
        . . . .
    """, blue=[("tank", "A1")], red=[("foot", "B2")])
    assert "B2" in shots(position(sc, order=[0]))
    assert "B2" not in shots(position(sc, order=[0], config=HexConfig(edge_sight="both_sides")))


def test_artillery_needs_a_spotter_and_never_fires_next_to_friends():
    terrain = """
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
    """
    sc = scenario_from_text(terrain, blue=[("artillery", None), ("foot", "A1")],
                            red=[("foot", "J3"), ("foot", "C1"), ("foot", "A2")])
    s = position(sc, order=[0])
    # J3 is seen by nobody; C1 is seen from A1; A2 is seen but next to the friendly A1.
    assert shots(s) == {"C1"}


def test_mortar_minimum_range_two():
    sc = scenario_from_text(OPEN5, blue=[("mortar", "A3")], red=[("foot", "B3"), ("foot", "C3")])
    s = position(sc, order=[0])
    assert "B3" not in shots(s)
    assert "C3" not in shots(s)  # next to nothing friendly but seen? B3 blocks the line
    sc = scenario_from_text(OPEN5, blue=[("mortar", "A3")], red=[("foot", "C3")])
    assert "C3" in shots(position(sc, order=[0]))


def test_d3_modifiers_follow_the_list():
    assert type_modifier(U.FOOT, U.TANK) == -1 and type_modifier(U.ARMOURED_CAR, U.SPG) == -1
    assert type_modifier(U.AT_GUN, U.FOOT) == -1 and type_modifier(U.SPG, U.MECHANISED) == -1
    assert type_modifier(U.TANK, U.TANK) == 1 and type_modifier(U.AT_GUN, U.ARMOURED_CAR) == 1
    assert type_modifier(U.MORTAR, U.FOOT) == 1 and type_modifier(U.ARTILLERY, U.MOTORISED) == 1
    assert type_modifier(U.TANK, U.FOOT) == 0 and type_modifier(U.FOOT, U.AT_GUN) == 0
    assert shot_modifier(U.FOOT, U.FOOT, 2, cover=True, evading=True) == -3
    assert shot_modifier(U.MORTAR, U.FOOT, 5, cover=False, evading=False) == 1  # no long range for mortars
    assert shot_modifier(U.FOOT, U.FOOT, 1, cover=True, evading=False, double_count=True) == -2


def _shoot(sc, config=None, seed=0, evade=None):
    s = position(sc, order=[0, 1], config=config, seed=seed)
    target = next(a for a in s.legal_actions() if action_to_string(a).startswith("shoot"))
    s.apply_action(target)
    if s.phase == HexPhase.EVADE:
        s.apply_action(EVADE if evade else NO_EVADE)
    return s


def test_cover_for_infantry_in_woods_and_hull_down_tanks_only():
    inf = scenario_from_text(". W\n. .", blue=[("tank", "A1")], red=[("foot", "B1")])
    assert _shoot(inf).last_shots[0].cover
    gun = scenario_from_text(". W\n. .", blue=[("tank", "A1")], red=[("at_gun", "B1")])
    assert not _shoot(gun).last_shots[0].cover
    assert _shoot(gun, HexConfig(cover_applies_to="soft")).last_shots[0].cover
    tank = scenario_from_text(". H\n. .", blue=[("tank", "A1")], red=[("tank", "B1")])
    assert _shoot(tank).last_shots[0].cover
    spg = scenario_from_text(". H\n. .", blue=[("tank", "A1")], red=[("spg", "B1")])
    assert not _shoot(spg).last_shots[0].cover


def test_broken_terrain_between_gives_cover():
    sc = scenario_from_text(". X .\n. . .", blue=[("tank", "A1")], red=[("foot", "C1")])
    assert _shoot(sc).last_shots[0].cover


def test_hits_are_the_modified_d3_and_never_negative():
    sc = scenario_from_text(". . .\n. . .", blue=[("tank", "A1")], red=[("foot", "B1")])
    for seed in range(30):
        r = _shoot(sc, seed=seed).last_shots[0]
        assert 1 <= r.roll <= 3 and r.hits == max(0, r.roll + r.modifier)


def test_evasive_action_is_the_targets_decision_and_uses_its_activation():
    sc = scenario_from_text(". . .\n. . .", blue=[("tank", "A1"), ("foot", "C2")], red=[("foot", "B1")])
    s = position(sc, order=[0, 2, 1])
    play(s, "shoot B1")
    assert s.phase == HexPhase.EVADE and s.current_player == 1 and s.legal_actions() == [EVADE, NO_EVADE]
    play(s, "evade")
    assert s.last_shots[0].evaded and s.activated[2]
    assert s.acting_unit() == 1  # red's card is skipped: its action was sacrificed


def test_no_evasion_once_activated_or_in_cover():
    sc = scenario_from_text(". . .\n. . .", blue=[("tank", "A1")], red=[("foot", "B1")])
    s = position(sc, order=[1, 0])
    play(s, "pass", "shoot B1")
    assert s.phase != HexPhase.EVADE
    woods = scenario_from_text(". W .\n. . .", blue=[("tank", "A1")], red=[("foot", "B1")])
    s = position(woods, order=[0, 1])
    play(s, "shoot B1")
    assert s.phase != HexPhase.EVADE


def test_smoke_gives_cover_until_the_next_turn():
    sc = scenario_from_text(". . . .\n. . . .", blue=[("mortar", "A1"), ("foot", "C1")],
                            red=[("foot", "D1")])
    s = position(sc, order=[0, 2])
    play(s, "smoke C1")
    assert cell_of(parse_label("C1")) in s.smoke
    s.apply_action(string_to_action("shoot C1"))
    if s.phase == HexPhase.EVADE:
        s.apply_action(NO_EVADE)
    assert s.last_shots[0].cover
    assert s.turn == 2 and not s.smoke  # removed at the start of the next turn


def test_elimination_after_more_than_eight_hits():
    sc = scenario_from_text(". . .\n. . .", blue=[("tank", "A1")], red=[("foot", "B1"), ("foot", "C2")])
    s = position(sc, order=[0])
    s.hits[1] = 8
    for seed in range(10):
        t = position(sc, order=[0], seed=seed)
        t.hits[1] = 8
        play(t, "shoot B1")
        if t.phase == HexPhase.EVADE:
            play(t, "no evade")
        if t.last_shots[0].hits:
            assert t.cell[1] == ELIMINATED and t.last_shots[0].eliminated
            return
    pytest.fail("no hit in 10 seeds")


# ------------------------------------------------------------------ activation (RULES 3)
def test_activation_order_king_to_ace_and_suits():
    def card(rank: int, suit: str) -> int:
        return "CDHS".index(suit) * 13 + rank - 1

    cards = [card(1, "S"), card(13, "C"), card(13, "S"), card(7, "H"), card(7, "D")]
    ordered = sorted(cards, key=card_order_key, reverse=True)
    assert ordered == [card(13, "S"), card(13, "C"), card(7, "H"), card(7, "D"), card(1, "S")]


def test_every_unit_and_off_table_artillery_gets_a_card_each_turn():
    sc = scenario_from_text(OPEN5, blue=[("artillery", None), ("foot", "A1")], red=[("foot", "F5")])
    s = HexState.new_game(sc, seed=3)
    assert sorted(s.order) == [0, 1, 2] and all(c >= 0 for c in s.card)
    assert [s.card[u] for u in s.order] == sorted(s.card, key=card_order_key, reverse=True)


def test_reshuffle_when_the_deck_runs_short():
    sc = scenario_from_text(OPEN5, blue=[("foot", "A1")] * 1, red=[("foot", "F5")], turns=40)
    s = HexState.new_game(sc, seed=0)
    seen_turns = 0
    while not s.is_terminal():
        s.apply_action(PASS)
        seen_turns = s.turn
        assert len(s.deck) + len(s.discards) + sum(c >= 0 for c in s.card) == 52
    assert seen_turns == 40  # 80 cards dealt from a 52-card deck


def test_an_illegal_action_is_refused_with_the_reason():
    sc = scenario_from_text(OPEN5, blue=[("foot", "A1")], red=[("foot", "F5")])
    s = position(sc, order=[0])
    with pytest.raises(HexIllegalActionError, match="not legal"):
        s.apply_action(string_to_action("move E5"))


# ------------------------------------------------------------------ optional rules (RULES 8)
def test_hidden_units_cannot_be_shot_and_are_revealed_by_an_adjacent_move():
    sc = scenario_from_text(OPEN5, blue=[("armoured_car", "A3")], red=[("foot", "C2")], hidden={1})
    s = position(sc, order=[0], config=HexConfig(hidden_units=True))
    assert shots(s) == set()
    assert "D3" in moves(s)  # blue does not know the hidden unit stops it
    play(s, "move D3")
    assert not s.hidden[1]
    assert at(s, 0) == "C3"  # the move ended on entering the hidden unit's neighbourhood


def test_a_move_cut_short_in_a_full_hex_stops_in_the_last_hex_with_room():
    """RULES 8.1: revealed next to C2, where a friend fills the hill, the car cannot stop there;
    it stops in B2, the last hex of its path with room - not back on its start hex A2."""
    sc = scenario_from_text("""
        L L L . L
        . . H . .
        L L L L L
    """, blue=[("armoured_car", "A2"), ("foot", "C2")], red=[("foot", "D1")], hidden={2})
    s = position(sc, order=[0, 1], config=HexConfig(hidden_units=True))
    assert "D2" in moves(s)  # blue does not know of D1
    play(s, "move D2")
    assert not s.hidden[2]  # "an enemy unit moves into an adjacent hex": C2 is next to D1
    assert at(s, 0) == "B2" and at(s, 1) == "C2" and s.activated[0]


def test_a_move_that_could_stop_only_where_it_began_leaves_the_mover_there():
    """The tank's only way to C4 passes the hill B4, full with a friend and next to the hidden C3.
    Revealed there, the tank must cease moving but may not stay (one unit on a hill), and the seed
    lets friends pass each other only away from the enemy: the last hex with room is A4."""
    terrain = """
        . . . . .
        . . . . .
        . . . . .
        . H . . .
        . . . . .
    """
    sc = scenario_from_text(terrain, blue=[("tank", "A4"), ("foot", "B4")], red=[("foot", "C3")], hidden={2})
    s = position(sc, order=[0, 1], config=HexConfig(hidden_units=True))
    play(s, "move C4")
    assert at(s, 0) == "A4" and not s.hidden[2] and s.activated[0]
    assert s.acting_unit() == 1  # the move used the tank's activation
    # Where hills are open terrain they hold two: the tank stops on B4, beside its friend.
    s = position(sc, order=[0, 1], config=HexConfig(hidden_units=True, open_terrain="no_cover"))
    play(s, "move C4")
    assert at(s, 0) == at(s, 1) == "B4" and not s.hidden[2]


def test_a_move_takes_a_path_with_room_where_an_equally_short_one_exists():
    """From B3 to C4 through the full hill C3 or the empty B4: the path through B4 is taken,
    so the hidden unit on C2 (next to C3 only) is not stumbled upon."""
    sc = scenario_from_text("""
        . . . . .
        . . . . .
        . . H . .
        . . . . .
        . . . . .
    """, blue=[("tank", "B3"), ("foot", "C3")], red=[("foot", "C2")], hidden={2})
    s = position(sc, order=[0], config=HexConfig(hidden_units=True))
    play(s, "move C4")
    assert at(s, 0) == "C4" and s.hidden[2]


def test_joint_activation_moves_two_units_together():
    sc = scenario_from_text(OPEN5, blue=[("foot", "B2"), ("foot", "B2")], red=[("foot", "F5")])
    s = position(sc, order=[0, 1, 2], config=HexConfig(joint_activation=True))
    play(s, "joint move C2")
    assert at(s, 0) == at(s, 1) == "C2" and s.activated[1]
    assert s.acting_unit() == 2  # both cards used


# ------------------------------------------------------------------ victory (RULES 9)
def test_objective_points_at_the_turn_limit_decide():
    sc = scenario_from_text(". . .\n. . .", blue=[("foot", "A1")], red=[("foot", "C2")],
                            objectives=[("B1", 2, "none")], turns=1)
    s = position(sc, order=[0, 1])
    play(s, "move B1", "pass")
    assert s.is_terminal() and s.winner == 0 and s.result["objective_points"] == [2, 0]


def test_equal_points_at_the_turn_limit_is_a_draw():
    sc = scenario_from_text(". . .\n. . .", blue=[("foot", "A1")], red=[("foot", "C2")], turns=1)
    s = position(sc, order=[0, 1])
    play(s, "pass", "pass")
    assert s.is_terminal() and s.winner is None and s.returns() == [0.0, 0.0]


def test_a_side_with_no_unit_on_the_table_loses():
    sc = scenario_from_text(". . .\n. . .", blue=[("tank", "A1"), ("artillery", None)], red=[("foot", "B1")])
    for seed in range(10):
        s = position(sc, order=[1, 0], seed=seed)
        s.hits[0] = 8
        s.apply_action(PASS)  # artillery
        s2 = s.clone()
        # red shoots the tank: an elimination leaves blue only off-table artillery
        s2.order, s2.ptr = [2], 0
        s2.activated[2] = False
        s2.apply_action(string_to_action("shoot A1"))
        if s2.phase == HexPhase.EVADE:
            s2.apply_action(NO_EVADE)
        if s2.cell[0] == ELIMINATED:
            assert s2.is_terminal() and s2.winner == 1 and s2.result["reason"] == "elimination"
            return
    pytest.fail("no elimination in 10 seeds")


def test_a_line_along_the_map_border_is_judged_on_its_map_side():
    # A1 -> A3 runs along the west border between A2 and the void; woods on A2 block it.
    sc = scenario_from_text("""
        . . . . . . . . . . . .
        W . . . . . . . . . . .
        . . . . . . . . . . . .
    """, blue=[("tank", "A1")], red=[("foot", "A3")])
    assert "A3" not in shots(position(sc, order=[0]))


def test_the_firer_does_not_bar_its_own_indirect_fire():
    sc = scenario_from_text(OPEN5, blue=[("artillery", "C3")], red=[("foot", "D3")])
    assert "D3" in shots(position(sc, order=[0]))  # on-table artillery at point blank
    sc = scenario_from_text(OPEN5, blue=[("mortar", "C3")], red=[("foot", "D3")])
    assert "D3" not in shots(position(sc, order=[0]))  # the mortar's minimum range


def test_views_name_units_by_shuffled_public_ids():
    sc = scenario_from_text(OPEN5, blue=[("foot", "A1"), ("tank", "B1")], red=[("foot", "F5"), ("foot", "E5")])
    ids = {tuple(HexState.new_game(sc, seed=k).public_id) for k in range(20)}
    assert len(ids) > 1 and all(sorted(x) == [0, 1, 2, 3] for x in ids)


# ------------------------------------------------------------------ open terrain (RULES 1)
FEATURES = [".", "H", "F", "="]
"""Clear, hill, ford, bridge: every passable hex that gives infantry no cover."""


def is_open(terrain: str, reading: str) -> bool:
    """RULES 1: only clear hexes are open ("clear"); also hills, fords and bridges ("no_cover")."""
    return terrain == "." or (reading == "no_cover" and terrain in "HF=")


@pytest.mark.parametrize("reading", ["clear", "no_cover"])
@pytest.mark.parametrize("ground", FEATURES)
def test_open_terrain_holds_two_units_and_a_terrain_hex_one(ground, reading):
    """ "Only 1 unit may occupy any terrain hex. Up to 2 friendly units can occupy an open terrain hex." """
    sc = scenario_from_text(f"""
        {ground} . . .
        . . . .
    """, blue=[("foot", "A2"), ("foot", "A1")], red=[("foot", "D2")])
    s = position(sc, order=[0], config=HexConfig(open_terrain=reading))
    assert ("A1" in moves(s)) == is_open(ground, reading)


@pytest.mark.parametrize("reading", ["clear", "no_cover"])
@pytest.mark.parametrize("ground", FEATURES)
def test_evasive_action_only_in_open_terrain(ground, reading):
    """ "Units in open terrain which are shot at and have yet to be activated ... can take evasive actions." """
    sc = scenario_from_text(f". {ground} .\n. . .", blue=[("tank", "A1")], red=[("foot", "B1")])
    s = position(sc, order=[0, 1], config=HexConfig(open_terrain=reading))
    play(s, "shoot B1")
    assert (s.phase == HexPhase.EVADE) == is_open(ground, reading)


@pytest.mark.parametrize("reading", ["clear", "no_cover"])
@pytest.mark.parametrize("ground", FEATURES)
def test_smoke_only_on_open_terrain(ground, reading):
    """ "lay down smoke to provide cover to unit, or units, in open terrain" """
    sc = scenario_from_text(f". . {ground} .\n. . . .", blue=[("mortar", "A1"), ("foot", "C1")],
                            red=[("foot", "D2")])
    s = position(sc, order=[0], config=HexConfig(open_terrain=reading))
    smokes = {action_to_string(a) for a in s.legal_actions() if action_to_string(a).startswith("smoke")}
    assert ("smoke C1" in smokes) == is_open(ground, reading)


@pytest.mark.parametrize("reading", ["clear", "no_cover"])
def test_hull_down_tank_has_cover_and_evades_only_where_a_hill_is_open(reading):
    """A tank hull-down on a hill top: cover (-1); evasion too only if hills are open terrain (-2)."""
    sc = scenario_from_text(". H .\n. . .", blue=[("tank", "A1")], red=[("tank", "B1")])
    r = _shoot(sc, HexConfig(open_terrain=reading), evade=True).last_shots[0]
    hill_open = is_open("H", reading)
    assert r.cover and r.evaded == hill_open
    assert r.modifier == type_modifier(U.TANK, U.TANK) - 1 - (1 if hill_open else 0)
