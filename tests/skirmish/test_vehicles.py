"""Vehicles (RULES.md §8.1-8.3): movement, emergency stops, small-arms damage and anti-tank hits applied."""

from __future__ import annotations

import random

import pytest

from cardwar.envs.skirmish.cards import Pack, is_red, parse_card
from cardwar.envs.skirmish.vehicles import (
    DECK_FRACTION, SPEED_HEXES, STOP_HEXES, AntiTankOutcome, Vehicle, anti_tank_fire, anti_tank_hit, blast_hit, drive,
    guns_bear, in_front_arc, max_hexes, occupants_draw, path_facing, small_arms_hit, step_cost, stop_hexes,
    table_result, vehicle_manoeuvres, vehicle_moves,
)
from cardwar.envs.skirmish.weapons import AT_WEAPONS, SEED_WEAPONS, AntiTank, AntiTankResult, Armour, VehicleEffect

from .test_combat import FakeBoard, c

E, NE, NW, W_, SW, SE = range(6)


def sherman(cell: str = "H8", facing: int = E, **kw) -> Vehicle:
    return Vehicle(side=0, name="Sherman", kind="tracked", armour=Armour.M, cell=c(cell), facing=facing,
                   weapons=("at_medium", "lmg"), crew=("Cdr", "Gunner", "Loader", "Driver", "Co-driver"), **kw)


def jeep(cell: str = "H8", facing: int = E, **kw) -> Vehicle:
    return Vehicle(side=0, name="Jeep", kind="wheeled", armour=Armour.U, cell=c(cell), facing=facing, turret=False,
                   **kw)


def straight(board: FakeBoard, cell: int, direction: int, n: int) -> tuple[int, ...]:
    out = []
    for _ in range(n):
        cell = board.step(cell, direction)
        out.append(cell)
    return tuple(out)


def turns_ok(board: FakeBoard, v: Vehicle, path: tuple[int, ...], pivot: bool) -> bool:
    """Every hex entered is ahead, ahead-left or ahead-right of the facing."""
    facing, prev = v.facing, v.cell
    for i, cell in enumerate(path):
        d = path_facing(board, prev, facing, (cell,))
        if not (pivot and i == 0) and (d - facing) % 6 not in (0, 1, 5):
            return False
        facing, prev = d, cell
    return True


# ---------------------------------------------------------------- speeds (§8.1)

def test_the_speed_table_in_hexes():
    # | 10mph | 120m | 12m |, | 20mph | 250m | 25m |, | 30mph | 400m | 40m |: maxima round down, stopping
    # distances ("must move the distance listed") round up.
    assert SPEED_HEXES == (0, 30, 62, 100) and STOP_HEXES == (0, 3, 7, 10)
    # Deck sequence: "a third of the table's distance (10, 20, 33 hexes) with a third of the stopping distance
    # (1, 3, 4 hexes, rounded up)".
    assert [max_hexes(s, DECK_FRACTION) for s in (1, 2, 3)] == [10, 20, 33]
    assert [stop_hexes(s, DECK_FRACTION) for s in (1, 2, 3)] == [1, 3, 4]


def test_speed_changes_one_step_up_and_any_step_down():
    assert sherman().legal_speeds() == (0, 1)
    assert sherman(last_speed=1).legal_speeds() == (0, 1, 2)
    assert sherman(last_speed=3).legal_speeds() == (0, 1, 2, 3)
    with pytest.raises(ValueError):
        vehicle_moves(FakeBoard(), sherman(), 2, occupied=frozenset())


def test_end_of_turn_carries_the_speed_over():
    v = sherman(speed=2, last_speed=1)
    v.end_turn()
    assert v.last_speed == 2
    v.speed = 1
    v.end_turn(moved=False)  # it never left its hex: at rest
    assert v.last_speed == 0


# ---------------------------------------------------------------- manoeuvres (§8.1)

def test_every_path_turns_at_most_one_hexside_per_hex_and_fits_the_allowance():
    board = FakeBoard()
    v = jeep(last_speed=1)
    moves = vehicle_moves(board, v, 1, occupied=frozenset(), fraction=DECK_FRACTION)
    assert moves and all(turns_ok(board, v, p, pivot=False) for p in moves.values())
    assert max(len(p) for p in moves.values()) == 10
    assert max(board.distance(v.cell, d) for d in moves) == 10


def test_a_wheeled_vehicle_turns_round_in_a_circle_a_tracked_one_pivots_from_rest():
    board = FakeBoard()
    behind = board.step(c("H8"), W_)
    wheeled = vehicle_moves(board, jeep(), 1, occupied=frozenset(), fraction=DECK_FRACTION)
    assert len(wheeled[behind]) == 5  # NE, NW, W, SW, SE: one hexside a hex
    tracked = vehicle_moves(board, sherman(), 1, occupied=frozenset(), fraction=DECK_FRACTION)
    assert tracked[behind] == (behind,)  # "tracked vehicles pivot freely when starting from rest"
    # On the move, the tank turns like anything else.
    assert len(vehicle_moves(board, sherman(last_speed=1), 1, occupied=frozenset(),
                             fraction=DECK_FRACTION)[behind]) == 5


def test_a_tracked_vehicle_at_rest_may_pivot_in_place():
    found = vehicle_manoeuvres(FakeBoard(), sherman(), 0, occupied=frozenset())
    assert found == {(c("H8"), f): () for f in range(6)}
    assert vehicle_manoeuvres(FakeBoard(), jeep(), 0, occupied=frozenset()) == {(c("H8"), E): ()}


def test_the_final_facing_is_the_last_step():
    board = FakeBoard()
    v = sherman(last_speed=1)
    found = vehicle_manoeuvres(board, v, 1, occupied=frozenset(), fraction=DECK_FRACTION)
    assert found[(v.cell, E)] == ()  # staying put
    for (cell, facing), path in found.items():
        if not path:
            continue
        assert path[-1] == cell and path_facing(board, v.cell, v.facing, path) == facing
    path = found[(c("J8"), E)]
    drive(board, v, path)
    assert (v.cell, v.facing) == (c("J8"), E)


@pytest.mark.parametrize("kind, ground, edge, cost", [
    ("tracked", "CLEAR", "OPEN", 1),
    ("tracked", "LIGHT", "OPEN", 1),
    ("tracked", "ROUGH", "OPEN", 2),         # "rough ground costs 2 per hex"
    ("wheeled", "ROUGH", "OPEN", 2),
    ("tracked", "SHELL_HOLE", "OPEN", 2),    # "tracked vehicles cross ... shell holes at +1 hex each"
    ("wheeled", "SHELL_HOLE", "OPEN", None),  # "wheeled ones cannot"
    ("tracked", "CLEAR", "WALL_LOW", 2),     # waist-high walls and hedges +1
    ("tracked", "CLEAR", "HEDGE_LOW", 2),
    ("tracked", "ROUGH", "HEDGE_LOW", 3),
    ("wheeled", "CLEAR", "WALL_LOW", None),
    ("wheeled", "CLEAR", "HEDGE_LOW", None),
    ("tracked", "CLEAR", "WALL_HIGH", None),  # "cannot enter ... head-high walls or hedges"
    ("tracked", "CLEAR", "HEDGE_HIGH", None),
    ("tracked", "WOODS", "OPEN", None),      # "cannot enter buildings, bunkers, woods"
    ("tracked", "BUILDING", "OPEN", None),
    ("tracked", "BUNKER", "OPEN", None),
    ("tracked", "BUILDING", "DOOR_OPEN", None),
    ("tracked", "OFF", "OPEN", None),
])
def test_terrain_for_vehicles(kind, ground, edge, cost):
    a, b = c("H8"), c("I8")
    board = FakeBoard(ground={b: ground}, edges={(a, b): edge})
    assert step_cost(board, kind, a, b) == cost


def test_rough_ground_halves_the_run_and_figures_are_never_entered():
    # Rough ground everywhere: 10 hexes of deck movement take the tank 5 hexes.
    row = straight(FakeBoard(), c("H8"), E, 12)
    board = FakeBoard(ground={cell: "ROUGH" for cell in range(24 * 16)})
    moves = vehicle_manoeuvres(board, sherman(last_speed=1), 1, occupied=frozenset(), fraction=DECK_FRACTION)
    assert moves[(row[4], E)] == row[:5] and (row[5], E) not in moves
    assert max(board.distance(c("H8"), cell) for cell, _ in moves) == 5
    # A man on K8: the tank never enters his hex.
    moves = vehicle_moves(FakeBoard(), sherman(last_speed=1), 1, occupied=frozenset({c("K8")}),
                          fraction=DECK_FRACTION)
    assert c("K8") not in moves and all(c("K8") not in p for p in moves.values())


def test_a_low_wall_stops_a_jeep_but_not_a_tank():
    # A waist-high wall between columns H and I, the whole height of the map: the jeep cannot cross it, the
    # tank can (at +1).
    base = FakeBoard()
    edges = {}
    for row in range(1, 17):
        a = c(f"H{row}")
        for n in base.neighbours(a):
            if n % 24 == 8:  # column I
                edges[(min(a, n), max(a, n))] = "WALL_LOW"
    board = FakeBoard(edges=edges)
    jeep_moves = vehicle_moves(board, jeep(facing=NW, last_speed=1), 1, occupied=frozenset(), fraction=DECK_FRACTION)
    tank_moves = vehicle_moves(board, sherman(last_speed=1), 1, occupied=frozenset(), fraction=DECK_FRACTION)
    assert jeep_moves and all(cell % 24 <= 7 for cell in jeep_moves)  # columns A-H only
    # Driving east into the wall, the jeep has nowhere to go: every hex ahead is across it.
    assert vehicle_moves(board, jeep(last_speed=1), 1, occupied=frozenset(), fraction=DECK_FRACTION) == {}
    assert tank_moves[c("I8")] == (c("I8"),)


# ---------------------------------------------------------------- emergency stop (§8.1)

def test_an_emergency_stop_from_20_mph_runs_7_hexes_straight_ahead():
    # "If they wish to perform an emergency stop they must move the distance listed prior to coming to a
    # complete stand still": | 20mph | 250m | 25m (12½ inches) | = 7 hexes, rounded up.
    board = FakeBoard()
    v = sherman(cell="C8", facing=E, last_speed=2)
    ahead = straight(board, c("C8"), E, 7)
    assert vehicle_moves(board, v, 0, occupied=frozenset()) == {ahead[-1]: ahead}
    assert vehicle_manoeuvres(board, v, 0, occupied=frozenset()) == {(ahead[-1], E): ahead}


def test_an_emergency_stop_goes_as_far_as_it_can():
    board0 = FakeBoard()
    ahead = straight(board0, c("C8"), E, 7)
    # A building four hexes ahead: it stops in the third.
    board = FakeBoard(ground={ahead[3]: "BUILDING"})
    v = sherman(cell="C8", facing=E, last_speed=2)
    assert vehicle_moves(board, v, 0, occupied=frozenset()) == {ahead[2]: ahead[:3]}
    # A man right in front: it cannot move at all (it stops before him).
    assert vehicle_moves(board0, v, 0, occupied=frozenset({ahead[0]})) == {}
    # The same stop cut short at a lower speed ends the move there too.
    assert vehicle_moves(board, v, 1, occupied=frozenset()) == {ahead[2]: ahead[:3]}


def test_slowing_down_first_runs_the_stopping_distance_then_goes_on():
    board = FakeBoard()
    v = sherman(cell="C8", facing=E, last_speed=3)
    ahead = straight(board, c("C8"), E, 4)  # deck: a third of 40 m = 4 hexes
    moves = vehicle_moves(board, v, 2, occupied=frozenset(), fraction=DECK_FRACTION)
    assert all(p[:4] == ahead for p in moves.values() if len(p) >= 4)
    assert all(len(p) >= 4 for p in moves.values())
    assert min(moves, key=lambda cell: len(moves[cell])) == ahead[-1]
    assert max(len(p) for p in moves.values()) == 20


def test_an_immobilised_or_abandoned_vehicle_does_not_move():
    assert vehicle_moves(FakeBoard(), sherman(immobilised=True), 0, occupied=frozenset()) == {}
    assert sherman(immobilised=True, last_speed=2).legal_speeds() == (0,)
    assert vehicle_moves(FakeBoard(), sherman(abandoned=True), 0, occupied=frozenset()) == {}


# ---------------------------------------------------------------- small arms (§8.2)

def test_small_arms_take_a_jeeps_two_damage_points():
    # "Each vehicle should be allocated damage points (1 deducted per hit) and is destroyed when these reach
    # zero. (e.g. Jeep = 2 points, Truck = 3 points)"
    j = jeep()
    assert j.damage_points == 2
    assert small_arms_hit(j) and j.damage_points == 1 and j.active
    assert small_arms_hit(j) and j.damage_points == 0 and j.destroyed and not j.active
    assert not small_arms_hit(j)  # a wreck loses nothing more


def test_a_truck_has_three_points_and_a_burst_costs_one_per_successful_draw():
    truck = Vehicle(side=1, name="Opel truck", kind="wheeled", armour=Armour.U, cell=c("B2"), turret=False)
    assert truck.damage_points == 3
    for _ in range(2):  # a burst with two successful draws of three
        small_arms_hit(truck)
    assert truck.damage_points == 1 and truck.active


def test_armour_shrugs_off_small_arms_and_blasts():
    # "Armoured vehicles are not damaged by small arms fire"
    tank = sherman()
    assert not small_arms_hit(tank) and tank.active
    assert not blast_hit(tank, parse_card("5H"))


def test_a_red_blast_card_costs_an_unarmoured_vehicle_a_point():
    j = jeep()
    assert not blast_hit(j, parse_card("5S")) and j.damage_points == 2
    assert blast_hit(j, parse_card("5H")) and j.damage_points == 1


def test_an_unarmoured_vehicle_needs_its_damage_points():
    with pytest.raises(ValueError):
        Vehicle(side=0, name="Kubelwagen", kind="wheeled", armour=Armour.U, cell=0)
    assert Vehicle(side=0, name="Kubelwagen", kind="wheeled", armour=Armour.U, cell=0, damage_points=2).active


# ---------------------------------------------------------------- anti-tank hits applied (§8.3)

SEED_TABLE = """
L L Disabled Disabled Damaged Damaged
L M No-effect Disabled Damaged Damaged
L H No-effect No-effect Damaged Damaged
L X No-effect No-effect No-effect Damaged
M L Disabled Disabled Disabled Damaged
M M Disabled Disabled Damaged Damaged
M H No-effect Disabled Damaged Damaged
M X No-effect No-effect Damaged Damaged
H L Disabled Disabled Disabled Damaged
H M Disabled Disabled Disabled Damaged
H H Disabled Disabled Damaged Damaged
H X No-effect Disabled Damaged Damaged
"""
"""The seed's table: | AT | armour | spade | club | diamond | heart |."""

CELLS = [(AntiTank(w), Armour(a), suit, word)
         for line in SEED_TABLE.split("\n") if line
         for w, a, *words in [line.split()]
         for suit, word in zip("SCDH", words)]


def flags(v: Vehicle) -> tuple[bool, bool, bool, bool]:
    return v.immobilised, v.turret_jammed, v.abandoned, v.destroyed


@pytest.mark.parametrize("weapon, armour, suit, word", CELLS)
@pytest.mark.parametrize("parity", ["odd", "even"])
def test_each_cell_of_the_anti_tank_table_applied_to_a_vehicle(weapon, armour, suit, word, parity):
    # The skill card's suit picks the cell; the further card's parity the detail: Damaged - odd "Track damage -
    # no further movement", even "Turret damage - unable to traverse"; Disabled - odd "Crew abandons vehicle",
    # even "Vehicle destroyed".
    v = Vehicle(side=1, name="target", kind="tracked", armour=armour, cell=c("H8"), last_speed=1, speed=1)
    effect_card = parse_card("7C" if parity == "odd" else "8C")
    outcome = anti_tank_hit(v, weapon, parse_card("3" + suit), effect_card)
    expected = {
        ("No-effect", "odd"): (VehicleEffect.NONE, (False, False, False, False)),
        ("No-effect", "even"): (VehicleEffect.NONE, (False, False, False, False)),
        ("Damaged", "odd"): (VehicleEffect.TRACKS, (True, False, False, False)),
        ("Damaged", "even"): (VehicleEffect.TURRET, (False, True, False, False)),
        ("Disabled", "odd"): (VehicleEffect.ABANDONED, (False, False, True, False)),
        ("Disabled", "even"): (VehicleEffect.DESTROYED, (False, False, False, True)),
    }[(word, parity)]
    assert outcome.result.name.lower() == word.lower().replace("-", "_")
    assert (outcome.effect, flags(v)) == expected
    assert v.active is (expected[0] not in (VehicleEffect.ABANDONED, VehicleEffect.DESTROYED))
    assert v.can_move is (expected[0] in (VehicleEffect.NONE, VehicleEffect.TURRET))
    assert outcome.effect_card == (None if word == "No-effect" else effect_card)


def test_the_seeds_bazooka_hits_a_sherman():
    # A Bazooka (Medium) hits a Sherman (Medium) with the 6 of Diamonds: Damaged. The further card, the 3 of
    # Clubs, is odd: track damage, no further movement.
    tank = sherman(last_speed=2, speed=2)
    draw_pack, rng = Pack.stacked(["6D", "3C", "9H"]), random.Random(0)
    outcome = anti_tank_fire(tank, AT_WEAPONS[SEED_WEAPONS["Bazooka"]], 7, lambda: draw_pack.draw(rng))
    assert outcome == AntiTankOutcome(True, AntiTankResult.DAMAGED, VehicleEffect.TRACKS, parse_card("6D"),
                                      parse_card("3C"))
    assert tank.immobilised and tank.active and tank.speed == 0
    assert vehicle_moves(FakeBoard(), tank, 0, occupied=frozenset()) == {}
    assert draw_pack.draw_pile == [parse_card("9H")]


def test_a_miss_or_no_effect_draws_no_further_card():
    tank = Vehicle(side=1, name="King Tiger", kind="tracked", armour=Armour.X, cell=c("H8"))
    pack, rng = Pack.stacked(["8S", "2S", "4H"]), random.Random(0)
    draw = lambda: pack.draw(rng)  # noqa: E731
    miss = anti_tank_fire(tank, AntiTank.L, 5, draw)  # 8 against 5
    assert not miss.hit and miss.effect is VehicleEffect.NONE and len(pack.draw_pile) == 2
    bounce = anti_tank_fire(tank, AntiTank.L, 5, draw)  # L against X, spade: No effect
    assert bounce.hit and bounce.result is AntiTankResult.NO_EFFECT and len(pack.draw_pile) == 1
    assert flags(tank) == (False, False, False, False)


@pytest.mark.parametrize("suit", "SCDH")
@pytest.mark.parametrize("parity, effect", [("odd", VehicleEffect.ABANDONED), ("even", VehicleEffect.DESTROYED)])
def test_any_anti_tank_hit_on_an_unarmoured_vehicle_disables_it(suit, parity, effect):
    # Not in the table; RULES.md 8.3: "any anti-tank hit on an un-armoured vehicle is disabled".
    for weapon in AntiTank:
        assert table_result(Armour.U, weapon, parse_card("4" + suit)) is AntiTankResult.DISABLED
    j = jeep()
    outcome = anti_tank_hit(j, AntiTank.L, parse_card("4" + suit), parse_card("5S" if parity == "odd" else "6S"))
    assert outcome.effect is effect and not j.active


def test_the_crew_of_a_destroyed_tank_each_draw():
    # "Occupants of a destroyed vehicle each draw: red wounds"
    tank = sherman()
    pack, rng = Pack.stacked(["2S"]), random.Random(0)
    anti_tank_hit(tank, AntiTank.H, parse_card("3S"), pack.draw(rng))  # Disabled, even: destroyed
    pack = Pack.stacked(["5H", "6S", "7D", "8C", "9H"])
    cards = occupants_draw(tank, lambda: pack.draw(rng))
    assert tank.destroyed and [n for n, card in cards.items() if is_red(card)] == ["Cdr", "Loader", "Co-driver"]


def test_track_damage_twice_is_still_track_damage():
    tank = sherman()
    for _ in range(2):
        anti_tank_hit(tank, AntiTank.M, parse_card("3D"), parse_card("AS"))
    assert flags(tank) == (True, False, False, False) and tank.active


def test_a_damaged_result_needs_its_further_card():
    with pytest.raises(ValueError):
        anti_tank_hit(sherman(), AntiTank.M, parse_card("3D"))


# ---------------------------------------------------------------- the front arc (§8.3)

def test_a_vehicle_that_cannot_traverse_fires_in_its_front_120_degrees():
    board = FakeBoard()
    origin = c("H8")
    # Facing east: the east, north-east and south-east hex lines bound the arc (included).
    for d, inside in ((E, True), (NE, True), (SE, True), (NW, False), (W_, False), (SW, False)):
        assert in_front_arc(origin, E, straight(board, origin, d, 3)[-1]) is inside
    # A hex between the east and north-east lines is in; one between north-east and north-west is not.
    between_e_ne = board.step(board.step(origin, E), NE)
    between_ne_nw = board.step(board.step(origin, NE), NW)
    assert in_front_arc(origin, E, between_e_ne) and not in_front_arc(origin, E, between_ne_nw)
    assert in_front_arc(origin, NE, between_ne_nw)
    assert not in_front_arc(origin, E, origin)

    tank = sherman()
    behind = straight(board, origin, W_, 2)[-1]
    assert guns_bear(tank, behind)
    anti_tank_hit(tank, AntiTank.M, parse_card("3D"), parse_card("2S"))  # turret damage
    assert tank.turret_jammed and not guns_bear(tank, behind) and guns_bear(tank, straight(board, origin, E, 2)[-1])
    assert not guns_bear(jeep(), behind)  # no turret at all


# ---------------------------------------------------------------- with the real board

def test_the_fake_board_has_the_real_boards_geometry():
    from cardwar.envs.skirmish.board import Board

    real, fake = Board.from_rows(["." * 24] * 16), FakeBoard()
    for cell in range(24 * 16):
        assert [real.step(cell, d) for d in range(6)] == [fake.step(cell, d) for d in range(6)]
    assert real.distance(c("A1"), c("X16")) == fake.distance(c("A1"), c("X16"))


def test_a_tank_on_the_real_board_stops_short_of_a_building_and_crosses_a_low_wall():
    from cardwar.envs.skirmish.board import Board

    rows = ["." * 24] * 16
    rows[7] = "........B..............."  # a house at I8
    board = Board.from_rows(rows, [("D8", "E8", "wall_low")])
    tank = sherman(cell="C8", facing=E, last_speed=2)
    # Emergency stop from 20 mph: 7 hexes straight ahead, over the low wall, but the house at I8 stops it in H8.
    assert vehicle_moves(board, tank, 0, occupied=frozenset()) == {c("H8"): straight(board, c("C8"), E, 5)}
    j = jeep(cell="C8", facing=E, last_speed=1)
    path = vehicle_moves(board, j, 1, occupied=frozenset(), fraction=DECK_FRACTION)[c("E8")]
    assert path != (c("D8"), c("E8")) and len(path) > 2  # round the wall's end, not over it
    assert step_cost(board, "wheeled", c("D8"), c("E8")) is None
    assert step_cost(board, "tracked", c("D8"), c("E8")) == 2
