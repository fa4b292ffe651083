"""The naval game's seat messages: a move as each seat may know it, and a view read back from JSON.

Used through the game registry (:mod:`cardwar.games`) by the arena's seat histories and by an
agent served over the engine protocol.
"""

from __future__ import annotations

from typing import Any

HIDDEN = "?"
"""What stands in a move's notation for a part the seat may not know (a face-down card)."""


def seen_notation(before: Any, action: int, after: Any, viewer: int) -> str:
    """``action`` in notation as ``viewer`` may know it after the move.

    The mover sees its move whole. The other captain sees face-down cards as :data:`HIDDEN`
    (``attack H>I broadside ?``, ``defend ?``: RULES.md, attacks and defences are played face
    down) and a mulligan choice made while it has yet to choose its own (``?``; both choices are
    shown once both are made).
    """
    from cardwar.envs.naval import action_to_string
    from cardwar.envs.naval.actions import DECODED, ActionKind
    from cardwar.envs.naval.state import Phase

    text = action_to_string(action)
    if viewer == before.current:
        return text
    a = DECODED[int(action)]
    if a.kind == ActionKind.ATTACK:
        return text.rsplit(" ", 1)[0] + " " + HIDDEN
    if a.kind == ActionKind.DEFEND:
        return f"defend {HIDDEN}"
    if a.kind in (ActionKind.KEEP, ActionKind.MULLIGAN) and after.phase == Phase.MULLIGAN:
        return HIDDEN
    return text


def view_from_message(d: dict, setup: Any, rules: Any) -> Any:
    """The :class:`NavalView` an engine ``move`` request carries (the game has no public map)."""
    from cardwar.envs.naval.view import NavalView

    return NavalView.from_dict(d, rules)
