"""Vehicles (RULES.md §8.1-8.3): the vehicle record, its movement, small-arms damage and anti-tank hits.

Pure functions: the map is anything with the methods of :class:`VehicleBoard` (``board.Board``); ground and
edge kinds are compared by their enum member *names* (``"ROUGH"``, ``"WALL_LOW"`` ...), so this module does
not import the board.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol

from cardwar.envs.skirmish.cards import is_red
from cardwar.envs.skirmish.combat import succeeds
from cardwar.envs.skirmish.weapons import (
    METRES_PER_HEX, AntiTank, AntiTankResult, Armour, VehicleEffect, anti_tank_result, vehicle_effect,
)

TRACKED, WHEELED = "tracked", "wheeled"
KINDS = (TRACKED, WHEELED)

# ---------------------------------------------------------------- speeds (§8.1)

SPEED_MPH = (0, 10, 20, 30)
"""Speed index 0 (stationary), 1, 2, 3: "Speeds over 30 mph are unlikely to be used in these type of games"."""
SPEED_METRES = (0, 120, 250, 400)
"""| 10mph | 120m (60 inches) |, | 20mph | 250m (125 inches) |, | 30mph | 400m (200 inches) | (maximum)."""
STOP_METRES = (0, 12, 25, 40)
"""Stopping distances: 12m (6 inches), 25m (12½ inches), 40m (20 inches)."""
SPEED_HEXES = tuple(m // METRES_PER_HEX for m in SPEED_METRES)
"""A maximum rounds down (RULES.md §1.1): 30, 62, 100 hexes."""
STOP_HEXES = tuple(-(-m // METRES_PER_HEX) for m in STOP_METRES)
"""A distance that "must" be moved rounds up (RULES.md §8.1): 3, 7, 10 hexes."""
DECK_FRACTION = Fraction(1, 3)
"""RULES.md §8.1, deck sequence: a vehicle's ``move`` activity is a third of the 10 mph turn, 10 hexes
(``max_hexes(1, DECK_FRACTION)``), always from rest: there is no speed to choose and no emergency stop (a
vehicle is at rest between activations)."""


def max_hexes(speed: int, fraction: Fraction | int = 1) -> int:
    """Most hexes (movement cost) at ``speed`` in one turn, or in one activation with ``fraction`` 1/3
    (rounded down)."""
    return math.floor(SPEED_HEXES[speed] * Fraction(fraction))


def stop_hexes(speed: int, fraction: Fraction | int = 1) -> int:
    """Hexes an emergency stop from ``speed`` must move straight ahead (rounded up)."""
    return math.ceil(STOP_HEXES[speed] * Fraction(fraction))


# ---------------------------------------------------------------- the vehicle (§8.1-8.3)

DAMAGE_POINTS: dict[str, int] = {"jeep": 2, "truck": 3}
"""Un-armoured vehicles' damage points: "(e.g. Jeep = 2 points, Truck = 3 points)"."""


@dataclass
class Vehicle:
    """One vehicle on the table.

    ``speed`` is the speed declared for the turn being played (index into :data:`SPEED_MPH`); ``last_speed``
    the speed it moved at in the turn before, which the emergency stop and the one-step speed change read
    (RULES.md §8.1). :meth:`end_turn` carries one into the other."""

    side: int
    name: str
    kind: str
    """``"tracked"`` or ``"wheeled"``."""
    armour: Armour
    cell: int
    facing: int = 0
    """Direction 0..5 (0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE) of the hexside it faces."""
    damage_points: int | None = None
    """Un-armoured only: "damage points (1 deducted per hit) and is destroyed when these reach zero". ``None``
    takes :data:`DAMAGE_POINTS` by the name (jeep 2, truck 3)."""
    speed: int = 0
    last_speed: int = 0
    turret: bool = True
    """False: an assault gun or a truck; its guns then fire in the front arc only (RULES.md §8.3)."""
    crew: tuple[str, ...] = ()
    """Names of the figures aboard (crew and riders)."""
    exposed: tuple[str, ...] = ()
    """Those of :attr:`crew` who are exposed and fired at as figures (RULES.md §8.2)."""
    weapons: tuple[str, ...] = ()
    """Weapon keys: an AT key (``weapons.AT_WEAPONS``) for the main gun, ``"lmg"``/``"mmg"`` for machine guns."""
    immobilised: bool = False
    """"Track damage - no further movement"."""
    turret_jammed: bool = False
    """"Turret damage - unable to traverse"."""
    abandoned: bool = False
    """"Crew abandons vehicle": out of the game, the crew dismount."""
    destroyed: bool = False
    """"Vehicle destroyed" (or un-armoured with no damage points left): a wreck."""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"vehicle kind {self.kind!r}: one of {', '.join(KINDS)}")
        self.armour = Armour(self.armour)
        if self.armour is Armour.U and self.damage_points is None:
            words = [w for w in DAMAGE_POINTS if w in self.name.lower()]
            if not words:
                raise ValueError(f"un-armoured vehicle {self.name!r} needs damage_points "
                                 f"(defaults: {DAMAGE_POINTS})")
            self.damage_points = DAMAGE_POINTS[words[0]]

    @property
    def active(self) -> bool:
        """Still in the game: neither abandoned nor destroyed."""
        return not (self.abandoned or self.destroyed)

    @property
    def disabled(self) -> bool:
        """A "Disabled" result took it out (abandoned or destroyed)."""
        return not self.active

    @property
    def can_move(self) -> bool:
        return self.active and not self.immobilised

    @property
    def can_traverse(self) -> bool:
        """Its guns bear all round: it has a turret and the turret is not damaged."""
        return self.turret and not self.turret_jammed

    def legal_speeds(self) -> tuple[int, ...]:
        """Speeds it may declare (RULES.md §8.1, a reading: neither seed says how a speed may change): up by at
        most one step a turn; down to any lower speed, which is an emergency stop. An immobilised or disabled
        vehicle is stationary."""
        if not self.can_move:
            return (0,)
        return tuple(range(0, min(len(SPEED_HEXES) - 1, self.last_speed + 1) + 1))

    def end_turn(self, moved: bool = True) -> None:
        """End of turn (RULES.md §7.1 step 4, "vehicles' speeds carry over"): the declared speed becomes the
        speed last moved at; a vehicle that did not leave its hex, or cannot move, is at rest."""
        self.last_speed = self.speed if moved and self.can_move else 0
        self.speed = 0 if not self.can_move else self.speed


# ---------------------------------------------------------------- movement (§8.1)

class VehicleBoard(Protocol):
    """What vehicle movement needs of a map (``board.Board`` provides it)."""

    ground: tuple

    def step(self, cell: int, direction: int) -> int | None: ...

    def edge(self, a: int, b: int, open_doors: frozenset = ...): ...


def _name(kind) -> str:
    return getattr(kind, "name", str(kind)).upper()


NO_GO_GROUND = frozenset({"BUILDING", "BUNKER", "WOODS", "OFF"})
"""RULES.md §8.1: "it cannot enter buildings, bunkers, woods"."""
TRACKED_ONLY_GROUND = frozenset({"SHELL_HOLE"})
ROUGH_GROUND = frozenset({"ROUGH"})
NO_GO_EDGES = frozenset({"WALL_HIGH", "HEDGE_HIGH", "BUILDING_WALL", "DOOR_OPEN", "DOOR_CLOSED", "WINDOW", "EMBRASURE"})
""""or head-high walls or hedges"; a building's walls, doors and windows are a building's (no vehicle enters
one), so no vehicle crosses them either."""
TRACKED_ONLY_EDGES = frozenset({"WALL_LOW", "HEDGE_LOW"})


def step_cost(board: VehicleBoard, kind: str, a: int, b: int, *, open_doors: frozenset = frozenset()) -> int | None:
    """Hexes of movement to go from ``a`` into the neighbouring ``b``, or ``None`` if the vehicle cannot.

    RULES.md §8.1: "it cannot enter buildings, bunkers, woods or head-high walls or hedges; tracked vehicles
    cross waist-high walls, hedges and shell holes at +1 hex each, wheeled ones cannot; rough ground costs 2
    per hex"."""
    ground, edge = _name(board.ground[b]), _name(board.edge(a, b, open_doors))
    if ground in NO_GO_GROUND or edge in NO_GO_EDGES:
        return None
    cost = 2 if ground in ROUGH_GROUND else 1
    for extra in (ground in TRACKED_ONLY_GROUND, edge in TRACKED_ONLY_EDGES):
        if extra:
            if kind != TRACKED:
                return None
            cost += 1
    return cost


def direction_of(board: VehicleBoard, a: int, b: int) -> int | None:
    """The direction from ``a`` to its neighbour ``b`` (``None`` if not neighbours)."""
    for d in range(6):
        if board.step(a, d) == b:
            return d
    return None


def path_facing(board: VehicleBoard, start: int, facing: int, path: tuple[int, ...]) -> int:
    """The facing after driving ``path`` from ``start``: the direction of its last step (``facing`` if empty)."""
    prev = start
    for cell in path:
        d = direction_of(board, prev, cell)
        if d is None:
            raise ValueError(f"path {path} from {start} is not a chain of neighbours")
        facing, prev = d, cell
    return facing


def _emergency_prefix(board: VehicleBoard, vehicle: Vehicle, hexes: int, occupied: frozenset[int],
                      open_doors: frozenset) -> tuple[tuple[int, ...], int, bool]:
    """Straight ahead for ``hexes`` or as far as it can: (cells, cost, completed)."""
    cells: list[int] = []
    cost, cell = 0, vehicle.cell
    for _ in range(hexes):
        nxt = board.step(cell, vehicle.facing)
        c = None if nxt is None or nxt in occupied else step_cost(board, vehicle.kind, cell, nxt,
                                                                   open_doors=open_doors)
        if c is None:
            return tuple(cells), cost, False
        cells.append(nxt)
        cost += c
        cell = nxt
    return tuple(cells), cost, True


def vehicle_manoeuvres(board: VehicleBoard, vehicle: Vehicle, speed: int, *, occupied: frozenset[int],
                       fraction: Fraction | int = 1,
                       open_doors: frozenset = frozenset()) -> dict[tuple[int, int], tuple[int, ...]]:
    """Every ``(hex, facing)`` the vehicle can end its move in at ``speed`` -> the cheapest path there (cells
    after the start, the end last; ties: fewer hexes, then the lowest cells). The start hex appears only
    with an empty path: the vehicle's facing if it stays, and every facing for a tracked vehicle at rest
    that pivots in place.

    RULES.md §8.1:

    - "moves up to the maximum" (:func:`max_hexes`, movement cost: :func:`step_cost`);
    - "a vehicle occupies one hex and faces one of six hexsides; it turns one hexside per hex entered
      (tracked vehicles pivot freely when starting from rest)": each hex entered is ahead, ahead-left or
      ahead-right of the facing, and the new facing is the direction moved; a tracked vehicle whose
      ``last_speed`` is 0 may first take any facing;
    - "a vehicle cannot enter a hex holding a figure (it stops before it)": ``occupied`` (figures, other
      vehicles, wrecks) is never entered;
    - emergency stop: "A vehicle that moved last turn at speed S and declares stationary (or a lower speed)
      makes an emergency stop: it first moves at least S's stopping distance straight ahead (or as far as it
      can), then stops." The forced straight run (:func:`stop_hexes` of ``last_speed``) is made whatever its
      cost; declared stationary, its end is the only destination; at a lower speed the vehicle goes on from
      there (turning as above) with what is left of the new speed's allowance. A run cut short ends the
      move;
    - the change of speed (a reading, §8.1: up one step a turn, down any amount): ``speed`` must be in
      :meth:`Vehicle.legal_speeds` (ValueError otherwise).

    ``fraction`` scales both distances. The deck sequence moves a vehicle at speed 1 with
    :data:`DECK_FRACTION` (10 hexes), always from rest, so no emergency stop arises there. An immobilised or
    disabled vehicle has no move."""
    if speed not in vehicle.legal_speeds():
        raise ValueError(f"{vehicle.name} cannot go from speed {vehicle.last_speed} to {speed}: "
                         f"one of {vehicle.legal_speeds()}")
    if not vehicle.can_move:
        return {}
    allowance = max_hexes(speed, fraction)
    starts: list[tuple[int, int, tuple[int, ...]]] = []  # (cell, facing, path so far); cost below
    spent = 0
    if speed < vehicle.last_speed:
        prefix, spent, completed = _emergency_prefix(board, vehicle, stop_hexes(vehicle.last_speed, fraction),
                                                     occupied, open_doors)
        end = prefix[-1] if prefix else vehicle.cell
        if speed == 0 or not completed:
            return {(end, vehicle.facing): prefix}
        starts.append((end, vehicle.facing, prefix))
    elif vehicle.kind == TRACKED and vehicle.last_speed == 0:
        starts.extend((vehicle.cell, f, ()) for f in range(6))
    else:
        starts.append((vehicle.cell, vehicle.facing, ()))

    best: dict[tuple[int, int], tuple[int, int, tuple[int, ...]]] = {}
    heap = [(spent, len(p), p, c, f) for c, f, p in starts]
    heapq.heapify(heap)
    while heap:
        cost, n, path, cell, facing = heapq.heappop(heap)
        if (cell, facing) in best:
            continue
        best[(cell, facing)] = (cost, n, path)
        for turn in (0, -1, 1):
            d = (facing + turn) % 6
            nxt = board.step(cell, d)
            if nxt is None or nxt in occupied or (nxt, d) in best:
                continue
            c = step_cost(board, vehicle.kind, cell, nxt, open_doors=open_doors)
            if c is None or cost + c > allowance:
                continue
            heapq.heappush(heap, (cost + c, n + 1, path + (nxt,), nxt, d))
    return {state: path for state, (_, _, path) in best.items()}


def vehicle_moves(board: VehicleBoard, vehicle: Vehicle, speed: int, *, occupied: frozenset[int],
                  fraction: Fraction | int = 1, open_doors: frozenset = frozenset()) -> dict[int, tuple[int, ...]]:
    """Every hex other than its own the vehicle can end its move in -> the cheapest path there (any final
    facing; :func:`vehicle_manoeuvres` keeps the facings apart, :func:`path_facing` reads one back). An
    emergency stop that cannot leave its hex gives ``{}``."""
    found = vehicle_manoeuvres(board, vehicle, speed, occupied=occupied, fraction=fraction, open_doors=open_doors)
    out: dict[int, tuple[int, ...]] = {}
    for (cell, _), path in sorted(found.items(), key=lambda kv: (len(kv[1]), kv[1])):
        if cell != vehicle.cell and cell not in out:
            out[cell] = path
    return out


def drive(board: VehicleBoard, vehicle: Vehicle, path: tuple[int, ...], facing: int | None = None) -> None:
    """Put the vehicle at the end of ``path``, facing the way it last moved (or ``facing``: a tracked
    vehicle's pivot in place)."""
    if path:
        vehicle.facing = path_facing(board, vehicle.cell, vehicle.facing, path)
        vehicle.cell = path[-1]
    elif facing is not None:
        vehicle.facing = facing


# ---------------------------------------------------------------- the front arc (§8.3)

GRID_WIDTH = 24
_AXIAL_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def _axial(cell: int, width: int = GRID_WIDTH) -> tuple[int, int]:
    row, col = divmod(cell, width)
    return col - (row - (row & 1)) // 2, row


def in_front_arc(cell: int, facing: int, target: int, *, width: int = GRID_WIDTH) -> bool:
    """Whether ``target`` lies in the front 120 degrees of a vehicle at ``cell`` facing ``facing``: "between
    the hex lines 60 degrees either side of its facing" (RULES.md §8.3), those lines included."""
    q0, r0 = _axial(cell, width)
    q1, r1 = _axial(target, width)
    dq, dr = q1 - q0, r1 - r0
    (aq, ar), (bq, br) = _AXIAL_DIRECTIONS[(facing - 1) % 6], _AXIAL_DIRECTIONS[(facing + 1) % 6]
    det = aq * br - ar * bq
    a = (dq * br - dr * bq) / det
    b = (aq * dr - ar * dq) / det
    return (dq, dr) != (0, 0) and a >= 0 and b >= 0


def guns_bear(vehicle: Vehicle, target: int, *, width: int = GRID_WIDTH) -> bool:
    """Whether the vehicle's guns can be laid on ``target``: all round with a working turret; otherwise "a
    vehicle that cannot traverse fires only at targets in its front 120 degrees" (RULES.md §8.3: turret
    damage, and turretless vehicles)."""
    return vehicle.can_traverse or in_front_arc(vehicle.cell, vehicle.facing, target, width=width)


# ---------------------------------------------------------------- small arms (§8.2) and HE blasts (§6.3)

def small_arms_hit(vehicle: Vehicle) -> bool:
    """A successful small-arms fire (each successful draw of a burst) at a vehicle: "Un-armoured vehicles
    may be damaged by small arms fire. Each vehicle should be allocated damage points (1 deducted per hit)
    and is destroyed when these reach zero." "Armoured vehicles are not damaged by small arms fire".
    Returns whether a point was lost (:attr:`Vehicle.destroyed` says if it was the last)."""
    if vehicle.armour is not Armour.U or vehicle.destroyed:
        return False
    vehicle.damage_points = max(0, (vehicle.damage_points or 0) - 1)
    if vehicle.damage_points == 0:
        _apply(vehicle, VehicleEffect.DESTROYED)
    return True


EXPOSED_CREW_COVER = 1
"""RULES.md §8.2: "exposed crew are figures and are fired at as figures with light cover (1)"."""


def occupants_draw(vehicle: Vehicle, draw: Callable[[], int]) -> dict[str, int]:
    """RULES.md §8.2: "Occupants of a destroyed vehicle each draw: red wounds; survivors dismount to adjacent
    hexes." One colour card per name in :attr:`Vehicle.crew`, in that order: ``{name: card}`` (red wounds)."""
    return {name: draw() for name in vehicle.crew}


def blast_hit(vehicle: Vehicle, card: int) -> bool:
    """A vehicle's colour card in a blast: "Unarmoured vehicles in the radius lose 1 damage point on red
    (8.2); armoured vehicles are unharmed" (RULES.md §6.3)."""
    return is_red(card) and small_arms_hit(vehicle)


# ---------------------------------------------------------------- anti-tank (§8.3)

@dataclass(frozen=True)
class AntiTankOutcome:
    """One anti-tank fire at a vehicle."""

    hit: bool
    """The skill card succeeded."""
    result: AntiTankResult
    effect: VehicleEffect
    skill_card: int | None
    effect_card: int | None
    """The odd/even card, drawn only after a Damaged or Disabled result."""


def table_result(armour: Armour, weapon: AntiTank, card: int) -> AntiTankResult:
    """The anti-tank table's cell for the successful skill card's suit ("if successful, noting the card's suit
    and consulting the table"). Un-armoured targets are not in the table: "any anti-tank hit on an
    un-armoured vehicle is **disabled**" (RULES.md §8.3)."""
    if Armour(armour) is Armour.U:
        return AntiTankResult.DISABLED
    return anti_tank_result(AntiTank(weapon), Armour(armour), card)


def _apply(vehicle: Vehicle, effect: VehicleEffect) -> None:
    if effect is VehicleEffect.TRACKS:  # "Track damage twice is still track damage"
        vehicle.immobilised = True
        vehicle.speed = vehicle.last_speed = 0
    elif effect is VehicleEffect.TURRET:
        vehicle.turret_jammed = True
    elif effect is VehicleEffect.ABANDONED:
        vehicle.abandoned = True
        vehicle.speed = vehicle.last_speed = 0
    elif effect is VehicleEffect.DESTROYED:
        vehicle.destroyed = True
        vehicle.speed = vehicle.last_speed = 0
        if vehicle.armour is Armour.U:
            vehicle.damage_points = 0


def anti_tank_hit(vehicle: Vehicle, weapon: AntiTank, skill_card: int,
                  effect_card: int | None = None) -> AntiTankOutcome:
    """Apply a *successful* anti-tank shot to ``vehicle`` (the caller has tested ``skill_card`` with
    :func:`combat.succeeds`).

    The seed: "drawing a card against the relevant skill number and, if successful, noting the card's suit
    and consulting the table". RULES.md §8.3: the suit is the skill card's; "Then a further card (the firer's
    pack)": ``effect_card``, needed only after Damaged or Disabled (ValueError if missing then). Damaged -
    odd: "Track damage - no further movement" (:attr:`Vehicle.immobilised`), even: "Turret damage - unable
    to traverse" (:attr:`Vehicle.turret_jammed`); Disabled - odd: "Crew abandons vehicle"
    (:attr:`Vehicle.abandoned`), even: "Vehicle destroyed" (:attr:`Vehicle.destroyed`). An Ace is odd, a 10
    even."""
    result = table_result(vehicle.armour, weapon, skill_card)
    if result is AntiTankResult.NO_EFFECT:
        return AntiTankOutcome(True, result, VehicleEffect.NONE, skill_card, None)
    if effect_card is None:
        raise ValueError(f"a {result.name} result needs the odd/even card")
    effect = vehicle_effect(result, effect_card)
    _apply(vehicle, effect)
    return AntiTankOutcome(True, result, effect, skill_card, effect_card)


def anti_tank_fire(vehicle: Vehicle, weapon: AntiTank, effective: int, draw: Callable[[], int]) -> AntiTankOutcome:
    """A whole anti-tank fire: the skill card against ``effective`` (Shoot, halved if running, less the
    vehicle hex's cover), then, on success, the table and, after Damaged or Disabled, the odd/even card - each
    drawn with ``draw`` from the firer's pack, in that order."""
    card = draw()
    if not succeeds(effective, card):
        return AntiTankOutcome(False, AntiTankResult.NO_EFFECT, VehicleEffect.NONE, card, None)
    result = table_result(vehicle.armour, weapon, card)
    return anti_tank_hit(vehicle, weapon, card, None if result is AntiTankResult.NO_EFFECT else draw())

