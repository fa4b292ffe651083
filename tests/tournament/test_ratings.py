"""Bradley-Terry Elo by maximum likelihood: closed forms, choix as an independent fit, anchoring, priors."""

import math

import numpy as np
import pytest

from cardwar.tournament.ratings import (
    ELO_PER_NAT,
    bradley_terry_elo,
    fit_strengths,
    likelihood_of_superiority,
    score_matrix,
)
from tests.tournament.pairs import record

# Three bots, every two of them with wins, draws (an even number) and losses.
RECORDS = {("mcts", "greedy"): (30, 4, 10), ("greedy", "random"): (25, 2, 15), ("mcts", "random"): (35, 6, 5)}


def three_bot_games():
    games = []
    for (a, b), (w, d, l) in RECORDS.items():
        games += record(a, b, w, d, l)
    return games


def choix_comparisons(names, extra_each_way=0):
    """The same games as (winner, loser) index pairs; two draws are one win each way."""
    index = {name: i for i, name in enumerate(names)}
    data = []
    for (a, b), (w, d, l) in RECORDS.items():
        i, j = index[a], index[b]
        data += [(i, j)] * (w + d // 2 + extra_each_way) + [(j, i)] * (l + d // 2 + extra_each_way)
    return data


def test_two_entrants_without_prior_meet_the_closed_form_400_log10_w_over_l():
    elo = bradley_terry_elo(record("a", "b", 30, 0, 10), anchor="b", virtual_draws=0)
    assert elo["b"] == 0.0
    assert elo["a"] == pytest.approx(400 * math.log10(30 / 10), abs=0.01)


def test_a_draw_counts_half_a_win_each_way():
    elo = bradley_terry_elo(record("a", "b", 30, 8, 10), anchor="b", virtual_draws=0)
    assert elo["a"] == pytest.approx(400 * math.log10(34 / 14), abs=0.01)


def test_virtual_draws_add_half_a_point_each_way_to_entrants_that_met():
    elo = bradley_terry_elo(record("a", "b", 30, 0, 10), anchor="b", virtual_draws=3)
    assert elo["a"] == pytest.approx(400 * math.log10(31.5 / 11.5), abs=0.01)


def test_three_entrants_match_choix_maximum_likelihood_fits():
    choix = pytest.importorskip("choix")  # a test-only dependency
    games = three_bot_games()
    ours = bradley_terry_elo(games, anchor="random", virtual_draws=0)
    names = sorted(ours)
    data = choix_comparisons(names)
    for theirs in (choix.opt_pairwise(3, data, alpha=1e-6), choix.ilsr_pairwise(3, data, alpha=0.0)):
        elo = theirs * ELO_PER_NAT
        elo -= elo[names.index("random")]
        for i, name in enumerate(names):
            assert ours[name] == pytest.approx(elo[i], abs=0.05), name
    assert ours["mcts"] > ours["greedy"] > ours["random"] == 0.0


def test_two_virtual_draws_equal_one_extra_win_each_way_in_choix():
    choix = pytest.importorskip("choix")
    ours = bradley_terry_elo(three_bot_games(), anchor=None, virtual_draws=2)
    names = sorted(ours)
    elo = choix.ilsr_pairwise(3, choix_comparisons(names, extra_each_way=1), alpha=0.0) * ELO_PER_NAT
    elo -= elo.mean()
    assert [ours[name] for name in names] == pytest.approx(list(elo), abs=0.05)


def test_ratings_are_anchored_on_random_or_a_named_entrant_or_else_the_mean():
    games = three_bot_games()
    by_random = bradley_terry_elo(games)
    by_greedy = bradley_terry_elo(games, anchor="greedy")
    by_mean = bradley_terry_elo([g for g in games if "random" not in g.entrants])
    assert by_random["random"] == 0.0 and by_greedy["greedy"] == 0.0
    assert by_random["mcts"] - by_random["greedy"] == pytest.approx(by_greedy["mcts"], abs=1e-6)
    assert by_mean["mcts"] + by_mean["greedy"] == pytest.approx(0.0, abs=1e-9)


def test_an_entrant_that_never_loses_stays_finite():
    games = record("ppo", "random", 100, 0, 0)
    assert bradley_terry_elo(games)["ppo"] == pytest.approx(400 * math.log10(100.5 / 0.5), abs=0.01)
    bare = bradley_terry_elo(games, virtual_draws=0)["ppo"]
    assert math.isfinite(bare) and bare > 2000  # only the tiny identifiability prior stops it


def test_groups_that_never_met_are_each_centred_and_keep_their_gaps():
    games = record("a", "b", 30, 0, 10) + record("c", "d", 10, 0, 30)
    elo = bradley_terry_elo(games, anchor=None, virtual_draws=0)
    assert elo["a"] - elo["b"] == pytest.approx(400 * math.log10(3), abs=0.01)
    assert elo["d"] - elo["c"] == pytest.approx(400 * math.log10(3), abs=0.01)
    assert elo["a"] + elo["b"] == pytest.approx(0.0, abs=0.01)


def test_the_batched_fit_equals_one_fit_per_matrix():
    games = three_bot_games()
    names = ["greedy", "mcts", "random"]
    wins = score_matrix(games, names)
    stack = np.stack([wins, wins.T, wins * 3 + 1])
    batched = fit_strengths(stack)
    for k in range(3):
        assert batched[k] == pytest.approx(fit_strengths(stack[k]), abs=1e-6)  # 1e-6 nats: 0.0004 Elo


def test_los_formula_is_one_half_for_a_symmetric_record():
    assert likelihood_of_superiority(12, 12) == 0.5
    assert likelihood_of_superiority(0, 0) == 0.5


def test_los_formula_for_a_lopsided_record():
    # 10 wins, 0 losses: 0.5 * (1 + erf(10 / sqrt(20))) = Phi(10 / sqrt(10)) = Phi(3.162...)
    assert likelihood_of_superiority(10, 0) == pytest.approx(0.999217, abs=1e-6)
    # 60-40: Phi(20 / 10) = Phi(2) = 0.97725
    assert likelihood_of_superiority(60, 40) == pytest.approx(0.977250, abs=1e-6)
    assert likelihood_of_superiority(40, 60) == pytest.approx(1 - 0.977250, abs=1e-6)
