"""Hex-grid geometry: axial coordinates, neighbours, distance, rings, lines, labels.

Follows Red Blob Games' guide ("Hexagonal Grids"): a frozen axial coordinate
``Hex(q, r)`` with the third cube coordinate ``s = -q - r`` derived. Maps are
rectangles of pointy-top hexes in "odd-r" offset layout (odd rows shoved right);
a hex is printed as column letter + row number, ``"A1"`` top-left. Board
contents live in mappings keyed by ``Hex``, never inside the coordinate.

Shared by the hex games (hexwar, skirmish); moved here from ``envs/hexwar/hexgrid.py``,
which re-exports it. Integer cell tables over a fixed rectangle: ``cells.CellGrid``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

__all__ = ["DIRECTIONS", "Hex", "distance", "from_offset", "label", "line", "lines_between", "neighbours",
           "parse_label", "rectangle", "ring", "spiral", "to_offset"]


class Hex(NamedTuple):
    """Axial hex coordinate; ``s`` is derived (q + r + s == 0)."""

    q: int
    r: int

    @property
    def s(self) -> int:
        return -self.q - self.r

    def __add__(self, other: Hex) -> Hex:  # type: ignore[override]
        return Hex(self.q + other.q, self.r + other.r)

    def __sub__(self, other: Hex) -> Hex:
        return Hex(self.q - other.q, self.r - other.r)

    def scale(self, k: int) -> Hex:
        return Hex(self.q * k, self.r * k)


DIRECTIONS: tuple[Hex, ...] = (Hex(1, 0), Hex(1, -1), Hex(0, -1), Hex(-1, 0), Hex(-1, 1), Hex(0, 1))
"""The six neighbour offsets, counter-clockwise from east."""


def neighbours(h: Hex) -> list[Hex]:
    """The six adjacent hexes (unbounded grid)."""
    return [Hex(h.q + d.q, h.r + d.r) for d in DIRECTIONS]


def distance(a: Hex, b: Hex) -> int:
    """Hex distance: the fewest steps between ``a`` and ``b``."""
    dq, dr = a.q - b.q, a.r - b.r
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def ring(center: Hex, radius: int) -> list[Hex]:
    """Hexes exactly ``radius`` away, in order around the ring (``[center]`` for 0)."""
    if radius == 0:
        return [center]
    out = []
    h = center + DIRECTIONS[4].scale(radius)
    for i in range(6):
        for _ in range(radius):
            out.append(h)
            h = h + DIRECTIONS[i]
    return out


def spiral(center: Hex, radius: int) -> list[Hex]:
    """Every hex within ``radius`` of ``center``, ring by ring."""
    return [h for k in range(radius + 1) for h in ring(center, k)]


def _cube_round(x: float, y: float, z: float) -> Hex:
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    return Hex(int(rx), int(ry))


def line(a: Hex, b: Hex, nudge: float = 1e-4) -> list[Hex]:
    """Hexes on the straight line from ``a`` to ``b`` inclusive (cube lerp + round).

    ``nudge`` shifts the line slightly so that a line running exactly along hex
    edges falls to one side; ``line(a, b, -nudge)`` gives the other side.
    """
    n = distance(a, b)
    if n == 0:
        return [a]
    # Red Blob's epsilon (e, 2e, -3e): unequal parts, so no coordinate sits on a rounding tie.
    ax, ay, az = a.q + nudge, a.r + 2 * nudge, a.s - 3 * nudge
    bx, by, bz = b.q + nudge, b.r + 2 * nudge, b.s - 3 * nudge
    return [_cube_round(ax + (bx - ax) * i / n, ay + (by - ay) * i / n, az + (bz - az) * i / n)
            for i in range(n + 1)]


def lines_between(a: Hex, b: Hex) -> tuple[list[Hex], list[Hex]]:
    """The intermediate hexes (endpoints excluded) of the line nudged to each side.

    Both are equal unless the line runs along hex edges; then they name the hexes
    on either side of the edge.
    """
    return line(a, b, 1e-4)[1:-1], line(a, b, -1e-4)[1:-1]


# ---------------------------------------------------------------- offset maps
def from_offset(col: int, row: int) -> Hex:
    """Axial hex of the odd-r offset cell (``col``, ``row``)."""
    return Hex(col - (row - (row & 1)) // 2, row)


def to_offset(h: Hex) -> tuple[int, int]:
    """Odd-r offset (col, row) of an axial hex."""
    return h.q + (h.r - (h.r & 1)) // 2, h.r


_COLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


def label(h: Hex) -> str:
    """Printed name of a hex: column letter + row number, ``Hex`` of (0, 0) is ``"A1"``."""
    col, row = to_offset(h)
    return f"{_COLS[col]}{row + 1}" if 0 <= col < 26 and row >= 0 else f"({h.q},{h.r})"


def parse_label(text: str) -> Hex:
    """Inverse of :func:`label`; ValueError names the bad label."""
    t = text.strip().upper()
    if len(t) < 2 or t[0] not in _COLS or not t[1:].isdigit() or int(t[1:]) < 1:
        raise ValueError(f"not a hex label: {text!r} (write column letter and row number, e.g. C4)")
    return from_offset(_COLS.index(t[0]), int(t[1:]) - 1)


def rectangle(width: int, height: int) -> Iterator[Hex]:
    """Every hex of a ``width`` x ``height`` odd-r map, row by row."""
    for row in range(height):
        for col in range(width):
            yield from_offset(col, row)
