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
    seconds so far), each written atomically."""
    step = model.num_timesteps
    folder = run_dir / "checkpoints"
    folder.mkdir(exist_ok=True)
    path = folder / f"model_{step:09d}.zip"
    save_atomically(model, path)
    write_json_atomically(folder / f"state_{step:09d}.json",
                          {"num_timesteps": step, "snapshots": [Path(p).name for p in snapshots], "mix": mix,
                           "seconds": round(seconds, 1)})
    return path


class RunCallback(BaseCallback):
    """Progress, snapshots into the opponent pool, checkpoints and evaluation for one run."""

    def __init__(self, config: TrainConfig, run_dir: Path, snapshots: list[str], progress: bool = True,
                 status: RunStatus | None = None) -> None:
        super().__init__()
        self.config, self.run_dir = config, run_dir
        self.snapshots = list(snapshots)
        self.progress = progress
        self.status = status or RunStatus()
        self.bar: Any = None
        self.mix: dict[str, float] = {}
        self.last_checkpoint = -1
        self.retired: list[str] = []

    # -------------------------------------------------------------- SB3 hooks
    def _on_training_start(self) -> None:
        from tqdm import tqdm

        step = self.model.num_timesteps
        c = self.config
        self.next_snapshot = _next(step, c.opponents.snapshot_every)
        self.next_checkpoint = _next(step, c.checkpoint_every)
        self.next_eval = _next(step, c.eval.every)
        self.bar = tqdm(total=c.total_steps, initial=step, unit="step", unit_scale=True, dynamic_ncols=True,
                        desc=f"{c.game} {c.name}", disable=not self.progress, smoothing=0.05, mininterval=1.0)
        self._push_pool(force=True)
        self.last_checkpoint = step if (self.run_dir / "checkpoints" / f"model_{step:09d}.zip").exists() else -1
        if c.eval.games > 0 and self._last_eval_step() < (step // c.eval.every) * c.eval.every:
            self._evaluate()  # where the curve starts, or the evaluation an interruption cut short

    def _on_step(self) -> bool:
        step = self.model.num_timesteps
        if self.bar is not None:
            self.bar.update(step - self.bar.n)
        c = self.config
        if step >= self.next_snapshot:
            self.next_snapshot = _next(step, c.opponents.snapshot_every)
            self._snapshot(step)
        self._push_pool()
        if step >= self.next_eval:
            self.next_eval = _next(step, c.eval.every)
            if c.eval.games > 0:
                self._evaluate()
        if step >= self.next_checkpoint:
            self.next_checkpoint = _next(step, c.checkpoint_every)
            self.checkpoint()
        return True

    def _on_training_end(self) -> None:
        if self.bar is not None:
            self.bar.close()

    # -------------------------------------------------------------- events
    def _snapshot(self, step: int) -> None:
        folder = self.run_dir / "snapshots"
        folder.mkdir(exist_ok=True)
        path = folder / f"snapshot_{step:09d}.zip"
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

    def checkpoint(self) -> Path:
        """Save the model and the pool at the current step (called at the end of the run too)."""
        step = self.model.num_timesteps
        path = self.run_dir / "checkpoints" / f"model_{step:09d}.zip"
        if step != self.last_checkpoint:
            save_checkpoint(self.model, self.run_dir, self.snapshots, self.mix, seconds=self.status.seconds())
            self.last_checkpoint = step
            for old in self.retired:
                Path(old).unlink(missing_ok=True)
            self.retired = []
        return path

    def finish(self) -> None:
        """The budget is spent: a checkpoint, a final evaluation unless the last one is at this step, final.zip."""
        step = self.model.num_timesteps
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
    """Where the hex learner is evaluated: the held-out procedural maps when it trains on procedural ones."""
    if c.game != "hexwar":
        return None
    if c.eval.scenario:
        return c.eval.scenario
    train = c.env.scenario or "meeting_engagement"
    return "random:test" if train.startswith("random") else train
