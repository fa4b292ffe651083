"""SelfPlayEnv: one seat of a cardwar game as a single-agent gymnasium env, the opponent played inside it.

This module's docstring is the env's documentation page (``help(cardwar.training.selfplay_env)``).
It is the env ``cardwar train`` trains on, and a public one for any gymnasium or
stable-baselines3 user::

    import gymnasium
    import cardwar.training                      # registers the ids below

    env = gymnasium.make("cardwar/NavalSelfPlay-v0", opponent="heuristic")
    env = gymnasium.make("cardwar/HexwarSelfPlay-v0", scenario="random:train", opponent="random")
    # or directly: cardwar.training.SelfPlayEnv("naval", opponent="heuristic")

    from sb3_contrib import MaskablePPO
    MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32).learn(64)  # legal moves through action_masks()

=================  ===================================================================================
ids                ``cardwar/NavalSelfPlay-v0`` (``game="naval"``: naval-v0's whole moves),
                   ``cardwar/NavalStepsSelfPlay-v0`` (``game="naval", actions="steps"``: naval-v1's
                   steps; another action space, not a newer version, so it has its own name),
                   ``cardwar/HexwarSelfPlay-v0`` (``game="hexwar"``), ``cardwar/SkirmishSelfPlay-v0``
                   (``game="skirmish"``: the squad skirmish's steps), ``cardwar/TankattackSelfPlay-v0``
                   (``game="tankattack"``: the WW1 trench game's steps). ``cardwar/NavalSelfPlay-v1``,
                   the steps form's first name, still makes ``NavalStepsSelfPlay-v0`` (with a
                   DeprecationWarning); none of the others warns.
arguments          ``scenario`` (hexwar, skirmish, tankattack: a name, a ``.yaml`` path, ``random``, ``random:train``
                   or ``random:test``, or a mix such as ``random:train*12,duel``), ``rules`` (rule options, see each game's RULES.md), ``opponent``,
                   ``render_mode``, ``actions`` (``moves``, or ``steps`` for naval-v1)
observation space  naval: ``Box(0, 1, (587,), float32)`` (steps: ``(690,)``, with the pending step); hexwar:
                   ``Box(0, 1, (59, 10, 12), float32)``; skirmish: ``Box(0, 1, (16, 24, 221), float32)``
                   (channels-last). The learner seat's own observation tensor, built
                   from its information view only (no hidden card or unit), as in the PettingZoo envs
                   ``cardwar/naval-v0``, ``cardwar/naval-v1`` and ``cardwar/hexwar-v0``, whose pages
                   (``help(cardwar.envs.naval_v0)``, ...) list every feature and plane.
action space       naval: ``Discrete(3029)`` (steps: ``Discrete(113)``, a deploy is a card then a zone, an
                   attack a line then a card; opponents still play whole moves); hexwar:
                   ``Discrete(843)``; skirmish: ``Discrete(420)`` (each step of a decision: a figure's
                   mode, its hex, its stance...); every id range is on the PettingZoo env's page.
legal moves        ``action_masks()``: a bool array over the action space, exact; all False once the
                   game is over. Through gymnasium's wrappers, ``env.unwrapped.action_masks()``
                   (MaskablePPO finds it by itself). The same array is ``info["action_mask"]`` after
                   every ``reset`` and ``step``, so a gymnasium vector env stacks it into
                   ``infos["action_mask"]``.
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
info               ``seat``, ``opponent`` and ``action_mask`` after ``reset``; ``action_mask`` after each
                   step, and ``result`` at the end of a game.
render modes       ``metadata["render_modes"]`` is exactly the game's: naval ``ansi``, ``human``;
                   hexwar ``ansi``, ``rgb_array``, ``human`` (``human`` prints the text after each
                   ``reset`` and ``step``). All from the learner's side: what its seat may see.
=================  ===================================================================================

Same seed, same episode: ``reset(seed=s)`` seeds the deal or map, the seat and the opponent.

**Vector envs, autoreset and masks.** gymnasium's vector envs reset a finished sub-env in
one of two ways (``gymnasium.vector.AutoresetMode``):

- ``NEXT_STEP`` (gymnasium's default for ``SyncVectorEnv`` / ``AsyncVectorEnv``): the step that
  ends a game returns its last observation, and the sub-env is reset on the *next* ``step``,
  whose action is ignored. Between the two, the sub-env's mask (``infos["action_mask"]``,
  ``call("action_masks")``) is all False: a policy that sets masked logits to ``-inf`` then
  takes a softmax over nothing but ``-inf`` and gives NaNs. Skip those rows, or
- ``SAME_STEP``: the step that ends a game resets it at once; the game's last observation
  and info are in ``infos["final_obs"]`` / ``infos["final_info"]``, and the observation and
  mask returned are the new game's, so every mask has a legal action. **This is the default
  of our vector entry point**::

    import gymnasium
    import numpy as np
    import cardwar.training

    envs = gymnasium.make_vec("cardwar/NavalSelfPlay-v0", num_envs=2)  # SyncVectorEnv, SAME_STEP
    obs, infos = envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(10):
        actions = [rng.choice(np.flatnonzero(mask)) for mask in infos["action_mask"]]
        obs, rewards, terminations, truncations, infos = envs.step(np.array(actions))
    envs.close()

  ``gymnasium.make_vec(id, n, vectorization_mode="sync", vector_kwargs={"autoreset_mode":
  gymnasium.vector.AutoresetMode.SAME_STEP})`` is the same by hand, and ``autoreset_mode=`` /
  ``asynchronous=True`` can be given to ``make_vec`` for ours. stable-baselines3's own vector
  envs (what ``cardwar train`` uses) always reset in the same step.

Version history: v0 (first public version); ``NavalSelfPlay-v1`` (naval-v1's factored steps),
renamed ``NavalStepsSelfPlay-v0`` (the old id still works); ``metadata`` lists each game's own
render modes, ``human`` added; ``info["action_mask"]``; ``make_vec`` resets in the same step.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import dataclasses
import warnings

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AsyncVectorEnv, AutoresetMode, SyncVectorEnv, VectorEnv

from cardwar.training.scenario_mix import make_env as make_raw_env
from cardwar.training.opponents import OpponentPool


Request = tuple[dict[str, np.ndarray], Any]
"""One opponent decision: the observation of the opponent's seat (``observation`` and ``action_mask``) and its
information view, the two arguments of an agent's ``act``."""


def play_out(moves: Generator[Request, int, Any], act: Callable[[Request], int]) -> Any:
    """Run a :meth:`SelfPlayEnv.reset_moves` / :meth:`~SelfPlayEnv.step_moves` generator to its end, each
    opponent decision answered by ``act``; its return value."""
    try:
        request = next(moves)
        while True:
            request = moves.send(act(request))
    except StopIteration as done:
        return done.value


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
    """One seat of ``game`` (a name :mod:`cardwar.games` holds: "naval", "hexwar", "skirmish" or a plug-in's)
    against ``opponent``; see the module docstring for the page. Everything game-specific comes from the
    registry entry's env (its spaces, render modes, engine), so a new game needs no edit here.

    ``pool`` is the older name of ``opponent`` (an :class:`OpponentPool`), kept for callers that use it.
    """

    # Every game's modes, for gymnasium.make's check of the class; an instance lists its own game's exactly.
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 4}
    _handed: tuple[str, tuple] | None = None  # see hand_over (a class default: envs pickled before it load)

    def __init__(self, game: str = "naval", scenario: str | None = None, rules: dict | None = None,
                 opponent: str | OpponentPool = "random", render_mode: str | None = None,
                 pool: OpponentPool | None = None, actions: str = "moves") -> None:
        self.game = game
        self.aec = make_raw_env(game, scenario, rules, actions)
        self.steps = actions == "steps"  # naval-v1: the learner acts in steps; opponents play whole moves
        modes = list(self.aec.metadata.get("render_modes", []))
        self.metadata = {"render_modes": modes, "render_fps": self.aec.metadata.get("render_fps", 4)}
        if render_mode is not None and render_mode not in modes:
            raise ValueError(f"render_mode {render_mode!r} is not one of {modes} for {game}")
        self.render_mode = render_mode
        self.aec.render_mode = "ansi" if render_mode == "human" else render_mode  # human: printed here, once a call
        self.agents = self.aec.possible_agents
        first = self.aec.observation_space(self.agents[0])
        self.observation_space = first["observation"]
        n_actions = int(self.aec.action_space(self.agents[0]).n)
        self.action_space = spaces.Discrete(n_actions)
        chosen = pool if pool is not None else opponent
        self.pool: Any = _SingleOpponent(game, chosen) if isinstance(chosen, str) else chosen
        self.seat = 0
        self.opponent: Any = None
        self.opponent_name = ""
        self._mask = np.zeros(n_actions, dtype=bool)
        self._over = False

    # -------------------------------------------------------------- pool control (env_method)
    def set_pool(self, snapshots: list[str], mix: dict[str, float]) -> None:
        """Called from the trainer: the snapshot files and the weights now in force."""
        self.pool.update(snapshots, mix)

    # -------------------------------------------------------------- gymnasium API
    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """A new game: a seat and an opponent are drawn, and the opponent moves until it is the learner's turn."""
        if self._handed is not None:
            return self._take_handed("reset")
        return play_out(self.reset_moves(seed=seed, options=options), self.opponent_act)

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's move, then the opponent's until the learner's turn or the end of the game."""
        if self._handed is not None:
            return self._take_handed("step")
        return play_out(self.step_moves(action), self.opponent_act)

    # -------------------------------------------------------------- the same, one opponent move at a time
    def reset_moves(self, *, seed: int | None = None,
                    options: dict | None = None) -> Generator[Request, int, tuple[np.ndarray, dict]]:
        """:meth:`reset` as a generator: it yields each opponent decision (``(observation, view)`` of the
        opponent's seat), is sent the opponent's action, and returns what :meth:`reset` returns. A driver
        that holds many envs (:mod:`cardwar.training.batched_vec_env`) answers several at once."""
        super().reset(seed=seed)
        self._over = False
        while True:
            self.aec.reset(seed=int(self.np_random.integers(2**31)))
            self.seat = int(self.np_random.integers(2))
            self.aec.render_viewer = self.agents[self.seat]
            self.opponent_name, self.opponent = self.pool.draw(self.np_random)
            yield from self._opponent_moves()
            if not self.aec.game.is_terminal():
                break
        obs = self._observe()
        self._render_human()
        return obs, {"seat": self.seat, "opponent": self.opponent_name, "action_mask": self._mask}

    def step_moves(self, action: int) -> Generator[Request, int, tuple[np.ndarray, float, bool, bool, dict]]:
        """:meth:`step` as a generator, like :meth:`reset_moves`."""
        state = self.aec.game
        if self._over or state.is_terminal():
            raise RuntimeError("step() called after the game ended; reset() first")
        action = int(action)
        if not (0 <= action < self._mask.size and self._mask[action]):
            # As PettingZoo's classic envs do: an illegal move loses the game (masked agents never make one).
            self._over = True
            self._mask = np.zeros_like(self._mask)
            info = {"seat": self.seat, "opponent": self.opponent_name, "result": -1.0,
                    "illegal_action": action, "action_mask": self._mask}
            return self.aec.observe(self.agents[self.seat])["observation"], -1.0, True, False, info
        self.aec.step(action)
        yield from self._opponent_moves()
        obs = self._observe()
        if state_done := self.aec.game.is_terminal():
            reward = float(self.aec.game.returns()[self.seat])  # also when the opponent's move ended it
            info = {"seat": self.seat, "opponent": self.opponent_name, "result": reward, "action_mask": self._mask}
        else:
            reward, info = 0.0, {"action_mask": self._mask}
        self._render_human()
        return obs, reward, state_done, False, info

    def opponent_act(self, request: Request) -> int:
        """The opponent drawn for this episode decides ``request`` (its seat's observation and view)."""
        return self.opponent.act(*request)

    def hand_over(self, kind: str, result: tuple) -> None:
        """What a driver played out through :meth:`reset_moves` or :meth:`step_moves` (``kind`` "reset" or
        "step"): the next :meth:`reset` or :meth:`step` returns it as it is, so that the wrappers around this
        env (``Monitor``) see an ordinary call."""
        self._handed = (kind, result)

    def _take_handed(self, kind: str) -> tuple:
        handed, self._handed = self._handed, None
        if handed[0] != kind:
            raise RuntimeError(f"{kind}() called while a {handed[0]}'s result was handed over")
        return handed[1]

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions (all False once the game is over)."""
        return self._mask

    def render(self) -> str | np.ndarray | None:
        """The game from the learner's side: text (``ansi``), a picture (``rgb_array``); ``human`` prints it."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        if self.render_mode == "human":
            print(self.aec.render() + "\n")
            return None
        return self.aec.render()

    def _render_human(self) -> None:
        if self.render_mode == "human":
            self.render()

    # -------------------------------------------------------------- internals
    def _opponent_moves(self) -> Generator[Request, int, None]:
        """The opponent's moves until the learner's turn or the end: each decision is yielded, its action sent in."""
        aec = self.aec
        other = self.agents[1 - self.seat]
        while not aec.game.is_terminal() and aec.game.current_player != self.seat:
            if self.steps:  # naval-v1's learner: the opponent still plays whole moves
                aec.step_move((yield aec.observe_move(other), aec.view(other)))
            else:
                aec.step((yield aec.observe(other), aec.view(other)))

    def _observe(self) -> np.ndarray:
        obs = self.aec.observe(self.agents[self.seat])
        self._mask = obs["action_mask"].astype(bool)
        return obs["observation"]


def game_id(game: str, actions: str = "moves") -> str:
    """The gymnasium id of ``game``'s self-play env: ``cardwar/<Name>SelfPlay-v0`` (naval -> NavalSelfPlay-v0), and
    for another action space of its registry entry ``cardwar/<Name><Space>SelfPlay-v0`` (NavalStepsSelfPlay-v0)."""
    space = "" if actions == "moves" else actions.capitalize()
    return f"cardwar/{game.capitalize()}{space}SelfPlay-v0"


def ids() -> dict[str, dict[str, str]]:
    """The ids :func:`register` registers and the arguments each gives :class:`SelfPlayEnv`: one per game the
    registry holds now and action space its entry lists (:func:`game_id`)."""
    from cardwar import games

    found: dict[str, dict[str, str]] = {}
    for name in games.names():
        for actions in games.get(name).action_spaces():
            found[game_id(name, actions)] = {"game": name} if actions == "moves" else {"game": name, "actions": actions}
    return found


IDS: dict[str, dict[str, str]] = ids()
"""The ids registered on import (the shipped games and installed plug-ins); :func:`register` again adds those
of games registered since."""

RENAMED = {"cardwar/NavalSelfPlay-v1": "cardwar/NavalStepsSelfPlay-v0"}
"""Old ids that still make the env of their new name."""


def vector_env(num_envs: int = 1, autoreset_mode: AutoresetMode | str = AutoresetMode.SAME_STEP,
               asynchronous: bool = False, **kwargs: Any) -> VectorEnv:
    """``num_envs`` :class:`SelfPlayEnv` (``kwargs``) in gymnasium's Sync (or Async) vector env.

    The vector entry point of the registered ids, so ``gymnasium.make_vec(id, n)`` comes here; it
    resets a finished game in the same step (``SAME_STEP``), so every mask it returns has a legal
    action (see the module docstring on the two modes)."""
    fns = [lambda: SelfPlayEnv(**kwargs) for _ in range(num_envs)]
    cls = AsyncVectorEnv if asynchronous else SyncVectorEnv
    return cls(fns, autoreset_mode=AutoresetMode(autoreset_mode))


def _renamed(new_id: str, old_id: str) -> Any:
    def make(**kwargs: Any) -> SelfPlayEnv:
        warnings.warn(f"{old_id} is now {new_id}", DeprecationWarning, stacklevel=3)
        return SelfPlayEnv(**kwargs)

    make.__name__ = make.__qualname__ = f"renamed_{new_id.split('/')[-1].replace('-', '_')}"
    return make


def register() -> None:
    """Register the self-play ids (:func:`ids`, and the old names in :data:`RENAMED`) with gymnasium (on import;
    again after a plug-in game is registered, for its id)."""
    for env_id, kwargs in ids().items():
        if env_id not in gymnasium.registry:
            gymnasium.register(id=env_id, entry_point="cardwar.training.selfplay_env:SelfPlayEnv",
                               vector_entry_point="cardwar.training.selfplay_env:vector_env",
                               kwargs=kwargs, disable_env_checker=False)
    for old_id, new_id in RENAMED.items():
        # Stored under the old key with the new id inside: gymnasium then sees no second version of
        # NavalSelfPlay, so making cardwar/NavalSelfPlay-v0 does not warn that it is out of date.
        if old_id not in gymnasium.registry:
            gymnasium.registry[old_id] = dataclasses.replace(gymnasium.registry[new_id],
                                                             entry_point=_renamed(new_id, old_id))
