"""OpenSkill Plackett-Luce ratings beside the Bradley-Terry table."""

import random

import pytest
from openskill.models import PlackettLuce

from cardwar.tournament.openskill_ratings import canonical_order, openskill_ratings
from tests.tournament.pairs import pairs_from_scores, record


def round_robin():
    return (
        record("mcts", "greedy", 14, 2, 4)
        + record("mcts", "random", 19, 1, 0)
        + record("greedy", "random", 15, 2, 3)
    )


def test_the_dominant_entrant_has_the_highest_ordinal():
    table = openskill_ratings(round_robin())
    assert [row.name for row in table] == ["mcts", "greedy", "random"]
    for row in table:
        assert row.ordinal == pytest.approx(row.mu - 3 * row.sigma)
        assert row.sigma < 25 / 3  # every entrant played, so every belief narrowed


def test_the_result_does_not_depend_on_the_order_games_finished_in():
    games = round_robin()
    shuffled = games[:]
    random.Random(3).shuffle(shuffled)
    assert canonical_order(shuffled) == canonical_order(games)
    assert openskill_ratings(shuffled) == openskill_ratings(games)


def test_pairings_are_interleaved_round_by_round():
    games = pairs_from_scores("a", "b", [(1.0, 1.0)] * 2) + pairs_from_scores("c", "d", [(1.0, 1.0)] * 2)
    assert [(g.pairing, g.pair_index) for g in canonical_order(games)] == [
        ("a-b", 0), ("a-b", 0), ("c-d", 0), ("c-d", 0), ("a-b", 1), ("a-b", 1), ("c-d", 1), ("c-d", 1)
    ]


def test_draws_leave_two_equal_entrants_equal():
    table = openskill_ratings(record("a", "b", 0, 10, 0))
    assert table[0].mu == pytest.approx(25.0) and table[1].mu == pytest.approx(25.0)
    assert table[0].sigma == pytest.approx(table[1].sigma)


def test_a_configured_model_is_used():
    table = openskill_ratings(record("a", "b", 3, 0, 1), model=PlackettLuce(mu=1000.0, sigma=100.0))
    assert table[0].name == "a" and table[0].mu > 1000.0 > table[1].mu
