"""Bootstrap intervals over duplicate pairs, and the rating table built on them."""

import time

import numpy as np
import pytest

from cardwar.tournament.game_result import GameResult
from cardwar.tournament.ratings import bootstrap_elo, bradley_terry_elo, rate
from tests.tournament.pairs import pairs_from_scores


def simulated_round_robin(entrants: int, pairs: int, gap: float = 60.0, seed: int = 0) -> list[GameResult]:
    """``entrants`` bots ``gap`` Elo apart ("random" the weakest), ``pairs`` duplicate pairs per pairing."""
    rng = np.random.default_rng(seed)
    names = ["random"] + [f"bot{k}" for k in range(1, entrants)]
    games = []
    for i in range(entrants):
        for j in range(i + 1, entrants):
            p = 1.0 / (1.0 + 10 ** ((gap * j - gap * i) / 400.0))  # i beats j
            outcomes = [tuple(float(x) for x in rng.random(2) < p) for _ in range(pairs)]
            games += pairs_from_scores(names[i], names[j], outcomes)
    return games


def interval_width(games, name, **kwargs):
    names, samples = bootstrap_elo(games, **kwargs)
    lower, upper = np.percentile(samples[:, names.index(name)], [2.5, 97.5])
    return upper - lower


def test_the_interval_contains_the_point_estimate_and_the_anchor_is_fixed():
    table = rate(simulated_round_robin(4, 30), rounds=300)
    for row in table.entrants:
        assert row.lower <= row.elo <= row.upper
    assert (table["random"].lower, table["random"].elo, table["random"].upper) == (0.0, 0.0, 0.0)
    assert table.anchor == "random" and table.entrants[-1].los_next is None


def test_the_interval_shrinks_with_more_pairs():
    few = interval_width(simulated_round_robin(3, 20), "bot2", rounds=400)
    many = interval_width(simulated_round_robin(3, 500), "bot2", rounds=400)
    assert many < 0.5 * few  # about sqrt(20 / 500) = 0.2 of it


def test_the_two_games_of_a_pair_are_resampled_together():
    # The first seat always wins: every pair is 1-1, so its score never varies, and most of
    # the information is in a few pairs that "ppo" wins twice. Games alone look far noisier.
    outcomes = [(1.0, 0.0)] * 80 + [(1.0, 1.0)] * 20
    games = pairs_from_scores("ppo", "random", outcomes)
    one_pair_per_game = [GameResult(g.pairing, k, g.first, g.second, g.score) for k, g in enumerate(games)]
    by_pair = interval_width(games, "ppo", rounds=500)
    by_game = interval_width(one_pair_per_game, "ppo", rounds=500)
    assert by_pair < 0.6 * by_game
    all_even = pairs_from_scores("ppo", "random", [(1.0, 0.0)] * 50)
    assert interval_width(all_even, "ppo", rounds=200) == 0.0


def test_pairs_are_resampled_within_their_pairing():
    # 10 pairs of a-b and 90 of b-c: a replicate keeps 20 a-b games, never more or fewer.
    games = pairs_from_scores("a", "b", [(1.0, 0.0)] * 10) + pairs_from_scores("b", "c", [(1.0, 1.0)] * 90)
    names, samples = bootstrap_elo(games, anchor=None, rounds=50)
    point = bradley_terry_elo(games, anchor=None)
    assert np.allclose(samples, [point[n] for n in names])  # every pair within a pairing scores alike


def test_the_bootstrap_is_reproducible_from_its_seed():
    games = simulated_round_robin(3, 20)
    assert np.array_equal(bootstrap_elo(games, rounds=50, seed=7)[1], bootstrap_elo(games, rounds=50, seed=7)[1])
    assert not np.array_equal(bootstrap_elo(games, rounds=50, seed=7)[1], bootstrap_elo(games, rounds=50, seed=8)[1])
    from_generator = bootstrap_elo(games, rounds=50, seed=np.random.default_rng(7))[1]
    assert np.array_equal(from_generator, bootstrap_elo(games, rounds=50, seed=7)[1])


def test_los_over_the_next_entrant_is_near_one_when_far_apart_and_near_half_when_equal():
    table = rate(simulated_round_robin(3, 200, gap=200.0), rounds=300)
    assert [row.name for row in table.entrants] == ["bot2", "bot1", "random"]
    assert table.entrants[0].los_next > 0.99
    twins = pairs_from_scores("a", "b", [(1.0, 0.0), (1.0, 1.0), (0.0, 0.0)] * 20)
    twins += pairs_from_scores("a", "c", [(1.0, 1.0)] * 30) + pairs_from_scores("b", "c", [(1.0, 1.0)] * 30)
    even = rate(twins, anchor="c", rounds=400)
    assert even.entrants[0].los_next == pytest.approx(0.5, abs=0.15)
    assert even.entrants[1].los_next > 0.99


def test_the_table_counts_games_and_points():
    table = rate(pairs_from_scores("a", "random", [(1.0, 0.5)] * 4), rounds=20)
    assert (table["a"].games, table["a"].points, table["a"].score_rate) == (8, 6.0, 0.75)
    assert (table["random"].games, table["random"].points) == (8, 2.0)


def test_no_games_is_an_error():
    with pytest.raises(ValueError, match="no games"):
        rate([])


def test_eight_entrants_28_pairings_100_pairs_1000_rounds_take_seconds_at_most():
    games = simulated_round_robin(8, 100)
    start = time.perf_counter()
    table = rate(games, rounds=1000)
    elapsed = time.perf_counter() - start
    assert elapsed < 10.0, f"{elapsed:.1f} s"
    assert [row.name for row in table.entrants][-1] == "random"
    assert table["bot7"].lower < 7 * 60 < table["bot7"].upper
