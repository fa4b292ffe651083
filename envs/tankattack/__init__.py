"""The WW1 trench game (HitT "Tank Attack" v5.0): the pure rules engine (no gymnasium, pettingzoo or torch).

Quick use::

    from cardwar.envs.tankattack import TankState, load_scenario
    s = TankState.new_game(load_scenario("trench_raid"), seed=7)
    while not s.is_terminal():
        s.apply_action(s.legal_actions()[0])
    print(s.result)

Rules as implemented, and every reading of the seed: ``envs/tankattack/RULES.md``; what is not built yet:
the docstring of :mod:`cardwar.envs.tankattack.state`.
"""

from cardwar.envs.tankattack.actions import (
    CELL, COUNTER, DEPLOY, DISMOUNT, END, FACE, GROUP, MOUNT, NUM_ACTIONS, RAID, RALLY, SUPPRESS, YES,
    TankNotationError, action_to_string, string_to_action,
)
from cardwar.envs.tankattack.elements import STATS, EType
from cardwar.envs.tankattack.rules import TankAttackRules, TankAttackRulesError
from cardwar.envs.tankattack.scenario import (
    ATTACKER, DEFENDER, ElementSpec, Scenario, ScenarioError, available_scenarios, load_scenario, scenario_from_dict,
)
from cardwar.envs.tankattack.serialize import state_from_json, state_to_json
from cardwar.envs.tankattack.state import Stage, TankIllegalActionError, TankState
from cardwar.envs.tankattack.view import TankView

__all__ = [
    "ATTACKER", "CELL", "COUNTER", "DEFENDER", "DEPLOY", "DISMOUNT", "END", "FACE", "GROUP", "MOUNT", "NUM_ACTIONS",
    "RAID", "RALLY", "STATS", "SUPPRESS", "YES",
    "ElementSpec", "EType", "Scenario", "ScenarioError", "Stage", "TankAttackRules", "TankAttackRulesError",
    "TankIllegalActionError", "TankNotationError", "TankState", "TankView", "action_to_string",
    "available_scenarios", "load_scenario", "scenario_from_dict", "state_from_json", "state_to_json",
    "string_to_action",
]
