"""Group moves (RULES.md 1.7, 7.1, 8.4, 8.8, 16.1-16.2): who may join a group, and what a group may do.

A group is two or more friendly elements with the same facing, orthogonally connected, all ground or all
Aerial (never Barrage or Gas), and either all occupants of one trench or none in a trench. A group's whole
move is one of (8.4):

- **straight ahead**: every element the same k cells along the facing, at its slowest element's allowance in
  the worst going entered (``going="per_cell"``: each element's steps priced by their own cells, 8.2); it may
  end entering a trench cell (the move stops there, 16.1) and its Tanks may enter enemy wire (one 100p step,
  16.2), but its other ground elements stop short of enemy wire;
- **turn in place** to one new facing;
- **along a trench** (16.1): occupants of one trench shift together 1 or 2 trench cells, keeping formation
  and facing, stopping in the trench-ZOC of an enemy in that trench (8.5);
- **out of a trench**: occupants step one cell straight ahead out of it, ending with their rears against it;
- **across wire** (16.2): every element faces enemy wire from the next cell and is placed in the first
  cell beyond the belt straight ahead;
- **(dis)mount** (8.8): a group of Cavalry dismounts, or of Dismounted Cavalry mounts, for 1 PIP.

A move costs 1 PIP and the modifiers of 7.1 once ((dis)mounting: 1 PIP). Elements outside the group are
passed only where every member may pass them (8.9); a straight-ahead move ends at the first contact with
an enemy and where any element enters an enemy ZOC (8.5).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple

from cardwar.envs.tankattack.actions import DISMOUNT, FACE, MOUNT
from cardwar.envs.tankattack.contact import adjacent4, command_distance_penalty, zoc_map
from cardwar.envs.tankattack.elements import EType, Going, allowance, is_aerial
from cardwar.envs.tankattack.movement import (
    _zoc_entry_facings, can_stand, cell_going, enemy_wire, legal_facings, may_pass, may_remount, movable, move_type,
)

if TYPE_CHECKING:
    from cardwar.envs.tankattack.state import TankState

NO_GROUP = frozenset({EType.BARRAGE, EType.GAS, EType.SNIPER, EType.MINEFIELD})


class GroupMove(NamedTuple):
    """One legal group move: its kind, each member's cell after it (in group order) and the facing."""

    kind: str
    """ahead, turn, trench (along), leave (a trench), cross (wire), mount, dismount."""
    dests: tuple[int, ...]
    facing: int


def occupant(s: TankState, e: int) -> bool:
    """In a trench cell and occupying it (16.1: not a Tank, not an Aerial)."""
    return s.cell[e] in s.board.trench and s.etype[e] is not EType.TANK and not is_aerial(s.etype[e])


def groupable(s: TankState, e: int) -> bool:
    """May ``e`` be part of a group move now: free to move (8.1), not a Lurker, Barrage or Gas, not a Tank
    crossing a trench, not in enemy wire, not (outside a trench) in an enemy ZOC."""
    if s.etype[e] in NO_GROUP or not movable(s, e) or s.side[e] != s.active:
        return False
    c = s.cell[e]
    air = is_aerial(s.etype[e])
    if not air and (enemy_wire(s, c, s.side[e]) or (c in s.board.trench and not occupant(s, e))):
        return False
    if occupant(s, e):
        return True  # 8.5: occupants ignore ZOC from outside the trench
    if not air and s.etype[e] is not EType.STURMTRUPPE and c in zoc_map(s, s.side[e]):
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


def move_cost(s: TankState, group: list[int], mv: GroupMove) -> int:
    """(Dis)mounting is 1 PIP (8.8, "spend 1 PIP to (dis)mount a cavalry element or group"); a move, 7.1."""
    return 1 if mv.kind in ("mount", "dismount") else group_cost(s, group)


def _column(s: TankState, group: list[int], f: int) -> bool:
    """One element wide along facing ``f`` (1.7)."""
    key = (lambda c: c % 16) if f in (0, 2) else (lambda c: c // 16)
    return len({key(s.cell[m]) for m in group}) == 1


def group_moves(s: TankState, group: list[int]) -> dict[int, GroupMove]:
    """Action id -> the move it makes, for every legal move of ``group`` it can pay for: the lead's
    (``group[0]``) destination cell for a move, ``FACE + f`` for a turn in place, ``MOUNT``/``DISMOUNT``."""
    out: dict[int, GroupMove] = {}
    if len(group) < 2 or s.pips < 1:
        return out
    f = s.facing[group[0]]
    here = tuple(s.cell[m] for m in group)
    kinds = {s.etype[m] for m in group}
    if kinds in ({EType.CAVALRY}, {EType.DISMOUNTED_CAVALRY}) and all(may_remount(s, m) for m in group):
        mount = kinds == {EType.DISMOUNTED_CAVALRY}
        out[MOUNT if mount else DISMOUNT] = GroupMove("mount" if mount else "dismount", here, f)
    if group_cost(s, group) > s.pips:
        return out
    for nf in range(4):
        if nf != f and all(nf in legal_facings(s, m, s.cell[m], s.cell[m]) for m in group):
            out[FACE + nf] = GroupMove("turn", here, nf)
    if occupant(s, group[0]):
        _along_trench(s, group, out)
        _leave_trench(s, group, out)
    else:
        _straight_ahead(s, group, out)
        _cross_wire(s, group, out)
    return out


def _straight_ahead(s: TankState, group: list[int], out: dict[int, GroupMove]) -> None:
    """8.4: k cells along the facing at the slowest element's allowance in the worst going entered (with
    ``going="per_cell"``: each element's steps each cost 100p x its good-going rate / its rate in the cell
    entered, within its good-going allowance, 8.2); only a column enters bad going; a step into a trench cell
    (or a Tank's into enemy wire) ends the move (16.1-16.2); the move ends at the first contact with an enemy or
    the first enemy ZOC entered (8.5)."""
    f = s.facing[group[0]]
    board = s.board
    members = set(group)
    zoc = zoc_map(s, s.side[group[0]])
    column = _column(s, group, f)
    worst = Going.ROAD
    per_cell = s.rules.going == "per_cell"
    spent = {m: Fraction(0) for m in group}  # per_cell: the share of each element's allowance used
    pos = {m: s.cell[m] for m in group}
    k = 0
    while True:
        nxt = {}
        last = False
        for m in group:
            n = board.step(pos[m], f)
            if n is None or n == board.bunker or not can_stand(s, m, n):
                return
            air, tank = is_aerial(s.etype[m]), s.etype[m] is EType.TANK
            if not air and enemy_wire(s, n, s.side[m]):
                if not tank:
                    return  # 16.2: foot and mounted stop short of enemy wire
                last = True  # a Tank's one 100p step into the wire
            if not air and n in board.trench:
                last = True  # 16.1: entering a trench ends the move
            nxt[m] = n
        going = max(cell_going(s, m, nxt[m]) for m in group)
        if going >= Going.BAD and not column:
            return
        worst = max(worst, going)
        k += 1
        if per_cell:
            for m in group:
                spent[m] += Fraction(100, allowance(move_type(s, m), cell_going(s, m, nxt[m])))
            if any(v > 1 for v in spent.values()):
                return
        elif any((allowance(move_type(s, m), worst) or 0) < 100 * k for m in group):
            return
        blocked_end = False
        for m in group:
            y = s.grid[nxt[m]]
            if y >= 0 and y not in members:
                if not all(may_pass(s, x, y) for x in group):
                    return
                blocked_end = True
        if blocked_end and last:
            return  # it could neither stop in that cell nor go on
        if not blocked_end and all(f in _zoc_entry_facings(s, m, zoc, nxt[m], legal_facings(s, m, nxt[m], s.cell[m]))
                                   for m in group):
            out[nxt[group[0]]] = GroupMove("ahead", tuple(nxt[m] for m in group), f)
        if last or _enemies_touched(s, group, nxt):
            return  # in contact, in a trench or in the wire: the move ends here
        if any(nxt[m] in zoc and not is_aerial(s.etype[m]) and s.etype[m] is not EType.STURMTRUPPE
               for m in group):
            return  # 8.4: one entering an enemy ZOC stops them all
        pos = nxt


def _trench_zoc(s: TankState, comp: int, side: int) -> set[int]:
    """8.5 (L718-721): the trench cells within 2 along the trench of an enemy occupant of trench ``comp``."""
    board = s.board
    out: set[int] = set()
    for y in range(len(s.cell)):
        if s.cell[y] < 0 or s.side[y] == side or not occupant(s, y) or board.trench_component(s.cell[y]) != comp:
            continue
        frontier = {s.cell[y]}
        for _ in range(2):
            frontier = {n for c in frontier for n in (board.step(c, d) for d in range(4))
                        if n is not None and n in board.trench}
            out |= frontier
    return out


def _along_trench(s: TankState, group: list[int], out: dict[int, GroupMove]) -> None:
    """16.1 (L701-702 "Along a Trench movement up to 2 sections & Group movement is allowed"): every occupant
    shifts the same 1 or 2 cells in one direction, each cell on the way a cell of the same trench; elements
    outside the group are passed as 8.9 allows (never ended on); a step into an enemy's trench-ZOC ends it."""
    board = s.board
    comp = board.trench_component(s.cell[group[0]])
    if any(not occupant(s, m) or board.trench_component(s.cell[m]) != comp for m in group):
        return
    members = set(group)
    f = s.facing[group[0]]
    tzoc = _trench_zoc(s, comp, s.side[group[0]])
    for d in range(4):
        pos = {m: s.cell[m] for m in group}
        for _ in range(2):
            nxt = {}
            for m in group:
                n = board.step(pos[m], d)
                if n is None or n not in board.trench or board.trench_component(n) != comp:
                    break
                y = s.grid[n]
                if y >= 0 and y not in members and not all(may_pass(s, x, y) for x in group):
                    break
                nxt[m] = n
            if len(nxt) < len(group):
                break
            free = all(s.grid[c] < 0 or s.grid[c] in members for c in nxt.values())
            if free and all(f in legal_facings(s, m, nxt[m], s.cell[m]) for m in group):
                out[nxt[group[0]]] = GroupMove("trench", tuple(nxt[m] for m in group), f)
            if any(c in tzoc for c in nxt.values()):
                break
            pos = nxt


def _leave_trench(s: TankState, group: list[int], out: dict[int, GroupMove]) -> None:
    """16.1 (L703-706): occupants leave by one cell straight ahead out of the trench, each ending with its
    rear against the trench cell it left; not into enemy wire."""
    f = s.facing[group[0]]
    dests = []
    for m in group:
        n = s.board.step(s.cell[m], f)
        if (n is None or n in s.board.trench or s.grid[n] >= 0 or not can_stand(s, m, n)
                or enemy_wire(s, n, s.side[m]) or f not in legal_facings(s, m, n, s.cell[m])):
            return
        dests.append(n)
    out[dests[0]] = GroupMove("leave", tuple(dests), f)


def _cross_wire(s: TankState, group: list[int], out: dict[int, GroupMove]) -> None:
    """16.2 (L114-118): every element faces enemy wire from the next cell (held there; never a Tank or an
    Aerial, which the wire does not stop) and is placed in the first cell beyond the belt straight ahead."""
    f = s.facing[group[0]]
    dests = []
    for m in group:
        t = s.etype[m]
        if t is EType.TANK or is_aerial(t):
            return
        c = s.board.step(s.cell[m], f)
        if c is None or not enemy_wire(s, c, s.side[m]):
            return
        while c is not None and enemy_wire(s, c, s.side[m]):
            c = s.board.step(c, f)
        if c is None or s.grid[c] >= 0 or not can_stand(s, m, c) or f not in legal_facings(s, m, c, s.cell[m]):
            return
        dests.append(c)
    if len(set(dests)) == len(dests):
        out[dests[0]] = GroupMove("cross", tuple(dests), f)


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


def joinable(s: TankState, group: list[int], first: bool = False) -> list[int]:
    """Friends that may join ``group``: groupable, same facing and class, orthogonally touching a member, in
    the same trench as the group or (like it) in none, and the bigger group still has a legal move it can pay
    for. With ``first``, at most one (enough to know whether a group can be formed). The cheap tests run
    first (speed; every test must pass, so their order changes nothing)."""
    lead = group[0]
    f = s.facing[lead]
    air = is_aerial(s.etype[lead])
    comp = s.board.trench_component(s.cell[lead]) if occupant(s, lead) else None
    out = []
    for x in range(len(s.cell)):
        if x in group or s.cell[x] < 0 or s.side[x] != s.side[lead] or s.facing[x] != f:
            continue
        if is_aerial(s.etype[x]) != air or not any(adjacent4(s.cell[x], s.cell[m]) for m in group):
            continue
        if not groupable(s, x):
            continue
        if (s.board.trench_component(s.cell[x]) if occupant(s, x) else None) != comp:
            continue
        if group_moves(s, group + [x]):
            out.append(x)
            if first:
                break
    return out
