"""RULES.md section 21's worked examples, each played through the engine for all 36 pairs of dice and
counted against the odds printed there (which were enumerated by hand from the seed's tables)."""

from __future__ import annotations

from collections import Counter

from cardwar.envs.tankattack import END, FACE, TankAttackRules
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.fight import LOST
from cardwar.envs.tankattack.state import Stage

from .conftest import at, dice_pairs, fix_dice, position

TRENCH = ["........"] * 7 + [".######."] + ["........"] * 4


def _move(s, frm: str, to: str, face: str) -> None:
    s.apply_action(parse_label(frm))
    s.apply_action(parse_label(to))
    s.apply_action(FACE + "NESW".index(face))


def _to_combat(s) -> None:
    s.apply_action(END)
    assert s.stage is Stage.COMBAT_SELECT, s.stage


def _fight_all(s, cell: str, judge) -> Counter:
    """Resolve the combat chosen by ``cell`` once per pair of dice (the active player's die first)."""
    out = Counter()
    for d1, d2 in dice_pairs():
        c = s.clone()
        fix_dice(c, d1, d2)
        c.apply_action(parse_label(cell))
        out[judge(c)] += 1
    return out


def test_example_1_tank_against_trench_rifles():
    """Tank +4 (no trench penalty) against Rifles +3; the Tank initiated contact, so beaten Rifles die."""
    s = position(TRENCH, defender=["D8 rifles"], attacker=["D5 tank", "D6 rifles", "D3 rifles"], active=1)
    tank, rifles, behind, far = at(s, "D5"), at(s, "D8"), at(s, "D6"), at(s, "D3")
    _move(s, "D5", "D7", "S")  # passes the friendly Rifles facing S (8.9), through the Rifles' ZOC into contact
    assert s.pips == 6 - 2  # 1 + 1 for a Tank (7.1)
    _to_combat(s)

    def judge(c):
        if c.cell[rifles] == LOST:
            return "rifles destroyed"
        if c.cell[tank] == LOST:
            return "tank destroyed"
        if c.cell[tank] == parse_label("D6"):
            assert c.cell[behind] == LOST, "the friendly Rifles in the Tank's recoil path are crushed (15.3)"
            assert c.cell[far] == parse_label("D3"), "two cells behind: unharmed"
            return "tank recoils"
        return "equal"

    assert _fight_all(s, "D7", judge) == Counter({"rifles destroyed": 21, "tank recoils": 10, "equal": 5})
    c = s.clone()
    fix_dice(c, 5, 3)  # 9 against 6
    c.apply_action(parse_label("D7"))
    assert c.cell[rifles] == LOST


def test_example_1_next_bound_rifles_recoil():
    """Still in contact a bound later (nobody initiated): beaten Rifles recoil, back or sideways (16.1)."""
    s = position(TRENCH, defender=["D8 rifles"], attacker=["D7 tank"], active=0)
    rifles = at(s, "D8")
    _to_combat(s)
    outs = Counter()
    for d1, d2 in dice_pairs():  # the defender is active: the Rifles' die first
        c = s.clone()
        fix_dice(c, d2, d1)
        c.apply_action(parse_label("D8"))
        if c.cell[rifles] == LOST:
            outs["destroyed"] += 1
        elif c.stage is Stage.RECOIL_CHOICE:
            assert c.current_player == 0 and set(c.legal_actions()) == {FACE + 1, FACE + 2, FACE + 3}
            outs["recoil"] += 1
    assert outs == Counter({"recoil": 17, "destroyed": 4})


def test_example_1_against_the_general_and_the_tank_option():
    s = position(TRENCH, defender=["D8 general"], attacker=["D5 tank"], active=1)
    gen, tank = at(s, "D8"), at(s, "D5")
    _move(s, "D5", "D7", "S")
    _to_combat(s)

    def judge(c):
        if c.cell[gen] == LOST:
            return "general destroyed"
        if c.cell[tank] == LOST:
            return "tank destroyed"
        return "tank recoils" if c.cell[tank] != parse_label("D7") else "equal"

    assert _fight_all(s, "D7", judge) == Counter({"general destroyed": 15, "tank recoils": 14, "equal": 6,
                                                  "tank destroyed": 1})
    s = position(TRENCH, defender=["D8 rifles"], attacker=["D5 tank"], active=1,
                 rules=TankAttackRules(tank_trench_penalty=True))
    rifles, tank = at(s, "D8"), at(s, "D5")
    _move(s, "D5", "D7", "S")
    _to_combat(s)
    got = _fight_all(s, "D7", lambda c: "rifles" if c.cell[rifles] == LOST else "tank destroyed"
                     if c.cell[tank] == LOST else "recoil" if c.cell[tank] != parse_label("D7") else "equal")
    assert got == Counter({"rifles": 10, "equal": 5, "recoil": 15, "tank destroyed": 6})


def test_example_2_sturmtruppe_assault():
    """A 400p assault (300p + 200p for +1 PIP, 8.7) into Rifles in a trench: +5 against +3."""
    for penalty, expected in ((False, Counter({"rifles": 26, "equal": 4, "recoil": 6})),
                              (True, Counter({"rifles": 15, "equal": 6, "recoil": 13, "sturm destroyed": 2}))):
        s = position(TRENCH, defender=["D8 rifles"], attacker=["D3 sturmtruppe"], active=1,
                     rules=TankAttackRules(sturm_trench_penalty=penalty))
        rifles, st = at(s, "D8"), at(s, "D3")
        s.apply_action(parse_label("D3"))
        assert parse_label("D7") in s.legal_actions() and parse_label("D6") in s.legal_actions()
        s.apply_action(parse_label("D7"))
        assert s.legal_actions() == [FACE + 2], "the assault must end facing the enemy it contacts"
        s.apply_action(FACE + 2)
        assert s.pips == 6 - 2
        _to_combat(s)
        got = _fight_all(s, "D7", lambda c: "rifles" if c.cell[rifles] == LOST else "sturm destroyed"
                         if c.cell[st] == LOST else "recoil" if c.cell[st] != parse_label("D7") else "equal")
        assert got == expected


def test_example_4_mg_shoots_trench_rifles():
    """MG +4 - 2 (ranged fire on a trench) against Rifles +3, two empty cells between (200p)."""
    for occupant, expected in (("good", 10), ("bad", 1)):
        s = position(TRENCH, defender=["D8 rifles"], attacker=["D5 mg"], active=1,
                     rules=TankAttackRules(trench_occupant=occupant))
        rifles, mg = at(s, "D8"), at(s, "D5")
        s.apply_action(END)
        assert s.stage is Stage.SHOOT_SELECT and s.legal_actions() == sorted([parse_label("D5"), parse_label("D8")])
        lost = 0
        for d1, d2 in dice_pairs():
            c = s.clone()
            fix_dice(c, d1, d2)
            c.apply_action(parse_label("D5"))
            c.apply_action(parse_label("D8"))
            assert c.stage is Stage.SHOOT_RETURN and c.current_player == 0
            c.apply_action(END)  # no return fire: the MG cannot suffer
            lost += c.cell[rifles] == LOST
            assert c.cell[mg] == parse_label("D5")
        assert lost == expected
    # with return fire the MG is beaten 15/36 (no effect when shot at) and doubled 6/36 (destroyed)
    s = position(TRENCH, defender=["D8 rifles"], attacker=["D5 mg"], active=1)
    mg = at(s, "D5")
    s.apply_action(END)
    dead = 0
    for d1, d2 in dice_pairs():
        c = s.clone()
        fix_dice(c, d1, d2)
        for a in ("D5", "D8"):
            c.apply_action(parse_label(a))
        from cardwar.envs.tankattack import YES
        c.apply_action(YES)
        dead += c.cell[mg] == LOST
    assert dead == 6


def test_example_4_in_the_open():
    s = position(["........"] * 12, defender=["D8 rifles"], attacker=["D5 mg"], active=1)
    rifles = at(s, "D8")
    s.apply_action(END)
    lost = 0
    for d1, d2 in dice_pairs():
        c = s.clone()
        fix_dice(c, d1, d2)
        c.apply_action(parse_label("D5"))
        c.apply_action(parse_label("D8"))
        c.apply_action(END)
        lost += c.cell[rifles] == LOST
    assert lost == 21


def test_example_7_cavalry_charge_trench():
    """Cavalry +3 - 2 (close attack on a trench) - 2 (mounted near bad going) = -1 against Rifles +4."""
    s = position(TRENCH, defender=["D8 rifles"], attacker=["D5 cavalry"], active=1)
    cav = at(s, "D5")
    _move(s, "D5", "D7", "S")
    _to_combat(s)
    got = _fight_all(s, "D7", lambda c: "cav destroyed" if c.cell[cav] == LOST else "other")
    assert got == Counter({"cav destroyed": 35, "other": 1})


def test_example_8_armoured_car_into_open_rifles():
    s = position(["........"] * 12, defender=["D8 rifles"], attacker=["D5 armoured_car"], active=1)
    ac, rifles = at(s, "D5"), at(s, "D8")
    _move(s, "D5", "D7", "S")
    _to_combat(s)

    def judge(c):
        if c.cell[ac] == LOST:
            return "ac destroyed"
        if c.cell[rifles] == parse_label("D9"):
            assert c.cell[ac] == parse_label("D8"), "the AC is not a pursuer"
            return "rifles recoil"
        return "equal" if c.cell[rifles] == parse_label("D8") else "?"

    judge_fixed = lambda c: judge(c) if c.cell[rifles] != parse_label("D8") or c.cell[ac] == LOST else "equal"  # noqa
    got = _fight_all(s, "D7", lambda c: "ac destroyed" if c.cell[ac] == LOST else
                     "rifles recoil" if c.cell[rifles] == parse_label("D9") else "equal")
    assert got == Counter({"rifles recoil": 10, "equal": 5, "ac destroyed": 21})


def test_rifles_alone_against_the_bunker():
    """Rifles +3 (vs stronghold) against the Bunker +6: a higher total 3/36 (section 21's table, -3);
    beaten by ground troops, the Bunker is destroyed and the attacker wins (16.4)."""
    s = position(["........"] * 12, attacker=["D10 rifles"], active=1)  # Bunker at D12
    _move(s, "D10", "D11", "S")
    _to_combat(s)
    got = _fight_all(s, "D11", lambda c: c.result["reason"] if c.is_terminal() else "on")
    assert got["breakthrough"] == 3
    s2 = position(["........"] * 12, attacker=["D10 rifles", "D9 rifles"], active=1)
    _move(s2, "D10", "D11", "S")
    _move(s2, "D9", "D10", "S")
    _to_combat(s2)
    got = _fight_all(s2, "D11", lambda c: c.result["reason"] if c.is_terminal() else "on")
    assert got["breakthrough"] == 6, "rear support +1 (13.1)"
