"""What happens during ``learn()``: progress bar, pool snapshots, checkpoints, evaluation.

One SB3 callback runs the schedule, so that every event is keyed to the same
step count (``model.num_timesteps``, the learner's moves over all envs) and a
resumed run picks the cadence up where the checkpoint left it.
"""

from __future__ import annotations

import io
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from stable_baselines3.common.callbacks import BaseCallback

from cardwar.training.config import TrainConfig
from cardwar.training.evaluate import append_csv, evaluate, plot_curve, read_csv
from cardwar.training.interrupts import raise_if_lost


def _next(step: int, every: int) -> int:
    return (step // every + 1) * every


def save_atomically(model: Any, path: Path) -> None:
    """``model.save`` to ``path`` via a temporary file, so a kill never leaves half a zip."""
    buf = io.BytesIO()
    model.save(buf)
    tmp = path.with_suffix(".partial")
    tmp.write_bytes(buf.getvalue())
    tmp.replace(path)


def write_json_atomically(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".partial")
    tmp.write_text(json.dumps(data, indent=2))
    tmp.replace(path)


class RunStatus:
    """What a run is doing now, and what an interruption would leave saved (for its last message)."""

    def __init__(self) -> None:
        self.phase = "setting up"
        self.saved: Callable[[], str] = lambda: "nothing to save yet"
        self.clock_offset = 0.0  # the run's seconds before this process (a resumed run: its checkpoint's)
        self._started = time.monotonic()

    def seconds(self) -> float:
        """The run's wall-clock seconds so far, all its sessions together (from ``cardwar train`` on)."""
        return self.clock_offset + time.monotonic() - self._started

    def resume_clock(self, seconds: float) -> None:
        """Go on counting from a checkpoint's ``seconds``."""
        self.clock_offset, self._started = float(seconds), time.monotonic()

    def enter(self, phase: str, saved: Callable[[], str] | None = None, announce: str | None = None) -> None:
        """Start ``phase``; ``announce`` is printed (one line on stderr, also when progress bars are off)."""
        self.phase = phase
        if saved is not None:
            self.saved = saved
        if announce:
            from tqdm import tqdm

            tqdm.write(announce, file=sys.stderr)  # clears and redraws a progress bar in its way


def save_checkpoint(model: Any, run_dir: Path, snapshots: list[str], mix: dict[str, float],
                    seconds: float = 0.0) -> Path:
    """``checkpoints/model_<step>.zip`` and ``state_<step>.json`` (the pool and the run's wall-clock
    seconds so far), each written atomically. No ``resume_<step>.pkl``: a run resumed from it re-seeds."""
    buf = io.BytesIO()
    model.save(buf)
    return write_checkpoint(run_dir, Boundary(model.num_timesteps, buf.getvalue(), None,
                                              {"num_timesteps": model.num_timesteps,
                                               "snapshots": [Path(p).name for p in snapshots], "mix": mix,
                                               "seconds": round(seconds, 1)}))


class Boundary:
    """Everything a run is at a rollout boundary (step ``step``), in memory: the model's zip, the state
    that makes a resume exact (RNGs, envs, SB3's and the schedule's counters) and the pool's json."""

    def __init__(self, step: int, model_zip: bytes, resume_state: bytes | None, state: dict) -> None:
        self.step, self.model_zip, self.resume_state, self.state = step, model_zip, resume_state, state


def write_checkpoint(run_dir: Path, boundary: Boundary) -> Path:
    """The boundary's files, each atomically; the state json last (a checkpoint counts once it is there)."""
    folder = run_dir / "checkpoints"
    folder.mkdir(exist_ok=True)
    step = boundary.step
    path = folder / f"model_{step:09d}.zip"
    tmp = path.with_suffix(".partial")
    tmp.write_bytes(boundary.model_zip)
    tmp.replace(path)
    extra = folder / f"resume_{step:09d}.pkl"
    if boundary.resume_state is not None:
        tmp = extra.with_suffix(".partial")
        tmp.write_bytes(boundary.resume_state)
        tmp.replace(extra)
    else:
        extra.unlink(missing_ok=True)
    write_json_atomically(folder / f"state_{step:09d}.json", boundary.state)
    return path


def capture_rngs() -> dict[str, Any]:
    """The trainer process's random generators: torch (CPU and CUDA), numpy's global one, Python's."""
    import random

    import numpy as np
    import torch

    rngs: dict[str, Any] = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
                            "python": random.getstate()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        rngs["cuda"] = torch.cuda.get_rng_state_all()
    return rngs


def restore_rngs(rngs: dict[str, Any]) -> None:
    """Put back what :func:`capture_rngs` took."""
    import random

    import numpy as np
    import torch

    torch.set_rng_state(rngs["torch"])
    np.random.set_state(rngs["numpy"])
    random.setstate(rngs["python"])
    if "cuda" in rngs and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(rngs["cuda"])


class RunCallback(BaseCallback):
    """Progress, snapshots into the opponent pool, checkpoints and evaluation for one run.

    Snapshots, evaluations and checkpoints happen at rollout boundaries only (``on_rollout_start``:
    the weights there are those trained on every step counted), the first boundary at or after each
    one falls due. Before them, each boundary is captured in memory (:class:`Boundary`): a periodic
    checkpoint, or one written on an interruption, is the last boundary, so a resume redoes that
    boundary's events and goes on exactly as the uninterrupted run.
    """

    def __init__(self, config: TrainConfig, run_dir: Path, snapshots: list[str], progress: bool = True,
                 status: RunStatus | None = None, schedule: dict[str, Any] | None = None) -> None:
        super().__init__()
        self.config, self.run_dir = config, run_dir
        self.snapshots = list(snapshots)
        self.progress = progress
        self.status = status or RunStatus()
        self.bar: Any = None
        self.mix: dict[str, float] = {}
        self.last_checkpoint = -1
        self.retired: list[str] = []
        self.schedule = schedule  # a resumed boundary's: next_snapshot, next_eval, next_checkpoint, retired
        self.boundary: Boundary | None = None

    # -------------------------------------------------------------- SB3 hooks
    def _on_training_start(self) -> None:
        from tqdm import tqdm

        step = self.model.num_timesteps
        c = self.config
        if self.schedule is not None:
            self.next_snapshot = self.schedule["next_snapshot"]
            self.next_checkpoint = self.schedule["next_checkpoint"]
            self.next_eval = self.schedule["next_eval"]
            self.retired = list(self.schedule.get("retired", []))
        else:  # a fresh run (step 0), or a checkpoint without its resume state
            self.next_snapshot = _next(step, c.opponents.snapshot_every)
            self.next_checkpoint = _next(step, c.checkpoint_every)
            # where the curve starts, or the evaluation an interruption cut short
            behind = self._last_eval_step() < (step // c.eval.every) * c.eval.every
            self.next_eval = step if behind else _next(step, c.eval.every)
        self.bar = tqdm(total=c.total_steps, initial=step, unit="step", unit_scale=True, dynamic_ncols=True,
                        desc=f"{c.game} {c.name}", disable=not self.progress, smoothing=0.05, mininterval=1.0)
        self._push_pool(force=True)
        self.last_checkpoint = step if (self.run_dir / "checkpoints" / f"model_{step:09d}.zip").exists() else -1

    def _on_rollout_start(self) -> None:
        self._boundary()

    def _on_step(self) -> bool:
        raise_if_lost()
        step = self.model.num_timesteps
        if self.bar is not None:
            self.bar.update(step - self.bar.n)
        self._push_pool()  # a schedule phase may begin inside a rollout; the pool follows at once
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

    # -------------------------------------------------------------- events
    def _boundary(self) -> None:
        """Capture this rollout boundary, then the snapshot, evaluation and checkpoint falling due here."""
        step = self.model.num_timesteps
        c = self.config
        self.boundary = self._capture()
        if step >= self.next_snapshot:
            self.next_snapshot = _next(step, c.opponents.snapshot_every)
            self._snapshot(step)
        if step >= self.next_eval:
            self.next_eval = _next(step, c.eval.every)
            if c.eval.games > 0:
                self._evaluate()
        if step >= self.next_checkpoint:
            self.next_checkpoint = _next(step, c.checkpoint_every)
            self.checkpoint()

    def _capture(self) -> Boundary:
        import cloudpickle
        import numpy as np

        model = self.model
        step = model.num_timesteps
        buf = io.BytesIO()
        model.save(buf)
        venv = self.training_env
        resume_state = {
            "num_timesteps": step,
            "rngs": capture_rngs(),
            "envs": venv.env_method("get_state"),
            "last_obs": np.copy(model._last_obs),
            "last_episode_starts": np.copy(model._last_episode_starts),
            "ep_info_buffer": list(model.ep_info_buffer or []),
            "ep_success_buffer": list(model.ep_success_buffer or []),
            "schedule": {"next_snapshot": self.next_snapshot, "next_eval": self.next_eval,
                         "next_checkpoint": self.next_checkpoint, "retired": list(self.retired)},
            "mix": dict(self.mix),
        }
        state = {"num_timesteps": step, "snapshots": [Path(p).name for p in self.snapshots], "mix": dict(self.mix),
                 "seconds": round(self.status.seconds(), 1)}
        return Boundary(step, buf.getvalue(), cloudpickle.dumps(resume_state), state)

    def _snapshot(self, step: int) -> None:
        folder = self.run_dir / "snapshots"
        folder.mkdir(exist_ok=True)
        path = (folder / f"snapshot_{step:09d}.zip").resolve()  # the envs key their loaded snapshots by path
        save_atomically(self.model, path)
        self.snapshots.append(str(path))
        # Dropped snapshots are deleted only once a checkpoint no longer lists them (see ``checkpoint``),
        # so that a crash before the next checkpoint still finds the pool that checkpoint names.
        self.retired += self.snapshots[:-self.config.opponents.max_snapshots]
        self.snapshots = self.snapshots[-self.config.opponents.max_snapshots:]
        self._push_pool(force=True)

    def _push_pool(self, force: bool = False) -> None:
        mix = self.config.mix_at(self.model.num_timesteps)
        if force or mix != self.mix:
            self.mix = dict(mix)
            self.training_env.env_method("set_pool", self.snapshots, self.mix)

    def checkpoint(self) -> Path | None:
        """Write the last rollout boundary as a checkpoint (a periodic one, the end's, or an interruption's).

        None when no boundary was reached in this session (the checkpoint it started from is kept)."""
        boundary = self.boundary
        if boundary is None:
            return None
        path = self.run_dir / "checkpoints" / f"model_{boundary.step:09d}.zip"
        if boundary.step != self.last_checkpoint:
            write_checkpoint(self.run_dir, boundary)
            self.last_checkpoint = boundary.step
            needed = {Path(p).name for p in boundary.state["snapshots"]}
            for old in [p for p in self.retired if Path(p).name not in needed]:
                Path(old).unlink(missing_ok=True)
            self.retired = [p for p in self.retired if Path(p).name in needed]
        return path

    def finish(self) -> None:
        """The budget is spent: the end is a boundary (checkpoint), then a final evaluation unless the last
        one is at this step, then final.zip."""
        step = self.model.num_timesteps
        self.boundary = self._capture()
        self.checkpoint()
        if self.config.eval.games > 0 and self._last_eval_step() < step:
            self._evaluate(final=True)
        save_atomically(self.model, self.run_dir / "final.zip")

    def _last_eval_step(self) -> int:
        rows = read_csv(self.run_dir / "eval.csv")
        return max((p.step for p in rows), default=-1)

    def _evaluate(self, final: bool = False) -> None:
        c = self.config
        step = self.model.num_timesteps
        scenario = eval_scenario(c)
        before = self.status.phase
        what = "final evaluation" if final else "evaluation"
        self.status.enter(f"the {what} at step {step:,}",
                          announce=f"{what} at step {step:,}: {c.eval.games} games against each of "
                                   f"{', '.join(c.eval.opponents)}")
        workers = min(4, os.cpu_count() or 1)  # the env workers wait meanwhile
        seconds = self.status.seconds()  # the training time this point cost (its own evaluation not included)
        points = [evaluate(self.model, c.game, opponent, c.eval.games, seed=10_000 + 1000 * k, step=step,
                           scenario=scenario, rules=c.env.rules, workers=workers, seconds=seconds)
                  for k, opponent in enumerate(c.eval.opponents)]
        append_csv(self.run_dir / "eval.csv", points)  # one write: an interrupted evaluation leaves no half row set
        for opponent, point in zip(c.eval.opponents, points):
            self.logger.record(f"eval/score_vs_{opponent.split(':')[0]}", point.score)
            if self.bar is not None:
                self.bar.write(f"step {step:,}: vs {opponent} {point.score:.2f} "
                               f"({point.wins}-{point.draws}-{point.losses}, 95% CI {point.low:.2f}-{point.high:.2f})")
        self.logger.dump(step)
        plot_curve(read_csv(self.run_dir / "eval.csv"), self.run_dir / "curve.png",
                   f"{c.game}: {c.name} (seed {c.seed})")
        self.status.phase = before


def eval_scenario(c: TrainConfig) -> str | None:
    """Where the learner is evaluated (games with scenarios): ``eval.scenario`` if set, else the held-out
    procedural maps when it trains on procedural ones (alone or in a mix), else its training scenario."""
    from cardwar import games

    entry = games.get(c.game)
    if not entry.has_scenarios:
        return None
    if c.eval.scenario:
        return c.eval.scenario
    train = c.env.scenario or entry.default_scenario
    if train is None:
        return None
    return "random:test" if any(part.strip().startswith("random") for part in train.split(",")) else train
