"""The procedural skirmish generator: deterministic per seed and deal, valid, and fair by construction (its
mirror is an automorphism of the board that swaps the two sides' ground, edges, objectives and deployment zones;
the forces are fair in distribution, each side's drawn alone: tests/skirmish/test_generator_deal.py)."""

from __future__ import annotations

import math
import random

import pytest

from cardwar.envs.skirmish.figures import Stance
from cardwar.envs.skirmish.generator import (
    QUALITY_WEIGHTS, SIZES, ZONE_COLS, Geometry, balance, generate, mirror_function, wilson,
)
from cardwar.envs.skirmish.scenario import (
    EDGE_KINDS, GROUND_CHARS, OFF, WIDTH, Scenario, grid_neighbours, reachable, scenario_from_dict, step,
)

SEEDS = range(200)


def _centre(cell: int) -> tuple[float, float]:
    """A hex centre in the plane (odd-r: odd rows shoved right by half a hex), in units of hex width and row."""
    row, col = divmod(cell, WIDTH)
    return col + (row % 2) / 2, row


@pytest.mark.parametrize("size", sorted(SIZES))
def test_mirror_is_a_point_reflection_and_an_automorphism(size):
    """The proof, checked exhaustively: the mirror sends every hex centre to its point reflection through one
    centre, is an involution without fixed hex, and maps neighbours to neighbours (direction d to d + 3)."""
    geo = Geometry(SIZES[size]["w"], SIZES[size]["h"])
    cells = geo.cells
    sums = {tuple(a + b for a, b in zip(_centre(c), _centre(geo.mirror(c)))) for c in cells}
    assert len(sums) == 1, "one centre of reflection"
    assert sorted(map(geo.mirror, cells)) == sorted(cells)
    assert all(geo.mirror(geo.mirror(c)) == c and geo.mirror(c) != c for c in cells)
    for a in cells:
        for b in cells:
            assert (b in grid_neighbours(a)) == (geo.mirror(b) in grid_neighbours(geo.mirror(a)))
        for d in range(6):
            n = step(a, d)
            if n in geo.on_map:
                assert step(geo.mirror(a), (d + 3) % 6) == geo.mirror(n)


def test_an_odd_row_count_has_no_mirror():
    """With an odd number of rows the point reflection would send an odd row's last hex off the map."""
    with pytest.raises(ValueError):
        Geometry(12, 7)


def zone(s: Scenario, side: int) -> set[int]:
    """A side's deployment zone: the three map columns at its own edge, less buildings and bunkers."""
    on_map = [c for c in range(384) if s.ground[c] != OFF]
    west = {c for c in on_map if c % WIDTH < ZONE_COLS and s.ground[c] not in "BK"}
    east = {c for c in on_map if c % WIDTH >= s.width - ZONE_COLS and s.ground[c] not in "BK"}
    return (west, east)[side]


def _check_fair(s: Scenario) -> None:
    """What stays fair for every deal: the map, the objectives and the deployment zones are mirror images; both
    sides have as many figures, the same roster (weapon, team, role by figure) and forces by the same rules, each
    figure standing in its own side's zone. Not the figures' hexes, qualities, skills, grenades or stances: each
    side's are its own draw (RULES.md §9.2 hides them from the enemy; test_generator_deal.py)."""
    m = mirror_function(s)
    on_map = [c for c in range(384) if s.ground[c] != OFF]
    assert sorted(map(m, on_map)) == on_map
    for c in on_map:
        assert s.ground[m(c)] == s.ground[c]
        for n in grid_neighbours(c):
            if s.ground[n] != OFF:
                assert m(n) in grid_neighbours(m(c))
                assert s.edge_kind(m(c), m(n)) == s.edge_kind(c, n)
    assert {m(c): p for c, p in s.victory.objectives.items()} == s.victory.objectives
    assert {m(c) for c in zone(s, 0)} == zone(s, 1)
    west, east = s.side_figures(0), s.side_figures(1)
    assert len(west) == len(east)
    assert s.teams[0] == s.teams[1]
    for f, g in zip(west, east):
        assert (g.weapon, g.team, g.role, g.other_weapons, g.name.split()[-1]) == \
            (f.weapon, f.team, f.role, f.other_weapons, f.name.split()[-1])
    for side, figs in ((0, west), (1, east)):
        assert len({f.cell for f in figs}) == len(figs) and {f.cell for f in figs} <= zone(s, side)
        for f in figs:
            assert f.quality in {q for q, _ in QUALITY_WEIGHTS}
            assert set(f.skills) == {"shoot", "throw", "melee", "field_craft"}, "the core skills fixed"
            assert f.grenades in (0, 1, 2)
            assert f.stance in (Stance.STANDING, Stance.KNEELING, Stance.PRONE)


def _check_mirrored(s: Scenario) -> None:
    """A map without a deal (as before it, for old records): side 1 is side 0's mirror image, skills and all."""
    _check_fair(s)
    m = mirror_function(s)
    for f, g in zip(s.side_figures(0), s.side_figures(1)):
        assert g.cell == m(f.cell)
        assert (g.quality, g.weapon, g.skills, g.grenades, g.stance, g.team, g.role, g.other_weapons) == \
            (f.quality, f.weapon, f.skills, f.grenades, f.stance, f.team, f.role, f.other_weapons)


@pytest.mark.parametrize("seed", SEEDS)
def test_generated_scenario_is_fair_and_valid(seed):
    _check_mirrored(generate(seed))
    s = generate(seed, deal=10_000 + seed)
    _check_fair(s)
    on_map = {c for c in range(384) if s.ground[c] != OFF}
    edges = {(a, b): k for a, b, k in s.edges}
    for side in (0, 1):
        assert reachable(s.ground, edges, [f.cell for f in s.side_figures(side)]) == on_map
        for f in s.side_figures(side):
            col = f.cell % WIDTH
            assert (col < ZONE_COLS) if side == 0 else (col >= s.width - ZONE_COLS)
            assert s.ground[f.cell] not in "BK#"
    # the medium map holds every ground and every edge kind
    assert set(GROUND_CHARS) - {OFF} <= set(s.ground)
    assert {k for _, _, k in s.edges} == set(EDGE_KINDS)
    assert s.victory.kind == "objectives" and len(s.victory.objectives) == 2
    assert f"Turn limit: {s.turn_limit} turns" in s.description


@pytest.mark.parametrize("size", ["small", "large"])
def test_other_sizes(size):
    for seed in range(40):
        _check_mirrored(generate(seed, size=size))
        s = generate(seed, size=size, deal=seed)
        _check_fair(s)
        assert (s.width, s.height) == (SIZES[size]["w"], SIZES[size]["h"])
        assert len(s.side_figures(0)) == SIZES[size]["figures"] and len(s.teams[0]) == SIZES[size]["teams"]
        assert s.turn_limit == SIZES[size]["turns"]


def test_boards_build_and_sight_is_mirrored():
    """The board helper's board of a generated map: distance and line of sight are mirror-invariant."""
    rnd = random.Random(5)
    for seed in range(8):
        s = generate(seed, size="large")
        b, m = s.board, mirror_function(s)
        cells = [c for c in range(384) if s.ground[c] != OFF]
        for _ in range(300):
            a, c = rnd.sample(cells, 2)
            assert b.distance(a, c) == b.distance(m(a), m(c))
            assert b.sees(a, c) == b.sees(m(a), m(c))


def test_deterministic_per_seed_and_seeds_differ():
    for seed in (0, 1, 17, 123456):
        assert generate(seed) == generate(seed)
        assert generate(seed, size="small") == generate(seed, size="small")
        assert generate(seed, deal=5) == generate(seed, deal=5)
    assert len({generate(seed).rows for seed in range(20)}) == 20


def test_generated_scenario_round_trips_through_the_loader():
    """The generator builds through scenario_from_dict: its result is what a file with the same fields gives."""
    s = generate(3)
    again = scenario_from_dict(_as_dict(s), name=s.name)
    assert again.figures == s.figures and again.edges == s.edges and again.victory == s.victory


def _as_dict(s: Scenario) -> dict:
    from cardwar.envs.skirmish.scenario import label

    return {
        "turns": s.turn_limit, "description": s.description,
        "map": "\n".join(r[:s.width] for r in s.rows[:s.height]),
        "edges": [[label(a), label(b), k] for a, b, k in s.edges],
        "sides": {name: {"teams": s.teams[i], "figures": [
            {"name": f.name, "team": s.teams[i][f.team], "quality": f.quality.name.lower(), "weapon": f.weapon,
             "hex": label(f.cell), "stance": f.stance.name.lower(), "skills": f.skills, "grenades": f.grenades,
             **({"role": f.role} if f.role else {})} for f in s.side_figures(i)]} for i, name in enumerate(s.sides)},
        "victory": {"kind": "objectives",
                    "objectives": [{"hex": label(c), "points": p} for c, p in s.victory.objectives.items()]},
    }


def test_unknown_size():
    with pytest.raises(ValueError, match="unknown size"):
        generate(0, size="huge")


# ------------------------------------------------------------------ balance
def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert math.isclose(lo, 0.2366, abs_tol=1e-4) and math.isclose(hi, 0.7634, abs_tol=1e-4)
    assert wilson(0, 0) == (0.0, 1.0)
    lo, hi = wilson(0, 20)
    assert lo == 0.0 and 0.1 < hi < 0.2


def test_balance_with_a_fake_play():
    seen = []

    def play(scenario, seed):
        seen.append((scenario.name, seed))
        return (0, 1, None)[seed % 3]

    out = balance(range(30), play, size="small")
    assert seen == [(f"generated_small_{k}", k) for k in range(30)]
    assert out["games"] == 30 and out["wins"] == (10, 10) and out["draws"] == 10
    for key in ("side0", "side1", "draw"):
        assert math.isclose(out[key]["share"], 1 / 3)
        lo, hi = out[key]["interval"]
        assert lo < 1 / 3 < hi and (lo, hi) == wilson(10, 30)
    assert math.isclose(out["score0"]["share"], 0.5)
    lo, hi = out["score0"]["interval"]
    assert lo < 0.5 < hi


def test_balance_plays_the_forces_as_dealt():
    """By default each seed's map with its forces dealt (``deal=seed``), as the envs deal them; ``mirrored``: the
    forces before the deal, side 1 side 0's mirror image."""
    for mirrored in (False, True):
        seen = []
        balance(range(4), lambda sc, seed: seen.append(sc) or None, size="small", mirrored=mirrored)
        assert seen == [generate(k, size="small", **({} if mirrored else {"deal": k})) for k in range(4)]
        assert [sc.deal for sc in seen] == ([None] * 4 if mirrored else list(range(4)))


def test_balance_detects_a_first_mover_edge():
    out = balance(range(60), lambda s, seed: 0, size="small")
    assert out["side0"]["share"] == 1.0 and out["side0"]["interval"][0] > 0.9
    assert out["score0"]["interval"][0] > 0.5


def test_balance_rejects_a_bad_winner():
    with pytest.raises(ValueError, match="expected 0, 1 or None"):
        balance([0], lambda s, seed: 2, size="small")
