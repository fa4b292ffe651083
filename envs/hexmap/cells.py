"""Precomputed integer-cell tables of a fixed ``width`` x ``height`` odd-r hex map.

A cell is ``row * width + col``; directions 0..5 run counter-clockwise from east as ``grid.DIRECTIONS``
(0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE). Tables that every caller needs (neighbours, distances, labels) are built
once in the constructor; lines and radii are built on first use and kept. Use :func:`cell_grid` to share
one instance per size.
"""

from __future__ import annotations

from functools import lru_cache

from cardwar.envs.hexmap.grid import DIRECTIONS, Hex, from_offset, label, lines_between, parse_label, to_offset

OFF = -1
"""Stands for a position off the grid (in :meth:`CellGrid.line` and :meth:`CellGrid.neighbour`'s tables)."""


class CellGrid:
    """Neighbours, distances, lines and labels of the cells of a ``width`` x ``height`` map."""

    def __init__(self, width: int, height: int) -> None:
        if width < 1 or height < 1:
            raise ValueError(f"a hex map needs at least one column and one row, not {width} x {height}")
        self.width = width
        self.height = height
        self.size = width * height
        self.hexes: tuple[Hex, ...] = tuple(from_offset(c % width, c // width) for c in range(self.size))
        self._cell_of: dict[Hex, int] = {h: c for c, h in enumerate(self.hexes)}
        # per cell, per direction: the neighbouring cell or OFF
        self._step: tuple[tuple[int, ...], ...] = tuple(
            tuple(self._cell_of.get(Hex(h.q + d.q, h.r + d.r), OFF) for d in DIRECTIONS) for h in self.hexes)
        self._neighbours: tuple[tuple[int, ...], ...] = tuple(tuple(n for n in row if n != OFF)
                                                              for row in self._step)
        qs = [h.q for h in self.hexes]
        rs = [h.r for h in self.hexes]
        dist: list[int] = []
        for a in range(self.size):
            qa, ra = qs[a], rs[a]
            dist.extend((abs(qa - qb) + abs(ra - rb) + abs(qa - qb + ra - rb)) // 2 for qb, rb in zip(qs, rs))
        self._dist = dist
        self._labels: tuple[str, ...] = tuple(label(h) for h in self.hexes)
        self._lines: dict[tuple[int, int], tuple[tuple[int, ...], tuple[int, ...]]] = {}
        self._within: dict[tuple[int, int], tuple[int, ...]] = {}

    def __repr__(self) -> str:
        return f"CellGrid({self.width}, {self.height})"

    # ------------------------------------------------------------------ cells
    def cell(self, col: int, row: int) -> int:
        """The cell at offset column ``col``, row ``row`` (ValueError off the grid)."""
        if not (0 <= col < self.width and 0 <= row < self.height):
            raise ValueError(f"column {col}, row {row} is off the {self.width} x {self.height} grid")
        return row * self.width + col

    def col_row(self, cell: int) -> tuple[int, int]:
        """Offset (column, row) of ``cell``."""
        return cell % self.width, cell // self.width

    def hex(self, cell: int) -> Hex:
        """Axial coordinate of ``cell``."""
        return self.hexes[cell]

    def cell_of(self, h: Hex) -> int | None:
        """The cell of an axial hex, or None when it is off the grid."""
        return self._cell_of.get(h)

    # ------------------------------------------------------------- adjacency
    def neighbours(self, cell: int) -> tuple[int, ...]:
        """The on-grid neighbours of ``cell`` in direction order (east first, counter-clockwise)."""
        return self._neighbours[cell]

    def neighbour(self, cell: int, direction: int) -> int | None:
        """The cell one step from ``cell`` in ``direction`` (0 E .. 5 SE), or None off the grid."""
        n = self._step[cell][direction]
        return None if n == OFF else n

    def steps(self, cell: int) -> tuple[int, ...]:
        """The six cells around ``cell`` indexed by direction, OFF (-1) where off the grid."""
        return self._step[cell]

    def direction(self, a: int, b: int) -> int | None:
        """The direction from ``a`` to an adjacent ``b``, or None when they are not adjacent."""
        try:
            return self._step[a].index(b)
        except ValueError:
            return None

    def distance(self, a: int, b: int) -> int:
        """Hex distance between two cells: the fewest steps from one to the other."""
        return self._dist[a * self.size + b]

    def within(self, cell: int, radius: int) -> tuple[int, ...]:
        """Every cell at most ``radius`` from ``cell`` (itself included), in cell order."""
        key = (cell, radius)
        out = self._within.get(key)
        if out is None:
            base = cell * self.size
            d = self._dist
            out = tuple(c for c in range(self.size) if d[base + c] <= radius)
            self._within[key] = out
        return out

    def line(self, a: int, b: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The cells strictly between ``a`` and ``b`` on the hex line nudged to either side.

        Both sides are equal unless the line runs along hex edges; then they name the cells on either
        side of it. A position that leaves the grid is OFF (-1). ``line(b, a)`` is ``line(a, b)`` with
        each side reversed (the nudge moves the whole line, so the sampled points are the same).
        """
        key = (a, b)
        out = self._lines.get(key)
        if out is None:
            self._lines_from(a)
            out = self._lines[key]
        return out

    def _lines_from(self, a: int) -> None:
        """Every line from ``a`` at once: :func:`grid.line`'s cube lerp and rounding over numpy arrays (the same
        arithmetic, so the same cells; a test compares them), a few hundred times faster than pair by pair."""
        import numpy as np

        q = np.array([h.q for h in self.hexes], dtype=np.float64)
        r = np.array([h.r for h in self.hexes], dtype=np.float64)
        n = np.array(self._dist[a * self.size:(a + 1) * self.size])
        steps = np.arange(int(n.max()) + 1, dtype=np.float64)
        frac = steps[None, :] / np.maximum(n, 1)[:, None]
        sides = []
        for nudge in (1e-4, -1e-4):
            ax, ay = q[a] + nudge, r[a] + 2 * nudge
            az = -q[a] - r[a] - 3 * nudge
            bx, by, bz = q + nudge, r + 2 * nudge, -q - r - 3 * nudge
            x = ax + (bx - ax)[:, None] * frac
            y = ay + (by - ay)[:, None] * frac
            z = az + (bz - az)[:, None] * frac
            rx, ry, rz = np.round(x), np.round(y), np.round(z)
            dx, dy, dz = np.abs(rx - x), np.abs(ry - y), np.abs(rz - z)
            first = (dx > dy) & (dx > dz)
            second = ~first & (dy > dz)
            qq = np.where(first, -ry - rz, rx).astype(np.int64)
            rr = np.where(second, -rx - rz, ry).astype(np.int64)
            col = qq + (rr - (rr & 1)) // 2
            inside = (col >= 0) & (col < self.width) & (rr >= 0) & (rr < self.height)
            sides.append(np.where(inside, rr * self.width + col, OFF).tolist())
        left, right = sides
        for b in range(self.size):
            k = int(n[b])
            self._lines[(a, b)] = (tuple(left[b][1:k]), tuple(right[b][1:k]))

    def _cells_or_off(self, hexes: list[Hex]) -> tuple[int, ...]:
        cells = []
        for h in hexes:
            col, row = to_offset(h)
            cells.append(row * self.width + col if 0 <= col < self.width and 0 <= row < self.height else OFF)
        return tuple(cells)

    # ---------------------------------------------------------------- labels
    def label(self, cell: int) -> str:
        """Printed name of ``cell``: column letter + row number (``"A1"`` is cell 0)."""
        return self._labels[cell]

    def parse(self, text: str) -> int:
        """The cell named ``text`` (inverse of :meth:`label`); ValueError names a bad or off-grid label."""
        h = parse_label(text)
        cell = self._cell_of.get(h)
        if cell is None:
            raise ValueError(f"hex {text.strip().upper()} is off the {self.width} x {self.height} map")
        return cell


@lru_cache(maxsize=None)
def cell_grid(width: int, height: int) -> CellGrid:
    """The shared :class:`CellGrid` of that size (built once)."""
    return CellGrid(width, height)
