"""Rules by section: outcome rows (14), PIP costs (7.1), movement against an independent path count (1.5, 3.2),
ZOC (8.5), wire (16.2), trenches (16.1), recoil, crushing and support (15, 13.1), break point (17.2)."""

from __future__ import annotations

import pytest

from cardwar.envs.tankattack import END, FACE, EType, TankAttackRules
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.fight import LOST, recoil_plan
from cardwar.envs.tankattack.movement import base_cost, move_options
from cardwar.envs.tankattack.outcomes import BUNKER, Fight, Outcome, Result, compare, outcome
from cardwar.envs.tankattack.state import Stage

from .conftest import at, fix_dice, position

OPEN = ["........"] * 12
L = parse_label


# ---------------------------------------------------------------- 13.2 and 14
@pytest.mark.parametrize("own,enemy,res", [(5, 5, Result.EQUAL), (6, 5, Result.WIN), (5, 9, Result.BEATEN),
                                           (4, 8, Result.DOUBLED), (0, 1, Result.DOUBLED), (-1, 2, Result.DOUBLED),
                                           (5, 10, Result.DOUBLED), (5, 9, Result.BEATEN)])
def test_compare(own, enemy, res):
    """Beaten: lower but more than half; doubled: 2 x own <= enemy's (13.2)."""
    assert compare(own, enemy) is res


R, ST, T, MG, AC, CAV = EType.RIFLES, EType.STURMTRUPPE, EType.TANK, EType.MG, EType.ARMOURED_CAR, EType.CAVALRY


@pytest.mark.parametrize("fight,expected", [
    # Rifles: "QKx by Sturmtruppe or Tank if that element initiated contact" / "QK ... by MG shooting" / recoil
    (Fight(R, T, True, enemy_initiated=True), Outcome.DESTROYED),
    (Fight(R, T, True), Outcome.RECOIL),
    (Fight(R, ST, True, enemy_initiated=True), Outcome.DESTROYED),
    (Fight(R, MG, False), Outcome.DESTROYED),
    (Fight(R, MG, False, loser_good_going=False), Outcome.NONE),
    (Fight(R, EType.RIFLES, False, loser_good_going=False, foot_bad_going="recoil"), Outcome.RECOIL),
    # guns: "Recoil from Barrage/Gas (Suppressed if in Trench)" / "QK if in contact with others" / no effect
    (Fight(MG, EType.BARRAGE, True, in_trench=True), Outcome.SUPPRESSED),
    (Fight(MG, EType.BARRAGE, True), Outcome.RECOIL),
    (Fight(MG, R, True), Outcome.DESTROYED),
    (Fight(MG, R, False), Outcome.NONE),
    # Tank: QKx Sturmtruppe that initiated, flee from Art shooting, recoil from others
    (Fight(T, ST, True, enemy_initiated=True), Outcome.DESTROYED),
    (Fight(T, EType.FIELD_ARTILLERY, False), Outcome.FLEE),
    (Fight(T, R, True), Outcome.RECOIL),
    # Armoured Car
    (Fight(AC, T, True), Outcome.DESTROYED),
    (Fight(AC, R, True, loser_initiated=True), Outcome.DESTROYED),
    (Fight(AC, CAV, True, loser_initiated=True, contact_bad_going=True), Outcome.DESTROYED),
    (Fight(AC, CAV, True, loser_initiated=True), Outcome.RECOIL),
    (Fight(AC, R, False), Outcome.NONE),
    (Fight(AC, MG, False), Outcome.RECOIL),
    # Cavalry
    (Fight(CAV, R, True, contact_bad_going=True), Outcome.DESTROYED),
    (Fight(CAV, MG, False), Outcome.DESTROYED),
    (Fight(CAV, R, False), Outcome.RECOIL),
    # Balloon, FO; Bunker; Sniper, Minefield
    (Fight(EType.FORWARD_OBSERVER, R, True), Outcome.DESTROYED),
    (Fight(EType.FORWARD_OBSERVER, R, False), Outcome.RECOIL),
    (Fight(BUNKER, R, True), Outcome.DESTROYED),
    (Fight(BUNKER, EType.BARRAGE, True), Outcome.NONE),
    (Fight(BUNKER, EType.FIGHTER, True), Outcome.NONE),
    (Fight(BUNKER, EType.FIGHTER, True, ground_aided=True), Outcome.DESTROYED),
    (Fight(EType.SNIPER, R, False), Outcome.LOST_OFF),
    (Fight(EType.MINEFIELD, R, True), Outcome.TO_RESERVE),
    (Fight(R, EType.FIGHTER, True, in_trench=True), Outcome.RECOIL_OR_SUPPRESS),
])
def test_beaten_rows(fight, expected):
    """14.1, row by row."""
    assert outcome(fight, Result.BEATEN) is expected


def test_doubled_rows():
    """14.2: Fighters destroyed by non-Balloon Aerials or Rifles, else flee 600p; the Bunker and Strongpoints
    survive unaided Aerials, Barrage and Gas; all others destroyed."""
    assert outcome(Fight(EType.FIGHTER, R, True), Result.DOUBLED) is Outcome.DESTROYED
    assert outcome(Fight(EType.FIGHTER, EType.BALLOON, True), Result.DOUBLED) is Outcome.FLEE_600
    assert outcome(Fight(BUNKER, EType.GAS, True), Result.DOUBLED) is Outcome.NONE
    assert outcome(Fight(BUNKER, T, True), Result.DOUBLED) is Outcome.DESTROYED
    assert outcome(Fight(R, EType.BARRAGE, True, in_strongpoint=True), Result.DOUBLED) is Outcome.NONE
    assert outcome(Fight(R, EType.BARRAGE, True, in_strongpoint=True), Result.BEATEN) is Outcome.NONE
    assert outcome(Fight(EType.GAS, R, True), Result.DOUBLED) is Outcome.DESTROYED
    assert outcome(Fight(R, T, True), Result.EQUAL) is Outcome.NONE


# ---------------------------------------------------------------- 7.1 PIP costs
def test_pip_costs_example_10():
    """A Rifles 700p from its General with a wood between: 2; at 500p: 1; a Tank adds 1; a Lost General adds
    1 instead of the distance."""
    rows = ["........"] * 12
    rows[4] = "WWWWWWWW"
    s = position(rows, attacker=["A1 general", "A9 rifles", "C7 rifles", "B1 tank"], active=1)
    assert base_cost(s, at(s, "A9")) == 2  # gap 700p, wood between
    assert base_cost(s, at(s, "C7")) == 1  # gap 550p: within 600p, sight does not matter
    s2 = position(OPEN, attacker=["A1 general", "A9 rifles", "A7 rifles", "B1 tank"], active=1)
    assert base_cost(s2, at(s2, "A9")) == 1  # 700p, in sight
    assert base_cost(s2, at(s2, "A7")) == 1
    assert base_cost(s2, at(s2, "B1")) == 2  # Tank +1
    s2.cell[s2.general_of[1]] = LOST
    s2._rebuild()
    assert base_cost(s2, at(s2, "B1")) == 3  # Tank +1, Lost General +1 (distance lapses)


def test_pip_cost_beyond_1200():
    rows = ["................"] * 24
    s = position(rows, attacker=["A1 general", "A15 tank", "A14 rifles"], active=1)
    assert base_cost(s, at(s, "A15")) == 3  # 1300p: 1 + 1 Tank + 1 distance
    assert base_cost(s, at(s, "A14")) == 1  # 1200p is "within"


# ---------------------------------------------------------------- moves
def _octile(a: int, b: int) -> int:
    dc, dr = abs(a % 16 - b % 16), abs(a // 16 - b // 16)
    return 100 * max(dc, dr) + 50 * min(dc, dr)


@pytest.mark.parametrize("kind,paces", [("rifles", 300), ("tank", 200), ("cavalry", 500), ("mg", 200),
                                        ("sturmtruppe", 300), ("field_artillery", 200)])
def test_open_ground_reach(kind, paces):
    """On empty open ground the destinations are exactly the cells within the allowance at 100p a step and
    150p a diagonal (1.5, 3.2), plus turning in place."""
    s = position(OPEN, attacker=[f"D5 {kind}"], active=1)
    e = at(s, "D5")
    got = set(move_options(s, e))
    want = {c for c in s.board.map_cells() if _octile(c, L("D5")) <= paces} - {L("H1")}
    assert got == want


def test_bad_going_and_artillery():
    """The worst going of the path sets the allowance (8.2); Field Artillery may not enter bad going."""
    rows = list(OPEN)
    rows[5] = "xxxxxxxx"
    s = position(rows, attacker=["D5 rifles", "F5 field_artillery"], active=1)
    assert L("D7") in move_options(s, at(s, "D5"))  # Rifles: 300p in bad going too
    s2 = position(rows, attacker=["D5 cavalry"], active=1)
    opts = move_options(s2, at(s2, "D5"))
    assert L("D6") in opts and L("D7") in opts and L("D8") not in opts  # 200p once the path is bad
    assert not any(c // 16 >= 5 for c in move_options(s, at(s, "F5")))


def test_zoc_stops_or_goes_into_contact():
    """Entering an enemy's ZOC (two cells ahead of it) ends the move, or goes straight on into front contact,
    facing it (8.5)."""
    s = position(OPEN, defender=["D8 rifles"], attacker=["D4 cavalry"], active=1)
    opts = move_options(s, at(s, "D4"))
    assert L("D6") in opts and L("D7") in opts
    assert opts[L("D7")].facings == (2,)
    assert L("C7") in opts  # around the side, outside the ZOC
    assert L("D9") not in opts and L("E8") in opts
    # sideways through the ZOC is not allowed: D6 then E7 would leave it by a diagonal
    s2 = position(OPEN, defender=["D8 rifles"], attacker=["C6 rifles"], active=1)
    o2 = move_options(s2, at(s2, "C6"))
    assert L("D6") in o2 and L("E6") in o2  # E6 reached around D6 via C5-D5-E5? no: via row 5
    s3 = position(OPEN, defender=["D8 rifles"], attacker=["D6 rifles"], active=1)
    o3 = move_options(s3, at(s3, "D6"))  # starts in the ZOC: into contact or straight back
    assert set(o3) == {L("D7"), L("D5"), L("D4"), L("D3")}


def test_wire_stops_then_crosses():
    """Foot stop facing enemy wire and cross next bound to the first cell beyond; Tanks cross at 100p and
    destroy it; Sturmtruppe cut the wire they reached at the end of the bound (16.2)."""
    rows = list(OPEN)
    rows[5] = "wwwwwwww"
    s = position(rows, attacker=["D4 rifles", "F5 tank", "B4 sturmtruppe"], active=1)
    r = at(s, "D4")
    assert not any(c // 16 >= 5 for c in move_options(s, r))
    tank_opts = move_options(s, at(s, "F5"))
    assert L("F6") in tank_opts and L("F7") not in tank_opts
    s.apply_action(L("F5"))
    s.apply_action(L("F6"))
    s.apply_action(FACE + 2)
    assert L("F6") not in s.wire
    s.apply_action(L("B4"))
    s.apply_action(L("B5"))
    s.apply_action(FACE + 2)
    s.apply_action(L("D4"))
    s.apply_action(L("D5"))
    s.apply_action(FACE + 2)
    assert s.pips == 6 - 2 - 1 - 1
    s.apply_action(END)
    assert L("B6") not in s.wire and L("D6") in s.wire
    s2 = position(rows, attacker=["D5 rifles"], active=1)
    opts = move_options(s2, at(s2, "D5"))
    assert opts[L("D7")].kind == "cross"


def test_trench_moves():
    """An occupant moves along its trench up to two cells or steps out with its rear to it; entering stops."""
    rows = list(OPEN)
    rows[7] = ".######."
    s = position(rows, defender=["D8 rifles"], active=0)
    opts = move_options(s, at(s, "D8"))
    assert {c for c, o in opts.items() if o.kind == "trench"} == {L("B8"), L("C8"), L("E8"), L("F8")}
    leave = {c: o.facings for c, o in opts.items() if o.kind == "leave"}
    assert leave == {L("D7"): (0,), L("D9"): (2,)}
    s2 = position(rows, attacker=["D5 rifles"], active=1)
    o2 = move_options(s2, at(s2, "D5"))
    assert L("D8") in o2 and L("D9") not in o2  # 300p would reach D9, but the trench stops it
    s3 = position(rows, attacker=["D5 cavalry"], active=1)
    assert L("D8") not in move_options(s3, at(s3, "D5"))  # horses do not enter trenches


# ---------------------------------------------------------------- outcome moves
def test_recoil_blocked_and_pushback():
    """15.1-15.2: into a friendly Tank, destroyed; a friend facing the same way is pushed; an enemy front on
    the flank destroys the recoiler."""
    s = position(OPEN, defender=["D8 rifles", "D9 tank"], attacker=["D7 rifles"], active=1)
    assert recoil_plan(s, at(s, "D8"), 2) is None
    s = position(OPEN, defender=["D8 rifles", "D9 mg"], attacker=["D7 rifles"], active=1)
    assert recoil_plan(s, at(s, "D8"), 2) == [(at(s, "D9"), L("D10")), (at(s, "D8"), L("D9"))]
    s = position(OPEN, defender=["D8 rifles", "D9 mg S"], attacker=["D7 rifles"], active=1)
    assert recoil_plan(s, at(s, "D8"), 2) is None  # a friend facing another way blocks
    s = position(OPEN, defender=["D8 rifles", "D9 rifles S"], attacker=["D7 rifles"], active=1)
    assert recoil_plan(s, at(s, "D8"), 2) == [(at(s, "D8"), L("D10"))]  # Rifles pass Rifles (8.9)
    s = position(OPEN, defender=["D8 rifles"], attacker=["D7 rifles", "E8 rifles W"], active=1)
    assert recoil_plan(s, at(s, "D8"), 2) is None
    s = position(OPEN, defender=["A12 rifles"], attacker=["A11 rifles"], active=1)
    assert recoil_plan(s, at(s, "A12"), 2) == [(at(s, "A12"), LOST)]  # over the edge: Lost


def test_destroyed_front_takes_its_support():
    """L432: rear support +1, and the supporter dies with its destroyed front (14.4)."""
    s = position(OPEN, defender=["D8 rifles", "D9 rifles"], attacker=["D5 sturmtruppe"], active=1)
    front, sup = at(s, "D8"), at(s, "D9")
    s.apply_action(L("D5"))
    s.apply_action(L("D7"))
    s.apply_action(FACE + 2)
    s.apply_action(END)
    assert s.stage is Stage.COMBAT_SELECT
    fix_dice(s, 6, 1)  # Sturmtruppe 5 + 6 = 11 against Rifles 3 + 1 (support) + 1 = 5
    s.apply_action(L("D7"))
    assert s.cell[front] == LOST and s.cell[sup] == LOST
    assert s.cell[at(s, "D8")] == L("D8"), "the Sturmtruppe pursue one cell into the space"


def test_break_point_ends_the_game():
    """17.2: half the army's AP Lost breaks it, checked at the end of the bound; 13 AP -> 7 Lost."""
    s = position(OPEN, defender=["D8 rifles", "A8 rifles", "B8 mg", "C8 rifles", "H12 general"],
                 attacker=["E2 tank"], active=1)
    for cell in ("A8", "B8", "C8"):
        s._destroy(at(s, cell))
    assert s.lost_ap(0) == 7 and s.army_ap(0) == 11
    s.apply_action(END)
    assert s.is_terminal() and s.result["reason"] == "break point" and s.winner == 1
    assert s.returns() == [-1.0, 1.0]
