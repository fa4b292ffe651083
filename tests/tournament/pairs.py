"""Builders of hand-made duplicate pairs for the tournament-statistics tests."""

from __future__ import annotations

from collections.abc import Iterable

from cardwar.tournament.game_result import GameResult


def duplicate_pair(pairing: str, index: int, a: str, b: str, a_first: float, a_second: float) -> list[GameResult]:
    """The two games of one pair: ``a`` scores ``a_first`` in the first seat, then ``a_second`` in the second."""
    return [
        GameResult(pairing, index, a, b, a_first),
        GameResult(pairing, index, b, a, 1.0 - a_second),
    ]


def pairs_from_scores(a: str, b: str, outcomes: Iterable[tuple[float, float]], pairing: str | None = None,
                      start: int = 0) -> list[GameResult]:
    """Consecutive pairs of ``a`` against ``b``, one per (first-seat score, second-seat score) of ``a``."""
    pairing = pairing if pairing is not None else f"{a}-{b}"
    games: list[GameResult] = []
    for k, (first, second) in enumerate(outcomes, start=start):
        games += duplicate_pair(pairing, k, a, b, first, second)
    return games


def record(a: str, b: str, wins: int, draws: int, losses: int, pairing: str | None = None) -> list[GameResult]:
    """Games of ``a`` against ``b`` with the given totals, seats alternating, two games a pair."""
    scores = [1.0] * wins + [0.5] * draws + [0.0] * losses
    pairing = pairing if pairing is not None else f"{a}-{b}"
    games = []
    for g, score in enumerate(scores):
        if g % 2 == 0:
            games.append(GameResult(pairing, g // 2, a, b, score))
        else:
            games.append(GameResult(pairing, g // 2, b, a, 1.0 - score))
    return games
