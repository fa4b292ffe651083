"""What the web page needs of the skirmish beyond the engine (the registry entry's ``extra["move_steps"]``)."""

from __future__ import annotations

from typing import Any


def move_steps(move: str, view: dict[str, Any]) -> list[str]:
    """The click of a skirmish answer (RULES.md §9.1: one small step a decision): a hex label is a click on the
    hex (or the figure standing there); a choice's name (``walk``, ``prone``, ``done``) is a button."""
    return [f"hex:{move}"] if move[:1].isupper() and move[1:].isdigit() else []
