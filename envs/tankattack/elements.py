"""The element table of Tank Attack: classes, movement, ranges, combat factors and costs (RULES.md section 3).

Every figure is the seed's, as rebuilt in RULES.md 3.2-3.5; the readings there (Sturmtruppe 300p, AAA as
Field Artillery, the Air Ace's +5, the Zeppelin as a Bomber) are applied here once.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple


class EType(IntEnum):
    """Element types (RULES.md 3.1). The General is a Rifles element with a flag, not a type."""

    RIFLES = 0
    DISMOUNTED_CAVALRY = 1
    STURMTRUPPE = 2
    MG = 3
    LIGHT_MORTAR = 4
    MEDIUM_MORTAR = 5
    FIELD_ARTILLERY = 6
    HEAVY_ARTILLERY = 7
    AAA = 8
    FORWARD_OBSERVER = 9
    SNIPER = 10
    MINEFIELD = 11
    TANK = 12
    ARMOURED_CAR = 13
    CAVALRY = 14
    BALLOON = 15
    BOMBER = 16
    FIGHTER = 17
    SCOUT = 18
    AIR_ACE = 19
    BARRAGE = 20
    GAS = 21


class Cls(IntEnum):
    """The seed's classes (L8-74): Aerial, Mounted, Foot."""

    AERIAL = 0
    MOUNTED = 1
    FOOT = 2


class Col(IntEnum):
    """The combat-factor columns: the *enemy's* kind (RULES.md 3.4)."""

    FOOT = 0
    STRONGHOLD = 1
    TANK = 2
    CAV_AC = 3
    AERIAL = 4


class Going(IntEnum):
    """Movement going, best to worst (RULES.md 8.2)."""

    ROAD = 0
    GOOD = 1
    BAD = 2
    RIVER = 3


NO = None
"""A "--" in the movement table: may not enter that going."""


class Stats(NamedTuple):
    """One element type's data row."""

    name: str
    cls: Cls
    move: tuple[int | None, int | None, int | None, int | None] | None
    """Paces by going (road, good, bad, river); ``None``: immobile (RULES.md 3.2)."""
    range: int
    """Shooting range in paces; 0: does not shoot (RULES.md 3.3)."""
    shoots_air: bool
    shoots_ground: bool
    cf: tuple[int | None, int | None, int | None, int | None, int | None]
    """Combat factor by the enemy's column (Col); for guns the value at range (3.4)."""
    cf_contact: int | None
    """For Art/MG/Mortar/AAA: the factor "vs any in base contact" (L463-464); else ``None``."""
    ap: int
    depth_mm: int


def _row(v: int) -> tuple[int, int, int, int, int]:
    return (v, v, v, v, v)


_AIR_FAST = (1200, 1200, 1200, 1200)
STATS: dict[EType, Stats] = {
    EType.RIFLES: Stats("Rifles", Cls.FOOT, (400, 300, 300, 100), 300, True, True, (3, 3, 3, 4, 4), None, 2, 30),
    EType.DISMOUNTED_CAVALRY: Stats("Dismounted Cavalry", Cls.FOOT, (400, 300, 300, 100), 300, True, True,
                                    (3, 3, 3, 4, 4), None, 2, 30),
    EType.STURMTRUPPE: Stats("Sturmtruppe", Cls.FOOT, (400, 300, 200, 100), 0, False, False, (5, 5, 5, 3, 3), None,
                             3, 20),
    EType.MG: Stats("MG", Cls.FOOT, (400, 200, 200, 100), 400, True, True, _row(4), 2, 3, 30),
    EType.LIGHT_MORTAR: Stats("Light Mortar", Cls.FOOT, (400, 200, 200, 100), 500, False, True, _row(4), 2, 3, 30),
    EType.MEDIUM_MORTAR: Stats("Medium Mortar", Cls.FOOT, None, 1000, False, True, _row(5), 2, 4, 30),
    EType.FIELD_ARTILLERY: Stats("Field Artillery", Cls.FOOT, (300, 200, NO, 100), 1200, True, True, _row(4), 2, 3,
                                 40),
    EType.HEAVY_ARTILLERY: Stats("Heavy Artillery", Cls.FOOT, None, 2400, True, True, _row(5), 2, 4, 40),
    EType.AAA: Stats("AAA", Cls.FOOT, (300, 200, NO, 100), 1200, True, False, _row(4), 2, 3, 40),
    EType.FORWARD_OBSERVER: Stats("Forward Observer", Cls.FOOT, (400, 300, 200, 100), 0, False, False, _row(2), None,
                                  1, 20),
    EType.SNIPER: Stats("Sniper", Cls.FOOT, (400, 200, 200, 100), 400, False, True, _row(2), None, 1, 30),
    EType.MINEFIELD: Stats("Minefield", Cls.FOOT, (200, 200, 200, 200), 0, False, False, _row(2), None, 1, 30),
    EType.TANK: Stats("Tank", Cls.MOUNTED, (200, 200, 100, 100), 0, False, False, (4, 4, 5, 5, 5), None, 4, 40),
    EType.ARMOURED_CAR: Stats("Armoured Car", Cls.MOUNTED, (400, 300, 200, 100), 0, False, False, (3, 3, 3, 4, 4),
                              None, 2, 40),
    EType.CAVALRY: Stats("Cavalry", Cls.MOUNTED, (500, 500, 200, 100), 0, False, False, _row(3), None, 2, 30),
    EType.BALLOON: Stats("Balloon", Cls.AERIAL, (200, 200, 200, 200), 0, False, False, _row(2), None, 1, 40),
    EType.BOMBER: Stats("Bomber", Cls.AERIAL, (500, 500, 500, 500), 0, False, False, (5, 5, 5, 3, 3), None, 3, 60),
    EType.FIGHTER: Stats("Fighter", Cls.AERIAL, _AIR_FAST, 0, False, False, _row(2), None, 4, 40),
    EType.SCOUT: Stats("Scout", Cls.AERIAL, _AIR_FAST, 0, False, False, _row(1), None, 2, 40),
    EType.AIR_ACE: Stats("Air Ace", Cls.AERIAL, _AIR_FAST, 0, False, False, _row(5), None, 6, 40),
    EType.BARRAGE: Stats("Barrage", Cls.FOOT, (300, 300, 300, 300), 0, False, False, (6, 6, 6, 6, None), None, 4, 40),
    EType.GAS: Stats("Gas", Cls.FOOT, (200, 200, 200, 200), 0, False, False, _row(2), None, 1, 30),
}

BUNKER_CF = (6, None, 6, 6, 6)
"""The Command Bunker's row (3.4): +6 against all but strongholds."""
WIRE_CF = 3
"""Barbed wire's factor, against a Barrage only (L123)."""

NAMES: dict[str, EType] = {STATS[t].name.lower().replace(" ", "_"): t for t in EType}
NAMES.update({"general": EType.RIFLES, "trench_raiders": EType.STURMTRUPPE, "machinegun": EType.MG,
              "heavy_mortar": EType.MEDIUM_MORTAR, "fo": EType.FORWARD_OBSERVER, "zeppelin": EType.BOMBER,
              "whippet": EType.ARMOURED_CAR})

RIFLE_LIKE = frozenset({EType.RIFLES, EType.DISMOUNTED_CAVALRY})
"""Rifles and Dismounted Cavalry share every row (CF, range, outcomes; RULES.md 8.8)."""
GUNS = frozenset({EType.MG, EType.LIGHT_MORTAR, EType.MEDIUM_MORTAR, EType.FIELD_ARTILLERY, EType.HEAVY_ARTILLERY,
                  EType.AAA})
"""The outcome row "Art/MG/Mortar/AAA" (L615)."""
ARTILLERY = frozenset({EType.FIELD_ARTILLERY, EType.HEAVY_ARTILLERY, EType.AAA})
"""Guns that shoot only in their own bound and only if they have not moved (11.1)."""
MORTARS = frozenset({EType.LIGHT_MORTAR, EType.MEDIUM_MORTAR})
IMMOBILE = frozenset({EType.MEDIUM_MORTAR, EType.HEAVY_ARTILLERY})
"""Entrenched: never move; their cell is a one-cell trench (3.2)."""
FAST_AIR = frozenset({EType.FIGHTER, EType.SCOUT, EType.AIR_ACE})
OFF_BOARD_FIRE = frozenset({EType.BARRAGE, EType.GAS})
LURKERS = frozenset({EType.SNIPER, EType.MINEFIELD})
RESERVE_ONLY = frozenset({EType.BARRAGE, EType.GAS, EType.SNIPER, EType.MINEFIELD, EType.BALLOON, EType.BOMBER,
                          EType.FIGHTER, EType.SCOUT, EType.AIR_ACE})
"""Types never deployed at the start (RULES.md 5 steps 6-7, 9)."""
NO_ZOC = frozenset({EType.BARRAGE, EType.GAS, EType.MINEFIELD})
"""Ground elements without a ZOC (8.5); Aerials have none either."""
PURSUERS = frozenset({EType.CAVALRY, EType.RIFLES, EType.DISMOUNTED_CAVALRY, EType.STURMTRUPPE})
"""Who must pursue (15.5, L744)."""
BG_RESTRICTED = frozenset({EType.CAVALRY, EType.ARMOURED_CAR, EType.FORWARD_OBSERVER, EType.FIELD_ARTILLERY,
                           EType.AAA})
"""Slower in bad going, for "Close Attack on Trench" (13.1); Tanks exempt by name, Sturmtruppe by option."""
NO_TRENCH = frozenset({EType.CAVALRY, EType.ARMOURED_CAR})
"""May not enter trench cells (16.1)."""


def cls_of(t: EType) -> Cls:
    return STATS[t].cls


def is_aerial(t: EType) -> bool:
    return STATS[t].cls is Cls.AERIAL


def is_ground(t: EType) -> bool:
    """Every element that is not an Aerial (3.1)."""
    return STATS[t].cls is not Cls.AERIAL


def column_of(t: EType, stronghold: bool = False) -> Col:
    """The column another element uses against an enemy of type ``t`` (3.4): "others" are Cavalry, Armoured
    Cars and Aerials; an element in a Strongpoint is a stronghold."""
    if stronghold:
        return Col.STRONGHOLD
    if t is EType.TANK:
        return Col.TANK
    if t in (EType.CAVALRY, EType.ARMOURED_CAR):
        return Col.CAV_AC
    if is_aerial(t):
        return Col.AERIAL
    return Col.FOOT


def combat_factor(t: EType, enemy_col: Col, close: bool) -> int | None:
    """``t``'s factor against the enemy's column; guns use their "in base contact" 2 in close combat (3.4).
    ``None``: the seed gives no factor (a Barrage against an Aerial)."""
    s = STATS[t]
    if close and s.cf_contact is not None:
        return s.cf_contact
    return s.cf[enemy_col]


def allowance(t: EType, going: Going) -> int | None:
    """Paces of a tactical move in the worst ``going`` of its path; ``None``: may not (3.2)."""
    m = STATS[t].move
    return None if m is None else m[going]
