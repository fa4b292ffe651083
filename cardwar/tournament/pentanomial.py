"""Pentanomial statistics of duplicate pairs, as fastchess and fishtest report them.

A duplicate pair is two games on one seed with the seats swapped. Its score for entrant A
is 0, 1/2, 1, 3/2 or 2, and the five counts of pairs at each score (LL, LD, WL+DD, WD, WW)
are the pentanomial. Because the seat and the deal are shared within a pair, the pair
scores vary less than two independent games would, and the variance computed from the
pentanomial is the honest one for the mean score (fishtest's ``stat_util``, fastchess's
``EloPentanomial``). Only complete pairs count (both games, each entrant in each seat
once); a pair cut short is counted in ``incomplete`` and left out, as fastchess does.

Scores here are per game, on [0, 1]: a pair's score divided by two.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from cardwar.tournament.game_result import GameResult, group_pairs, is_complete_pair

PAIR_SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""What entrant A can score in a pair, in the order of :attr:`Pentanomial.counts`."""

NELO_PER_T = 800.0 / math.log(10.0)
"""Normalized Elo per unit of t-value, fishtest's ``nelo_divided_by_nt``."""

Z95 = 1.959963984540054


@dataclass(frozen=True)
class Pentanomial:
    """Pair results of ``entrant`` against ``opponent``.

    ``counts[k]`` is the number of complete pairs in which ``entrant`` scored
    ``PAIR_SCORES[k]`` (two losses, a loss and a draw, a win and a loss or two draws, a win
    and a draw, two wins); ``incomplete`` the pairs left out because a game was missing.
    """

    entrant: str
    opponent: str
    counts: tuple[int, int, int, int, int]
    incomplete: int = 0

    @property
    def pairs(self) -> int:
        """Complete pairs counted."""
        return sum(self.counts)

    @property
    def score(self) -> float:
        """Mean score per game on [0, 1] (fastchess ``calcScore``); NaN with no pairs."""
        if not self.pairs:
            return float("nan")
        return sum(c * s / 2.0 for c, s in zip(self.counts, PAIR_SCORES)) / self.pairs

    @property
    def variance(self) -> float:
        """Variance of one pair's per-game score (pair score / 2), fastchess ``calcVariance``."""
        if not self.pairs:
            return float("nan")
        mean = self.score
        return sum(c * (s / 2.0 - mean) ** 2 for c, s in zip(self.counts, PAIR_SCORES)) / self.pairs

    @property
    def variance_of_mean(self) -> float:
        """Variance of :attr:`score` as an estimate: ``variance / pairs``."""
        return self.variance / self.pairs if self.pairs else float("nan")

    @property
    def elo(self) -> float:
        """Logistic Elo difference from the score: ``-400 log10(1 / score - 1)``."""
        return score_to_elo(self.score)

    def elo_interval(self, z: float = Z95) -> tuple[float, float]:
        """Elo at ``score -/+ z * sqrt(variance_of_mean)`` (fastchess's error bars; 95% by default)."""
        half = z * math.sqrt(self.variance_of_mean)
        return score_to_elo(self.score - half), score_to_elo(self.score + half)

    @property
    def normalized_elo(self) -> float:
        """Normalized Elo, ``(score - 1/2) / sqrt(2 variance) * 800 / ln 10`` (fishtest, fastchess)."""
        if not self.pairs or self.variance == 0.0:
            return float("nan")
        return (self.score - 0.5) / math.sqrt(2.0 * self.variance) * NELO_PER_T

    @property
    def los(self) -> float:
        """Likelihood of superiority from the pair variance, fastchess's pentanomial ``los()``."""
        if not self.pairs:
            return 0.5
        if self.variance == 0.0:
            return 0.5 if self.score == 0.5 else float(self.score > 0.5)
        return 0.5 * (1.0 - math.erf(-(self.score - 0.5) / math.sqrt(2.0 * self.variance_of_mean)))


def score_to_elo(score: float) -> float:
    """Logistic Elo of a per-game score rate; infinite at 0 and 1."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def pair_scores(games: Iterable[GameResult], entrant: str, opponent: str) -> tuple[list[float], int]:
    """``entrant``'s score in each complete pair against ``opponent``, in first-seen order.

    Returns the scores and the number of incomplete pairs left out.
    """
    scores: list[float] = []
    incomplete = 0
    for pair in group_pairs(g for g in games if {g.first, g.second} == {entrant, opponent}).values():
        if is_complete_pair(pair):
            scores.append(sum(game.score_of(entrant) for game in pair))
        else:
            incomplete += 1
    return scores, incomplete


def from_pair_scores(
    scores: Sequence[float], entrant: str = "A", opponent: str = "B", incomplete: int = 0
) -> Pentanomial:
    """Count pair scores (each 0, 0.5, 1, 1.5 or 2) into a pentanomial."""
    counts = [0] * 5
    for score in scores:
        if score not in PAIR_SCORES:
            raise ValueError(f"a pair score is 0, 0.5, 1, 1.5 or 2, got {score!r}")
        counts[PAIR_SCORES.index(score)] += 1
    return Pentanomial(entrant, opponent, (counts[0], counts[1], counts[2], counts[3], counts[4]), incomplete)


def pentanomial(games: Iterable[GameResult], entrant: str, opponent: str) -> Pentanomial:
    """The pentanomial of ``entrant`` against ``opponent`` over all their complete pairs."""
    scores, incomplete = pair_scores(games, entrant, opponent)
    return from_pair_scores(scores, entrant, opponent, incomplete)
