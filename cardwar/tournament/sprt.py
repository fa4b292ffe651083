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
