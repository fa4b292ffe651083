"""The legal moves as a client gets them: the id, the notation, and the clicks that make each.

``steps`` lets a front end build a move by clicking without knowing the rules: each game's registry entry
gives its clicks as ``extra["move_steps"]``, ``(notation, view dict) -> ["card:4D", "zone:E"]`` (a card,
then a zone), ``["unit:3", "hex:C4"]`` (a unit, then a hex), ``["hex:C4"]``... Moves that share their steps
are told apart by their notation; moves with no steps (``pass``, ``keep``), and every move of a game whose
entry gives none, are buttons.
"""

from __future__ import annotations

from typing import Any

from cardwar import games
from cardwar.engine.protocol import notation_table


def _no_steps(move: str, view: dict[str, Any]) -> list[str]:
    return []


def legal_moves(game: games.Game, view_dict: dict[str, Any], legal: list[int]) -> list[dict[str, Any]]:
    """``[{"id", "move", "steps"}]`` for the legal action ids of the seat to move, in ``game`` (its registry
    entry, resolved once where the request named it)."""
    names = notation_table(game.name)
    hook = game.extra.get("move_steps")
    steps = games.resolve(hook) if hook is not None else _no_steps
    return [{"id": a, "move": names[a], "steps": steps(names[a], view_dict)} for a in legal]
