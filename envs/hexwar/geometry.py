"""Precomputed geometry of the fixed 12 x 10 cell grid (every scenario uses it).

Cells are ``row * 12 + col`` in odd-r offset layout. Tables are built once at
import: neighbours, distances, and the hexes strictly between two cells two
apart (both nudged lines, for lines of sight along hex edges).
"""

from __future__ import annotations

from cardwar.envs.hexwar.hexgrid import distance, lines_between, neighbours, to_offset
from cardwar.envs.hexwar.scenario import MAX_HEIGHT, MAX_WIDTH, NUM_CELLS, cell_of, hex_of

HEXES = tuple(hex_of(c) for c in range(NUM_CELLS))



def _neighbour_cells(c: int) -> tuple[int, ...]:
    out = []
    for n in neighbours(HEXES[c]):
        nc = cell_of(n)
        col, row = nc % MAX_WIDTH, nc // MAX_WIDTH
        if 0 <= row < MAX_HEIGHT and 0 <= col < MAX_WIDTH and HEXES[nc] == n:
            out.append(nc)
    return tuple(sorted(out))


NEIGH: tuple[tuple[int, ...], ...] = tuple(_neighbour_cells(c) for c in range(NUM_CELLS))
"""Adjacent cells of each cell (inside the 12 x 10 grid)."""

DIST: tuple[tuple[int, ...], ...] = tuple(tuple(distance(HEXES[a], HEXES[b]) for b in range(NUM_CELLS))
                                          for a in range(NUM_CELLS))
"""Hex distance between any two cells."""


WITHIN_SIGHT: tuple[tuple[int, ...], ...] = tuple(tuple(b for b in range(NUM_CELLS) if DIST[a][b] <= 2)
                                                 for a in range(NUM_CELLS))
"""Cells within sighting range (2 hexes) of each cell, itself included."""


def _between() -> dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]]]:
    out = {}
    for a in range(NUM_CELLS):
        for b in range(NUM_CELLS):
            if DIST[a][b] == 2:
                left, right = lines_between(HEXES[a], HEXES[b])
                out[(a, b)] = (_cells_or_off(left), _cells_or_off(right))
    return out


OFF_GRID = -1
"""Marks a line side that leaves the 12 x 10 grid: such a side is blocked (no hex to see across)."""


def _cells_or_off(hexes) -> tuple[int, ...]:
    cells = []
    for h in hexes:
        col, row = to_offset(h)
        cells.append(row * MAX_WIDTH + col if 0 <= col < MAX_WIDTH and 0 <= row < MAX_HEIGHT else OFF_GRID)
    return tuple(cells)


BETWEEN = _between()
"""For cells two apart: the cells strictly between them on the line nudged to each side."""
