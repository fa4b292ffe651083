"""The design brief's tests (../shared/designs/ww1-tank-attack.md section 7, items 1-12) that the other files
do not already hold, read against the rules as built (RULES.md; section 21 has the worked examples).

Each odds figure is counted by playing the engine's own combat once for each of the 36 pairs of dice (the
dice fixed by ``fix_dice``) and compared with a fraction written by hand from the seed's tables: the
factors of RULES.md 3.4 and 13.1, the "chance of a higher total" table of section 21 (row = the factor
difference) and the outcome rows of section 14. Where RULES.md decides differently from the brief, the
test follows RULES.md and its docstring says so.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from cardwar.envs.tankattack import (
    DEPLOY, END, FACE, GROUP, RAID, YES, EType, TankAttackRules, TankState,
)
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.fight import LOST
from cardwar.envs.tankattack.movement import base_cost, move_options
from cardwar.envs.tankattack.state import GONE, Stage

from .conftest import at, dice_pairs, fix_dice, position
from .test_games import assert_mask_exact

L = parse_label
OPEN = ["........"] * 12
TRENCH = ["........"] * 7 + [".######."] + ["........"] * 4
N, E, S, W = 0, 1, 2, 3


# ---------------------------------------------------------------- helpers
def move(s: TankState, frm: str, to: str, face: int) -> None:
    s.apply_action(L(frm))
    s.apply_action(L(to))
    s.apply_action(FACE + face)


def to_combat(s: TankState) -> None:
    s.apply_action(END)
    assert s.stage is Stage.COMBAT_SELECT, s.stage


def one_of(s: TankState, kind: EType, side: int) -> int:
    """The (first) element of ``kind`` on ``side``, wherever it is (reserve included)."""
    return next(e for e in range(len(s.cell)) if s.side[e] == side and s.etype[e] is kind)


def put(s: TankState, e: int, cell: str, facing: int) -> None:
    """Hand-place a reserve element (a position built for one rule)."""
    s._place(e, L(cell))
    s.facing[e] = facing
    s._memo = None


def tally(s: TankState, choose: list[str], judge) -> Counter:
    """Play the combat or shot reached by the actions ``choose`` once per pair of dice (the active player's
    element rolls first) and count ``judge``'s verdicts."""
    out: Counter = Counter()
    for d1, d2 in dice_pairs():
        c = s.clone()
        fix_dice(c, d1, d2)
        for a in choose:
            c.apply_action(L(a) if isinstance(a, str) else a)
        out[judge(c)] += 1
    return out


def fractions(c: Counter) -> dict:
    return {k: Fraction(v, 36) for k, v in c.items()}


# ---------------------------------------------------------------- 1. Tank against trench Rifles
def tank_at_the_trench(defender: str = "D8 rifles") -> TankState:
    s = position(TRENCH, defender=[defender], attacker=["D5 tank", "D6 rifles", "D3 rifles"], active=1)
    move(s, "D5", "D7", S)
    to_combat(s)
    return s


def test_a_tank_beaten_on_6_against_9_recoils_and_crushes_the_friendly_rifles_behind_it():
    """Brief 7.1 / RULES.md 21 ex. 1, 15.3: dice 2 and 6, Tank 4 + 2 = 6 against Rifles 3 + 6 = 9: beaten
    (6 > 4.5), the Tank row "recoil from others" (14.1); the friendly Rifles in the cell it recoils into
    are crushed, the Rifles two cells back are met at the end of the recoil and spared. The winning Rifles
    pursue one cell out of their trench into the cell the Tank left (15.5: pursuit is compulsory)."""
    s = tank_at_the_trench()
    tank, rifles, behind, far = at(s, "D7"), at(s, "D8"), at(s, "D6"), at(s, "D3")
    fix_dice(s, 2, 6)
    s.apply_action(L("D7"))
    assert s.cell[tank] == L("D6") and s.facing[tank] == S
    assert s.cell[behind] == LOST and s.cell[far] == L("D3") and s.cell[rifles] == L("D7")
    assert s.lost_ap(1) == 2, "the crushed friend is Lost and counts for its own side (15.3)"


def test_a_tank_doubled_by_the_general_in_his_trench_is_destroyed_and_its_4_ap_are_lost():
    """Brief 7.1 / RULES.md 21 ex. 1: against the General (Rifles +3, General +1) dice 1 and 6: 5 against 10,
    doubled (14.2: all others destroyed): the Tank's 4 AP are Lost; over 36 dice only that pair doubles it
    (a 5 is half of 10 only; 1/36)."""
    s = tank_at_the_trench("D8 general")
    tank = at(s, "D7")
    c = s.clone()
    fix_dice(c, 1, 6)
    c.apply_action(L("D7"))
    assert c.cell[tank] == LOST and c.lost_ap(1) == 4
    got = tally(s, ["D7"], lambda c: c.cell[tank] == LOST)
    assert Fraction(got[True], 36) == Fraction(1, 36)


# ---------------------------------------------------------------- 3. Barrage against an MG in a trench
def barrage_on_the_mg() -> TankState:
    """The attacker pays 6 PIPs and places a Barrage touching the MG in its trench (9.1); his Balloon is up."""
    s = position(TRENCH, defender=["D8 mg"], attacker=["A2 rifles"], active=1, pips=6,
                 reserve=([], ["barrage", "balloon"]))
    put(s, one_of(s, EType.BALLOON, 1), "H3", S)
    s.apply_action(DEPLOY + int(EType.BARRAGE))
    s.apply_action(L("D7"))
    s.apply_action(FACE + S)
    assert s.pips == 0
    s.apply_action(END) if s.stage is Stage.MOVES else None
    assert s.stage is Stage.COMBAT_SELECT, s.stage
    return s


def test_a_barrage_suppresses_an_mg_in_its_trench_on_7_against_5_and_destroys_it_on_8_against_3():
    """Brief 7.3 / RULES.md 21 ex. 3: Barrage 6 - 2 (on a trench) + 1 (observed by the Balloon) = 5 against
    the MG's 2 "vs any in base contact". Dice 2 and 3: 7 against 5, beaten: the gun row "Suppressed if in
    Trench" (14.1). Dice 3 and 1: 8 against 3, doubled: destroyed (14.2)."""
    s = barrage_on_the_mg()
    mg = at(s, "D8")
    c = s.clone()
    fix_dice(c, 2, 3)
    c.apply_action(L("D7"))
    assert c.cell[mg] == L("D8") and c.suppressed[mg]
    c = s.clone()
    fix_dice(c, 3, 1)
    c.apply_action(L("D7"))
    assert c.cell[mg] == LOST


def test_a_barrage_on_an_mg_in_its_trench_suppresses_18_in_36_destroys_12_and_is_never_harmed():
    """Brief 7.3: odds 18/36 and 12/36. By hand: difference +3, the Barrage higher 30/36 (section 21's table);
    doubled when 2 (2 + dm) <= 5 + db: 12 pairs; equal 3/36; the MG higher 3/36, and a beaten Barrage has
    no row but the Barrage-against-Barrage one (14.1): no effect. It is never doubled (6 > 8 / 2)."""
    s = barrage_on_the_mg()
    mg, b = at(s, "D8"), at(s, "D7")

    def judge(c):
        assert c.cell[b] == L("D7") and not c.suppressed[b], "the Barrage is never harmed"
        if c.cell[mg] == LOST:
            return "destroyed"
        return "suppressed" if c.suppressed[mg] else "no effect"

    got = fractions(tally(s, ["D7"], judge))
    assert got == {"suppressed": Fraction(18, 36), "destroyed": Fraction(12, 36), "no effect": Fraction(6, 36)}


# ---------------------------------------------------------------- 5. the Bunker
def rifles_and_barrage_at_the_bunker(support: bool) -> TankState:
    s = position(OPEN, attacker=["D11 rifles S"] + (["D10 rifles S"] if support else []), active=1, pips=1,
                 reserve=([], ["barrage"]))  # the Bunker is at D12
    put(s, one_of(s, EType.BARRAGE, 1), "C12", E)
    to_combat(s)
    return s


def test_rifles_aided_by_a_barrage_break_through_the_bunker_on_9_against_7():
    """Brief 7.5 / RULES.md 21 ex. 5: the Rifles are the primary (12.1), +3 against the stronghold; the
    Bunker +6 - 1 (Overwhelmed by the Barrage's aid, 16.4). Dice 6 and 2: 9 against 7, the Bunker beaten
    by ground troops in contact: destroyed, the attacker wins (16.4)."""
    s = rifles_and_barrage_at_the_bunker(False)
    assert s.legal_actions() == [L("D11"), L("D12")], "the Barrage's own fight is dropped (12.1)"
    fix_dice(s, 6, 2)
    s.apply_action(L("D11"))
    assert s.is_terminal() and s.result["reason"] == "breakthrough" and s.winner == 1


def test_rifles_aided_by_a_barrage_against_the_bunker_over_36_dice():
    """RULES.md 21 ex. 5: difference 3 - 5 = -2: the Rifles higher 6/36, equal 4/36, the Bunker higher 26/36
    (section 21's table), of which doubled (2 (3 + dr) <= 5 + dk) 6/36: the Rifles recoil 20/36 ("recoil
    from others", 14.1) and are destroyed 6/36. A supporting Rifles behind (+1, 13.1): -1, 10/36."""
    for support, won, recoil, dead in ((False, 6, 20, 6), (True, 10, None, None)):
        s = rifles_and_barrage_at_the_bunker(support)
        r = at(s, "D11")

        def judge(c):
            if c.is_terminal():
                return c.result["reason"]
            return "destroyed" if c.cell[r] == LOST else "recoil" if c.cell[r] == L("D10") else "equal"

        got = tally(s, ["D11"], judge)
        assert Fraction(got["breakthrough"], 36) == Fraction(won, 36)
        if not support:
            assert fractions(got) == {"breakthrough": Fraction(6, 36), "equal": Fraction(4, 36),
                                      "recoil": Fraction(recoil, 36), "destroyed": Fraction(dead, 36)}


def test_a_barrage_alone_that_beats_the_bunker_does_nothing():
    """Brief 7.5, 16.4 (L133-135): "may not be destroyed by unaided Aerials, Barrage or Gas". Barrage +6
    against the stronghold, Bunker +6: the Barrage higher 15/36 (difference 0), never doubling it; each time
    the Bunker stands and the game goes on; the Bunker's wins leave the Barrage alone (14.1)."""
    s = position(OPEN, defender=["A10 rifles"], attacker=["H2 rifles"], active=1, pips=1, reserve=([], ["barrage"]))
    b = one_of(s, EType.BARRAGE, 1)
    put(s, b, "D11", S)
    to_combat(s)
    assert s.legal_actions() == [L("D11"), L("D12")]
    wins = 0
    for d1, d2 in dice_pairs():
        c = s.clone()
        fix_dice(c, d1, d2)
        c.apply_action(L("D11"))
        assert not c.is_terminal() and c.bunker_alive and c.cell[b] == L("D11")
        wins += d1 + 6 > d2 + 6
    assert Fraction(wins, 36) == Fraction(15, 36)


# ---------------------------------------------------------------- 6. PIPs
BIG = ["................"] * 24


def test_a_far_group_of_two_tanks_and_rifles_costs_3_and_still_3_when_its_general_is_lost():
    """Brief 7.6 says 3, and 4 with the General Lost; RULES.md 7.1 (reading, section 24.2 point 1) lets the
    distance +1 lapse with the General, so the Lost General's +1 replaces it: 1 + 1 (Tanks) + 1 = 3 both
    times, paid from the PIPs by a real group move."""
    for lost in (False, True):
        s = position(BIG, attacker=["A1 general", "B20 tank", "C20 tank", "D20 rifles", "H3 rifles"],
                     active=1, pips=6)  # the H3 Rifles keep the bound open after the move
        if lost:
            s.cell[s.general_of[1]] = LOST
            s._rebuild()
        s.apply_action(L("B20"))
        s.apply_action(GROUP)
        s.apply_action(L("C20"))
        s.apply_action(L("D20"))
        s.apply_action(END)
        assert s.stage is Stage.GROUP_MOVE
        s.apply_action(L("B21"))
        assert s.pips == 6 - 3, lost
        assert [s.cell[at(s, c)] for c in ("B21", "C21", "D21")] == [L("B21"), L("C21"), L("D21")]


def test_rifles_700p_from_their_general_behind_a_wood_pay_2_and_in_sight_1():
    """Brief 7.6 / RULES.md 21 ex. 10: more than 600p away and out of the General's sight: +1 (7.1); the same
    Rifles with the wood cleared pay 1. Paid by a move, not only priced."""
    rows = list(OPEN)
    rows[4] = "WWWWWWWW"
    for ground, cost in ((rows, 2), (OPEN, 1)):
        s = position(ground, attacker=["A1 general", "A9 rifles"], active=1, pips=6)
        move(s, "A9", "A10", S)
        assert s.pips == 6 - cost


def octile(a: int, b: int) -> int:
    dc, dr = abs(a % 16 - b % 16), abs(a // 16 - b // 16)
    return 100 * max(dc, dr) + 50 * min(dc, dr)


def test_the_sturmtruppe_assault_costs_one_more_pip_and_is_offered_only_into_contact():
    """Brief 7.6, 8.7: Sturmtruppe 400p (five cells) in front of Rifles in good going: the 300p move cannot
    reach contact, the assault's 500p can. Its destinations are exactly the cells within 300p (1.5) plus the
    one cell within 500p in front contact with the enemy; a normal move costs 1, the assault 1 + 1; the
    mask is checked by trying every action."""
    s = position(OPEN, defender=["D8 rifles"], attacker=["D3 sturmtruppe"], active=1, pips=6)
    st = at(s, "D3")
    opts = move_options(s, st)
    want = {c for c in s.board.map_cells() if octile(c, L("D3")) <= 300} | {L("D7")}
    assert set(opts) == want
    assert [c for c, o in opts.items() if o.assault] == [L("D7")]
    s.apply_action(L("D3"))
    assert_mask_exact(s, s.legal_actions())
    for dest, cost in (("D6", 1), ("D7", 2)):
        c = s.clone()
        c.apply_action(L(dest))
        c.apply_action(c.legal_actions()[0])
        assert c.pips == 6 - cost and c.cell[st] == L(dest)
