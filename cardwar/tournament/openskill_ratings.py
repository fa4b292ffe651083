"""OpenSkill (Weng-Lin Bayesian) ratings beside the Bradley-Terry table.

OpenSkill updates a Gaussian belief (``mu``, ``sigma``) per entrant game by game, as
TrueSkill does; its ranking key is the conservative ``ordinal = mu - 3 sigma``. We use the
``openskill`` library's Plackett-Luce model with its defaults (``mu = 25``,
``sigma = 25 / 3``). A draw is a tie in rank.

The updates depend on the order of the games, so they are fed in a canonical order that
does not depend on which game finished first: by pair index, then pairing, then first-seat
entrant. Pairings are thus interleaved like rounds of a round robin, instead of one
pairing's hundred games arriving before the next pairing's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from cardwar.tournament.game_result import GameResult, entrant_names


@dataclass(frozen=True)
class SkillRating:
    """One entrant's OpenSkill belief: mean, spread, and the ranking key ``mu - 3 sigma``."""

    name: str
    mu: float
    sigma: float
    ordinal: float


def canonical_order(games: Sequence[GameResult]) -> list[GameResult]:
    """The games sorted by (pair index, pairing, first-seat entrant): round-robin rounds."""
    return sorted(games, key=lambda game: (game.pair_index, game.pairing, game.first))


def openskill_ratings(games: Sequence[GameResult], model: PlackettLuce | None = None) -> list[SkillRating]:
    """OpenSkill Plackett-Luce ratings of every entrant, highest ordinal first.

    ``model`` may be a configured ``openskill.models.PlackettLuce``; the default model
    otherwise. Games are rated one at a time in :func:`canonical_order`.
    """
    model = model if model is not None else PlackettLuce()
    ratings = {name: model.rating(name=name) for name in entrant_names(games)}
    for game in canonical_order(games):
        # Ranks: lower is better; a draw shares the rank.
        ranks = {1.0: [1, 2], 0.5: [1, 1], 0.0: [2, 1]}[game.score]
        [[first], [second]] = model.rate([[ratings[game.first]], [ratings[game.second]]], ranks=ranks)
        ratings[game.first], ratings[game.second] = first, second
    table = [SkillRating(name, r.mu, r.sigma, r.ordinal()) for name, r in ratings.items()]
    return sorted(table, key=lambda row: (-row.ordinal, row.name))
