"""What each seat sees of a move: its own moves in full notation, the other's as the public log tells them."""

from __future__ import annotations

from typing import Any

from cardwar import games


def visible_lines(game: str | games.Game, before: Any, action: int, after: Any) -> list[str]:
    """The public log lines of ``action`` (face-down cards unnamed, a hidden unit's pass not placed):
    the game's own ``narrate`` hook (:mod:`cardwar.games`)."""
    return games.get(game).hook("narrate")(before, action, after)
