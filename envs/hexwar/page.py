"""What the web page needs of the hex game beyond the engine (the registry entry's ``extra["move_steps"]`` and
``extra["page_map"]``)."""

from __future__ import annotations

from typing import Any


def move_steps(move: str, view: dict[str, Any]) -> list[str]:
    """The clicks of a hex move: the unit the card activated (the view's ``acting``), then the hex it moves to,
    shoots or smokes (``["unit:3", "hex:C4"]``); a shot's ``/2`` slot is told apart by its notation."""
    acting = view.get("acting")
    words = move.split()
    if words[0] == "joint":
        words = words[1:]
    if words[0] in ("move", "shoot", "smoke") and acting is not None:
        return [f"unit:{acting}", f"hex:{words[1].split('/')[0]}"]
    return []


def page_map(state: Any) -> dict[str, Any]:
    """The map as everyone may see it (terrain and objectives, never a unit: the spectator's view), with the
    victory condition in words (RULES.md section 9)."""
    from cardwar.envs.hexwar.scenario import victory_sentence

    scenario = state.information_view(None).map
    return {**scenario.to_dict(), "victory": victory_sentence(scenario.objectives, scenario.turns)}
