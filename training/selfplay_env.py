"""A gymnasium single-agent view of a cardwar AEC env, for sb3-contrib's MaskablePPO.

Each episode the learner takes one seat at random; an opponent drawn from the
pool plays the other, inside :meth:`SelfPlayEnv.step`, until it is the
learner's turn again or the game is over. The learner is given every reward it
earns, *including the loss when the opponent's move ends the game*: PettingZoo's
SB3 tutorial returns only the reward of the learner's own last step and so
never shows the learner that a move let the opponent win.

The observation is the learner seat's observation tensor (its information view
only); :meth:`action_masks` gives the legal actions, as MaskablePPO asks. An
illegal action (which a masked agent never takes) loses the game at once, as
in PettingZoo's classic envs.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardwar.envs import make_raw_env
from cardwar.training.opponents import OpponentPool


class SelfPlayEnv(gymnasium.Env):
    """One seat of ``game`` against opponents from ``pool``."""

    metadata = {"render_modes": []}

    def __init__(self, game: str, scenario: str | None = None, rules: dict | None = None,
                 pool: OpponentPool | None = None) -> None:
        self.game = game
        self.aec = make_raw_env(game, scenario, rules)
        self.agents = self.aec.possible_agents
        first = self.aec.observation_space(self.agents[0])
        self.observation_space = first["observation"]
        self.action_space = spaces.Discrete(self.aec.NUM_ACTIONS)
        self.pool = pool if pool is not None else OpponentPool(game)
        self.seat = 0
        self.opponent: Any = None
        self.opponent_name = ""
        self._mask = np.zeros(self.aec.NUM_ACTIONS, dtype=bool)
        self._over = False

    # -------------------------------------------------------------- pool control (env_method)
    def set_pool(self, snapshots: list[str], mix: dict[str, float]) -> None:
        """Called from the trainer: the snapshot files and the weights now in force."""
        self.pool.update(snapshots, mix)

    # -------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        self._over = False
        while True:
            self.aec.reset(seed=int(self.np_random.integers(2**31)))
            self.seat = int(self.np_random.integers(2))
            self.opponent_name, self.opponent = self.pool.draw(self.np_random)
            self._play_opponent()
            if not self.aec.state.is_terminal():
                break
        return self._observe(), {"seat": self.seat, "opponent": self.opponent_name}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        state = self.aec.state
        if self._over or state.is_terminal():
            raise RuntimeError("step() called after the game ended; reset() first")
        action = int(action)
        if not (0 <= action < self._mask.size and self._mask[action]):
            # As PettingZoo's classic envs do: an illegal move loses the game (masked agents never make one).
            self._over = True
            self._mask = np.zeros_like(self._mask)
            info = {"seat": self.seat, "opponent": self.opponent_name, "result": -1.0,
                    "illegal_action": action}
            return self.aec.observe(self.agents[self.seat])["observation"], -1.0, True, False, info
        self.aec.step(action)
        self._play_opponent()
        if state_done := self.aec.state.is_terminal():
            reward = float(self.aec.state.returns()[self.seat])  # also when the opponent's move ended it
            info = {"seat": self.seat, "opponent": self.opponent_name, "result": reward}
        else:
            reward, info = 0.0, {}
        return self._observe(), reward, state_done, False, info

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the game is over)."""
        return self._mask

    # -------------------------------------------------------------- internals
    def _play_opponent(self) -> None:
        aec = self.aec
        other = self.agents[1 - self.seat]
        while not aec.state.is_terminal() and aec.state.current_player != self.seat:
            aec.step(self.opponent.act(aec.observe(other), aec.view(other)))

    def _observe(self) -> np.ndarray:
        obs = self.aec.observe(self.agents[self.seat])
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]
