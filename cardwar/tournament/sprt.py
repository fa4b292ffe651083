"""Sequential probability ratio test on pentanomial pair results, as fishtest runs it.

The test is fishtest's GSPRT (``stats/LLRcalc.py``, ``stats/stat_util.py``; fastchess's
``SPRT::getLLR`` ports it): the five pair-score frequencies are an empirical multinomial,
the generalized log-likelihood ratio compares the most likely distributions whose Elo is
``elo0`` and ``elo1`` (Van den Bergh, "Comparing the approximations for the generalized
log likelihood ratio of a multinomial distribution" and "Comments on normalized Elo"),
and the test stops when the LLR leaves ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``:
below, H0 (the Elo is ``elo0`` or less); above, H1 (``elo1`` or more). Empty cells are
replaced by 1e-3 pairs, as fishtest's ``regularize`` does, so the LLR is finite.

Elo model: **logistic** by default, so that ``elo0`` and ``elo1`` are on the same
400-log10 scale as the Bradley-Terry ratings of :mod:`cardwar.tournament.ratings` (the
expected per-game score at Elo ``e`` is ``1 / (1 + 10 ** (-e / 400))``; fastchess's
``model=logistic``). ``model="normalized"`` gives fishtest's default for new tests:
bounds in normalized Elo, a t-value ``(score - 1/2) / sigma`` scaled by ``800 / ln 10``,
which does not depend on the draw rate. Normalized Elo is a different unit from the
rating table's, which is why it is not the default here.

A GSPRT between close hypotheses needs many pairs even for a crushing result: each
two-win pair raises the LLR by about ``log(L(elo1) / L(elo0))``, 0.029 for ``elo1 = 10``
against 0, so ``[0, 10]`` stops after about a hundred pairs; wide bounds stop sooner.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from scipy.optimize import brentq

from cardwar.tournament.pentanomial import NELO_PER_T, Pentanomial

EloModel = Literal["logistic", "normalized"]
Decision = Literal["H0", "H1"]

PAIR_SCORE_RATES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
"""Per-game score of each pentanomial cell (pair score / 2), fishtest's ``results_to_pdf``."""

REGULARIZATION = 1e-3
"""Pairs put in an empty cell, fishtest's ``regularize``."""


@dataclass(frozen=True)
class SprtResult:
    """The LLR of a pentanomial against ``elo0``/``elo1``, the stopping bounds, and the decision.

    ``decision`` is ``"H1"`` when ``llr >= upper``, ``"H0"`` when ``llr <= lower``, None while
    the test goes on.
    """

    llr: float
    lower: float
    upper: float
    decision: Decision | None
    elo0: float
    elo1: float
    alpha: float
    beta: float
    model: EloModel


def sprt_bounds(alpha: float = 0.05, beta: float = 0.05) -> tuple[float, float]:
    """Wald's stopping bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``."""
    if not (0.0 < alpha < 1.0 and 0.0 < beta < 1.0 and alpha + beta < 1.0):
        raise ValueError(f"need 0 < alpha, beta < 1 and alpha + beta < 1, got alpha={alpha}, beta={beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def logistic_score(elo: float) -> float:
    """Expected per-game score at a logistic Elo difference."""
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def _secular(a: np.ndarray, p: np.ndarray) -> float:
    """Root of ``sum_i p_i a_i / (1 + x a_i) = 0`` between its poles (fishtest's ``secular``)."""
    low, high = a.min(), a.max()
    if low * high >= 0:
        raise ValueError("the secular equation needs values on both sides of zero")
    terms = list(zip(p.tolist(), a.tolist()))  # plain floats: five terms are faster without numpy

    def secular(x: float) -> float:
        return sum(pi * ai / (1.0 + x * ai) for pi, ai in terms)

    eps = 1e-9
    return float(brentq(secular, -1.0 / high + eps, -1.0 / low - eps))


def mle_with_score(p: np.ndarray, s: float) -> np.ndarray:
    """Most likely distribution on the cells with mean per-game score ``s`` (fishtest ``MLE_expected``)."""
    shifted = PAIR_SCORE_RATES - s
    return p / (1.0 + _secular(shifted, p) * shifted)


def mle_with_t_value(p: np.ndarray, t: float, ref: float = 0.5) -> np.ndarray:
    """Most likely distribution with ``(mean - ref) / sigma = t`` (fishtest ``MLE_t_value``, iterated)."""
    q = np.full(len(p), 1.0 / len(p))
    for _ in range(100):
        mean = float(q @ PAIR_SCORE_RATES)
        sigma = math.sqrt(float(q @ (PAIR_SCORE_RATES - mean) ** 2))
        phi = PAIR_SCORE_RATES - ref - t * sigma * (1.0 + ((mean - PAIR_SCORE_RATES) / sigma) ** 2) / 2.0
        new = p / (1.0 + _secular(phi, p) * phi)
        done = np.abs(new - q).max() < 1e-12
        q = new
        if done:
            break
    return q


def llr(counts: Sequence[float], elo0: float, elo1: float, model: EloModel = "logistic") -> float:
    """Generalized log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) for pentanomial ``counts``.

    ``counts`` are the pairs scoring 0, 1/2, 1, 3/2, 2 for the entrant tested. 0 with no pairs.
    """
    if len(counts) != 5:
        raise ValueError(f"a pentanomial has 5 counts, got {len(counts)}")
    if elo0 >= elo1:
        raise ValueError(f"elo0 must be below elo1, got {elo0} and {elo1}")
    if sum(counts) == 0:
        return 0.0
    regularized = np.array([c if c > 0 else REGULARIZATION for c in counts], dtype=float)
    total = regularized.sum()
    p = regularized / total
    if model == "logistic":
        p0, p1 = mle_with_score(p, logistic_score(elo0)), mle_with_score(p, logistic_score(elo1))
    elif model == "normalized":
        # A pair's t-value is sqrt(2) times a game's (fishtest LLR_normalized, 5 cells).
        t0, t1 = (math.sqrt(2.0) * elo / NELO_PER_T for elo in (elo0, elo1))
        p0, p1 = mle_with_t_value(p, t0), mle_with_t_value(p, t1)
    else:
        raise ValueError(f"model is 'logistic' or 'normalized', got {model!r}")
    return float(total * (p @ (np.log(p1) - np.log(p0))))


def sprt(
    results: Pentanomial | Sequence[float],
    elo0: float,
    elo1: float,
    alpha: float = 0.05,
    beta: float = 0.05,
    model: EloModel = "logistic",
) -> SprtResult:
    """Run the SPRT on a :class:`Pentanomial` (or its five counts) and say which bound, if any, it crossed."""
    counts = results.counts if isinstance(results, Pentanomial) else results
    lower, upper = sprt_bounds(alpha, beta)
    value = llr(counts, elo0, elo1, model)
    decision: Decision | None = "H1" if value >= upper else "H0" if value <= lower else None
    return SprtResult(value, lower, upper, decision, elo0, elo1, alpha, beta, model)


# --------------------------------------------------------------------------------------------
# Bias-corrected Elo after a sequential test (fishtest's ``stats/sprt.py`` and ``brownian.py``)
# --------------------------------------------------------------------------------------------

ELO_SEARCH_LIMIT = 1000.0
"""The corrected Elo is searched within +/- this many Elo, as fishtest's ``lower_cb`` does."""


@dataclass(frozen=True)
class SprtEstimate:
    """What a sequential test says about the Elo, corrected for where it stopped.

    A test that stops when the LLR leaves its bounds stops on a run of luck more often than
    not, so the plain score of the pairs played is biased towards the bound crossed.
    ``elo`` is the median-unbiased estimate (the Elo at which the observed outcome is the
    median outcome of the test), ``lower``/``upper`` the confidence interval at ``level``
    and ``los`` the probability of an outcome this good or better at Elo 0, all in
    logistic Elo, as fishtest reports them. ``llr`` and ``time`` (in pairs) are the state
    the Brownian approximation starts from: a state past a bound is pulled back onto it;
    ``clamped`` says the LLR overshot a bound by more than 3%, which makes the
    approximation rougher.
    """

    elo: float
    lower: float
    upper: float
    los: float
    llr: float
    time: float
    clamped: bool
    level: float


def brownian_outcome_cdf(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """Probability that a Brownian motion from 0 with drift ``mu`` and variance ``sigma2`` per unit
    time, absorbed at ``a < 0 < b``, has an outcome worse than "at ``y`` at time ``t``".

    The outcomes are ordered as Siegmund orders a sequential test's: absorbed at ``a``
    (earlier is worse), then still running at ``t`` (lower is worse), then absorbed at ``b``
    (later is worse). ``y = a`` or ``y = b`` is a stop at time ``t``. The series of images
    (fishtest's ``outcome_cdf_alt1``) where it converges fast, Siegmund's approximation
    with the normal cdf otherwise (``outcome_cdf_alt2``).
    """
    width = b - a
    gamma = mu / sigma2
    if sigma2 * t / width**2 < 1e-2 or abs(gamma * width) > 15:
        value = _outcome_cdf_siegmund(a, b, mu, sigma2, t, y)
    else:
        value = _outcome_cdf_series(a, b, mu, sigma2, t, y)
    return min(1.0, max(0.0, value))


def _outcome_cdf_series(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """The exact series for :func:`brownian_outcome_cdf` (slow when ``sigma2 * t`` is small)."""
    width, x, y = b - a, -a, y - a
    gamma = mu / sigma2
    lambda_1 = (math.pi / width) ** 2 * sigma2 / 2 + gamma * mu / 2
    t0 = math.exp(-lambda_1 * t - x * gamma + y * gamma)
    total, n = 0.0, 1
    while True:
        lambda_n = (n * math.pi / width) ** 2 * sigma2 / 2 + gamma * mu / 2
        t1 = math.exp(-(lambda_n - lambda_1) * t)
        angle = math.pi * n * y / width
        t3 = (2 * width * gamma * math.sin(angle) - 2 * math.pi * n * math.cos(angle)) / (
            width**2 * gamma**2 + math.pi**2 * n**2)
        total += t1 * t3 * math.sin(n * math.pi * x / width)
        if abs(t0 * t1 * t3) <= 1e-9:
            break
        n += 1
    if gamma * width > 30:
        pre = math.exp(-2 * gamma * x)
    elif abs(gamma * width) < 1e-8:
        pre = (width - x) / width
    else:
        pre = (1 - math.exp(2 * gamma * (width - x))) / (1 - math.exp(2 * gamma * width))
    return pre + t0 * total


def _outcome_cdf_siegmund(a: float, b: float, mu: float, sigma2: float, t: float, y: float) -> float:
    """Siegmund's approximation for :func:`brownian_outcome_cdf`, with the normal tail's asymptotics."""

    def phi(x: float) -> float:  # the standard normal cdf
        return 0.5 * math.erfc(-x / math.sqrt(2.0))

    denom = math.sqrt(t * sigma2)
    offset, gamma = mu * t, mu / sigma2
    z = (y - offset) / denom
    za = (-y + offset + 2 * a) / denom
    zb = (y - offset - 2 * b) / denom

    def image(zk: float, k: float) -> float:
        if gamma * k >= 5:
            return -math.exp(-(zk**2) / 2 + 2 * gamma * k) / math.sqrt(2 * math.pi) * (1 / zk - 1 / zk**3)
        return math.exp(2 * gamma * k) * phi(zk)

    return phi(z) + image(za, a) - image(zb, b)


class SequentialOutcome:
    """The observed state of a pentanomial SPRT, and how likely a worse one is at any Elo.

    As fishtest's ``sprt.set_state`` and ``outcome_prob``, with one change: the LLR is the
    exact GSPRT value the test stopped on (:func:`llr`), and its Brownian drift and variance
    per pair at an Elo ``e`` come from the exact LLR jumps of a pair (fishtest's
    ``LLRcalc.LLR_drift_variance``: the most likely pentanomial with score ``L(e)``, and in
    each cell the jump ``log(p1 / p0)``), where fishtest's ``sprt`` class uses the
    approximation ``LLR_drift_variance_alt2``. That approximation is fine for fishtest's
    narrow bounds and thousands of pairs; for wide bounds and a test stopped after a dozen
    pairs its LLR overshoots the bound many times over and the estimate runs off to -1000
    (found by simulation; ``tests/tournament/test_ratings_honesty.py``). A state past a
    bound is pulled back onto it, its time scaled to match, as fishtest does. Logistic
    Elo throughout, the rating table's scale.
    """

    def __init__(self, counts: Sequence[float], elo0: float, elo1: float, alpha: float = 0.05,
                 beta: float = 0.05) -> None:
        if len(counts) != 5 or sum(counts) <= 0:
            raise ValueError(f"need the five pentanomial counts of at least one pair, got {list(counts)}")
        self.lower, self.upper = sprt_bounds(alpha, beta)
        self.elo0, self.elo1 = elo0, elo1
        regularized = np.array([c if c > 0 else REGULARIZATION for c in counts], dtype=float)
        self.p = regularized / regularized.sum()
        self.s0, self.s1 = logistic_score(elo0), logistic_score(elo1)
        self.llr, self.time = llr(counts, elo0, elo1), float(regularized.sum())
        self.clamped = not 1.03 * self.lower <= self.llr <= 1.03 * self.upper
        for bound in (self.lower, self.upper):
            if (self.llr - bound) * bound > 0:  # past the bound: onto it, at the time the slope reaches it
                self.time, self.llr = self.time * bound / self.llr, bound

    def drift_variance(self, elo: float) -> tuple[float, float]:
        """Mean and variance of one pair's LLR jump if the Elo were ``elo`` (fishtest ``LLR_drift_variance``)."""
        q = mle_with_score(self.p, logistic_score(elo))
        jumps = np.log(mle_with_score(q, self.s1)) - np.log(mle_with_score(q, self.s0))
        mu = float(q @ jumps)
        return mu, float(q @ (jumps - mu) ** 2)

    def outcome_prob(self, elo: float) -> float:
        """Probability, if the logistic Elo were ``elo``, of an outcome worse than the observed one."""
        mu, sigma2 = self.drift_variance(elo)
        return brownian_outcome_cdf(self.lower, self.upper, mu, sigma2, self.time, self.llr)

    def quantile(self, p: float) -> float:
        """The Elo at which the observed outcome is the ``p`` quantile of the test's outcomes
        (fishtest's ``lower_cb``): ``p = 0.5`` is the median-unbiased estimate."""
        middle, width = (self.elo0 + self.elo1) / 2, self.elo1 - self.elo0
        lo, hi = max(middle - 30 * width, -ELO_SEARCH_LIMIT), min(middle + 30 * width, ELO_SEARCH_LIMIT)
        while True:
            f_lo, f_hi = self.outcome_prob(lo) - (1 - p), self.outcome_prob(hi) - (1 - p)
            if f_lo * f_hi < 0:
                return float(brentq(lambda e: self.outcome_prob(e) - (1 - p), lo, hi, xtol=1e-6))
            if lo <= -ELO_SEARCH_LIMIT and hi >= ELO_SEARCH_LIMIT:
                return hi if f_lo > 0 else lo
            lo, hi = max(middle - 2 * (middle - lo), -ELO_SEARCH_LIMIT), min(middle + 2 * (hi - middle),
                                                                            ELO_SEARCH_LIMIT)

    def quantiles(self, p: np.ndarray, points: int = 200) -> np.ndarray:
        """:meth:`quantile` of many probabilities at once, by interpolating the outcome cdf on a grid
        between the 0.1% and 99.9% quantiles (probabilities beyond them get those ends)."""
        lo, hi = self.quantile(0.001), self.quantile(0.999)
        if hi <= lo:
            return np.full(np.shape(p), lo)
        grid = np.linspace(lo, hi, points)
        cdf = np.maximum.accumulate([1.0 - self.outcome_prob(e) for e in grid])
        return np.interp(p, cdf, grid)

    def estimate(self, level: float = 0.95) -> SprtEstimate:
        """Median-unbiased Elo, its interval at ``level`` and the LOS (fishtest's ``analytics``)."""
        tail = (1.0 - level) / 2.0
        return SprtEstimate(elo=self.quantile(0.5), lower=self.quantile(tail), upper=self.quantile(1.0 - tail),
                            los=self.outcome_prob(0.0), llr=self.llr, time=self.time, clamped=self.clamped,
                            level=level)
