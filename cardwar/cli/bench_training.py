"""``cardwar bench --training``: env steps per second of short MaskablePPO runs, learning included.

Three runs in one process, one after the other, each timed around ``model.learn``:

- ``reference``: PettingZoo's SB3 tutorial setup (``tutorials/SB3/connect_four``):
  MaskablePPO with its default hyperparameters and ``MaskableActorCriticPolicy`` on
  ``connect_four_v3``, one env, the learner playing both seats through the
  tutorial's ``SB3ActionMaskWrapper`` (here as a ``gymnasium.Env``, which current
  gymnasium needs; the stepping is the tutorial's).
- ``naval`` and ``hexwar``: ``configs/training/<game>.yaml`` as committed (its envs,
  vec env, network, PPO settings and opponent mix), evaluation off.
- ``<game>_random_opponent``: the committed config with the tutorial's opponent (random
  only), so that its ratio to the next row compares the training set-up alone (vec env,
  batch sizes, network), the opponent being the same.
- ``<game>_tutorial_settings``: the tutorial's exact settings (defaults, one env) on the
  env the config trains on (naval-v1's steps for naval) with a random opponent: the
  like-for-like reference, which separates the env's cost from the network's and the
  settings'.

The figures that matter are ratios measured in the same run, as the machine's speed
varies: each config against the tutorial's settings on its own env (issue 13's target:
3x), and against connect four.

``cardwar bench --training --profile GAME`` (:func:`run_training_profile`, issue 22) splits the
wall-clock of short runs of the committed config into env stepping, opponent moves (by kind),
IPC, the learner's rollout forward passes and its PPO update, with each vec env
(``subproc``, ``dummy``, ``batched``, ``batched:2``) in interleaved rounds, and gives each one's
steps/s against ``subproc`` measured in the same run.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import gymnasium
import numpy as np


class TutorialConnectFour(gymnasium.Env):
    """The tutorial's ``SB3ActionMaskWrapper`` over ``connect_four_v3.env()``."""

    def __init__(self) -> None:
        from pettingzoo.classic import connect_four_v3

        self.env = connect_four_v3.env()
        self.env.reset(seed=0)
        agent = self.env.possible_agents[0]
        self.observation_space = self.env.observation_space(agent)["observation"]
        self.action_space = self.env.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed, options=options)
        return self.env.observe(self.env.agent_selection)["observation"], {}

    def step(self, action):
        env = self.env
        current = env.agent_selection
        env.step(action)
        nxt = env.agent_selection
        return (env.observe(nxt)["observation"], env._cumulative_rewards[current], env.terminations[current],
                env.truncations[current], env.infos[current])

    def action_masks(self) -> np.ndarray:
        return self.env.observe(self.env.agent_selection)["action_mask"].astype(bool)


def _reference(steps: int, env: gymnasium.Env | None = None) -> float:
    """The tutorial's MaskablePPO (defaults, one env) on connect four, or on ``env`` for a like-for-like row."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    env = env if env is not None else TutorialConnectFour()
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0, seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - start)


RANDOM_POOL = "opponents.schedule=[{from_step: 0, mix: {random: 1.0}}]"
"""The override that gives a config the tutorial rows' opponent (random), for the like-for-like ratio."""


def _game(game: str, steps: int, *overrides: str) -> float:
    from cardwar.training.callbacks import RunCallback
    from cardwar.training.config import load_config
    from cardwar.training.trainer import make_vec_env, new_model

    from cardwar.configs import training_config_path

    config = load_config(training_config_path(game), ["eval.games=0", f"checkpoint_every={10**9}",
                                                      f"opponents.snapshot_every={10**9}", *overrides])
    config.total_steps = steps
    with tempfile.TemporaryDirectory() as tmp:
        vec_env = make_vec_env(config)
        try:
            model = new_model(config, vec_env, Path(tmp))
            callback = RunCallback(config, Path(tmp), [], progress=False)
            start = time.perf_counter()
            model.learn(steps, callback=callback)
            return model.num_timesteps / (time.perf_counter() - start)
        finally:
            vec_env.close()


def run_training_bench(steps: int = 8192, as_json: bool = False) -> dict:
    """Measure, print and return steps/s of the reference and both games."""
    from tqdm import tqdm

    from cardwar.cli.bench import require_reference_envs

    require_reference_envs(("connect_four_v3",))  # the tutorial's env; without pygame-ce, one line naming the extra

    from cardwar.training.opponents import OpponentPool
    from cardwar.training.selfplay_env import SelfPlayEnv

    from cardwar import games as registry
    from cardwar.cli.time_to_strength import games_with_tutorial
    from cardwar.configs import training_config_path
    from cardwar.training.config import load_config

    names = games_with_tutorial()  # the games the tutorial's pipeline is compared on
    runs: dict = {"reference": lambda: _reference(steps)}
    runs.update({game: functools.partial(_game, game, steps) for game in names})
    runs.update({f"{game}_random_opponent": functools.partial(_game, game, steps, RANDOM_POOL) for game in names})
    for game in names:  # the tutorial's settings on the env the config trains on (naval-v1's steps)
        config = load_config(training_config_path(game), [])
        train_on = config.env.scenario if registry.get(game).has_scenarios else None  # hexwar: random:train
        runs[f"{game}_tutorial_settings"] = functools.partial(
            _reference, steps, SelfPlayEnv(game, train_on, actions=config.env.actions,
                                           pool=OpponentPool(game, mix={"random": 1.0})))
    rows = {}
    for name in tqdm(list(runs), desc="training bench", disable=as_json):
        rows[name] = runs[name]()
    ref = rows["reference"]
    out = {"steps": steps, "cpus": os.cpu_count(), "python": platform.python_version(),
           "steps_per_second": {k: round(v, 1) for k, v in rows.items()},
           "ratio_to_reference": {k: round(v / ref, 2) for k, v in rows.items() if k != "reference"},
           "ratio_to_tutorial_settings_on_the_same_env": {
               k: round(rows[k] / rows[f"{k.split('_')[0]}_tutorial_settings"], 2)
               for k in (*names, *(f"{game}_random_opponent" for game in names))}}
    if as_json:
        print(json.dumps(out))
    else:
        print(f"MaskablePPO training throughput, {steps} steps each, {os.cpu_count()} CPUs")
        print(f"  reference (PettingZoo SB3 tutorial, connect_four_v3, 1 env): {ref:8.1f} steps/s")
        for k in names:
            like = rows[f"{k}_tutorial_settings"]
            print(f"  {k:9s} (configs/training/{k}.yaml): {rows[k]:8.1f} steps/s = {rows[k] / ref:.2f}x reference, "
                  f"{rows[k] / like:.2f}x the tutorial's settings on the same env")
        for k in names:
            r, like = rows[f"{k}_random_opponent"], rows[f"{k}_tutorial_settings"]
            print(f"  {k:9s} config, the tutorial's opponent (random only): {r:8.1f} steps/s = "
                  f"{r / like:.2f}x the tutorial's settings on the same env (like for like)")
        for k in names:
            r = rows[f"{k}_tutorial_settings"]
            print(f"  {k:9s} with the tutorial's settings (defaults, 1 env, random opponent): {r:8.1f} steps/s "
                  f"= {r / ref:.2f}x reference")
    return out


# ---------------------------------------------------------------------------------------------- profile
PROFILE_PARTS = ("env", "opponent", "ipc", "learner_rollout", "learner_update", "boundary", "other")
"""The parts of a training run's wall-clock that :func:`run_training_profile` reports."""

PART_NAMES = {
    "env": "env stepping (rules + observation)",
    "opponent": "opponent moves (heuristic / snapshot / random)",
    "ipc": "IPC (pipes, pickling, worker loop)",
    "learner_rollout": "learner: rollout forward passes + buffer",
    "learner_update": "learner: PPO update",
    "boundary": "rollout boundaries (resume-state capture, pool)",
    "other": "other (SB3 set-up, logging)",
}

_CLOCK = {"env_total": 0.0, "opponent": 0.0, "start": 0.0}
"""Per process (each worker has its own copy after the fork): seconds inside SelfPlayEnv's reset/step, and
inside opponent decisions. Workers count CPU time (``time.process_time``: they share the cores), the
learner's process wall time."""
_TIMER = [time.perf_counter]


def _timed_env_methods() -> dict[str, object]:
    """Wrap SelfPlayEnv's entry points and the opponents' decisions (in place) to count their seconds."""
    from cardwar.training import batched_vec_env, opponents
    from cardwar.training.selfplay_env import SelfPlayEnv

    originals = {"reset": SelfPlayEnv.reset, "step": SelfPlayEnv.step, "opponent_act": SelfPlayEnv.opponent_act,
                 "play_out_together": batched_vec_env.play_out_together,
                 "batched_ppo_actions": batched_vec_env.batched_ppo_actions}

    depth = dict.fromkeys(_CLOCK, 0)

    def counting(fn, key):
        def wrapped(*args, **kwargs):
            if depth[key]:  # nested (a batched step hands its result to SelfPlayEnv.step): counted once
                return fn(*args, **kwargs)
            depth[key] += 1
            t = _TIMER[0]()
            try:
                return fn(*args, **kwargs)
            finally:
                _CLOCK[key] += _TIMER[0]() - t
                depth[key] -= 1
        return wrapped

    SelfPlayEnv.reset = counting(originals["reset"], "env_total")
    SelfPlayEnv.step = counting(originals["step"], "env_total")
    def by_kind(fn, kind_of):
        def wrapped(*args, **kwargs):
            t = _TIMER[0]()
            try:
                return fn(*args, **kwargs)
            finally:
                spent = _TIMER[0]() - t
                _CLOCK["opponent"] += spent
                key = "opponent:" + kind_of(*args)
                _CLOCK[key] = _CLOCK.get(key, 0.0) + spent
        return wrapped

    SelfPlayEnv.opponent_act = by_kind(originals["opponent_act"], lambda env, request: _kind(env.opponent))
    batched_vec_env.play_out_together = counting(originals["play_out_together"], "env_total")
    def batch_kind(group: list, requests: list) -> str:
        _CLOCK["batches"] = _CLOCK.get("batches", 0) + 1
        _CLOCK["batched_decisions"] = _CLOCK.get("batched_decisions", 0) + len(group)
        return "snapshot (batched)"

    batched_vec_env.batched_ppo_actions = by_kind(originals["batched_ppo_actions"], batch_kind)

    def read(self) -> dict[str, float]:
        return {**{k: v for k, v in _CLOCK.items() if k != "start"},
                "cpu": time.process_time() - _CLOCK["start"], "pid": os.getpid()}

    def zero(self) -> None:
        _zero_clock()

    SelfPlayEnv.profile_read = read
    SelfPlayEnv.profile_zero = zero
    return originals


def _kind(agent: object) -> str:
    from cardwar.agents.ppo_agent import PPOAgent

    return "snapshot" if isinstance(agent, PPOAgent) else getattr(agent, "name", type(agent).__name__)


def _zero_clock() -> None:
    _CLOCK.clear()
    _CLOCK.update(env_total=0.0, opponent=0.0, start=time.process_time())


def _untimed_env_methods(originals: dict[str, object]) -> None:
    from cardwar.training import batched_vec_env
    from cardwar.training.selfplay_env import SelfPlayEnv

    SelfPlayEnv.reset, SelfPlayEnv.step = originals["reset"], originals["step"]
    SelfPlayEnv.opponent_act = originals["opponent_act"]
    batched_vec_env.play_out_together = originals["play_out_together"]
    batched_vec_env.batched_ppo_actions = originals["batched_ppo_actions"]
    del SelfPlayEnv.profile_read, SelfPlayEnv.profile_zero


def _timed_class(cls: type, measured: dict[str, float]) -> type:
    """``cls`` whose ``collect_rollouts`` and ``train`` add their wall seconds to ``measured``."""

    class Timed(cls):  # type: ignore[misc, valid-type]
        def collect_rollouts(self, *args, **kwargs):
            t = time.perf_counter()
            try:
                return super().collect_rollouts(*args, **kwargs)
            finally:
                measured["rollout"] += time.perf_counter() - t

        def train(self) -> None:
            t = time.perf_counter()
            try:
                super().train()
            finally:
                measured["update"] += time.perf_counter() - t

    return Timed


def profile_config(game: str, vec_env: str, phase: str, extra: tuple[str, ...] = ()) -> object:
    """The committed config of ``game`` for a profile: evaluation, checkpoints and new snapshots off,
    ``env.vec_env`` set, and the opponent mix of its ``first`` or ``last`` schedule phase throughout."""
    import yaml

    from cardwar.configs import training_config_path
    from cardwar.training.config import load_config

    committed = load_config(training_config_path(game), [])
    phases = sorted(committed.opponents.schedule, key=lambda p: p.from_step)
    mix = (phases[0] if phase == "first" else phases[-1]).mix
    schedule = yaml.safe_dump([{"from_step": 0, "mix": mix}], default_flow_style=True).strip()
    return load_config(training_config_path(game), ["eval.games=0", f"checkpoint_every={10**9}",
                                                    f"opponents.snapshot_every={10**9}", f"env.vec_env={vec_env}",
                                                    f"opponents.schedule={schedule}", *extra])


def profile_run(game: str, vec_env: str, steps: int, phase: str = "last", snapshot: str | None = None) -> dict:
    """One short training run of the committed config (see :func:`profile_config`), timed by part.

    In-process parts are wall seconds. With ``subproc``, the time the learner waits on a vector step is
    split among the workers' env, opponent and worker-loop (IPC) CPU seconds in proportion, after the
    learner's own CPU seconds inside the step (pickling, pipes: IPC) are taken off."""
    from cardwar.training.callbacks import RunCallback
    from cardwar.training.trainer import make_vec_env, new_model

    import torch

    spec, _, n_envs = vec_env.partition("@")
    kind, _, n_workers = spec.partition(":")
    extra_keys = (f"env.workers={n_workers}",) if n_workers else ()
    if n_envs:  # more envs, the same rollout (n_steps x n_envs) as the committed config
        committed = profile_config(game, kind, phase)
        rollout = committed.ppo.n_steps * committed.env.n_envs
        extra_keys += (f"env.n_envs={n_envs}", f"ppo.n_steps={max(1, rollout // int(n_envs))}")
    config = profile_config(game, kind, phase, extra_keys)
    config.total_steps = steps
    in_workers = kind == "subproc" or config.env.workers > 0
    measured = {"step_wall": 0.0, "step_cpu": 0.0, "rollout": 0.0, "update": 0.0, "boundary": 0.0,
                "first_reset": 0.0}
    _TIMER[0] = time.process_time if in_workers else time.perf_counter  # workers are forked after this
    originals = _timed_env_methods()
    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, min(threads, (os.cpu_count() or 2) // 2)))  # as the trainer does (trainer._run)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            venv = make_vec_env(config)
            try:
                model = new_model(config, venv, Path(tmp))
                snapshots = [snapshot] if snapshot else []
                callback = RunCallback(config, Path(tmp), snapshots, progress=False)

                def timing(obj, name, key, cpu=False, also=None):
                    fn = getattr(obj, name)

                    def wrapped(*args, **kwargs):
                        t, c = time.perf_counter(), time.process_time()
                        try:
                            return fn(*args, **kwargs)
                        finally:
                            measured[key] += time.perf_counter() - t
                            if also:
                                measured[also] += time.perf_counter() - t
                            if cpu:
                                measured["step_cpu"] += time.process_time() - c
                    setattr(obj, name, wrapped)

                timing(venv, "step_async", "step_wall", cpu=True)
                timing(venv, "step_wait", "step_wall", cpu=True)
                timing(venv, "reset", "step_wall", cpu=True, also="first_reset")  # learn()'s, outside the rollouts
                model.__class__ = _timed_class(type(model), measured)  # not instance attributes: model.save pickles those
                timing(callback, "on_rollout_start", "boundary")
                timing(callback, "on_step", "boundary")
                venv.env_method("set_pool", snapshots, config.mix_at(0))  # before any game draws its opponent
                venv.reset()  # warm-up, not measured: the workers start, each env's pool loads the snapshot
                measured.update(dict.fromkeys(measured, 0.0))
                venv.env_method("profile_zero")
                _zero_clock()
                start = time.perf_counter()
                model.learn(steps, callback=callback)
                wall = time.perf_counter() - start
                workers = venv.env_method("profile_read")
            finally:
                venv.close()
    finally:
        _untimed_env_methods(originals)
        torch.set_num_threads(threads)
    workers = list({w["pid"]: w for w in workers}.values())  # one reading a process (batched: several envs each)
    if not in_workers:
        workers = [{k: v for k, v in _CLOCK.items() if k != "start"}]
    kinds: dict[str, float] = {}
    for w in workers:
        for k, v in w.items():
            if k.startswith("opponent:"):
                kinds[k.split(":", 1)[1]] = kinds.get(k.split(":", 1)[1], 0.0) + v
    env_total = sum(w["env_total"] for w in workers) if in_workers else _CLOCK["env_total"]
    opponent = sum(w["opponent"] for w in workers) if in_workers else _CLOCK["opponent"]
    parts = dict.fromkeys(PROFILE_PARTS, 0.0)
    parts["learner_update"] = measured["update"]
    parts["boundary"] = measured["boundary"]
    parts["learner_rollout"] = measured["rollout"] - (measured["step_wall"] - measured["first_reset"]) \
        - measured["boundary"]
    if in_workers:
        worker_cpu = sum(w["cpu"] for w in workers)
        worker_loop = max(0.0, worker_cpu - env_total)
        main_ipc = min(measured["step_cpu"], measured["step_wall"])
        waiting = measured["step_wall"] - main_ipc
        cpu_total = max(worker_cpu, 1e-9)
        parts["env"] = waiting * (env_total - opponent) / cpu_total
        parts["opponent"] = waiting * opponent / cpu_total
        parts["ipc"] = main_ipc + waiting * worker_loop / cpu_total
        kinds = {k: v * waiting / cpu_total for k, v in kinds.items()}  # the opponent part, split as it is
        extra = {"worker_cpu_s": round(worker_cpu, 2), "worker_env_cpu_s": round(env_total - opponent, 2),
                 "worker_opponent_cpu_s": round(opponent, 2), "worker_loop_cpu_s": round(worker_loop, 2),
                 "learner_cpu_in_step_s": round(main_ipc, 2),
                 "parallelism": round(worker_cpu / max(waiting, 1e-9), 2)}
    else:
        parts["opponent"] = opponent
        parts["env"] = env_total - opponent
        parts["ipc"] = 0.0
        extra = {"vec_env_overhead_s": round(measured["step_wall"] - env_total, 3)}  # DummyVecEnv's own loop
        parts["env"] += max(0.0, measured["step_wall"] - env_total)
    parts["other"] = wall - sum(v for k, v in parts.items() if k != "other")
    return {"game": game, "vec_env": vec_env, "phase": phase, "steps": model.num_timesteps, "wall_s": round(wall, 2),
            "steps_per_second": round(model.num_timesteps / wall, 1),
            "seconds": {k: round(v, 2) for k, v in parts.items()},
            "share": {k: round(v / wall, 3) for k, v in parts.items()},
            "opponent_seconds": {k: round(v, 2) for k, v in sorted(kinds.items())},
            "snapshot_decisions_per_forward_pass": round(
                sum(w.get("batched_decisions", 0) for w in workers) / max(1, sum(w.get("batches", 0) for w in workers)),
                2) if kind == "batched" else 1.0, "n_envs": config.env.n_envs, "n_steps": config.ppo.n_steps,
            **extra}


def vec_env_kinds(text: str) -> tuple[str, ...]:
    """``"subproc,batched:2@32"`` -> the kinds :func:`run_training_profile` compares; ValueError names a bad one."""
    import re

    kinds = tuple(k.strip() for k in text.split(",") if k.strip())
    bad = [k for k in kinds if not re.fullmatch(r"(subproc|dummy|batched(:[1-9]\d*)?)(@[1-9]\d*)?", k)]
    if bad or not kinds:
        raise ValueError(f"{', '.join(bad) or 'nothing given'}: each is subproc, dummy, batched or batched:W "
                         "(W worker processes), with an optional @N (N envs)")
    return kinds


def run_training_profile(game: str, steps: int = 16384,
                         vec_envs: tuple[str, ...] = ("subproc", "dummy", "batched", "batched:2"),
                         phase: str = "last", rounds: int = 1, as_json: bool = False) -> dict:
    """``cardwar bench --training --profile GAME``: where a short run of the committed config spends its time,
    with each vec env in turn (interleaved over ``rounds``), and each one's steps/s against the first's.
    ``batched:W`` is ``env.vec_env: batched`` with ``env.workers: W``; ``KIND@N`` runs N envs, ``ppo.n_steps``
    scaled so that a rollout keeps the committed size.

    ``phase`` ``last`` (default) trains against the opponent mix of the config's last schedule phase (most
    of a run's steps; snapshots included: the network at its start, saved as one snapshot), ``first``
    against the first phase's."""
    from tqdm import tqdm

    from cardwar.training.config import load_config
    from cardwar.training.trainer import make_vec_env, new_model

    with tempfile.TemporaryDirectory() as tmp:
        snapshot = None
        config = profile_config(game, "dummy", phase)
        if "snapshots" in config.mix_at(0):
            placeholder = make_vec_env(config, in_process=True)
            snapshot = str(Path(tmp) / "snapshot_000000000.zip")
            new_model(config, placeholder, Path(tmp)).save(snapshot)
            placeholder.close()
        runs: dict[str, list[dict]] = {v: [] for v in vec_envs}
        jobs = [(r, v) for r in range(rounds) for v in vec_envs]
        for _, v in tqdm(jobs, desc=f"training profile {game}", disable=as_json):
            runs[v].append(profile_run(game, v, steps, phase, snapshot))
    best = {v: max(rs, key=lambda r: r["steps_per_second"]) for v, rs in runs.items()}
    first = vec_envs[0]
    out = {"game": game, "steps": steps, "phase": phase, "rounds": rounds, "cpus": os.cpu_count(),
           "mix": dict(load_config_mix(game, phase)), "runs": best,
           "steps_per_second": {v: [r["steps_per_second"] for r in rs] for v, rs in runs.items()},
           "ratio_to_" + first: {v: round(best[v]["steps_per_second"] / best[first]["steps_per_second"], 2)
                                 for v in vec_envs}}
    if as_json:
        print(json.dumps(out))
        return out
    print(f"where training spends its time: {game}, configs/training/{game}.yaml, {steps} steps a run, opponents "
          f"{out['mix']} ({phase} schedule phase), {os.cpu_count()} CPUs; best of {rounds} round(s)")
    header = f"  {'part':50s}" + "".join(f"{v:>18s}" for v in vec_envs)
    print(header)
    for part in PROFILE_PARTS:
        cells = "".join(f"{best[v]['seconds'][part]:8.2f} s {100 * best[v]['share'][part]:5.1f}%  " for v in vec_envs)
        print(f"  {PART_NAMES[part]:50s}{cells}")
        if part == "opponent":
            for kind in sorted({k for v in vec_envs for k in best[v]["opponent_seconds"]}):
                cells = "".join(f"{best[v]['opponent_seconds'].get(kind, 0.0):8.2f} s "
                                f"{100 * best[v]['opponent_seconds'].get(kind, 0.0) / best[v]['wall_s']:5.1f}%  "
                                for v in vec_envs)
                print(f"  {'  of which ' + kind:50s}{cells}")
    print(f"  {'wall-clock':50s}" + "".join(f"{best[v]['wall_s']:8.2f} s {100.0:5.1f}%  " for v in vec_envs))
    print(f"  {'steps/s':50s}" + "".join(f"{best[v]['steps_per_second']:16.1f}  " for v in vec_envs))
    print(f"  {'ratio to ' + first:50s}" + "".join(f"{out['ratio_to_' + first][v]:15.2f}x  " for v in vec_envs))
    print(f"  {'snapshot decisions per forward pass':50s}"
          + "".join(f"{best[v]['snapshot_decisions_per_forward_pass']:16.2f}  " for v in vec_envs))
    print(f"  {'steps/s, each round':50s}"
          + "".join(f"{' '.join(f'{x:.0f}' for x in out['steps_per_second'][v]):>16s}  " for v in vec_envs))
    return out


def load_config_mix(game: str, phase: str) -> dict[str, float]:
    """The opponent mix a profile of ``game`` trains against (see :func:`profile_config`)."""
    return profile_config(game, "dummy", phase).mix_at(0)


def snapshot_batch_gain(games: tuple[str, ...] | None = None, sizes: tuple[int, ...] = (2, 4, 8, 16, 32),
                        seconds: float = 3.0) -> dict:
    """Seconds per snapshot decision, one at a time (``PPOAgent.act``) and batched
    (:func:`~cardwar.training.opponents.batched_ppo_actions`, ``size`` decisions a pass), for a saved untrained
    network of each game's committed config (default: the games with a tutorial config, as the training bench),
    on opponent positions of random games; printed and returned."""
    from cardwar.cli.time_to_strength import games_with_tutorial

    games = games or games_with_tutorial()
    import torch

    from cardwar.agents.ppo_agent import PPOAgent
    from cardwar.training.opponents import batched_ppo_actions
    from cardwar.training.selfplay_env import SelfPlayEnv
    from cardwar.training.trainer import make_vec_env, new_model

    threads = torch.get_num_threads()
    torch.set_num_threads(max(1, min(threads, (os.cpu_count() or 2) // 2)))  # as the trainer does
    out: dict[str, dict[str, float]] = {}
    try:
        for game in games:
            config = profile_config(game, "dummy", "last")
            with tempfile.TemporaryDirectory() as tmp:
                path = str(Path(tmp) / "snapshot.zip")
                new_model(config, make_vec_env(config, in_process=True), Path(tmp)).save(path)
                env = SelfPlayEnv(game, scenario=config.env.scenario, actions=config.env.actions, opponent="random")
                requests: list = []
                act = env.opponent_act
                env.opponent_act = lambda request: (requests.append(request), act(request))[1]
                rng = np.random.default_rng(0)
                env.reset(seed=0)
                while len(requests) < 64:
                    if env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2]:
                        env.reset()
                agents = [PPOAgent(game, path=path, deterministic=False, seed=k, cache=False) for k in range(max(sizes))]
                timings = {}
                for size in (1, *sizes):
                    done, start = 0, time.perf_counter()
                    while time.perf_counter() - start < seconds:
                        batch = [requests[(done + k) % len(requests)] for k in range(size)]
                        if size == 1:
                            agents[0].act(*batch[0])
                        else:
                            batched_ppo_actions(agents[:size], batch)
                        done += size
                    timings[str(size)] = (time.perf_counter() - start) / done
                out[game] = timings
                one = timings["1"]
                print(f"{game}: one decision at a time (PPOAgent.act) {1000 * one:.2f} ms; batched, " + ", ".join(
                    f"{s} together {1000 * timings[str(s)]:.2f} ms each ({one / timings[str(s)]:.1f}x)" for s in sizes))
    finally:
        torch.set_num_threads(threads)
    return out


def main(argv: list[str] | None = None) -> int:
    """``python -m cardwar.cli.bench_training --batch-gain``: :func:`snapshot_batch_gain`'s figures."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m cardwar.cli.bench_training",
                                     description="snapshot opponents: seconds per decision, one at a time and batched")
    parser.add_argument("--batch-gain", action="store_true", required=True,
                        help="time snapshot decisions one at a time against 2 to 32 batched together, in each game "
                             "with a tutorial config")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds measured per batch size (default 3)")
    args = parser.parse_args(argv)
    snapshot_batch_gain(seconds=args.seconds)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
