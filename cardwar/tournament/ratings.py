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
* **Anchor.** Ratings are shifted so that the entrant named ``anchor`` is 0; if no such
  entrant played (or ``anchor`` is None), so that their mean is 0. The library's default
  is the name ``"random"``; the tournament report picks the anchor by spec
  (:func:`cardwar.tournament.report.choose_anchor`).
* **Fit.** Damped Newton's method on the penalised log-likelihood (convex), batched over
  bootstrap rounds with numpy so 1000 rounds cost about as much as a handful of fits.
* **Bootstrap over pairs** (Chatbot Arena bootstraps battles; we resample whole duplicate
  pairs, within each pairing, so the two seat-swapped games of a seed stay together and
  each pairing keeps its size). Intervals are percentiles of the anchored replicates.
* **LOS.** Between neighbours in the ranking, the fraction of bootstrap rounds in which
  the higher-ranked entrant is rated above the next, a tie counting half: it uses every
  game and the pair structure. Two ratings within ``TIE_TOLERANCE`` (relative: a
  billionth of an Elo near 0) are a tie, so that entrants with identical records, whose
  fits differ only by rounding, get 0.5 rather than 0 or 1. :func:`likelihood_of_superiority` is the
  chess testers' formula on a head-to-head win/loss record (fastchess, the Chess
  Programming Wiki), for reports of a single pairing.
* **Sequential pairings.** A pairing whose length an SPRT decided is biased towards the
  bound it crossed. It enters the fit through its bias-corrected (median-unbiased) Elo,
  as :class:`SequentialPairing`: its games count at the score rate of that Elo, and the
  bootstrap draws its Elo from the test's confidence distribution instead of resampling
  its pairs (:class:`cardwar.tournament.sprt.SequentialOutcome`).
* **Reliability.** An interval from fewer than ``min_pairs`` duplicate pairs (default
  ``MIN_RELIABLE_PAIRS``), or one of zero width for an entrant other than the anchor
  (every resample alike, e.g. every pair won 2-0), says nothing about the rating's
  uncertainty; the row is flagged ``reliable=False`` and the reports print "n/a".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import expit

from cardwar.tournament.game_result import GameResult, entrant_names, group_pairs

ELO_PER_NAT = 400.0 / math.log(10.0)
"""Elo points per unit of natural-log strength: ``10 ** (elo / 400) == exp(elo / ELO_PER_NAT)``."""

IDENTIFIABILITY_L2 = 1e-6
"""Precision of the Gaussian prior on natural-log strengths that makes the fit unique."""

DEFAULT_ANCHOR = "random"

MIN_RELIABLE_PAIRS = 10
"""Fewer duplicate pairs than this behind an entrant and its interval is flagged unreliable."""

TIE_TOLERANCE = 1e-9
"""Two bootstrap ratings closer than this times ``1 + max(|a|, |b|)`` Elo are a tie."""


@dataclass(frozen=True)
class SequentialPairing:
    """A pairing whose length a sequential test decided, rated by its bias-corrected result.

    ``elo`` is ``entrant``'s corrected Elo over ``opponent``; ``quantiles`` maps an array of
    probabilities to Elo (the test's confidence distribution), from which the bootstrap
    draws the pairing's Elo. Built by :func:`cardwar.tournament.report.sequential_pairings`.
    """

    entrant: str
    opponent: str
    elo: float
    quantiles: Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True)
class EntrantRating:
    """One line of the rating table.

    ``elo`` is the maximum-likelihood rating, ``lower``/``upper`` the bootstrap interval,
    ``points`` the total score over ``games`` games in ``pairs`` duplicate pairs, and
    ``los_next`` the likelihood that this entrant is stronger than the one ranked just below
    it (None for the last). ``reliable`` is False when the interval comes from too few pairs
    or has zero width (see the module notes); ``sequential`` when the rating uses a pairing
    an SPRT cut short, bias-corrected.
    """

    name: str
    elo: float
    lower: float
    upper: float
    games: int
    points: float
    los_next: float | None
    pairs: int = 0
    reliable: bool = True
    sequential: bool = False

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
    min_pairs: int = MIN_RELIABLE_PAIRS

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


def _split(games: Sequence[GameResult], sequential: Mapping[str, SequentialPairing] | None
           ) -> tuple[list[GameResult], dict[str, tuple[SequentialPairing, int]]]:
    """The games fitted as played, and each sequential pairing with its number of games."""
    sequential = sequential or {}
    plain = [g for g in games if g.pairing not in sequential]
    counts: dict[str, int] = {}
    for g in games:
        if g.pairing in sequential:
            seq = sequential[g.pairing]
            if {g.first, g.second} != {seq.entrant, seq.opponent}:
                raise ValueError(f"pairing {g.pairing!r}: a game of {g.first} and {g.second}, "
                                 f"not of {seq.entrant} and {seq.opponent}")
            counts[g.pairing] = counts.get(g.pairing, 0) + 1
    return plain, {k: (sequential[k], n) for k, n in counts.items()}


def _add_sequential(wins: np.ndarray, index: dict[str, int], seq: SequentialPairing, games: int,
                    elo: np.ndarray | float) -> None:
    """Add a sequential pairing's ``games`` at the score rate of ``elo`` (one per batch row) to ``wins``."""
    rate = expit(np.asarray(elo) / ELO_PER_NAT)
    i, j = index[seq.entrant], index[seq.opponent]
    wins[..., i, j] += games * rate
    wins[..., j, i] += games * (1.0 - rate)


def _fit_matrix(games: Sequence[GameResult], names: Sequence[str],
                sequential: Mapping[str, SequentialPairing] | None) -> tuple[np.ndarray, np.ndarray]:
    """The score matrix the fit uses (sequential pairings at their corrected rate) and who met whom."""
    plain, seqs = _split(games, sequential)
    wins = score_matrix(plain, names)
    index = {name: i for i, name in enumerate(names)}
    for seq, count in seqs.values():
        _add_sequential(wins, index, seq, count, seq.elo)
    return wins, (wins + wins.T) > 0


def bradley_terry_elo(
    games: Sequence[GameResult], *, anchor: str | None = DEFAULT_ANCHOR, virtual_draws: float = 1.0,
    sequential: Mapping[str, SequentialPairing] | None = None,
) -> dict[str, float]:
    """Maximum-likelihood Bradley-Terry Elo of every entrant, anchored (see the module notes).

    ``sequential`` maps pairing names to the bias-corrected results of pairings an SPRT cut
    short; their games count at the corrected score rate instead of as played.
    """
    names = _names(games)
    wins, met = _fit_matrix(games, names, sequential)
    theta = fit_strengths(_with_virtual_draws(wins, met, virtual_draws))
    return dict(zip(names, _anchored_elo(theta, names, anchor).tolist()))


def bootstrap_elo(
    games: Sequence[GameResult],
    *,
    anchor: str | None = DEFAULT_ANCHOR,
    virtual_draws: float = 1.0,
    rounds: int = 1000,
    seed: int | np.random.Generator = 0,
    sequential: Mapping[str, SequentialPairing] | None = None,
) -> tuple[list[str], np.ndarray]:
    """Anchored Elo refitted on ``rounds`` resamples of whole duplicate pairs.

    Each pairing's pairs are drawn with replacement, as many as it has, so the two games
    of a pair move together and every pairing keeps its size (a pair cut short is a unit of
    its one game). A pairing in ``sequential`` is not resampled (its pairs are not a fixed
    sample); its Elo is drawn from its confidence distribution instead. Each resample is
    fitted from the full-data fit as a warm start, all rounds in one batched Newton solve.
    Returns the entrant names (sorted) and an array ``(rounds, entrants)`` of Elo, one row
    per resample.
    """
    names = _names(games)
    rng = np.random.default_rng(seed)
    index = {name: i for i, name in enumerate(names)}
    n = len(names)
    resampled = np.zeros((rounds, n * n))
    plain, seqs = _split(games, sequential)
    by_pairing: dict[str, list[list[GameResult]]] = {}
    for (pairing, _), pair in group_pairs(plain).items():
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
    resampled = resampled.reshape(rounds, n, n)
    for seq, count in seqs.values():
        _add_sequential(resampled, index, seq, count, seq.quantiles(rng.random(rounds)))
    wins, met = _fit_matrix(games, names, sequential)
    start = fit_strengths(_with_virtual_draws(wins, met, virtual_draws))
    theta = fit_strengths(_with_virtual_draws(resampled, met, virtual_draws), start=start)
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
    sequential: Mapping[str, SequentialPairing] | None = None,
    min_pairs: int = MIN_RELIABLE_PAIRS,
) -> RatingTable:
    """The rating table: ML Elo, bootstrap interval at ``level``, LOS over the next entrant, reliability.

    ``sequential`` as in :func:`bradley_terry_elo`; ``min_pairs`` the fewest duplicate pairs
    behind an entrant for its interval to count as reliable.
    """
    point = bradley_terry_elo(games, anchor=anchor, virtual_draws=virtual_draws, sequential=sequential)
    names, samples = bootstrap_elo(games, anchor=anchor, virtual_draws=virtual_draws, rounds=rounds, seed=seed,
                                   sequential=sequential)
    tail = 100.0 * (1.0 - level) / 2.0
    lower, upper = np.percentile(samples, [tail, 100.0 - tail], axis=0)
    wins = score_matrix(games, names)
    points, played = wins.sum(axis=1), (wins + wins.T).sum(axis=1)
    pairs = {name: len({g.pair_id for g in games if name in g.entrants}) for name in names}
    in_sequential = {name for seq in (sequential or {}).values() for name in (seq.entrant, seq.opponent)}
    in_sequential &= {name for g in games if g.pairing in (sequential or {}) for name in g.entrants}
    used_anchor = anchor if anchor in names else None
    order = sorted(range(len(names)), key=lambda i: (-round(point[names[i]], 6), names[i]))
    rows = []
    for rank, i in enumerate(order):
        name = names[i]
        los = None if rank + 1 == len(order) else superiority_share(samples[:, i], samples[:, order[rank + 1]])
        degenerate = name != used_anchor and upper[i] - lower[i] <= TIE_TOLERANCE * (1.0 + abs(point[name]))
        rows.append(
            EntrantRating(
                name=name,
                elo=point[name],
                lower=float(lower[i]),
                upper=float(upper[i]),
                games=int(round(played[i])),
                points=float(points[i]),
                los_next=los,
                pairs=pairs[name],
                reliable=pairs[name] >= min_pairs and not degenerate,
                sequential=name in in_sequential,
            )
        )
    return RatingTable(entrants=tuple(rows), anchor=used_anchor, rounds=rounds, level=level, min_pairs=min_pairs)


def superiority_share(a: np.ndarray, b: np.ndarray) -> float:
    """Share of bootstrap rounds with ``a`` rated above ``b``, a tie (within ``TIE_TOLERANCE``) counting half."""
    tie = np.abs(a - b) <= TIE_TOLERANCE * (1.0 + np.maximum(np.abs(a), np.abs(b)))
    return float(np.mean(np.where(tie, 0.5, a > b)))


def _names(games: Sequence[GameResult]) -> list[str]:
    names = entrant_names(games)
    if not names:
        raise ValueError("no games to rate")
    return names
