"""Pentanomial counts of duplicate pairs, and the mean, variance, Elo and LOS from them."""

import math

import pytest

from cardwar.tournament.game_result import GameResult
from cardwar.tournament.pentanomial import from_pair_scores, pentanomial, score_to_elo
from tests.tournament.pairs import duplicate_pair, pairs_from_scores


def test_counts_from_hand_made_pairs():
    # A's (first seat, second seat) results: LL, LD, WL, DD, WD, WW, WW.
    outcomes = [(0, 0), (0, 0.5), (1, 0), (0.5, 0.5), (1, 0.5), (1, 1), (1, 1)]
    games = pairs_from_scores("A", "B", outcomes)
    games += duplicate_pair("A-C", 0, "A", "C", 1, 1)  # another opponent: not counted
    games += [GameResult("A-B", 99, "A", "B", 1.0)]  # a pair cut short: left out
    penta = pentanomial(games, "A", "B")
    assert penta.counts == (1, 1, 2, 1, 2) and penta.incomplete == 1 and penta.pairs == 7
    assert pentanomial(games, "B", "A").counts == (2, 1, 2, 1, 1)


def test_pairs_from_other_pairings_of_the_same_two_entrants_count_too():
    games = pairs_from_scores("A", "B", [(1, 1)], pairing="round1") + pairs_from_scores("A", "B", [(1, 1)], "round2")
    assert pentanomial(games, "A", "B").counts == (0, 0, 0, 0, 2)


def test_mean_and_variance_by_hand():
    # Pair scores 2, 2, 1, 0.5 -> per game 1, 1, 0.5, 0.25: mean 2.75 / 4 = 0.6875.
    penta = from_pair_scores([2, 2, 1, 0.5])
    assert penta.score == pytest.approx(0.6875)
    deviations = [1 - 0.6875, 1 - 0.6875, 0.5 - 0.6875, 0.25 - 0.6875]
    assert penta.variance == pytest.approx(sum(d * d for d in deviations) / 4)
    assert penta.variance_of_mean == pytest.approx(penta.variance / 4)
    assert penta.elo == pytest.approx(-400 * math.log10(1 / 0.6875 - 1))
    assert penta.normalized_elo == pytest.approx((0.6875 - 0.5) / math.sqrt(2 * penta.variance) * 800 / math.log(10))


def test_elo_interval_and_los_as_fastchess_computes_them():
    penta = from_pair_scores([2, 1.5, 1, 1, 0.5, 1.5, 1, 2, 0, 1])
    half = 1.959963984540054 * math.sqrt(penta.variance_of_mean)
    low, high = penta.elo_interval()
    assert low == pytest.approx(score_to_elo(penta.score - half))
    assert high == pytest.approx(score_to_elo(penta.score + half))
    assert low < penta.elo < high
    assert penta.los == pytest.approx(0.5 * (1 + math.erf((penta.score - 0.5) / math.sqrt(2 * penta.variance_of_mean))))


def test_a_symmetric_record_is_even():
    penta = from_pair_scores([0, 0.5, 1, 1.5, 2, 1])
    assert penta.score == 0.5 and penta.elo == 0.0 and penta.los == 0.5 and penta.normalized_elo == 0.0


def test_degenerate_records():
    empty = from_pair_scores([])
    assert empty.pairs == 0 and math.isnan(empty.score) and empty.los == 0.5
    perfect = from_pair_scores([2, 2, 2])
    assert perfect.elo == math.inf and perfect.variance == 0.0 and perfect.los == 1.0
    with pytest.raises(ValueError, match="pair score"):
        from_pair_scores([3])
