"""The shared machinery of cardwar's AEC envs (pgx's idea: one base, thin games).

A game env names its agents, action count and observation shape, and supplies
four small hooks: make a state, encode one seat's observation, draw text and
(optionally) a picture. Everything else lives here once: spaces, seeding,
masks, the illegal-action policy, terminal rewards and rendering.

The engine contract the state must meet: ``current_player``, ``legal_actions()``,
``apply_action(action, validate=True)`` (raising a ValueError subclass with the
reason for an illegal action), ``is_terminal()``, ``returns()``, ``result``,
``information_view(seat)`` and ``move_number``.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers


def standard_wrappers(env: AECEnv) -> AECEnv:
    """PettingZoo's classic stack: an illegal action ends the game with -1 for the offender."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


class TurnBasedEnv(AECEnv):
    """Base of the game envs; subclasses set the class attributes and the hooks."""

    AGENTS: list[str] = []
    NUM_ACTIONS: int = 0
    OBS_SHAPE: tuple[int, ...] = ()

    def _setup(self, render_mode: str | None, render_viewer: str | None) -> None:
        """Validate the render options and build the spaces (call from ``__init__``)."""
        AECEnv.__init__(self)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        if render_viewer not in (None, "omniscient", *self.AGENTS):
            raise ValueError(f"render_viewer {render_viewer!r} must be one of {self.AGENTS}, None or 'omniscient'")
        self.render_mode, self.render_viewer = render_mode, render_viewer
        self.possible_agents = self.AGENTS[:]
        self.agents = self.AGENTS[:]
        box = spaces.Dict({"observation": spaces.Box(0.0, 1.0, self.OBS_SHAPE, np.float32),
                           "action_mask": spaces.Box(0, 1, (self.NUM_ACTIONS,), np.int8)})
        self.observation_spaces = {a: box for a in self.AGENTS}
        self.action_spaces = {a: spaces.Discrete(self.NUM_ACTIONS) for a in self.AGENTS}
        self._seeder = np.random.default_rng()
        self._mask_cache: tuple[int, np.ndarray] | None = None
        self.state: Any = None

    # ------------------------------------------------------------------ hooks
    def _new_state(self, seeder: np.random.Generator) -> Any:
        """A new game whose chance is drawn from ``seeder``."""
        raise NotImplementedError

    def _encode(self, seat: int) -> np.ndarray:
        """The observation tensor of ``seat``, built from its information view."""
        raise NotImplementedError

    def _render_text(self, viewer: int | str | None) -> str:
        raise NotImplementedError

    def _render_rgb(self, viewer: int | str | None) -> np.ndarray:
        raise NotImplementedError

    # ------------------------------------------------------------------ AEC API
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Start a new game; the same ``seed`` gives the same game. Unseeded resets
        continue the stream of the last seed."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        self.state = self._new_state(self._seeder)
        self._mask_cache = None
        agents = self.AGENTS
        self.agents = agents[:]
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: {} for a in agents}
        self.agent_selection = agents[self.state.current_player]

    def view(self, agent: str) -> Any:
        """The information view of ``agent``: all it may know."""
        return self.state.information_view(self.AGENTS.index(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.AGENTS.index(agent)
        s = self.state
        mask = np.zeros(self.NUM_ACTIONS, dtype=np.int8)
        if seat == s.current_player and not s.is_terminal():
            mask[s.legal_actions()] = 1
            self._mask_cache = (s.move_number, mask.copy())  # a private copy: callers may edit theirs
        return {"observation": self._encode(seat), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        action = int(action)
        cached = self._mask_cache
        # A mask computed for this very position proves legality; otherwise the engine
        # checks, and an illegal action raises its error with the rule's reason.
        trusted = (cached is not None and cached[0] == s.move_number and 0 <= action < self.NUM_ACTIONS
                   and cached[1][action] == 1)
        s.apply_action(action, validate=not trusted)
        self._cumulative_rewards[agent] = 0.0
        if s.is_terminal():
            for a, r in zip(self.AGENTS, s.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
            self.infos = {a: {"result": copy.deepcopy(s.result)} for a in self.AGENTS}
        self._accumulate_rewards()
        self.agent_selection = self.AGENTS[s.current_player] if not s.is_terminal() else agent
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        viewer: int | str | None = self.render_viewer
        if viewer in self.AGENTS:
            viewer = self.AGENTS.index(viewer)  # type: ignore[arg-type]
        if self.render_mode == "rgb_array":
            return self._render_rgb(viewer)
        text = self._render_text(viewer) if self.state is not None else "(not reset)"
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass
