"""The pentanomial GSPRT: bounds, the LLR against independent computations, and when it stops."""

import math

import numpy as np
import pytest
from scipy.optimize import minimize

from cardwar.tournament.pentanomial import from_pair_scores
from cardwar.tournament.sprt import llr, sprt, sprt_bounds

CELL_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])


def fastchess_counts(ll, ld, wl, dd, wd, ww):
    """fastchess's ``Stats(ll, ld, wl, dd, wd, ww)`` as our five counts (WL and DD share a cell)."""
    return [ll, ld, wl + dd, wd, ww]


def constrained_llr(counts, elo0, elo1, model):
    """The GLR re-derived with a general optimiser: maximise the multinomial likelihood of the
    (regularised) counts over all five-cell distributions meeting each hypothesis, by SLSQP."""
    c = np.array([x if x > 0 else 1e-3 for x in counts], dtype=float)

    def best_log_likelihood(elo):
        score = 1 / (1 + 10 ** (-elo / 400))
        t = math.sqrt(2) * elo * math.log(10) / 800  # a pair's t-value is sqrt(2) times a game's

        def constraint(q):
            mean = q @ CELL_SCORES
            if model == "logistic":
                return mean - score
            return (mean - 0.5) - t * math.sqrt(q @ (CELL_SCORES - mean) ** 2)

        found = minimize(
            lambda q: -(c @ np.log(q)),
            c / c.sum(),
            method="SLSQP",
            bounds=[(1e-12, 1)] * 5,
            constraints=[{"type": "eq", "fun": lambda q: q.sum() - 1}, {"type": "eq", "fun": constraint}],
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert found.success
        return -found.fun

    return best_log_likelihood(elo1) - best_log_likelihood(elo0)


def first_decision(pair_scores, elo0, elo1, model="logistic"):
    """Feed the pairs one at a time; the number of pairs when a bound is first crossed, and which."""
    for n in range(1, len(pair_scores) + 1):
        result = sprt(from_pair_scores(pair_scores[:n]), elo0, elo1, model=model)
        if result.decision is not None:
            return n, result.decision
    return None, None


def test_bounds_are_walds():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert (lower, upper) == (pytest.approx(-math.log(19)), pytest.approx(math.log(19)))
    assert sprt_bounds(0.05, 0.1) == (pytest.approx(math.log(0.1 / 0.95)), pytest.approx(math.log(0.9 / 0.05)))
    with pytest.raises(ValueError):
        sprt_bounds(0.6, 0.5)


@pytest.mark.parametrize(
    "stats, elo0, elo1, model, expected",
    [  # fastchess app/tests/sprt_test.cpp, its pentanomial cases (checked there to 1%)
        ((365, 16618, 36029, 200, 16974, 390), 0, 2, "normalized", 2.25),
        ((127, 4883, 10311, 401, 5150, 104), -1.75, 0.25, "normalized", 3.01),
        ((0, 0, 0, 0, 0, 5550), 0, 5, "normalized", 111.82),
        ((223, 9863, 20279, 1000, 10037, 246), 0.5, 2.5, "logistic", -3.07),
        ((871, 26175, 55003, 980, 26678, 821), 0, 2, "logistic", -4.98),
    ],
)
def test_llr_matches_fastchess_reference_values(stats, elo0, elo1, model, expected):
    assert llr(fastchess_counts(*stats), elo0, elo1, model) == pytest.approx(expected, rel=0.01, abs=0.01)


@pytest.mark.parametrize("model", ["logistic", "normalized"])
@pytest.mark.parametrize("counts", [[3, 10, 25, 14, 6], [0, 4, 12, 9, 5], [2, 1, 3, 0, 1]])
def test_llr_matches_a_general_constrained_maximum_likelihood(counts, model):
    assert llr(counts, 0, 30, model) == pytest.approx(constrained_llr(counts, 0, 30, model), abs=1e-4)


def test_llr_agrees_with_fishtests_brownian_approximation_on_a_long_run():
    # LLR ~ N (s1 - s0) (2 s - s0 - s1) / (2 var) for many pairs and close hypotheses (fishtest LLR_alt2).
    counts = [400, 2100, 4300, 2300, 450]
    n = sum(counts)
    s = sum(c * x for c, x in zip(counts, CELL_SCORES)) / n
    var = sum(c * (x - s) ** 2 for c, x in zip(counts, CELL_SCORES)) / n
    s0, s1 = 0.5, 1 / (1 + 10 ** (-5 / 400))
    assert llr(counts, 0, 5) == pytest.approx(n * (s1 - s0) * (2 * s - s0 - s1) / (2 * var), rel=0.01)


def test_mirror_symmetry_and_a_symmetric_record():
    counts = [3, 10, 25, 14, 6]
    # The opponent's view: its H0 (elo <= -20) is our H1 and the other way round.
    assert llr(counts[::-1], -20, 5) == pytest.approx(-llr(counts, -5, 20), abs=1e-9)
    assert llr([10, 5, 2, 5, 10], -8, 8) == pytest.approx(0.0, abs=1e-9)
    assert llr([0, 0, 0, 0, 0], 0, 10) == 0.0


def test_a_lopsided_pairing_crosses_h1_early():
    # A scores 1.5 or 2 in nearly every pair. Each two-win pair adds about log(L(10) / L(0)) = 0.029
    # to the LLR of [0, 10], so ~100 pairs; a 10-Elo edge would need thousands. Wider bounds stop sooner.
    lopsided = [2, 2, 1.5, 2, 2, 2, 1.5, 2, 2, 1] * 20
    n, decision = first_decision(lopsided, 0, 10)
    assert decision == "H1" and n <= 110
    assert first_decision(lopsided, 0, 100) == (12, "H1")
    n, decision = first_decision(lopsided, 0, 10, model="normalized")
    assert decision == "H1" and n <= 90


def test_a_dead_even_stream_never_accepts_h1():
    even = [1, 0.5, 1.5, 1, 2, 0, 1, 1]
    counts = [0] * 5
    highest = -math.inf
    for k in range(1000):
        counts[int(even[k % 8] * 2)] += 1
        result = sprt(counts, 0, 10)
        assert result.decision != "H1"
        highest = max(highest, result.llr)
    assert highest < 0.2  # never near the upper bound of 2.94
    assert result.llr < -1.0  # drifting down towards H0


def test_a_losing_stream_accepts_h0():
    # The mirror of the lopsided case: about a hundred pairs for [0, 10], both models.
    for model in ("logistic", "normalized"):
        n, decision = first_decision([0, 0.5, 1, 0, 1] * 30, 0, 10, model=model)
        assert decision == "H0" and n <= 110


def test_the_result_carries_its_parameters():
    result = sprt(from_pair_scores([2, 2, 1]), -5, 5, alpha=0.1, beta=0.2, model="normalized")
    assert (result.elo0, result.elo1, result.alpha, result.beta, result.model) == (-5, 5, 0.1, 0.2, "normalized")
    assert (result.lower, result.upper) == sprt_bounds(0.1, 0.2)


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="elo0"):
        llr([1, 1, 1, 1, 1], 10, 0)
    with pytest.raises(ValueError, match="model"):
        llr([1, 1, 1, 1, 1], 0, 10, model="bayesian")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="5 counts"):
        llr([1, 1, 1], 0, 10)
