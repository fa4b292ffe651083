"""The hex game's seat messages: the public map a game starts on, a view read back from JSON, and
the map a record keeps (a generated map is stored whole, so a record replays without the generator).

Used through the game registry (:mod:`cardwar.games`) by records and the engine protocol.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def public_setup(view: Any) -> dict:
    """The public map of the game (terrain and objectives, never a unit): ``new_game``'s ``scenario``."""
    return view.map.to_dict()


def read_setup(setup: Any) -> Any:
    """The public map ``new_game`` sent, read once a game (ValueError if there is none)."""
    from cardwar.envs.hexwar.view import public_map_from_dict

    if not isinstance(setup, dict):
        raise ValueError("new_game carries no scenario map")
    return public_map_from_dict(setup)


def view_from_message(d: dict, scenario: Any, rules: Any) -> Any:
    """The :class:`HexView` a ``move`` request carries, on the map :func:`read_setup` read."""
    from cardwar.envs.hexwar.view import HexView

    return HexView.from_dict(d, scenario, rules)


def encode_view(view: Any) -> np.ndarray:
    """The env's observation of ``view`` (hexwar-v0's planes)."""
    from cardwar.envs.hexwar.observation import encode_observation

    return encode_observation(view, view.map)


def scenario_to_record(state: Any) -> dict:
    """The map as played, for a record's ``scenario_data``."""
    return state.scenario.to_dict()


def scenario_from_record(data: dict) -> Any:
    """The :class:`Scenario` a record's ``scenario_data`` holds."""
    from cardwar.envs.hexwar.scenario import scenario_from_dict

    return scenario_from_dict(data, name=data.get("name", "scenario"), source="record scenario_data")
