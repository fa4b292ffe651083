"""Terrain of the hex WW2 game (seed, "Terrain", "Sighting", "Cover").

Map files write one character per hex: ``.`` clear, ``W`` woods, ``B``
buildings, ``X`` broken terrain (walls, hedges), ``H`` hill, ``~`` river, ``F``
ford, ``=`` bridge, ``M`` marsh, ``L`` lake.
"""

from __future__ import annotations

from enum import IntEnum


class Terrain(IntEnum):
    """One hex's terrain."""

    CLEAR = 0
    WOODS = 1
    BUILDINGS = 2
    BROKEN = 3
    HILL = 4
    RIVER = 5
    FORD = 6
    BRIDGE = 7
    MARSH = 8
    LAKE = 9


CHARS = {".": Terrain.CLEAR, "W": Terrain.WOODS, "B": Terrain.BUILDINGS, "X": Terrain.BROKEN, "H": Terrain.HILL,
         "~": Terrain.RIVER, "F": Terrain.FORD, "=": Terrain.BRIDGE, "M": Terrain.MARSH, "L": Terrain.LAKE}
CHAR_OF = {v: k for k, v in CHARS.items()}

IMPASSABLE = frozenset({Terrain.RIVER, Terrain.MARSH, Terrain.LAKE})
"""'Rivers - can only be crossed via bridges and fords'; 'Marshland and Lakes - impassable to all units'."""

SLOW = frozenset({Terrain.WOODS, Terrain.BUILDINGS, Terrain.BROKEN})
"""'Units moving into, through or out of woods, buildings or broken terrain units may only move 1 hex.'"""

COVER = SLOW
"""'Infantry in woods, towns, or broken terrain' are in cover."""

BLOCKS_SIGHT = frozenset({Terrain.WOODS, Terrain.BUILDINGS, Terrain.HILL})
"""'line of sight is not blocked by hills, woods, buildings' (an intervening hex blocks)."""

OPEN_READINGS: dict[str, frozenset[Terrain]] = {
    "clear": frozenset({Terrain.CLEAR}),
    "no_cover": frozenset({Terrain.CLEAR, Terrain.HILL, Terrain.FORD, Terrain.BRIDGE}),
}
"""Readings of "open terrain" (rule option ``open_terrain``; RULES.md section 1). The seed
sets "terrain hex" against "open terrain hex" ("Only 1 unit may occupy any terrain hex.
Up to 2 friendly units can occupy an open terrain hex"), and its Terrain section lists
hills, rivers (with their fords and bridges), woods, buildings and broken ground as
terrain. ``"clear"`` (default): only clear hexes are open. ``"no_cover"``: every passable
hex that gives no terrain cover to infantry (clear, hill, ford, bridge) is open. One
reading serves stacking, evasive action and smoke alike."""

OPEN = OPEN_READINGS["clear"]
"""Open terrain under the default reading: where two units may stack, evasive action is
possible and smoke may be laid."""


def open_terrain(reading: str = "clear") -> frozenset[Terrain]:
    """The open terrain types under a reading of ``HexConfig.open_terrain``."""
    return OPEN_READINGS[reading]


def stack_limit(t: Terrain, reading: str = "clear") -> int:
    """'Only 1 unit may occupy any terrain hex. Up to 2 friendly units can occupy an open terrain hex.'

    Two in an open hex, one elsewhere; open as ``reading`` says (default: clear hexes only,
    so hills, fords and bridges hold one unit).
    """
    return 2 if t in OPEN_READINGS[reading] else 1
