"""``cardwar train``: MaskablePPO by self-play, in a run folder that can be resumed.

A run lives in ``runs/<game>__<name>__<seed>__<time>/``:

- ``config.yaml`` (the resolved config) and ``command.txt``;
- ``tb/`` TensorBoard logs (``tensorboard --logdir runs``);
- ``checkpoints/model_<step>.zip`` + ``state_<step>.json`` (the opponent pool);
- ``snapshots/`` the frozen learners in the pool;
- ``eval.csv`` and ``curve.png`` (score rate against ``heuristic`` and ``random``);
- ``final.zip`` when the run reaches its step budget.

``resume(run_dir)`` loads the latest checkpoint and goes on with the same step
count, config and pool.
"""

from __future__ import annotations

import functools
import re
import shlex
import signal
import sys
import time
from pathlib import Path
from typing import Any

import yaml

from cardwar.training.config import TrainConfig, TrainConfigError, config_from_dict
from cardwar.training.opponents import OpponentPool
from cardwar.training.selfplay_env import SelfPlayEnv


class RunError(ValueError):
    """A run folder that cannot be resumed, or a run that cannot start."""


def _env_factory(game: str, scenario: str | None, rules: dict, mix: dict[str, float], heuristic: str,
                 in_worker: bool = False):
    """Build one env (a module-level function, so it pickles)."""
    from stable_baselines3.common.monitor import Monitor

    if in_worker:  # a SubprocVecEnv process: Ctrl-C and kill are the trainer's to handle, not each worker's
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        import torch

        torch.set_num_threads(1)
    pool = OpponentPool(game, mix=mix, heuristic=heuristic)
    return Monitor(SelfPlayEnv(game, scenario=scenario, rules=rules, pool=pool))


def make_vec_env(config: TrainConfig) -> Any:
    """``n_envs`` self-play envs, in subprocesses or in this process."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    c = config
    subproc = c.env.vec_env == "subproc" and c.env.n_envs > 1
    fns = [functools.partial(_env_factory, c.game, c.env.scenario, c.env.rules, c.mix_at(0), c.opponents.heuristic,
                             in_worker=subproc)
           for _ in range(c.env.n_envs)]
    return SubprocVecEnv(fns, start_method="fork") if subproc else DummyVecEnv(fns)


def close_vec_env(venv: Any) -> None:
    """Close the envs, also when an interrupt left a step half-collected (``close`` would wait forever)."""
    processes = getattr(venv, "processes", None)
    if processes is not None and getattr(venv, "waiting", False):
        for p in processes:
            p.terminate()
        for p in processes:
            p.join(timeout=5)
        venv.closed = True
        return
    try:
        venv.close()
    except (EOFError, OSError):  # a worker already gone
        pass


def policy_kwargs(config: TrainConfig) -> dict[str, Any]:
    """The network the config names, as SB3 ``policy_kwargs``."""
    from torch import nn

    p = config.policy
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
    return MaskablePPO("MlpPolicy", vec_env, learning_rate=h.learning_rate, n_steps=h.n_steps,
                       batch_size=h.batch_size, n_epochs=h.n_epochs, gamma=h.gamma, gae_lambda=h.gae_lambda,
                       clip_range=h.clip_range, ent_coef=h.ent_coef, vf_coef=h.vf_coef,
                       max_grad_norm=h.max_grad_norm, target_kl=h.target_kl, policy_kwargs=policy_kwargs(config),
                       tensorboard_log=str(run_dir / "tb"), seed=config.seed, device="cpu", verbose=0)


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
    return run_dir


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
    vec_env = make_vec_env(config)
    model = new_model(config, vec_env, run_dir)
    if config.imitation.games > 0:
        warm_start(model, config, run_dir, progress)
    _learn(model, config, run_dir, snapshots=[], progress=progress)
    return run_dir


def check_env_settings(config: TrainConfig) -> None:
    """Fail before any folder or process is made if the scenario or rule options are wrong."""
    from cardwar.envs.hexwar.config import HexConfigError
    from cardwar.envs.hexwar.scenario import ScenarioError
    from cardwar.envs.naval import ConfigError

    from cardwar import agents
    from cardwar.agents.spec import AgentSpecError
    from cardwar.training.callbacks import eval_scenario

    try:
        SelfPlayEnv(config.game, scenario=config.env.scenario, rules=config.env.rules)
    except (ConfigError, HexConfigError, ScenarioError, FileNotFoundError) as err:
        raise TrainConfigError(f"env: {err}") from None
    if config.eval.games > 0:
        try:
            SelfPlayEnv(config.game, scenario=eval_scenario(config), rules=config.env.rules)
        except (ScenarioError, FileNotFoundError) as err:
            raise TrainConfigError(f"eval.scenario: {err}") from None
    specs = [("opponents.heuristic", config.opponents.heuristic)]
    specs += [("eval.opponents", s) for s in config.eval.opponents]
    if config.imitation.games > 0:
        specs += [("imitation.teacher", config.imitation.teacher)]
        specs += [("imitation.opponents", s) for s in config.imitation.opponents]
    for where, spec in specs:
        try:
            agents.make(spec, config.game)
        except AgentSpecError as err:
            raise TrainConfigError(f"{where}: {err}") from None


def warm_start(model: Any, config: TrainConfig, run_dir: Path, progress: bool) -> None:
    """Imitation of the teacher before self-play (``imitation`` section); the fit goes to imitation.json."""
    import json

    from cardwar.training.imitation import collect, pretrain

    im = config.imitation
    demos = collect(config.game, im.games, im.teacher, tuple(im.opponents), config.env.scenario,
                    config.env.rules, seed=config.seed * 1_000_003, workers=2, progress=progress)
    stats = pretrain(model.policy, demos, im.epochs, im.batch_size, im.learning_rate, seed=config.seed,
                     progress=progress)
    (run_dir / "imitation.json").write_text(json.dumps(stats, indent=2))


def resume(run_dir: Path, total_steps: int | None = None, progress: bool = True, game: str | None = None) -> Path:
    """Continue ``run_dir`` from its latest checkpoint (to ``total_steps`` if given)."""
    from sb3_contrib import MaskablePPO

    run_dir = Path(run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise RunError(f"{run_dir}: not a run folder (no config.yaml); runs are made by `cardwar train`")
    try:
        config = config_from_dict(yaml.safe_load((run_dir / "config.yaml").read_text()))
    except (TrainConfigError, yaml.YAMLError) as err:
        raise RunError(f"{run_dir}/config.yaml: {err}") from None
    if game is not None and config.game != game:
        raise RunError(f"{run_dir} is a {config.game} run, not {game}")
    if total_steps is not None:
        if total_steps < 1:
            raise RunError("--steps must be at least 1")
        config.total_steps = total_steps
        tmp = run_dir / "config.yaml.partial"  # the new budget is the run's from now on
        tmp.write_text(yaml.safe_dump(config.to_dict(), sort_keys=False))
        tmp.replace(run_dir / "config.yaml")
    found = checkpoints(run_dir)
    if not found:
        raise RunError(f"{run_dir}: no checkpoint to resume from yet (checkpoints/ is empty); start it again")
    vec_env = make_vec_env(config)
    model = None
    for path, state in found:  # the newest that loads: a damaged file falls back to the one before
        try:
            model = MaskablePPO.load(path, env=vec_env, device="cpu", tensorboard_log=str(run_dir / "tb"))
            break
        except Exception as err:  # noqa: BLE001 - any unreadable zip
            print(f"warning: checkpoint {path.name} cannot be loaded ({err}); trying the one before",
                  file=sys.stderr)
    if model is None:
        close_vec_env(vec_env)
        raise RunError(f"{run_dir}: no checkpoint could be loaded")
    snapshots = [str(run_dir / "snapshots" / name) for name in state.get("snapshots", [])
                 if (run_dir / "snapshots" / name).is_file()]
    if len(snapshots) < len(state.get("snapshots", [])):
        print(f"warning: {len(state['snapshots']) - len(snapshots)} snapshot(s) of the pool are missing",
              file=sys.stderr)
    _truncate_eval(run_dir / "eval.csv", state["num_timesteps"])
    with (run_dir / "command.txt").open("a") as f:
        f.write(shlex.join([Path(sys.argv[0]).name, *sys.argv[1:]]) + f"   # resumed at step {model.num_timesteps}\n")
    _learn(model, config, run_dir, snapshots=snapshots, progress=progress)
    return run_dir


def export_for_play(model_path: Path, out: Path) -> Path:
    """A copy of a trained model for playing only: no optimizer state, float16 weights (a sixth of the size)."""
    import torch
    from sb3_contrib import MaskablePPO

    from cardwar.training.callbacks import save_atomically

    model = MaskablePPO.load(model_path, device="cpu")
    model.policy.optimizer = torch.optim.Adam(model.policy.parameters(), lr=0.0)  # no moment estimates
    model.policy.half()  # weights stored in float16 (half the size); loading copies them back into float32
    out.parent.mkdir(parents=True, exist_ok=True)
    save_atomically(model, out)
    return out


def _truncate_eval(path: Path, step: int) -> None:
    """Drop evaluation rows recorded after the checkpoint (they will be measured again)."""
    if not path.exists():
        return
    lines = path.read_text().splitlines(keepends=True)
    if not lines:
        return
    keep = [lines[0]] + [ln for ln in lines[1:] if ln.split(",", 1)[0].isdigit() and int(ln.split(",", 1)[0]) <= step]
    tmp = path.with_suffix(".partial")
    tmp.write_text("".join(keep))
    tmp.replace(path)


def _learn(model: Any, config: TrainConfig, run_dir: Path, snapshots: list[str], progress: bool) -> None:
    from cardwar.training.callbacks import RunCallback, save_atomically

    callback = RunCallback(config, run_dir, snapshots, progress=progress)
    remaining = config.total_steps - model.num_timesteps

    def _terminate(signum, frame):  # `kill` saves a checkpoint too, as Ctrl-C does
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        if remaining > 0:
            model.learn(remaining, callback=callback, reset_num_timesteps=False, tb_log_name="ppo")
            callback.checkpoint()
        save_atomically(model, run_dir / "final.zip")
    except KeyboardInterrupt:
        if getattr(callback, "model", None) is None:
            raise
        path = callback.checkpoint()
        print(f"\ninterrupted: checkpoint {path}; go on with `cardwar train {config.game} --resume {run_dir}`",
              file=sys.stderr)
        raise
    finally:
        signal.signal(signal.SIGTERM, previous)
        close_vec_env(model.get_env())
