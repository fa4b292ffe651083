"""Training configs (rl-zoo style YAML): every key is known, typed and checked.

A config names the game, the PPO hyperparameters, the network, the opponent
pool and its schedule, the budget and the evaluation cadence. A mistyped or
unknown key, or a value of the wrong type, is a :class:`TrainConfigError`
naming the file, the key and what is allowed; defaults fill what is left out.
"""

from __future__ import annotations

import dataclasses
import math
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

def game_names() -> tuple[str, ...]:
    """The games a config may name: the registry's (:mod:`cardwar.games`), plug-ins included."""
    from cardwar import games

    return tuple(games.names())


def _action_spaces(game: str) -> tuple[str, ...]:
    """The action spaces the game's registry entry lists (``Game.action_spaces``: naval's ``steps`` is naval-v1)."""
    from cardwar import games

    return games.get(game).action_spaces()


POOL_MEMBERS = ("snapshots", "heuristic", "random")


class TrainConfigError(ValueError):
    """A training config that cannot be used as written."""


@dataclass
class EnvSection:
    """The environment the learner plays."""

    rules: dict[str, Any] = field(default_factory=dict)
    """Rule options of the game (see its RULES.md)."""
    scenario: str | None = None
    """hexwar, skirmish: a scenario name, a .yaml path, ``random`` or ``random:train`` (the training half of the
    procedural scenarios; ``random:test`` is the held-out half), or a mix of them, each game drawing one:
    ``random:train*12,duel,ww2_squads`` (``*N`` weighs an entry, :mod:`cardwar.training.scenario_mix`)."""
    n_envs: int = 8
    """Environments stepped together; their opponents are drawn independently."""
    vec_env: str = "subproc"
    """``subproc`` (SB3 SubprocVecEnv, one process per env), ``dummy`` (all in the learner's process) or
    ``batched`` (all in the learner's process, the snapshot opponents' moves of every env in one forward pass:
    :mod:`cardwar.training.batched_vec_env`)."""
    workers: int = 0
    """``batched``: worker processes the envs are split over, each batching its own share's snapshot
    opponents (heuristic opponents then use the cores in parallel); 0 keeps them all in the learner's process."""
    actions: str = "moves"
    """``moves`` (one action a move: naval-v0, hexwar-v0) or, for naval, ``steps`` (naval-v1: a move in steps)."""


@dataclass
class PolicySection:
    """The actor-critic network."""

    features: str = "mlp"
    """``mlp`` (flat observation), ``hex_cnn`` (square convolutions over the hex planes, then dense heads),
    ``hex_fcn`` (hexwar: the fully convolutional hex-aware policy, :mod:`cardwar.training.hex_policy`),
    ``skirmish_hex`` (skirmish: hex convolutions and heads that read the ordered figure and the step,
    :mod:`cardwar.training.skirmish_policy`) or
    ``naval_cards`` (naval with ``env.actions: steps``: card choices scored by shared card embeddings,
    :mod:`cardwar.training.naval_policy`) or ``grid_fcn`` (tankattack: square convolutions, per-cell logits
    by stage, :mod:`cardwar.training.grid_policy`)."""
    net_arch: list[int] = field(default_factory=lambda: [256, 256])
    """Hidden layers of the policy and value heads (shared sizes)."""
    cnn_channels: list[int] = field(default_factory=lambda: [64, 64, 64])
    """hex_cnn: channels of its 3x3 convolution layers."""
    features_dim: int = 256
    """hex_cnn: width of the linear layer after the convolutions; 0 = none (heads read every cell's features)."""
    activation: str = "relu"
    """``relu`` or ``tanh``."""
    conv_channels: int = 64
    """hex_fcn, skirmish_hex, grid_fcn: channels of its convolutions."""
    conv_blocks: int = 3
    """hex_fcn, skirmish_hex, grid_fcn: residual blocks of its convolutions."""
    distance_fields: bool = False
    """hex_fcn: add each cell's distance to the nearest objective not held, objective, seen enemy and
    acting unit to the trunk's input (:class:`cardwar.training.hex_policy.HexDistanceFields`); grid_fcn: its
    steps to the Command Bunker, a pending move's progress, its steps to the nearest enemy and own element
    (:class:`cardwar.training.grid_policy.GridDistanceFields`)."""
    embed_dim: int = 32
    """naval_cards: width of the card (and zone) embeddings the choices are scored with."""
    hidden: int = 128
    """naval_cards: width of its context and per-card layers."""


@dataclass
class PPOSection:
    """MaskablePPO hyperparameters (names as in stable-baselines3)."""

    learning_rate: float = 3e-4
    n_steps: int = 256
    batch_size: int = 512
    n_epochs: int = 4
    gamma: float = 0.995
    gae_lambda: float = 0.95
    clip_range: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    target_kl: float | None = None
    imitation_kl: float = 0.0
    """Weight of a KL pull towards the warm-started (imitation) policy, added to the PPO loss
    (:mod:`cardwar.training.kl_pull`, issue 31); 0 is plain MaskablePPO."""


@dataclass
class PhaseSection:
    """From ``from_step`` on, opponents are drawn with these weights."""

    from_step: int = 0
    mix: dict[str, float] = field(default_factory=lambda: {"snapshots": 0.5, "heuristic": 0.3, "random": 0.2})


@dataclass
class OpponentSection:
    """The opponent pool: frozen snapshots of the learner, ``heuristic`` and ``random``."""

    schedule: list[PhaseSection] = field(default_factory=lambda: [PhaseSection()])
    """Phases of the mix; the last phase whose ``from_step`` has been reached applies."""
    snapshot_every: int = 50_000
    """Steps between frozen snapshots of the learner joining the pool."""
    max_snapshots: int = 10
    """Snapshots kept (oldest dropped first); a snapshot is drawn uniformly."""
    heuristic: str = "heuristic"
    """Spec of the rule-of-thumb opponent (e.g. ``heuristic:samples=16`` for a faster one)."""
    seed_snapshots: list[str] = field(default_factory=list)
    """Model files put in the pool as its first snapshots (expert iteration: the earlier rounds' models, so that a
    round keeps meeting what the last ones beat). Each is copied into the run's ``snapshots/`` and dropped, like
    any snapshot, once ``max_snapshots`` newer ones are taken. Default: none."""


@dataclass
class EvalSection:
    """Periodic evaluation: masked greedy play against fixed agents, seats swapped."""

    every: int = 100_000
    games: int = 40
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    scenario: str | None = None
    """hexwar, skirmish: scenarios evaluated on (default ``random:test``, maps never trained on, when the
    training scenarios are procedural)."""


@dataclass
class ImitationSection:
    """Warm start: fit the policy to a teacher's moves before self-play (``games: 0`` turns it off)."""

    games: int = 0
    """Teacher games recorded, for a run of ``total_steps``. ``cardwar train --steps N`` with N below
    ``total_steps`` scales them down to ``ceil(games * N / total_steps)``, so that a short run is short."""
    teacher: str = "heuristic"
    opponents: list[str] = field(default_factory=lambda: ["random", "heuristic"])
    """Who the teacher plays while its moves are recorded (cycled over the games)."""
    epochs: int = 10
    batch_size: int = 256
    learning_rate: float = 1e-3
    targets: str = "moves"
    """What the policy is fitted to: the teacher's "moves", or "visits" - the root visit shares of a
    searching teacher (``mcts``, ``mcts:model=PATH``): expert iteration."""
    value_coef: float = 0.5
    """Weight of the value head's loss (fitting the game results) beside the policy's cross entropy in
    the fit; 0 fits the moves alone (the value head is then left at its start)."""
    dagger_rounds: int = 0
    """After the fit, rounds of DAgger (Ross et al. 2011): the fitted policy plays ``imitation.games``
    // 2 games, the teacher labels every position the learner reached, and the fit goes on over all
    the examples (the learner's own mistakes are where plain imitation has no data)."""


@dataclass
class TrainConfig:
    """One training run."""

    game: str = "naval"
    name: str = "ppo"
    seed: int = 0
    total_steps: int = 1_000_000
    checkpoint_every: int = 100_000
    device: str = "auto"
    """Where the learner's network runs: ``auto`` (a CUDA GPU when torch has one, else the CPU),
    ``cpu`` or ``cuda``. Opponents and evaluation games always play on the CPU."""
    init: str | None = None
    """Start from the weights of this model instead of fresh ones: a ``.zip`` path, or ``ppo`` for the
    game's shipped model (expert iteration: each round goes on from the last round's network). Its
    network must be the one the ``policy`` section names."""
    env: EnvSection = field(default_factory=EnvSection)
    policy: PolicySection = field(default_factory=PolicySection)
    ppo: PPOSection = field(default_factory=PPOSection)
    opponents: OpponentSection = field(default_factory=OpponentSection)
    eval: EvalSection = field(default_factory=EvalSection)
    imitation: ImitationSection = field(default_factory=ImitationSection)

    def __post_init__(self) -> None:
        _check(self)

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def mix_at(self, step: int) -> dict[str, float]:
        """The opponent weights in force at ``step``."""
        phases = sorted(self.opponents.schedule, key=lambda p: p.from_step)
        current = phases[0].mix
        for p in phases:
            if p.from_step <= step:
                current = p.mix
        return current


def _cuda_available() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _fail(where: str, message: str) -> typing.NoReturn:
    raise TrainConfigError(f"{where}: {message}")


def _check(c: TrainConfig) -> None:
    """Values that are typed right but make no sense: each failure is one line naming the key."""
    if c.game not in game_names():
        _fail("game", f"{c.game!r} is not one of {', '.join(game_names())}")
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9.-]*(_[A-Za-z0-9.-]+)*", c.name):
        _fail("name", f"{c.name!r} must be letters, digits, '.', '-' or single '_' (it goes into the run folder name)")
    if not 0 <= c.seed < 2**32:
        _fail("seed", "must be between 0 and 2**32 - 1")
    _at_least(c, "checkpoint_every", 1, "steps")
    if c.device not in ("auto", "cpu", "cuda"):
        _fail("device", f"{c.device!r} is not one of auto, cpu, cuda")
    if c.device == "cuda" and not _cuda_available():
        _fail("device", "cuda asked for, but this torch build sees no CUDA GPU (auto uses one when there is one)")
    _check_env(c)
    _check_policy(c)
    _check_ppo(c)
    rollout = c.ppo.n_steps * c.env.n_envs
    if c.total_steps < rollout:
        _fail("total_steps", f"{c.total_steps} is less than one rollout (ppo.n_steps {c.ppo.n_steps} x env.n_envs "
                             f"{c.env.n_envs} = {rollout} steps)")
    _check_opponents(c)
    _at_least(c, "eval.every", 1, "steps")
    _at_least(c, "eval.games", 0, "games; 0: no evaluation")
    _at_least(c, "imitation.games", 0, "games; 0: no warm start")
    _at_least(c, "imitation.epochs", 1, "passes over the examples")
    _at_least(c, "imitation.batch_size", 1, "examples per minibatch")
    _positive(c, "imitation.learning_rate")
    if not 0.0 <= c.imitation.value_coef <= 10.0:
        _fail("imitation.value_coef", f"{c.imitation.value_coef} is not in [0, 10] (the value loss's weight)")
    _at_least(c, "imitation.dagger_rounds", 0, "DAgger rounds after the fit; 0: none")
    if c.imitation.targets not in ("moves", "visits"):
        _fail("imitation.targets", f"is {c.imitation.targets!r}; use moves or visits")
    if c.imitation.targets == "visits" and not str(c.imitation.teacher).strip().lower().startswith("mcts"):
        _fail("imitation.targets", f"visits needs a searching teacher (mcts...), not {c.imitation.teacher!r}")
    if c.imitation.games > 0 and not c.imitation.opponents:
        _fail("imitation.opponents", "name at least one opponent for the teacher's games")
    _check_specs(c)


def _get(c: TrainConfig, key: str) -> Any:
    node: Any = c
    for part in key.split("."):
        node = getattr(node, part)
    return node


def _at_least(c: TrainConfig, key: str, low: int, what: str) -> None:
    if _get(c, key) < low:
        _fail(key, f"{_get(c, key)!r} must be at least {low} ({what})")


def _positive(c: TrainConfig, key: str) -> None:
    if not _get(c, key) > 0:
        _fail(key, f"{_get(c, key)!r} must be above 0")


def _in_unit_interval(c: TrainConfig, key: str, open_low: bool, meaning: str) -> None:
    value = _get(c, key)
    if not ((0 < value if open_low else 0 <= value) and value <= 1):
        _fail(key, f"{value!r} is not in {'(' if open_low else '['}0, 1] ({meaning})")


def _check_env(c: TrainConfig) -> None:
    if c.env.vec_env not in ("subproc", "dummy", "batched"):
        _fail("env.vec_env", f"{c.env.vec_env!r} is not subproc, dummy or batched")
    _at_least(c, "env.n_envs", 1, "environments stepped together")
    _at_least(c, "env.workers", 0, "processes for vec_env batched; 0: the learner's own")
    if c.env.workers > 0 and c.env.vec_env != "batched":
        _fail("env.workers", f"splits vec_env batched's envs over processes; vec_env {c.env.vec_env} has its own "
                             "(subproc: one per env, dummy: none)")
    if c.env.actions not in ("moves", "steps"):
        _fail("env.actions", f"{c.env.actions!r} is not moves or steps")
    if c.env.actions not in _action_spaces(c.game):
        _fail("env.actions", f"{c.env.actions!r}: {c.game} has {' or '.join(_action_spaces(c.game))} only (steps are "
                             "naval-v1's; the skirmish's moves are already factored into steps)")


def _check_policy(c: TrainConfig) -> None:
    p = c.policy
    if p.features not in ("mlp", "hex_cnn", "hex_fcn", "naval_cards", "skirmish_hex", "grid_fcn"):
        _fail("policy.features",
              f"{p.features!r} is not mlp, hex_cnn, hex_fcn, naval_cards, skirmish_hex or grid_fcn")
    if p.features == "grid_fcn" and c.game != "tankattack":
        _fail("policy.features", "grid_fcn reads Tank Attack's square-grid planes and steps; use it with game tankattack")
    if p.features in ("hex_cnn", "hex_fcn") and c.game != "hexwar":
        _fail("policy.features", f"{p.features} reads the hex game's planes; use mlp or naval_cards for naval, "
                                 "skirmish_hex for the skirmish")
    if p.distance_fields and p.features not in ("hex_fcn", "grid_fcn"):
        _fail("policy.distance_fields", f"reads the hex game's or Tank Attack's planes; it needs features hex_fcn "
                                        f"or grid_fcn, not {p.features!r}")
    if p.features == "skirmish_hex" and c.game != "skirmish":
        _fail("policy.features", "skirmish_hex reads the skirmish's planes and steps; use it with game skirmish")
    if p.features == "naval_cards" and (c.game != "naval" or c.env.actions != "steps"):
        _fail("policy.features", "naval_cards scores naval-v1's steps: use it with game naval and env.actions: steps")
    for key in ("policy.conv_channels", "policy.conv_blocks", "policy.embed_dim", "policy.hidden"):
        _at_least(c, key, 1, "a layer size or count")
    for key, sizes in (("policy.net_arch", p.net_arch), ("policy.cnn_channels", p.cnn_channels)):
        if any(n < 1 for n in sizes):
            _fail(key, "layer sizes must be positive")
    if p.features_dim < 0:
        _fail("policy.features_dim", "layer sizes must be positive (features_dim 0 means no bottleneck layer)")
    if p.activation not in ("relu", "tanh"):
        _fail("policy.activation", f"{p.activation!r} is not relu or tanh")


def _check_ppo(c: TrainConfig) -> None:
    h = c.ppo
    _positive(c, "ppo.learning_rate")
    _at_least(c, "ppo.n_steps", 1, "steps per env and rollout")
    _at_least(c, "ppo.batch_size", 2, "steps per minibatch; PPO normalises advantages over it")
    _at_least(c, "ppo.n_epochs", 1, "passes over each rollout")
    if h.batch_size > h.n_steps * c.env.n_envs:
        _fail("ppo.batch_size", f"{h.batch_size} is more than one rollout (ppo.n_steps {h.n_steps} x env.n_envs "
                                f"{c.env.n_envs} = {h.n_steps * c.env.n_envs} steps)")
    _in_unit_interval(c, "ppo.gamma", True, "the discount of future rewards")
    _in_unit_interval(c, "ppo.gae_lambda", True, "the GAE bias-variance trade-off")
    _in_unit_interval(c, "ppo.clip_range", True, "how far one update may move the policy's probability ratio")
    for key in ("ppo.ent_coef", "ppo.vf_coef"):
        if _get(c, key) < 0:
            _fail(key, f"{_get(c, key)!r} must be 0 or more (a loss weight)")
    _positive(c, "ppo.max_grad_norm")
    if h.target_kl is not None:
        _positive(c, "ppo.target_kl")
    if h.imitation_kl < 0:
        _fail("ppo.imitation_kl", f"{h.imitation_kl!r} must be 0 or more (a loss weight)")
    if h.imitation_kl > 0 and not (c.imitation.games > 0 or c.init):
        _fail("ppo.imitation_kl", f"{h.imitation_kl!r} pulls towards the warm start's policy, and this run has none: "
                                  "set imitation.games (a fit to the teacher) or init (a fitted model), or 0")


def _check_opponents(c: TrainConfig) -> None:
    o = c.opponents
    for i, path in enumerate(o.seed_snapshots):
        if not Path(str(path)).is_file():
            _fail(f"opponents.seed_snapshots[{i}]", f"{path!r} is not a model file")
    if not o.schedule:
        _fail("opponents.schedule", "needs at least one phase")
    for i, phase in enumerate(o.schedule):
        if phase.from_step < 0:
            _fail(f"opponents.schedule[{i}].from_step", f"{phase.from_step} must be 0 or more")
        for member, weight in phase.mix.items():
            if member not in POOL_MEMBERS:
                _fail(f"opponents.schedule[{i}].mix", f"unknown opponent {member!r}; known: {', '.join(POOL_MEMBERS)}")
            if isinstance(weight, bool) or not isinstance(weight, (int, float)) or not math.isfinite(weight) \
                    or weight < 0:
                _fail(f"opponents.schedule[{i}].mix.{member}", f"{weight!r}: weights are numbers >= 0")
        if sum(phase.mix.values()) <= 0:
            _fail(f"opponents.schedule[{i}].mix", "at least one weight must be above 0")
    _at_least(c, "opponents.snapshot_every", 1, "steps")
    _at_least(c, "opponents.max_snapshots", 1, "snapshots kept in the pool")


def _check_specs(c: TrainConfig) -> None:
    """Every agent spec, with its options typed and range-checked for the game (no model is loaded)."""
    from cardwar.agents import AgentSpecError
    from cardwar.agents import check_spec

    for where, specs in (("eval.opponents", c.eval.opponents), ("opponents.heuristic", [c.opponents.heuristic]),
                         ("imitation.teacher", [c.imitation.teacher]), ("imitation.opponents", c.imitation.opponents)):
        for spec in specs:
            try:
                check_spec(spec, c.game)
            except AgentSpecError as err:
                _fail(where, str(err))


def with_step_budget(config: TrainConfig, steps: int) -> tuple[TrainConfig, str | None]:
    """``config`` with ``total_steps = steps``, its imitation budget scaled down with it.

    ``imitation.games`` is written for the config's own ``total_steps``; a smaller budget
    (``cardwar train --steps N``) keeps the warm start's share of the run: games become
    ``ceil(games * N / total_steps)`` (at least 1). A larger budget keeps the games as written.
    Returns the new config and a note saying what was scaled (None if nothing was).
    """
    data = config.to_dict()
    data["total_steps"] = steps
    note = None
    games = config.imitation.games
    if games > 0 and steps < config.total_steps:
        scaled = max(1, math.ceil(games * steps / config.total_steps))
        if scaled < games:
            data["imitation"]["games"] = scaled
            note = (f"imitation.games scaled from {games} to {scaled} with the step budget "
                    f"({steps:,} of the config's {config.total_steps:,} steps)")
    return config_from_dict(data), note


def _build(cls: type, data: Any, where: str) -> Any:
    """``cls`` from a mapping, with every key and type checked."""
    if data is None:
        data = {}
    if not isinstance(data, dict):
        _fail(where or "config", f"expected a mapping of keys, got {type(data).__name__}")
    hints = typing.get_type_hints(cls)
    fields = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(data) - fields, key=str)
    if unknown:
        import difflib

        hint = difflib.get_close_matches(str(unknown[0]), fields, n=1)
        extra = f" (did you mean {hint[0]!r}?)" if hint else ""
        _fail(_join(where, unknown[0]), f"unknown key{extra}; known keys: {', '.join(sorted(fields))}")
    kwargs = {k: _convert(hints[k], v, _join(where, k)) for k, v in data.items()}
    try:
        return cls(**kwargs)
    except TrainConfigError:
        raise
    except (TypeError, ValueError) as err:
        _fail(where or "config", str(err))


def _join(where: str, key: Any) -> str:
    return f"{where}.{key}" if where else str(key)


def _convert(tp: Any, value: Any, where: str) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if dataclasses.is_dataclass(tp):
        return _build(tp, value, where)
    if origin in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        if value is None and type(None) in args:
            return None
        inner = [a for a in args if a is not type(None)]
        return _convert(inner[0], value, where)
    if origin is list:
        if not isinstance(value, list):
            _fail(where, f"expected a list, got {value!r}")
        return [_convert(args[0], v, f"{where}[{i}]") for i, v in enumerate(value)]
    if origin is dict:
        if not isinstance(value, dict):
            _fail(where, f"expected a mapping, got {value!r}")
        return dict(value) if args[1] is Any else {k: _convert(args[1], v, f"{where}.{k}") for k, v in value.items()}
    if tp is float:
        if isinstance(value, str):  # YAML reads 1e-4 (no dot) as text
            try:
                value = float(value.replace("_", ""))
            except ValueError:
                pass
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            _fail(where, f"expected a number, got {value!r}")
        return float(value)
    if tp is int:
        if isinstance(value, str):
            try:
                value = float(value.replace("_", ""))
            except ValueError:
                pass
        if isinstance(value, bool) or not (isinstance(value, int) or isinstance(value, float) and value.is_integer()):
            _fail(where, f"expected a whole number, got {value!r}")
        return int(value)
    if tp is str:
        if not isinstance(value, str):
            _fail(where, f"expected text, got {value!r}")
        return value
    if tp is bool:
        if not isinstance(value, bool):
            _fail(where, f"expected true or false, got {value!r}")
        return value
    return value


def config_from_dict(data: Any) -> TrainConfig:
    """A checked :class:`TrainConfig` from parsed YAML."""
    return _build(TrainConfig, data, "")


def yaml_problem(err: yaml.YAMLError) -> str:
    """A YAML error in one line: ``line 3, column 1: expected the node content, but found '<stream end>'``."""
    mark = getattr(err, "problem_mark", None)
    problem = getattr(err, "problem", None) or str(err)
    where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
    return where + " ".join(str(problem).split())


def load_config(path: str | Path, overrides: list[str] | None = None) -> TrainConfig:
    """Read and check a YAML config; ``overrides`` are ``a.b=value`` strings applied on top."""
    path = Path(path)
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise TrainConfigError(f"{path}: no such config file") from None
    except yaml.YAMLError as err:
        raise TrainConfigError(f"{path}: not valid YAML ({yaml_problem(err)})") from None
    data = data or {}
    if not isinstance(data, dict):
        raise TrainConfigError(f"{path}: expected a mapping of keys at the top, got {type(data).__name__}")
    for item in overrides or []:
        key, eq, text = item.partition("=")
        if not eq or not key.strip():
            raise TrainConfigError(f"override {item!r} is not KEY=VALUE")
        node = data
        parts = key.strip().split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
            if not isinstance(node, dict):
                raise TrainConfigError(f"override {item!r}: {p!r} is not a section with keys")
        try:
            node[parts[-1]] = yaml.safe_load(text)
        except yaml.YAMLError as err:
            raise TrainConfigError(f"override {item!r}: the value is not valid YAML ({yaml_problem(err)})") from None
    try:
        return config_from_dict(data)
    except TrainConfigError as err:
        raise TrainConfigError(f"{path}: {err}") from None
