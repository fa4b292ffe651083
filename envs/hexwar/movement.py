"""Movement (seed, "Movement", "Terrain", "Interpenetration").

- Move up to the allowance (1 foot/guns, 2 mechanised/motorised/tanks/SPGs, 3 recce).
- "Units must cease movement when entering a hex adjacent to an enemy unit."
- "Units in hexes adjacent to an enemy occupied hex, can only leave the hex [by]
  moving into another hex not adjacent to an enemy unit."
- "Units moving into, through or out of woods, buildings or broken terrain ... may
  only move 1 hex."
- Rivers only at bridges and fords; marsh and lakes impassable; enemy hexes closed.
- "friendly units may pass through each other freely, unless adjacent to an enemy";
  a move ends only where the stacking limit leaves room.
"""

from __future__ import annotations

from collections.abc import Sequence

from cardwar.envs.hexwar.geometry import NEIGH
from cardwar.envs.hexwar.terrain import SLOW, Terrain


def reachable(start: int, allowance: int, side: int, terrain: Sequence[Terrain], passable: Sequence[bool],
              stack: Sequence[int], occupants: dict[int, list[int]], unit_side: Sequence[int],
              extra: int = 1) -> tuple[set[int], dict[int, int]]:
    """(destinations of a move from ``start``, the BFS parent of every cell entered).

    ``occupants`` maps cells to the units the mover's side knows of there (hidden enemies
    left out, so that the moves offered reveal nothing). ``extra`` is how many units
    arrive (2 for a joint move). A cell passed through may be full; a destination has room.

    The path to each cell is a shortest one that passes the fewest full hexes (ties: the
    first found), so that a move cut short by a revealed hidden enemy (RULES 8.1) can
    stop where it is cut whenever some shortest path allows it.
    """
    enemy_cells = {c for c, us in occupants.items() if unit_side[us[0]] != side}  # a hex holds one side only
    zone = {n for c in enemy_cells for n in NEIGH[c]}
    slow_start = terrain[start] in SLOW
    start_zoc = start in zone
    parent: dict[int, int] = {}
    full_on_path: dict[int, int] = {start: 0}  # full hexes entered on the way to each cell
    dests: set[int] = set()
    frontier = [start]
    seen = {start}
    for step in range(1 if slow_start else allowance):
        nxt = []
        layer: set[int] = set()
        for c in frontier:
            for n in NEIGH[c]:
                if n in layer:  # reached already at this distance: keep the path with fewer full hexes
                    if full_on_path[c] < full_on_path[parent[n]]:
                        full_on_path[n] += full_on_path[c] - full_on_path[parent[n]]
                        parent[n] = c
                    continue
                if n in seen or not passable[n]:
                    continue
                if n in enemy_cells:
                    continue
                slow = terrain[n] in SLOW
                if slow and step > 0:
                    continue
                zoc = n in zone
                if step == 0 and start_zoc and zoc:
                    continue
                seen.add(n)
                layer.add(n)
                parent[n] = c
                room = len(occupants.get(n, ())) + extra <= stack[n]
                full_on_path[n] = full_on_path[c] + (0 if room else 1)
                if room:
                    dests.add(n)
                if not slow and not zoc:
                    nxt.append(n)
        frontier = nxt
    return dests, parent


def path_to(parent: dict[int, int], start: int, dest: int) -> list[int]:
    """The cells entered on the way from ``start`` to ``dest`` (``dest`` included)."""
    out = [dest]
    while out[-1] != start:
        out.append(parent[out[-1]])
    out.pop()
    return out[::-1]
