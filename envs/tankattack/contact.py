"""Contact geometry on the grid: fronts, pairs, close combat, ZOC and sight (RULES.md 1.3, 1.6, 8.5, 11.1).

Functions of a :class:`~cardwar.envs.tankattack.state.TankState`; the Bunker is :data:`BUNKER_ID`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardwar.envs.tankattack.board import NUM_CELLS, STRIDE, direction, gap, line_cells
from cardwar.envs.tankattack.elements import IMMOBILE, NO_ZOC, EType, is_aerial

if TYPE_CHECKING:
    from cardwar.envs.tankattack.state import TankState

BUNKER_ID = -1
"""The Command Bunker in pairs and in ``initiated`` lists."""


def adjacent4(a: int, b: int) -> bool:
    d = abs(a - b)
    return d == STRIDE or (d == 1 and a // STRIDE == b // STRIDE)


def occupies_trench(s: TankState, e: int) -> bool:
    """A ground element other than a Tank in a trench cell occupies it (16.1). Entrenched Heavy Artillery
    and Medium Mortars count as in a one-cell trench (3.2)."""
    t = s.etype[e]
    if t is EType.TANK or is_aerial(t) or t in (EType.BARRAGE, EType.GAS):
        return False
    return s.cell[e] in s.board.trench or t in IMMOBILE


def in_trench_line(s: TankState, e: int) -> bool:
    """Occupies a real trench cell (not an emplacement): the side-to-side and ZOC rules of 16.1 and 8.5."""
    t = s.etype[e]
    return (t is not EType.TANK and not is_aerial(t) and t not in (EType.BARRAGE, EType.GAS)
            and s.cell[e] in s.board.trench)


def same_trench(s: TankState, a: int, b: int) -> bool:
    """Both occupy connected trench cells that touch: their touching sides are fronts (1.3, 16.1)."""
    return (in_trench_line(s, a) and in_trench_line(s, b) and adjacent4(s.cell[a], s.cell[b])
            and s.board.trench_component(s.cell[a]) == s.board.trench_component(s.cell[b]))


def front_touches(s: TankState, a: int, b: int) -> bool:
    """Element ``a``'s front edge touches element ``b`` (1.3)."""
    ca, cb = s.cell[a], s.cell[b]
    if not adjacent4(ca, cb):
        return False
    return direction(ca, cb) == s.facing[a] or same_trench(s, a, b)


def front_touches_bunker(s: TankState, a: int) -> bool:
    b = s.board.bunker
    return s.bunker_alive and s.side[a] == 1 and adjacent4(s.cell[a], b) and direction(s.cell[a], b) == s.facing[a]


def front_to_front(s: TankState, a: int, b: int) -> bool:
    """Two enemies fight: each one's front touches the other (1.3)."""
    return s.side[a] != s.side[b] and front_touches(s, a, b) and front_touches(s, b, a)


def neighbours_on_board(s: TankState, cell: int) -> list[int]:
    """Elements in the four orthogonal neighbours of ``cell``."""
    if 0 <= cell < NUM_CELLS:
        grid = s.grid
        return [y for n in s.board.steps[cell] if n is not None and (y := grid[n]) >= 0]
    out = []
    for f in range(4):
        n = s.board.step(cell, f)
        if n is not None:
            e = s.grid[n]
            if e >= 0:
                out.append(e)
    return out


def in_front_contact(s: TankState, e: int) -> bool:
    """Front to front with an enemy element, or touching the Bunker (8.1: held)."""
    if front_touches_bunker(s, e):
        return True
    return any(s.side[y] != s.side[e] and front_to_front(s, e, y) for y in neighbours_on_board(s, s.cell[e]))


def in_close_combat(s: TankState, e: int) -> bool:
    """An enemy front touches it, or its front touches an enemy or the Bunker (11.1). Wire does not count."""
    if front_touches_bunker(s, e):
        return True
    for y in neighbours_on_board(s, s.cell[e]):
        if s.side[y] != s.side[e] and (front_touches(s, y, e) or front_touches(s, e, y)):
            return True
    return False


def casts_zoc(s: TankState, e: int) -> bool:
    """Ground elements except Barrage, Gas and Minefields (8.5)."""
    t = s.etype[e]
    return s.cell[e] >= 0 and not is_aerial(t) and t not in NO_ZOC


def zoc_map(s: TankState, side: int) -> dict[int, list[int]]:
    """Cell -> the enemies of ``side`` whose ZOC (two cells straight ahead, 8.5) covers it. Read-only: the
    last answer per side is kept on the state with the cells, facings, types and sides it was built from (speed)."""
    d = getattr(s, "__dict__", None)
    if d is None:  # a state-like object with slots: nowhere to keep the answer
        return _zoc_map(s, side)
    key = (tuple(s.cell), tuple(s.facing), tuple(s.etype), tuple(s.side))
    cache = d.setdefault("_zoc_cache", {})
    hit = cache.get(side)
    if hit is not None and hit[0] == key:
        return hit[1]
    out = _zoc_map(s, side)
    cache[side] = (key, out)
    return out


_CASTS_NO_ZOC = frozenset(t for t in EType if is_aerial(t)) | NO_ZOC
"""The types that :func:`casts_zoc` rules out."""


def _zoc_map(s: TankState, side: int) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    steps, sides, etype, facing = s.board.steps, s.side, s.etype, s.facing
    for e, c in enumerate(s.cell):
        if c < 0 or sides[e] == side or etype[e] in _CASTS_NO_ZOC:  # casts_zoc, inline (speed)
            continue
        f = facing[e]
        for _ in range(2):
            c = steps[c][f]
            if c is None:
                break
            hit = out.get(c)
            if hit is None:
                out[c] = [e]
            else:
                hit.append(e)
    return out


def sees(s: TankState, a: int, b: int, *, troops_block: bool = True, ends: tuple[int, int] = (-1, -1)) -> bool:
    """Line of sight between cells ``a`` and ``b`` (1.6): terrain, Gas and (if ``troops_block``) ground
    elements strictly between block; a corner is blocked only if both its cells are."""
    if not s.board.terrain_sight(a, b):
        return False
    cells, corners = line_cells(a, b)
    grid, etype = s.grid, s.etype

    def blocked(c: int) -> bool:
        e = grid[c]
        if e < 0 or e in ends:
            return False
        t = etype[e]
        return t is EType.GAS or (troops_block and not is_aerial(t) and t is not EType.BARRAGE)

    if any(blocked(c) for c in cells):
        return False
    return not any(blocked(p) and blocked(q) for p, q in corners)


def command_distance_penalty(s: TankState, e: int) -> int:
    """+1 if the element starts more than 1,200p from its General, or more than 600p and out of his sight
    (terrain and Gas block; troops do not) (7.1). 0 for the General himself or once he is Lost."""
    g = s.general_of[s.side[e]]
    if g < 0 or s.cell[g] < 0 or g == e:
        return 0
    d = gap(s.cell[e], s.cell[g])
    if d > 1200:
        return 1
    if d > 600 and not (is_aerial(s.etype[e]) or sees(s, s.cell[e], s.cell[g], troops_block=False)):
        return 1
    return 0
