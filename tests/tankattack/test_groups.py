"""Groups in the trenches and the wire (RULES.md 1.7, 8.4, 8.8, 16.1-16.3): hand-worked positions, each
group stage's mask checked against trying all 416 actions, and random games that keep choosing groups.

Maps are 8 x 12; the defender (seat 0) faces N, the attacker S; ``w`` is the defender's wire, ``#`` trench.
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.tankattack import (
    DISMOUNT, END, FACE, GROUP, MOUNT, RALLY, EType, TankState, scenario_from_dict, state_from_json, state_to_json,
)
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.state import Stage

from .conftest import at, position
from .test_games import _invariants, assert_mask_exact

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
                from cardwar.envs.tankattack import groups
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
