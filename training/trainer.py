"""``cardwar train``: MaskablePPO by self-play, in a run folder that can be resumed.

A run lives in ``runs/<game>__<name>__<seed>__<time>/``:

- ``config.yaml`` (the resolved config) and ``command.txt``;
- ``tb/`` TensorBoard logs (``tensorboard --logdir runs``);
- ``versions.json`` (cardwar and its git commit, Python, the libraries, the CPU count) and
  ``budget.json`` (the step budget and the steps trained: whole rollouts);
- ``checkpoints/model_<step>.zip`` + ``state_<step>.json`` (the opponent pool) + ``resume_<step>.pkl``
  (RNGs, env states, SB3's counters: what makes a resume exact), all at rollout boundaries;
- ``snapshots/`` the frozen learners in the pool;
- ``eval.csv`` and ``curve.png`` (score rate against ``heuristic`` and ``random``);
- ``imitation/`` while a warm start is under way (the teacher's games played so far, the fit after
  each epoch), replaced by ``imitation.json`` (the fit) and the step-0 checkpoint once it is done;
- ``final.zip`` when the run reaches its step budget (after a final evaluation);
- ``cpu.json``: the CPU seconds the run has cost, the trainer's and its workers', added up over every
  session (resume) of it: what a model cost to make.

A run goes through phases: imitation data collection and fitting (if ``imitation.games``),
then self-play (PPO, with evaluations), then a final evaluation. Ctrl-C or SIGTERM in any of
them saves what that phase has (see :mod:`cardwar.training.interrupts`) and prints the
``--resume`` command; ``resume(run_dir)`` goes on from there: the games already played are
kept, the fit goes on from its last epoch, PPO from its latest checkpoint exactly as the run would
have gone on (same weights, pool and evaluations; docs/training.md gives the limits). A failing
worker process ends the run with one line (:class:`~cardwar.training.workers.WorkerError`), after
the same saving.
"""

from __future__ import annotations

import contextlib
import json
import re
import shlex
import shutil
import sys
import time
from pathlib import Path
from collections.abc import Iterator
from typing import Any

import yaml

from cardwar.training.callbacks import (RunCallback, RunStatus, save_atomically, save_checkpoint,
                                        write_json_atomically)
from cardwar.training.config import TrainConfig, TrainConfigError, config_from_dict, yaml_problem
from cardwar.training.interrupts import RunInterrupted, save_on_interrupt
from cardwar.training.selfplay_env import SelfPlayEnv
from cardwar.training.vec_env import close_vec_env, make_vec_env
from cardwar.training.workers import WorkerError

__all__ = ["RunError", "RunInterrupted", "WorkerError", "check_env_settings", "checkpoints", "close_vec_env",
           "export_for_play", "latest_checkpoint", "make_vec_env", "new_model", "new_run_dir", "resume", "train"]


class RunError(ValueError):
    """A run folder that cannot be resumed, or a run that cannot start."""


def policy_class(config: TrainConfig) -> Any:
    """The SB3 policy (class or name) the config's ``policy.features`` names."""
    if config.policy.features == "hex_fcn":
        from cardwar.training.hex_policy import HexConvPolicy

        return HexConvPolicy
    if config.policy.features == "naval_cards":
        from cardwar.training.naval_policy import NavalCardPolicy

        return NavalCardPolicy
    if config.policy.features == "skirmish_hex":
        from cardwar.training.skirmish_policy import SkirmishPolicy

        return SkirmishPolicy
    if config.policy.features == "grid_fcn":
        from cardwar.training.grid_policy import GridPolicy

        return GridPolicy
    return "MlpPolicy"


def policy_kwargs(config: TrainConfig) -> dict[str, Any]:
    """The network the config names, as SB3 ``policy_kwargs``."""
    from torch import nn

    p = config.policy
    if p.features in ("hex_fcn", "grid_fcn") and p.distance_fields:
        return {"channels": p.conv_channels, "blocks": p.conv_blocks, "fields": True}
    if p.features in ("hex_fcn", "skirmish_hex", "grid_fcn"):
        return {"channels": p.conv_channels, "blocks": p.conv_blocks}
    if p.features == "naval_cards":
        return {"embed_dim": p.embed_dim, "hidden": p.hidden}
    kwargs: dict[str, Any] = {"net_arch": {"pi": list(p.net_arch), "vf": list(p.net_arch)},
                              "activation_fn": nn.ReLU if p.activation == "relu" else nn.Tanh}
    if p.features == "hex_cnn":
        from cardwar.training.features import HexCNN

        kwargs["features_extractor_class"] = HexCNN
        kwargs["features_extractor_kwargs"] = {"features_dim": p.features_dim, "channels": tuple(p.cnn_channels)}
    return kwargs


def new_model(config: TrainConfig, vec_env: Any, run_dir: Path) -> Any:
    from sb3_contrib import MaskablePPO

    h = config.ppo
    return MaskablePPO(policy_class(config), vec_env, learning_rate=h.learning_rate, n_steps=h.n_steps,
                       batch_size=h.batch_size, n_epochs=h.n_epochs, gamma=h.gamma, gae_lambda=h.gae_lambda,
                       clip_range=h.clip_range, ent_coef=h.ent_coef, vf_coef=h.vf_coef,
                       max_grad_norm=h.max_grad_norm, target_kl=h.target_kl, policy_kwargs=policy_kwargs(config),
                       tensorboard_log=str(run_dir / "tb"), seed=config.seed, device=config.device, verbose=0)


def new_run_dir(config: TrainConfig, root: Path = Path("runs")) -> Path:
    """``runs/<game>__<name>__<seed>__<time>/`` with the resolved config and the command written in."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = root / f"{config.game}__{config.name}__{config.seed}__{stamp}"
    n = 1
    while run_dir.exists():
        n += 1
        run_dir = root / f"{config.game}__{config.name}__{config.seed}__{stamp}-{n}"
    run_dir.mkdir(parents=True)
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
    (run_dir / "command.txt").write_text(shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) + "\n")
    record_versions(run_dir)
    return run_dir


VERSIONED = ("torch", "numpy", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib")


def git_commit(folder: Path) -> str | None:
    """``git rev-parse HEAD`` in ``folder`` (with ``-dirty`` when files differ from it); None outside a
    checkout or without git."""
    import subprocess

    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True, timeout=10)
        if head.returncode != 0:
            return None
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=folder,
                               capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return head.stdout.strip() + ("-dirty" if dirty.returncode == 0 and dirty.stdout.strip() else "")


def versions() -> dict[str, Any]:
    """What made this run: cardwar (and its git commit), Python, the libraries that decide the numbers, the CPUs."""
    import os
    import platform
    from importlib.metadata import PackageNotFoundError, version

    import cardwar

    record: dict[str, Any] = {"cardwar": cardwar.__version__,
                              "cardwar_git_commit": git_commit(Path(cardwar.__file__).resolve().parent),
                              "python": platform.python_version()}
    for name in VERSIONED:
        try:
            record[name] = version(name)
        except PackageNotFoundError:
            record[name] = None
    record["cpu_count"] = os.cpu_count()
    record["platform"] = platform.platform()
    return record


def record_versions(run_dir: Path) -> None:
    """``versions.json``: the versions of the run's first session; a resume under other versions adds
    an entry under ``resumed`` and says so (the exact-resume promise holds under the same versions only)."""
    import json

    path = run_dir / "versions.json"
    now = versions()
    if not path.exists():
        path.write_text(json.dumps(now, indent=2) + "\n")
        return
    record = json.loads(path.read_text())
    first = {k: v for k, v in record.items() if k != "resumed"}
    if now != first and now not in record.get("resumed", []):
        changed = ", ".join(f"{k} {first.get(k)} -> {v}" for k, v in now.items() if first.get(k) != v)
        print(f"note: resumed under other versions than the run started with ({changed}); "
              "the run goes on, but not bit for bit as it would have", file=sys.stderr)
        record.setdefault("resumed", []).append(now)
        tmp = path.with_suffix(".partial")
        tmp.write_text(json.dumps(record, indent=2) + "\n")
        tmp.replace(path)


def latest_checkpoint(run_dir: Path) -> tuple[Path, dict] | None:
    """The newest complete checkpoint of a run and its pool state."""
    found = checkpoints(run_dir)
    return found[0] if found else None


def checkpoints(run_dir: Path) -> list[tuple[Path, dict]]:
    """The run's complete checkpoints (model and pool state both there), newest first."""
    import json

    found = []
    for path in (run_dir / "checkpoints").glob("model_*.zip"):
        m = re.fullmatch(r"model_(\d+)\.zip", path.name)
        state = path.with_name(f"state_{m.group(1)}.json") if m else None
        if m and state.exists():
            found.append((int(m.group(1)), path, state))
    return [(path, json.loads(state.read_text())) for _, path, state in sorted(found, reverse=True)]


def train(config: TrainConfig, runs_root: Path = Path("runs"), progress: bool = True) -> Path:
    """A new run of ``config``; returns its folder."""
    check_env_settings(config)
    run_dir = new_run_dir(config, runs_root)
    _run(config, run_dir, progress)
    return run_dir


def check_env_settings(config: TrainConfig, init: bool = True) -> None:
    """Fail before any folder or process is made if the scenario, rule options, an agent or (``init``) the
    model to start from are wrong."""
    from cardwar.envs.hexwar.config import HexConfigError
    from cardwar.envs.hexwar.scenario import ScenarioError
    from cardwar.envs.naval import ConfigError
    from cardwar.envs.skirmish.rules import SkirmishRulesError
    from cardwar.envs.skirmish.scenario import ScenarioError as SkirmishScenarioError
    from cardwar.training.scenario_mix import ScenarioMixError

    bad_env = (ConfigError, HexConfigError, ScenarioError, SkirmishRulesError, SkirmishScenarioError,
               ScenarioMixError, FileNotFoundError)

    from cardwar.agents.spec import AgentSpecError
    from cardwar import agents
    from cardwar.training.callbacks import eval_scenario

    try:
        SelfPlayEnv(config.game, scenario=config.env.scenario, rules=config.env.rules, actions=config.env.actions)
    except bad_env as err:
        raise TrainConfigError(f"env: {err}") from None
    if config.init and init:
        check_initial_model(config)
    if config.eval.games > 0:
        try:
            SelfPlayEnv(config.game, scenario=eval_scenario(config), rules=config.env.rules)
        except bad_env as err:
            raise TrainConfigError(f"eval.scenario: {err}") from None
    specs = [("opponents.heuristic", config.opponents.heuristic)]
    specs += [("eval.opponents", s) for s in config.eval.opponents]
    if config.imitation.games > 0:
        specs += [("imitation.teacher", config.imitation.teacher)]
        specs += [("imitation.opponents", s) for s in config.imitation.opponents]
    for where, spec in specs:
        try:
            agents.check_spec(spec, config.game)
            if spec.split(":", 1)[0].strip() == "ppo":  # loading the model checks that it fits the game
                agents.make(spec, config.game)
        except AgentSpecError as err:
            raise TrainConfigError(f"{where}: {err}") from None


def resume(run_dir: Path, total_steps: int | None = None, progress: bool = True, game: str | None = None) -> Path:
    """Continue ``run_dir`` from where it stopped (to ``total_steps`` if given), whatever phase that was."""
    run_dir = Path(run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise RunError(f"{run_dir}: not a run folder (no config.yaml); runs are made by `cardwar train`")
    try:
        config = config_from_dict(yaml.safe_load((run_dir / "config.yaml").read_text()))
    except TrainConfigError as err:
        raise RunError(f"{run_dir}/config.yaml: {err}") from None
    except yaml.YAMLError as err:
        raise RunError(f"{run_dir}/config.yaml: not valid YAML ({yaml_problem(err)})") from None
    if game is not None and config.game != game:
        raise RunError(f"{run_dir} is a {config.game} run, not {game}")
    if total_steps is not None:
        rollout = config.ppo.n_steps * config.env.n_envs
        if total_steps < rollout:
            raise RunError(f"--steps {total_steps} is less than one rollout (ppo.n_steps {config.ppo.n_steps} x "
                           f"env.n_envs {config.env.n_envs} = {rollout} steps)")
        config.total_steps = total_steps
        tmp = run_dir / "config.yaml.partial"  # the new budget is the run's from now on
        tmp.write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        tmp.replace(run_dir / "config.yaml")
    found = checkpoints(run_dir)
    check_env_settings(config, init=not found)  # once a checkpoint holds the weights, init is not read again
    where = f"step {found[0][1]['num_timesteps']}" if found else "the start"
    with (run_dir / "command.txt").open("a") as f:
        f.write(shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) + f"   # resumed at {where}\n")
    record_versions(run_dir)
    _run(config, run_dir, progress)
    return run_dir


def cpu_seconds() -> float:
    """CPU seconds (user + system) of this process and of its workers that have ended."""
    import resource

    me, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + children.ru_utime + children.ru_stime


@contextlib.contextmanager
def count_cpu(run_dir: Path, start: float) -> Iterator[None]:
    """Add this session's CPU time (the trainer's and its ended workers') to the run's ``cpu.json``, however the
    session ends (a ``kill -9`` loses that session's share): the total a model cost, across resumes."""
    try:
        yield
    finally:
        path = run_dir / "cpu.json"
        try:
            before = json.loads(path.read_text()) if path.is_file() else {}
        except (OSError, ValueError):
            before = {}
        record = {"cpu_seconds": round(float(before.get("cpu_seconds", 0.0)) + cpu_seconds() - start, 1),
                  "sessions": int(before.get("sessions", 0)) + 1}
        write_json_atomically(path, record)


def resume_command(config: TrainConfig, run_dir: Path) -> str:
    """The command that goes on with ``run_dir``."""
    return shlex.join(["cardwar", "train", config.game, "--resume", str(run_dir)])


def _run(config: TrainConfig, run_dir: Path, progress: bool) -> None:
    """Every phase still to do: the warm start (unless a checkpoint exists), then self-play to the budget."""
    import os

    import torch

    status = RunStatus()
    threads = torch.get_num_threads()
    # The trainer shares the cores with its workers (and whatever else runs): torch threads that wait on
    # each other for a busy core cost far more than they give (an imitation epoch took 2.3x longer on 2
    # threads than on 1 on this 2-core machine with one other busy process), so it takes half the cores.
    torch.set_num_threads(max(1, min(threads, (os.cpu_count() or 2) // 2)))
    cpu_start = cpu_seconds()
    with save_on_interrupt(), count_cpu(run_dir, cpu_start):
        try:
            if not checkpoints(run_dir):
                _start(config, run_dir, progress, status)
            _self_play(config, run_dir, progress, status)
        except RunInterrupted as err:
            print(f"\ninterrupted ({err.name}) during {status.phase}: {status.saved()}; "
                  f"go on with `{resume_command(config, run_dir)}`", file=sys.stderr, flush=True)
            raise
        except WorkerError as err:
            raise WorkerError(f"{err} (during {status.phase}; {status.saved()}; once it is fixed, go on with "
                              f"`{resume_command(config, run_dir)}`)") from None
        finally:
            torch.set_num_threads(threads)


def _start(config: TrainConfig, run_dir: Path, progress: bool, status: RunStatus) -> None:
    """The policy PPO starts from (after the warm start, if any), saved as the step-0 checkpoint."""
    placeholder = make_vec_env(config, in_process=True)  # the model's spaces and buffer size; no process
    model = new_model(config, placeholder, run_dir)
    if config.init:
        load_initial_weights(model, config)
    if config.imitation.games > 0:
        warm_start(model, config, run_dir, progress, status)
    if config.ppo.imitation_kl > 0:  # before the step-0 checkpoint: a run with a checkpoint has its reference
        from cardwar.training.kl_pull import save_reference

        save_reference(model, run_dir)
    save_checkpoint(model, run_dir, snapshots=seed_snapshots(config, run_dir), mix=config.mix_at(0),
                    seconds=status.seconds())
    shutil.rmtree(run_dir / "imitation", ignore_errors=True)  # the step-0 checkpoint holds all it was for


def seed_snapshots(config: TrainConfig, run_dir: Path) -> list[str]:
    """``opponents.seed_snapshots`` copied into the run's ``snapshots/``: the pool's first members, kept (and
    retired) with the run's own snapshots."""
    folder, paths = run_dir / "snapshots", []
    for i, source in enumerate(config.opponents.seed_snapshots):
        folder.mkdir(exist_ok=True)
        path = (folder / f"seed_{i:02d}_{Path(source).name}").resolve()
        shutil.copyfile(source, path)
        paths.append(str(path))
    return paths


def initial_model_path(config: TrainConfig) -> Path:
    """The file ``init`` names (``ppo``: the game's shipped model)."""
    from cardwar.agents.ppo_agent import pretrained_path

    return pretrained_path(config.game) if config.init == "ppo" else Path(str(config.init))


def _initial_state(model: Any, config: TrainConfig) -> dict:
    """The ``init`` model's weights, checked to fit ``model``'s network (a one-line error otherwise)."""
    from cardwar.agents.ppo_agent import load_model
    from cardwar.agents.spec import AgentSpecError

    path = initial_model_path(config)
    try:
        source = load_model(path, config.game, cache=False)
    except AgentSpecError as err:
        raise TrainConfigError(f"init: {err}") from None
    mine, theirs = model.policy.state_dict(), source.policy.state_dict()
    if mine.keys() != theirs.keys() or any(mine[k].shape != theirs[k].shape for k in mine):
        raise TrainConfigError(f"init: {str(path)!r} is another network than the policy section names "
                               f"({config.policy.features}); set the policy to the model's")
    return {k: v.to(mine[k].dtype) for k, v in theirs.items()}


def check_initial_model(config: TrainConfig) -> None:
    """Refuse a missing ``init`` model, or one of another network, before any folder is made."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        _initial_state(new_model(config, make_vec_env(config, in_process=True), Path(tmp)), config)


def load_initial_weights(model: Any, config: TrainConfig) -> None:
    """Copy the weights of the ``init`` model into ``model``."""
    model.policy.load_state_dict(_initial_state(model, config))


def warm_start(model: Any, config: TrainConfig, run_dir: Path, progress: bool = True,
               status: RunStatus | None = None) -> None:
    """Imitation of the teacher before self-play (``imitation`` section); the fit goes to imitation.json.

    Its work in progress is kept in ``imitation/`` (games played, the fit after each epoch), so an
    interrupted warm start goes on where it stopped.
    """
    import json
    import os

    from cardwar.training.imitation import collect, games_kept, pretrain

    status = status or RunStatus()
    im = config.imitation
    folder = run_dir / "imitation"
    status.enter("imitation (playing the teacher's games)",
                 saved=lambda: f"the {games_kept(folder)} of {im.games} teacher games finished are kept",
                 announce=f"imitation: playing {im.games} games of {im.teacher}")
    demos = collect(config.game, im.games, im.teacher, tuple(im.opponents), config.env.scenario,
                    config.env.rules, seed=config.seed * 1_000_003, workers=min(4, os.cpu_count() or 1),
                    progress=progress, folder=folder)
    from cardwar.training.imitation import to_steps

    if config.env.actions == "steps":  # the teacher plays whole moves; naval-v1's learner fits their steps
        demos = to_steps(demos)

    def fit_saved() -> str:
        from cardwar.training.imitation import _load_fit

        saved = _load_fit(folder / "fit.pt", len(demos))
        if saved is None:
            return f"the {im.games} teacher games are kept (the fit starts over)"
        return f"the {im.games} teacher games and the fit after epoch {saved['epoch']} of {im.epochs} are kept"

    status.enter("imitation (fitting the policy)", saved=fit_saved,
                 announce=f"imitation: fitting the policy to {len(demos):,} moves ({im.epochs} epochs)")
    stats = pretrain(model.policy, demos, im.epochs, im.batch_size, im.learning_rate, seed=config.seed,
                     progress=progress, state_path=folder / "fit.pt", targets=im.targets, value_coef=im.value_coef)
    for round_ in range(1, im.dagger_rounds + 1):  # DAgger: the fitted policy plays, the teacher labels
        from cardwar.training.imitation import join

        status.enter(f"imitation (DAgger round {round_}: the learner's games)",
                     saved=lambda: "the teacher's games, earlier rounds and this round's finished games are kept")
        extra = collect(config.game, max(im.games // 2, 2), im.teacher, tuple(im.opponents), config.env.scenario,
                        config.env.rules, seed=config.seed * 1_000_003 + 10_000_000 * round_,
                        workers=min(4, os.cpu_count() or 1), progress=progress, folder=folder / f"dagger_{round_}",
                        learner=model)
        demos = join([demos, to_steps(extra) if config.env.actions == "steps" else extra])
        status.enter(f"imitation (DAgger round {round_}: fitting)",
                     saved=lambda: "the teacher's games, the DAgger games and the fit's last epoch are kept",
                     announce=f"imitation: DAgger round {round_}, fitting to {len(demos):,} moves")
        stats = pretrain(model.policy, demos, im.epochs, im.batch_size, im.learning_rate, seed=config.seed,
                         progress=progress, state_path=folder / f"fit_dagger_{round_}.pt", targets=im.targets,
                         value_coef=im.value_coef)
        stats["dagger_round"] = round_
    (run_dir / "imitation.json").write_text(json.dumps(stats, indent=2))


def _self_play(config: TrainConfig, run_dir: Path, progress: bool, status: RunStatus) -> None:
    """PPO from the latest checkpoint to the step budget, then the final evaluation and ``final.zip``."""
    found = checkpoints(run_dir)
    status.enter("self-play (starting the envs)", saved=lambda: f"the checkpoint at step "
                                                                 f"{found[0][1]['num_timesteps']} is kept")
    vec_env = make_vec_env(config)
    try:
        model, state, path = _load_latest(found, vec_env, run_dir, config.device, kl_pull=config.ppo.imitation_kl > 0)
        if config.ppo.imitation_kl > 0:  # every session pulls towards the reference the warm start saved
            from cardwar.training.kl_pull import load_reference

            try:
                model.set_kl_pull(load_reference(run_dir, model.device), config.ppo.imitation_kl)
            except FileNotFoundError as err:
                raise RunError(str(err)) from None
        step = model.num_timesteps
        snapshots = [str((run_dir / "snapshots" / name).resolve()) for name in state.get("snapshots", [])
                     if (run_dir / "snapshots" / name).is_file()]
        if len(snapshots) < len(state.get("snapshots", [])):
            print(f"warning: {len(state['snapshots']) - len(snapshots)} snapshot(s) of the pool are missing",
                  file=sys.stderr)
        announce_budget(config, run_dir, step)
        extra = path.with_name(f"resume_{step:09d}.pkl")
        schedule = _restore(model, vec_env, extra) if extra.is_file() else None
        if schedule is None:  # the step-0 checkpoint, or an older run's: the envs start new games
            model._last_obs = None
            model.set_random_seed(config.seed + step)
            _truncate_eval(run_dir / "eval.csv", step, keep_step=True)
        else:  # the boundary's snapshot, evaluation and checkpoint are redone as they were
            _truncate_eval(run_dir / "eval.csv", step, keep_step=False)
        status.resume_clock(state.get("seconds", 0.0))  # the curve against time goes on where the checkpoint was
        _learn(model, config, run_dir, snapshots, progress, status, schedule)
    finally:
        close_vec_env(vec_env)


def _restore(model: Any, vec_env: Any, path: Path) -> dict | None:
    """Put the run back as it was at the checkpoint's rollout boundary; its event schedule, or None if
    the file cannot be read (the run then goes on re-seeded, not exactly)."""
    import cloudpickle
    import numpy as np

    from cardwar.training.callbacks import restore_rngs

    try:
        data = cloudpickle.loads(path.read_bytes())
    except Exception as err:  # noqa: BLE001 - a damaged file: go on as before this feature
        print(f"warning: {path.name} cannot be read ({err}); the run goes on re-seeded, not exactly",
              file=sys.stderr)
        return None
    if len(data["envs"]) != vec_env.num_envs:
        print(f"warning: {path.name} has {len(data['envs'])} envs, the config {vec_env.num_envs}; "
              "the run goes on re-seeded, not exactly", file=sys.stderr)
        return None
    for k, blob in enumerate(data["envs"]):
        vec_env.env_method("set_state", blob, indices=[k])
    model._last_obs = np.copy(data["last_obs"])
    model._last_episode_starts = np.copy(data["last_episode_starts"])
    from collections import deque

    model.ep_info_buffer = deque(data["ep_info_buffer"], maxlen=model._stats_window_size)
    model.ep_success_buffer = deque(data["ep_success_buffer"], maxlen=model._stats_window_size)
    restore_rngs(data["rngs"])  # last: loading the model re-seeded them
    return data["schedule"]


def rollout_size(config: TrainConfig) -> int:
    """Steps per rollout: ``ppo.n_steps x env.n_envs``."""
    return config.ppo.n_steps * config.env.n_envs


def trained_steps(config: TrainConfig, step: int = 0) -> int:
    """Where a run at ``step`` (a rollout boundary) stops: the first whole rollout at or past ``total_steps``."""
    rollout = rollout_size(config)
    return step + max(0, -(-(config.total_steps - step) // rollout)) * rollout


def announce_budget(config: TrainConfig, run_dir: Path, step: int) -> None:
    """Print (one line) and write ``budget.json`` when the budget is not a whole number of rollouts."""
    import json

    end = trained_steps(config, step)
    rollout = rollout_size(config)
    record = {"total_steps": config.total_steps, "trained_steps": end, "rollout": rollout,
              "n_steps": config.ppo.n_steps, "n_envs": config.env.n_envs}
    (run_dir / "budget.json").write_text(json.dumps(record, indent=2) + "\n")
    if end != config.total_steps:
        print(f"note: {config.total_steps:,} steps is not a whole number of rollouts of {rollout:,} "
              f"(ppo.n_steps {config.ppo.n_steps} x env.n_envs {config.env.n_envs}): the run trains "
              f"{end:,} steps (budget.json)", file=sys.stderr, flush=True)


def load_checkpoint(path: Path, vec_env: Any, run_dir: Path, device: str, kl_pull: bool = False) -> Any:
    """The model saved at ``path``, on ``vec_env`` (``kl_pull``: as a :class:`~cardwar.training.kl_pull.KLPullPPO`,
    whose reference the caller sets). A checkpoint saved with an older observation layout that its
    policy still reads (``adopt_current_layout``: the skirmish's planes first, before issue 28) is built on the
    env's space instead: the same weights, its trunk reads the new layout, so the run goes on as before."""
    from sb3_contrib import MaskablePPO

    from cardwar.training.kl_pull import KLPullPPO

    algorithm = KLPullPPO if kl_pull else MaskablePPO
    kwargs = {"device": device, "tensorboard_log": str(run_dir / "tb")}
    try:
        return algorithm.load(path, env=vec_env, **kwargs)
    except ValueError as err:
        if "Observation spaces do not match" not in str(err):
            raise
        policy = MaskablePPO.load(path, device="cpu").policy
        adopt = getattr(policy, "adopt_current_layout", None)
        if adopt is None or not adopt() or policy.observation_space != vec_env.observation_space:
            raise
        return algorithm.load(path, env=vec_env, custom_objects={"observation_space": vec_env.observation_space},
                              **kwargs)


def _load_latest(found: list[tuple[Path, dict]], vec_env: Any, run_dir: Path,
                 device: str, kl_pull: bool = False) -> tuple[Any, dict, Path]:
    """The newest checkpoint that loads (a damaged file falls back to the one before), its pool state and path."""
    for path, state in found:
        try:
            return load_checkpoint(path, vec_env, run_dir, device, kl_pull), state, path
        except Exception as err:  # noqa: BLE001 - any unreadable zip
            print(f"warning: checkpoint {path.name} cannot be loaded ({err}); trying the one before",
                  file=sys.stderr)
    raise RunError(f"{run_dir}: no checkpoint could be loaded")


def _learn(model: Any, config: TrainConfig, run_dir: Path, snapshots: list[str], progress: bool,
           status: RunStatus, schedule: dict | None = None) -> None:
    callback = RunCallback(config, run_dir, snapshots, progress=progress, status=status, schedule=schedule)
    step = model.num_timesteps

    def kept() -> str:
        boundary = callback.boundary.step if callback.boundary is not None else step
        return f"the checkpoint at step {boundary} is kept"

    status.enter("self-play", saved=kept, announce=f"self-play: steps {step:,} to {trained_steps(config, step):,}")
    try:
        # learn(0) too: it sets the callback up, and finish() makes up for a final evaluation cut short.
        model.learn(max(0, config.total_steps - step), callback=callback, reset_num_timesteps=False,
                    tb_log_name="ppo")
        callback.finish()
    except (RunInterrupted, WorkerError):
        path = callback.checkpoint()  # the last rollout boundary: a resume from it is exact
        if path is not None:
            status.saved = lambda: f"checkpoint {path} saved (the last rollout boundary)"
        raise


def export_for_play(model_path: Path, out: Path) -> Path:
    """A copy of a trained model for playing only: no optimizer state, float16 weights (a sixth of the size)."""
    import torch
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(model_path, device="cpu")
    model.policy.optimizer = torch.optim.Adam(model.policy.parameters(), lr=0.0)  # no moment estimates
    model.policy.half()  # weights stored in float16 (half the size); loading copies them back into float32
    out.parent.mkdir(parents=True, exist_ok=True)
    save_atomically(model, out)
    _deflate(out)
    return out


def _deflate(path: Path) -> None:
    """Rewrite a saved model's zip with every member deflated: SB3 stores them as they are, and the spaces it
    pickles into ``data`` hold the observation's bounds in full (the skirmish's 221 x 16 x 24 planes: 2.9 MB
    that deflate to a few kB). SB3 reads either."""
    import zipfile

    with zipfile.ZipFile(path) as src:
        members = [(info, src.read(info)) for info in src.infolist()]
    tmp = path.with_suffix(".partial")
    with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_DEFLATED) as dst:
        for info, data in members:
            info.compress_type = zipfile.ZIP_DEFLATED
            dst.writestr(info, data)
    tmp.replace(path)


def _truncate_eval(path: Path, step: int, keep_step: bool = True) -> None:
    """Drop evaluation rows recorded after the checkpoint (they will be measured again); at its step too
    unless ``keep_step`` (a resume redoes the evaluation of its boundary)."""
    if not path.exists():
        return
    lines = path.read_text().splitlines(keepends=True)
    if not lines:
        return
    def kept(line: str) -> bool:
        first = line.split(",", 1)[0]
        return first.isdigit() and (int(first) < step or (keep_step and int(first) == step))

    keep = [lines[0]] + [ln for ln in lines[1:] if kept(ln)]
    tmp = path.with_suffix(".partial")
    tmp.write_text("".join(keep))
    tmp.replace(path)
