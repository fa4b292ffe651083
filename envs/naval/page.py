"""What the web page needs of naval beyond the engine (the registry entry's ``extra["move_steps"]``)."""

from __future__ import annotations

from typing import Any


def move_steps(move: str, view: dict[str, Any]) -> list[str]:
    """The clicks of a naval move (RULES.md, Actions: deploy, attack, defend; sinking a ship at a High Royal
    Flush): a deploy is ``["card:4D", "zone:E"]``, an attack ``["card:4D", "zone:E", "zone:F"]`` (the card, the
    attacking ship, the target), a defence the card; moves with no steps (``pass``, ``keep``) are buttons."""
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
