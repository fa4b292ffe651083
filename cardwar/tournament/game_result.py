"""The input of every tournament statistic: one finished game between two entrants.

Games are played in duplicate pairs, as fastchess plays an opening twice with colours
reversed and the ACPC dealer replays the cards with seats swapped: game one of a pair
gives entrant A the first seat, game two gives it to B, both on the same seed. A pair is
named by its tournament pairing and its index within that pairing, and the statistics
keep the two games of a pair together (the pentanomial counts, the pair bootstrap).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SCORES = (0.0, 0.5, 1.0)


@dataclass(frozen=True)
class GameResult:
    """One game: who sat where, and what the first seat scored.

    ``pairing`` names the tournament pairing (e.g. ``"heuristic-random"``); ``pair_index``
    numbers the duplicate pairs within it (both games of a pair share it). ``first`` and
    ``second`` are the display names of the entrants in the first and second seat.
    ``score`` is the first seat's result: 1 a win, 0.5 a draw, 0 a loss.
    """

    pairing: str
    pair_index: int
    first: str
    second: str
    score: float

    def __post_init__(self) -> None:
        if self.score not in SCORES:
            raise ValueError(f"score must be 1, 0.5 or 0 (the first seat's result), got {self.score!r}")
        if self.first == self.second:
            raise ValueError(f"an entrant cannot play itself: {self.first!r}")

    @property
    def pair_id(self) -> tuple[str, int]:
        """The duplicate pair this game belongs to: (pairing, pair index)."""
        return (self.pairing, self.pair_index)

    @property
    def entrants(self) -> tuple[str, str]:
        """The two entrants, first seat first."""
        return (self.first, self.second)

    def score_of(self, name: str) -> float:
        """The score of entrant ``name`` in this game (1, 0.5 or 0)."""
        if name == self.first:
            return self.score
        if name == self.second:
            return 1.0 - self.score
        raise KeyError(f"{name!r} did not play in this game ({self.first} vs {self.second})")


def entrant_names(games: Iterable[GameResult]) -> list[str]:
    """Every entrant that played at least one game, sorted by name."""
    return sorted({name for game in games for name in game.entrants})


def group_pairs(games: Iterable[GameResult]) -> dict[tuple[str, int], list[GameResult]]:
    """The games of each duplicate pair, keyed by pair id, in first-seen order.

    A pair normally holds two games; a pair cut short (a tournament stopped between its
    games) holds one, and the callers say what they do with it. A third game under one
    pair id is an error in the data (pair indices reused, e.g. across scenarios), refused.
    """
    pairs: dict[tuple[str, int], list[GameResult]] = {}
    for game in games:
        pair = pairs.setdefault(game.pair_id, [])
        if len(pair) == 2:
            raise ValueError(f"more than two games in pair {game.pair_id}: a pair id must name one duplicate pair")
        pair.append(game)
    return pairs


def is_complete_pair(pair: Sequence[GameResult]) -> bool:
    """Two games between the same two entrants, each entrant in each seat once."""
    return len(pair) == 2 and pair[0].first == pair[1].second and pair[0].second == pair[1].first
