"""The hex WW2 card-activation game: the pure rules engine (no gymnasium, pettingzoo or torch).

Quick use::

    from cardwar.envs.hexwar import HexState, load_scenario, action_to_string
    s = HexState.new_game(load_scenario("river_crossing"), seed=7)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    print(s.returns())

Rules as implemented, and every reading of the seed: ``envs/hexwar/RULES.md``.
"""

from cardwar.envs.hexwar.actions import (
    NUM_ACTIONS, HexAction, HexNotationError, Kind, action_to_string, encode, string_to_action,
)
from cardwar.envs.hexwar.config import HexConfig, HexConfigError
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.scenario import (
    Objective, Scenario, ScenarioError, UnitSpec, available_scenarios, load_scenario, scenario_from_dict,
)
from cardwar.envs.hexwar.serialize import state_from_json, state_to_json
from cardwar.envs.hexwar.state import HexIllegalActionError, HexPhase, HexState, card_order_key
from cardwar.envs.hexwar.terrain import Terrain
from cardwar.envs.hexwar.units import UnitType
from cardwar.envs.hexwar.view import HexView, UnitView

__all__ = [
    "NUM_ACTIONS", "HexAction", "HexConfig", "HexConfigError", "HexIllegalActionError", "HexNotationError",
    "HexPhase", "HexState", "HexView", "Kind", "Objective", "Scenario", "ScenarioError", "Terrain", "UnitSpec",
    "UnitType", "UnitView", "action_to_string", "available_scenarios", "card_order_key", "encode",
    "generate_scenario", "load_scenario", "scenario_from_dict", "state_from_json", "state_to_json",
    "string_to_action",
]
