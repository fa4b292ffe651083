"""The skirmish table as RULES.md §1, §4.3, §5.2 and §6.2-6.3 tell it: terrain, edge obstacles, sight, cover,
movement costs, paths, scatter and blasts."""

from __future__ import annotations

import copy
import math
import pickle
import random

import pytest

from cardwar.envs.skirmish.board import (
    ENTIRE, GRID, N_CELLS, Board, BoardError, Edge, Ground, edge_key,
)
from cardwar.envs.skirmish.figures import Stance

P = GRID.parse
E, NE, NW, WEST, SW, SE = range(6)
NONE: frozenset = frozenset()
STANDING, KNEELING, PRONE = Stance.STANDING, Stance.KNEELING, Stance.PRONE

OPEN_FIELD = ["." * 12] * 10


def field(edges=(), rows=OPEN_FIELD) -> Board:
    return Board.from_rows(rows, list(edges))


def key(a: str, b: str) -> tuple[int, int]:
    return edge_key(P(a), P(b))


def cost(board: Board, a: str, b: str, stance=STANDING, running=False, open_doors=NONE):
    return board.crossing(P(a), P(b), stance=stance, running=running, open_doors=open_doors)


# ------------------------------------------------------------------ the grid and the text form (§1.1)

def test_a_small_map_is_padded_with_off_map_hexes():
    b = Board.from_rows(["..", ",W"], [])
    assert len(b.ground) == N_CELLS == 24 * 16
    assert [b.ground[P(x)] for x in ("A1", "B1", "A2", "B2", "C1", "A3")] == [
        Ground.CLEAR, Ground.CLEAR, Ground.LIGHT, Ground.WOODS, Ground.OFF, Ground.OFF]
    assert b.neighbours(P("A1")) == (P("B1"), P("A2"))  # east, then south-east (even row)
    assert b.step(P("B1"), E) is None and b.step(P("A1"), SE) == P("A2") and b.step(P("A1"), NE) is None
    assert b.distance(P("A1"), P("X16")) == GRID.distance(0, 383)


def test_the_text_form_reads_back():
    rows = ["..,,WWrroo", ".BBB..K...", ".BBB......"]
    edges = [("A1", "B1", "wall_low"), ("B2", "C2", "door_closed"), ("A3", "B3", "window"),
             ("D1", "E1", "hedge_high")]
    b = Board.from_rows(rows, edges)
    assert Board.from_text(b.to_text()) == b
    assert Board.from_rows(*b.to_rows()) == b
    assert hash(Board.from_text(b.to_text())) == hash(b)
    assert "A1 B1 wall_low" in b.to_text()


def test_a_board_is_shared_not_copied_and_pickles():
    b = field([("C3", "D3", "wall_high")])
    assert copy.deepcopy(b) is b
    again = pickle.loads(pickle.dumps(b))
    assert again == b and again.sees(P("A3"), P("F3")) == b.sees(P("A3"), P("F3"))
    assert pickle.loads(pickle.dumps(ENTIRE)) is ENTIRE and repr(ENTIRE) == "ENTIRE"


@pytest.mark.parametrize("rows, edges, words", [
    (["..x"], [], "'x' is not a ground character"),
    (["." * 25], [], "at most 24 columns"),
    (["."] * 17, [], "at most 16 rows"),
    (["...."], [("A1", "C1", "wall_low")], "not adjacent"),
    (["...."], [("A1", "B1", "fence")], "unknown edge 'fence'"),
    (["...."], [("A1", "Z1", "wall_low")], "Z1"),
    (["...."], [("A1", "B1", "wall_low"), ("B1", "A1", "hedge_low")], "listed twice"),
])
def test_bad_maps_are_refused_with_a_one_line_reason(rows, edges, words):
    with pytest.raises(BoardError, match=words) as info:
        Board.from_rows(rows, edges)
    assert "\n" not in str(info.value)
    assert isinstance(info.value, ValueError)


# ------------------------------------------------------------------ terrain and cover (§1.2, §5.2)

def test_hex_cover_by_terrain():
    # "1 - light cover, 2 - buildings, 3 - bunkers"; woods and shell holes are light cover, rough none
    b = Board.from_rows([".,WroBK"], [])
    assert [b.hex_cover(P(x)) for x in ("A1", "B1", "C1", "D1", "E1", "F1", "G1")] == [0, 1, 1, 0, 1, 2, 3]


def test_a_wall_covers_only_from_the_far_side():
    # a waist-high wall on D5's east edge: a man in D5 is covered from the east, not from the west
    b = field([("D5", "E5", "wall_low")])
    assert b.cover(P("D5"), P("H5")) == 1
    assert b.cover(P("D5"), P("E5")) == 1  # adjacent, across the wall
    assert b.cover(P("D5"), P("A5")) == 0
    assert b.cover(P("E5"), P("A5")) == 1  # the man beyond it, from the west
    assert b.cover(P("E5"), P("H5")) == 0
    # a hedge the same; covers are not added: light cover behind a wall is still 1
    hedge = Board.from_rows(["." * 12] * 4 + ["...,"], [("D5", "E5", "hedge_low")])
    assert hedge.cover(P("D5"), P("H5")) == 1
    assert hedge.cover(P("D5"), P("A5")) == 1  # its own light cover


def test_a_man_in_a_building_has_the_buildings_cover_through_its_window():
    b = Board.from_rows([".....", "..B.."], [("B2", "C2", "window")])
    assert b.cover(P("C2"), P("A2")) == 2
    assert b.sees(P("A2"), P("C2"))


# ------------------------------------------------------------------ line of sight (§1.4)

def test_woods_buildings_and_head_high_obstacles_between_block_sight():
    rows = ["." * 12, "...W........", "." * 12, "..B.........", "." * 12]
    b = Board.from_rows(rows, [("E5", "F5", "wall_high")])
    assert not b.sees(P("A2"), P("G2"))  # woods D2 strictly between
    assert b.sees(P("A2"), P("D2")) and b.sees(P("D2"), P("G2"))  # a man in the woods sees and is seen
    assert not b.sees(P("A4"), P("G4"))  # building C4 between
    assert not b.sees(P("A5"), P("H5"))  # head-high wall crossed
    assert b.sees(P("A5"), P("E5")) and b.sees(P("F5"), P("H5"))
    low = field([("E5", "F5", "wall_low"), ("E6", "F6", "hedge_low")])
    assert low.sees(P("A5"), P("H5")) and low.sees(P("A6"), P("H6"))  # waist-high: open
    hedge = field([("E5", "F5", "hedge_high")])
    assert not hedge.sees(P("A5"), P("H5"))


def test_figures_do_not_block_sight_but_vehicles_do():
    b = field()
    assert b.sees(P("A5"), P("H5"), blockers=frozenset({P("D5")})) is False
    assert b.sees(P("A5"), P("H5"), blockers=frozenset({P("D6")}))
    assert b.sees(P("A5"), P("D5"), blockers=frozenset({P("D5")}))  # the vehicle itself is seen


def test_a_closed_door_blocks_sight_and_an_open_one_does_not():
    b = Board.from_rows([".....", ".....", "....."], [("B2", "C2", "door_closed")])
    door = key("B2", "C2")
    assert not b.sees(P("A2"), P("E2"))
    assert b.sees(P("A2"), P("E2"), open_doors=frozenset({door}))
    assert b.edge(P("B2"), P("C2")) == Edge.DOOR_CLOSED
    assert b.edge(P("C2"), P("B2"), frozenset({door})) == Edge.DOOR_OPEN


def test_a_building_is_seen_into_only_through_its_openings():
    rows = ["........", "..BBB...", "..BBB...", "........"]
    b = Board.from_rows(rows, [("B2", "C2", "door_closed"), ("E3", "F3", "window")])
    # every outer edge not listed is a building wall; inside, one room
    assert b.edge(P("C1"), P("C2")) == Edge.BUILDING_WALL
    assert b.edge(P("C2"), P("D2")) == Edge.OPEN
    assert not b.sees(P("A2"), P("D2"))  # closed door
    assert b.sees(P("A2"), P("D2"), open_doors=frozenset({key("B2", "C2")}))
    assert b.sees(P("H3"), P("C3"))  # through the window, across the room
    assert not b.sees(P("C1"), P("C2"))  # adjacent, through the wall
    assert not b.sees(P("B1"), P("F4"))  # across the building, outside to outside
    assert b.sees(P("C2"), P("E3"))  # across the room inside


def test_sight_is_symmetric_on_random_boards():
    rng = random.Random(5)
    for _ in range(4):
        b = random_board(rng)
        doors = frozenset(k for k, e in b.edges.items() if e == Edge.DOOR_CLOSED and rng.random() < 0.5)
        blockers = frozenset(rng.sample(range(N_CELLS), 10))
        for _ in range(1500):
            x, y = rng.randrange(N_CELLS), rng.randrange(N_CELLS)
            for mode in ("either_side", "both_sides"):
                assert (b.sees(x, y, blockers=blockers, open_doors=doors, edge_sight=mode)
                        == b.sees(y, x, blockers=blockers, open_doors=doors, edge_sight=mode))
            assert b.sees(x, y, edge_sight="both_sides") <= b.sees(x, y)


def test_a_line_along_hex_edges_is_clear_if_either_side_is_by_default():
    a = P("E5")
    far = GRID.neighbour(GRID.neighbour(a, NE), NW)  # two hexes "north": the line runs along an edge
    rows = [list("." * 12) for _ in range(10)]
    ne = GRID.neighbour(a, NE)
    rows[ne // 24][ne % 24] = "W"
    b = Board.from_rows(["".join(r) for r in rows], [])
    assert b.sees(a, far) and not b.sees(a, far, edge_sight="both_sides")
    nw = GRID.neighbour(a, NW)
    rows[nw // 24][nw % 24] = "W"
    both = Board.from_rows(["".join(r) for r in rows], [])
    assert not both.sees(a, far)
    with pytest.raises(ValueError):
        b.sees(a, far, edge_sight="sideways")


def test_off_map_hexes_block_sight():
    b = Board.from_rows(["....", ".#..", "...."], [])
    assert not b.sees(P("A2"), P("C2"))
    assert not b.sees(P("A1"), P("B2"))  # an off-map hex is never seen


# ------------------------------------------------------------------ crossing costs (§1.2, §1.3, §1.5)

CROSSINGS = [
    # edge,        standing, kneeling, prone,  running   (WW2's table, "lose 2"" = +1 hex)
    ("wall_low",    2,       2,        ENTIRE, None),
    ("wall_high",   ENTIRE,  ENTIRE,   None,   None),
    ("hedge_low",   2,       2,        ENTIRE, None),
    ("hedge_high",  ENTIRE,  ENTIRE,   ENTIRE, None),
    ("door_open",   1,       1,        1,      1),
    ("door_closed", ENTIRE,  ENTIRE,   None,   None),
    ("window",      ENTIRE,  ENTIRE,   None,   None),
    ("building_wall", None,  None,     None,   None),
    ("embrasure",   None,    None,     None,   None),
    ("open",        1,       1,        1,      1),
]


@pytest.mark.parametrize("name, standing, kneeling, prone, running", CROSSINGS)
def test_crossing_costs_follow_the_ww2_table(name, standing, kneeling, prone, running):
    b = field([("D5", "E5", name)])
    for stance, want in ((STANDING, standing), (KNEELING, kneeling), (PRONE, prone)):
        assert cost(b, "D5", "E5", stance) == want
        assert cost(b, "E5", "D5", stance) == want  # the same from either side
    assert cost(b, "D5", "E5", STANDING, running=True) == running
    for got in (cost(b, "D5", "E5", s) for s in (STANDING, PRONE)):
        assert got is None or got is ENTIRE or type(got) is int


def test_an_opened_door_is_free_for_everyone():
    b = field([("D5", "E5", "door_closed")])
    opened = frozenset({key("D5", "E5")})
    assert [cost(b, "D5", "E5", s, open_doors=opened) for s in (STANDING, PRONE)] == [1, 1]
    assert cost(b, "D5", "E5", STANDING, running=True, open_doors=opened) == 1


def test_a_building_is_entered_only_by_door_or_window():
    b = Board.from_rows(["....", ".BB.", "...."], [("A2", "B2", "door_open")])
    assert cost(b, "B1", "B2") is None  # building wall
    assert cost(b, "A2", "B2") == 1
    assert cost(b, "B2", "C2") == 1  # inside, one room


def test_rough_ground_costs_two_and_no_one_runs_in_it():
    b = Board.from_rows(["..r.W"], [])
    assert cost(b, "B1", "C1") == 2 and cost(b, "B1", "C1", PRONE) == 2
    assert cost(b, "C1", "D1") == 1  # leaving costs only the hex entered
    assert cost(b, "B1", "C1", running=True) is None and cost(b, "C1", "D1", running=True) is None
    assert cost(b, "D1", "E1") == 2 and cost(b, "D1", "E1", running=True) is None  # woods move as rough
    assert cost(b, "A1", "B1", running=True) == 1


def test_leaving_a_shell_hole_is_the_entire_move():
    b = Board.from_rows([".o.o"], [])
    assert cost(b, "A1", "B1") == 1 and cost(b, "A1", "B1", PRONE) == 1  # going down: no penalty
    assert cost(b, "B1", "C1") is ENTIRE and cost(b, "B1", "C1", PRONE) is ENTIRE
    assert cost(b, "B1", "C1", running=True) is None
    assert cost(b, "B1", "A1", KNEELING) is ENTIRE


def test_off_map_and_distant_hexes_cannot_be_stepped_to():
    b = Board.from_rows(["..#"], [])
    assert cost(b, "B1", "C1") is None and cost(b, "A1", "C1") is None


def test_entire_is_one_value_bigger_than_any_allowance():
    assert ENTIRE > 100 and ENTIRE == ENTIRE and ENTIRE is copy.copy(ENTIRE)


# ------------------------------------------------------------------ paths (§4.1, §4.3)

def paths(b: Board, start: str, allowance: int, stance=STANDING, running=False, enemy=(), friends=(),
          **kw) -> dict[str, tuple[str, ...]]:
    got = b.paths(P(start), allowance, stance=stance, running=running,
                  enemy=frozenset(P(x) for x in enemy), friends=frozenset(P(x) for x in friends), **kw)
    return {GRID.label(d): tuple(GRID.label(c) for c in p) for d, p in got.items()}


def test_paths_reach_every_hex_within_the_allowance_by_the_shortest_way():
    b = field()
    got = paths(b, "E5", 2)
    assert set(got) == {GRID.label(c) for c in GRID.within(P("E5"), 2)} - {"E5"}
    assert all(len(p) == GRID.distance(P("E5"), P(d)) and p[-1] == d for d, p in got.items())
    assert all(GRID.distance(P(x), P(y)) == 1 for p in got.values() for x, y in zip(("E5",) + p, p))


def test_the_cheapest_path_goes_round_rough_ground():
    b = Board.from_rows(["....", "....", ".r..", "....", "...."], [])
    got = b.reach(P("B2"), 4, stance=STANDING, running=False)
    c, path = got[P("B4")]
    assert c == 2 and P("B3") not in path
    assert got[P("B3")] == (2, (P("B3"),))  # into the rough hex itself: 2


def test_a_waist_high_wall_costs_one_more_and_going_round_may_be_cheaper():
    b = field([("D5", "E5", "wall_low")])
    got = b.reach(P("D5"), 2, stance=STANDING, running=False)
    assert got[P("E5")] == (2, (P("E5"),))  # vault over: 1 + 1
    assert P("F5") not in got
    assert b.reach(P("D5"), 3, stance=STANDING, running=False)[P("F5")][0] == 3


def test_friends_may_be_passed_but_not_ended_on():
    corridor = Board.from_rows(["####", ".....", "####"], [])
    got = paths(corridor, "A2", 3, friends=("B2",))
    assert "B2" not in got and got["C2"] == ("B2", "C2") and got["D2"] == ("B2", "C2", "D2")


def test_enemy_hexes_are_never_entered():
    corridor = Board.from_rows(["####", ".....", "####"], [])
    assert paths(corridor, "A2", 4, enemy=("C2",)) == {"B2": ("B2",)}
    assert paths(corridor, "A2", 4, enemy=("B2",)) == {}


def test_an_entire_move_crossing_is_only_a_single_step():
    # a prone man beside a waist-high wall crosses it, and that is his whole move
    b = field([("D5", "E5", "wall_low")])
    got = b.reach(P("D5"), 1, stance=PRONE, running=False)
    assert got[P("E5")] == (ENTIRE, (P("E5"),))
    # from a shell hole every step out is the whole move
    hole = Board.from_rows([".....", "..o..", "....."], [])
    out = hole.reach(P("C2"), 4, stance=STANDING, running=False)
    assert set(out) == set(hole.neighbours(P("C2"))) and all(c is ENTIRE for c, _ in out.values())


def test_a_figure_may_always_move_at_least_one_hex():
    # a crawler (1 hex) next to woods (2): one step in is still a move; not when he paid for something else
    b = Board.from_rows(["...", ".W.", "..."], [])
    assert paths(b, "A2", 1, PRONE)["B2"] == ("B2",)
    assert "B2" not in paths(b, "A2", 1, PRONE, at_least_one=False)
    assert b.reach(P("A2"), 1, stance=PRONE, running=False)[P("B2")][0] == 2
    assert paths(b, "A2", 0, PRONE) == {}
    # but never where the step is not allowed at all: a runner into woods
    assert "B2" not in paths(b, "A2", 1, running=True)


def test_a_runner_keeps_to_smooth_ground_and_goes_through_no_obstacle():
    b = Board.from_rows(["......", "......"], [("B1", "C1", "wall_low"), ("B2", "C2", "hedge_low")])
    got = paths(b, "A1", 6, running=True)
    assert "C1" in got and got["C1"] != ("B1", "C1")  # goes round the wall: never across it
    std = paths(b, "A1", 6)
    assert std["C1"] == ("B1", "C1")  # a walker vaults it (2) rather than go round (3)


def test_an_all_out_run_is_a_straight_line_over_smooth_ground():
    # WW2: "he must run in a straight line over smooth terrain" (4 hexes, standing)
    b = Board.from_rows(["........", "...r....", "........", "........", "........"], [("A2", "B3", "wall_low")])
    got = paths(b, "A2", 4, running=True, straight=True, friends=("B2",))
    assert "B2" not in got and got["C2"] == ("B2", "C2") and "D2" not in got  # through a friend; rough stops it
    assert "B3" not in got  # no obstacle on the way
    for path in got.values():
        walk = (P("A2"),) + tuple(P(x) for x in path)
        assert len({GRID.direction(x, y) for x, y in zip(walk, walk[1:])}) == 1
    assert paths(b, "A5", 4, running=True, straight=True)["E5"] == ("B5", "C5", "D5", "E5")
    assert "F5" not in paths(b, "A5", 4, running=True, straight=True)


def test_among_equal_paths_the_least_exposed_then_a_fixed_direction_order():
    b = field()
    start, dest = P("E5"), P("F4")  # two equally short ways: via F5 (east) or E4 (north-east)
    plain = b.paths(start, 2, stance=STANDING, running=False)[dest]
    assert plain == (P("F5"), dest)  # direction 0 (east) first
    hidden = b.paths(start, 2, stance=STANDING, running=False, exposed=frozenset({P("F5")}))[dest]
    assert hidden == (P("E4"), dest)


def test_doors_open_for_paths_when_opened():
    b = Board.from_rows(["####", "....", "####"], [("B2", "C2", "door_closed")])
    assert set(paths(b, "A2", 4)) == {"B2"}  # the closed door is the whole move, so only from B2
    assert set(paths(b, "B2", 4)) == {"A2", "C2"}
    opened = paths(b, "A2", 4, open_doors=frozenset({key("B2", "C2")}))
    assert opened["D2"] == ("B2", "C2", "D2")


# ------------------------------------------------------------------ brute force check of paths

def random_board(rng: random.Random, size: int = 24) -> Board:
    rows = ["".join(rng.choice("......,,WrroBBK#") for _ in range(size)) for _ in range(min(size, 16))]
    names = [e.name.lower() for e in Edge]
    edges = []
    seen = set()
    for _ in range(size * 4):
        a = GRID.parse(f"{'ABCDEFGHIJKLMNOPQRSTUVWX'[rng.randrange(size)]}{rng.randrange(min(size, 16)) + 1}")
        nb = GRID.neighbours(a)
        b = rng.choice(nb)
        k = edge_key(a, b)
        if k in seen:
            continue
        seen.add(k)
        edges.append((GRID.label(a), GRID.label(b), rng.choice(names)))
    return Board.from_rows(rows, edges)


def exhaustive(b: Board, start: int, allowance: int, stance, running, enemy, friends, doors) -> dict[int, int]:
    """Every destination -> its least cost, by walking every simple path (costs are at least 1 a step)."""
    best: dict[int, int] = {}

    def walk(cell: int, spent: int, visited: frozenset) -> None:
        for nb in b.neighbours(cell):
            if nb in visited or nb in enemy:
                continue
            c = b.crossing(cell, nb, stance=stance, running=running, open_doors=doors)
            if c is None or c is ENTIRE or spent + c > allowance:
                continue
            if nb not in friends:
                best[nb] = min(best.get(nb, math.inf), spent + c)
            walk(nb, spent + c, visited | {nb})

    walk(start, 0, frozenset({start}))
    if allowance >= 1:
        for nb in b.neighbours(start):
            c = b.crossing(start, nb, stance=stance, running=running, open_doors=doors)
            if c is not None and nb not in best and nb not in enemy and nb not in friends:
                best[nb] = c
    return best


def test_paths_find_exactly_what_an_exhaustive_search_finds():
    rng = random.Random(20)
    for trial in range(6):
        b = random_board(rng, size=10)
        doors = frozenset(k for k, e in b.edges.items() if e == Edge.DOOR_CLOSED and rng.random() < 0.5)
        on_map = [c for c in range(N_CELLS) if b.ground[c] != Ground.OFF]
        for _ in range(40):
            start = rng.choice(on_map)
            others = rng.sample(on_map, 8)
            enemy, friends = frozenset(others[:4]) - {start}, frozenset(others[4:]) - {start}
            stance = rng.choice(list(Stance))
            running = rng.random() < 0.25
            allowance = rng.randint(0, 4)
            want = exhaustive(b, start, allowance, stance, running, enemy, friends, doors)
            got = b.reach(start, allowance, stance=stance, running=running, enemy=enemy, friends=friends,
                          open_doors=doors)
            assert set(got) == set(want), (trial, GRID.label(start))
            for dest, (c, path) in got.items():
                assert c == want[dest]
                assert path[-1] == dest and start not in path and not enemy & set(path)
                steps = [b.crossing(x, y, stance=stance, running=running, open_doors=doors)
                         for x, y in zip((start,) + path, path)]
                assert None not in steps
                assert (steps == [ENTIRE] if c is ENTIRE else sum(steps) == c)


# ------------------------------------------------------------------ scatter and blast (§6.2, §6.3)

def test_scatter_lands_that_many_hexes_away_in_the_direction():
    b = field()
    assert b.scatter_landing(P("E5"), E, 3, open_doors=NONE) == P("H5")
    assert b.scatter_landing(P("E5"), WEST, 0, open_doors=NONE) == P("E5")
    assert b.scatter_landing(P("E5"), SE, 2, open_doors=NONE) == GRID.neighbour(GRID.neighbour(P("E5"), SE), SE)


def test_scatter_stops_before_a_head_high_wall_and_is_lost_off_the_map():
    b = field([("F5", "G5", "wall_high"), ("F6", "G6", "wall_low"), ("F7", "G7", "door_closed")])
    assert b.scatter_landing(P("E5"), E, 3, open_doors=NONE) == P("F5")
    assert b.scatter_landing(P("E6"), E, 3, open_doors=NONE) == P("H6")  # a waist-high wall is thrown over
    assert b.scatter_landing(P("E7"), E, 3, open_doors=NONE) == P("F7")
    assert b.scatter_landing(P("E7"), E, 3, open_doors=frozenset({key("F7", "G7")})) == P("H7")
    assert b.scatter_landing(P("B5"), WEST, 3, open_doors=NONE) is None  # beyond column A
    assert b.scatter_landing(P("K5"), E, 3, open_doors=NONE) is None  # into the off-map padding


def test_scatter_stops_at_a_building_wall():
    b = Board.from_rows(["......", "...BB.", "......"], [])
    assert b.scatter_landing(P("A2"), E, 3, open_doors=NONE) == P("C2")
    assert b.scatter_landing(P("D2"), E, 3, open_doors=NONE) == P("E2")  # from inside: stays in the room


def test_a_blast_is_shielded_by_a_building_wall():
    rows = ["........", "........", "...BB...", "...BB...", "........"]
    b = Board.from_rows(rows, [])
    reached = set(b.blast(P("B3"), 2, open_doors=NONE))
    assert P("B3") in reached and P("C3") in reached and P("A1") in reached
    assert P("D3") not in reached and P("D4") not in reached  # inside the building, behind its wall
    assert reached == {c for c in GRID.within(P("B3"), 2) if b.sees(P("B3"), c)}
    # a burst inside reaches that building's hexes and what its openings see
    inside = set(b.blast(P("D3"), 2, open_doors=NONE))
    assert inside == {P("D3"), P("E3"), P("D4"), P("E4")}
    windowed = Board.from_rows(rows, [("C3", "D3", "window")])
    inside = set(windowed.blast(P("D3"), 2, open_doors=NONE))
    assert {P("C3"), P("B3")} <= inside and P("C4") not in inside


def test_a_burst_off_the_map_reaches_nothing():
    b = Board.from_rows(["..#"], [])
    assert b.blast(P("C1"), 2, open_doors=NONE) == ()
    assert P("C1") not in b.blast(P("B1"), 1, open_doors=NONE)


# ------------------------------------------------------------------ sight against a plain reading of §1.4

def reference_sees(b: Board, x: int, y: int, blockers: frozenset, doors: frozenset) -> bool:
    """§1.4 read directly off the hex lines (either side clear), with rooms found afresh."""
    from cardwar.envs.hexmap import grid

    if b.ground[x] == Ground.OFF or b.ground[y] == Ground.OFF:
        return False
    if x == y:
        return True

    def room(c: int) -> set[int]:
        if b.ground[c] not in (Ground.BUILDING, Ground.BUNKER):
            return set()
        found, todo = {c}, [c]
        while todo:
            here = todo.pop()
            for n in GRID.neighbours(here):
                if n not in found and b.ground[n] == b.ground[c] and b.edge(here, n) == Edge.OPEN:
                    found.add(n)
                    todo.append(n)
        return found

    inside = room(x) | room(y)
    for nudge in (1e-4, -1e-4):
        hexes = grid.line(GRID.hex(x), GRID.hex(y), nudge)
        cells = [GRID.cell_of(h) for h in hexes]
        if None in cells:
            continue
        between = cells[1:-1]
        if any(b.ground[c] in (Ground.WOODS, Ground.OFF) or c in blockers
               or (b.ground[c] in (Ground.BUILDING, Ground.BUNKER) and c not in inside) for c in between):
            continue
        if any(b.edge(p, q, doors) in (Edge.WALL_HIGH, Edge.HEDGE_HIGH, Edge.BUILDING_WALL, Edge.DOOR_CLOSED)
               for p, q in zip(cells, cells[1:])):
            continue
        return True
    return False


def test_sight_agrees_with_a_plain_reading_of_the_rules():
    rng = random.Random(14)
    for _ in range(3):
        b = random_board(rng)
        doors = frozenset(k for k, e in b.edges.items() if e == Edge.DOOR_CLOSED and rng.random() < 0.5)
        blockers = frozenset(rng.sample(range(N_CELLS), 6))
        for _ in range(1500):
            x = rng.randrange(N_CELLS)
            y = rng.choice(GRID.within(x, rng.choice((1, 2, 3, 6, 12))))
            assert b.sees(x, y, blockers=blockers, open_doors=doors) == reference_sees(b, x, y, blockers, doors)
