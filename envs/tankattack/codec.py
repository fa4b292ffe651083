"""The registry's hooks for Tank Attack (cardwar/games.py): records, log lines and views as messages.

Nothing is hidden (RULES.md 18), so the log is the engine's own event lines, a view is the whole state
less the dice, and the public set-up of ``new_game`` is the scenario itself: the map and both armies.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from cardwar.envs.tankattack.actions import action_to_string
from cardwar.envs.tankattack.observation import encode_observation
from cardwar.envs.tankattack.scenario import SIDE_NAMES, Scenario, scenario_from_dict
from cardwar.envs.tankattack.view import TankView


class BeforeMove(NamedTuple):
    """What the notation hooks read of the position before a move (the registry's ``before_move``)."""

    current_player: int | None
    events: list[str]
    """The bound's event list, the object itself: the engine appends to it until the next bound starts a
    new list, so the events of a bound that the move closed are still read from it."""
    count: int


def before_move(state: Any) -> BeforeMove:
    return BeforeMove(state.current_player, state.events, len(state.events))


def narrate(before: Any, action: int, after: Any) -> list[str]:
    """The public log lines of one move: first the move itself (``attacker: E7``), then the events it caused,
    in order (RULES.md 6's sequence), those of a bound it closed included. The first line is the move, as in
    every game's log: the table gives the mover its own notation in its place and keeps the rest. ``before``
    is a :class:`BeforeMove` (or a whole state, whose own events list then stands for the bound's: the
    closing events of a bound are not in it)."""
    move = f"{SIDE_NAMES[before.current_player]}: {action_to_string(int(action))}"
    if not isinstance(before, BeforeMove):  # a whole state: its events list is a copy
        return [move, *(after.events[len(before.events):] if after.bound == before.bound else after.events)]
    lines = [move, *before.events[before.count:]]
    if after.events is not before.events:
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


def public_setup(view: Any) -> dict[str, Any]:
    """``new_game``'s public set-up: the scenario (map, turn limit and both armies: nothing is hidden), from
    a view or from the state itself (the server's map)."""
    return {"scenario": view.data["scenario"] if isinstance(view, TankView) else view.scenario.to_dict()}


def encode_view(view: TankView) -> np.ndarray:
    """The env's observation from a view."""
    return encode_observation(view)
