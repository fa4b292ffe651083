"""The Seemap: a 3x3 grid of Seazones lettered A to I (seed, Figure 2).

    Captain A
    G  H  I     <- Captain A's Seaports (row 2)
    D  E  F     (row 1)
    A  B  C     <- Captain B's Seaports (row 0)
    Captain B

Sealanes are the three columns (lane 0 = A-D-G, 1 = B-E-H, 2 = C-F-I); Rows are
the horizontal lines. A captain's *depth* of a Seazone counts Seazones from
their own Seaport (0) towards the enemy (2).
"""

from __future__ import annotations

CAPTAIN_A = 0
CAPTAIN_B = 1
CAPTAIN_NAMES = ("A", "B")
ZONE_LETTERS = "ABCDEFGHI"
NUM_ZONES = 9


def zone_row(zone: int) -> int:
    """Row 0 (Captain B's Seaports) .. 2 (Captain A's Seaports)."""
    return zone // 3


def zone_lane(zone: int) -> int:
    """Sealane (column) 0..2."""
    return zone % 3


def depth(captain: int, zone: int) -> int:
    """How far ``zone`` lies from ``captain``'s Seaports: 0 (own Seaport) .. 2 (enemy Seaport)."""
    return 2 - zone // 3 if captain == CAPTAIN_A else zone // 3


def zone_at(captain: int, lane: int, d: int) -> int:
    """The Seazone of ``lane`` at ``captain``'s depth ``d``."""
    row = 2 - d if captain == CAPTAIN_A else d
    return row * 3 + lane


def seaports(captain: int) -> tuple[int, int, int]:
    """The three Seazones closest to ``captain``."""
    return tuple(zone_at(captain, lane, 0) for lane in range(3))  # type: ignore[return-value]


def lane_zones(captain: int, lane: int) -> tuple[int, int, int]:
    """The zones of a Sealane from ``captain``'s Seaport forward."""
    return tuple(zone_at(captain, lane, d) for d in range(3))  # type: ignore[return-value]


def _neighbours(zone: int) -> tuple[int, ...]:
    r, c = divmod(zone, 3)
    out = []
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        rr, cc = r + dr, c + dc
        if 0 <= rr < 3 and 0 <= cc < 3:
            out.append(rr * 3 + cc)
    return tuple(sorted(out))


NEIGHBOURS: tuple[tuple[int, ...], ...] = tuple(_neighbours(z) for z in range(NUM_ZONES))
"""Orthogonally adjacent Seazones ("not diagonal") of each Seazone."""

EDGES: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(NUM_ZONES) for b in NEIGHBOURS[a])
"""The 24 directed attack lines (from, to) between orthogonal neighbours, sorted."""

EDGE_INDEX: dict[tuple[int, int], int] = {e: i for i, e in enumerate(EDGES)}


def is_horizontal(src: int, dst: int) -> bool:
    """Same Row: the geometry of a Broadside."""
    return zone_row(src) == zone_row(dst)


def zone_letter(zone: int) -> str:
    """``0 -> "A"`` ... ``8 -> "I"``."""
    return ZONE_LETTERS[zone]


def parse_zone(text: str) -> int:
    """``"e"`` -> 4; ValueError for anything that is not a Seazone letter A-I."""
    t = text.strip().upper()
    if len(t) != 1 or t not in ZONE_LETTERS:
        raise ValueError(f"not a Seazone: {text!r} (Seazones are the letters A to I)")
    return ZONE_LETTERS.index(t)
