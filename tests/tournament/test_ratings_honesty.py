"""Ratings that say what they know: SPRT-cut pairings corrected, ties in the LOS, unreliable intervals.

Each claim is checked against a computation that does not use the code under test: a
simulated Brownian motion for the outcome probabilities, simulated SPRT runs between
players of known strength for the bias, closed forms for the two-entrant fit.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np
import pytest

from cardwar.tournament.ratings import SequentialPairing, bradley_terry_elo, rate
from cardwar.tournament.sprt import SequentialOutcome, brownian_outcome_cdf, sprt
from tests.tournament.pairs import pairs_from_scores

CELL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
SEAT_SCORES = {0: (0.0, 0.0), 1: (0.5, 0.0), 2: (1.0, 0.0), 3: (1.0, 0.5), 4: (1.0, 1.0)}
"""A pentanomial cell as the (first-seat, second-seat) scores of a pair that lands in it."""


def simulated_outcome_cdf(a, b, mu, sigma2, t, y, paths=10_000, steps=500, seed=0):
    """P(outcome worse than (t, y)) for a Brownian motion absorbed at a and b, by simulation.

    Each step crosses a barrier with the Brownian-bridge probability exp(-2 d0 d1 / (sigma2 dt)),
    so the discrete walk is monitored as if continuously. Worse: absorbed at a by time t, or
    still running at t below y; for y = b (a stop at the upper bound at t) anything but
    reaching b by t; for y = a, reaching a before t.
    """
    rng = np.random.default_rng(seed)
    dt = t / steps
    x, state = np.zeros(paths), np.zeros(paths, dtype=int)  # 0 running, -1 absorbed at a, 1 at b
    for _ in range(steps):
        new = x + mu * dt + math.sqrt(sigma2 * dt) * rng.standard_normal(paths)
        with np.errstate(over="ignore"):
            p_a = np.where(new <= a, 1.0, np.exp(-2 * (x - a) * (new - a) / (sigma2 * dt)))
            p_b = np.where(new >= b, 1.0, np.exp(-2 * (b - x) * (b - new) / (sigma2 * dt)))
        running = state == 0
        to_a = running & (rng.random(paths) < p_a)
        to_b = running & ~to_a & (rng.random(paths) < p_b)
        state[to_a], state[to_b] = -1, 1
        x = np.where(state == 0, new, x)
    if y >= b:
        return float(np.mean(state != 1))
    if y <= a:
        return float(np.mean(state == -1))
    return float(np.mean((state == -1) | ((state == 0) & (x < y))))


@pytest.mark.parametrize("mu, sigma2, t, y", [
    (0.05, 0.3, 30.0, 0.5),     # still running: the exact series
    (-0.1, 0.4, 15.0, 2.94),    # stopped at the upper bound
    (-0.1, 0.4, 15.0, -2.94),   # stopped at the lower bound
    (0.2, 0.5, 0.4, 0.3),       # a short time: Siegmund's approximation
])
def test_the_outcome_probability_matches_a_simulated_brownian_motion(mu, sigma2, t, y):
    a, b = -math.log(19), math.log(19)
    y = min(max(y, a), b)
    expected = simulated_outcome_cdf(a, b, mu, sigma2, t, y)
    assert brownian_outcome_cdf(a, b, mu, sigma2, t, y) == pytest.approx(expected, abs=4 * math.sqrt(0.25 / 10_000))


@functools.lru_cache(maxsize=None)
def _decision(counts: tuple[int, ...], elo0: float, elo1: float) -> str | None:
    return sprt(list(counts), elo0, elo1).decision


def sprt_pairings(probs, elo0, elo1, max_pairs, runs, seed=0):
    """``runs`` pairings of a against b, each played pair by pair until the SPRT crosses a bound
    (checked after every pair, as the runner does) or ``max_pairs`` pairs; their pentanomials."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(runs):
        counts = [0] * 5
        for cell in rng.choice(5, size=max_pairs, p=probs):
            counts[cell] += 1
            if _decision(tuple(counts), elo0, elo1) is not None:
                break
        out.append(counts)
    return out


def games_of(counts):
    """Duplicate pairs of a against b with the given pentanomial."""
    outcomes = [SEAT_SCORES[cell] for cell, n in enumerate(counts) for _ in range(n)]
    return pairs_from_scores("a", "b", outcomes, pairing="a vs b")


def corrected(counts, elo0, elo1) -> dict[str, SequentialPairing]:
    outcome = SequentialOutcome(counts, elo0, elo1)
    return {"a vs b": SequentialPairing("a", "b", outcome.quantile(0.5), outcome.quantiles)}


def logistic_elo(probs) -> float:
    score = float(np.asarray(probs) @ CELL_SCORES)
    return 400.0 * math.log10(score / (1.0 - score))


@pytest.mark.parametrize("probs, elo0, elo1", [
    ([0.1, 0.2, 0.4, 0.2, 0.1], 0.0, 100.0),   # equal players, configs/tournaments/gauntlet.yaml's bounds
    ([0.1, 0.1, 0.3, 0.3, 0.2], 0.0, 100.0),   # a about 70 Elo stronger: the test ends on either side
])
def test_sprt_cut_pairings_no_longer_bias_the_elo_table(probs, elo0, elo1):
    # Hundreds of pairings stopped by the SPRT. As played, the Elo table rates a off the truth
    # more often one way than the other; with the correction, as often above the truth as below
    # (the median-unbiased estimate fishtest reports). virtual_draws=0: the fit's own estimate.
    truth = logistic_elo(probs)
    runs = sprt_pairings(np.array(probs), elo0, elo1, max_pairs=200, runs=300)
    assert np.mean([_decision(tuple(c), elo0, elo1) is not None for c in runs]) > 0.9  # nearly all cut short
    naive = np.array([bradley_terry_elo(games_of(c), anchor="b", virtual_draws=0)["a"] for c in runs])
    fixed = np.array([bradley_terry_elo(games_of(c), anchor="b", virtual_draws=0,
                                        sequential=corrected(c, elo0, elo1))["a"] for c in runs])
    tolerance = 3 * math.sqrt(0.25 / len(runs))
    assert abs(np.mean(naive > truth) - 0.5) > tolerance  # the bias the issue reported
    assert np.mean(fixed > truth) == pytest.approx(0.5, abs=tolerance)
    assert abs(np.median(fixed) - truth) < abs(np.median(naive) - truth)


def test_the_table_interval_of_a_cut_pairing_covers_the_truth():
    # The bootstrap draws a cut pairing's Elo from the test's confidence distribution: the
    # 95% interval of the table holds the true difference in about 95% of simulated pairings.
    runs = sprt_pairings(np.array([0.1, 0.2, 0.4, 0.2, 0.1]), 0.0, 100.0, max_pairs=200, runs=60, seed=1)
    covered = []
    for c in runs:
        table = rate(games_of(c), anchor="b", virtual_draws=0, rounds=200, sequential=corrected(c, 0.0, 100.0))
        covered.append(table["a"].lower <= 0.0 <= table["a"].upper)
        assert table["a"].sequential and table["b"].sequential
    assert np.mean(covered) >= 0.88


def test_a_cut_pairing_counts_at_its_corrected_score_rate():
    # Two entrants: the fit has the closed form 400 log10((W + v/2) / (L + v/2)) on the games
    # counted at the corrected Elo's score rate, whatever they scored as played.
    games = games_of([0, 0, 1, 2, 9])  # a lucky start: H1 on [0, 100] after 12 pairs
    assert sprt([0, 0, 1, 2, 9], 0, 100).decision == "H1"
    seq = corrected([0, 0, 1, 2, 9], 0.0, 100.0)
    rate_a = 1.0 / (1.0 + 10 ** (-seq["a vs b"].elo / 400.0))
    n = len(games)
    elo = bradley_terry_elo(games, anchor="b", sequential=seq)["a"]
    closed_form = 400 * math.log10((n * rate_a + 0.5) / (n * (1 - rate_a) + 0.5))
    assert elo == pytest.approx(closed_form, abs=1e-3)  # the fit's tiny identifiability prior aside
    assert elo < bradley_terry_elo(games, anchor="b")["a"]


def test_a_pairing_far_from_its_bounds_is_left_almost_as_played():
    # 200 pairs of a dead-even stream on [0, 10]: the LLR never nears a bound, so the corrected
    # Elo is the score's Elo (no selection to correct for).
    counts = [20, 40, 80, 40, 20]
    assert sprt(counts, 0, 10).decision is None
    assert SequentialOutcome(counts, 0, 10).quantile(0.5) == pytest.approx(0.0, abs=1.0)


def test_identical_entrants_are_a_coin_flip_in_the_los():
    # Before: floating-point noise between two identical fits read as a win in every bootstrap
    # round (LOS 1.000). Every record below is symmetric in x and y.
    for first_seat, second_seat in itertools.product((0.0, 0.5, 1.0), repeat=2):
        games = (pairs_from_scores("x", "y", [(1.0, 0.0)] * 3)
                 + pairs_from_scores("x", "random", [(first_seat, second_seat)] * 4)
                 + pairs_from_scores("y", "random", [(first_seat, second_seat)] * 4))
        table = rate(games, rounds=50)
        names = [e.name for e in table.entrants]
        first = min(names.index("x"), names.index("y"))
        assert {names[first], names[first + 1]} == {"x", "y"}  # equal Elo: ranked side by side
        assert table.entrants[first].los_next == 0.5


def test_los_between_identical_records_resampled_apart_is_near_one_half():
    # x and y each played the same 30 pairs against random; the bootstrap resamples each
    # pairing on its own, so the LOS is a share of coin flips and ties: 0.5 within its error.
    rng = np.random.default_rng(3)
    outcomes = [tuple(float(v) for v in rng.random(2) < 0.6) for _ in range(30)]
    games = pairs_from_scores("x", "random", outcomes) + pairs_from_scores("y", "random", outcomes)
    rounds = 2000
    table = rate(games, rounds=rounds)
    assert [e.name for e in table.entrants][:2] == ["x", "y"]  # a tie in Elo, ranked by name
    assert table.entrants[0].los_next == pytest.approx(0.5, abs=4 * math.sqrt(0.25 / rounds))


def test_few_pairs_or_every_pair_alike_is_flagged_unreliable():
    few = rate(pairs_from_scores("a", "random", [(1.0, 0.0), (1.0, 1.0), (0.0, 0.5)]), rounds=100)
    assert not few["a"].reliable and few["a"].pairs == 3
    alike = rate(pairs_from_scores("a", "random", [(1.0, 1.0)] * 40), rounds=100)
    assert alike["a"].lower == alike["a"].upper and not alike["a"].reliable  # zero width: not certainty
    rng = np.random.default_rng(0)
    varied = rate(pairs_from_scores("a", "random", [tuple(float(v) for v in rng.random(2) < 0.7)
                                                      for _ in range(40)]), rounds=100)
    assert varied["a"].reliable and varied["a"].lower < varied["a"].elo < varied["a"].upper
    assert varied["random"].reliable  # the anchor: zero width by definition, not a flag
    assert not rate(pairs_from_scores("a", "random", [(1.0, 0.0)] * 9), rounds=10, min_pairs=10)["a"].reliable
