"""SelfPlayEnv: one seat of a cardwar game as a single-agent gymnasium env, the opponent played inside it.

This is the env ``cardwar train`` trains on, and a public one for any gymnasium
or stable-baselines3 user::

    import gymnasium
    import cardwar.training                      # registers the ids below

    env = gymnasium.make("cardwar/NavalSelfPlay-v0", opponent="heuristic")
    env = gymnasium.make("cardwar/HexwarSelfPlay-v0", scenario="random:train", opponent="random")
    # or directly: cardwar.training.SelfPlayEnv("naval", opponent="heuristic")

    from sb3_contrib import MaskablePPO
    MaskablePPO("MlpPolicy", env).learn(10_000)  # reads the legal moves through action_masks()

=================  ===================================================================================
ids                ``cardwar/NavalSelfPlay-v0`` (``game="naval"``), ``cardwar/NavalSelfPlay-v1``
                   (``game="naval", actions="steps"``: naval-v1's steps), ``cardwar/HexwarSelfPlay-v0``
                   (``game="hexwar"``)
arguments          ``scenario`` (hexwar: a name, a ``.yaml`` path, ``random``, ``random:train`` or
                   ``random:test``), ``rules`` (rule options, see each game's RULES.md), ``opponent``,
                   ``render_mode``, ``actions`` (``moves``, or ``steps`` for naval-v1)
observation space  naval: ``Box(0, 1, (587,), float32)`` (v1: ``(690,)``, with the pending step); hexwar: ``Box(0, 1, (59, 10, 12), float32)``.
                   The learner seat's own observation tensor, built from its information view only
                   (no hidden card or unit), as in the PettingZoo envs ``cardwar/naval-v0`` and
                   ``cardwar/hexwar-v0``.
action space       naval: ``Discrete(3029)`` (v1: ``Discrete(113)``, steps of a move: a deploy is a card
                   then a zone, an attack a line then a card; opponents still play whole moves); hexwar: ``Discrete(843)``; the games' flat action tables
                   (``cardwar.envs.naval.action_to_string`` and the hex ``actions`` module).
legal moves        ``action_masks()``: a bool array over the action space, exact; all False once the
                   game is over. Through gymnasium's wrappers, ``env.unwrapped.action_masks()``
                   (MaskablePPO finds it by itself).
rewards            0 on every step but the last; the last gives the learner's result, +1 win, -1 loss,
                   0 draw, *also when the opponent's move ended the game* (PettingZoo's SB3 tutorial
                   returns only the reward of the learner's own last step). An illegal action loses
                   at once (-1, ``info["illegal_action"]``), as in PettingZoo's classic envs.
episode            one whole game; ``terminated`` at its end, never ``truncated``.
seat               drawn at random each ``reset`` (``info["seat"]``: 0 is the first seat, Captain A
                   or blue; 1 the second). The opponent's moves before the learner's first turn are
                   played inside ``reset``, and after each learner move inside ``step``.
opponent           an agent spec (``random``, the default; ``heuristic``; ``mcts:iterations=200``;
                   ``ppo:runs/.../final.zip``; see ``cardwar agents``), built each episode with a seed
                   drawn from the env's generator; or an :class:`~cardwar.training.opponents.OpponentPool`
                   (what ``cardwar train`` uses: frozen snapshots, heuristic and random by weights),
                   drawn each episode. ``info["opponent"]`` names the one met.
info               ``seat`` and ``opponent`` after ``reset``; ``result`` at the end of a game.
render modes       ``ansi`` (text) and ``rgb_array`` (hexwar only), from the learner's side: what its
                   seat may see.
=================  ===================================================================================

Same seed, same episode: ``reset(seed=s)`` seeds the deal or map, the seat and the opponent.

Version history: v0 (first public version); NavalSelfPlay-v1 (naval-v1's factored steps).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from cardwar.envs import make_raw_env
from cardwar.training.opponents import OpponentPool


class _SingleOpponent:
    """An opponent pool of one agent, named by its spec: built afresh each episode, seeded by the env."""

    def __init__(self, game: str, spec: str) -> None:
        from cardwar import agents

        agents.check_spec(spec, game)  # a mistake is one line now, not at the first reset
        self.game, self.spec = game, spec

    def update(self, snapshots: list[str], mix: dict[str, float]) -> None:
        raise ValueError(f"this env plays the fixed opponent {self.spec!r}; give it an OpponentPool to train "
                         "against a pool")

    def draw(self, rng: np.random.Generator) -> tuple[str, Any]:
        from cardwar import agents

        return self.spec, agents.make(self.spec, self.game, seed=int(rng.integers(2**31)))


class SelfPlayEnv(gymnasium.Env):
    """One seat of ``game`` ("naval" or "hexwar") against ``opponent``; see the module docstring for the page.

    ``pool`` is the older name of ``opponent`` (an :class:`OpponentPool`), kept for callers that use it.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, game: str = "naval", scenario: str | None = None, rules: dict | None = None,
                 opponent: str | OpponentPool = "random", render_mode: str | None = None,
                 pool: OpponentPool | None = None, actions: str = "moves") -> None:
        self.game = game
        self.aec = make_raw_env(game, scenario, rules, actions)
        self.steps = actions == "steps"  # naval-v1: the learner acts in steps; opponents play whole moves
        if render_mode is not None and render_mode not in self.aec.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.aec.metadata['render_modes']} "
                             f"for {game}")
        self.render_mode = render_mode
        self.aec.render_mode = render_mode
        self.agents = self.aec.possible_agents
        first = self.aec.observation_space(self.agents[0])
        self.observation_space = first["observation"]
        self.action_space = spaces.Discrete(self.aec.NUM_ACTIONS)
        chosen = pool if pool is not None else opponent
        self.pool: Any = _SingleOpponent(game, chosen) if isinstance(chosen, str) else chosen
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
        """A new game: a seat and an opponent are drawn, and the opponent moves until it is the learner's turn."""
        super().reset(seed=seed)
        self._over = False
        while True:
            self.aec.reset(seed=int(self.np_random.integers(2**31)))
            self.seat = int(self.np_random.integers(2))
            self.aec.render_viewer = self.agents[self.seat]
            self.opponent_name, self.opponent = self.pool.draw(self.np_random)
            self._play_opponent()
            if not self.aec.state.is_terminal():
                break
        return self._observe(), {"seat": self.seat, "opponent": self.opponent_name}

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's move, then the opponent's until the learner's turn or the end of the game."""
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

    def render(self) -> str | np.ndarray | None:
        """The game from the learner's side (``render_mode`` ``ansi`` or ``rgb_array``)."""
        if self.render_mode is None:
            return None
        return self.aec.render()

    # -------------------------------------------------------------- internals
    def _play_opponent(self) -> None:
        aec = self.aec
        other = self.agents[1 - self.seat]
        while not aec.state.is_terminal() and aec.state.current_player != self.seat:
            if self.steps:
                aec.step_move(self.opponent.act(aec.observe_move(other), aec.view(other)))
            else:
                aec.step(self.opponent.act(aec.observe(other), aec.view(other)))

    def _observe(self) -> np.ndarray:
        obs = self.aec.observe(self.agents[self.seat])
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]


def register() -> None:
    """Register ``cardwar/NavalSelfPlay-v0`` and ``cardwar/HexwarSelfPlay-v0`` with gymnasium (done on import)."""
    for env_id, kwargs in (("cardwar/NavalSelfPlay-v0", {"game": "naval"}),
                           ("cardwar/NavalSelfPlay-v1", {"game": "naval", "actions": "steps"}),
                           ("cardwar/HexwarSelfPlay-v0", {"game": "hexwar"})):
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="cardwar.training.selfplay_env:SelfPlayEnv",
                               kwargs=kwargs, disable_env_checker=False)
