"""CellGrid: integer cell tables agree with the axial geometry of ``hexmap.grid``."""

from __future__ import annotations

import random

import pytest

from cardwar.envs.hexmap import grid
from cardwar.envs.hexmap.cells import OFF, CellGrid, cell_grid

G = cell_grid(24, 16)


def test_cells_are_row_major_and_labelled_like_hexwar():
    assert G.size == 384
    assert G.label(0) == "A1" and G.label(23) == "X1" and G.label(24) == "A2" and G.label(383) == "X16"
    assert G.cell(2, 4) == 4 * 24 + 2 == G.parse("C5")
    assert G.col_row(G.parse("C5")) == (2, 4)


def test_labels_round_trip_and_bad_labels_are_refused():
    assert all(G.parse(G.label(c)) == c for c in range(G.size))
    assert G.parse(" c5 ") == G.parse("C5")
    for bad in ("Y1", "A17", "A0", "5C", "", "AA"):
        with pytest.raises(ValueError):
            G.parse(bad)


def test_neighbours_follow_the_six_directions_and_stop_at_the_edge():
    for c in range(G.size):
        h = G.hex(c)
        expected = []
        for d, off in enumerate(grid.DIRECTIONS):
            n = G.cell_of(h + off)
            assert G.neighbour(c, d) == n
            assert G.steps(c)[d] == (OFF if n is None else n)
            if n is not None:
                expected.append(n)
                assert G.direction(c, n) == d
                assert G.distance(c, n) == 1
        assert G.neighbours(c) == tuple(expected)
    assert G.neighbours(0) == (1, 24)  # A1: east and (even row) south-east only
    assert len(G.neighbours(G.parse("E5"))) == 6


def test_odd_rows_are_shoved_right():
    # row 2 (index 1) is odd: B2's north-west neighbour is B1, its north-east C1
    b2 = G.parse("B2")
    assert G.neighbour(b2, 2) == G.parse("B1") and G.neighbour(b2, 1) == G.parse("C1")
    c3 = G.parse("C3")  # even row: north-west is B2, north-east C2
    assert G.neighbour(c3, 2) == G.parse("B2") and G.neighbour(c3, 1) == G.parse("C2")


def test_distance_matches_the_axial_distance():
    rng = random.Random(1)
    for _ in range(3000):
        a, b = rng.randrange(G.size), rng.randrange(G.size)
        assert G.distance(a, b) == grid.distance(G.hex(a), G.hex(b)) == G.distance(b, a)
    assert G.distance(G.parse("A1"), G.parse("X16")) == grid.distance(G.hex(0), G.hex(383))


def test_within_is_every_cell_at_most_radius_away():
    c = G.parse("L8")
    assert G.within(c, 0) == (c,)
    assert len(G.within(c, 1)) == 7 and len(G.within(c, 2)) == 19
    assert set(G.within(0, 2)) == {x for x in range(G.size) if G.distance(0, x) <= 2}


def test_lines_hold_the_cells_strictly_between_and_are_symmetric():
    rng = random.Random(2)
    for _ in range(2000):
        a, b = rng.randrange(G.size), rng.randrange(G.size)
        left, right = G.line(a, b)
        n = G.distance(a, b)
        assert len(left) == len(right) == max(n - 1, 0)
        back_left, back_right = G.line(b, a)
        assert back_left == left[::-1] and back_right == right[::-1]
        if left == right:  # a line through hex centres between two cells of a rectangle stays on it
            assert OFF not in left
        for side in (left, right):
            walk = (a, *side, b)
            if OFF not in side and n > 0:
                assert all(G.distance(x, y) == 1 for x, y in zip(walk, walk[1:]))


def test_a_line_along_hex_edges_has_two_sides():
    # C3 to D1... pick two cells two apart along an edge direction: E5 and its "north" (NE then NW)
    a = G.parse("E5")
    b = G.neighbour(G.neighbour(a, 1), 2)
    left, right = G.line(a, b)
    assert left != right and {left[0], right[0]} == {G.neighbour(a, 1), G.neighbour(a, 2)}


def test_a_small_grid_marks_lines_leaving_it_off():
    g = CellGrid(3, 2)
    assert g.size == 6 and g.neighbours(0) == (1, 3)
    assert cell_grid(3, 2) is cell_grid(3, 2)
    with pytest.raises(ValueError):
        g.parse("D1")


def test_lines_built_a_source_at_a_time_match_the_pair_by_pair_hex_line():
    """CellGrid computes every line from a cell at once with numpy; the cells must be exactly those of
    grid.lines_between (Red Blob's lerp and round, nudged to either side), including OFF beyond the grid."""
    import random

    from cardwar.envs.hexmap.grid import lines_between

    g = CellGrid(24, 16)
    for a in random.Random(7).sample(range(g.size), 25):
        for b in range(g.size):
            left, right = lines_between(g.hexes[a], g.hexes[b])
            assert g.line(a, b) == (g._cells_or_off(left), g._cells_or_off(right)), (a, b)
