"""The totals of a match (two players, seats swapped in pairs) from the first player's side."""

from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class MatchResult:
    """Totals of a match from agent A's side."""

    game: str
    agent_a: str
    agent_b: str
    games: int = 0
    wins_a: int = 0
    wins_b: int = 0
    draws: int = 0
    seconds: float = 0.0
    secret: str | None = None  # the dealer's secret (None: reproducible research seeds)
    per_seat: dict = field(default_factory=lambda: {"a_first": [0, 0, 0], "a_second": [0, 0, 0]})

    @property
    def score_a(self) -> float:
        return (self.wins_a + 0.5 * self.draws) / self.games if self.games else 0.0

    def interval(self, z: float = 1.96) -> tuple[float, float]:
        """95% Wilson score interval of A's score rate."""
        n, p = self.games, self.score_a
        if n == 0:
            return 0.0, 1.0
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return max(0.0, min(centre - half, p)), min(1.0, max(centre + half, p))  # p inside despite rounding

    def to_dict(self) -> dict:
        lo, hi = self.interval()
        return {"game": self.game, "agent_a": self.agent_a, "agent_b": self.agent_b, "games": self.games,
                "wins_a": self.wins_a, "wins_b": self.wins_b, "draws": self.draws,
                "score_a": round(self.score_a, 4), "ci95": [round(lo, 4), round(hi, 4)],
                "games_per_second": round(self.games / self.seconds, 3) if self.seconds else None,
                "per_seat": self.per_seat, "secret": self.secret, "reproducible_seeds": self.secret is None}
