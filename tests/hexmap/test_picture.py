"""The drawing helpers the hex games' pictures share (cardwar.envs.hexmap.picture)."""

from __future__ import annotations

import math

import pytest

from cardwar.envs.hexmap.picture import ascii_text, font, hex_centre, hexagon, map_size, star


def test_hexagon_is_pointy_top_and_scales():
    pts = hexagon(10.0, 20.0, 4.0)
    assert len(pts) == 6
    assert all(math.isclose(math.hypot(x - 10.0, y - 20.0), 4.0) for x, y in pts)
    assert min(pts, key=lambda p: p[1])[0] == pytest.approx(10.0)  # a corner straight up
    assert hexagon(10.0, 20.0, 4.0, k=2.0) == [(x * 2.0, y * 2.0) for x, y in pts]


def test_star_alternates_outer_and_inner_points():
    pts = star(0.0, 0.0, 10.0)
    assert len(pts) == 10
    assert pts[0] == pytest.approx((0.0, -10.0))
    radii = [math.hypot(x, y) for x, y in pts]
    assert radii[::2] == pytest.approx([10.0] * 5) and radii[1::2] == pytest.approx([4.5] * 5)


def test_ascii_text_and_font():
    assert ascii_text("plain") == "plain"
    assert ascii_text("Mühle – Café ☃") == "Muhle ? Cafe ?"
    assert ascii_text("Mühle – x", {"ü": "ue", "–": "-"}) == "Muehle - x"
    assert font(12) is font(12)


def test_map_size_and_centres_of_odd_r_rows():
    hw = math.sqrt(3) * 10.0
    assert map_size(3, 1, 10.0) == (3 * hw, 20.0)
    assert map_size(3, 2, 10.0) == (3.5 * hw, 35.0)
    assert hex_centre(0, 0, 10.0, 5.0, 7.0) == (5.0 + hw / 2, 17.0)
    assert hex_centre(0, 1, 10.0, 5.0, 7.0) == pytest.approx((5.0 + hw, 32.0))  # odd rows shoved right
