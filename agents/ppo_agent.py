"""``ppo``: a MaskablePPO model trained by ``cardwar train``, playing from its seat's observation.

``ppo`` alone is the shipped model of the game (``agents/pretrained/<game>_ppo.zip``);
``ppo:PATH`` (or ``ppo:path=PATH,deterministic=false``) any saved model or checkpoint.
The model sees the observation tensor and the legal-action mask only, the same
as in training. Models are loaded once per process and shared.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from cardwar.agents.spec import AgentSpecError

PRETRAINED = Path(__file__).parent / "pretrained"


def pretrained_path(game: str) -> Path:
    """Where the shipped model of ``game`` lies."""
    return PRETRAINED / f"{game}_ppo.zip"


@contextmanager
def _legacy_module_names() -> Iterator[None]:
    """Let models saved by cardwar 0.1 (classes pickled as ``training.features.HexCNN``) load.

    Only names that are not importable are aliased, and only while loading.
    """
    import importlib

    added = []
    for old in ("training", "training.features"):
        if old not in sys.modules:
            sys.modules[old] = importlib.import_module("cardwar." + old)
            added.append(old)
    try:
        yield
    finally:
        for old in added:
            sys.modules.pop(old, None)


def _read(path: str) -> Any:
    from sb3_contrib import MaskablePPO

    with _legacy_module_names():
        model = MaskablePPO.load(path, device="cpu")
    model.policy.optimizer = None  # playing only: free the optimizer's moment estimates
    adopt = getattr(model.policy, "adopt_current_layout", None)
    if adopt is not None and adopt():  # saved with an older observation layout (the skirmish's before issue 28)
        model.observation_space = model.policy.observation_space
    return model


_LOADING = threading.Lock()


@lru_cache(maxsize=8)
def _load(path: str, mtime: float) -> Any:
    return _read(path)


def load_model(path: str | Path, game: str, cache: bool = True) -> Any:
    """The model at ``path``, checked to fit ``game``; clear errors for a wrong or missing file."""
    p = Path(path)
    if not p.is_file():
        hint = " (train one with `cardwar train`, or use the shipped `ppo`)" if game else ""
        raise AgentSpecError(f"ppo: no model file at {str(p)!r}{hint}")
    try:
        if cache:
            with _LOADING:  # one load of a model, however many threads ask for it at once
                model = _load(str(p.resolve()), p.stat().st_mtime)
        else:
            model = _read(str(p))
    except Exception as err:  # a zip that is not an SB3 model: say so, no traceback
        raise AgentSpecError(f"ppo: {str(p)!r} is not a MaskablePPO model saved by cardwar ({err})") from None
    if model_actions(model, game) is None:
        from cardwar.envs import make_raw_env

        env = make_raw_env(game)
        raise AgentSpecError(f"ppo: {str(p)!r} was trained for another game (observation "
                             f"{tuple(model.observation_space.shape)}, {getattr(model.action_space, 'n', '?')} "
                             f"actions; {game} has {tuple(env.OBS_SHAPE)}, {env.NUM_ACTIONS})")
    return model


def model_actions(model: Any, game: str) -> str | None:
    """``moves`` or ``steps`` (naval-v1): the action space ``model`` was trained on in ``game``; None if neither."""
    from cardwar import games
    from cardwar.envs import make_raw_env

    for actions in games.get(game).action_spaces():
        env = make_raw_env(game, actions=actions)
        if (getattr(model.action_space, "n", None) == env.NUM_ACTIONS
                and tuple(model.observation_space.shape) == tuple(env.OBS_SHAPE)):
            return actions
    return None


def step_choices(legal_moves: np.ndarray, pending: tuple[int, ...]) -> tuple[list[int], int | None]:
    """naval-v1: the legal next steps after ``pending`` among ``legal_moves`` (whole-move ids), and the move
    ``pending`` completes, if any (then there are no next steps: a move's steps are never a prefix of another's)."""
    from cardwar.envs.naval.steps import STEPS_OF

    n = len(pending)
    nexts: set[int] = set()
    for a in legal_moves:
        steps = STEPS_OF[a]
        if steps[:n] == pending:
            if len(steps) == n:
                return [], int(a)
            nexts.add(steps[n])
    return sorted(nexts), None


class PPOAgent:
    """Plays the model's most likely legal action (or samples it with ``deterministic=False``)."""

    def __init__(self, game: str, path: str | None = None, deterministic: bool = True,
                 seed: int | None = None, cache: bool = True, one_thread: bool = True) -> None:
        """``one_thread``: decide on one torch thread (the process's count restored after): a decision is one
        small forward pass, and on busy cores torch's threads stalled it for up to a second (issue 31)."""
        self.name = "ppo"
        self.path = str(path) if path else str(pretrained_path(game))
        self.model = load_model(self.path, game, cache=cache)
        self.steps = model_actions(self.model, game) == "steps"
        self.deterministic = bool(deterministic)
        self.rng = np.random.default_rng(seed)
        self.one_thread = bool(one_thread)

    @classmethod
    def from_model(cls, model: Any, deterministic: bool = True, seed: int | None = None) -> PPOAgent:
        """An agent over a model in memory (the learner during training)."""
        agent = cls.__new__(cls)
        agent.name, agent.path, agent.model = "ppo", "<in memory>", model
        agent.deterministic, agent.rng = bool(deterministic), np.random.default_rng(seed)
        agent.steps = getattr(model.action_space, "n", None) == _naval_steps()
        agent.one_thread = False  # the learner's process keeps its own thread count
        return agent

    def prepare(self, observation: dict[str, np.ndarray], view: Any = None) -> None:
        """Do before a clock runs what the first move would do lazily (torch's first forward pass): one
        greedy pass over ``observation``, answer discarded, no randomness used (issue 28)."""
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():  # not this seat's turn: any mask will do for a forward pass
            mask = np.ones_like(mask)
        saved, self.deterministic = self.deterministic, True
        try:
            self.act({"observation": observation["observation"], "action_mask": mask}, view)
        finally:
            self.deterministic = saved

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        mask = np.asarray(observation["action_mask"], dtype=bool)
        if not mask.any():
            raise ValueError("no legal action in the mask")
        if self.steps:
            return self._act_in_steps(np.asarray(observation["observation"], dtype=np.float32), mask)
        return self._choose(observation["observation"], mask)

    def _choose(self, obs: np.ndarray, mask: np.ndarray) -> int:
        """The model's action for one observation and mask: SB3's masked probabilities, bit for bit, without
        its overhead (:mod:`cardwar.training.fast_inference`)."""
        from cardwar.training.fast_inference import fast_actor, one_thread

        actor = fast_actor(self.model.policy)
        if getattr(self, "one_thread", True):  # an agent pickled before issue 31 (a resume file) has no flag
            with one_thread():
                probs = actor.probs(obs, mask)
        else:
            probs = actor.probs(obs, mask)
        if self.deterministic:
            return int(np.argmax(np.where(mask, probs, -1.0)))
        probs = np.where(mask, probs, 0.0)
        return int(self.rng.choice(probs.size, p=probs / probs.sum()))

    def _act_in_steps(self, flat_obs: np.ndarray, move_mask: np.ndarray) -> int:
        """A naval-v1 model in a game of whole moves: it chooses the move's steps one by one, each from
        naval-v1's observation (the move's observation and the steps taken), as it did in training."""
        from cardwar.envs.naval_v1 import OBS_SIZE, PENDING_OFFSET, write_pending

        legal = np.flatnonzero(move_mask)
        pending: tuple[int, ...] = ()
        while True:
            nexts, move = step_choices(legal, pending)
            if move is not None:
                return move
            obs = np.zeros(OBS_SIZE, dtype=np.float32)
            obs[:PENDING_OFFSET] = flat_obs
            write_pending(pending, obs)
            step_mask = np.zeros(self.model.action_space.n, dtype=bool)
            step_mask[nexts] = True
            pending = (*pending, self._choose(obs, step_mask))


def _naval_steps() -> int:
    from cardwar.envs.naval.steps import NUM_STEPS

    return NUM_STEPS
