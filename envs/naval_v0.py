# noqa: D212, D415
"""
# Hit the Deck! (naval), PettingZoo AEC

| Import             | `from envs import naval_v0`                                   |
|--------------------|---------------------------------------------------------------|
| Registered id      | `cardwar/naval-v0` (`pettingzoo.make("aec", "cardwar/naval-v0")`) |
| Actions            | Discrete(3029)                                                |
| Parallel API       | No                                                            |
| Manual control     | `cardwar play naval`                                          |
| Agents             | `agents = ['captain_a', 'captain_b']`                         |
| Action shape       | (1,)                                                          |
| Observation shape  | `observation`: (587,) float32 in [0, 1]; `action_mask`: (3029,) int8 |

Two captains fight on a 3x3 Seemap with playing cards as ships; sea battles are
1- to 3-card poker hands (rules: `envs/naval/RULES.md`). Captain A's Seaports
are G H I (top), Captain B's A B C (bottom).

## Observation
A dict `{"observation", "action_mask"}` as in PettingZoo's classic envs. The
observation is encoded from the captain's information view only (own hand,
board, discards, mulligan-shown cards, counts, turn and phase, the public part
of a pending attack); layout in `envs/naval/observation.py`. The mask is exact:
1 for every legal action and only those.

## Actions
One flat Discrete space; table in `envs/naval/actions.py`: deploy (card x
Seazone), attack (line x style x face-down card), defend (card), nodefend, pass,
keep, mulligan, sink (Seazone). `envs.naval.action_to_string` and
`string_to_action` convert ids to the notation (`deploy 7H D`,
`attack E>F broadside 4D`, `defend 9S`, `nodefend`, `pass`).

## Rewards
+1 to the winner and -1 to the loser when the game ends, 0 each for a draw and
at every other step.

## Arguments
`naval_v0.env(render_mode=None, rules=None, render_viewer=None)`: `rules` is a
dict of rule options (`envs.naval.NavalConfig`); `render_viewer` is
`"captain_a"`, `"captain_b"`, `None` (a spectator who sees no hand) or
`"omniscient"` (both hands, for debugging).

In `raw_env` an illegal action raises `envs.naval.IllegalActionError`; `env()`
adds PettingZoo's standard wrappers, so an illegal action ends the game with
-1 for the offender, as in the classic envs.

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

from envs.naval import NUM_ACTIONS, IllegalActionError, NavalConfig, NavalState
from envs.naval.observation import OBS_SIZE, encode_observation
from envs.naval.render import render_state
from envs.naval.view import NavalView

AGENTS = ["captain_a", "captain_b"]


def env(**kwargs: Any) -> AECEnv:
    """The naval env with PettingZoo's standard wrappers (illegal move: -1 and the game ends)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    e = wrappers.OrderEnforcingWrapper(e)
    return e


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo naming)
    """Hit the Deck! as an AEC env; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "naval_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None, rules: dict | NavalConfig | None = None,
                 render_viewer: str | None = None) -> None:
        EzPickle.__init__(self, render_mode=render_mode, rules=rules, render_viewer=render_viewer)
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if render_viewer not in (None, "omniscient", *AGENTS):
            raise ValueError(f"render_viewer {render_viewer!r} must be one of {AGENTS}, None or 'omniscient'")
        self.config = rules if isinstance(rules, NavalConfig) else NavalConfig.from_dict(rules)
        self.render_mode, self.render_viewer = render_mode, render_viewer
        self.possible_agents = AGENTS[:]
        self.agents = AGENTS[:]
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in AGENTS}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in AGENTS}
        self._seeder = np.random.default_rng()
        self.state: NavalState | None = None

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ API
    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; the same ``seed`` gives the same deal. Unseeded resets
        continue the stream of the last seed."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        self.state = NavalState.new_game(self.config, int(self._seeder.integers(2**63)))
        self.agents = AGENTS[:]
        self.rewards = {a: 0.0 for a in AGENTS}
        self._cumulative_rewards = {a: 0.0 for a in AGENTS}
        self.terminations = {a: False for a in AGENTS}
        self.truncations = {a: False for a in AGENTS}
        self.infos = {a: {} for a in AGENTS}
        self.agent_selection = AGENTS[self.state.current_player]

    def view(self, agent: str) -> NavalView:
        """The information view of ``agent`` (what that captain may know)."""
        return self.state.information_view(AGENTS.index(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = AGENTS.index(agent)
        s = self.state
        mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
        if seat == s.current_player and not s.is_terminal():
            mask[s.legal_actions()] = 1
        return {"observation": encode_observation(s.information_view(seat)), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        s.apply_action(int(action))  # raises IllegalActionError with the rule's explanation
        self._cumulative_rewards[agent] = 0.0
        if s.is_terminal():
            for a, r in zip(AGENTS, s.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
            self.infos = {a: {"result": copy.deepcopy(s.result)} for a in AGENTS}
            self.agent_selection = AGENTS[s.current_player]
        self._accumulate_rewards()
        if not s.is_terminal():
            self.agent_selection = AGENTS[s.current_player]
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer: int | str | None = self.render_viewer
        if viewer in AGENTS:
            viewer = AGENTS.index(viewer)  # type: ignore[arg-type]
        text = render_state(self.state, viewer) if self.state is not None else "(not reset)"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


__all__ = ["env", "raw_env", "IllegalActionError", "AGENTS"]
