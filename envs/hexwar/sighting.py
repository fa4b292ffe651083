"""Sighting, lines of sight and cover (seed, "Sighting", "Shooting", "Cover", "Smoke").

Functions take plain lists from the state so that search and tests can call them.
"""

from __future__ import annotations

from collections.abc import Sequence

from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.geometry import BETWEEN, DIST
from cardwar.envs.hexwar.terrain import BLOCKS_SIGHT, COVER, Terrain
from cardwar.envs.hexwar.units import SIGHT_RANGE, TargetClass, UnitType, STATS


def _line_clear(cells: Sequence[int], terrain: Sequence[Terrain], blockers: set[int], smoke: Sequence[int],
                smoke_blocks: bool, on_map: Sequence[bool]) -> bool:
    for c in cells:
        if c < 0 or not on_map[c]:
            return False  # the line leaves the map on this side of an edge
        if terrain[c] in BLOCKS_SIGHT or c in blockers or (smoke_blocks and c in smoke):
            return False
    return True


def line_of_sight(a: int, b: int, terrain: Sequence[Terrain], blockers: set[int], smoke: Sequence[int],
                  config: HexConfig, on_map: Sequence[bool]) -> bool:
    """Whether ``a`` sees ``b`` (within 2 hexes, nothing blocking the hexes between).

    "line of sight is not blocked by hills, woods, buildings, and other units": a hex
    strictly between the two blocks when it has such terrain or holds a blocking unit
    (``blockers``). A line running along hex edges is judged on both sides
    (``config.edge_sight``); a side that leaves the map is blocked.
    """
    d = DIST[a][b]
    if d > SIGHT_RANGE:
        return False
    if d <= 1:
        return True
    left, right = BETWEEN[(a, b)]
    sb = config.smoke_blocks_sight
    lc = _line_clear(left, terrain, blockers, smoke, sb, on_map)
    if left == right:
        return lc
    rc = _line_clear(right, terrain, blockers, smoke, sb, on_map)
    return (lc or rc) if config.edge_sight == "either_side" else (lc and rc)


def broken_between(a: int, b: int, terrain: Sequence[Terrain]) -> bool:
    """'Broken Terrain ... provide cover if between the shooter and target': a broken
    hex strictly between them (on either side of an edge line)."""
    if DIST[a][b] != 2:
        return False
    left, right = BETWEEN[(a, b)]
    return any(c >= 0 and terrain[c] == Terrain.BROKEN for c in left + right)


def takes_cover(target_type: UnitType, target_cell: int, shooter_cell: int | None, terrain: Sequence[Terrain],
                smoke: Sequence[int], config: HexConfig) -> bool:
    """Whether the target counts as "in cover" (one -1, however many reasons apply).

    Infantry (or all soft units, by option) in woods, buildings or broken terrain, or
    behind broken terrain from a direct shooter; tanks (not other armour) hull-down on a
    hill; any unit in a smoked open hex.
    """
    if target_cell in smoke:
        return True
    t = terrain[target_cell]
    cls = STATS[target_type].target
    soft = cls == TargetClass.INFANTRY or (config.cover_applies_to == "soft" and cls == TargetClass.GUN)
    if soft and (t in COVER or (shooter_cell is not None and broken_between(shooter_cell, target_cell, terrain))):
        return True
    return target_type == UnitType.TANK and t == Terrain.HILL
