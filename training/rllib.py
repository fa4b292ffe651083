"""Self-play PPO with RLlib (the new API stack) on every registered game: ``cardwar train GAME --backend rllib``.

What it builds (``pip install 'cardwar[rllib]'``):

- **The env** (:class:`CardwarMultiAgentEnv`): RLlib's ``PettingZooEnv`` over the game's raw AEC env, as
  the game registry (:mod:`cardwar.games`) makes it: no game is named here, so a new game needs no edit.
  A game with procedural maps trains on the training half (``random:train``) and is evaluated on the
  held-out half (``random:test``). The observation stays PettingZoo's dict ``{"observation", "action_mask"}``.
  The raw env raises on an illegal action, so a mask that leaks would stop the run, not be scored.
- **Self-play**: both seats map to one policy, ``shared``; every move of either seat is a training sample.
- **The RLModule** (:class:`MaskedPPOModule`, torch): the logits plus ``log(mask)`` clamped to RLlib's
  ``FLOAT_MIN``, as RLlib's ``ActionMaskingTorchRLModule`` does, in exploration, inference and training
  alike, so an illegal action has probability 0. The network follows the observation space's shape
  (:func:`default_network`): ``mlp``, two MLPs (policy, value) over a flat vector (naval's 587 features);
  ``conv``, a small residual convolutional network over a channels-last ``[H, W, C]`` image (PettingZoo's
  and RLlib's convention; the skirmish's planes), per-cell policy features and a pooled value head; or a
  game's own, named by its registry entry (``extra["rllib_network"]``): hexwar's ``hex``, the hex-aware fully
  convolutional network of :mod:`cardwar.training.hex_policy` over its 59 planes.
- **A check on the sampled data** (:class:`MaskCheck`): at the end of every episode, each action taken
  is looked up in the mask observed with it; the count is logged as ``illegal_actions`` (always 0).
- **A run folder** ``runs/<game>__rllib__<seed>__<time>/``: ``settings.json``, ``command.txt``,
  ``progress.csv`` (steps, seconds, episodes, mean episode length, the first seat's mean return,
  illegal actions, score against random when evaluated), ``eval.csv`` and ``curve.png`` (score rate
  against ``random``, masked greedy play, seats swapped, against steps and wall-clock minutes, as the
  SB3 runs), ``checkpoints/step_<N>/`` and ``final/`` (``Algorithm.save_to_path``, each written beside
  and renamed into place, with ``cardwar.json``: the steps, iteration and seconds it was saved at; the
  policy alone loads with :func:`load_module`, and plays as the agent ``rllib:RUN``).
- **Resume** (:func:`resume`, ``cardwar train GAME --backend rllib --resume RUN [--steps N]``): the latest
  checkpoint is restored with ``Algorithm.restore_from_path`` (weights, optimizer, the lifetime counters),
  ``progress.csv`` and ``eval.csv`` are cut back to it, and the run goes on to its budget. The first Ctrl-C
  (or SIGTERM) stops after the iteration under way, saves a checkpoint and prints the resume command; a
  second stops at once without saving.

Ray is started locally (``address="local"``, never a stray cluster) unless an address is given; on a
cluster, ``num_env_runners`` env runners sample on the cluster's machines (docs/training.md, "RLlib").
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import shlex
import shutil
import signal
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np

try:
    import torch
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
    import torch.nn.functional as F
    from torch import nn
except ImportError as _err:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"--backend rllib needs RLlib: pip install 'cardwar[rllib]' ({_err})") from _err

from cardwar import games
from cardwar.agents.rllib_agent import MODULE_SUBDIR, POLICY_ID, RLlibAgent, checkpoint_dir
from cardwar.training.interrupts import RunInterrupted

NETWORKS = ("mlp", "conv", "hex")
"""The policy networks of :class:`MaskedPPOModule` (``--set network=...``; default :func:`default_network`)."""
CHECKPOINT_META = "cardwar.json"
"""In each checkpoint folder: the steps, iteration and seconds it was saved at (what :func:`resume` goes on from)."""


def train_scenario(game: str, scenario: str | None) -> str | None:
    """The scenario ``game`` trains on: the one set, else the training half of its procedural maps, else its own."""
    g = games.get(game)
    return scenario or ("random:train" if "random:train" in g.random_scenarios else None)


def eval_scenario(game: str, scenario: str | None) -> str | None:
    """The scenario ``game`` is evaluated on: the held-out half of its procedural maps, else the training one."""
    g = games.get(game)
    return "random:test" if "random:test" in g.random_scenarios else scenario


def make_game_env(game: str, scenario: str | None = None) -> Any:
    """The raw AEC env of ``game`` from the registry (``scenario`` None: the game's own)."""
    return games.get(game).make_env(scenario)


def default_network(game: str | None, shape: tuple[int, ...]) -> str:
    """The network for ``game``'s observation of ``shape``: the game's own (its registry entry's
    ``extra["rllib_network"]``), else ``conv`` for an image (3 axes, read channels-last), else ``mlp``."""
    own = games.get(game).extra.get("rllib_network") if game is not None and games.known(game) else None
    if own is not None:
        return str(own)
    return "conv" if len(shape) == 3 else "mlp"


@dataclass
class RLlibSettings:
    """The knobs of an RLlib run (``--set KEY=VALUE`` on the command line)."""

    seed: int = 0
    total_steps: int = 100_000
    """Environment steps (moves of either seat); rounded up to whole training iterations."""
    num_env_runners: int = 0
    """Sampling actors; 0 samples in the driver (fastest on one small machine)."""
    num_envs_per_env_runner: int = 1
    train_batch_size: int = 2048
    minibatch_size: int = 256
    num_epochs: int = 4
    lr: float = 3e-4
    gamma: float = 0.99
    lambda_: float = 0.95
    entropy_coeff: float = 0.01
    network: str | None = None
    """``mlp``, ``conv`` or ``hex`` (default: :func:`default_network`, from the game and its observation)."""
    hidden: int = 256
    """``mlp``: width of the two hidden layers of the policy and of the value MLP (``conv``: of the value head)."""
    channels: int = 32
    """``conv``, ``hex``: channels of the convolutions."""
    blocks: int = 2
    """``conv``, ``hex``: residual blocks."""
    scenario: str | None = None
    """Training scenario (default: ``random:train`` for a game with procedural maps, which is evaluated on
    ``random:test``; else the game's own)."""
    eval_every: int = 20_000
    """Evaluate against random every this many steps (0: only at the end)."""
    eval_games: int = 40
    checkpoint_every: int = 50_000

    def updated(self, pairs: list[str] | None) -> RLlibSettings:
        """A copy with ``KEY=VALUE`` pairs applied; an unknown key or a bad value is a ``ValueError``."""
        fields = {f.name: f for f in dataclasses.fields(self)}
        changes: dict[str, Any] = {}
        for pair in pairs or []:
            key, eq, text = pair.partition("=")
            key = key.strip().removeprefix("rllib.")
            if not eq or key not in fields:
                raise ValueError(f"--set {pair}: unknown RLlib setting (settings: {', '.join(fields)})")
            kind = type(getattr(self, key)) if getattr(self, key) is not None else str
            try:
                changes[key] = kind(float(text)) if kind is int else kind(text)
            except ValueError:
                raise ValueError(f"--set {pair}: {text!r} is not a {kind.__name__}") from None
        return dataclasses.replace(self, **changes).checked()

    def checked(self, game: str | None = None) -> RLlibSettings:
        """Itself, if every value is in range (and, given ``game``, its scenario is one of the game's); else a
        ``ValueError`` naming the setting."""
        at_least = {"total_steps": 1, "num_env_runners": 0, "num_envs_per_env_runner": 1, "train_batch_size": 1,
                    "minibatch_size": 1, "num_epochs": 1, "hidden": 1, "channels": 1, "blocks": 0,
                    "eval_every": 0, "eval_games": 2, "checkpoint_every": 0}
        for key, low in at_least.items():
            if getattr(self, key) < low:
                raise ValueError(f"--set {key}={getattr(self, key)}: must be at least {low}")
        if self.minibatch_size > self.train_batch_size:
            raise ValueError(f"--set minibatch_size={self.minibatch_size}: more than train_batch_size "
                             f"{self.train_batch_size}")
        for key, low, high in (("lr", 0.0, 1.0), ("gamma", 0.0, 1.0), ("lambda_", 0.0, 1.0),
                               ("entropy_coeff", -1e-12, 1.0)):
            if not low < getattr(self, key) <= high:
                raise ValueError(f"--set {key}={getattr(self, key)}: must be in ({low:g}, {high:g}]")
        if self.network is not None and self.network not in NETWORKS:
            raise ValueError(f"--set network={self.network}: one of {', '.join(NETWORKS)}")
        if game is not None:
            games.get(game)  # an unknown game: UnknownGame (a ValueError) listing the games
            if self.scenario is not None:
                make_game_env(game, self.scenario)  # an unknown scenario: ScenarioError (a ValueError)
        return self


# ---------------------------------------------------------------- the env
class CardwarMultiAgentEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` over a cardwar raw AEC env; ``config``: ``game`` (any registered one), optional
    ``scenario`` (default :func:`train_scenario`)."""

    def __init__(self, config: dict | None = None) -> None:
        config = dict(config or {})
        game = config.get("game") or games.names()[0]  # the first registered game when none is named
        super().__init__(make_game_env(game, train_scenario(game, config.get("scenario"))))


def count_illegal(masks: np.ndarray, actions: np.ndarray) -> int:
    """How many of ``actions`` (``[T]``) the masks observed with them (``[T, A]``) forbade."""
    actions = np.asarray(actions, dtype=np.int64)
    return int((np.asarray(masks)[np.arange(len(actions)), actions] == 0).sum()) if len(actions) else 0


class MaskCheck(RLlibCallback):
    """Counts the sampled actions that the mask observed with them forbade (``illegal_actions``, a lifetime sum,
    every action checked once, in the chunk that sampled it), and logs the first seat's return per game."""

    def on_sample_end(self, *, samples: list, metrics_logger: Any = None, **kwargs: Any) -> None:
        illegal = 0
        for episode in samples:
            for sa_episode in episode.agent_episodes.values():
                actions = np.asarray(sa_episode.get_actions())
                if not len(actions):
                    continue
                masks = sa_episode.get_observations(slice(0, len(actions)))
                masks = (np.stack([o["action_mask"] for o in masks]) if isinstance(masks, list)
                         else masks["action_mask"])
                illegal += count_illegal(np.asarray(masks), actions)
        if metrics_logger is not None:
            metrics_logger.log_value("illegal_actions", illegal, reduce="lifetime_sum")
            metrics_logger.log_value("actions_checked", sum(len(e.agent_episodes[a].get_actions())
                                                             for e in samples for a in e.agent_episodes),
                                     reduce="lifetime_sum")

    def on_episode_end(self, *, episode: Any, metrics_logger: Any = None, **kwargs: Any) -> None:
        if metrics_logger is not None:
            first = sorted(episode.agent_episodes)[0]
            metrics_logger.log_value("first_seat_return", episode.agent_episodes[first].get_return(),
                                     reduce="mean", window=100)


# ---------------------------------------------------------------- the RLModule
def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits + log(mask)`` clamped to ``FLOAT_MIN`` (RLlib's action-masking example): 0 where legal."""
    return logits + torch.clamp(torch.log(mask.to(logits.dtype)), min=FLOAT_MIN)


class ConvNet(nn.Module):
    """A small residual network over a channels-last ``[H, W, C]`` image (PettingZoo's and RLlib's convention).

    A 1x1 convolution mixes the planes first (most planes of a board game are sparse or constant, and a 3x3
    kernel over all of them would cost nine times as much), then ``blocks`` residual pairs of 3x3
    convolutions. The policy reads two 1x1 feature planes per cell through one linear layer (the logits of
    a board game are mostly per cell); the value reads the mean and maximum of each channel.
    """

    def __init__(self, shape: tuple[int, ...], actions: int, channels: int, blocks: int, hidden: int) -> None:
        super().__init__()
        rows, cols, planes = shape
        self.stem = nn.Conv2d(planes, channels, 1)
        self.blocks = nn.ModuleList(nn.Sequential(nn.Conv2d(channels, channels, 3, padding=1), nn.ReLU(),
                                                  nn.Conv2d(channels, channels, 3, padding=1))
                                    for _ in range(blocks))
        self.policy_planes = nn.Conv2d(channels, 2, 1)
        self.pi = nn.Linear(2 * rows * cols, actions)
        self.vf = nn.Sequential(nn.Linear(2 * channels, hidden), nn.Tanh(), nn.Linear(hidden, 1))
        for block in self.blocks:  # residual branches start at 0, as the hex networks' do
            nn.init.zeros_(block[-1].weight)
            nn.init.zeros_(block[-1].bias)

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        """``[B, H, W, C]`` -> the feature map ``[B, channels, H, W]``."""
        h = F.relu(self.stem(obs.permute(0, 3, 1, 2)))
        for block in self.blocks:
            h = F.relu(h + block(h))
        return h

    def logits(self, features: torch.Tensor) -> torch.Tensor:
        return self.pi(F.relu(self.policy_planes(features)).flatten(1))

    def value(self, features: torch.Tensor) -> torch.Tensor:
        return self.vf(torch.cat([features.mean(dim=(2, 3)), features.amax(dim=(2, 3))], dim=1)).squeeze(-1)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value for one game, with the action mask applied to the logits.

    ``model_config``: ``game``, ``network`` (``mlp``, ``conv`` or ``hex``; default :func:`default_network`),
    ``hidden`` (mlp, conv's value head), ``channels`` and ``blocks`` (conv, hex). The observation space is the
    env's dict; only ``observation`` enters the network.
    """

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        obs_space = self.observation_space["observation"]
        n = self.action_space.n
        self.network = cfg.get("network") or default_network(cfg.get("game"), tuple(obs_space.shape))
        channels, blocks, hidden = int(cfg.get("channels", 32)), int(cfg.get("blocks", 2)), int(cfg.get("hidden", 256))
        if self.network == "hex":
            from cardwar.training.hex_policy import HexConv2d, HexHeads, HexResBlock, HexTrunk

            self.trunk = HexTrunk(obs_space, channels=channels, blocks=blocks)
            self.heads = HexHeads(self.trunk.channels, self.trunk.grid)
            self.value_out = nn.Linear(self.heads.latent_dim_vf, 1)
            for module in self.modules():  # as HexConvPolicy: He init, residual branches start at 0, small logits
                if isinstance(module, HexConv2d):
                    module.reset_parameters()
                if isinstance(module, HexResBlock):
                    nn.init.zeros_(module.conv2.weight)
            logit_layers = self.heads.logit_layers()
        elif self.network == "conv":
            if len(obs_space.shape) != 3:
                raise ValueError(f"network conv needs an image observation [H, W, C], not shape {obs_space.shape}")
            self.conv = ConvNet(tuple(obs_space.shape), n, channels, blocks, hidden)
            logit_layers = (self.conv.pi,)
        elif self.network == "mlp":
            size = int(np.prod(obs_space.shape))

            def mlp(out: int) -> nn.Sequential:
                return nn.Sequential(nn.Linear(size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                     nn.Linear(hidden, out))

            self.pi, self.vf = mlp(n), mlp(1)
            logit_layers = (self.pi[-1],)
        else:
            raise ValueError(f"unknown network {self.network!r}; networks: {', '.join(NETWORKS)}")
        for layer in logit_layers:
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def _embed(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        x = obs["observation"].float()
        if self.network == "hex":
            return self.trunk(x)
        return self.conv(x) if self.network == "conv" else x.flatten(1)

    def _logits(self, embeddings: torch.Tensor) -> torch.Tensor:
        if self.network == "hex":
            return self.heads.forward_actor(embeddings)
        return self.conv.logits(embeddings) if self.network == "conv" else self.pi(embeddings)

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        obs = batch[Columns.OBS]
        embeddings = self._embed(obs)
        return {Columns.ACTION_DIST_INPUTS: masked_logits(self._logits(embeddings), obs["action_mask"]),
                Columns.EMBEDDINGS: embeddings}

    def _forward_inference(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        out = self._forward(batch)
        out.pop(Columns.EMBEDDINGS)
        return out

    _forward_exploration = _forward_inference

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        """The value of each observation in ``batch`` (shape ``[B]``)."""
        if embeddings is None:
            embeddings = self._embed(batch[Columns.OBS])
        if self.network == "hex":
            return self.value_out(self.heads.forward_critic(embeddings)).squeeze(-1)
        return self.conv.value(embeddings) if self.network == "conv" else self.vf(embeddings).squeeze(-1)

    def _masked(self, observation: dict[str, np.ndarray]) -> torch.Tensor:
        batch = {k: torch.as_tensor(np.asarray(v))[None] for k, v in observation.items()}
        with torch.no_grad():
            return self._forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS][0]

    def greedy(self, observation: dict[str, np.ndarray]) -> int:
        """The legal action with the highest logit for one observation."""
        return int(torch.argmax(self._masked(observation)))

    def probabilities(self, observation: dict[str, np.ndarray]) -> np.ndarray:
        """The masked policy for one observation (0 on every illegal action), as float64 summing to 1."""
        probs = torch.softmax(self._masked(observation).double(), dim=0).numpy()
        probs[np.asarray(observation["action_mask"]) == 0] = 0.0
        return probs / probs.sum()


def load_module(checkpoint: str | Path) -> MaskedPPOModule:
    """The shared policy of a run folder (its ``final/``) or of an ``Algorithm`` checkpoint folder (``final/`` or
    ``checkpoints/step_N/``), relative or absolute, in eval mode; no Ray cluster is started."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    # Absolute: RLlib hands the path to pyarrow, which takes a relative one for a URI without a scheme.
    module = RLModule.from_checkpoint(str(checkpoint_dir(checkpoint) / MODULE_SUBDIR))
    module.eval()
    return module


# ---------------------------------------------------------------- config, evaluation, the run
def build_config(game: str, settings: RLlibSettings) -> Any:
    """RLlib's ``PPOConfig`` for self-play on ``game``: one shared, masked policy for both seats."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    s = settings
    env = make_game_env(game, train_scenario(game, s.scenario))
    shape = tuple(env.observation_space(env.possible_agents[0])["observation"].shape)
    model = {"game": game, "network": s.network or default_network(game, shape), "hidden": s.hidden,
             "channels": s.channels, "blocks": s.blocks}
    return (PPOConfig()
            .api_stack(enable_rl_module_and_learner=True, enable_env_runner_and_connector_v2=True)
            .environment(CardwarMultiAgentEnv, env_config={"game": game, "scenario": s.scenario},
                         disable_env_checking=True)  # its check plays random, unmasked actions
            .multi_agent(policies={POLICY_ID}, policy_mapping_fn=lambda agent_id, *a, **k: POLICY_ID)
            .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={
                POLICY_ID: RLModuleSpec(module_class=MaskedPPOModule, model_config=model)}))
            .env_runners(num_env_runners=s.num_env_runners, num_envs_per_env_runner=s.num_envs_per_env_runner)
            .learners(num_learners=0)
            .training(train_batch_size_per_learner=s.train_batch_size, minibatch_size=s.minibatch_size,
                      num_epochs=s.num_epochs, lr=s.lr, gamma=s.gamma, lambda_=s.lambda_,
                      entropy_coeff=s.entropy_coeff)
            .callbacks(MaskCheck)
            .reporting(metrics_num_episodes_for_smoothing=100)
            .debugging(seed=s.seed, log_level="ERROR"))


def evaluate_vs_random(module: MaskedPPOModule, game: str, games: int, seed: int, step: int,
                       seconds: float, scenario: str | None = None) -> Any:
    """Masked greedy play of ``module`` against ``random``, seats swapped in pairs, on :func:`eval_scenario` (the
    held-out maps of a game with procedural maps)."""
    from cardwar import agents
    from cardwar.arena import play_agents
    from cardwar.arena.match_result import MatchResult
    from cardwar.training.evaluate import EvalPoint

    env = make_game_env(game, eval_scenario(game, scenario))
    learner, res = RLlibAgent(module), MatchResult(game, "rllib", "random")
    for k in range((games + 1) // 2):
        other = agents.make("random", game, seed=seed + k)
        for seat in (0, 1):
            players = (learner, other) if seat == 0 else (other, learner)
            ret = play_agents(env, *players, seed=seed + k)[seat]
            res.games += 1
            res.wins_a += ret > 0
            res.wins_b += ret < 0
            res.draws += ret == 0
    lo, hi = res.interval()
    return EvalPoint(step, "random", res.games, res.wins_a, res.draws, res.wins_b, res.score_a, lo, hi, seconds)


PROGRESS_FIELDS = ["iteration", "steps", "seconds", "episodes", "episode_len_mean", "first_seat_return_mean",
                   "actions_checked", "illegal_actions", "module_steps_trained", "score_vs_random"]


def _metrics(result: dict) -> dict[str, float]:
    runners = result.get("env_runners", {})
    return {"steps": int(runners.get("num_env_steps_sampled_lifetime", 0)),
            "episodes": int(runners.get("num_episodes_lifetime", 0)),
            "episode_len_mean": float(runners.get("episode_len_mean", math.nan)),
            "first_seat_return_mean": float(runners.get("first_seat_return", math.nan)),
            "actions_checked": int(runners.get("actions_checked", 0) or 0),
            "illegal_actions": int(runners.get("illegal_actions", 0) or 0),
            "module_steps_trained": int(result.get("learners", {}).get(POLICY_ID, {})
                                        .get("num_module_steps_trained_lifetime", 0))}


def start_ray(address: str | None, num_cpus: int | None = None) -> bool:
    """``ray.init`` on ``address``, or a new local Ray (``address="local"``); True when this call started it."""
    import ray

    if ray.is_initialized():
        return False
    ray.init(address=address or "local", num_cpus=None if address else num_cpus, include_dashboard=False,
             log_to_driver=False, configure_logging=False)
    return True


def _quiet_rllib() -> None:
    import logging

    for name in ("ray.rllib", "ray.tune", "ray.data"):  # RLlib's deprecation notes are not the user's concern
        logging.getLogger(name).setLevel(logging.ERROR)


def resume_command(game: str, run_dir: Path) -> str:
    """The command that goes on with ``run_dir``."""
    return shlex.join(["cardwar", "train", game, "--backend", "rllib", "--resume", str(run_dir)])


def train(game: str, settings: RLlibSettings | None = None, runs_root: Path = Path("runs"),
          ray_address: str | None = None, progress: bool = True, command: str | None = None) -> Path:
    """Run self-play PPO on ``game`` (any registered game) until ``settings.total_steps``; return the run folder.

    Starts a local Ray (or joins ``ray_address``, which the caller should have checked with
    :func:`cardwar.tournament.runner.check_ray_address`) and shuts it down at the end if it started it.
    An interrupt saves a checkpoint and raises :class:`~cardwar.training.interrupts.RunInterrupted`.
    """
    s = (settings or RLlibSettings()).checked(game)
    _quiet_rllib()
    run_dir = Path(runs_root) / f"{game}__rllib__{s.seed}__{datetime.now():%Y%m%d-%H%M%S}"
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=False)
    _write_settings(run_dir, game, ray_address, s)
    (run_dir / "command.txt").write_text((command or " ".join(sys.argv)) + "\n")
    _session(game, s, run_dir, ray_address, progress, None)
    return run_dir


def _write_settings(run_dir: Path, game: str, ray_address: str | None, s: RLlibSettings) -> None:
    tmp = run_dir / "settings.json.partial"
    tmp.write_text(json.dumps({"game": game, "ray_address": ray_address, **dataclasses.asdict(s)}, indent=2) + "\n")
    tmp.replace(run_dir / "settings.json")


@dataclass
class Resumed:
    """Where a run goes on from: its checkpoint folder and what ``cardwar.json`` says of it."""

    path: Path
    steps: int
    iteration: int
    seconds: float


def latest_checkpoint(run_dir: Path) -> Resumed | None:
    """The run's checkpoint with the most steps (``final/`` before a ``checkpoints/step_N/`` of as many);
    None if it has none. A folder still being written (``*.partial``) is not one."""
    found: list[tuple[int, int, Resumed]] = []
    for rank, path in [(1, run_dir / "final"), *((0, p) for p in (run_dir / "checkpoints").glob("step_*"))]:
        if not (path / MODULE_SUBDIR).is_dir() or path.name.endswith(".partial"):
            continue
        try:
            meta = json.loads((path / CHECKPOINT_META).read_text())
            point = Resumed(path, int(meta["steps"]), int(meta["iteration"]), float(meta["seconds"]))
        except (OSError, ValueError, KeyError):  # a checkpoint saved before cardwar.json: its steps are its name
            rows = _rows(run_dir / "progress.csv")
            steps = int(path.name.removeprefix("step_")) if path.name.startswith("step_") else \
                (int(rows[-1]["steps"]) if rows else 0)
            at = [r for r in rows if int(r["steps"]) <= steps]
            point = Resumed(path, steps, int(at[-1]["iteration"]) if at else 0,
                            float(at[-1]["seconds"]) if at else 0.0)
        found.append((point.steps, rank, point))
    return max(found, key=lambda x: x[:2])[2] if found else None


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _cut_csv(path: Path, column: str, steps: int) -> None:
    """Keep the rows of ``path`` up to ``steps`` (those after the checkpoint are sampled again), atomically."""
    if not path.is_file():
        return
    with path.open(newline="") as f:
        reader = csv.DictReader(f)
        fields, rows = reader.fieldnames or [], [r for r in reader if int(r[column]) <= steps]
    tmp = path.with_name(path.name + ".partial")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)


def resume(run_dir: Path, total_steps: int | None = None, ray_address: str | None = None, progress: bool = True,
           game: str | None = None) -> Path:
    """Go on with ``run_dir`` from its latest checkpoint (to ``total_steps`` if given, which becomes the run's
    budget), with RLlib's own ``Algorithm.restore_from_path``; a ``ValueError`` (one line) if it cannot."""
    run_dir = Path(run_dir)
    try:
        saved = json.loads((run_dir / "settings.json").read_text())
    except (OSError, ValueError):
        raise ValueError(f"{run_dir}: not an RLlib run folder (no readable settings.json); runs are made by "
                         f"`cardwar train GAME --backend rllib`") from None
    if game is not None and saved.get("game") != game:
        raise ValueError(f"{run_dir} is a {saved.get('game')} run, not {game}")
    game = str(saved["game"])
    known = {f.name for f in dataclasses.fields(RLlibSettings)}
    s = RLlibSettings(**{k: v for k, v in saved.items() if k in known})
    if total_steps is not None:
        s.total_steps = total_steps
    s.checked(game)
    start = latest_checkpoint(run_dir)
    if start is not None and start.steps >= s.total_steps:
        raise ValueError(f"{run_dir} is done: {start.steps} steps of its {s.total_steps}; give --steps more than "
                         f"{start.steps} to go on")
    _quiet_rllib()
    ray_address = ray_address if ray_address is not None else saved.get("ray_address")
    _write_settings(run_dir, game, ray_address, s)
    (run_dir / "checkpoints").mkdir(exist_ok=True)
    with (run_dir / "command.txt").open("a") as f:
        where = f"step {start.steps}" if start else "the start"
        f.write(shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) + f"   # resumed at {where}\n")
    _cut_csv(run_dir / "progress.csv", "steps", start.steps if start else 0)
    _cut_csv(run_dir / "eval.csv", "step", start.steps if start else 0)
    _session(game, s, run_dir, ray_address, progress, start)
    return run_dir


def _session(game: str, s: RLlibSettings, run_dir: Path, ray_address: str | None, progress: bool,
             start: Resumed | None) -> None:
    import ray

    iterations = max(1, math.ceil((s.total_steps - (start.steps if start else 0)) / s.train_batch_size))
    if progress:
        where = f"from step {start.steps} ({start.path.name}), " if start else ""
        print(f"rllib: {where}{iterations} iterations of about {s.train_batch_size} steps "
              f"(--steps {s.total_steps} rounded up to whole iterations), {s.num_env_runners} env runner(s)",
              file=sys.stderr)
    started = start_ray(ray_address, num_cpus=max(1, s.num_env_runners + 1))
    try:
        _run(game, s, run_dir, progress, start)
    finally:
        if started:
            ray.shutdown()


@contextmanager
def _stop_requests() -> Iterator[dict[str, int]]:
    """While a run goes on: the first SIGINT/SIGTERM asks it to stop after the iteration under way (``stop["signum"]``
    is set; the run saves a checkpoint), a second one raises :class:`RunInterrupted` at once, without saving."""
    stop: dict[str, int] = {}
    if threading.current_thread() is not threading.main_thread():
        yield stop
        return
    signals = (signal.SIGINT, signal.SIGTERM)
    previous = {s: signal.getsignal(s) for s in signals}

    def second(signum: int, frame: Any) -> None:
        print(f"\n{signal.Signals(signum).name} again: stopping now, without saving", file=sys.stderr, flush=True)
        raise RunInterrupted(signum)

    def first(signum: int, frame: Any) -> None:
        stop["signum"] = signum
        print(f"\n{signal.Signals(signum).name}: stopping after this iteration, with a checkpoint "
              f"(again: stop now, without saving)", file=sys.stderr, flush=True)
        for s in signals:
            signal.signal(s, second)

    for s in signals:
        signal.signal(s, first)
    try:
        yield stop
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _save(algo: Any, where: Path, steps: int, iteration: int, seconds: float) -> None:
    """``algo.save_to_path`` into ``where`` (absolute, for pyarrow), written beside it and renamed into place, so
    that a kill while saving leaves the previous checkpoint whole."""
    where = where.resolve()
    tmp, old = where.with_name(where.name + ".partial"), where.with_name(where.name + ".old")
    shutil.rmtree(tmp, ignore_errors=True)
    algo.save_to_path(str(tmp))
    (tmp / CHECKPOINT_META).write_text(json.dumps({"steps": steps, "iteration": iteration,
                                                   "seconds": round(seconds, 1)}) + "\n")
    shutil.rmtree(old, ignore_errors=True)
    if where.exists():
        where.rename(old)
    tmp.rename(where)
    shutil.rmtree(old, ignore_errors=True)


def _run(game: str, s: RLlibSettings, run_dir: Path, progress: bool, start: Resumed | None) -> None:
    from cardwar.training.evaluate import append_csv

    algo = build_config(game, s).build_algo()
    try:
        steps, it, before = (start.steps, start.iteration, start.seconds) if start else (0, 0, 0.0)
        if start is not None:
            algo.restore_from_path(str(start.path.resolve()))
        next_eval = (steps // s.eval_every + 1) * s.eval_every if s.eval_every else 0
        next_ckpt = (steps // s.checkpoint_every + 1) * s.checkpoint_every if s.checkpoint_every else 0
        clock = time.monotonic() - before  # seconds go on across sessions
        new_file = not (run_dir / "progress.csv").is_file()
        with (run_dir / "progress.csv").open("a", newline="") as f, _stop_requests() as stop:
            writer = csv.DictWriter(f, fieldnames=PROGRESS_FIELDS)
            if new_file:
                writer.writeheader()
            while steps < s.total_steps:
                it += 1
                row = _metrics(algo.train())
                steps, seconds = row["steps"], time.monotonic() - clock
                score = ""
                if (s.eval_every and steps >= next_eval) or steps >= s.total_steps:
                    point = evaluate_vs_random(algo.get_module(POLICY_ID), game, s.eval_games, 50_000 + s.seed,
                                               steps, seconds, scenario=s.scenario)
                    append_csv(run_dir / "eval.csv", [point])
                    score = f"{point.score:.4f}"
                    while s.eval_every and next_eval <= steps:
                        next_eval += s.eval_every
                writer.writerow({"iteration": it, **row, "seconds": f"{seconds:.1f}", "score_vs_random": score})
                f.flush()
                saved = False
                if steps < s.total_steps and ((s.checkpoint_every and steps >= next_ckpt) or stop):
                    _save(algo, run_dir / "checkpoints" / f"step_{steps}", steps, it, seconds)
                    saved = True
                    while s.checkpoint_every and next_ckpt <= steps:
                        next_ckpt += s.checkpoint_every
                if progress:
                    print(f"rllib {game}: {steps} steps, {seconds:.0f} s, episode length "
                          f"{row['episode_len_mean']:.1f}, illegal {row['illegal_actions']}"
                          + (f", score vs random {score}" if score else ""), file=sys.stderr)
                if stop and saved:
                    print(f"saved checkpoints/step_{steps} ({steps} steps); go on with "
                          f"`{resume_command(game, run_dir)}`", file=sys.stderr, flush=True)
                    raise RunInterrupted(stop["signum"])
        _save(algo, run_dir / "final", steps, it, time.monotonic() - clock)
        plot_progress(run_dir, run_dir / "curve.png")
    finally:
        algo.stop()


def plot_progress(run_dir: Path, path: Path) -> None:
    """A PNG of a run: environment steps against wall-clock minutes, and the score rate against random (95%
    band) against steps and against minutes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    from cardwar.training.evaluate import read_csv

    settings = json.loads((run_dir / "settings.json").read_text())
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    points = read_csv(run_dir / "eval.csv")
    fig, axes = plt.subplots(1, 3, figsize=(15, 4), dpi=100)
    axes[0].plot([float(r["seconds"]) / 60 for r in rows], [int(r["steps"]) for r in rows], marker=".")
    axes[0].set(xlabel="wall-clock minutes", ylabel="environment steps (moves of both seats)",
                title=f"{settings['game']}, RLlib PPO self-play: steps against time")
    for ax, x, label in ((axes[1], "step", "environment steps"), (axes[2], "minutes", "wall-clock minutes")):
        at = [p.step if x == "step" else p.seconds / 60 for p in points]
        ax.plot(at, [p.score for p in points], marker="o", label="vs random (masked greedy, seats swapped)")
        ax.fill_between(at, [p.low for p in points], [p.high for p in points], alpha=0.2)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set(ylim=(0, 1), xlabel=label, ylabel="score rate (win 1, draw 1/2)", title=f"score against {label}")
    axes[1].legend(loc="lower right", fontsize="small")
    thousands = FuncFormatter(lambda v, _: f"{v / 1000:g}k")
    axes[0].yaxis.set_major_formatter(thousands)
    axes[1].xaxis.set_major_formatter(thousands)
    for ax in axes:
        ax.grid(alpha=0.3)
    fig.tight_layout()
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(path)
