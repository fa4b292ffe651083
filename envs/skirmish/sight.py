"""What each side sees, and who can fire at whom (RULES.md §1.4, §2.2, §5.1, §9.2)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardwar.envs.skirmish.units import Soldier, Tank

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import SkirmishState


def known_vehicle_cells(s: SkirmishState, side: int) -> frozenset[int]:
    """The vehicles ``side`` knows stand where they are: its own and the enemy's it sees now (§9.2)."""
    if not s.has_vehicles:
        return frozenset()
    return frozenset(u.cell for u in s.units if isinstance(u, Tank) and (u.side == side or u.uid in s.seen[side]))


def sees(s: SkirmishState, a: int, b: int, side: int | None = None) -> bool:
    """Line of sight between two hexes; vehicles between block it (§1.4). With ``side``: as that side may
    judge it, only the vehicles it knows of blocking (a mask is built so, §9.2)."""
    blockers = (s.vehicle_cells() if side is None else known_vehicle_cells(s, side)) - {a, b}
    return s.scenario.board.sees(a, b, blockers=blockers, open_doors=s.open_doors, edge_sight=s.rules.edge_sight)


def seen_cells(s: SkirmishState, cell: int, side: int | None = None) -> frozenset[int]:
    """Every hex in sight of ``cell`` now (cached on the board by vehicles and open doors); with ``side``, as
    that side may judge it (only the vehicles it knows of blocking)."""
    board = s.scenario.board
    blockers = s.vehicle_cells() if side is None else known_vehicle_cells(s, side)
    cache = board.__dict__.setdefault("_seen_cells", {})
    key = (cell, blockers, s.open_doors, s.rules.edge_sight)
    out = cache.get(key)
    if out is None:
        if len(cache) > 20000:
            cache.clear()
        out = frozenset(c for c in range(len(board.ground)) if board._on_map[c]
                        and board.sees(cell, c, blockers=blockers - {cell, c}, open_doors=s.open_doors,
                                       edge_sight=s.rules.edge_sight))
        cache[key] = out
    return out


def update_sight(s: SkirmishState) -> None:
    """Recompute which enemy units each side sees now, and where it last saw the others (§1.4): an enemy is
    seen when it stands in the field of view of an active unit of the side (sight is symmetric)."""
    units = s.units
    board = s.scenario.board
    cache = board.__dict__.setdefault("_seen_cells", {})
    blockers, doors, edge = s.vehicle_cells(), s.open_doors, s.rules.edge_sight
    open_view = s.rules.visibility == "open"
    for side in (0, 1):
        views = []
        for u in units:
            if u.side == side and u.active:
                v = cache.get((u.cell, blockers, doors, edge))
                views.append(v if v is not None else seen_cells(s, u.cell))
        now = set()
        for u in units:
            if u.side == side or not u.on_table:
                continue
            cell = u.cell
            if open_view or any(cell in v for v in views):
                now.add(u.uid)
                s.last_seen[side][u.uid] = cell
                s.last_look[side][u.uid] = ((int(u.fig.stance), u.fig.wounds, bool(u.burning), u.active)
                                            if isinstance(u, Soldier) else (2, 0, False, u.active))
        s.seen[side] = now
        if s.undisclosed:  # the wounds of a figure it sees are known to it now (§9.2)
            for uid in now & s.undisclosed.keys():
                del s.undisclosed[uid]


def fire_range(u: Soldier | Tank) -> int | None:
    """How far the unit's firearm reaches now; ``None`` = anywhere in sight (§2.2)."""
    if isinstance(u, Soldier):
        return u.firearm_range()
    mg = u.machine_gun
    if mg is None:
        return 0
    from cardwar.envs.skirmish.weapons import FIREARMS

    return FIREARMS[mg].range_for(True)


def in_range(s: SkirmishState, a: int, b: int, reach: int | None) -> bool:
    if reach is None:
        return True
    return s.scenario.board.distance(a, b) <= reach


def can_fire_at(s: SkirmishState, u: Soldier | Tank, target: Soldier | Tank, reach: int | None) -> bool:
    """A target the unit's side sees, in the unit's own sight (as its side may judge it: a vehicle it does not
    see does not hide the target, §9.2) and reach (§5.1)."""
    if reach == 0 or not target.active or target.side == u.side or target.uid not in s.seen[u.side]:
        return False
    if isinstance(u, Tank) and not u.v.can_traverse:  # guns that cannot traverse: the front arc only (§8.3)
        from cardwar.envs.skirmish.vehicles import guns_bear

        if not guns_bear(u.v, target.cell):
            return False
    return in_range(s, u.cell, target.cell, reach) and sees(s, u.cell, target.cell, u.side)
