"""Self-play PPO with RLlib (the new API stack) on both games: ``cardwar train GAME --backend rllib``.

What it builds (``pip install 'cardwar[rllib]'``):

- **The env** (:class:`CardwarMultiAgentEnv`): RLlib's ``PettingZooEnv`` over the game's raw AEC env
  (``naval_v0``: 3029 whole-move actions; ``hexwar_v0``: 843 actions, procedural maps of the training
  half, ``random:train``). The observation stays PettingZoo's dict ``{"observation", "action_mask"}``.
  The raw env raises on an illegal action, so a mask that leaks would stop the run, not be scored.
- **Self-play**: both seats map to one policy, ``shared``; every move of either seat is a training sample.
- **The RLModule** (:class:`MaskedPPOModule`, torch): the logits plus ``log(mask)`` clamped to RLlib's
  ``FLOAT_MIN``, as RLlib's ``ActionMaskingTorchRLModule`` does, in exploration, inference and training
  alike, so an illegal action has probability 0. Naval: two MLPs (policy, value) over the 587 features.
  Hexwar: the hex-aware fully convolutional network of :mod:`cardwar.training.hex_policy` (hex
  convolutions masked to a cell's six neighbours, residual blocks with global pooling bias, per-cell
  logits by 1x1 convolutions) over the 59 planes, with a value head on the pooled features.
- **A check on the sampled data** (:class:`MaskCheck`): at the end of every episode, each action taken
  is looked up in the mask observed with it; the count is logged as ``illegal_actions`` (always 0).
- **A run folder** ``runs/<game>__rllib__<seed>__<time>/``: ``settings.json``, ``command.txt``,
  ``progress.csv`` (steps, seconds, episodes, mean episode length, the first seat's mean return,
  illegal actions, score against random when evaluated), ``eval.csv`` and ``curve.png`` (score rate
  against ``random``, masked greedy play, seats swapped, against steps and wall-clock minutes, as the
  SB3 runs), ``checkpoints/step_<N>/`` and ``final/`` (``Algorithm.save_to_path``; the policy alone
  loads with :func:`load_module`).

Ray is started locally (``address="local"``, never a stray cluster) unless an address is given; on a
cluster, ``num_env_runners`` env runners sample on the cluster's machines (docs/training.md, "RLlib").
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import sys
import time
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
    from torch import nn
except ImportError as _err:  # pragma: no cover - exercised only without the extra
    raise ImportError(f"--backend rllib needs RLlib: pip install 'cardwar[rllib]' ({_err})") from _err

from cardwar.envs import make_raw_env

POLICY_ID = "shared"
DEFAULT_SCENARIO = {"naval": None, "hexwar": "random:train"}
EVAL_SCENARIO = {"naval": None, "hexwar": "random:test"}


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
    hidden: int = 256
    """Naval: width of the two hidden layers of the policy and of the value MLP."""
    channels: int = 32
    """Hexwar: channels of the hex convolutions."""
    blocks: int = 2
    """Hexwar: residual blocks."""
    scenario: str | None = None
    """Hexwar training scenario (default ``random:train``; evaluation uses ``random:test``)."""
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

    def checked(self) -> RLlibSettings:
        """Itself, if every value is in range; else a ``ValueError`` naming the setting."""
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
        if self.scenario is not None:
            make_raw_env("hexwar", self.scenario)  # an unknown scenario: ScenarioError (a ValueError)
        return self


# ---------------------------------------------------------------- the env
class CardwarMultiAgentEnv(PettingZooEnv):
    """RLlib's ``PettingZooEnv`` over a cardwar raw AEC env; ``config``: ``game``, optional ``scenario``."""

    def __init__(self, config: dict | None = None) -> None:
        config = dict(config or {})
        game = config.get("game", "naval")
        scenario = config.get("scenario") or DEFAULT_SCENARIO[game]
        super().__init__(make_raw_env(game, scenario))


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


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """Policy and value for one game, with the action mask applied to the logits.

    ``model_config``: ``game`` (``naval`` or ``hexwar``), ``hidden`` (naval), ``channels`` and ``blocks``
    (hexwar). The observation space is the env's dict; only ``observation`` enters the network.
    """

    def setup(self) -> None:
        cfg = dict(self.model_config or {})
        self.game = cfg.get("game", "naval")
        obs_space = self.observation_space["observation"]
        n = self.action_space.n
        if self.game == "hexwar":
            from cardwar.training.hex_policy import HexConv2d, HexHeads, HexResBlock, HexTrunk

            self.trunk = HexTrunk(obs_space, channels=int(cfg.get("channels", 32)), blocks=int(cfg.get("blocks", 2)))
            self.heads = HexHeads(self.trunk.channels, self.trunk.grid)
            self.value_out = nn.Linear(self.heads.latent_dim_vf, 1)
            for module in self.modules():  # as HexConvPolicy: He init, residual branches start at 0, small logits
                if isinstance(module, HexConv2d):
                    module.reset_parameters()
                if isinstance(module, HexResBlock):
                    nn.init.zeros_(module.conv2.weight)
            logit_layers = self.heads.logit_layers()
        else:
            size, hidden = int(np.prod(obs_space.shape)), int(cfg.get("hidden", 256))

            def mlp(out: int) -> nn.Sequential:
                return nn.Sequential(nn.Linear(size, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                     nn.Linear(hidden, out))

            self.pi, self.vf = mlp(n), mlp(1)
            logit_layers = (self.pi[-1],)
        for layer in logit_layers:
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)

    def _embed(self, obs: dict[str, torch.Tensor]) -> torch.Tensor:
        x = obs["observation"].float()
        return self.trunk(x) if self.game == "hexwar" else x.flatten(1)

    def _logits(self, embeddings: torch.Tensor) -> torch.Tensor:
        return self.heads.forward_actor(embeddings) if self.game == "hexwar" else self.pi(embeddings)

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
        if self.game == "hexwar":
            return self.value_out(self.heads.forward_critic(embeddings)).squeeze(-1)
        return self.vf(embeddings).squeeze(-1)

    def greedy(self, observation: dict[str, np.ndarray]) -> int:
        """The legal action with the highest logit for one observation."""
        batch = {k: torch.as_tensor(np.asarray(v))[None] for k, v in observation.items()}
        with torch.no_grad():
            logits = self._forward_inference({Columns.OBS: batch})[Columns.ACTION_DIST_INPUTS][0]
        return int(torch.argmax(logits))


class RLlibAgent:
    """A cardwar agent that plays a trained :class:`MaskedPPOModule` greedily (masked argmax)."""

    def __init__(self, module: MaskedPPOModule) -> None:
        self.name, self.module = "rllib", module

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        return self.module.greedy(observation)


def load_module(checkpoint: str | Path) -> MaskedPPOModule:
    """The shared policy of an ``Algorithm`` checkpoint folder (``final/`` or ``checkpoints/step_N/``)."""
    from ray.rllib.core.rl_module.rl_module import RLModule

    path = Path(checkpoint) / "learner_group" / "learner" / "rl_module" / POLICY_ID
    if not path.is_dir():
        raise ValueError(f"{checkpoint}: not an RLlib checkpoint of cardwar (no {path})")
    module = RLModule.from_checkpoint(path)
    module.eval()
    return module


# ---------------------------------------------------------------- config, evaluation, the run
def build_config(game: str, settings: RLlibSettings) -> Any:
    """RLlib's ``PPOConfig`` for self-play on ``game``: one shared, masked policy for both seats."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec

    s = settings
    model = {"game": game, "hidden": s.hidden, "channels": s.channels, "blocks": s.blocks}
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
                       seconds: float) -> Any:
    """Masked greedy play of ``module`` against ``random``, seats swapped in pairs (held-out maps for hexwar)."""
    from cardwar import agents
    from cardwar.arena import play_agents
    from cardwar.arena.match_result import MatchResult
    from cardwar.training.evaluate import EvalPoint

    env = make_raw_env(game, EVAL_SCENARIO[game])
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


def train(game: str, settings: RLlibSettings | None = None, runs_root: Path = Path("runs"),
          ray_address: str | None = None, progress: bool = True, command: str | None = None) -> Path:
    """Run self-play PPO on ``game`` until ``settings.total_steps``; return the run folder.

    Starts a local Ray (or joins ``ray_address``, which the caller should have checked with
    :func:`cardwar.tournament.runner.check_ray_address`) and shuts it down at the end if it started it.
    """
    import logging

    import ray

    s = (settings or RLlibSettings()).checked()
    for name in ("ray.rllib", "ray.tune", "ray.data"):  # RLlib's deprecation notes are not the user's concern
        logging.getLogger(name).setLevel(logging.ERROR)
    if game not in DEFAULT_SCENARIO:
        raise ValueError(f"unknown game {game!r}")
    run_dir = Path(runs_root) / f"{game}__rllib__{s.seed}__{datetime.now():%Y%m%d-%H%M%S}"
    (run_dir / "checkpoints").mkdir(parents=True, exist_ok=False)
    (run_dir / "settings.json").write_text(json.dumps({"game": game, "ray_address": ray_address,
                                                       **dataclasses.asdict(s)}, indent=2) + "\n")
    (run_dir / "command.txt").write_text((command or " ".join(sys.argv)) + "\n")
    iterations = max(1, math.ceil(s.total_steps / s.train_batch_size))
    if progress:
        print(f"rllib: {iterations} iterations of about {s.train_batch_size} steps "
              f"(--steps {s.total_steps} rounded up to whole iterations), {s.num_env_runners} env runner(s)",
              file=sys.stderr)
    started = start_ray(ray_address, num_cpus=max(1, s.num_env_runners + 1))
    try:
        _run(game, s, run_dir, progress)
    finally:
        if started:
            ray.shutdown()
    return run_dir


def _run(game: str, s: RLlibSettings, run_dir: Path, progress: bool) -> None:
    from cardwar.training.evaluate import append_csv

    algo = build_config(game, s).build_algo()
    try:
        start, next_eval, next_ckpt, it, steps = time.monotonic(), s.eval_every, s.checkpoint_every, 0, 0
        with (run_dir / "progress.csv").open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=PROGRESS_FIELDS)
            writer.writeheader()
            while steps < s.total_steps:
                it += 1
                row = _metrics(algo.train())
                steps, seconds = row["steps"], time.monotonic() - start
                score = ""
                if (s.eval_every and steps >= next_eval) or steps >= s.total_steps:
                    point = evaluate_vs_random(algo.get_module(POLICY_ID), game, s.eval_games, 50_000 + s.seed,
                                               steps, seconds)
                    append_csv(run_dir / "eval.csv", [point])
                    score = f"{point.score:.4f}"
                    while s.eval_every and next_eval <= steps:
                        next_eval += s.eval_every
                writer.writerow({"iteration": it, **row, "seconds": f"{seconds:.1f}", "score_vs_random": score})
                f.flush()
                if s.checkpoint_every and steps >= next_ckpt and steps < s.total_steps:
                    algo.save_to_path(str((run_dir / "checkpoints" / f"step_{steps}").resolve()))
                    while next_ckpt <= steps:
                        next_ckpt += s.checkpoint_every
                if progress:
                    print(f"rllib {game}: {steps} steps, {seconds:.0f} s, episode length "
                          f"{row['episode_len_mean']:.1f}, illegal {row['illegal_actions']}"
                          + (f", score vs random {score}" if score else ""), file=sys.stderr)
        algo.save_to_path(str((run_dir / "final").resolve()))
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
