"""Elements that enter during play (RULES.md 9) and the PIP spends that are not moves (7.2, 9.2-9.3, 16.3):
each rule against the rulebook's words, places checked against an independent count of cells, the Gas
duration die over all six faces, a Minefield's fight over all 36 dice pairs, and whole games with reserves
in play (masks exact against trying every action, JSON round trip)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from cardwar.envs.tankattack import (
    COUNTER, DEPLOY, DISMOUNT, END, FACE, GROUP, MOUNT, RAID, RALLY, STATS, SUPPRESS, EType, TankAttackRules,
    TankState, scenario_from_dict, state_from_json, state_to_json,
)
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.fight import LOST
from cardwar.envs.tankattack.state import GONE, RESERVE, Stage

from .conftest import at, dice_pairs, fix_dice, position
from .test_games import _invariants, assert_mask_exact

L = parse_label
OPEN = ["........"] * 12
N, E, S, W = 0, 1, 2, 3


def enter(t: EType) -> int:
    return DEPLOY + int(t)


def reserve_of(s: TankState, side: int, t: EType) -> list[int]:
    return [e for e in range(len(s.cell)) if s.side[e] == side and s.etype[e] is t]


def put(s: TankState, e: int, cell: str, facing: int) -> None:
    """Hand-place a reserve element (a position built for one rule)."""
    s._place(e, L(cell))
    s.facing[e] = facing
    s._memo = None


def cells_of(rows: list[str], chars: str) -> set[int]:
    return {r * 16 + c for r, row in enumerate(rows) for c, ch in enumerate(row) if ch in chars}


def far(a: int, b: int) -> bool:
    """At least 200p between the two bases: two empty cells between them in some row or column (1.4)."""
    return max(abs(a % 16 - b % 16), abs(a // 16 - b // 16)) >= 3


def orth(a: int) -> dict[int, int]:
    """The orthogonal neighbours of ``a`` on an 8 x 12 map, by the facing that points at them."""
    c, r = a % 16, a // 16
    out = {}
    for f, (dc, dr) in enumerate(((0, -1), (1, 0), (0, 1), (-1, 0))):
        if 0 <= c + dc < 8 and 0 <= r + dr < 12:
            out[(r + dr) * 16 + c + dc] = f
    return out


def end_bounds(s: TankState, until_bound: int) -> None:
    """Close step 2 of each bound (nothing else happens in these positions) until ``until_bound`` begins."""
    while s.bound < until_bound and not s.is_terminal():
        assert s.stage is Stage.MOVES, s.stage
        s.apply_action(END)


# ---------------------------------------------------------------- 9.1 Barrages
TRENCH_MAP = ["........", "........", "........", "........", "........", "........",
              ".www....", "........", ".######.", "........", "........", "........"]


def test_barrage_costs_six_pips_and_goes_where_9_1_says():
    """9.1: 6 PIPs; "anywhere on the opponent's side ... no closer than 200p to an enemy element", or in
    contact with an enemy in a trench, the Bunker, or a fixed position (wire); facing what it touches."""
    s = position(TRENCH_MAP, defender=["C9 rifles", "F11 mg"], attacker=["B2 rifles"], active=1, pips=5,
                 reserve=([], ["barrage"]))
    assert enter(EType.BARRAGE) not in s.legal_actions(), "5 PIPs are not enough"
    s.pips = 6
    s._memo = None
    s.apply_action(enter(EType.BARRAGE))
    assert s.stage is Stage.ENTER_CELL and s.pips == 0
    enemies = [s.cell[e] for e in range(len(s.cell)) if s.side[e] == 0 and s.cell[e] >= 0]
    wire = cells_of(TRENCH_MAP, "w")
    fixed = {L("C9")} | wire | {s.board.bunker}
    expected: dict[int, set[int]] = {}
    for c in s.board.map_cells():
        if s.grid[c] >= 0 or c == s.board.bunker:
            continue
        touch = {f for n, f in orth(c).items() if n in fixed}
        if touch:
            expected[c] = touch
        elif c // 16 >= 6 and all(far(c, y) for y in enemies):
            expected[c] = {N, E, S, W}
    assert s.legal_actions() == sorted(expected)
    assert expected[L("C8")] == {N, S} and expected[L("D11")] == {S}  # wire and trench; the Bunker
    assert L("E5") not in expected and L("E11") not in expected  # the attacker's half; beside the MG
    for c in expected:
        t = s.clone()
        t.apply_action(c)
        assert {a - FACE for a in t.legal_actions()} == expected[c]
    s.apply_action(L("C10"))
    assert s.legal_actions() == [FACE + N]  # faces the Rifles in the trench above it
    s.apply_action(FACE + N)
    b = reserve_of(s, 1, EType.BARRAGE)[0]
    assert s.cell[b] == L("C10") and s.moved[b], "entering is its move this bound"


def test_counter_battery_lifts_an_enemy_barrage_to_its_reserve():
    """9.2: "the opponent may spend 6 PIPs to force the Barrage element off the battlefield"; it goes back to
    its owner's reserve (reading), or is gone for good under ``lifted_barrage="gone"``; never Lost."""
    for option, where in (("reserve", RESERVE), ("gone", GONE)):
        s = position(OPEN, defender=["C11 rifles"], attacker=["B2 rifles"], active=0, pips=5,
                     reserve=([], ["barrage"]), rules=TankAttackRules(lifted_barrage=option))
        b = reserve_of(s, 1, EType.BARRAGE)[0]
        put(s, b, "C10", S)
        assert COUNTER not in s.legal_actions()
        s.pips = 6
        s._memo = None
        assert COUNTER in s.legal_actions()
        s.apply_action(COUNTER)
        assert s.legal_actions() == [L("C10")] and s.pips == 0
        s.apply_action(L("C10"))
        assert s.cell[b] == where and s.lost_ap(1) == 0


# ---------------------------------------------------------------- 9.3 Bombers and the raid
def test_bomber_enters_for_one_pip_on_its_own_edge():
    """9.3: 1 PIP (option 6), an empty cell of its own edge row at least 200p from every enemy."""
    s = position(OPEN, defender=["D3 rifles"], attacker=[], active=1, pips=1, reserve=([], ["bomber"]))
    s.apply_action(enter(EType.BOMBER))
    assert s.pips == 0
    assert s.legal_actions() == [c for c in range(7) if far(c, L("D3"))]  # row 1, H1 holds the General
    s = position(OPEN, attacker=[], active=1, pips=5, reserve=([], ["bomber"]),
                 rules=TankAttackRules(bomber_deploy_pips=6))
    assert enter(EType.BOMBER) not in s.legal_actions()


def test_the_raid_destroys_an_enemy_barrage_and_the_bomber_leaves():
    """9.3: "A Barrage element may also be removed if the other side flies a Bomber element off the enemy's
    side of the board"; the Barrage is Lost, the Bomber is not Lost and does not return."""
    s = position(OPEN, defender=["A11 rifles"], attacker=["G2 rifles"], active=1, pips=6,
                 reserve=(["barrage"], ["bomber"]))
    bomber, barrage = reserve_of(s, 1, EType.BOMBER)[0], reserve_of(s, 0, EType.BARRAGE)[0]
    put(s, barrage, "D3", N)
    put(s, bomber, "E8", S)  # 400p from the defender's edge row: within its 500p
    s.apply_action(L("E8"))
    assert RAID in s.legal_actions()
    s.apply_action(RAID)
    assert s.pips == 6 - 2, "a tactical move of an Aerial: 1 + 1"
    assert s.legal_actions() == [L("D3")]
    s.apply_action(L("D3"))
    assert s.cell[barrage] == LOST and s.cell[bomber] == GONE
    assert s.lost_ap(1) == 0 and s.lost_ap(0) == STATS[EType.BARRAGE].ap
    # a Bomber that cannot reach the edge, or no enemy Barrage: no raid
    s = position(OPEN, defender=["A11 rifles"], attacker=["G2 rifles"], active=1, pips=6,
                 reserve=(["barrage"], ["bomber"]))
    put(s, reserve_of(s, 1, EType.BOMBER)[0], "E2", S)
    put(s, reserve_of(s, 0, EType.BARRAGE)[0], "D5", N)
    s.apply_action(L("E2"))
    assert RAID not in s.legal_actions()


# ---------------------------------------------------------------- 9.4 Gas
@pytest.mark.parametrize("roll", range(1, 7))
def test_gas_lasts_its_die_roll_of_the_deployers_bounds(roll):
    """9.4: "rolls a die. This is how many turns the Gas element will remain ... The turn the Gas element is
    deployed does not count." Each face of the die is played out, so the duration is uniform on 1-6
    (mean 7/2) exactly as the die."""
    s = position(OPEN, defender=["B11 rifles"], attacker=["B2 rifles"], active=0, pips=6, turn_limit=20,
                 reserve=(["gas"], []))
    s.apply_action(enter(EType.GAS))
    assert s.pips == 5
    s.apply_action(L("E5"))
    fix_dice(s, roll)
    s.apply_action(FACE + S)
    g = reserve_of(s, 0, EType.GAS)[0]
    own_bounds_with_gas = 0
    while s.cell[g] >= 0:
        end_bounds(s, s.bound + 1)
        if s.active == 0 and s.cell[g] >= 0:
            own_bounds_with_gas += 1
    assert own_bounds_with_gas == roll
    assert s.cell[g] == GONE and s.lost_ap(0) == 0, "removed from play, not Lost"
    assert s.bound == 2 + 2 * roll, "removed at the end of the defender's last Gas bound"


def test_either_player_moves_gas_for_one_pip():
    """9.4: "either player may use 1 PIP to move it in their own bound"; no command-distance or other +1."""
    s = position(OPEN, defender=["B11 rifles"], attacker=["B2 rifles"], active=0, pips=6,
                 reserve=(["gas"], []))
    s.apply_action(enter(EType.GAS))
    s.apply_action(L("E5"))
    fix_dice(s, 6)
    s.apply_action(FACE + S)
    assert L("E5") not in s.legal_actions(), "entering was its move this bound"
    end_bounds(s, 2)
    s.pips = 6
    s._memo = None
    assert L("E5") in s.legal_actions(), "the attacker may move the defender's Gas"
    s.apply_action(L("E5"))
    dest = s.legal_actions()[0]
    s.apply_action(dest)
    s.apply_action(s.legal_actions()[0])
    assert s.pips == 5


# ---------------------------------------------------------------- 9.5 Fighters and Balloons
def test_the_fighter_call_brings_every_fighter_scout_and_ace_for_six_pips():
    """9.5: "when 6 PIPs are paid ... all Fighters may be deployed at once anywhere in contact with the
    player's own baseline at a min of 200p distance from an enemy element"; Scouts and Aces come too; one that
    finds no place stays in reserve."""
    s = position(OPEN, defender=["D3 rifles"], attacker=[], active=1, pips=6,
                 reserve=([], ["fighter", "scout", "air_ace", "fighter"]))
    legal = s.legal_actions()
    assert enter(EType.FIGHTER) in legal and enter(EType.SCOUT) not in legal and enter(EType.AIR_ACE) not in legal
    s.apply_action(enter(EType.FIGHTER))
    assert s.pips == 0
    free = [c for c in range(7) if far(c, L("D3"))]
    assert free == [L("A1"), L("G1")]
    placed = []
    while s.stage is Stage.ENTER_CELL:
        c = s.legal_actions()[0]
        s.apply_action(c)
        s.apply_action(s.legal_actions()[0])
        placed.append(c)
    assert placed == free
    air = [e for e in range(len(s.cell)) if s.side[e] == 1 and s.etype[e] in (EType.FIGHTER, EType.SCOUT,
                                                                               EType.AIR_ACE)]
    assert sorted(s.cell[e] for e in air if s.cell[e] >= 0) == free
    assert sum(s.cell[e] == RESERVE for e in air) == 2
    s = position(OPEN, defender=["D3 rifles"], attacker=[], active=1, pips=5, reserve=([], ["fighter"]))
    assert enter(EType.FIGHTER) not in s.legal_actions()


def test_a_balloon_enters_behind_its_own_lines():
    """9.5: 1 PIP, an empty cell within 600p of its own edge (rows 1-6 for the attacker), 200p from enemies."""
    s = position(OPEN, defender=["C5 rifles"], attacker=[], active=1, pips=1, reserve=([], ["balloon"]))
    s.apply_action(enter(EType.BALLOON))
    expected = [c for c in s.board.map_cells() if c // 16 < 6 and s.grid[c] < 0 and far(c, L("C5"))]
    assert s.legal_actions() == expected


# ---------------------------------------------------------------- 9.6 Snipers
WOOD_MAP = ["........", "........", ".WWW....", ".WW.....", "........", "........",
            "........", "........", "........", "....xx..", "........", "........"]


def test_a_sniper_enters_any_bad_going_and_stays_in_its_feature():
    """9.6: "deployed at any time on-table but only in Bad Going & cannot make a Tactical move in the same
    bound"; "cannot voluntarily completely leave that feature"; out of it, it may only move back."""
    s = position(WOOD_MAP, defender=["B11 rifles"], attacker=["H5 rifles"], active=0, pips=4,
                 reserve=(["sniper"], []))
    s.apply_action(enter(EType.SNIPER))
    assert s.legal_actions() == sorted(cells_of(WOOD_MAP, "Wx"))
    s.apply_action(L("C3"))
    s.apply_action(FACE + S)
    sn = reserve_of(s, 0, EType.SNIPER)[0]
    assert L("C3") not in s.legal_actions()
    wood = cells_of(WOOD_MAP, "W")
    s.moved[sn] = False
    s._memo = None
    s.apply_action(L("C3"))
    assert set(s.legal_actions()) <= wood and s.legal_actions()
    # pushed out of the wood (as by a recoil), its only moves go back into it
    t = s.clone()
    t.stage, t.pending = Stage.MOVES, {}
    t._place(sn, L("D4"))
    t._memo = None
    t.apply_action(L("D4"))
    assert t.legal_actions() and set(t.legal_actions()) <= wood


# ---------------------------------------------------------------- 9.7 Minefields
def test_a_minefield_enters_at_the_wire_touching_an_enemy():
    """9.7: "in front of, in or behind Barbed Wire" or bad going, and as a HotT Lurker in contact with an
    enemy element: its front against the enemy."""
    s = position(TRENCH_MAP, defender=["D11 rifles"], attacker=["D6 rifles"], active=0, pips=1,
                 reserve=(["minefield"], []))
    s.apply_action(enter(EType.MINEFIELD))
    wire = cells_of(TRENCH_MAP, "w")
    near_wire = {c for c in s.board.map_cells()
                 if any(max(abs(c % 16 - w % 16), abs(c // 16 - w // 16)) <= 1 for w in wire)}
    foe = L("D6")
    expected = sorted(c for c, f in orth(foe).items() if c in near_wire and s.grid[c] < 0)
    assert expected == [L("C6"), L("E6"), L("D7")]
    assert s.legal_actions() == expected
    s.apply_action(L("D7"))
    assert s.legal_actions() == [FACE + N]


def minefield_fight(dm: int, dr: int) -> tuple[int, TankState]:
    s = position(TRENCH_MAP, defender=["H11 rifles"], attacker=["D6 rifles S"], active=0, pips=1,
                 reserve=(["minefield"], []))
    s.apply_action(enter(EType.MINEFIELD))
    s.apply_action(L("D7"))
    s.apply_action(FACE + N)
    m = reserve_of(s, 0, EType.MINEFIELD)[0]
    assert s.stage is Stage.COMBAT_SELECT, s.stage
    fix_dice(s, dm, dr)  # the active player's element (the Minefield) rolls first
    s.apply_action(L("D7"))
    return m, s


def test_a_minefield_fights_at_once_and_a_beaten_one_returns_over_36_dice():
    """9.7 and 14: Minefield 2 against Rifles 3 (foot). Beaten: "Flee off the battlefield (may return as in
    HotT)", to its reserve, not Lost; doubled: destroyed (Lost). Counted over the 36 dice pairs."""
    back = lost = 0
    for dm, dr in dice_pairs():
        m, s = minefield_fight(dm, dr)
        a, b = 2 + dm, 3 + dr
        if a < b and 2 * a > b:
            assert s.cell[m] == RESERVE and s.lost_ap(0) == 0, (dm, dr)
            back += 1
        elif 2 * a <= b:
            assert s.cell[m] == LOST, (dm, dr)
            lost += 1
        else:
            assert s.cell[m] == L("D7"), (dm, dr)
    # by hand: totals 3..8 against 4..9; beaten 2+3+4+3+2+1 pairs, doubled 4+2
    assert (Fraction(back, 36), Fraction(lost, 36)) == (Fraction(15, 36), Fraction(6, 36))


# ---------------------------------------------------------------- 16.3 Suppression
def test_one_pip_lifts_suppression_and_the_gun_may_shoot():
    """16.3: "Suppressed & need 1 PIP to return to fire"; paying is not a move."""
    s = position(TRENCH_MAP, defender=["C9 mg"], attacker=["C6 rifles"], active=0, pips=1)
    mg = at(s, "C9")
    s.suppressed[mg] = True
    s._memo = None
    assert RALLY in s.legal_actions() and not s._may_shoot(mg)
    s.apply_action(RALLY)
    assert s.legal_actions() == [L("C9")]
    s.apply_action(L("C9"))
    assert not s.suppressed[mg] and s.pips == 0 and s._may_shoot(mg)
    s = position(TRENCH_MAP, defender=["C9 mg"], attacker=["C6 rifles"], active=0, pips=1)
    assert RALLY not in s.legal_actions(), "nothing Suppressed"


# ---------------------------------------------------------------- whole games with reserves in play
ALL_RESERVES = {
    "name": "reserves", "turn_limit": 8,
    "map": ["HH......", "........", "..x.....", ".WW.....", "........", "........",
            ".www.ww.", "........", ".######.", "........", "......R.", "...K...."],
    "defender": {"placed": ["E10 general", "C9 rifles", "F9 rifles", "D9 mg", "B11 cavalry"],
                 "reserve": ["barrage", "gas", "minefield", "sniper", "fighter", "bomber", "balloon"]},
    "attacker": {"placed": ["D2 general", "E3 tank", "C3 sturmtruppe", "B3 rifles", "D3 rifles", "G2 cavalry"],
                 "reserve": ["barrage", "gas", "scout", "air_ace", "bomber", "balloon", "sniper"]},
}


def play_with_reserves(seed: int, check_masks: int = 0, roundtrip: int = 0, seen: set | None = None) -> TankState:
    """A random game that takes a spend (entry, counter-battery, rally, raid) whenever one is legal, 3 times in
    4, and Suppression rather than a recoil whenever offered (16.3), so that rallies have something to lift;
    the masks and round trips are checked as in test_games."""
    s = TankState.new_game(scenario_from_dict(ALL_RESERVES), seed=seed)
    rng = np.random.default_rng(seed + 77)
    n = 0
    while not s.is_terminal():
        legal = s.legal_actions()
        if check_masks and n % check_masks == 0:
            assert_mask_exact(s, legal)
        spends = [a for a in legal if a >= DEPLOY or a == SUPPRESS]
        a = int(rng.choice(spends)) if spends and rng.random() < 0.75 else int(rng.choice(legal))
        if seen is not None and a >= DEPLOY:
            seen.add(a)
        if roundtrip and n % roundtrip == 0:
            back = state_from_json(state_to_json(s))
            assert back.to_dict() == s.to_dict() and back.legal_actions() == legal
            back.apply_action(a)
            s.apply_action(a)
            assert back.to_dict() == s.to_dict()
        else:
            s.apply_action(a)
        _invariants(s)
        n += 1
        assert n < 20_000
    return s


def test_games_with_every_reserve_end_and_masks_are_exact():
    seen: set[int] = set()
    for seed in range(40):
        play_with_reserves(seed, check_masks=9 if seed < 2 else 0, roundtrip=5 if seed < 4 else 0, seen=seen)
    kinds = (EType.BARRAGE, EType.GAS, EType.MINEFIELD, EType.SNIPER, EType.FIGHTER, EType.BOMBER, EType.BALLOON)
    wanted = {enter(k) for k in kinds} | {DISMOUNT, MOUNT, GROUP, COUNTER, RALLY}
    seed = 40
    while not wanted <= seen and seed < 300:  # the rarer spends (a rally needs a Suppression first) may need more
        play_with_reserves(seed, seen=seen)
        seed += 1
    assert wanted <= seen, sorted(seen)


@pytest.mark.slow
def test_many_games_with_every_reserve():
    for seed in range(500):
        play_with_reserves(seed, check_masks=40 if seed < 10 else 0, roundtrip=20 if seed < 10 else 0)


# ---------------------------------------------------------------- 16.2 Barrages against wire, 12.1 friend is primary
def wire_fight(db: int, dw: int, balloon: bool) -> TankState:
    s = position(TRENCH_MAP, defender=["F11 rifles"], attacker=["A2 rifles"], active=1, pips=1,
                 reserve=([], ["barrage", "balloon"]))
    put(s, reserve_of(s, 1, EType.BARRAGE)[0], "C6", S)
    if balloon:
        put(s, reserve_of(s, 1, EType.BALLOON)[0], "H3", S)
    s.apply_action(END)
    assert s.stage is Stage.COMBAT_SELECT and s.legal_actions() == [L("C6"), L("C7")]
    fix_dice(s, db, dw)  # the active player's Barrage rolls first
    s.apply_action(L("C7"))
    return s


@pytest.mark.parametrize("balloon,expected", [(False, Fraction(30, 36)), (True, Fraction(33, 36))])
def test_a_barrage_beats_wire_over_36_dice(balloon, expected):
    """16.2 (L123): "Barrage elements do so if they 'beat' the wire which has a CF of 3 in this case only":
    d6 + 6 (+1 observed) against d6 + 3; a higher total destroys the wire cell, else nothing happens."""
    won = 0
    for db, dw in dice_pairs():
        s = wire_fight(db, dw, balloon)
        beaten = db + 6 + balloon > dw + 3
        assert (L("C7") not in s.wire) == beaten, (db, dw)
        assert s.cell[reserve_of(s, 1, EType.BARRAGE)[0]] == L("C6")
        won += beaten
    assert Fraction(won, 36) == expected  # by hand: 36 less the 6 pairs with dw - db >= 3 (3 with >= 4)


def test_a_barrages_friend_is_the_primary():
    """12.1 (L727-731): "the friendly element should always be considered the primary attacker, not the Barrage
    element"; the Barrage aids: Overwhelmed -1 (12.2)."""
    def trench_fight(with_barrage: bool) -> TankState:
        s = position(TRENCH_MAP, defender=["D9 rifles"], attacker=["E9 rifles W"], active=1, pips=1,
                     reserve=([], ["barrage"]))
        if with_barrage:
            put(s, reserve_of(s, 1, EType.BARRAGE)[0], "D8", S)
        return s

    s, bare = trench_fight(True), trench_fight(False)
    y, friend, b = at(s, "D9"), at(s, "E9"), reserve_of(s, 1, EType.BARRAGE)[0]
    assert s._pairs_now() == [(min(y, friend), max(y, friend))], "the Barrage's own pair is dropped"
    from cardwar.envs.tankattack.fight import close_total
    assert close_total(s, y, friend)[0] == close_total(bare, at(bare, "D9"), at(bare, "E9"))[0] - 1
    assert b not in [e for pr in s._pairs_now() for e in pr]


def test_an_element_touched_by_a_barrage_and_its_friend_turns_to_the_friend():
    """10 and 12.1: with a Barrage on one flank and its friend on the other, the element faces the friend,
    the primary (no choice is offered)."""
    s = position(OPEN, defender=["D5 rifles"], attacker=["E5 rifles W"], active=1, pips=1,
                 reserve=([], ["barrage"]))
    put(s, reserve_of(s, 1, EType.BARRAGE)[0], "C5", E)
    y = at(s, "D5")
    s.apply_action(END)
    assert s.facing[y] == E and s.stage is not Stage.FACE_CHOICE
    t = position(OPEN, defender=["D5 rifles"], attacker=["E5 rifles W", "C5 rifles E"], active=1, pips=1)
    t.apply_action(END)
    assert t.stage is Stage.FACE_CHOICE, "two ground attackers: the owner chooses (10)"


def test_suppressed_guns_may_move_suppressed_infantry_may_not():
    """16.3: Suppressed artillery "need 1 PIP to return to fire" (it may still move); Suppressed infantry "may
    not fire or move until 1 PIP per group is paid"."""
    s = position(OPEN, defender=["C9 field_artillery", "F9 rifles"], attacker=["C2 rifles"], active=0, pips=6)
    gun, inf = at(s, "C9"), at(s, "F9")
    s.suppressed[gun] = s.suppressed[inf] = True
    s._memo = None
    legal = s.legal_actions()
    assert L("C9") in legal and L("F9") not in legal
    s.apply_action(RALLY)
    s.apply_action(L("F9"))
    assert L("F9") in s.legal_actions()


DEEP_WOOD = ["........", "........", ".WWWW...", ".WWWW...", ".WWWW...", "........",
             "........", "........", "........", "........", "........", "........"]


def test_a_sniper_sees_out_of_its_own_wood():
    """9.6 (L188-189): "Snipers can fire full range 4" even if in woods, & out of the woods": deep in its wood
    (1.6 would blind any other element there) it shoots a target 400p away beyond the wood's edge; Rifles in
    the same cell could not."""
    s = position(DEEP_WOOD, defender=["B11 rifles"], attacker=["C7 rifles N"], active=0, pips=6,
                 reserve=(["sniper"], []))
    s.apply_action(enter(EType.SNIPER))
    s.apply_action(L("C4"))
    s.apply_action(FACE + S)
    sn, tg = reserve_of(s, 0, EType.SNIPER)[0], at(s, "C7")
    assert s.board.deep_in(L("C4"))
    assert s.legal_target(sn, tg)
    r = position(DEEP_WOOD, defender=["C4 rifles S"], attacker=["C7 rifles N"], active=0, pips=6)
    assert not r.legal_target(at(r, "C4"), at(r, "C7")), "anyone else deep in a wood sees only what it touches"


# ---------------------------------------------------------------- 10 free aerial contacts
def test_an_unengaged_aerial_contacts_for_free_in_step_3():
    """10 (L215-216): "Unengaged Aerials may contact (without using PIPs)": one cell (100p), ending with its
    front against an enemy; the enemy then turns to face it; the Aerial initiated the contact."""
    s = position(OPEN, defender=["H11 rifles"], attacker=["D6 rifles S"], active=0, pips=1,
                 reserve=(["fighter"], []))
    f, y = reserve_of(s, 0, EType.FIGHTER)[0], at(s, "D6")
    put(s, f, "D4", N)
    s.apply_action(END)
    assert s.stage is Stage.AIR_CONTACT and s.legal_actions() == [L("D4"), END]
    pips = s.pips
    s.apply_action(L("D4"))
    assert s.legal_actions() == [L("D5")]
    s.apply_action(L("D5"))
    assert s.legal_actions() == [FACE + S]
    s.apply_action(FACE + S)
    assert s.cell[f] == L("D5") and s.pips == pips and y in s.initiated[f]
    assert s.facing[y] == N, "turned to face the Aerial (10)"
    assert s.stage is Stage.COMBAT_SELECT and L("D5") in s.legal_actions()
    # two cells away: no free contact; option 0: none at all
    s = position(OPEN, defender=["H11 rifles"], attacker=["D7 rifles"], active=0, pips=1, reserve=(["fighter"], []))
    put(s, reserve_of(s, 0, EType.FIGHTER)[0], "D4", N)
    s.apply_action(END)
    assert s.stage is not Stage.AIR_CONTACT
    s = position(OPEN, defender=["H11 rifles"], attacker=["D6 rifles"], active=0, pips=1, reserve=(["fighter"], []),
                 rules=TankAttackRules(aerial_contact_cells=0))
    put(s, reserve_of(s, 0, EType.FIGHTER)[0], "D4", N)
    s.apply_action(END)
    assert s.stage is not Stage.AIR_CONTACT


# ---------------------------------------------------------------- 8.8 mounting and dismounting
def test_dismounting_and_remounting_cavalry():
    """8.8 (L358-364): "spend 1 PIP to (dis)mount a cavalry element ... After dismounting move as if they were
    Rifle. After remounting, move as if they were Rifle for the 1st bound only. then as Cavalry"; rather than
    moving, so not in the same bound."""
    s = position(OPEN, defender=["D10 cavalry", "C11 general"], attacker=["G1 rifles"], active=0, pips=6)
    cav = at(s, "D10")
    s.apply_action(L("D10"))
    assert DISMOUNT in s.legal_actions() and MOUNT not in s.legal_actions()
    s.apply_action(DISMOUNT)
    assert s.etype[cav] is EType.DISMOUNTED_CAVALRY and s.pips == 5 and L("D10") not in s.legal_actions()
    assert STATS[s.etype[cav]].range == STATS[EType.RIFLES].range

    def dests(state: TankState, cell: str) -> list[int]:
        t = state.clone()
        t.stage, t.pending, t.pips = Stage.MOVES, {}, 6
        t.moved = [False] * len(t.cell)
        t._memo = None
        t.apply_action(L(cell))
        return [a for a in t.legal_actions() if a < FACE]

    rifles = position(OPEN, defender=["D10 rifles", "C11 general"], attacker=["G1 rifles"], active=0, pips=6)
    horse = position(OPEN, defender=["D10 cavalry", "C11 general"], attacker=["G1 rifles"], active=0, pips=6)
    assert dests(rifles, "D10") != dests(horse, "D10")
    # remount in bound 3: moves as Rifles in bound 5, as Cavalry from bound 7
    end_bounds(s, 3)
    s.pips = 6
    s._memo = None
    s.apply_action(L("D10"))
    assert MOUNT in s.legal_actions()
    s.apply_action(MOUNT)
    assert s.etype[cav] is EType.CAVALRY and s.pips == 5
    end_bounds(s, 5)
    assert dests(s, "D10") == dests(rifles, "D10")
    end_bounds(s, 7)
    assert dests(s, "D10") == dests(horse, "D10")


# ---------------------------------------------------------------- 1.7 and 8.4 groups
def group_of(s: TankState, lead: str, *others: str) -> None:
    s.apply_action(L(lead))
    s.apply_action(GROUP)
    for o in others:
        s.apply_action(L(o))
    s.apply_action(END)
    assert s.stage is Stage.GROUP_MOVE


def test_a_line_moves_straight_ahead_for_one_pip():
    """1.7, 8.4, 7.1 (L226-227 "One element or a group of elements may normally be moved by spending PIPs"):
    same facing, edge to edge; straight ahead up to the Rifles' 300p, or a turn in place; 1 PIP once."""
    s = position(OPEN, defender=["C10 rifles", "D10 rifles", "E10 rifles", "A12 general"], active=0, pips=6)
    s.apply_action(L("D10"))
    assert GROUP in s.legal_actions()
    s.apply_action(GROUP)
    assert s.legal_actions() == [L("C10"), L("E10")], "only friends touching the group, facing the same way"
    s.apply_action(L("C10"))
    assert s.legal_actions() == [L("E10"), END]
    s.apply_action(L("E10"))
    s.apply_action(END)
    assert s.legal_actions() == [L("D7"), L("D8"), L("D9"), FACE + E, FACE + S, FACE + W]
    line = [at(s, c) for c in ("C10", "D10", "E10")]
    s.apply_action(L("D8"))
    assert [s.cell[m] for m in line] == [L("C8"), L("D8"), L("E8")] and s.pips == 5
    assert all(s.moved[m] and s.facing[m] == N for m in line)


def test_a_group_moves_at_its_slowest_and_pays_for_a_tank():
    """8.4: "the allowance of its slowest element"; 7.1: +1 if the group contains Tanks."""
    s = position(OPEN, defender=["C10 rifles", "D10 tank", "D11 general"], active=0, pips=6)
    group_of(s, "C10", "D10")
    assert [a for a in s.legal_actions() if a < FACE] == [L("C8"), L("C9")], "the Tank's 200p"
    s.apply_action(L("C8"))
    assert s.pips == 6 - 2


def test_only_a_column_enters_bad_going():
    """8.4 [HotT]: "Moves through Bad Going must be in column formation or as individual elements"."""
    rows = ["........"] * 6 + ["..WW...."] + ["........"] * 5
    s = position(rows, defender=["C10 rifles", "D10 rifles", "D11 general"], active=0, pips=6)
    group_of(s, "C10", "D10")
    assert [a for a in s.legal_actions() if a < FACE] == [L("C8"), L("C9")], "the line halts short of the wood"
    s = position(rows, defender=["C10 rifles", "C11 rifles", "D11 general"], active=0, pips=6)
    group_of(s, "C10", "C11")
    assert L("C7") in s.legal_actions(), "the column enters it"


def test_the_command_distance_plus_one_needs_the_whole_group_out_of_range():
    """7.1: +1 if the "whole of element/group starts more than 1,200p away from their own General"."""
    rows = ["........"] * 24
    far_away = position(rows, defender=["C2 rifles", "D2 rifles", "H24 general"], active=0, pips=6)
    group_of(far_away, "C2", "D2")
    far_away.apply_action(L("C1"))
    assert far_away.pips == 6 - 2
    one_near = position(rows, defender=["C2 rifles", "C3 rifles", "C4 general"], active=0, pips=6)
    group_of(one_near, "C2", "C3")
    one_near.apply_action(FACE + E)
    assert one_near.pips == 6 - 1


def test_gas_stops_when_it_contacts_another_element():
    """9.4 (L368-369): a Gas element moves 200p and "will stop when it contacts another troop element": with
    Rifles at F6, the Gas at E5 may go to E6 or F5 (touching them) but not on to E7 or G5, which it reaches
    in the open field."""
    def gas_dests(attacker: list[str]) -> set[int]:
        s = position(OPEN, defender=["B11 rifles"], attacker=attacker, active=0, pips=6, reserve=(["gas"], []))
        put(s, reserve_of(s, 0, EType.GAS)[0], "E5", S)
        s.apply_action(L("E5"))
        return set(s.legal_actions())

    near, open_field = gas_dests(["A2 rifles", "F6 rifles"]), gas_dests(["A2 rifles"])
    assert {L("E7"), L("G5"), L("E6"), L("F5")} <= open_field
    assert {L("E6"), L("F5")} <= near and not {L("E7"), L("G5")} & near
