"""Hex geometry: distances, symmetry, rings and lines (also away from the origin)."""

from __future__ import annotations

import itertools

import pytest

from cardwar.envs.hexwar.hexgrid import (
    DIRECTIONS, Hex, distance, from_offset, label, line, lines_between, neighbours, parse_label, rectangle, ring,
    spiral, to_offset,
)

FAR = Hex(7, -3)


def test_s_is_derived():
    assert Hex(2, -5).s == 3


@pytest.mark.parametrize("a, b, d", [
    (Hex(0, 0), Hex(0, 0), 0), (Hex(0, 0), Hex(1, 0), 1), (Hex(0, 0), Hex(2, -1), 2),
    (Hex(0, 0), Hex(3, -3), 3), (Hex(-2, 3), Hex(1, -1), 4), (FAR, FAR + Hex(-2, 5), 5),
])
def test_known_distances(a, b, d):
    assert distance(a, b) == d == distance(b, a)


def test_neighbours_are_at_distance_one_and_distinct():
    for c in (Hex(0, 0), FAR):
        ns = neighbours(c)
        assert len(set(ns)) == 6 and all(distance(c, n) == 1 for n in ns)


def test_distance_is_a_metric_on_a_patch():
    hexes = spiral(FAR, 3)
    for a, b, c in itertools.islice(itertools.product(hexes, repeat=3), 0, None, 97):
        assert distance(a, c) <= distance(a, b) + distance(b, c)


def test_distance_is_invariant_under_rotation():
    def rot(h: Hex) -> Hex:  # 60 degrees about the origin in cube coordinates: (q, r, s) -> (-r, -s, -q)
        return Hex(-h.r, -h.s)

    for a, b in itertools.product(spiral(Hex(0, 0), 3), spiral(FAR, 1)):
        assert distance(rot(a), rot(b)) == distance(a, b)


@pytest.mark.parametrize("radius, count", [(0, 1), (1, 6), (2, 12), (3, 18)])
def test_rings(radius, count):
    r = ring(FAR, radius)
    assert len(r) == len(set(r)) == count
    assert all(distance(FAR, h) == radius for h in r)
    assert len(spiral(FAR, radius)) == 1 + 3 * radius * (radius + 1)


def test_ring_is_walked_in_order():
    r = ring(FAR, 2)
    assert all(distance(r[i], r[(i + 1) % len(r)]) == 1 for i in range(len(r)))


def test_lines_are_contiguous_and_as_long_as_the_distance():
    for a, b in itertools.product(spiral(FAR, 2), spiral(Hex(-1, 4), 2)):
        ln = line(a, b)
        assert ln[0] == a and ln[-1] == b and len(ln) == distance(a, b) + 1
        assert all(distance(ln[i], ln[i + 1]) == 1 for i in range(len(ln) - 1))


def test_straight_line_along_an_axis():
    a = Hex(-3, 2)
    assert line(a, a + DIRECTIONS[0].scale(4)) == [a + DIRECTIONS[0].scale(i) for i in range(5)]


def test_line_along_an_edge_has_two_sides():
    # Hex(0,0) to Hex(1,1)... distance 2 along the edge between Hex(1,0) and Hex(0,1).
    a, b = Hex(0, 0), Hex(1, 1)
    left, right = lines_between(a, b)
    assert {left[0], right[0]} == {Hex(1, 0), Hex(0, 1)}
    a2, b2 = a + FAR, b + FAR
    l2, r2 = lines_between(a2, b2)
    assert {l2[0], r2[0]} == {Hex(1, 0) + FAR, Hex(0, 1) + FAR}


def test_offset_conversion_and_labels_round_trip():
    for h in rectangle(12, 10):
        assert from_offset(*to_offset(h)) == h
        assert parse_label(label(h)) == h
    assert label(from_offset(0, 0)) == "A1" and label(from_offset(2, 3)) == "C4"
    assert parse_label("c4") == from_offset(2, 3)


def test_offset_neighbours_follow_odd_r():
    # In odd-r layout, row 1 is shoved right: (0, 1) touches (0, 0) and (1, 0).
    assert {from_offset(0, 0), from_offset(1, 0)} <= set(neighbours(from_offset(0, 1)))
    assert from_offset(1, 0) not in neighbours(from_offset(0, 2))


@pytest.mark.parametrize("bad", ["", "4C", "C0", "CC", "C-1"])
def test_bad_labels(bad):
    with pytest.raises(ValueError, match="not a hex label"):
        parse_label(bad)
