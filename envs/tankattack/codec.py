"""The registry's hooks for Tank Attack (cardwar/games.py): records, log lines and views as messages.

Nothing is hidden (RULES.md 18), so the log is the engine's own event lines, a view is the whole state
less the dice, and the public set-up of ``new_game`` is the scenario itself: the map and both armies.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar.envs.tankattack.observation import encode_observation
from cardwar.envs.tankattack.scenario import Scenario, scenario_from_dict
from cardwar.envs.tankattack.view import TankView


def before_move(state: Any) -> tuple[list[str], int]:
    """What :func:`narrate` needs of the state before a move: the bound's event list (the object itself: the
    engine appends to it until the next bound starts a new list) and its length."""
    return state.events, len(state.events)


def narrate(before: tuple[list[str], int], action: int, after: Any) -> list[str]:
    """The public log lines of one move: the events it caused, in order (RULES.md 6's sequence), those of
    a bound it closed included."""
    events, n = before
    lines = list(events[n:])
    if after.events is not events:
        lines += after.events
    return lines


def scenario_to_record(state: Any) -> dict:
    """The scenario as played, for a record's ``scenario_data`` (a generated map is not a shipped name)."""
    return state.scenario.to_dict()


def scenario_from_record(data: dict) -> Scenario:
    """The :class:`Scenario` a record's ``scenario_data`` holds."""
    return scenario_from_dict(data)


def view_to_dict(view: TankView) -> dict[str, Any]:
    """A view as an engine message: the seat and the state's public fields (JSON-ready)."""
    return {"seat": view.seat, **view.data}


def view_from_message(d: dict[str, Any], setup: Any = None, rules: Any = None) -> TankView:
    """The inverse of :func:`view_to_dict` (for an agent served as an engine)."""
    data = {k: v for k, v in d.items() if k != "seat"}
    return TankView(d.get("seat"), data)


def public_setup(view: TankView) -> dict[str, Any]:
    """``new_game``'s public set-up: the scenario (map, turn limit and both armies: nothing is hidden)."""
    return {"scenario": view.data["scenario"]}


def encode_view(view: TankView) -> np.ndarray:
    """The env's observation from a view."""
    return encode_observation(view)
