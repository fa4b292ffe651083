"""Who gets where first: movement distances on a scenario's map (for the generator and balance figures).

``moves_to_reach`` counts activations: each activation a unit moves as the movement
rules allow (its allowance; one hex into, through or out of woods, buildings and
broken ground; rivers only at fords and bridges; RULES.md section 4), ignoring other
units, zones of control and stacking - the distance a side needs on an empty map.
``hexes_to_reach`` is the plain breadth-first hex distance over passable hexes.
A side reaches an objective first when its fastest unit needs strictly fewer
activations than the other side's fastest unit.
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache

from cardwar.envs.hexwar.geometry import NEIGH
from cardwar.envs.hexwar.movement import reachable
from cardwar.envs.hexwar.scenario import NUM_CELLS, Scenario, cell_of
from cardwar.envs.hexwar.units import STATS

UNREACHABLE = 10**6
_ROOMY = (99,) * NUM_CELLS
_NOBODY: tuple[int, ...] = ()


@lru_cache(maxsize=64)
def _one_move_table(terrain: tuple, passable: tuple, allowance: int) -> tuple[tuple[int, ...], ...]:
    """For every cell: the cells one activation of a unit with ``allowance`` reaches on an empty map."""
    out = []
    for c in range(NUM_CELLS):
        if not passable[c]:
            out.append(())
            continue
        dests, _ = reachable(c, allowance, 0, terrain, passable, _ROOMY, {}, _NOBODY)
        out.append(tuple(sorted(dests)))
    return tuple(out)


def moves_from(sc: Scenario | tuple[tuple, tuple], start: int, allowance: int) -> list[int]:
    """Activations a unit with ``allowance`` needs from ``start`` to every cell (UNREACHABLE if none).

    ``sc`` is a scenario or its (terrain, passable) pair of per-cell tuples.
    """
    terrain, passable = (sc.terrain, sc.passable) if isinstance(sc, Scenario) else sc
    table = _one_move_table(tuple(terrain), tuple(passable), allowance)
    dist = [UNREACHABLE] * NUM_CELLS
    dist[start] = 0
    queue = deque([start])
    while queue:
        c = queue.popleft()
        for n in table[c]:
            if dist[n] == UNREACHABLE:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def hexes_from(sc: Scenario | tuple[tuple, tuple], starts: list[int]) -> list[int]:
    """Breadth-first hex distance over passable hexes from the nearest of ``starts``."""
    passable = sc.passable if isinstance(sc, Scenario) else sc[1]
    dist = [UNREACHABLE] * NUM_CELLS
    queue = deque()
    for c in starts:
        if dist[c] == UNREACHABLE:
            dist[c] = 0
            queue.append(c)
    while queue:
        c = queue.popleft()
        for n in NEIGH[c]:
            if passable[n] and dist[n] == UNREACHABLE:
                dist[n] = dist[c] + 1
                queue.append(n)
    return dist


def side_units(sc: Scenario, side: int) -> list[tuple[int, int]]:
    """(cell, movement allowance) of each of ``side``'s units on the table."""
    return [(cell_of(u.hex), STATS[u.type].move) for u in sc.units if u.side == side and u.hex is not None]


def fastest_moves(board: Scenario | tuple[tuple, tuple], units: list[tuple[int, int]]) -> list[int]:
    """For every cell, the activations the fastest of ``units`` ((cell, allowance) pairs) needs."""
    best = [UNREACHABLE] * NUM_CELLS
    for cell, allowance in units:
        best = [min(a, b) for a, b in zip(best, moves_from(board, cell, allowance))]
    return best


def moves_to_reach(sc: Scenario, side: int) -> list[int]:
    """For every cell, the activations ``side``'s fastest unit needs to stand there."""
    return fastest_moves(sc, side_units(sc, side))


def hexes_to_reach(sc: Scenario, side: int) -> list[int]:
    """For every cell, the hex distance from ``side``'s nearest unit on the table."""
    return hexes_from(sc, [c for c, _ in side_units(sc, side)])


def first_to_objectives(sc: Scenario, metric: str = "moves") -> list[int]:
    """For each objective: 0 or 1, the side that gets there strictly first, or -1 for a tie.

    ``metric`` is "moves" (activations, units' speeds and terrain) or "hexes" (BFS distance).
    """
    measure = moves_to_reach if metric == "moves" else hexes_to_reach
    blue, red = measure(sc, 0), measure(sc, 1)
    out = []
    for o in sc.objectives:
        c = cell_of(o.hex)
        out.append(-1 if blue[c] == red[c] else (0 if blue[c] < red[c] else 1))
    return out


def first_everywhere(sc: Scenario, metric: str = "moves") -> int:
    """The side that reaches every objective first (-1 if neither does)."""
    firsts = first_to_objectives(sc, metric)
    for side in (0, 1):
        if firsts and all(f == side for f in firsts):
            return side
    return -1
