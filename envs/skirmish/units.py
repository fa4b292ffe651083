"""The pieces in play: soldiers (a seed figure plus what the turn adds) and vehicles (RULES.md §2, §8)."""

from __future__ import annotations

from dataclasses import dataclass, field

from cardwar.envs.skirmish.figures import Figure, MoveMode, Stance, halve
from cardwar.envs.skirmish.vehicles import Vehicle
from cardwar.envs.skirmish.weapons import AT_WEAPONS, FIREARMS, THROWN, AntiTank, Armour


@dataclass
class Order:
    """What a unit declared this turn (hidden until revealed, §9.1)."""

    mode: str = "stay"           # stay, crawl, search, walk, run; a vehicle: speed_0..speed_3
    destination: int | None = None
    stance: int | None = None
    watch: bool = False          # opportunity fire declared (§5.5)
    action: str = "nothing"      # the combat action (§5.7)
    targets: list[int] = field(default_factory=list)
    path: tuple[int, ...] = ()


@dataclass
class Soldier:
    """A figure on the table, with the turn's bookkeeping."""

    uid: int
    fig: Figure
    reserve: int = 0
    petrol_bombs: int = 0
    knives: int = 0
    at_weapon: str | None = None
    at_ammo: int = 0
    role: str = ""
    burning: int = 0
    """Turns on fire so far; 0 when not burning (§6.4)."""
    jammed: bool = False
    at_jammed: bool = False
    """Its anti-tank weapon jammed (Lady Luck, §3.3); cleared like a firearm's jam."""
    work: int = 0
    """Cards of work on setting up its MMG (§4.4)."""
    deployed: bool = False
    """Its MMG is set up on its tripod."""
    moved: bool = False
    ran: bool = False
    crawled: bool = False
    watch_fired: bool = False
    acted: bool = False
    exited: bool = False
    revealed: set[str] = field(default_factory=set)
    """Skills the enemy has seen drawn against (§9.2)."""
    starting_reserve: int = 0
    aboard: int | None = None
    """The vehicle it rides (its uid): it moves with it and does not hold a hex of its own (§8.1)."""
    side: int = field(init=False, repr=False, compare=False)
    """Its figure's side, which never changes: a plain attribute, read some 80 times a step (issue 31 item 5)."""

    def __post_init__(self) -> None:
        self.side = self.fig.side

    @property
    def team(self) -> int:
        return self.fig.team

    @property
    def cell(self) -> int:
        return self.fig.position

    @cell.setter
    def cell(self, value: int) -> None:
        self.fig.position = value

    @property
    def name(self) -> str:
        return self.fig.name

    @property
    def active(self) -> bool:
        """Fit or wounded once, and still on the table."""
        return self.fig.active and not self.exited

    @property
    def on_table(self) -> bool:
        """Alive (incapacitated included) and not off the map."""
        return self.fig.wounds < 3 and not self.exited

    @property
    def holds_hex(self) -> bool:
        """On the table and not riding a vehicle: the one unit of its hex (§4.3)."""
        return self.on_table and self.aboard is None

    def shoot_skill(self) -> int:
        """Shoot after wounds and running (§2.4, §4.1): halvings first, rounding up."""
        skill = self.fig.skill("shoot")
        return halve(skill) if self.ran else skill

    def firearm_range(self) -> int | None:
        """Hexes its firearm reaches now (LMG on bipod when prone and unmoved, §2.2; MMG: sight, once set up)."""
        arm = FIREARMS.get(self.fig.weapon)
        if arm is None:
            return 0
        if arm.key == "mmg":
            return None if self.deployed else 0
        deployed = arm.key == "lmg" and self.fig.stance == Stance.PRONE and not self.moved
        return arm.range_for(deployed)

    def throw_range(self, weapon: str) -> int:
        """Thrown range, halved when prone or crawling (§6.1)."""
        low = self.fig.stance == Stance.PRONE or self.crawled
        if weapon == "knife":
            return 1 if low else 2
        return THROWN[weapon].range_for(low)

    def at_category(self) -> AntiTank | None:
        return AT_WEAPONS.get(self.at_weapon) if self.at_weapon else None

    def move_allowance(self, mode: str) -> int:
        return self.fig.move_hexes(MoveMode[mode.upper()])


@dataclass
class Tank:
    """A vehicle in play (:class:`vehicles.Vehicle`) and its closed-down crew's Shoot skill (§8.2)."""

    uid: int
    v: Vehicle
    shoot: int = 5
    gun_ammo: int = 6
    moved: bool = False
    acted: bool = False
    watch_fired: bool = False
    team: int = -1
    side: int = field(init=False, repr=False, compare=False)
    """Its vehicle's side, which never changes (a plain attribute, as :class:`Soldier`'s)."""

    def __post_init__(self) -> None:
        self.side = self.v.side

    @property
    def name(self) -> str:
        return self.v.name

    @property
    def cell(self) -> int:
        return self.v.cell

    @cell.setter
    def cell(self, value: int) -> None:
        self.v.cell = value

    @property
    def armour(self) -> Armour:
        return self.v.armour

    @property
    def active(self) -> bool:
        return self.v.active

    @property
    def on_table(self) -> bool:
        return True  # a wreck stays (§8.2)

    holds_hex = on_table

    @property
    def gun(self) -> AntiTank | None:
        for w in self.v.weapons:
            if w in AT_WEAPONS:
                return AT_WEAPONS[w]
        return None

    @property
    def machine_gun(self) -> str | None:
        for w in self.v.weapons:
            if w in FIREARMS:
                return w
        return None
