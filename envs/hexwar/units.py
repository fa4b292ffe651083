"""Unit types of the hex WW2 game (seed, "Units Types", "Movement", "Shooting").

Each type has a movement allowance, a class it shoots as and a class it is hit
as: "SPGs are treated as tanks when shot at, but shoot as AT guns", "Armoured
cars ... are treated as tanks when shot at, but shoot as infantry".
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class UnitType(IntEnum):
    """The seed's unit types."""

    FOOT = 0
    MECHANISED = 1
    MOTORISED = 2
    AT_GUN = 3
    TANK = 4
    SPG = 5
    MORTAR = 6
    ARTILLERY = 7
    ARMOURED_CAR = 8


class FireClass(IntEnum):
    """What a unit shoots as (the D3 modifiers key on it)."""

    INFANTRY = 0
    ANTI_TANK = 1
    TANK = 2
    INDIRECT = 3


class TargetClass(IntEnum):
    """What a unit is hit as."""

    INFANTRY = 0
    ARMOUR = 1
    GUN = 2


class UnitStats(NamedTuple):
    """Fixed characteristics of a unit type."""

    name: str
    code: str
    """One-letter symbol for maps and text; no terrain character uses it (the mortar is "R",
    as "M" is marsh)."""
    move: int
    fire: FireClass
    target: TargetClass
    points: int
    """Value for balancing forces in the procedural scenarios."""


STATS: dict[UnitType, UnitStats] = {
    UnitType.FOOT: UnitStats("foot infantry", "I", 1, FireClass.INFANTRY, TargetClass.INFANTRY, 3),
    UnitType.MECHANISED: UnitStats("mechanised infantry", "N", 2, FireClass.INFANTRY, TargetClass.INFANTRY, 4),
    UnitType.MOTORISED: UnitStats("motorised infantry", "O", 2, FireClass.INFANTRY, TargetClass.INFANTRY, 3),
    UnitType.AT_GUN: UnitStats("anti-tank gun", "G", 1, FireClass.ANTI_TANK, TargetClass.GUN, 3),
    UnitType.TANK: UnitStats("tank", "T", 2, FireClass.TANK, TargetClass.ARMOUR, 5),
    UnitType.SPG: UnitStats("self-propelled gun", "S", 2, FireClass.ANTI_TANK, TargetClass.ARMOUR, 4),
    UnitType.MORTAR: UnitStats("mortar", "R", 1, FireClass.INDIRECT, TargetClass.GUN, 3),
    UnitType.ARTILLERY: UnitStats("artillery", "A", 1, FireClass.INDIRECT, TargetClass.GUN, 4),
    UnitType.ARMOURED_CAR: UnitStats("armoured car", "C", 3, FireClass.INFANTRY, TargetClass.ARMOUR, 3),
}

TYPE_NAMES: dict[str, UnitType] = {
    "foot": UnitType.FOOT, "infantry": UnitType.FOOT, "mechanised": UnitType.MECHANISED,
    "motorised": UnitType.MOTORISED, "at_gun": UnitType.AT_GUN, "tank": UnitType.TANK, "spg": UnitType.SPG,
    "mortar": UnitType.MORTAR, "artillery": UnitType.ARTILLERY, "armoured_car": UnitType.ARMOURED_CAR,
}
"""Names used in scenario files."""

DIRECT_RANGE = 2
"""Infantry, armoured infantry, A/Cars, AT guns and tanks (and SPGs) shoot 2 hexes."""

SIGHT_RANGE = 2
"""'All units can be sighted if within 2 hexes'."""

MORTAR_MIN_RANGE = 2
ELIMINATED_AFTER = 8
"""'Units are eliminated after accumulating more than 8 hits.'"""


def type_name(t: UnitType) -> str:
    """The scenario-file name of a type."""
    return next(k for k, v in TYPE_NAMES.items() if v == t and k != "infantry")
