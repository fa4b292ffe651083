"""What a seat cannot know, redrawn: the safe clone for search and the resampler the hidden-information tests
use (RULES.md §9.2; OpenSpiel's ``resample_from_infostate``).

:func:`clone_for` copies a state and redraws the future the seat cannot see (the random generator, the order
of both packs and of the activation deck), so a search on it never sees the coming cards. :func:`resample_hidden`
goes further: it also moves every enemy unit the seat does not see to another hex the seat does not see,
aimed at the hexes that matter (where the seat's units could move, and what they would see from there), and
moves the enemy's mines. The seat's information view is the same in both; anything else it is given must be
too (``tests/hidden/test_infostate.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from cardwar.envs.skirmish import options
from cardwar.envs.skirmish.figures import Stance
from cardwar.envs.skirmish.pending import Stage
from cardwar.envs.skirmish.sight import seen_cells, update_sight
from cardwar.envs.skirmish.units import Soldier, Tank

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import SkirmishState

TARGETED = 0.75
"""How often an unseen enemy is put on a hex the seat's next moves would reach or see (else anywhere unseen)."""


def clone_for(s: SkirmishState, seat: int, rng: np.random.Generator) -> SkirmishState:
    """A copy of ``s`` whose chance the seat cannot know is drawn anew: the generator, the order of each
    pack's draw pile and of the activation deck (§3.1, §7.2). What is dealt, seen or drawn stays."""
    t = s.clone()
    t.rng = np.random.default_rng(int(rng.integers(2**63)))
    for pack in t.packs:
        rng.shuffle(pack.draw_pile)
    rng.shuffle(t.deck)
    t.path_cache.clear()
    return t


def resample_hidden(s: SkirmishState, seat: int, rng: np.random.Generator) -> SkirmishState:
    """A state ``seat`` cannot tell from ``s``: :func:`clone_for`, with the enemy units it does not see and the
    enemy's mines moved to hexes it does not see, and the decision in hand asked again of the new state."""
    t = clone_for(s, seat, rng)
    if t.over:
        return t
    busy = _busy(t)
    watched = _watched(t, seat)
    targets = sorted(_targets(t, seat) - watched)
    focus = sorted(_decision_cells(t, seat) - watched)
    for u in t.units:
        if u.side == seat or u.uid in t.seen[seat] or not u.holds_hex or _moving(t, u) or u.uid in busy:
            continue
        cell = _free_hex(t, u, watched, focus if focus and rng.random() < 0.5 else targets, rng)
        if cell is not None:
            _put(t, u, cell, rng)
    _move_mines(t, seat, rng)
    update_sight(t)
    if t.seen[seat] != s.seen[seat]:  # a move put an enemy in sight after all (a vehicle blocking a view)
        return clone_for(s, seat, rng)
    t.path_cache.clear()
    if t.decision is not None and t.decision.seat == seat:  # the seat's own question, asked of the new state
        from cardwar.envs.skirmish import flow

        flow.ask_again(t)
    return t


def _busy(s: SkirmishState) -> set[int]:
    """Units the machine is in the middle of: the one asked, and those queued to be asked (opportunity fire)."""
    out = {uid for uid, _ in s.interrupts}
    if s.decision is not None and s.decision.unit is not None:
        out.add(s.decision.unit)
    if s.stage == Stage.AFTER_MOVE_FIRE:
        out.update(s.queue)
    return out


def _moving(s: SkirmishState, u: Soldier | Tank) -> bool:
    """A unit part-way through a move or with a declared route keeps its hex (the route starts there)."""
    order = s.orders.get(u.uid)
    return bool(s.schedule.get(u.uid)) or u.uid in s.trail or (order is not None and bool(order.path))


def _watched(s: SkirmishState, seat: int) -> set[int]:
    """Every hex the seat's active units see now (an unseen enemy stands on none of them)."""
    out: set[int] = set()
    for u in s.active_units(seat):
        out |= seen_cells(s, u.cell)
    if s.rules.visibility == "open":
        out |= set(range(len(s.scenario.board.ground)))
    return out


def _reach(s: SkirmishState, u: Soldier | Tank) -> set[int]:
    """Every hex on a path the unit could be offered now: each movement mode's, a vehicle's at each speed (a
    whole turn, and a deck activation's third)."""
    from cardwar.envs.skirmish import flow

    out: set[int] = set()
    if isinstance(u, Soldier):
        for mode in ("run", "walk", "crawl", "search", "all_out_run", "move"):
            for path in options.move_paths(s, u, mode).values():
                out.update(path)
    elif u.v.can_move:
        for speed in u.v.legal_speeds():
            for fraction in (1, flow.DECK_FRACTION):
                for path in flow._vehicle_paths(s, u, speed, fraction=fraction).values():
                    out.update(path)
    return out


def _targets(s: SkirmishState, seat: int) -> set[int]:
    """The hexes that matter to the seat's next decisions: where its units could move, and what they would see
    from there."""
    out: set[int] = set()
    for u in s.active_units(seat):
        out |= _reach(s, u)
    for cell in list(out)[:40]:
        out |= seen_cells(s, cell)
    return out


def _decision_cells(s: SkirmishState, seat: int) -> set[int]:
    """The hexes of the decision in hand: every hex on the paths the seat's unit is choosing among."""
    d = s.decision
    if d is None or d.seat != seat or d.unit is None:
        return set()
    return _reach(s, s.units[d.unit])


def _free_hex(s: SkirmishState, u: Soldier | Tank, watched: set[int], targets: list[int],
              rng: np.random.Generator) -> int | None:
    taken = {o.cell for o in s.units if o.holds_hex and o is not u}
    pool = [c for c in targets if c not in taken and _may_stand(s, u, c)]
    if not pool or rng.random() > TARGETED:
        board = s.scenario.board
        pool = [c for c in range(len(board.ground)) if board.on_map(c) and c not in watched and c not in taken
                and _may_stand(s, u, c)]
    return int(pool[int(rng.integers(len(pool)))]) if pool else None


def _may_stand(s: SkirmishState, u: Soldier | Tank, cell: int) -> bool:
    """A hex the unit could have moved into: one it can enter from a neighbour."""
    board = s.scenario.board
    if not board.on_map(cell) or cell in s.mines:
        return False
    if isinstance(u, Tank):
        from cardwar.envs.skirmish.vehicles import step_cost

        return any(step_cost(board, u.v.kind, n, cell, open_doors=s.open_doors) is not None
                   for n in board.neighbours(cell))
    return any(board.crossing(n, cell, stance=Stance.STANDING, running=False, open_doors=s.open_doors) is not None
               for n in board.neighbours(cell))


def _put(s: SkirmishState, u: Soldier | Tank, cell: int, rng: np.random.Generator) -> None:
    u.cell = cell
    if isinstance(u, Tank):
        u.v.cell = cell
        u.v.facing = int(rng.integers(6))
        for rider in s.riders(u):
            rider.cell = cell


def _move_mines(s: SkirmishState, seat: int, rng: np.random.Generator) -> None:
    """The enemy's mines, each to a hex the seat might walk into next (or anywhere it holds no mine)."""
    enemy = [c for c, side in s.mines.items() if side != seat]
    if not enemy:
        return
    taken = {o.cell for o in s.units if o.holds_hex} | set(s.mines)
    board = s.scenario.board
    pool = [c for c in sorted(_targets(s, seat)) if c not in taken and board.on_map(c)]
    for cell in enemy:
        del s.mines[cell]
        choices = [c for c in pool if c not in s.mines]
        if choices:
            cell = choices[int(rng.integers(len(choices)))]
        s.mines[cell] = 1 - seat
