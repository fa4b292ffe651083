"""The seed's weapon tables in hexes (Hit the Deck! v1.5, "Weapons", "Thrown", "Anti-Tank Weapons").

Scale: the seed's "1 inch equals 2 metres" and the game's 1 hex = 4 m = 2 inches. A distance in
inches becomes ``floor(inches / 2)`` hexes: a hex is within a range or a radius when its centre is
(hex distance d is 4d metres). So pistol 6" = 3 hexes, rifle 36" = 18, a petrol bomb's 3" radius
= 1 hex, a medium HE blast of 7½" = 3 hexes.

Ammunition and reload and set-up times are not in the seed's tables ("The weapon ammunition
capacities have been adjusted accordingly" names no figure); the values here are stated readings.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum, IntEnum

from cardwar.envs.skirmish.cards import Suit, card_rank, card_suit

INCHES_PER_HEX = 2
METRES_PER_HEX = 4


def inches_to_hexes(inches: float) -> int:
    """Whole hexes within ``inches`` of the seed's table (rounded down)."""
    return math.floor(inches / INCHES_PER_HEX)


@dataclass(frozen=True)
class Firearm:
    """A row of the "Single Shot and Semi-Automatic" table (| Type | Rounds per Turn | Range |)."""

    key: str
    name: str
    rounds_per_turn: int
    range_hexes: int | None
    """``None``: "Line of sight" (the MMG)."""
    deployed_range_hexes: int | None = None
    """Range once set up (the LMG "on bipod"); ``None`` when the weapon has no deployed form."""
    full_auto: bool = False
    """May fire "Fully Automatic" (three times the rounds, up to three adjacent targets)."""
    magazine: int = 0
    """Rounds in one load (a reading: the seed gives no figure)."""
    reload_cards: int = 1
    """Activations to reload under the deck sequence ("Loading or reloading a weapon"; a reading)."""
    setup_cards: int = 0
    """Activations to deploy: "assembling a belt-fed machine gun on a tripod ... would take 4 "cards""."""

    def range_for(self, deployed: bool = False) -> int | None:
        """Range in hexes, on its bipod or tripod when ``deployed``."""
        return self.deployed_range_hexes if deployed and self.deployed_range_hexes is not None else self.range_hexes


FIREARMS: dict[str, Firearm] = {f.key: f for f in (
    # | Pistol | 4 | 12m (6 inches) |
    Firearm("pistol", "Pistol", 4, inches_to_hexes(6), magazine=8),
    # | Rifle | 5 | 72m (36 inches) |
    Firearm("rifle", "Rifle", 5, inches_to_hexes(36), magazine=10),
    # | SMG (Cat. 1) | 6 | 24m (12 inches) |  "Earlier model sub-machine guns with a limited range"
    Firearm("smg1", "SMG (Cat. 1)", 6, inches_to_hexes(12), full_auto=True, magazine=30),
    # | SMG (Cat. 2) | 6 | 36m (18 inches) |  "Later models with longer range"
    Firearm("smg2", "SMG (Cat. 2)", 6, inches_to_hexes(18), full_auto=True, magazine=30),
    # | LMG | 6 | 36m (18 inches) |  72m (36 inches) on bipod
    Firearm("lmg", "LMG", 6, inches_to_hexes(18), deployed_range_hexes=inches_to_hexes(36), full_auto=True,
            magazine=30, setup_cards=1),
    # | MMG | | Line of sight |  (rounds per turn left blank in the seed: read as the LMG's 6)
    Firearm("mmg", "MMG", 6, None, deployed_range_hexes=None, full_auto=True, magazine=250, reload_cards=2,
            setup_cards=4),
)}
"""The seed's firearms. Readings (RULES.md §2, the weapons table): magazines pistol 8, rifle 10,
SMG and LMG 30, MMG a 250-round belt; the MMG's rounds per turn 6. The engine reloads every weapon in one
action and sets the MMG up in ``setup_cards`` (4) cards of work; ``reload_cards`` (the belt's 2) and the
LMG's ``setup_cards`` are kept as data but not played: the bipod needs no set-up (RULES.md §2.2)."""

FULL_AUTO_ROUNDS = 3
""""Automatic fire expends three times the number of rounds as normal fire"."""
FULL_AUTO_PENALTY = (0, 1, 2)
"""Fire skill less 0, 1 and 2 for the first, second and third target."""
FULL_AUTO_MAX_TARGETS = 3
FULL_AUTO_ADJACENT_HEXES = inches_to_hexes(2)
""""Adjacent means within 4m (2 inches)": the neighbouring hex."""

SEED_WEAPONS: dict[str, str] = {
    # WW2 deck seed's American squad
    "M1 carbine": "rifle", "M1 Rifle": "rifle", "Thompson Sub Machine gun": "smg1",
    "Browning Automatic Rifle": "lmg", ".45 pistol": "pistol", "Bazooka": "at_medium",
    # its German squad
    "machine pistol": "smg2", "Rifle": "rifle", "MG42 Machine gun": "lmg",
}
"""Which table row each weapon the WW2 deck seed names uses (a reading: the Thompson is the early
"Cat. 1" design, the MP40 "machine pistol" the later "Cat. 2"; the BAR and the MG42 on its bipod are
LMGs; the Bazooka is a Medium anti-tank weapon, "Medium Panzerschreck, Bazooka, 37mm PAK")."""


@dataclass(frozen=True)
class ThrownWeapon:
    """A row of the "Thrown" table (| Type | Range | Radius of Effect | Effect |)."""

    key: str
    name: str
    range_hexes: int
    radius_hexes: int
    effect: str
    """What a red card does to a figure within the radius ("Black card - no effect")."""
    range_inches: float

    def range_for(self, crawling: bool = False) -> int:
        """Range in hexes; Crawl: "Thrown weapons ranges halved" (halved in inches, then rounded down)."""
        return inches_to_hexes(self.range_inches / 2) if crawling else self.range_hexes


THROWN: dict[str, ThrownWeapon] = {t.key: t for t in (
    # | Grenade | 20m (10 inches) | 8m (4 inches) | Red card - wound Black card - no effect |
    ThrownWeapon("grenade", "Grenade", inches_to_hexes(10), inches_to_hexes(4), "wound", 10),
    # | Petrol Bomb | 20m (10 inches) | 6m (3 inches) | Red card - on fire* Black card - no effect |
    ThrownWeapon("petrol_bomb", "Petrol Bomb", inches_to_hexes(10), inches_to_hexes(3), "on_fire", 10),
)}

FIRE_WOUND_EVERY = 2
"""A burning figure takes "1 wound / 2 rounds if not extinguished" (read: one wound each second turn)."""


class Armour(Enum):
    """Vehicle categories: "Un-armoured, Light, Medium, Heavy, eXtra-heavy"."""

    U = "U"
    L = "L"
    M = "M"
    H = "H"
    X = "X"


class AntiTank(Enum):
    """Anti-tank weapon categories: "Light Panzerfaust", "Medium Panzerschreck, Bazooka, 37mm PAK",
    "Heavy 75mm PAK"."""

    L = "L"
    M = "M"
    H = "H"


class AntiTankResult(IntEnum):
    """A cell of the anti-tank table."""

    NO_EFFECT = 0
    DAMAGED = 1
    DISABLED = 2


class VehicleEffect(Enum):
    """What a Damaged or Disabled result does, by the card's rank being odd or even."""

    NONE = "no effect"
    TRACKS = "track damage - no further movement"
    TURRET = "turret damage - unable to traverse"
    ABANDONED = "crew abandons vehicle"
    DESTROYED = "vehicle destroyed"


AT_WEAPONS: dict[str, AntiTank] = {"at_light": AntiTank.L, "at_medium": AntiTank.M, "at_heavy": AntiTank.H}
"""Anti-tank weapons by key, for figures and scenarios."""

_N, _DM, _DS = AntiTankResult.NO_EFFECT, AntiTankResult.DAMAGED, AntiTankResult.DISABLED
ANTI_TANK_TABLE: dict[tuple[AntiTank, Armour], tuple[AntiTankResult, ...]] = {
    # (weapon, armour): results for Spade, Club, Diamond, Heart, the seed's column order
    (AntiTank.L, Armour.L): (_DS, _DS, _DM, _DM),
    (AntiTank.L, Armour.M): (_N, _DS, _DM, _DM),
    (AntiTank.L, Armour.H): (_N, _N, _DM, _DM),
    (AntiTank.L, Armour.X): (_N, _N, _N, _DM),
    (AntiTank.M, Armour.L): (_DS, _DS, _DS, _DM),
    (AntiTank.M, Armour.M): (_DS, _DS, _DM, _DM),
    (AntiTank.M, Armour.H): (_N, _DS, _DM, _DM),
    (AntiTank.M, Armour.X): (_N, _N, _DM, _DM),
    (AntiTank.H, Armour.L): (_DS, _DS, _DS, _DM),
    (AntiTank.H, Armour.M): (_DS, _DS, _DS, _DM),
    (AntiTank.H, Armour.H): (_DS, _DS, _DM, _DM),
    (AntiTank.H, Armour.X): (_N, _DS, _DM, _DM),
}
"""The seed's anti-tank table, verbatim."""

_COLUMN = {Suit.SPADES: 0, Suit.CLUBS: 1, Suit.DIAMONDS: 2, Suit.HEARTS: 3}


def anti_tank_result(weapon: AntiTank, armour: Armour, card: int) -> AntiTankResult:
    """The seed's table cell for a successful shot at an armoured vehicle: "noting the card's suit and
    consulting the table" (``card`` is the successful skill card; only its suit is read).

    The raw table, for the armour classes it lists (L, M, H, X). Un-armoured vehicles are not in it: the
    game asks :func:`vehicles.table_result`, which makes every anti-tank hit on one **Disabled**
    (RULES.md §8.3), and never reaches this function for them. Given ``Armour.U`` anyway, this lookup
    falls back to the Light row."""
    row = ANTI_TANK_TABLE[(weapon, Armour.L if armour is Armour.U else armour)]
    return row[_COLUMN[card_suit(card)]]


def vehicle_effect(result: AntiTankResult, card: int) -> VehicleEffect:
    """Damaged: "Odd Card Track damage - no further movement", "Even Card Turret damage - unable to
    traverse"; Disabled: "Odd Card Crew abandons vehicle", "Even Card Vehicle destroyed".

    ``card`` is a **new card** drawn from the firer's pack after a Damaged or Disabled result, not the
    skill card that hit (whose suit picked the cell): RULES.md §8.3, :func:`vehicles.anti_tank_hit`. Only
    its rank is read; an Ace is odd, a 10 even."""
    if result is AntiTankResult.NO_EFFECT:
        return VehicleEffect.NONE
    odd = card_rank(card) % 2 == 1
    if result is AntiTankResult.DAMAGED:
        return VehicleEffect.TRACKS if odd else VehicleEffect.TURRET
    return VehicleEffect.ABANDONED if odd else VehicleEffect.DESTROYED


@dataclass(frozen=True)
class HighExplosive:
    """A row of the "Anti-Personnel" table: HE fire "dealt with in the same manner as thrown grenades",
    with "a range covering the entire wargames table"."""

    category: AntiTank
    radius_hexes: int
    example: str


HIGH_EXPLOSIVE: dict[AntiTank, HighExplosive] = {
    # | L | 10m (5 inches) | As grenade | Light Mortar |
    AntiTank.L: HighExplosive(AntiTank.L, inches_to_hexes(5), "Light Mortar"),
    # | M | 15m (7½ inches) | Ditto | Med. Mortar / Light Gun |
    AntiTank.M: HighExplosive(AntiTank.M, inches_to_hexes(7.5), "Med. Mortar / Light Gun"),
    # | H | 20m (10 inches) | Ditto | Med. Gun |
    AntiTank.H: HighExplosive(AntiTank.H, inches_to_hexes(10), "Med. Gun"),
}
