"""The legal moves as a client gets them: the id, the notation, and the clicks that make each.

``steps`` lets a front end build a move by clicking without knowing the rules: a
naval deploy is ``["card:4D", "zone:E"]`` (a card, then a zone), an attack
``["card:4D", "zone:E", "zone:F"]`` (the card, the attacking ship, the target), a
hex move or shot ``["unit:3", "hex:C4"]`` (the unit to act, then the hex). Moves
that share their steps (an attack's style, a shot's ``/2`` slot, move versus shoot
into one hex) are told apart by their notation; moves with no steps (``pass``,
``keep``, ``evade``) are buttons.
"""

from __future__ import annotations

from typing import Any

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


def legal_moves(game: str, view_dict: dict[str, Any], legal: list[int]) -> list[dict[str, Any]]:
    """``[{"id", "move", "steps"}]`` for the legal action ids of the seat to move."""
    names = notation_table(game)
    if game == "naval":
        return [{"id": a, "move": names[a], "steps": naval_steps(names[a])} for a in legal]
    acting = view_dict.get("acting")
    return [{"id": a, "move": names[a], "steps": hex_steps(names[a], acting)} for a in legal]
