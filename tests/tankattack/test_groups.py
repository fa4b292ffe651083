"""Groups in the trenches and the wire (RULES.md 1.7, 8.4, 8.8, 16.1-16.3): hand-worked positions, each
group stage's mask checked against trying all 416 actions, and random games that keep choosing groups.

Maps are 8 x 12; the defender (seat 0) faces N, the attacker S; ``w`` is the defender's wire, ``#`` trench.
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.tankattack import (
    DEPLOY, DISMOUNT, END, FACE, GROUP, MOUNT, RALLY, EType, TankAttackRules, TankState, groups, scenario_from_dict,
    state_from_json, state_to_json,
)
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.fight import LOST
from cardwar.envs.tankattack.state import Stage

from .conftest import at, dice_pairs, fix_dice, position
from .test_games import _invariants, assert_mask_exact
from .test_reserves import ALL_RESERVES

L = parse_label
N, E, S, W = 0, 1, 2, 3
TRENCH_MAP = ["........", "........", "........", "........", "........", "........",
              ".www....", "........", ".######.", "........", "........", "........"]
"""Wire B7-D7, one empty row (8), the trench B9-G9."""


def group_of(s: TankState, lead: str, *others: str) -> list[int]:
    """Choose ``lead``, then ``group``, add ``others``, ``end``: the group-move stage."""
    s.apply_action(L(lead))
    assert GROUP in s.legal_actions()
    s.apply_action(GROUP)
    for o in others:
        s.apply_action(L(o))
    s.apply_action(END)
    assert s.stage is Stage.GROUP_MOVE
    assert_mask_exact(s, s.legal_actions())
    return list(s.pending["group"])


def cells(s: TankState, group: list[int]) -> list[int]:
    return [s.cell[m] for m in group]


# ---------------------------------------------------------------- 16.1 along a trench
def test_a_line_in_a_line_trench_moves_along_it_up_to_two_sections():
    """16.1 (L701-702): "Along a Trench movement up to 2 sections & Group movement is allowed". Rifles at C9
    and D9 in the trench B9-G9, facing N: along it West 1 (to B9-C9; A9 is no trench), East 1 or 2 (to D9-E9,
    E9-F9); out of it one cell straight ahead (C8-D8, rears against the trench); or a turn in place. One PIP."""
    s = position(TRENCH_MAP, defender=["C9 rifles", "D9 rifles"], attacker=["A1 rifles"], active=0, pips=6)
    g = group_of(s, "C9", "D9")
    assert sorted(s.legal_actions()) == sorted([L("B9"), L("D9"), L("E9"), L("C8"), FACE + E, FACE + S, FACE + W])
    s.apply_action(L("E9"))
    assert cells(s, g) == [L("E9"), L("F9")] and s.pips == 5
    assert all(s.facing[m] == N and s.moved[m] for m in g)


def test_a_group_along_a_trench_stops_in_an_enemys_trench_zoc():
    """8.5 (L718-721): "Elements inside a trench must abide by ZOC for elements inside the same trench": an
    enemy at G9 holds E9 and F9; the group C9-D9 may step East to D9-E9 (entering E9) but not on to E9-F9."""
    s = position(TRENCH_MAP, defender=["C9 rifles", "D9 rifles"], attacker=["G9 rifles"], active=0, pips=6)
    group_of(s, "C9", "D9")
    dests = [a for a in s.legal_actions() if a < FACE]
    assert L("D9") in dests and L("E9") not in dests and L("B9") in dests


def test_a_trench_group_is_occupants_of_one_trench_only():
    """1.7, 16.1: a Rifles in the trench and one behind it facing the same way do not group (one would move
    along the trench, the other cannot); two in the trench do."""
    s = position(TRENCH_MAP, defender=["C9 rifles", "C10 rifles"], attacker=["A1 rifles"], active=0, pips=6)
    s.apply_action(L("C9"))
    assert GROUP not in s.legal_actions()


# ---------------------------------------------------------------- 8.4 into a trench, at and across wire
def test_a_line_advancing_into_a_trench_stops_there():
    """16.1: a move "stops on entering" a trench cell, for a group as for one element: the line C11-D11 (300p)
    reaches C10 and C9 (the trench) but not C8 beyond it, which it reaches on open ground."""
    s = position(TRENCH_MAP, defender=["C11 rifles", "D11 rifles"], attacker=["A1 rifles"], active=0, pips=6)
    g = group_of(s, "C11", "D11")
    dests = [a for a in s.legal_actions() if a < FACE]
    assert dests == sorted([L("C9"), L("C10")])
    s.apply_action(L("C9"))
    assert cells(s, g) == [L("C9"), L("D9")]
    open_field = position(["........"] * 12, defender=["C11 rifles", "D11 rifles"], active=0, pips=6)
    group_of(open_field, "C11", "D11")
    assert L("C8") in open_field.legal_actions()


def test_a_line_halts_at_the_wire_and_crosses_it_next_bound():
    """16.2 (L110-118): foot "must stop moving when contacting enemy barbed wire" and "On their next turn ...
    may move through the barbed wire - simply place the element on the far side": the attacker's line B4-C4
    (facing S) reaches B6-C6 and no further; from there, as a group move, B8-C8 beyond the belt."""
    s = position(TRENCH_MAP, defender=["F11 rifles"], attacker=["B4 rifles", "C4 rifles"], active=1, pips=6)
    g = group_of(s, "B4", "C4")
    assert [a for a in s.legal_actions() if a < FACE] == [L("B5"), L("B6")]
    s.apply_action(L("B6"))
    assert all(s.wire_contact[m] for m in g), "held at the wire"
    s.moved = [False] * len(s.cell)
    s.pips, s.stage, s._memo = 6, Stage.MOVES, None
    group_of(s, "B6", "C6")
    assert sorted(s.legal_actions()) == sorted([L("B8"), FACE + N, FACE + E, FACE + W])
    s.apply_action(L("B8"))
    assert cells(s, g) == [L("B8"), L("C8")] and all(s.facing[m] == S for m in g) and s.pips == 5


def test_only_a_whole_group_at_the_wire_crosses_it():
    """16.2: A6 faces no wire (A7 is open), so the line A6-B6 may not be placed across the belt."""
    s = position(TRENCH_MAP, defender=["F11 rifles"], attacker=["A6 rifles", "B6 rifles"], active=1, pips=6)
    group_of(s, "A6", "B6")
    assert not [a for a in s.legal_actions() if a < FACE]


def test_a_tank_column_enters_the_wire_and_destroys_it():
    """16.2 (L124-127): Tanks "move through the barbed wire as if it is Bad Going and destroy the barbed wire";
    a Tank column C6-C5 (facing S) takes its one 100p step into C7, and the wire there is gone; 2 PIPs (7.1)."""
    s = position(TRENCH_MAP, defender=["F11 rifles"], attacker=["C6 tank", "C5 tank"], active=1, pips=6)
    g = group_of(s, "C6", "C5")
    assert [a for a in s.legal_actions() if a < FACE] == [L("C7")]
    s.apply_action(L("C7"))
    assert cells(s, g) == [L("C7"), L("C6")] and L("C7") not in s.wire and s.pips == 4


# ---------------------------------------------------------------- 8.8 a Cavalry group (dis)mounts
def test_a_cavalry_group_dismounts_and_remounts_for_one_pip():
    """8.8 (L358-364): "spend 1 PIP to (dis)mount a cavalry element or group"."""
    s = position(["........"] * 12, defender=["C10 cavalry", "D10 cavalry", "C11 general"], active=0, pips=6)
    g = group_of(s, "C10", "D10")
    assert DISMOUNT in s.legal_actions() and MOUNT not in s.legal_actions()
    s.apply_action(DISMOUNT)
    assert [s.etype[m] for m in g] == [EType.DISMOUNTED_CAVALRY] * 2 and s.pips == 5
    assert all(s.moved[m] for m in g), "rather than moving"
    s.moved = [False] * len(s.cell)
    s.stage, s._memo = Stage.MOVES, None
    group_of(s, "C10", "D10")
    assert MOUNT in s.legal_actions()
    s.apply_action(MOUNT)
    assert [s.etype[m] for m in g] == [EType.CAVALRY] * 2 and [s.timer[m] for m in g] == [2, 2] and s.pips == 4


def test_a_mixed_group_moves_but_does_not_dismount():
    """1.7: Cavalry and Rifles are both ground, so they group; only Cavalry (dis)mount (8.8)."""
    s = position(["........"] * 12, defender=["C10 cavalry", "D10 rifles", "C11 general"], active=0, pips=6)
    group_of(s, "C10", "D10")
    assert DISMOUNT not in s.legal_actions() and L("C9") in s.legal_actions()


# ---------------------------------------------------------------- 16.3 one PIP per group
def test_one_pip_frees_a_group_of_suppressed_infantry():
    """16.3 (L724-726): Suppressed infantry "may not fire or move until 1 PIP per group is paid". C9-E9 (facing
    N, touching) are one group; F9 faces E, so is not in it; the MG at G9 is a gun, freed alone."""
    s = position(TRENCH_MAP, defender=["C9 rifles", "D9 rifles", "E9 rifles", "F9 rifles", "G9 mg"],
                 attacker=["A1 rifles"], active=0, pips=2)
    f9 = at(s, "F9")
    s.facing[f9] = E
    for c in ("C9", "D9", "E9", "F9", "G9"):
        s.suppressed[at(s, c)] = True
    s._memo = None
    s.apply_action(RALLY)
    assert_mask_exact(s, s.legal_actions())
    s.apply_action(L("D9"))
    assert [s.suppressed[at(s, c)] for c in ("C9", "D9", "E9", "F9", "G9")] == [False, False, False, True, True]
    assert s.pips == 1


# ---------------------------------------------------------------- whole games that keep choosing groups
TRENCH_GAME = {
    "name": "groups", "turn_limit": 8,
    "map": ["........", "........", "........", "........", "........", "........",
            ".www.ww.", "........", "########", "...#....", "........", "...K...."],
    "defender": {"placed": ["E11 general", "B9 rifles", "C9 rifles", "E9 rifles", "F9 rifles", "D10 mg",
                            "G11 cavalry", "H11 cavalry"], "reserve": ["barrage"]},
    "attacker": {"placed": ["D2 general", "B4 rifles", "C4 rifles", "D4 rifles", "E3 tank", "F3 tank",
                            "G2 cavalry", "H2 cavalry", "A3 sturmtruppe", "A4 sturmtruppe"], "reserve": ["barrage"]},
}


def test_random_games_that_prefer_groups_end_with_exact_masks():
    """Games whose players take ``group`` whenever it is legal and then the longest group they can: every
    group stage's mask is exact, the JSON round trip and a clone play on identically, and the new moves occur."""
    kinds: set[str] = set()
    for seed in range(12):
        s = TankState.new_game(scenario_from_dict(TRENCH_GAME), seed=seed)
        rng = np.random.default_rng(seed)
        n = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            if s.stage in (Stage.GROUP_ADD, Stage.GROUP_MOVE) and seed < 3 and n % 3 == 0:
                assert_mask_exact(s, legal)
            if GROUP in legal and rng.random() < 0.9:
                a = GROUP
            elif s.stage is Stage.GROUP_ADD and len(legal) > 1 and rng.random() < 0.8:
                a = int(rng.choice([x for x in legal if x != END]))
            else:
                a = int(rng.choice(legal))
            if s.stage is Stage.GROUP_MOVE:
                back = state_from_json(state_to_json(s))
                twin = s.clone()
                kinds.add(groups.group_moves(s, s.pending["group"])[a].kind)
                s.apply_action(a)
                back.apply_action(a)
                twin.apply_action(a)
                assert back.to_dict() == s.to_dict() == twin.to_dict()
            else:
                s.apply_action(a)
            _invariants(s)
            n += 1
            assert n < 20_000
    assert {"ahead", "turn", "trench", "leave"} <= kinds, kinds


# ---------------------------------------------------------------- 9.4 option gas_hits_both
def _gas_at_own_rifles(hits_both: bool, active: int = 1) -> TankState:
    """The attacker's Gas at D6 facing S, its front on the rear of the attacker's own Rifles at D7 (facing S)."""
    s = position(TRENCH_MAP, defender=["F11 rifles"], attacker=["D7 rifles"], active=active, pips=1,
                 rules=TankAttackRules(gas_hits_both=hits_both), reserve=([], ["gas"]))
    gas = next(e for e in range(len(s.cell)) if s.etype[e] is EType.GAS)
    s._place(gas, L("D6"))
    s.facing[gas], s.timer[gas] = S, 3
    s._memo = None
    return s


def test_gas_fights_only_the_deployers_enemies_by_default():
    """9.4: by default Gas fights "the deployer's enemies that its front edge touches": no combat here."""
    s = _gas_at_own_rifles(False)
    s.apply_action(END)
    assert s.stage is Stage.MOVES and s.active == 0, "the bound ended with no combat"


def test_gas_hits_both_fights_its_own_side_and_the_loser_recoils_away():
    """9.4, ``gas_hits_both``: Gas fights "any ground element its front touches". The Rifles (+3 vs Gas, 3.4)
    roll 2 and the Gas (+2) rolls 5: 5 against 7, beaten and not doubled (13.2); Rifles in good going recoil
    (14.1), away from the Gas, to D8. They were not turned to face their own Gas (10)."""
    s = _gas_at_own_rifles(True)
    rifles = at(s, "D7")
    s.apply_action(END)
    assert s.stage is Stage.COMBAT_SELECT and s.legal_actions() == [L("D6"), L("D7")]
    assert_mask_exact(s, s.legal_actions())
    assert s.facing[rifles] == S
    fix_dice(s, 2, 5)  # the active player's element rolls first
    s.apply_action(L("D7"))
    assert s.cell[rifles] == L("D8") and s.facing[rifles] == S


def test_the_enemy_turns_the_wind_on_the_deployer():
    """9.4: "either player may use 1 PIP to move it in their own bound" and whoever moves it sets its facing:
    the defender blows the attacker's Gas from D4 to D6, front S onto the attacker's Rifles at D7; with
    ``gas_hits_both`` they fight in the defender's step 5; without it they do not."""
    for hits_both in (True, False):
        s = _gas_at_own_rifles(hits_both, active=0)
        gas = s.grid[L("D6")]
        s._place(gas, L("D4"))
        s._memo = None
        s.apply_action(L("D4"))
        assert L("D6") in s.legal_actions() and L("D7") not in s.legal_actions(), "it stops on contact"
        s.apply_action(L("D6"))
        s.apply_action(FACE + S)  # its 1 PIP spent, the defender's bound goes on to step 5 by itself
        if hits_both:
            assert s.stage is Stage.COMBAT_SELECT and s.legal_actions() == [L("D6"), L("D7")]
        else:
            assert s.active == 1


def _gas_policy(s: TankState, legal: list[int], rng: np.random.Generator) -> int:
    """Random, but bring on and move Gas whenever it can, and face a moved Gas onto an element when it can."""
    gas_cells = [a for a in legal if a < FACE and s.stage is Stage.MOVES and s.etype[s.grid[a]] is EType.GAS]
    if s.stage is Stage.MOVES and DEPLOY + int(EType.GAS) in legal:
        return DEPLOY + int(EType.GAS)
    if gas_cells and rng.random() < 0.7:
        return int(rng.choice(gas_cells))
    if s.stage is Stage.MOVE_FACE and s.etype[s.pending["element"]] is EType.GAS:
        onto = [a for a in legal if (n := s.board.step(s.pending["dest"], a - FACE)) is not None and s.grid[n] >= 0]
        if onto:
            return int(rng.choice(onto))
    return int(rng.choice(legal))


def test_games_with_gas_hitting_both_sides_keep_exact_masks():
    """Random games with ``gas_hits_both`` in which Gas is brought on and blown about whenever it can be: a Gas
    does fight its own side, and the combat stage's mask stays exact (all 416 actions tried)."""
    own_side_fights = 0
    for seed in range(12):
        s = TankState.new_game(scenario_from_dict(ALL_RESERVES), TankAttackRules(gas_hits_both=True), seed=seed)
        rng = np.random.default_rng(seed)
        n = 0
        while not s.is_terminal():
            legal = s.legal_actions()
            if s.stage is Stage.COMBAT_SELECT and s._gas_on_own_side():
                own_side_fights += 1
                if own_side_fights <= 6:
                    assert_mask_exact(s, legal)
            s.apply_action(_gas_policy(s, legal, rng))
            _invariants(s)
            n += 1
            assert n < 20_000
    assert own_side_fights > 0


def test_gas_against_its_own_rifles_over_36_dice():
    """9.4 ``gas_hits_both``, counted by hand: Rifles 3 + a against Gas 2 + b. The Rifles lose when b > a + 1
    (10 pairs), are doubled when 2(3 + a) <= 2 + b, only a = 1, b = 6 (1 pair: destroyed, 14.2) and otherwise
    recoil to D8 (9 pairs, 14.1); the Gas loses when b <= a (21 pairs): doubled when 2(2 + b) <= 3 + a, that is
    b = 1, a >= 3 or b = 2, a >= 5 (6 pairs: Lost, 14.2), otherwise no effect (15 pairs, 14.1)."""
    moved = lost = gas_lost = 0
    for a, b in dice_pairs():
        s = _gas_at_own_rifles(True)
        rifles, gas = at(s, "D7"), at(s, "D6")
        s.apply_action(END)
        fix_dice(s, a, b)
        s.apply_action(L("D7"))
        moved += s.cell[rifles] == L("D8")
        lost += s.cell[rifles] < 0
        gas_lost += s.cell[gas] == LOST
        assert s.cell[gas] in (L("D6"), LOST)
    assert (moved, lost, gas_lost) == (9, 1, 6)


# ---------------------------------------------------------------- 8.2 option going="per_cell" for a group
def test_a_cavalry_column_through_one_wood_cell_per_cell_and_by_worst_going():
    """8.2: Cavalry move 500p in good going, 200p in bad. The column C11-C12 (facing N) has a wood at C10.
    Worst going: the whole move is at 200p once it enters the wood, so the lead reaches C10 and C9. Option
    ``going="per_cell"``: each step costs 100p x 500 / the rate of the cell entered, within 500p: for the lead
    250p for the wood, then 100p a cell: C10 (250), C9 (350), C8 (450), not C7 (550); the rear C12 pays
    100 + 250 + 100 = 450 for the same three steps."""
    rows = ["........"] * 9 + ["..W....."] + ["........"] * 2
    for going, expected in (("worst", [L("C9"), L("C10")]), ("per_cell", [L("C8"), L("C9"), L("C10")])):
        s = position(rows, defender=["C11 cavalry", "C12 cavalry", "A12 general"], active=0, pips=6,
                     rules=TankAttackRules(going=going))
        group_of(s, "C11", "C12")
        assert [a for a in s.legal_actions() if a < FACE] == expected, going
