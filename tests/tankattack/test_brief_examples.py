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
    DEPLOY, END, FACE, GROUP, RAID, EType, TankAttackRules, TankState,
)
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.fight import LOST, shooting_totals
from cardwar.envs.tankattack.movement import base_cost, move_options
from cardwar.envs.tankattack.state import GONE, Stage

from .conftest import at, dice_pairs, fix_dice, position
from .test_games import assert_mask_exact
from .test_reserves import DEEP_WOOD, TRENCH_MAP, WOOD_MAP, cells_of, far, orth, wire_fight

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
    if s.stage is Stage.MOVES:  # nothing else to move: the bound went on by itself
        s.apply_action(END)
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


# ---------------------------------------------------------------- 7. masks against brute force
def test_a_barrage_goes_on_the_enemy_half_clear_of_enemies_or_touching_a_fixed_position_mask_exact():
    """Brief 7.7, 9.1: an empty cell of the enemy's half at a gap of 200p or more from every enemy, or in
    contact with an enemy in a trench, the Bunker or wire; every one of the 416 actions tried on a clone."""
    s = position(TRENCH_MAP, defender=["C9 rifles", "F11 mg"], attacker=["B2 rifles"], active=1, pips=6,
                 reserve=([], ["barrage"]))
    s.apply_action(DEPLOY + int(EType.BARRAGE))
    assert s.stage is Stage.ENTER_CELL
    enemies = [s.cell[e] for e in range(len(s.cell)) if s.side[e] == 0 and s.cell[e] >= 0]
    fixed = {L("C9"), s.board.bunker} | cells_of(TRENCH_MAP, "w")
    want = {c for c in s.board.map_cells() if s.grid[c] < 0 and c != s.board.bunker
            and (set(orth(c)) & fixed or (c // 16 >= 6 and all(far(c, y) for y in enemies)))}
    legal = s.legal_actions()
    assert set(legal) == want
    assert_mask_exact(s, legal)
    s.apply_action(L("C10"))
    assert_mask_exact(s, s.legal_actions())
    assert s.legal_actions() == [FACE + N]


def test_fighters_go_on_their_own_baseline_at_a_gap_of_200p_from_enemies_mask_exact():
    """Brief 7.7, 9.5: "anywhere in contact with the player's own baseline at a min of 200p distance from an
    enemy element": the attacker's row 1, empty, gap >= 200p (the General holds H1)."""
    s = position(OPEN, defender=["D3 rifles"], active=1, pips=6, reserve=([], ["fighter"]))
    s.apply_action(DEPLOY + int(EType.FIGHTER))
    want = [c for c in range(8) if s.grid[c] < 0 and far(c, L("D3"))]
    assert want == [L("A1"), L("G1")]
    assert s.legal_actions() == want
    assert_mask_exact(s, want)


def test_snipers_go_in_bad_going_only_mask_exact():
    """Brief 7.7, 9.6: "only in Bad Going": every empty wood or crater cell, nothing else."""
    s = position(WOOD_MAP, defender=["B11 rifles"], attacker=["B3 rifles"], active=0, pips=1,
                 reserve=(["sniper"], []))
    s.apply_action(DEPLOY + int(EType.SNIPER))
    want = sorted(c for c in cells_of(WOOD_MAP, "Wx") if s.grid[c] < 0)
    assert L("B3") not in want and s.legal_actions() == want
    assert_mask_exact(s, want)


def test_an_element_in_an_enemy_zoc_moves_only_straight_forward_into_contact_or_straight_back_mask_exact():
    """Brief 7.7, 8.5: Rifles two cells in front of an enemy: forward into front contact, facing it, or back
    along the line they came (300p: three cells); no turning in place, nothing sideways."""
    s = position(OPEN, defender=["D8 rifles"], attacker=["D6 rifles"], active=1)
    s.apply_action(L("D6"))
    legal = s.legal_actions()
    assert set(legal) == {L("D7"), L("D5"), L("D4"), L("D3")}
    assert_mask_exact(s, legal)
    s.apply_action(L("D7"))
    assert s.legal_actions() == [FACE + S]
    assert_mask_exact(s, s.legal_actions())


def test_a_trench_move_covers_two_cells_along_it_or_one_step_out_mask_exact():
    """Brief 7.7, 16.1: an occupant moves along its trench up to two sections (cells), or steps out front or
    back with its rear to the trench, or turns in place."""
    s = position(TRENCH, defender=["D8 rifles"], active=0)
    s.apply_action(L("D8"))
    legal = s.legal_actions()
    along = {L("B8"), L("C8"), L("E8"), L("F8")}
    assert along <= set(legal) and not {L("A8"), L("G8"), L("H8")} & set(legal), "two cells, no further"
    assert set(legal) - along - {L("D7"), L("D9")} <= {L("D8")} | set(range(FACE, FACE + 4))
    assert_mask_exact(s, legal)


# ---------------------------------------------------------------- 8. wire
def test_sturmtruppe_cut_the_wire_they_reach_at_the_end_of_that_bound_and_walk_through_next_bound():
    """Brief 7.8, 16.2 (reading of L121-123): stopped facing the wire, the cell is still wired for the rest of
    the bound and destroyed at its end; next bound the Sturmtruppe move through the gap as open ground,
    while the wire beside it stands."""
    rows = list(OPEN)
    rows[5] = "wwwwwwww"
    s = position(rows, defender=["G12 rifles"], attacker=["B4 sturmtruppe"], active=1, turn_limit=5)
    st = at(s, "B4")
    move(s, "B4", "B5", S)
    assert L("B6") in s.wire
    if s.stage is Stage.MOVES:
        s.apply_action(END)
    assert L("B6") not in s.wire and L("A6") in s.wire and L("C6") in s.wire
    while s.active != 1:
        s.apply_action(END)
    opts = move_options(s, st)
    assert opts[L("B7")].kind == "move" and L("B8") in opts, "through the gap at the Sturmtruppe's 300p"


def test_a_barrage_destroys_wire_on_8_against_7():
    """Brief 7.8 / RULES.md 21 ex. 6: dice 2 and 4, Barrage 6 + 2 = 8 against the wire's 3 + 4 = 7."""
    s = wire_fight(2, 4, balloon=False)
    assert L("C7") not in s.wire


# ---------------------------------------------------------------- 9. gas
def test_gas_blocks_sight_for_shooting_and_for_command():
    """Brief 7.9, 9.4 "It blocks lines of sight (1.6) and command sight (7.1)": an MG cannot see Rifles
    behind the cloud, and Rifles 700p from their General behind it pay the +1."""
    for gas, sees_it, cost in ((False, True, 1), (True, False, 2)):
        s = position(OPEN, defender=["D8 rifles"], attacker=["A1 general", "D4 mg", "A9 rifles"], active=1,
                     reserve=([], ["gas"]))
        if gas:
            put(s, one_of(s, EType.GAS, 1), "D6", E)
        assert s.legal_target(at(s, "D4"), at(s, "D8")) is sees_it
        s2 = position(OPEN, attacker=["A1 general", "A9 rifles"], active=1, reserve=([], ["gas"]))
        if gas:
            put(s2, one_of(s2, EType.GAS, 1), "A5", E)
        assert base_cost(s2, at(s2, "A9")) == cost


def test_trench_rifles_fight_gas_at_3_less_1_against_2_over_36_dice():
    """Brief 7.9 / RULES.md 21 ex. 9: Gas +2 against Rifles +3 - 1 (Gas on a trench, 13.1): difference 0.
    By hand: each side higher 15/36 (section 21's table), doubled (2 (2 + d) <= 2 + d') 4/36 of them,
    equal 6/36. The Rifles beaten recoil 11/36 (back or sideways, 16.1: a choice), doubled destroyed 4/36;
    the Gas beaten is unharmed 11/36, doubled dispersed (destroyed, 14.2) 4/36."""
    s = position(TRENCH, defender=["D8 rifles", "G8 rifles"], attacker=["G7 rifles S"], active=1, pips=1,
                 reserve=([], ["gas"]))  # the second fight keeps the bound (and its log) open after the first
    s.apply_action(DEPLOY + int(EType.GAS))
    s.apply_action(L("D7"))
    fix_dice(s, 3)  # the duration die
    s.apply_action(FACE + S)
    if s.stage is Stage.MOVES:
        s.apply_action(END)
    assert s.stage is Stage.COMBAT_SELECT
    r, g = at(s, "D8"), at(s, "D7")

    def judge(c):
        if c.cell[r] == LOST:
            return "rifles destroyed"
        if c.stage is Stage.RECOIL_CHOICE:
            assert c.pending["element"] == r and len(c.pending["dirs"]) == 3
            return "rifles recoil"
        if c.cell[g] == LOST:
            return "gas dispersed"
        return "gas unharmed" if "Gas: beaten" in c.events[-1] else "equal"

    got = fractions(tally(s, ["D7"], judge))
    assert got == {"rifles recoil": Fraction(11, 36), "rifles destroyed": Fraction(4, 36), "equal": Fraction(6, 36),
                   "gas unharmed": Fraction(11, 36), "gas dispersed": Fraction(4, 36)}


# ---------------------------------------------------------------- 10. shooting
def test_three_mgs_on_one_target_put_it_at_minus_2():
    """Brief 7.10 / RULES.md 21 ex. 11, 11.3: a primary and two aids; the target takes -1 per aid. Rifles in
    the open: 3 - 2 = 1 against the MG's 4: the MG higher 30/36 (difference +3), and beaten or doubled by
    MG shooting in good going the Rifles are destroyed (14.1): 30/36, against 21/36 for one MG."""
    s = position(OPEN, defender=["D8 rifles"], attacker=["C5 mg", "D5 mg", "E5 mg"], active=1)
    rifles, mg = at(s, "D8"), at(s, "D5")
    assert shooting_totals(s, mg, rifles, 2, False) == (4, 3 - 2)
    s.apply_action(END)
    assert s.stage is Stage.SHOOT_SELECT
    got = tally(s, ["D5", "D8", "C5", "E5", END], lambda c: c.cell[rifles] == LOST)
    assert Fraction(got[True], 36) == Fraction(30, 36)


def test_a_light_mortar_shoots_over_a_wood_and_through_troops_where_an_mg_cannot():
    """Brief 7.10, 11.2: Mortars need no line of sight; an MG is blinded by the wood (1.6) and by troops."""
    woods = list(OPEN)
    woods[5] = "WWWWWWWW"
    troops = ["D6 rifles"]
    for rows, between in ((woods, []), (OPEN, troops)):
        for kind, sees_it in (("light_mortar", True), ("mg", False)):
            s = position(rows, defender=["D8 rifles"], attacker=[f"D4 {kind}"] + between, active=1)
            assert s.legal_target(at(s, "D4"), at(s, "D8")) is sees_it, (kind, between)


def test_artillery_that_moved_is_silent_while_rifles_move_and_fire():
    """Brief 7.10, 11.1: Field Artillery shoots only if it has not moved this bound; Rifles that moved
    shoot."""
    def shooters(move_gun: bool) -> list[int]:
        s = position(OPEN, defender=["B10 rifles", "F8 rifles"], attacker=["B3 field_artillery", "F3 rifles"],
                     active=1)
        if move_gun:
            move(s, "B3", "B4", S)
        move(s, "F3", "F4", S)
        s.apply_action(END)
        assert s.stage is Stage.SHOOT_SELECT
        return s.legal_actions()

    assert L("F4") in shooters(True) and L("B4") not in shooters(True)
    assert L("B3") in shooters(False), "the same gun, unmoved, shoots"


def test_a_sniper_shoots_out_of_its_wood_at_400p_and_its_losses_do_nothing():
    """Brief 7.10 / RULES.md 21 ex. 11: a Sniper deep in a wood (9.6) shoots Rifles in the open 400p away
    (four empty cells): +2 against +3, difference -1: the Sniper higher 10/36, of which the Rifles are
    doubled (2 (3 + dr) <= 2 + ds) 1/36, destroyed; beaten 9/36 they recoil (14.1). The Rifles (300p) cannot
    answer, so the Sniper's 21/36 losses do nothing (11.3)."""
    s = position(DEEP_WOOD, defender=["C9 rifles"], attacker=["H2 rifles"], active=1, pips=1,
                 reserve=([], ["sniper"]))
    s.apply_action(DEPLOY + int(EType.SNIPER))
    s.apply_action(L("C4"))
    s.apply_action(FACE + S)
    if s.stage is Stage.MOVES:
        s.apply_action(END)
    assert s.stage is Stage.SHOOT_SELECT and L("C4") in s.legal_actions()
    sn, r = at(s, "C4"), at(s, "C9")

    def judge(c):
        assert c.cell[sn] == L("C4"), "never harmed"
        return "destroyed" if c.cell[r] == LOST else "recoil" if c.cell[r] == L("C10") else "nothing"

    got = fractions(tally(s, ["C4", "C9"], judge))
    assert got == {"recoil": Fraction(9, 36), "destroyed": Fraction(1, 36), "nothing": Fraction(26, 36)}


# ---------------------------------------------------------------- 11. after combat
def rifles_fight(defender: list[str], attacker: list[str], rows=OPEN) -> TankState:
    s = position(rows, defender=defender, attacker=attacker, active=1)
    to_combat(s)
    return s


def who_lost(c: TankState, r: int, p: int, r_home: str = "D8", p_home: str = "D7") -> str:
    """The defender's Rifles ``r`` against the attacker's primary ``p``: which one the fight moved or
    destroyed (the winner may then have pursued)."""
    if c.cell[r] == LOST:
        return "defender destroyed"
    if c.cell[p] == LOST or c.cell[p] not in (L(p_home), L(r_home)):
        return "attacker lost"
    if c.cell[r] != L(r_home):
        return "defender recoiled"
    return "equal"


def test_rifles_recoiling_into_a_friendly_tank_are_destroyed():
    """Brief 7.11 / RULES.md 21 ex. 12, 15.1-15.2: "Tanks can only be Pushed Back by Tanks". Rifles 3 against
    Rifles 3, difference 0: the defending Rifles lower 15/36, doubled (2 (3 + d) <= 3 + d') 2/36 of them;
    beaten they recoil into the Tank and are destroyed too: 15/36; with the cell behind them empty they
    recoil 13/36 and are destroyed 2/36."""
    for behind, dead, recoiled in ((["D9 tank"], 15, 0), ([], 2, 13)):
        s = rifles_fight(["D8 rifles"] + behind, ["D7 rifles S"])
        r, p = at(s, "D8"), at(s, "D7")
        got = tally(s, ["D8"], lambda c: who_lost(c, r, p))
        assert Fraction(got["defender destroyed"], 36) == Fraction(dead, 36), behind
        assert Fraction(got["defender recoiled"], 36) == Fraction(recoiled, 36), behind


def test_rifles_recoiling_with_an_enemy_front_on_their_flank_are_destroyed():
    """Brief 7.11, 15.1 step 1: an enemy front edge on the flank destroys a recoiler; it also Outflanks the
    Rifles (-1, 12.2): 2 against 3, difference -1: the defender lower 21/36 and every loss destroys it;
    higher 10/36 (the attacker's Rifles recoil or die); equal 5/36."""
    s = rifles_fight(["D8 rifles"], ["D7 rifles S", "E8 rifles W"])
    r, p = at(s, "D8"), at(s, "D7")
    got = fractions(tally(s, ["D8"], lambda c: who_lost(c, r, p)))
    assert got == {"defender destroyed": Fraction(21, 36), "attacker lost": Fraction(10, 36),
                   "equal": Fraction(5, 36)}


def test_the_primary_pursues_one_cell_and_the_overlap_does_not():
    """Brief 7.11, 15.5: the winner that fought as primary moves one cell straight ahead into the space;
    an element that fought only as an overlap stays. The overlap costs the defender -1 (12.2): 2 against 3,
    difference -1: it recoils or dies 21/36, and each time the pursuer goes exactly one cell; it wins 10/36
    and then pursues one cell itself."""
    s = rifles_fight(["D8 rifles"], ["D7 rifles S", "C7 rifles S"])
    r, p, o = at(s, "D8"), at(s, "D7"), at(s, "C7")

    def judge(c):
        assert c.cell[o] == L("C7"), "no pursuit from an overlap"
        out = who_lost(c, r, p)
        if out.startswith("defender"):
            assert c.cell[p] == L("D8"), "one cell, even after a destroyed enemy"
        elif out == "attacker lost":
            assert c.cell[r] == L("D7")
        return out

    got = fractions(tally(s, ["D8"], judge))
    assert got["defender destroyed"] + got["defender recoiled"] == Fraction(21, 36)
    assert got["attacker lost"] == Fraction(10, 36)


def test_no_pursuit_into_a_river():
    """Brief 7.11, 15.5: "any part of its base would enter a River". Rifles standing in a river cell against
    Rifles on the bank (+1 for fighting an enemy in a river, 13.1): 3 against 4, difference -1, they lose
    21/36 (17 recoil, 4 doubled), and the winner stays on the bank every time; on open ground (difference 0,
    15/36) it follows."""
    river = list(OPEN)
    river[7] = "...~...."
    for rows, follows, losses in ((river, False, 21), (OPEN, True, 15)):
        s = rifles_fight(["D8 rifles"], ["D7 rifles S"], rows)
        r, p = at(s, "D8"), at(s, "D7")
        lost = 0
        for d1, d2 in dice_pairs():
            c = s.clone()
            fix_dice(c, d1, d2)
            c.apply_action(L("D8"))
            if who_lost(c, r, p).startswith("defender"):
                lost += 1
                assert (c.cell[p] == L("D8")) is follows, (rows[7], d1, d2)
        assert Fraction(lost, 36) == Fraction(losses, 36)


# ---------------------------------------------------------------- 12. end of game
def test_half_the_army_lost_ends_the_game_at_the_end_of_the_bound_raiders_and_spent_gas_not_counted():
    """Brief 7.12 / RULES.md 21 ex. 13, 17.1-17.2: 36 AP a side, 18 Lost breaks it, tested at the end of the
    bound. The defender's Barrage destroyed by a Bomber raid counts (4 AP: 14 + 4 = 18, broken); the
    attacker's raiding Bomber (3 AP) and its spent Gas (1 AP) do not (16 Lost, not 20): the attacker wins."""
    defender = ["A12 general"] + [f"{c}11 rifles" for c in "ABCDEFGH"] + ["A10 rifles", "B10 tank", "C10 tank",
                                                                        "E10 tank"]
    attacker = ["H1 general"] + [f"{c}1 tank" for c in "ABCDEF"] + ["A2 rifles", "B2 rifles", "C2 rifles"]
    s = position(OPEN, defender=defender, attacker=attacker, active=1, pips=6,
                 reserve=(["barrage"], ["bomber", "gas"]))
    assert s.army_ap(0) == s.army_ap(1) == 36
    for cell in ("A11", "B11", "C11", "D11", "E11", "F11", "G11"):
        s._destroy(at(s, cell))  # 14 AP
    for cell in ("A1", "B1", "C1", "D1"):
        s._destroy(at(s, cell))  # 16 AP
    bomber, barrage, gas = one_of(s, EType.BOMBER, 1), one_of(s, EType.BARRAGE, 0), one_of(s, EType.GAS, 1)
    put(s, barrage, "E4", N)
    put(s, bomber, "G8", S)
    put(s, gas, "H5", W)
    s.timer[gas] = 1  # its last bound
    s.apply_action(L("G8"))
    s.apply_action(RAID)
    s.apply_action(L("E4"))
    assert s.cell[barrage] == LOST and s.cell[bomber] == GONE
    assert (s.lost_ap(0), s.lost_ap(1)) == (18, 16) and not s.is_terminal(), "only at the end of the bound"
    while not s.is_terminal():
        s.apply_action(END)
    assert s.cell[gas] == GONE and s.lost_ap(1) == 16
    assert s.result["reason"] == "break point" and s.winner == 1 and s.bound == 2


def test_at_the_turn_limit_the_defender_wins():
    """Brief 7.12, 17.3: the game ends after the attacker's last bound (``turn_limit`` bounds a side) and the
    attack has failed; ``turn_limit_result="draw"`` makes it a draw."""
    for option, winner in (("defender", 0), ("draw", None)):
        s = position(OPEN, defender=["D10 rifles"], attacker=["D2 rifles"], active=0, turn_limit=2,
                     rules=TankAttackRules(turn_limit_result=option))
        bounds = []
        while not s.is_terminal():
            bounds.append(s.bound)
            s.apply_action(END)
        assert bounds == [1, 2, 3, 4]
        assert s.result["reason"] == "turn limit" and s.winner == winner
        assert s.returns() == ([1.0, -1.0] if winner == 0 else [0.0, 0.0])
