"""The crosstable: each entrant's score rate against each other, with the number of games.

As Ordo's and BayesElo's crosstables print it: row ``i``, column ``j`` is what ``i``
scored against ``j`` (a win 1, a draw 1/2), over all their games in either seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from cardwar.tournament.game_result import GameResult, entrant_names


@dataclass(frozen=True)
class Crosstable:
    """Entrant x entrant results; the arrays are indexed like ``names``.

    ``points[i, j]`` is what ``names[i]`` scored against ``names[j]``; ``games[i, j]`` how
    many games they played (symmetric); the diagonal is zero.
    """

    names: tuple[str, ...]
    points: np.ndarray
    games: np.ndarray

    @property
    def rates(self) -> np.ndarray:
        """Score rate of row against column; NaN where the two never played."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self.games > 0, self.points / self.games, np.nan)

    def rate(self, name: str, opponent: str) -> float | None:
        """``name``'s score rate against ``opponent``, or None if they never played."""
        i, j = self.names.index(name), self.names.index(opponent)
        return float(self.points[i, j] / self.games[i, j]) if self.games[i, j] else None

    def count(self, name: str, opponent: str) -> int:
        """How many games ``name`` and ``opponent`` played against each other."""
        return int(self.games[self.names.index(name), self.names.index(opponent)])


def crosstable(games: Sequence[GameResult], order: Sequence[str] | None = None) -> Crosstable:
    """Tally the crosstable; entrants in ``order`` (e.g. the rating order) or by name."""
    names = tuple(order) if order is not None else tuple(entrant_names(games))
    missing = set(entrant_names(games)) - set(names)
    if missing:
        raise ValueError(f"order leaves out entrants that played: {sorted(missing)}")
    index = {name: i for i, name in enumerate(names)}
    points = np.zeros((len(names), len(names)))
    played = np.zeros((len(names), len(names)), dtype=int)
    for game in games:
        i, j = index[game.first], index[game.second]
        points[i, j] += game.score
        points[j, i] += 1.0 - game.score
        played[i, j] += 1
        played[j, i] += 1
    return Crosstable(names=names, points=points, games=played)
