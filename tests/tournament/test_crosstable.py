"""The crosstable of score rates and game counts."""

import math

import pytest

from cardwar.tournament.crosstable import crosstable
from tests.tournament.pairs import record


def games():
    return record("a", "b", 3, 2, 1) + record("a", "c", 4, 0, 0)


def test_rates_and_counts_from_a_hand_made_record():
    table = crosstable(games())
    assert table.names == ("a", "b", "c")
    assert table.rate("a", "b") == pytest.approx(4 / 6) and table.rate("b", "a") == pytest.approx(2 / 6)
    assert table.rate("a", "c") == 1.0 and table.rate("c", "a") == 0.0
    assert table.count("a", "b") == 6 and table.count("b", "a") == 6 and table.count("a", "c") == 4
    assert table.rate("b", "c") is None and table.count("b", "c") == 0


def test_each_cell_and_its_mirror_sum_to_the_games_played():
    table = crosstable(games())
    assert ((table.points + table.points.T) == table.games).all()
    rates = table.rates
    assert math.isnan(rates[1, 2]) and math.isnan(rates[0, 0])
    assert rates[0, 1] + rates[1, 0] == pytest.approx(1.0)


def test_the_order_can_follow_the_ranking_but_must_name_everyone():
    assert crosstable(games(), order=["c", "a", "b"]).names == ("c", "a", "b")
    with pytest.raises(ValueError, match="leaves out"):
        crosstable(games(), order=["a", "b"])
