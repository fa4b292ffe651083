"""What the web page needs of Tank Attack beyond the engine (the registry entry's ``extra["move_steps"]`` and
``extra["page_map"]``)."""

from __future__ import annotations

from typing import Any

from cardwar.envs.tankattack.board import parse_label


def move_steps(move: str, view: dict[str, Any]) -> list[str]:
    """The click of a Tank Attack answer (RULES.md 19: one small decision a step): a cell (``E7``: the element,
    the destination, the target, the aid, the combat, the placement) is a click on that cell of the grid (or the
    element standing there); the other answers (``face N``, ``end``, ``yes``, ``suppress``, ``enter gas``,
    ``counter-battery``, ``rally``, ``raid``, ``group``, ``mount``, ``dismount``) are buttons."""
    if " " in move or not move[:1].isalpha() or not move[1:].isdigit():
        return []
    try:
        parse_label(move)
    except ValueError:
        return []
    return [f"cell:{move}"]


def page_map(state: Any) -> dict[str, Any]:
    """The public set-up as the page draws it, from the spectator's view (nothing is hidden in this game, RULES.md
    18, but the page reads only what a seat is given): the scenario (map, turn limit, armies) and the element types'
    names, two-letter codes (as the text board's) and AP (3.5: the page counts each side's Lost AP against its break
    point, 17.2), so that the page keeps no table of its own."""
    from cardwar.envs.tankattack.elements import STATS, EType
    from cardwar.envs.tankattack.text import CODES, GENERAL

    data = state.information_view(None).data
    types = {t.name.lower(): {"name": STATS[t].name, "code": CODES[t], "ap": STATS[t].ap} for t in EType}
    return {"scenario": data["scenario"], "types": types, "general_code": GENERAL}
