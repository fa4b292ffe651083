"""Combat totals and outcome moves (RULES.md 11-15): factors, aids, recoil, push-back, crushing, flee, pursuit.

Totals are ``d6 + factor + tactical factors`` (13); the functions here give the part without the die, so
tests can check them against the tables and odds can be counted exactly over the 36 pairs of dice.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from cardwar.envs.tankattack.board import COVER, DIRS, Ground, direction, gap
from cardwar.envs.tankattack.contact import (
    BUNKER_ID, front_touches, front_touches_bunker, in_close_combat, in_trench_line, occupies_trench, same_trench,
    sees,
)
from cardwar.envs.tankattack.elements import (
    ARTILLERY, BG_RESTRICTED, BUNKER_CF, MORTARS, NO_TRENCH, RIFLE_LIKE, Cls, EType, Col, cls_of, column_of,
    combat_factor, is_aerial,
)
from cardwar.envs.tankattack.movement import can_stand, cell_going, enemy_wire, may_pass
from cardwar.envs.tankattack.elements import allowance, Going

if TYPE_CHECKING:
    from cardwar.envs.tankattack.state import TankState

LOST = -2


def opposite(f: int) -> int:
    return (f + 2) % 4


def col_vs(s: TankState, e: int) -> Col:
    """The column an enemy uses against ``e`` (3.4); the Bunker and Strongpoint occupants are strongholds."""
    if e == BUNKER_ID:
        return Col.STRONGHOLD
    return column_of(s.etype[e], s.cell[e] in s.board.strongpoints and not is_aerial(s.etype[e]))


def factor(s: TankState, e: int, enemy: int, close: bool) -> int:
    """``e``'s combat factor against ``enemy`` (3.4); a missing factor counts 0."""
    if e == BUNKER_ID:
        v = BUNKER_CF[column_of(s.etype[enemy])]
    else:
        v = combat_factor(s.etype[e], col_vs(s, enemy), close)
    return 0 if v is None else v


def good_going_for_rows(s: TankState, e: int) -> bool:
    """The loser's own cell for its outcome rows (14.4): a trench occupant is in good going unless
    ``trench_occupant="bad"``; wire is good going (L119-120)."""
    if occupies_trench(s, e) and s.cell[e] in s.board.trench:
        if s.rules.trench_occupant == "bad":
            return False
        return True
    return not s.board.is_bad(s.cell[e])


def attacked_from_outside(s: TankState, target: int, attacker: int) -> bool:
    """The target occupies a trench and the attacker is not in the same trench system (16.1)."""
    if not occupies_trench(s, target):
        return False
    if attacker == BUNKER_ID or not in_trench_line(s, attacker) or not in_trench_line(s, target):
        return True
    return s.board.trench_component(s.cell[attacker]) != s.board.trench_component(s.cell[target])


def observed(s: TankState, e: int, target_cell: int, use: bool) -> int:
    """+1 if a Balloon or FO of ``e``'s army sees the target and has not observed this bound (13.1);
    Balloons first, then FOs, in element order. ``use`` marks the observer."""
    for kind in (EType.BALLOON, EType.FORWARD_OBSERVER):
        for o in range(len(s.cell)):
            if (s.etype[o] is kind and s.side[o] == s.side[e] and s.cell[o] >= 0 and not s.observed[o]
                    and (kind is EType.BALLOON or sees(s, s.cell[o], target_cell, ends=(o, -1)))):
                if use:
                    s.observed[o] = True
                return 1
    return 0


class ShotTotals(NamedTuple):
    shooter: int
    target: int


def shooting_totals(s: TankState, sh: int, tg: int, aids: int, return_fire: bool, use_observer: bool = False
                    ) -> ShotTotals:
    """Totals without dice of a shot (11.3, 13.1): the shooter's factor and its shooting modifiers, the
    target's factor, its "shot at" modifiers and -1 per aid; with return fire each side is both."""
    return ShotTotals(factor(s, sh, tg, False) + _as_shooter(s, sh, tg, use_observer)
                      + (_as_target(s, sh, tg, 0) if return_fire else 0),
                      factor(s, tg, sh, False) + _as_target(s, tg, sh, aids)
                      + (_as_shooter(s, tg, sh, use_observer) if return_fire else 0))


def _as_shooter(s: TankState, sh: int, tg: int, use_observer: bool) -> int:
    m = 0
    if occupies_trench(s, tg) and s.etype[sh] not in MORTARS and not s.rules.trench_factor_target:
        m -= 2  # Ranged fire on trench (L529-534): the shooter
    if s.etype[sh] in (EType.FIELD_ARTILLERY, EType.HEAVY_ARTILLERY):
        m += observed(s, sh, s.cell[tg], use_observer)
    return m


def _as_target(s: TankState, tg: int, sh: int, aids: int) -> int:
    m = 0
    if s.general[tg]:
        m += 1
    if s.board.ground[s.cell[tg]] in COVER and not is_aerial(s.etype[tg]):
        m += 2
    if occupies_trench(s, tg):
        if s.etype[sh] in MORTARS:
            m -= 1
        elif s.rules.trench_factor_target:
            m -= 2
    return m - aids


def rear_supporter(s: TankState, e: int, enemy: int) -> int:
    """The friend giving ``e`` rear support against ``enemy`` (13.1, L430-432), or -1: Rifles (and
    Dismounted Cavalry) or Sturmtruppe, with one of its own type directly behind facing the same way (in a
    trench: the next trench cell behind), not in close combat, neither in bad going."""
    t = s.etype[e]
    if e == BUNKER_ID or not (t in RIFLE_LIKE or t is EType.STURMTRUPPE):
        return -1
    ecell = s.cell[enemy] if enemy != BUNKER_ID else s.board.bunker
    fd = direction(s.cell[e], ecell)
    if fd is None:
        return -1
    behind = s.board.step(s.cell[e], opposite(fd))
    if behind is None:
        return -1
    y = s.grid[behind]
    if y < 0 or s.side[y] != s.side[e]:
        return -1
    ty = s.etype[y]
    if not ((t in RIFLE_LIKE and ty in RIFLE_LIKE) or (t is EType.STURMTRUPPE and ty is EType.STURMTRUPPE)):
        return -1
    trench_fight = enemy != BUNKER_ID and same_trench(s, e, enemy)
    if trench_fight:
        if not (in_trench_line(s, y) and s.board.trench_component(behind) == s.board.trench_component(s.cell[e])):
            return -1
    elif s.facing[y] != s.facing[e]:
        return -1
    if in_close_combat(s, y) or not good_going_for_rows(s, e) or not good_going_for_rows(s, y):
        return -1
    return y


def flank_count(s: TankState, x: int, p: int) -> tuple[int, int]:
    """(Outflanked, Overwhelmed) against ``x`` fighting primary ``p`` (12.2): -1 per flank overlapped or
    front-contacted and -1 for a front edge on the rear; -1 per Barrage or Gas aid (at most 2). The Bunker,
    having no flanks, counts each other enemy touching it as an aid. None if ``p`` is a Barrage or Gas, or
    of ``x``'s own side (a Gas fighting its own side, 9.4)."""
    if p != BUNKER_ID and s.etype[p] in (EType.BARRAGE, EType.GAS):
        return 0, 0
    if x != BUNKER_ID and p != BUNKER_ID and s.side[x] == s.side[p]:
        return 0, 0  # a Gas fighting its own side (9.4, gas_hits_both): nobody's flanks are the enemy's
    if x == BUNKER_ID:
        others = sum(1 for y in range(len(s.cell)) if s.cell[y] >= 0 and y != p and front_touches_bunker(s, y))
        return 0, min(others, 2)
    side = s.side[x]
    pcell = s.cell[p] if p != BUNKER_ID else s.board.bunker
    fd = direction(s.cell[x], pcell)
    out = 0
    over = 0
    board = s.board

    def enemy_at(c: int | None) -> int:
        if c is None:
            return -1
        y = s.grid[c]
        return y if y >= 0 and y != p and s.side[y] != side else -1

    for perp in ((fd + 1) % 4, (fd + 3) % 4):
        sc = board.step(s.cell[x], perp)
        y = enemy_at(sc)
        hit = False
        if y >= 0 and s.etype[y] not in (EType.BARRAGE, EType.GAS):
            if s.facing[y] == opposite(perp) or s.facing[y] in (fd, opposite(fd)) or same_trench(s, x, y):
                hit = True
        dc = board.step(sc, fd) if sc is not None else None
        y2 = enemy_at(dc)
        if y2 >= 0 and s.etype[y2] not in (EType.BARRAGE, EType.GAS) and s.facing[y2] == opposite(fd):
            hit = True
        out += hit
    rc = board.step(s.cell[x], opposite(fd))
    y = enemy_at(rc)
    if y >= 0 and s.etype[y] not in (EType.BARRAGE, EType.GAS) and front_touches(s, y, x):
        out += 1
    for f in range(4):
        y = enemy_at(board.step(s.cell[x], f))
        if y >= 0 and s.etype[y] in (EType.BARRAGE, EType.GAS) and front_touches(s, y, x):
            over += 1
    return out, min(over, 2)


def close_total(s: TankState, x: int, p: int, use_observer: bool = False) -> tuple[int, int]:
    """``x``'s close-combat total against primary ``p`` without the die (13.1), and its rear supporter."""
    cf = factor(s, x, p, True)
    if x == BUNKER_ID:
        _, over = flank_count(s, x, p)
        return cf - over, -1
    m = 0
    t = s.etype[x]
    board = s.board
    xcell = s.cell[x]
    pcell = s.cell[p] if p != BUNKER_ID else board.bunker
    pt = s.etype[p] if p != BUNKER_ID else None
    if s.general[x]:
        m += 1
    sup = rear_supporter(s, x, p)
    if sup >= 0:
        m += 1
    if not is_aerial(t) and (pt is None or not is_aerial(pt)):
        if board.ground[xcell] is Ground.HILL and board.ground[pcell] is not Ground.HILL:
            m += 1
        elif board.ground[xcell] is not Ground.RIVER and board.ground[pcell] is Ground.RIVER:
            m += 1
    if t is EType.BARRAGE:
        m += observed(s, x, pcell, use_observer)
    if xcell in board.strongpoints and not is_aerial(t):
        m += 2
    if pt is EType.GAS and (occupies_trench(s, x) or board.ground[xcell] in COVER):
        m -= 1
    p_trench = p != BUNKER_ID and occupies_trench(s, p)
    if t is EType.BARRAGE and p_trench and not s.rules.trench_factor_target:
        m -= 2
    if pt is EType.BARRAGE and occupies_trench(s, x) and s.rules.trench_factor_target:
        m -= 2
    out, over = flank_count(s, x, p)
    m -= out + over
    outside = p_trench and attacked_from_outside(s, p, x)
    if outside and ((is_aerial(t) and t is not EType.BOMBER) or t in BG_RESTRICTED
                    or (t is EType.STURMTRUPPE and s.rules.sturm_trench_penalty)):
        m -= 2
    if cls_of(t) is Cls.MOUNTED and (pt is None or not is_aerial(pt)):
        if board.is_bad(pcell) or (outside and (t is not EType.TANK or s.rules.tank_trench_penalty)):
            m -= 2
    if is_aerial(t) and pt is not None and not is_aerial(pt) and board.ground[pcell] in COVER:
        m -= 2
    return cf + m, sup


def contact_bad_going(s: TankState, loser: int, winner: int) -> bool:
    """14.4: either cell is bad going, or the winner occupies a trench attacked from outside by the loser."""
    lc = s.cell[loser]
    wc = s.cell[winner] if winner != BUNKER_ID else s.board.bunker
    if s.board.is_bad(lc) or s.board.is_bad(wc):
        return True
    return winner != BUNKER_ID and occupies_trench(s, winner) and attacked_from_outside(s, winner, loser)


# ------------------------------------------------------------------ outcome moves

def _blocked_terrain(s: TankState, e: int, c: int) -> bool:
    """A recoil may not enter impassable ground, the Bunker, a river (Artillery), a trench (horses, wheels)."""
    if c == s.board.bunker:
        return True  # Aerials fly over it (can_stand) but no element ends a move on it
    if not can_stand(s, e, c) and not (s.etype[e] in (EType.FIELD_ARTILLERY, EType.AAA) and s.board.is_bad(c)):
        return True
    if s.etype[e] in ARTILLERY and s.board.ground[c] is Ground.RIVER:
        return True
    return False


def recoil_plan(s: TankState, e: int, rdir: int) -> list[tuple[int, int]] | None:
    """The moves of a recoil of ``e`` towards ``rdir`` (15.1-15.3): ``[(element, new cell or LOST)]`` with
    crushed elements as ``(element, LOST)``; ``None``: blocked, the recoiler is destroyed."""
    board = s.board
    for d in (rdir, (rdir + 1) % 4, (rdir + 3) % 4):
        n = board.step(s.cell[e], d)
        if n is None:
            continue
        y = s.grid[n]
        if y >= 0 and s.side[y] != s.side[e] and front_touches(s, y, e):
            return None  # 15.1 step 1: enemy front on the flank or rear
    return _shift(s, e, rdir, crush=s.etype[e] is EType.TANK, recoiling=True)


def _shift(s: TankState, e: int, rdir: int, crush: bool, recoiling: bool) -> list[tuple[int, int]] | None:
    board = s.board
    n = board.step(s.cell[e], rdir)
    if n is None:
        return [(e, LOST)]
    if _blocked_terrain(s, e, n):
        return None
    y = s.grid[n]
    if y < 0:
        return [(e, n)]
    ty = s.etype[y]
    if crush and ty is not EType.TANK and not is_aerial(ty) and ty is not EType.STURMTRUPPE:
        return [(y, LOST), (e, n)]
    if may_pass(s, e, y) and not (is_aerial(s.etype[e]) and not is_aerial(ty)):
        c = n
        while True:
            c = board.step(c, rdir)
            if c is None:
                return [(e, LOST)]
            if _blocked_terrain(s, e, c):
                return None
            z = s.grid[c]
            if z < 0:
                return [(e, c)]
            if not may_pass(s, e, z):
                return None
    if (s.side[y] == s.side[e] and s.facing[y] == s.facing[e]
            and not (ty is EType.TANK and s.etype[e] is not EType.TANK)):
        chain = _shift(s, y, rdir, crush=False, recoiling=False)
        if chain is None:
            return None
        return chain + [(e, n)]
    return None


def flee_plan(s: TankState, e: int, causer_cell: int) -> tuple[int, list[tuple[int, int]] | None]:
    """A flight (15.4): the facing directly away from the causer (ties: straight back, then N E S W order), and
    the move, a full tactical move (Aerials 600p) straight ahead; ``None``: cannot move a cell, destroyed."""
    from cardwar.envs.tankattack.board import col_row

    cc, cr = col_row(s.cell[e])
    kc, kr = col_row(causer_cell)

    def score(f: int) -> tuple[int, int]:
        dc, dr = DIRS[f]
        x, y = abs(cc + dc - kc) - 1, abs(cr + dr - kr) - 1
        x, y = max(x, 0), max(y, 0)
        return (100 * max(x, y) + 50 * min(x, y), 1 if f == opposite(s.facing[e]) else 0)

    f = max(range(4), key=score)
    t = s.etype[e]
    board = s.board
    start = c = s.cell[e]
    worst = cell_going(s, e, c) or Going.GOOD
    paces = 0
    last_empty = None
    while True:
        passing = c != start and s.grid[c] >= 0
        n = board.step(c, f)
        lim = 600 if is_aerial(t) else allowance(t, worst)
        if lim is None:
            break
        if n is None:
            if passing or paces + 100 <= lim:
                return f, [(e, LOST)]
            break
        if _blocked_terrain(s, e, n) or enemy_wire(s, n, s.side[e]) or (t in NO_TRENCH and n in board.trench):
            break
        g = cell_going(s, e, n) or Going.GOOD
        lim2 = 600 if is_aerial(t) else allowance(t, max(worst, g))
        y = s.grid[n]
        if y >= 0 and not may_pass(s, e, y):
            break
        if lim2 is None or (paces + 100 > lim2 and not passing):
            break
        paces += 100
        worst = max(worst, g)
        c = n
        if y < 0:
            last_empty = c
            if paces >= lim2:
                break
    if last_empty is None:
        return f, None
    return f, [(e, last_empty)]
