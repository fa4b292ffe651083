"""Tactical moves of single elements: where an element may go, at what PIP cost, facing which way
(RULES.md 1.5, 7.1, 8.1-8.9, 16.1-16.2).

:func:`move_options` gives destination -> :class:`MoveOption`. The destination may be the element's own cell
(turning in place, a whole tactical move, RULES.md 6).
"""

from __future__ import annotations

import heapq
import math
from typing import TYPE_CHECKING, NamedTuple

from cardwar.envs.tankattack.board import NUM_CELLS, direction
from cardwar.envs.tankattack.contact import (
    BUNKER_ID, adjacent4, command_distance_penalty, front_touches, in_front_contact, same_trench, zoc_map,
)
from cardwar.envs.tankattack.elements import (
    IMMOBILE, NO_TRENCH, RIFLE_LIKE, STATS, Cls, EType, Going, allowance, cls_of, is_aerial,
)

SUPPRESSED_STAY = frozenset({EType.RIFLES, EType.DISMOUNTED_CAVALRY, EType.STURMTRUPPE})
"""16.3: Suppressed infantry "may not fire or move until 1 PIP per group is paid"."""

if TYPE_CHECKING:
    from cardwar.envs.tankattack.state import TankState


class MoveOption(NamedTuple):
    """One destination: whether it needs the Sturmtruppe assault (+1 PIP, +200p, 8.7) and its legal facings."""

    assault: bool
    facings: tuple[int, ...]
    kind: str = "move"
    """move, turn, trench (along), leave (a trench), cross (wire)."""


def base_cost(s: TankState, e: int) -> int:
    """PIPs of a tactical move before the assault's +1 (7.1): 1, +1 Tank or Aerial, +1 out of command
    distance, or +1 instead if the General is Lost."""
    if s.etype[e] is EType.GAS:
        return 1  # 9.4, L366-367: "costs 1 PIP", whoever moves it; Gas is not a side's troops
    cost = 1
    if s.etype[e] is EType.TANK or is_aerial(s.etype[e]):
        cost += 1
    g = s.general_of[s.side[e]]
    if g < 0 or s.cell[g] < 0:
        cost += 1
    else:
        cost += command_distance_penalty(s, e)
    return cost


def move_type(s: TankState, e: int) -> EType:
    """The type whose allowances ``e`` moves with: remounted Cavalry move as Rifles in their first own bound
    after remounting (8.8, L362-364: ``timer`` counts their own bounds until then, 2 at remounting)."""
    t = s.etype[e]
    if t is EType.CAVALRY and s.timer[e] > 0:
        return EType.RIFLES
    return t


def may_remount(s: TankState, e: int) -> bool:
    """8.8: a Cavalry or Dismounted Cavalry element that may move this bound (not moved, not held in front
    contact, not Suppressed on foot) may (dis)mount instead; mounted troops may not stand in a trench cell."""
    t = s.etype[e]
    if t not in (EType.CAVALRY, EType.DISMOUNTED_CAVALRY) or not movable(s, e):
        return False
    return t is EType.CAVALRY or s.cell[e] not in s.board.trench


def may_pass(s: TankState, mover: int, other: int) -> bool:
    """The passing table of 8.9 (tactical and outcome moves)."""
    tm, to = s.etype[mover], s.etype[other]
    friend = s.side[mover] == s.side[other]
    if tm is EType.STURMTRUPPE or to is EType.STURMTRUPPE or tm is EType.BARRAGE:
        return True
    if tm is EType.GAS:
        return False
    if is_aerial(tm):
        return not is_aerial(to)
    if is_aerial(to):
        return (to is EType.BALLOON and not friend) or friend
    if friend and (tm in RIFLE_LIKE or tm is EType.SNIPER) and (to in RIFLE_LIKE or to is EType.SNIPER):
        return True
    if friend and cls_of(tm) is Cls.MOUNTED and cls_of(to) is Cls.FOOT:
        return (s.facing[mover] - s.facing[other]) % 2 == 0
    return False


def enemy_wire(s: TankState, cell: int, side: int) -> bool:
    owner = s.wire.get(cell)
    return owner is not None and owner != side


IGNORES_TERRAIN = frozenset(t for t in EType if is_aerial(t)) | {EType.BARRAGE, EType.GAS, EType.MINEFIELD}
"""Aerials, Barrage, Gas and Minefields: every cell is good going to them (8.2)."""
AERIAL = frozenset(t for t in EType if is_aerial(t))


def cell_going(s: TankState, e: int, cell: int) -> Going | None:
    """The going of ``cell`` for element ``e`` (2.1, 8.2): Aerials, Barrage, Gas and Minefields ignore
    terrain; a Tank crosses wire and trenches at its bad-going rate (16.1-16.2)."""
    t = s.etype[e]
    if t in IGNORES_TERRAIN:
        return Going.GOOD
    g = s.board.going[cell]
    if g is None:
        return None
    if t is EType.TANK and g < Going.BAD and (cell in s.board.trench or enemy_wire(s, cell, s.side[e])):
        return Going.BAD
    return g


def can_stand(s: TankState, e: int, cell: int) -> bool:
    """Terrain ``e`` may enter at all (not the Bunker, lakes, "--" going, trenches for horses and wheels)."""
    t = s.etype[e]
    if cell == s.board.bunker and t not in AERIAL:
        return False
    g = cell_going(s, e, cell)
    if g is None or allowance(move_type(s, e), g) is None:
        return False
    if t in NO_TRENCH and cell in s.board.trench:
        return False
    return True


def legal_facings(s: TankState, e: int, dest: int, start: int) -> tuple[int, ...]:
    """Facings ``e`` may end with at ``dest`` (8.3): never with its flank or rear against an enemy front
    (inside one trench every touching side is a front); the Bunker's edges are all fronts. Never ending
    touching an enemy Barrage, Gas or non-Balloon Aerial (8.3)."""
    side, grid, bunker = s.side[e], s.grid, s.board.bunker
    must: set[int] = set()
    for f, n in enumerate(s.board.steps[dest]):
        if n is None:
            continue
        if n == bunker and s.bunker_alive and side == 1:
            must.add(f)
            continue
        y = grid[n]
        if y < 0 or y == e or s.side[y] == side:
            continue
        ty = s.etype[y]
        if ty in (EType.BARRAGE, EType.GAS) or (is_aerial(ty) and ty is not EType.BALLOON):
            if not is_aerial(s.etype[e]):
                return ()
        if direction(n, dest) == s.facing[y]:
            if _would_share_trench(s, e, dest, y):
                continue
            must.add(f)
    if len(must) > 1:
        return ()
    if must:
        return (next(iter(must)),)
    return (0, 1, 2, 3)


def _would_share_trench(s: TankState, e: int, dest: int, y: int) -> bool:
    t = s.etype[e]
    if t is EType.TANK or is_aerial(t) or dest not in s.board.trench:
        return False
    from cardwar.envs.tankattack.contact import in_trench_line

    return in_trench_line(s, y) and s.board.trench_component(dest) == s.board.trench_component(s.cell[y])


def _front_contact_facings(s: TankState, e: int, dest: int, facings: tuple[int, ...]) -> tuple[int, ...]:
    """The facings whose front edge touches an enemy element at ``dest`` (the assault's condition, 8.7)."""
    out = []
    for f in facings:
        n = s.board.step(dest, f)
        if n is None:
            continue
        y = s.grid[n]
        if (y >= 0 and y != e and s.side[y] != s.side[e]) or (n == s.board.bunker and s.bunker_alive
                                                              and s.side[e] == 1):
            out.append(f)
    return tuple(out)


def movable(s: TankState, e: int) -> bool:
    """8.1: on the battlefield, mobile, not moved, not held in front contact; Suppressed infantry may not move,
    Suppressed guns may (16.3: they only may not shoot)."""
    t = s.etype[e]
    if s.cell[e] < 0 or s.moved[e] or t in IMMOBILE or (s.suppressed[e] and t in SUPPRESSED_STAY):
        return False
    if not is_aerial(t) and t not in (EType.BARRAGE, EType.GAS) and in_front_contact(s, e):
        return False
    return True


def _ignores_zoc(t: EType) -> bool:
    """Aerials, Sturmtruppe, Barrage and Gas move regardless of enemy ZOCs (8.5)."""
    return t in AERIAL or t in (EType.STURMTRUPPE, EType.BARRAGE, EType.GAS)


def may_turn_in_place(s: TankState, e: int, zoc: dict[int, list[int]] | None = None) -> bool | None:
    """Whether ``move_options(s, e)`` has a move, when that is cheap to tell: ``False`` if ``e`` may not move,
    ``True`` if it may turn in place (8.1, 8.3); ``None`` when only the full search can tell (in an enemy ZOC,
    a bound Lurker, 9.6-9.7, or no turn allowed).
    ``zoc``: ``zoc_map(s, s.side[e])`` if the caller has it."""
    t = s.etype[e]
    start = s.cell[e]
    if start < 0 or s.moved[e] or t in IMMOBILE or (s.suppressed[e] and t in SUPPRESSED_STAY):
        return False  # movable's own tests (8.1)
    side, grid, bunker = s.side[e], s.grid, s.board.bunker
    alone = True  # no enemy and no Bunker beside it: not held (8.1), and every facing is legal (8.3)
    for n in s.board.steps[start]:
        if n is not None and (n == bunker or (grid[n] >= 0 and s.side[grid[n]] != side)):
            alone = False
            break
    if not alone and not movable(s, e):
        return False
    if t in (EType.SNIPER, EType.MINEFIELD) and s.home[e] >= 0:
        return None
    if not (t is not EType.TANK and t not in AERIAL and start in s.board.trench) and not _ignores_zoc(t):
        if start in (zoc_map(s, s.side[e]) if zoc is None else zoc):
            return None
    if alone:
        return True
    f = s.facing[e]
    return True if any(g != f for g in legal_facings(s, e, start, start)) else None


def move_options(s: TankState, e: int, zoc: dict[int, list[int]] | None = None) -> dict[int, MoveOption]:
    """Every destination of a single-element tactical move of ``e`` (8.3-8.9, 16.1-16.2); ``zoc``:
    ``zoc_map(s, s.side[e])`` if the caller has it."""
    if not movable(s, e):
        return {}
    start = s.cell[e]
    t = s.etype[e]
    out: dict[int, MoveOption] = {}
    occupant = t is not EType.TANK and not is_aerial(t) and start in s.board.trench
    in_zoc = False
    if occupant:
        _trench_moves(s, e, out)
    else:
        zoc = {} if _ignores_zoc(t) else (zoc_map(s, s.side[e]) if zoc is None else zoc)
        in_zoc = start in zoc
        if enemy_wire(s, start, s.side[e]) and t not in (EType.TANK, EType.BARRAGE, EType.GAS, EType.MINEFIELD) \
                and not is_aerial(t):
            _wire_crossing(s, e, out)  # in the wire (after a recoil): it can only cross (16.2)
        elif in_zoc:
            _zoc_start_moves(s, e, zoc, out)
        else:
            _free_moves(s, e, zoc, out)
            _wire_crossing(s, e, out)
    if not in_zoc:
        turns = tuple(f for f in legal_facings(s, e, start, start) if f != s.facing[e])
        if turns:
            out[start] = MoveOption(False, turns, "turn")
    if t in (EType.SNIPER, EType.MINEFIELD) and s.home[e] >= 0:
        from cardwar.envs.tankattack.reserves import feature

        own = feature(s, e)  # 9.6-9.7: a Lurker's moves end in its feature (outside it: only to return)
        out = {d: o for d, o in out.items() if d in own}
    return out


def _add(out: dict[int, MoveOption], dest: int, opt: MoveOption) -> None:
    old = out.get(dest)
    if old is None or (old.assault and not opt.assault):
        out[dest] = opt
    elif old.assault == opt.assault:
        out[dest] = old._replace(facings=tuple(sorted(set(old.facings) | set(opt.facings))))


def _reach(s: TankState, e: int, zoc: dict[int, list[int]], extra: int) -> set[int]:
    """Cells reachable (ending there) with the allowance + ``extra`` paces, by the worst going of the path
    (8.2; or each step by its own cell's going, option ``going="per_cell"``): diagonal steps cost 150p and may
    not cut a corner the mover could not enter; occupied cells are passed only as 8.9 allows; a non-start
    trench cell stops the move (16.1); enemy wire stops all but Tanks (16.2); a ZOC cell is a stop, or a step
    straight on into contact (8.5).

    "Worst going": one search per going class g over the cells of going <= g with g's allowance, the start's
    going at most g; a class is skipped when a worse class has at least its allowance (its cells are a
    superset, its limit no smaller: it reaches every cell the skipped one does)."""
    t = s.etype[e]
    start = s.cell[e]
    start_going = cell_going(s, e, start)
    if start_going is None:
        return set()
    side = s.side[e]
    board, grid, wire = s.board, s.grid, s.wire
    trench, bunker, near8 = board.trench, board.bunker, board.near8
    mt = move_type(s, e)
    tank = t is EType.TANK
    air = t in AERIAL
    gas = t is EType.GAS
    stops = not tank and not air
    no_trench = t in NO_TRENCH
    terrain_free = t in IGNORES_TERRAIN
    move = STATS[mt].move
    code = [-1] * NUM_CELLS  # per cell: code_of's answer once asked

    def code_of(c: int) -> int:
        """The going ``e`` enters ``c`` at, if it may enter and pass it (8.2, 8.9, 16.1-16.2); else 9."""
        if c == bunker and not air:
            out = 9
        else:
            if terrain_free:
                g = Going.GOOD
            else:
                g = board.going[c]
                if g is not None and tank and g < Going.BAD and (c in trench or
                                                                 (c in wire and wire[c] != side)):
                    g = Going.BAD
            if g is None or move[g] is None or (no_trench and c in trench):
                out = 9
            elif stops and c in wire and wire[c] != side:
                out = 9
            else:
                y = grid[c]
                out = int(g) if (y < 0 or y == e or may_pass(s, e, y)) else 9
        code[c] = out
        return out

    def search(g: int, limit: int, per_cell: tuple[int, ...] | None = None) -> None:
        """Dijkstra over the cells ``e`` enters at going <= ``g``, up to ``limit`` (paces, or per-cell units)."""
        dist = [1 << 30] * NUM_CELLS
        dist[start] = 0
        heap = [(0, start)]
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            d, c = pop(heap)
            if d > dist[c]:
                continue
            if c != start:
                if grid[c] < 0 and c != bunker:
                    reached.add(c)
                if stops and c in trench:
                    continue  # entering a trench ends the move (16.1)
                if tank and (c in trench or c in wire):
                    continue  # the one 100p step of a Tank into a trench or wire
                if gas and any(0 <= grid[n] != e for n in board.steps[c] if n is not None):
                    continue  # 9.4: Gas "will stop when it contacts another troop element"
                cz = zoc.get(c)
            else:
                cz = None
            for n, step, c1, c2 in near8[c]:
                k = code[n]
                if k < 0:
                    k = code_of(n)
                if k > g:
                    continue
                nd = d + (step if per_cell is None else per_cell[2 * k + (step > 100)])
                if nd > limit or nd >= dist[n]:
                    continue
                if c1 >= 0:
                    k1, k2 = code[c1], code[c2]
                    if (k1 if k1 >= 0 else code_of(c1)) > g or (k2 if k2 >= 0 else code_of(c2)) > g:
                        continue
                if cz is not None:
                    # in an enemy ZOC: only straight on into front contact with the enemy casting it
                    if not all(_straight_to_contact(s, y, c, n) for y in cz):
                        continue
                dist[n] = nd
                push(heap, (nd, n))

    reached: set[int] = set()
    if move is None:
        return reached
    if s.rules.going == "per_cell":
        good = move[Going.GOOD]
        if good is None:
            return reached
        # Each step costs paces x good / rate(going entered) good-going paces; in units of good / k (k: the
        # rates' least common multiple) a step costs paces x k / rate(going), an exact integer.
        k = math.lcm(*(a for a in move if a))
        w = tuple(0 if move[gg] is None else paces * k // move[gg] for gg in Going for paces in (100, 150))
        search(int(Going.RIVER), (good + extra) * k // good, w)
        return reached
    classes = [(int(g), move[g] + extra) for g in Going if move[g] is not None and start_going <= g]
    for g, limit in classes:
        if any(g2 > g and l2 >= limit for g2, l2 in classes):
            continue
        search(g, limit)
    return reached


def _orth(board, c: int) -> list[int]:
    return [n for n in (board.step(c, f) for f in range(4)) if n is not None]


def _straight_to_contact(s: TankState, y: int, c: int, n: int) -> bool:
    """``c`` is the far cell of ``y``'s ZOC and ``n`` the contact cell in front of ``y`` (8.5)."""
    f = s.board.step(s.cell[y], s.facing[y])
    return f == n and s.board.step(n, s.facing[y]) == c


def _free_moves(s: TankState, e: int, zoc: dict[int, list[int]], out: dict[int, MoveOption]) -> None:
    start = s.cell[e]
    normal = _reach(s, e, zoc, 0)
    for dest in normal:
        fs = legal_facings(s, e, dest, start)
        fs = _zoc_entry_facings(s, e, zoc, dest, fs)
        if fs:
            _add(out, dest, MoveOption(False, fs))
    if s.etype[e] is EType.STURMTRUPPE:
        for dest in _reach(s, e, zoc, 200):
            if dest in normal:
                continue
            fs = _front_contact_facings(s, e, dest, legal_facings(s, e, dest, start))
            if fs:
                _add(out, dest, MoveOption(True, fs))


def _zoc_entry_facings(s: TankState, e: int, zoc: dict[int, list[int]], dest: int,
                       fs: tuple[int, ...]) -> tuple[int, ...]:
    """Moving into the contact cell of an enemy's ZOC is moving into contact with it: facing it (8.5)."""
    for y in zoc.get(dest, ()):
        if s.board.step(s.cell[y], s.facing[y]) == dest:
            face = direction(dest, s.cell[y])
            fs = tuple(f for f in fs if f == face)
    return fs


def _zoc_start_moves(s: TankState, e: int, zoc: dict[int, list[int]], out: dict[int, MoveOption]) -> None:
    """Starting in enemy ZOC: straight into front contact with the enemy, or straight back from it, or
    not at all; in two ZOCs both must allow the move (8.5)."""
    start = s.cell[e]
    allowed: set[int] | None = None
    move = STATS[move_type(s, e)].move
    per_cell = s.rules.going == "per_cell" and move[Going.GOOD] is not None
    k = math.lcm(*(a for a in move if a)) if per_cell else 0
    for y in zoc[start]:
        fy = s.facing[y]
        cells: set[int] = set()
        contact = s.board.step(s.cell[y], fy)
        if contact is not None and contact != start and adjacent4(contact, start) and s.grid[contact] < 0 \
                and can_stand(s, e, contact):
            cells.add(contact)
        # straight back: away from y's front, along y's facing
        c, d, worst = start, 0, cell_going(s, e, start) or Going.GOOD
        while True:
            n = s.board.step(c, fy)
            if n is None or not can_stand(s, e, n) or enemy_wire(s, n, s.side[e]):
                break
            g = cell_going(s, e, n)
            if per_cell:  # each step at its own cell's rate, in units of good / k (see _reach)
                d += 100 * k // move[g]
                lim = k
            else:
                worst = max(worst, g)
                lim = allowance(move_type(s, e), worst)
                d += 100
            if lim is None or d > lim:
                break
            if s.grid[n] >= 0:
                if not may_pass(s, e, s.grid[n]):
                    break
            else:
                cells.add(n)
            c = n
            if n in s.board.trench:
                break
        allowed = cells if allowed is None else allowed & cells
    for dest in allowed or ():
        fs = legal_facings(s, e, dest, start)
        fs = _zoc_entry_facings(s, e, zoc, dest, fs)
        if fs:
            _add(out, dest, MoveOption(False, fs))


def _trench_moves(s: TankState, e: int, out: dict[int, MoveOption]) -> None:
    """An occupant moves along its trench up to 2 cells, stopping in the trench-ZOC of an enemy in the same
    trench, or leaves it by one cell ending with its rear against the trench (16.1)."""
    start = s.cell[e]
    board = s.board
    comp = board.trench_component(start)
    enemies_in = [y for y in range(len(s.cell)) if s.cell[y] >= 0 and s.side[y] != s.side[e]
                  and s.cell[y] in board.trench and board.trench_component(s.cell[y]) == comp
                  and s.etype[y] is not EType.TANK and not is_aerial(s.etype[y])]
    tzoc: set[int] = set()
    for y in enemies_in:
        frontier = {s.cell[y]}
        for _ in range(2):
            nxt = set()
            for c in frontier:
                for f in range(4):
                    n = board.step(c, f)
                    if n is not None and n in board.trench:
                        nxt.add(n)
            tzoc |= nxt
            frontier = nxt
    frontier = [start]
    seen = {start}
    for _ in range(2):
        nxt = []
        for c in frontier:
            if c != start and c in tzoc:
                continue
            for f in range(4):
                n = board.step(c, f)
                if n is None or n in seen or n not in board.trench:
                    continue
                seen.add(n)
                y = s.grid[n]
                if y >= 0 and not may_pass(s, e, y):
                    continue
                if y < 0:
                    fs = legal_facings(s, e, n, start)
                    if fs:
                        _add(out, n, MoveOption(False, fs, "trench"))
                nxt.append(n)
        frontier = nxt
    for f in range(4):
        n = board.step(start, f)
        if n is None or n in board.trench or s.grid[n] >= 0 or not can_stand(s, e, n):
            continue
        if enemy_wire(s, n, s.side[e]):
            continue
        if f in legal_facings(s, e, n, start):
            _add(out, n, MoveOption(False, (f,), "leave"))


def _wire_crossing(s: TankState, e: int, out: dict[int, MoveOption]) -> None:
    """An element facing enemy wire from the next cell may be placed in the first cell beyond the belt,
    straight ahead, as its tactical move (16.2). Tanks, Aerials, Barrage, Gas and Minefields need not."""
    t = s.etype[e]
    if t is EType.TANK or is_aerial(t) or t in (EType.BARRAGE, EType.GAS, EType.MINEFIELD):
        return
    f = s.facing[e]
    c = s.cell[e] if enemy_wire(s, s.cell[e], s.side[e]) else s.board.step(s.cell[e], f)
    if c is None or not enemy_wire(s, c, s.side[e]):
        return
    while c is not None and enemy_wire(s, c, s.side[e]):
        c = s.board.step(c, f)
    if c is None or s.grid[c] >= 0 or not can_stand(s, e, c):
        return
    fs = legal_facings(s, e, c, s.cell[e])
    if fs:
        _add(out, c, MoveOption(False, (f,) if f in fs else fs, "cross"))
