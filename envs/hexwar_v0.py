# noqa: D212, D415
"""
# Hex WW2 card activation, PettingZoo AEC

| Import             | `from envs import hexwar_v0`                                   |
|--------------------|----------------------------------------------------------------|
| Registered id      | `cardwar/hexwar-v0`                                            |
| Actions            | Discrete(843)                                                  |
| Agents             | `agents = ['blue', 'red']`                                     |
| Observation shape  | `observation`: (59, 10, 12) float32 in [0, 1]; `action_mask`: (843,) int8 |

A One-Hour-Wargames-style WW2 game on a hex grid: each turn a playing card is
dealt face up per unit, units act from King down to Ace, and a D3 decides
combat (rules: `envs/hexwar/RULES.md`). The agent to act is the side of the
unit whose card is up, or the side deciding on evasive action.

## Observation
`{"observation", "action_mask"}`. The observation is 59 planes over the fixed
12 x 10 grid (rows x columns, odd-r layout): terrain, own and enemy units by
type, hits, activated, the unit to act, smoke, objectives, the rest of the
activation order, a pending shot, own hidden units, and whole-board facts as
constant planes (list: `envs.hexwar.observation.PLANES`). Built from the
side's information view: hidden enemy units never appear.

## Actions
One flat Discrete space (table: `envs/hexwar/actions.py`): move to a hex,
shoot at a unit of a hex, lay smoke, joint move / joint shoot (optional
rule), pass, evade, no evade. Notation: `move C4`, `shoot E5`, `shoot E5/2`,
`smoke D3`, `pass`, `evade`, `no evade`.

## Rewards
+1 / -1 at the end (objectives at the turn limit, or elimination), 0 for a draw.

## Arguments
`hexwar_v0.env(scenario="meeting_engagement", rules=None, render_mode=None,
render_viewer=None)`: `scenario` is a shipped name, a path to a YAML file, or
`"random"` (a new procedural scenario each reset, from the reset seed);
`rules` is a dict of `envs.hexwar.config.HexConfig` options; `render_viewer` is
`"blue"`, `"red"`, `None` (spectator) or `"omniscient"`.

## Version history
* v0: first release.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from envs.hexwar.actions import NUM_ACTIONS
from envs.hexwar.config import HexConfig
from envs.hexwar.observation import OBS_SHAPE, encode_observation
from envs.hexwar.scenario import Scenario, load_scenario
from envs.hexwar.state import HexIllegalActionError, HexState
from envs.hexwar.text import render_state
from envs.hexwar.view import HexView

AGENTS = ["blue", "red"]
DEFAULT_SCENARIO = "meeting_engagement"


def env(**kwargs: Any) -> AECEnv:
    """The hex env with PettingZoo's standard wrappers."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv, EzPickle):  # noqa: N801
    """The hex WW2 game as an AEC env; see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "hexwar_v0", "is_parallelizable": False,
                "render_fps": 2}

    def __init__(self, scenario: str | Scenario = DEFAULT_SCENARIO, rules: dict | HexConfig | None = None,
                 render_mode: str | None = None, render_viewer: str | None = None) -> None:
        EzPickle.__init__(self, scenario=scenario, rules=rules, render_mode=render_mode, render_viewer=render_viewer)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if render_viewer not in (None, "omniscient", *AGENTS):
            raise ValueError(f"render_viewer {render_viewer!r} must be one of {AGENTS}, None or 'omniscient'")
        self.config = rules if isinstance(rules, HexConfig) else HexConfig.from_dict(rules)
        self.random_scenarios = scenario == "random"
        self.fixed_scenario = None if self.random_scenarios else (
            scenario if isinstance(scenario, Scenario) else load_scenario(scenario))
        self.render_mode, self.render_viewer = render_mode, render_viewer
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        box = spaces.Dict({"observation": spaces.Box(0.0, 1.0, OBS_SHAPE, np.float32),
                           "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
        self.observation_spaces = {a: box for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seeder = np.random.default_rng()
        self.state: HexState | None = None
        self._mask_cache: tuple[int, np.ndarray] | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        game_seed = int(self._seeder.integers(2**63))
        if self.random_scenarios:
            from envs.hexwar.generator import generate_scenario

            scenario = generate_scenario(int(self._seeder.integers(2**31)))
        else:
            scenario = self.fixed_scenario
        self.state = HexState.new_game(scenario, self.config, game_seed)
        self._mask_cache = None
        self.agents = AGENTS[:]
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.state.current_player]

    @property
    def scenario(self) -> Scenario:
        return self.state.scenario

    def view(self, agent: str) -> HexView:
        """The information view of ``agent``."""
        return self.state.information_view(AGENTS.index(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        side = AGENTS.index(agent)
        s = self.state
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if side == s.current_player and not s.is_terminal():
            mask[s.legal_actions()] = 1
            self._mask_cache = (s.move_number, mask)
        return {"observation": encode_observation(s.information_view(side), s.scenario), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        action = int(action)
        cached = self._mask_cache
        # The mask computed for this very position already proves legality; otherwise the
        # engine checks and raises HexIllegalActionError with the reason.
        trusted = cached is not None and cached[0] == s.move_number and 0 <= action < NUM_ACTIONS \
            and cached[1][action] == 1
        s.apply_action(action, validate=not trusted)
        self._cumulative_rewards[agent] = 0.0
        if s.is_terminal():
            for a, r in zip(AGENTS, s.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
            self.infos = {a: {"result": copy.deepcopy(s.result)} for a in AGENTS}
        self._accumulate_rewards()
        self.agent_selection = AGENTS[s.current_player] if not s.is_terminal() else agent
        if self.render_mode == "human":
            self.render()

    def _viewer(self) -> int | str | None:
        v = self.render_viewer
        return AGENTS.index(v) if v in AGENTS else v

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "rgb_array":
            from envs.hexwar.picture import render_rgb

            return render_rgb(self.state, self._viewer())
        text = render_state(self.state, self._viewer())
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "HexIllegalActionError", "AGENTS"]
