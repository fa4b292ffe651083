"""The shared machinery of cardwar's AEC envs (pgx's idea: one base, thin games).

A game env names its agents, action count and observation shape, and supplies
four small hooks: make a state, encode one seat's observation, draw text and
(optionally) a picture. Everything else lives here once: spaces, seeding,
masks, the illegal-action policy, terminal rewards and rendering.

The engine contract the state must meet: ``current_player``, ``legal_actions()``,
``apply_action(action, validate=True)`` (raising a ValueError subclass with the
reason for an illegal action), ``is_terminal()``, ``returns()``, ``result``,
``information_view(seat)`` and ``move_number``.

The hex games play scenarios: :class:`ScenarioEnv` adds a fixed scenario (a shipped name, a path or a
scenario object) or a procedural one each reset (:data:`RANDOM_SPLITS`). :func:`render_frame` is the
render protocol every env of the package follows, the Parallel skirmish's included.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
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


AEC_LOOP = """for agent in env.agent_iter():
    obs, reward, termination, truncation, info = env.last()
    action = None if termination or truncation else env.action_space(agent).sample(obs["action_mask"])
    env.step(action)
print(env.render())"""
"""The usage pages' game loop (an env ``env`` just reset), put in for their ``{{AEC_LOOP}}`` marker."""

RANDOM_SPLITS: dict[str, int | None] = {"random": None, "random:train": 0, "random:test": 1}
"""Procedural scenarios: all of them, or one of two disjoint halves (even / odd generator seeds), so that
an agent trained on ``"random:train"`` can be tested on maps it never saw."""

GENERATOR_SEED_BITS = 63
"""A procedural map's generator seed is drawn from ``0 .. 2**63 - 1`` (each split has 2**62 of them): too many
maps to tabulate, so the public terrain cannot be looked up to find its seed. The seed makes only the public
map; what a seat may not know (hidden units, the forces' deployment) comes from a separate draw, the deal."""


def split_seed(seed: int, split: int | None) -> int:
    """The generator seed drawn for a split: even seeds train, odd seeds test."""
    return seed if split is None else (seed & ~1) | split


def copy_result(x: Any) -> Any:
    """A deep copy of a game's result: JSON-like data (dicts, lists, tuples, scalars) copied directly,
    anything else by :func:`copy.deepcopy` (equal to ``copy.deepcopy(x)``, in a fraction of its time)."""
    t = type(x)
    if t is dict:
        return {k: copy_result(v) for k, v in x.items()}
    if t is list:
        return [copy_result(v) for v in x]
    if t is tuple:
        return tuple(copy_result(v) for v in x)
    if t in _ATOMS:
        return x
    return copy.deepcopy(x)


_ATOMS = frozenset({str, int, float, bool, type(None)})


def render_frame(render_mode: str | None, text: Callable[[], str],
                 rgb: Callable[[], np.ndarray] | None = None) -> str | np.ndarray | None:
    """What ``render()`` gives in ``render_mode``: Gymnasium's warning and ``None`` without a mode, the
    picture for ``"rgb_array"``, the text for ``"ansi"``, the text printed (and ``None``) for ``"human"``."""
    if render_mode is None:
        import gymnasium

        gymnasium.logger.warn("You are calling render method without specifying any render mode.")
        return None
    if render_mode == "rgb_array" and rgb is not None:
        return rgb()
    frame = text()
    if render_mode == "human":
        print(frame + "\n")
        return None
    return frame


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
        joint = len(self.AGENTS) * int(np.prod(self.OBS_SHAPE))
        self.state_space = spaces.Box(0.0, 1.0, (joint,), np.float32)
        self.action_spaces = {a: spaces.Discrete(self.NUM_ACTIONS) for a in self.AGENTS}
        self._seeder = np.random.default_rng()
        self._mask_cache: tuple[int, list[int]] | None = None
        self.game: Any = None  # the rules engine's state (not ``state``: that is PettingZoo's ``state()``)

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
        self.game = self._new_state(self._seeder)
        self._mask_cache = None
        agents = self.AGENTS
        self.agents = agents[:]
        self.rewards = {a: 0.0 for a in agents}
        self._cumulative_rewards = {a: 0.0 for a in agents}
        self.terminations = {a: False for a in agents}
        self.truncations = {a: False for a in agents}
        self.infos = {a: {} for a in agents}
        self.agent_selection = agents[self.game.current_player]

    def state(self) -> np.ndarray:
        """PettingZoo's global state, for a centralised critic: every seat's observation, flattened and
        joined in seat order (``state_space``). It is what the seats know together; the deck order, the
        next card and future dice are in no seat's observation, so they are not here either."""
        if self.game is None:
            raise RuntimeError("call reset() before state()")
        return np.concatenate([self._encode(seat).ravel() for seat in range(len(self.AGENTS))])

    def view(self, agent: str) -> Any:
        """The information view of ``agent``: all it may know."""
        return self.game.information_view(self.AGENTS.index(agent))

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self.AGENTS.index(agent)
        s = self.game
        if seat == s.current_player and not s.is_terminal():
            legal = s.legal_actions()
            buf = bytearray(self.NUM_ACTIONS)  # a Python loop over a byte buffer: cheaper than numpy's list index
            for a in legal:
                buf[a] = 1
            mask = np.frombuffer(buf, dtype=np.int8)  # writable: the caller's own buffer
            self._mask_cache = (s.move_number, legal)  # legal_actions gives a fresh list, never shown to callers
        else:
            mask = np.zeros(self.NUM_ACTIONS, dtype=np.int8)
        return {"observation": self._encode(seat), "action_mask": mask}

    def step(self, action: int) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.game
        action = int(action)
        cached = self._mask_cache
        # The legal actions listed for this very position prove legality; otherwise the engine
        # checks, and an illegal action raises its error with the rule's reason.
        trusted = cached is not None and cached[0] == s.move_number and action in cached[1]
        s.apply_action(action, validate=not trusted)
        self._cumulative_rewards[agent] = 0.0
        if s.is_terminal():
            for a, r in zip(self.AGENTS, s.returns()):
                self.rewards[a] = r
                self.terminations[a] = True
            self.infos = {a: {"result": copy_result(s.result)} for a in self.AGENTS}
            self.agent_selection = agent
        else:
            self.agent_selection = self.AGENTS[s.current_player]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        viewer: int | str | None = self.render_viewer
        if viewer in self.AGENTS:
            viewer = self.AGENTS.index(viewer)  # type: ignore[arg-type]
        return render_frame(self.render_mode,
                            lambda: self._render_text(viewer) if self.game is not None else "(not reset)",
                            lambda: self._render_rgb(viewer))

    def close(self) -> None:
        pass


class ScenarioEnv(TurnBasedEnv):
    """A :class:`TurnBasedEnv` played on scenarios: a fixed one, or a procedural one each reset."""

    def _choose_scenario(self, scenario: Any, scenario_type: type, load: Callable[[str], Any]) -> None:
        """Set ``random_scenarios``, ``split`` and ``fixed_scenario`` (call from ``__init__``): a name of
        :data:`RANDOM_SPLITS` draws a new scenario each reset, a ``scenario_type`` is played as it is, and
        anything else is ``load``-ed (a shipped name or a path)."""
        self.random_scenarios = isinstance(scenario, str) and scenario in RANDOM_SPLITS
        self.split = RANDOM_SPLITS[scenario] if self.random_scenarios else None
        self.fixed_scenario = None if self.random_scenarios else (
            scenario if isinstance(scenario, scenario_type) else load(scenario))

    def _generate(self, seed: int, deal: int) -> Any:
        """The procedural scenario of generator seed ``seed`` (the public map) with what is hidden drawn from
        ``deal`` (hook for envs that allow ``"random"``)."""
        raise NotImplementedError

    def _draw_game(self, seeder: np.random.Generator) -> tuple[int, Any]:
        """The next game's seed and scenario, drawn from ``seeder`` in that order: the fixed scenario, or a
        procedural one: a generator seed in this env's split (:data:`GENERATOR_SEED_BITS`), which makes the
        public map, then the deal of what is hidden on it (hidden units, the forces' deployment). Both come
        from the reset seed (the dealer's keyed deal seed, ``cardwar.arena.seeds``), never from each other, so
        a map's generator seed, even if it were known, does not give its hidden forces."""
        game_seed = int(seeder.integers(2**63))
        if not self.random_scenarios:
            return game_seed, self.fixed_scenario
        seed = split_seed(int(seeder.integers(2**GENERATOR_SEED_BITS)), self.split)
        return game_seed, self._generate(seed, int(seeder.integers(2**63)))

    @property
    def scenario(self) -> Any:
        """The scenario of the current game."""
        return self.game.scenario
