"""What each seat sees of a move: its own moves in full notation, the other's as the public log tells them."""

from __future__ import annotations

from typing import Any


def visible_lines(game: str, before: Any, action: int, after: Any) -> list[str]:
    """The public log lines of ``action`` (face-down cards unnamed, a hidden unit's pass not placed)."""
    if game == "naval":
        from cardwar.envs.naval.render import narrate
    elif game == "skirmish":
        from cardwar.envs.skirmish.notation import narrate  # type: ignore[assignment]
    else:
        from cardwar.envs.hexwar.text import narrate  # type: ignore[assignment]
    return narrate(before, action, after)
