"""Bradley-Terry Elo by maximum likelihood, with 95% intervals from a bootstrap over game pairs.

The model is the one behind BayesElo, Ordo and Chatbot Arena's leaderboard: entrant ``i``
has a strength ``r_i`` and scores against ``j`` with probability
``1 / (1 + 10 ** ((r_j - r_i) / 400))``; ratings are on the Elo scale.

Choices, and why:

* **Draws count as half a win each way** (Chatbot Arena's BT fit and "BayesElo-lite"): a
  game adds its score to the first seat's column against the second and ``1 - score`` the
  other way. This keeps one parameter per entrant; BayesElo's extra draw-Elo parameter
  only matters when draw rates are the object of study.
* **Seat advantage is not modelled**: every pair plays both seat orders on one seed, so
  a first-seat edge cancels within the pair.
* **Prior.** ``virtual_draws`` (default 1) adds that many drawn games to every two
  entrants that met, as BayesElo's prior of virtual draws does. It keeps an entrant that
  never loses or never wins finite and meaningful (a 100-0 record reads as
  ``400 * log10(100.5 / 0.5)``, about 921 Elo, instead of an arbitrary thousands) and
  moves a rating with real data by a fraction of an Elo. A tiny Gaussian prior
  (``IDENTIFIABILITY_L2`` on the natural-log strengths) is always added so the fit has a
  unique answer even when groups of entrants never met; it centres each such group on
  zero. With ``virtual_draws=0`` the fit is the plain MLE (``400 log10(W / L)`` for two
  entrants); a perfect record then ends only where the tiny prior stops it, thousands of
  Elo up, finite but meaningless.
* **Anchor.** Ratings are shifted so that the entrant named ``anchor`` (``"random"`` by
  default) is 0; if no such entrant played, so that their mean is 0.
* **Fit.** Damped Newton's method on the penalised log-likelihood (convex), batched over
  bootstrap rounds with numpy so 1000 rounds cost about as much as a handful of fits.
* **Bootstrap over pairs** (Chatbot Arena bootstraps battles; we resample whole duplicate
  pairs, within each pairing, so the two seat-swapped games of a seed stay together and
  each pairing keeps its size). Intervals are percentiles of the anchored replicates.
* **LOS.** Between neighbours in the ranking, the fraction of bootstrap rounds in which
  the higher-ranked entrant is rated above the next (ties half): it uses every game and
  the pair structure. :func:`likelihood_of_superiority` is the chess testers' formula on a
  head-to-head win/loss record (fastchess, the Chess Programming Wiki), for reports of a
  single pairing.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from cardwar.tournament.game_result import GameResult, entrant_names, group_pairs

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log strength: ``10 ** (elo / 400) == exp(elo / ELO_PER_NAT)``."""

IDENTIFIABILITY_L2 = 1e-6
"""Precision of the Gaussian prior on natural-log strengths that makes the fit unique."""

DEFAULT_ANCHOR = "random"


@dataclass(frozen=True)
class EntrantRating:
    """One line of the rating table.

    ``elo`` is the maximum-likelihood rating, ``lower``/``upper`` the bootstrap interval,
    ``points`` the total score over ``games`` games, and ``los_next`` the likelihood that
    this entrant is stronger than the one ranked just below it (None for the last).
    """

    name: str
    elo: float
    lower: float
    upper: float
    games: int
    points: float
    los_next: float | None

    @property
    def score_rate(self) -> float:
        """Points per game."""
        return self.points / self.games if self.games else float("nan")


@dataclass(frozen=True)
class RatingTable:
    """Bradley-Terry ratings of every entrant, strongest first."""

    entrants: tuple[EntrantRating, ...]
    anchor: str | None
    rounds: int
    level: float

    def __getitem__(self, name: str) -> EntrantRating:
        """The row of entrant ``name``."""
        for entrant in self.entrants:
            if entrant.name == name:
                return entrant
        raise KeyError(name)


def score_matrix(games: Sequence[GameResult], names: Sequence[str]) -> np.ndarray:
    """``W[i, j]``: the points entrant ``names[i]`` took from ``names[j]`` (draws half each way)."""
    index = {name: i for i, name in enumerate(names)}
    wins = np.zeros((len(names), len(names)))
    for game in games:
        i, j = index[game.first], index[game.second]
        wins[i, j] += game.score
        wins[j, i] += 1.0 - game.score
    return wins


def fit_strengths(wins: np.ndarray, start: np.ndarray | None = None, l2: float = IDENTIFIABILITY_L2) -> np.ndarray:
    """Natural-log Bradley-Terry strengths maximising the penalised likelihood, batched.

    ``wins`` is one score matrix ``(n, n)`` or a stack ``(B, n, n)``; the answer has shape
    ``(n,)`` or ``(B, n)`` and sums to zero per row (the Gaussian prior centres it).
    Newton's method with a backtracking line search; the objective is convex.
    """
    single = wins.ndim == 2
    w = wins[None] if single else wins
    batch, n, _ = w.shape
    theta = np.zeros((batch, n)) if start is None else np.array(np.broadcast_to(start, (batch, n)), dtype=float)
    games = w + np.swapaxes(w, 1, 2)
    points = w.sum(axis=2)
    diag = np.arange(n)
    for _ in range(200):
        p = expit(theta[:, :, None] - theta[:, None, :])
        grad = (games * p).sum(axis=2) - points + l2 * theta
        if np.abs(grad).max() < 1e-10 * (1.0 + points.max()):
            break
        curvature = games * p * (1.0 - p)
        hessian = -curvature
        hessian[:, diag, diag] = curvature.sum(axis=2) + l2
        step = np.linalg.solve(hessian, -grad[..., None])[..., 0]
        theta = _line_search(w, theta, step, grad, l2)
    return theta[0] if single else theta


def _objective(w: np.ndarray, theta: np.ndarray, l2: float) -> np.ndarray:
    """Negative log-likelihood plus the Gaussian prior, per batch row."""
    gaps = theta[:, :, None] - theta[:, None, :]
    return (w * np.logaddexp(0.0, -gaps)).sum(axis=(1, 2)) + 0.5 * l2 * (theta**2).sum(axis=1)


def _line_search(w: np.ndarray, theta: np.ndarray, step: np.ndarray, grad: np.ndarray, l2: float) -> np.ndarray:
    """Armijo backtracking on each batch row: halve the Newton step until the objective drops."""
    here = _objective(w, theta, l2)
    slope = (grad * step).sum(axis=1)
    scale = np.ones(len(theta))
    for _ in range(50):
        trial = theta + scale[:, None] * step
        bad = _objective(w, trial, l2) > here + 1e-4 * scale * slope + 1e-12 * np.abs(here)
        if not bad.any():
            break
        scale[bad] *= 0.5
    return theta + scale[:, None] * step


def _with_virtual_draws(wins: np.ndarray, met: np.ndarray, virtual_draws: float) -> np.ndarray:
    """Add ``virtual_draws`` drawn games (half a point each way) to every two entrants that met."""
    return wins + 0.5 * virtual_draws * met


def _anchored_elo(theta: np.ndarray, names: Sequence[str], anchor: str | None) -> np.ndarray:
    """Strengths in Elo, shifted so the anchor entrant is 0 (or the mean, with no anchor)."""
    elo = theta * ELO_PER_NAT
    if anchor is not None and anchor in names:
        return elo - elo[..., [list(names).index(anchor)]]
    return elo - elo.mean(axis=-1, keepdims=True)


def bradley_terry_elo(
    games: Sequence[GameResult], *, anchor: str | None = DEFAULT_ANCHOR, virtual_draws: float = 1.0
) -> dict[str, float]:
    """Maximum-likelihood Bradley-Terry Elo of every entrant, anchored (see the module notes)."""
    names = _names(games)
    wins = score_matrix(games, names)
    theta = fit_strengths(_with_virtual_draws(wins, (wins + wins.T) > 0, virtual_draws))
    return dict(zip(names, _anchored_elo(theta, names, anchor).tolist()))


def bootstrap_elo(
    games: Sequence[GameResult],
    *,
    anchor: str | None = DEFAULT_ANCHOR,
    virtual_draws: float = 1.0,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
) -> tuple[list[str], np.ndarray]:
    """Anchored Elo refitted on ``rounds`` resamples of whole duplicate pairs.

    Each pairing's pairs are drawn with replacement, as many as it has, so the two games
    of a pair move together and every pairing keeps its size (a pair cut short is a unit of
    its one game). Each resample is fitted from the full-data fit as a warm start, all
    rounds in one batched Newton solve. Returns the entrant names
    (sorted) and an array ``(rounds, entrants)`` of Elo, one row per resample.
    """
    names = _names(games)
    rng = np.random.default_rng(seed)
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    resampled = np.zeros((rounds, n * n))
    by_pairing: dict[str, list[list[GameResult]]] = {}
    for (pairing, _), pair in group_pairs(games).items():
        by_pairing.setdefault(pairing, []).append(pair)
    for pairs in by_pairing.values():
        units = np.zeros((len(pairs), n * n))
        for u, pair in enumerate(pairs):
            for game in pair:
                i, j = index[game.first], index[game.second]
                units[u, i * n + j] += game.score
                units[u, j * n + i] += 1.0 - game.score
        draws = rng.multinomial(len(pairs), np.full(len(pairs), 1.0 / len(pairs)), size=rounds)
        resampled += draws @ units
    wins = score_matrix(games, names)
    met = (wins + wins.T) > 0
    start = fit_strengths(_with_virtual_draws(wins, met, virtual_draws))
    theta = fit_strengths(_with_virtual_draws(resampled.reshape(rounds, n, n), met, virtual_draws), start=start)
    return names, _anchored_elo(theta, names, anchor)


def likelihood_of_superiority(wins: float, losses: float) -> float:
    """P(A is stronger than B) from A's wins and losses against B; draws do not enter.

    The chess testers' normal approximation (fastchess, the Chess Programming Wiki):
    ``0.5 * (1 + erf((W - L) / sqrt(2 (W + L))))``; 0.5 with no decisive game.
    """
    if wins + losses == 0:
        return 0.5
    return 0.5 * (1.0 + math.erf((wins - losses) / math.sqrt(2.0 * (wins + losses))))


def rate(
    games: Sequence[GameResult],
    *,
    anchor: str | None = DEFAULT_ANCHOR,
    virtual_draws: float = 1.0,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    level: float = 0.95,
) -> RatingTable:
    """The rating table: ML Elo, bootstrap interval at ``level``, and LOS over the next entrant."""
    point = bradley_terry_elo(games, anchor=anchor, virtual_draws=virtual_draws)
    names, samples = bootstrap_elo(games, anchor=anchor, virtual_draws=virtual_draws, rounds=rounds, seed=seed)
    tail = 100.0 * (1.0 - level) / 2.0
    lower, upper = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    wins = score_matrix(games, names)
    points, played = wins.sum(axis=1), (wins + wins.T).sum(axis=1)
    order = sorted(range(len(names)), key=lambda i: (-point[names[i]], names[i]))
    rows = []
    for rank, i in enumerate(order):
        los = None
        if rank + 1 < len(order):
            j = order[rank + 1]
            los = float(np.mean(samples[:, i] > samples[:, j]) + 0.5 * np.mean(samples[:, i] == samples[:, j]))
        rows.append(
            EntrantRating(
                name=names[i],
                elo=point[names[i]],
                lower=float(lower[i]),
                upper=float(upper[i]),
                games=int(round(played[i])),
                points=float(points[i]),
                los_next=los,
            )
        )
    used_anchor = anchor if anchor in names else None
    return RatingTable(entrants=tuple(rows), anchor=used_anchor, rounds=rounds, level=level)


def _names(games: Sequence[GameResult]) -> list[str]:
    names = entrant_names(games)
    if not names:
        raise ValueError("no games to rate")
    return names
