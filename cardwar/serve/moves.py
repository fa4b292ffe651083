"""The legal moves as a client gets them: the id, the notation, and the clicks that make each.

``steps`` lets a front end build a move by clicking without knowing the rules: a
naval deploy is ``["card:4D", "zone:E"]`` (a card, then a zone), an attack
``["card:4D", "zone:E", "zone:F"]`` (the card, the attacking ship, the target), a
hex move or shot ``["unit:3", "hex:C4"]`` (the unit to act, then the hex), a skirmish
answer that names a hex (a destination, a target, the figure to activate, a mover to fire
at) ``["hex:C4"]``, its other answers (a mode, a stance, an action, done) buttons. Moves
that share their steps (an attack's style, a shot's ``/2`` slot, move versus shoot
into one hex) are told apart by their notation; moves with no steps (``pass``,
``keep``, ``evade``) are buttons.
"""

from __future__ import annotations

from typing import Any

from cardwar import games
from cardwar.engine.protocol import notation_table


def naval_steps(move: str) -> list[str]:
    """The clicks of a naval move (Actions: deploy, attack, defend; sinking a ship at a High Royal Flush)."""
    words = move.split()
    if words[0] == "deploy":
        return [f"card:{words[1]}", f"zone:{words[2]}"]
    if words[0] == "attack":
        src, dst = words[1].split(">")
        return [f"card:{words[3]}", f"zone:{src}", f"zone:{dst}"]
    if words[0] == "defend":
        return [f"card:{words[1]}"]
    if words[0] == "sink":
        return [f"zone:{words[1]}"]
    return []


def hex_steps(move: str, acting: int | None) -> list[str]:
    """The clicks of a hex move: the unit the card activated, then the hex it moves to, shoots or smokes."""
    words = move.split()
    if words[0] == "joint":
        words = words[1:]
    if words[0] in ("move", "shoot", "smoke") and acting is not None:
        return [f"unit:{acting}", f"hex:{words[1].split('/')[0]}"]
    return []


def skirmish_steps(move: str) -> list[str]:
    """The click of a skirmish answer (RULES.md §9.1: one small step a decision): a hex label is a click on the
    hex (or the figure standing there); a choice's name (``walk``, ``prone``, ``done``) is a button."""
    return [f"hex:{move}"] if move[:1].isupper() and move[1:].isdigit() else []


STEPS = {"naval": lambda move, view: naval_steps(move),
         "hexwar": lambda move, view: hex_steps(move, view.get("acting")),
         "skirmish": lambda move, view: skirmish_steps(move)}
"""The clicks of each game's moves, ``(notation, view dict) -> steps``; a game's registry entry may give its own
as ``extra["move_steps"]``; a game with neither has buttons only."""


def legal_moves(game: str, view_dict: dict[str, Any], legal: list[int]) -> list[dict[str, Any]]:
    """``[{"id", "move", "steps"}]`` for the legal action ids of the seat to move."""
    names = notation_table(game)
    hook = games.get(game).extra.get("move_steps")
    steps = games.resolve(hook) if hook is not None else STEPS.get(game, lambda move, view: [])
    return [{"id": a, "move": names[a], "steps": steps(names[a], view_dict)} for a in legal]
