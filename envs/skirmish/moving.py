"""Moves played out tick by tick, with opportunity fire meeting them (RULES.md §4.3, §5.5, §8.1).

A turn's movement is 12 ticks. A mover with allowance A enters the hex reached after spending c points
at tick ceil(12 c / A); a whole-move crossing at tick 12. Deck moves use the same clock, one hex a tick.
"""

from __future__ import annotations

from math import ceil
from typing import TYPE_CHECKING

from cardwar.envs.skirmish.board import ENTIRE
from cardwar.envs.skirmish.cards import card_rank
from cardwar.envs.skirmish.figures import Stance, halve
from cardwar.envs.skirmish.sight import can_fire_at, fire_range, update_sight
from cardwar.envs.skirmish.units import Soldier, Tank

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import SkirmishState

TICKS = 12


def schedule_path(s: SkirmishState, u: Soldier | Tank, path: tuple[int, ...], allowance: int, stance: Stance,
                  running: bool, *, one_per_tick: bool = False) -> list[tuple[int, int]]:
    """(tick, hex) entries of a path (§4.3)."""
    if one_per_tick:
        return [(i + 1, c) for i, c in enumerate(path)]
    board, here, spent, out = s.scenario.board, u.cell, 0, []
    allowance = max(allowance, 1)
    for cell in path:
        cost = 1 if isinstance(u, Tank) else board.crossing(here, cell, stance=stance, running=running,
                                                             open_doors=s.open_doors)
        if cost is ENTIRE or cost is None:
            out.append((TICKS, cell))
        else:
            spent += cost
            out.append((min(TICKS, max(1, ceil(TICKS * spent / allowance))), cell))
        here = cell
    return out


def enter(s: SkirmishState, tick: int) -> list[Soldier | Tank]:
    """Every mover whose next hexes fall due by ``tick`` enters them, a hex a pass (a fast vehicle enters
    several in one tick), while each is empty; a mover finding its next hex taken stops where it is for the
    rest of the turn. Two for one hex: the higher Field Craft first, ties by a card from each side's pack,
    lower first (§4.3). Returns the units that changed hex."""
    moved: list[Soldier | Tank] = []
    while True:
        step = _enter_once(s, tick)
        if not step:
            break
        moved += [u for u in step if u not in moved]
    if moved:
        update_sight(s)
    return moved


def _enter_once(s: SkirmishState, tick: int) -> list[Soldier | Tank]:
    due = [(uid, entries[0][1]) for uid, entries in s.schedule.items() if entries and entries[0][0] <= tick]
    moved: list[Soldier | Tank] = []
    order = sorted(due, key=lambda d: _priority(s, s.units[d[0]], d[1], due))
    for uid, cell in order:
        u = s.units[uid]
        if not u.active:
            s.schedule[uid] = []
            continue
        holder = s.unit_at(cell)
        if (holder is not None and not _passes(s, u, holder)) or not _mine_check(s, u, cell):
            s.schedule[uid] = []  # blocked: stops where it is (§4.3)
            continue
        s.trail.setdefault(uid, []).append(u.cell)
        s.entered.setdefault(uid, []).append(cell)
        if isinstance(u, Soldier) and u.aboard is not None:
            if s.units[u.aboard].moved or s.unit_at(cell) is not None:
                s.schedule[uid] = []  # the vehicle drove on: still aboard
                continue
            u.aboard = None
        if isinstance(u, Soldier) and _crosses_closed_door(s, u.cell, cell):
            s.open_doors = s.open_doors | {(min(u.cell, cell), max(u.cell, cell))}
        if isinstance(u, Tank):
            u.v.facing = _direction(s, u.cell, cell, u.v.facing)
        u.cell = cell
        if isinstance(u, Tank):
            for rider in s.riders(u):
                rider.cell = cell
        s.schedule[uid].pop(0)
        moved.append(u)
        take_objective(s, u)
    return moved


def _passes(s: SkirmishState, u: Soldier | Tank, holder: Soldier | Tank) -> bool:
    """A figure on foot may pass through a friend's hex, sharing it for a tick, but not end its move there
    (§4.3): the hex is not the last of its move."""
    return (isinstance(u, Soldier) and isinstance(holder, Soldier) and holder.side == u.side and u.aboard is None
            and len(s.schedule.get(u.uid) or ()) > 1)


def settle(s: SkirmishState) -> None:
    """When moves end, a figure left sharing a friend's hex (its move cut short there by a wound or a blocked
    hex) steps back along its path to the last hex it can have alone; one unit a hex again (§4.3)."""
    for uid in sorted(s.trail, key=lambda i: -len(s.trail[i])):
        u = s.units[uid]
        if not u.holds_hex or sum(1 for o in s.units if o.holds_hex and o.cell == u.cell) < 2:
            continue
        back = [c for c in reversed(s.trail[uid]) if s.unit_at(c) is None]
        if not back:
            back = [c for c in s.scenario.board.neighbours(u.cell) if s.unit_at(c) is None]
        if back:
            u.cell = back[0]
    s.trail = {}


def _craft(u: Soldier | Tank) -> int:
    return u.fig.skill("field_craft") if isinstance(u, Soldier) else 0  # vehicles count 0 (§4.3)


def _priority(s: SkirmishState, u: Soldier | Tank, cell: int, due: list[tuple[int, int]]) -> tuple:
    """Two for one hex: the higher Field Craft first; a card from each side's pack only between equal Field
    Craft, lower first (§4.3)."""
    craft = _craft(u)
    tied = sum(1 for uid, c in due if c == cell and _craft(s.units[uid]) == craft) > 1
    tie = card_rank(s.draw_for(u)) if tied else 0
    return (-craft, tie, u.uid)


def _crosses_closed_door(s: SkirmishState, a: int, b: int) -> bool:
    from cardwar.envs.skirmish.board import Edge

    return s.scenario.board.edge(a, b, s.open_doors) == Edge.DOOR_CLOSED


def _direction(s: SkirmishState, a: int, b: int, default: int) -> int:
    board = s.scenario.board
    for d in range(6):
        if board.step(a, d) == b:
            return d
    return default


def take_objective(s: SkirmishState, u: Soldier | Tank) -> None:
    """An objective belongs to the side that last had an active figure on it (§10)."""
    points = s.scenario.victory.objectives or {}
    if u.cell in points and isinstance(u, Soldier) and u.active:
        s.objective_owner[u.cell] = u.side


def _mine_check(s: SkirmishState, u: Soldier | Tank, cell: int) -> bool:
    """An enemy mine in the hex (§1.2): Field Craft spots it (halved walking, not when running), else it goes
    off as a grenade burst. Returns whether the mover may enter."""
    mines = s.mines
    if not mines or cell not in mines or mines[cell] == u.side or not isinstance(u, Soldier):
        return True
    from cardwar.envs.skirmish.resolve import blast

    skill = 0 if u.ran else u.fig.skill("field_craft")
    if s.orders.get(u.uid) is not None and s.orders[u.uid].mode == "walk":
        skill = halve(skill)  # Walk: "Chance of spotting mines, booby traps etc. Halved"
    layer = mines[cell]
    secret = not s.seen_by_enemy(u)  # the layer does not see the man: the umpire draws, in secret (§9.2)
    card = s.draw_for(u)
    del mines[cell]
    if card_rank(card) <= skill and card_rank(card) < 10:
        if secret:  # the layer, who saw nothing, still believes its mine is there
            s.lifted_unseen[cell] = layer
        s.log(f"{u.name} spots a mine", card=None if secret else card, side=u.side,
              seat=u.side if secret else None)
        return False
    s.log(f"a mine goes off under {u.name}", card=card, side=u.side)
    blast(s, 1 - u.side, cell, 2, "wound")
    return True


def halve_remaining(s: SkirmishState, u: Soldier | Tank, tick: int) -> None:
    """A wound halves the mover's remaining movement, rounding up (§5.5, §2.4): of the k hexes still to
    enter it enters the first ceil(k / 2), spread evenly over the rest of the turn."""
    entries = s.schedule.get(u.uid) or []
    if not u.active or not entries:
        s.schedule[u.uid] = []
        return
    keep = halve(len(entries))
    left = TICKS - tick
    s.schedule[u.uid] = [(tick + max(1, ceil(left * (i + 1) / keep)), c) for i, (_, c) in enumerate(entries[:keep])]


def watchers_for(s: SkirmishState, passed: dict[int, list[int]]) -> list[tuple[int, list[int]]]:
    """Undischarged opportunity-fire units that could fire at a mover in a hex it just entered (§5.5; every
    hex entered, so a fast vehicle does not cross a window of sight unseen): (watcher, target hexes), in unit
    order. ``passed``: mover -> the hexes it entered this tick."""
    out = []
    for w in s.units:
        order = s.orders.get(w.uid)
        if not w.active or order is None or not order.watch or getattr(w, "watch_fired", False):
            continue
        cells = could_fire_at_passing(s, w, passed)
        if cells:
            out.append((w.uid, cells))
    return out


def could_fire_at_passing(s: SkirmishState, w: Soldier | Tank, passed: dict[int, list[int]]) -> list[int]:
    """The hexes of ``passed`` (mover -> hexes it entered) where ``w`` could have fired at the mover: an active
    enemy, in reach, in sight from ``w`` (so seen by its side there, sight being symmetric, §1.4), and where
    ``w``'s guns bear (§8.3)."""
    from cardwar.envs.skirmish.sight import in_range, sees

    reach = fire_range(w)
    if reach == 0:
        return []
    out: list[int] = []
    for uid, cells in passed.items():
        m = s.units[uid]
        if m.side == w.side or not m.active:
            continue
        for cell in cells:
            if cell in out or not (in_range(s, w.cell, cell, reach) and sees(s, w.cell, cell, w.side)):
                continue
            if isinstance(w, Tank) and not w.v.can_traverse:
                from cardwar.envs.skirmish.vehicles import guns_bear

                if not guns_bear(w.v, cell):
                    continue
            out.append(cell)
    return sorted(out)


def mover_at(s: SkirmishState, passed: dict[int, list[int]], cell: int, side: int) -> Soldier | Tank:
    """The enemy of ``side`` that entered ``cell`` (the last one to, if several)."""
    return next(s.units[uid] for uid in reversed(list(passed)) if cell in passed[uid]
                and s.units[uid].side != side)


__all__ = ["TICKS", "could_fire_at_passing", "enter", "halve_remaining", "mover_at", "schedule_path", "watchers_for"]
