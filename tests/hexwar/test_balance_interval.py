"""The balance figures' intervals are clustered by map (docs/hexwar-balance.md, cardwar.cli.hexwar_balance).

A map's games share its terrain, forces and objectives, so they are not independent; the
interval is computed over per-map scores. Checked here against independent computations:
the standard library's sample standard deviation and normal quantile, and a cluster
bootstrap (maps resampled with replacement) on a synthetic set of maps.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from cardwar.cli.hexwar_balance import MapResult, clustered_interval, table, wilson


def by_the_book(per_map: list[float], level: float = 0.95) -> tuple[float, float, float]:
    """Mean +- normal quantile * sample sd / sqrt(n), from the statistics module."""
    mean = statistics.fmean(per_map)
    half = statistics.NormalDist().inv_cdf(0.5 + level / 2) * statistics.stdev(per_map) / len(per_map) ** 0.5
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def synthetic(maps: int, seed: int) -> list[float]:
    """Per-map scores of two games each, where a map's two games usually end alike (as in the
    balance runs): each map has its own chance p of a win, drawn from a spread-out Beta."""
    rng = np.random.default_rng(seed)
    p = rng.beta(0.6, 0.6, size=maps)
    games = rng.random((maps, 2)) < p[:, None]
    return list(games.mean(axis=1))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_clustered_interval_matches_the_textbook_formula(seed):
    per_map = synthetic(200, seed)
    assert clustered_interval(per_map) == pytest.approx(by_the_book(per_map), abs=1e-4)


def test_clustered_interval_agrees_with_a_cluster_bootstrap():
    per_map = np.array(synthetic(300, 7))
    rng = np.random.default_rng(11)
    means = per_map[rng.integers(0, len(per_map), size=(4000, len(per_map)))].mean(axis=1)
    lo, hi = np.quantile(means, [0.025, 0.975])
    _, clo, chi = clustered_interval(list(per_map))
    assert clo == pytest.approx(lo, abs=0.01) and chi == pytest.approx(hi, abs=0.01)


def test_games_that_end_alike_widen_the_interval_beyond_a_per_game_one():
    """When both games of every map end alike, the games carry the information of half as many
    independent ones: the clustered interval is about sqrt(2) times as wide as a Wilson interval
    that counts every game."""
    rng = np.random.default_rng(3)
    per_map = list((rng.random(300) < 0.45).astype(float))  # each map: both games won, or both lost
    mean, lo, hi = clustered_interval(per_map)
    wlo, whi = wilson(mean, 2 * len(per_map))
    assert (hi - lo) / (whi - wlo) == pytest.approx(2 ** 0.5, rel=0.03)


def test_edge_cases():
    assert clustered_interval([0.5]) == (0.5, 0.0, 1.0)
    mean, lo, hi = clustered_interval([1.0, 1.0, 0.0])
    assert mean == pytest.approx(2 / 3) and lo >= 0.0 and hi == 1.0


def test_the_table_prints_the_clustered_interval_and_counts_maps_with_one_result():
    """The attack row's interval is ``clustered_interval`` of the per-map attacker scores."""
    results = [MapResult(seed=k, kind=k % 2, hidden=True, first_moves=k % 2, first_hexes=k % 2, ties_moves=0,
                         objectives=1, blue_score=b, games=2, points=pts)
               for k, (b, pts) in enumerate([(1.0, (1.0, 1.0)), (0.5, (1.0, 0.0)), (0.0, (0.0, 0.0)),
                                             (1.0, (1.0, 1.0)), (0.5, (0.5, 0.5)), (0.0, (0.0, 0.0))])]
    out = table(results, 2, {})
    attacker = [1 - r.blue_score if r.kind == 0 else r.blue_score for r in results]
    mean, lo, hi = by_the_book(attacker)
    row = next(line for line in out.splitlines() if line.startswith("| attack/defence, by role |"))
    assert f"attacker {mean:.3f} ({lo:.3f}-{hi:.3f})" in row
    assert row.rstrip(" |").endswith("5 of 6")


def test_seed_ranges_parse_in_order():
    from cardwar.cli.hexwar_balance import parse_seeds

    assert parse_seeds("0-2,7000-7001,42") == [0, 1, 2, 7000, 7001, 42]
    with pytest.raises(ValueError):
        parse_seeds("5-3")
