"""Figures: skills, wounds, stance and movement (Hit the Deck! v1.5 "Casualties", "Movement"; WW2 deck seed
"MOVEMENT RATES").

Distances are hexes of 4 m, 2 inches at the seed's scale: Crawl "4m (2 inches)" = 1 hex, Search
"8m (4 inches)" = 2, Walk "16m (8 inches)" = 4, Run "24m (12 inches)" = 6.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from cardwar.envs.skirmish.cards import CORE_SKILLS, Pack, Quality, Shuffler, draw_core_skills
from cardwar.envs.skirmish.weapons import FIREARMS


def halve(value: int) -> int:
    """Half, rounded up: "if the rules specify that a skill should be halved, then in all cases, it should
    be rounded up to the nearest whole number"."""
    return -(-value // 2)


class MoveMode(IntEnum):
    """The seed's movement modes."""

    CRAWL = 0
    SEARCH = 1
    WALK = 2
    RUN = 3


MOVE_HEXES: dict[MoveMode, int] = {
    MoveMode.CRAWL: 1,   # Crawl 4m (2 inches)  Thrown weapons ranges halved
    MoveMode.SEARCH: 2,  # Search 8m (4 inches)
    MoveMode.WALK: 4,    # Walk 16m (8 inches)  Spotting mines etc. Halved
    MoveMode.RUN: 6,     # Run 24m (12 inches)  Fire skill halved
}


class Stance(IntEnum):
    """The WW2 deck seed's stances."""

    PRONE = 0
    KNEELING = 1
    STANDING = 2


STANCE_MOVE_HEXES: dict[Stance, int] = {
    Stance.PRONE: 1,     # Prone | Normal - 2" | Any stance
    Stance.KNEELING: 2,  # Kneeling | Normal -4" | Any stance
    Stance.STANDING: 3,  # Standing | Normal - 6" | Any stance
}
"""One activation's normal move by the stance the figure starts in (deck sequence), at 2 inches a hex."""
ALL_OUT_RUN_HEXES = 4
"""Standing | All out run - 8" | Standing only."""


class Status(IntEnum):
    """What the wounds taken so far leave of a figure."""

    FIT = 0
    WOUNDED = 1
    """ "One wound - all skills halved (rounding up) and all movement halved." """
    INCAPACITATED = 2
    """ "Two wounds - incapacitated - plays no further part in the game but is still alive." """
    DEAD = 3
    """ "Three wounds mean a character is dead." """


@dataclass(frozen=True)
class Skills:
    """The core skills' target numbers, unwounded."""

    shoot: int
    throw: int
    melee: int
    field_craft: int


@dataclass
class Figure:
    """One figure on the table. ``position`` is a cell of the map, opaque here."""

    side: int
    team: int
    quality: Quality
    skills: Skills
    weapon: str
    """A key of :data:`weapons.FIREARMS` (or of another weapon table)."""
    position: int
    wounds: int = 0
    stance: Stance = Stance.STANDING
    name: str = ""
    other_weapons: tuple[str, ...] = ()
    """Carried besides ``weapon`` (e.g. a Bazooka and a .45 pistol)."""
    grenades: int = 0
    ammo: int | None = field(default=None)
    """Rounds left in ``weapon``'s load; ``None`` sets a full load."""

    def __post_init__(self) -> None:
        if self.ammo is None:
            firearm = FIREARMS.get(self.weapon)
            self.ammo = firearm.magazine if firearm else 0

    @property
    def status(self) -> Status:
        """"All wounds are cumulative": three or more kill."""
        return Status(min(self.wounds, 3))

    @property
    def active(self) -> bool:
        """Still in the game (fit or wounded once)."""
        return self.wounds < 2

    def wound(self, n: int = 1) -> Status:
        """Take ``n`` wounds; returns the new status."""
        self.wounds = min(self.wounds + n, 3)
        return self.status

    def skill(self, name: str) -> int:
        """A core skill's target number, halved (rounding up) by a wound."""
        if name not in CORE_SKILLS:
            raise KeyError(f"no core skill {name!r}: one of {', '.join(CORE_SKILLS)}")
        value = getattr(self.skills, name)
        return halve(value) if self.wounds == 1 else value

    def move_hexes(self, mode: MoveMode) -> int:
        """Hexes allowed in ``mode`` this turn; halved (rounding up, as skills) by a wound, none when
        out of the game."""
        if not self.active:
            return 0
        hexes = MOVE_HEXES[MoveMode(mode)]
        return halve(hexes) if self.wounds == 1 else hexes

    def stance_move_hexes(self, all_out_run: bool = False) -> int:
        """Hexes of one activation's move under the deck sequence, from the current stance; halved by a
        wound. An all-out run is for a standing figure only."""
        if not self.active:
            return 0
        if all_out_run:
            if self.stance != Stance.STANDING:
                return 0
            hexes = ALL_OUT_RUN_HEXES
        else:
            hexes = STANCE_MOVE_HEXES[self.stance]
        return halve(hexes) if self.wounds == 1 else hexes


def make_figure(side: int, team: int, quality: Quality, weapon: str, position: int, rng: Shuffler,
                pack: Pack | None = None, **kwargs) -> Figure:
    """A figure with skills drawn by the seed's procedure (see :func:`cards.draw_core_skills`)."""
    return Figure(side=side, team=team, quality=Quality(quality), skills=Skills(**draw_core_skills(quality, rng, pack)),
                  weapon=weapon, position=position, **kwargs)
