"""Group moves (RULES.md 1.7, 7.1, 8.4): who may join a group, and where a group may go.

A group is two or more friendly elements with the same facing, orthogonally connected, all ground or all
Aerial (never Barrage or Gas). As built, a group moves **straight ahead** (every element the same k cells
along the facing) or **turns in place** (every element to one new facing); the move costs 1 PIP and the
modifiers of 7.1 once. Readings of the grid (RULES.md 8.4, "as built"): only elements free to make a normal
move group (not in a trench, in enemy wire or in an enemy ZOC; not Lurkers, bound to their features); a
group does not pass through or enter trench or enemy-wire cells (those are single-element moves, 16.1-16.2);
elements outside the group are passed only where every member may pass them (8.9); the move ends at the
first contact with an enemy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardwar.envs.tankattack.contact import adjacent4, command_distance_penalty, zoc_map
from cardwar.envs.tankattack.elements import EType, Going, allowance, is_aerial
from cardwar.envs.tankattack.movement import (
    _zoc_entry_facings, can_stand, cell_going, enemy_wire, legal_facings, may_pass, movable, move_type,
)

if TYPE_CHECKING:
    from cardwar.envs.tankattack.state import TankState

NO_GROUP = frozenset({EType.BARRAGE, EType.GAS, EType.SNIPER, EType.MINEFIELD})


def groupable(s: TankState, e: int) -> bool:
    """May ``e`` be part of a group move now (see the module docstring)."""
    if s.etype[e] in NO_GROUP or not movable(s, e) or s.side[e] != s.active:
        return False
    c = s.cell[e]
    if c in s.board.trench or enemy_wire(s, c, s.side[e]):
        return False
    if not is_aerial(s.etype[e]) and s.etype[e] is not EType.STURMTRUPPE and c in zoc_map(s, s.side[e]):
        return False
    return True


def group_cost(s: TankState, group: list[int]) -> int:
    """7.1 once for the group: 1, +1 if it contains a Tank or Aerial, +1 if every element is out of command
    distance (or +1 if the General is Lost)."""
    cost = 1 + any(s.etype[m] is EType.TANK or is_aerial(s.etype[m]) for m in group)
    g = s.general_of[s.side[group[0]]]
    if g < 0 or s.cell[g] < 0:
        return cost + 1
    return cost + min(command_distance_penalty(s, m) for m in group)


def _column(s: TankState, group: list[int], f: int) -> bool:
    """One element wide along facing ``f`` (1.7)."""
    key = (lambda c: c % 16) if f in (0, 2) else (lambda c: c // 16)
    return len({key(s.cell[m]) for m in group}) == 1


def group_moves(s: TankState, group: list[int]) -> dict[int, int]:
    """The lead's (``group[0]``) destination cell -> k for each legal straight-ahead move, and ``-1 - f`` ->
    0 for each legal turn in place to facing ``f`` (8.4). Empty if the group cannot pay."""
    if len(group) < 2 or group_cost(s, group) > s.pips:
        return {}
    f = s.facing[group[0]]
    board = s.board
    out: dict[int, int] = {}
    for nf in range(4):
        if nf != f and all(nf in legal_facings(s, m, s.cell[m], s.cell[m]) for m in group):
            out[-1 - nf] = 0
    members = set(group)
    zoc = zoc_map(s, s.side[group[0]])
    column = _column(s, group, f)
    worst = Going.ROAD
    pos = {m: s.cell[m] for m in group}
    k = 0
    while True:
        nxt = {}
        for m in group:
            n = board.step(pos[m], f)
            if (n is None or n == board.bunker or n in board.trench or enemy_wire(s, n, s.side[m])
                    or not can_stand(s, m, n)):
                return out
            nxt[m] = n
        going = max(cell_going(s, m, nxt[m]) for m in group)
        if going >= Going.BAD and not column:
            return out
        worst = max(worst, going)
        k += 1
        if any((allowance(move_type(s, m), worst) or 0) < 100 * k for m in group):
            return out
        blocked_end = False
        for m in group:
            y = s.grid[nxt[m]]
            if y >= 0 and y not in members:
                if not all(may_pass(s, x, y) for x in group):
                    return out
                blocked_end = True
        if not blocked_end and all(f in _zoc_entry_facings(s, m, zoc, nxt[m], legal_facings(s, m, nxt[m], s.cell[m]))
                                   for m in group):
            out[nxt[group[0]]] = k
        if _enemies_touched(s, group, nxt):
            return out  # in contact: the move ends here
        if any(nxt[m] in zoc and not is_aerial(s.etype[m]) and s.etype[m] is not EType.STURMTRUPPE
               for m in group):
            return out  # 8.4: one entering an enemy ZOC stops them all
        pos = nxt


def _enemies_touched(s: TankState, group: list[int], cells: dict[int, int]) -> list[int]:
    out: list[int] = []
    for m in group:
        for f in range(4):
            n = s.board.step(cells[m], f)
            if n is None:
                continue
            y = s.grid[n]
            if y >= 0 and s.side[y] != s.side[m] and y not in group:
                out.append(y)
    return out


def joinable(s: TankState, group: list[int]) -> list[int]:
    """Friends that may join ``group``: groupable, same facing and class, orthogonally touching a member, and
    the bigger group still has a legal move it can pay for."""
    f = s.facing[group[0]]
    air = is_aerial(s.etype[group[0]])
    out = []
    for x in range(len(s.cell)):
        if x in group or s.cell[x] < 0 or s.side[x] != s.side[group[0]] or s.facing[x] != f:
            continue
        if is_aerial(s.etype[x]) != air or not groupable(s, x):
            continue
        if not any(adjacent4(s.cell[x], s.cell[m]) for m in group):
            continue
        if group_moves(s, group + [x]):
            out.append(x)
    return out
