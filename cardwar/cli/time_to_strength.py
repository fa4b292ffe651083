"""``cardwar bench --time-to-strength GAME``: how long each training pipeline takes to get strong (issue 22, item 4).

It reports the wall-clock minutes and env steps until the learner first scores at least
0.90 against ``random`` and at least 0.60 against ``heuristic`` (and both at one evaluation),
for two pipelines run side by side on the same machine:

- ``ours``: ``cardwar train GAME --config GAME``, the committed config (imitation warm start,
  vec env, network, opponent pool) as shipped;
- ``tutorial``: ``cardwar train GAME --config tutorial/GAME``, PettingZoo's SB3 tutorial
  (``tutorials/SB3/connect_four``) on our env with the reward fix: MaskablePPO with SB3's
  defaults, an MLP, one env, the learner against its latest self (the config says how it maps).

**Interleaved, one at a time.** Both trainers are started as process groups of their own, and
the bench lets one run for a slice (``--slice``, 10 s) while the other is stopped
(``SIGSTOP``/``SIGCONT`` on the whole group: trainer, env workers and evaluation workers).
Each pipeline's clock counts only its own slices. Why not both at once: the CPU scheduler
shares by thread (or by session), so ours, with its eight env processes, would take most of
the cores from the tutorial's single process, or the reverse with sessions, and neither is how
a user runs one pipeline. In its slices a pipeline has the machine as a user running it alone
would, and slices alternate every few seconds, so that other work on the machine (its load
varies over minutes) weighs on both alike.

**Evaluated the same way, outside both clocks.** Both trainers run with ``eval.games=0`` and
write a checkpoint every ``--eval-every`` env steps (the same cadence for both: a checkpoint
falls at the first rollout boundary past each multiple, and both pipelines' rollouts are 2048
steps). Between slices, with both trainers stopped, the bench plays each new checkpoint
``--eval-games`` games (seat-swapped pairs, masked greedy play, :func:`cardwar.training.evaluate.evaluate`)
against ``random`` and against ``heuristic`` on held-out seeds (50000 on, as the project's
matches use; hexwar and skirmish on ``random:test`` maps, which no learner trains on). A
checkpoint's time is the pipeline's clock when the checkpoint was written (its file's time,
placed in the pipeline's slices), so evaluation never counts, and when the bench looks does not
matter; the table also gives the minutes with the pipeline's own evaluations added, as if the
trainer had evaluated in line.

A level first reached means: the first evaluation (in step order) whose score is at or above
the level. A pipeline stops when its clock reaches ``--minutes`` (a level it never reached is
"not reached in M min") or, unless ``--full``, once it has reached every level. Everything goes
to ``--out`` (``time_to_strength.json``, each pipeline's ``eval.csv`` and run folder), written
as it happens: a killed bench goes on where it was when run again with the same ``--out`` (a larger ``--minutes``
extends the budget), and its figures can be read back with ``--report``.
"""

from __future__ import annotations

import contextlib
import functools
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

LEVELS: tuple[tuple[str, float], ...] = (("random", 0.90), ("heuristic", 0.60))
"""The strength levels of issue 22: (opponent, score rate at or above which the level is reached)."""
BOTH = "both"
"""The level of both at one evaluation."""
PIPELINES: tuple[str, ...] = ("ours", "tutorial")


def games_with_tutorial() -> tuple[str, ...]:
    """The registered games with a tutorial config (``configs/training/tutorial/GAME.yaml``), in the registry's
    order: the games the tutorial's pipeline is measured on."""
    from cardwar import games
    from cardwar.configs import TRAINING_DIR

    return tuple(name for name in games.names() if (TRAINING_DIR / "tutorial" / f"{name}.yaml").is_file())


EVAL_SEED = 50_000
"""First seed of the held-out evaluation games (the project's matches on held-out seeds start there)."""
TARGET_RATIO = 1 / 3
"""Issue 22's target: ours reaches each level in at most a third of the tutorial pipeline's minutes."""
STATE = "time_to_strength.json"


class BenchError(ValueError):
    """What the user asked for cannot be run (one line for the terminal)."""


# ------------------------------------------------------------------------------------------------ levels
def level_name(opponent: str, threshold: float) -> str:
    """``"vs random >= 0.90"``."""
    return f"vs {opponent} >= {threshold:.2f}"


def level_names(levels: tuple[tuple[str, float], ...] = LEVELS) -> list[str]:
    """The levels in the table's order: each opponent's, then both at one evaluation."""
    return [level_name(o, t) for o, t in levels] + [BOTH]


def _opponent_of(spec: str) -> str:
    return spec.split(":", 1)[0].strip().lower()


def first_crossings(points: list[Any], levels: tuple[tuple[str, float], ...] = LEVELS) -> dict[str, Any | None]:
    """Level name -> the first evaluation point (lowest step) that reaches it, or None if none does.

    ``points`` are :class:`cardwar.training.evaluate.EvalPoint` rows (an ``eval.csv``); a level is
    reached at a step when the score against its opponent there is at or above its threshold. ``both``
    is the first step at which every level's opponent was evaluated and every level is reached; its
    point is that step's row against the last level's opponent (step and time are the same for all).
    """
    by_step: dict[int, dict[str, Any]] = {}
    for p in points:
        by_step.setdefault(p.step, {})[_opponent_of(p.opponent)] = p
    out: dict[str, Any | None] = {name: None for name in level_names(levels)}
    for step in sorted(by_step):
        row = by_step[step]
        reached = []
        for opponent, threshold in levels:
            p = row.get(opponent)
            ok = p is not None and p.score >= threshold - 1e-9
            reached.append(ok)
            if ok and out[level_name(opponent, threshold)] is None:
                out[level_name(opponent, threshold)] = p
        if all(reached) and out[BOTH] is None:
            out[BOTH] = row[levels[-1][0]]
    return out


def verdict(ours: float | None, tutorial: float | None, ours_ran: float,
            tutorial_ran: float) -> tuple[bool, str]:
    """Whether issue 22's target is met for one level (ours within a third of the tutorial's minutes), and why;
    ``*_ran``: the minutes each pipeline ran (its budget, or less where it stopped early: finished its steps or
    failed). A level the tutorial never reached counts for ours only if the tutorial ran at least three times
    ours' minutes without reaching it."""
    if ours is None and tutorial is None:
        return False, f"neither reached it (ours ran {ours_ran:.1f} min, the tutorial {tutorial_ran:.1f}): not shown"
    if ours is None:
        return False, f"ours did not reach it in {ours_ran:.1f} min; the tutorial did in {tutorial:.1f}"
    if tutorial is None:
        if ours <= TARGET_RATIO * tutorial_ran + 1e-9:
            return True, (f"the tutorial did not reach it in {tutorial_ran:.1f} min, at least "
                          f"{1 / TARGET_RATIO:g}x ours' {ours:.1f} (a win)")
        return False, (f"not shown: ours reached it in {ours:.1f} min; the tutorial stopped after {tutorial_ran:.1f} "
                       f"min without it, less than {1 / TARGET_RATIO:g}x that")
    ratio = ours / tutorial if tutorial > 0 else math.inf
    return ratio <= TARGET_RATIO + 1e-9, f"ours {ratio:.2f}x the tutorial's minutes (target <= {TARGET_RATIO:.2f}x)"


# ------------------------------------------------------------------------------------------------ state
@dataclass
class PipelineState:
    """What the bench knows of one pipeline, saved in ``time_to_strength.json`` as it changes."""

    config: str
    run_dir: str | None = None
    active: float = 0.0
    """The pipeline's clock in seconds: its own slices only (at the last save)."""
    checkpoints: dict[str, dict[str, float]] = field(default_factory=dict)
    """Step (as text) -> ``{"active": s, "run_seconds": s}`` and, once evaluated, ``"eval_seconds": s``."""
    done: str | None = None
    """Why it stopped (``budget``, ``reached``, ``finished``, ``failed: ...``); None while it goes on."""


@dataclass
class BenchState:
    """The whole bench's record, read back on a rerun with the same ``--out``."""

    game: str
    minutes: float
    eval_every: int
    eval_games: int
    scenario: str | None
    sets: dict[str, list[str]]
    pipelines: dict[str, PipelineState]

    def save(self, out: Path) -> None:
        data = {k: v for k, v in self.__dict__.items() if k != "pipelines"}
        data["pipelines"] = {n: p.__dict__ for n, p in self.pipelines.items()}
        tmp = out / (STATE + ".partial")
        tmp.write_text(json.dumps(data, indent=2))
        tmp.replace(out / STATE)

    @classmethod
    def load(cls, out: Path) -> BenchState:
        data = json.loads((out / STATE).read_text())
        data["pipelines"] = {n: PipelineState(**p) for n, p in data["pipelines"].items()}
        return cls(**data)


# ------------------------------------------------------------------------------------------------ signals
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class BenchInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or ``kill`` (SIGTERM) reached the bench: its trainers are asked to save and end."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by a signal: 128 + its number (130 Ctrl-C, 143 ``kill``)."""
        return 128 + self.signum


class Interrupts:
    """The bench's SIGINT and SIGTERM, whatever it inherited: the first raises :class:`BenchInterrupted`, a second
    one (while the trainers are being stopped) calls ``now`` (SIGKILL of their groups) and exits at once.

    Installed whatever the disposition the bench was started with, as the trainer's own handler is: a process
    started with ``&`` by a script (a CI job's test run, for one) inherits SIGINT *ignored*, and Python keeps
    it so; the bench then never saw a Ctrl-C or the test's ``kill -INT`` and ran on for its whole budget. A
    mask inherited with them blocked is cleared for the same reason. Main thread only.
    """

    def __init__(self) -> None:
        self.previous = {s: signal.getsignal(s) for s in SIGNALS}
        self.now: Any = None
        self.hit = False
        if threading.current_thread() is not threading.main_thread():  # only the main thread may set handlers
            self.previous = {}
            return
        for s in SIGNALS:
            signal.signal(s, self._handle)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)

    def _handle(self, signum: int, frame: Any) -> None:
        if not self.hit:
            self.hit = True
            raise BenchInterrupted(signum)
        print(f"{signal.Signals(signum).name} again: stopping both trainers now, without waiting", file=sys.stderr,
              flush=True)
        if self.now is not None:
            self.now()
        os._exit(128 + signum)

    def restore(self) -> None:
        for s, handler in self.previous.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)


@contextlib.contextmanager
def signals_held() -> Any:
    """SIGINT and SIGTERM wait (blocked) for the duration: a Ctrl-C then lands after it, never halfway through."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


# ------------------------------------------------------------------------------------------------ processes
def _prctl() -> Any:
    """libc's ``prctl`` (Linux), looked up in the bench, not in the child between fork and exec; None elsewhere."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        import ctypes

        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def _trainer_setup(prctl: Any, bench: int) -> None:
    """In the child before exec: SIGKILL when the bench dies (Linux), so a killed bench leaves no trainer; and
    SIGINT/SIGTERM as a fresh process has them (default, not blocked: the bench holds them across the fork and
    asks a trainer to stop with SIGINT, which an inherited ``SIG_IGN`` would have made it deaf to). Only calls
    that take no lock another thread of the bench could have held at the fork."""
    for s in SIGNALS:
        signal.signal(s, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):
        signal.pthread_sigmask(signal.SIG_UNBLOCK, SIGNALS)
    if prctl is not None:
        prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    if os.getppid() != bench:  # the bench died before the death signal was armed
        os._exit(1)


class Pipeline:
    """One ``cardwar train`` process group, run in slices, its clock counting only them."""

    def __init__(self, name: str, game: str, state: PipelineState, out: Path, sets: list[str],
                 eval_every: int) -> None:
        self.name, self.game, self.state, self.out = name, game, state, out
        self.sets, self.eval_every = sets, eval_every
        self.proc: subprocess.Popen | None = None
        self.slices: list[tuple[float, float]] = []
        self.base = state.active  # the clock before this session's slices
        self.slice_start: float | None = None

    # the clock
    def active_now(self) -> float:
        """This pipeline's seconds so far (its slices only)."""
        running = time.time() - self.slice_start if self.slice_start is not None else 0.0
        return self.base + sum(b - a for a, b in self.slices) + running

    def active_at(self, wall: float) -> float:
        """The clock at wall time ``wall`` (``time.time()``) of this session."""
        spans = list(self.slices) + ([(self.slice_start, time.time())] if self.slice_start is not None else [])
        return self.base + sum(max(0.0, min(b, wall) - a) for a, b in spans if a < wall)

    # the process group
    def launch(self) -> None:
        """Start the trainer (a new run, or ``--resume`` of the run folder), running: a slice begins."""
        log = (self.out / self.name / "train.log").open("a")
        cmd = [sys.executable, "-m", "cardwar", "train", self.game, "--quiet"]
        if self.state.run_dir and Path(self.state.run_dir, "config.yaml").is_file():
            # the trainer resumes a run in any phase, its imitation included (no checkpoint needed)
            cmd += ["--resume", self.state.run_dir]
            self.base = self._resumed_clock()
        else:
            cmd += ["--config", self.state.config, "--runs", str(self.out / self.name), "--set", "eval.games=0",
                    "--set", f"checkpoint_every={self.eval_every}"]
            for item in self.sets:
                cmd += ["--set", item]
        log.write(f"\n# {' '.join(cmd)}\n")
        log.flush()
        self.slice_start = time.time()
        setup = functools.partial(_trainer_setup, _prctl(), os.getpid())
        try:
            with signals_held():  # a Ctrl-C during the start lands once self.proc is known, so the stop reaches it
                self.proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                             start_new_session=True, preexec_fn=setup)
        finally:
            log.close()

    def _resumed_clock(self) -> float:
        """The clock a resumed pipeline goes on from: where it stood when the bench last saved (at the end of
        each slice, and when it stopped the trainer). The trainer goes on from its last checkpoint, so the
        work it redoes since then counts on its clock, as it would for a user whose run was interrupted."""
        return self.state.active

    def _checkpoint_states(self) -> list[tuple[int, dict]]:
        if not self.state.run_dir:
            return []
        found = []
        for path in Path(self.state.run_dir, "checkpoints").glob("state_*.json"):
            try:
                info = json.loads(path.read_text()) | {"_mtime": path.stat().st_mtime}
                found.append((int(path.stem.split("_")[1]), info))
            except (ValueError, OSError, json.JSONDecodeError):
                continue
        return sorted(found, key=lambda x: x[0])

    def resume_slice(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self._signal_group(signal.SIGCONT)
        self.slice_start = time.time()

    def pause(self) -> None:
        """End the slice: the whole group stops."""
        if self.proc is not None and self.proc.poll() is None:
            self._signal_group(signal.SIGSTOP)
        if self.slice_start is not None:
            self.slices.append((self.slice_start, time.time()))
            self.slice_start = None

    def _signal_group(self, sig: int) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.proc.pid, sig)

    def find_run_dir(self) -> None:
        if self.state.run_dir is None:
            runs = sorted(p for p in (self.out / self.name).glob(f"{self.game}__*") if p.is_dir())
            if runs:
                self.state.run_dir = str(runs[-1])

    def new_checkpoints(self) -> list[int]:
        """Record the checkpoints written since the last look, each at the clock of its file's time."""
        self.find_run_dir()
        added = []
        for step, info in self._checkpoint_states():
            if str(step) in self.state.checkpoints:
                continue
            if step % self.eval_every and step != 0:  # an interruption's checkpoint: not on the cadence
                continue
            self.state.checkpoints[str(step)] = {"active": round(self.active_at(info["_mtime"]), 2),
                                                 "run_seconds": float(info.get("seconds", 0.0))}
            added.append(step)
        return added

    def stop(self, reason: str, grace: float = 90.0) -> None:
        """End the trainer: SIGINT (it saves a checkpoint and leaves), then SIGKILL of the group if it lingers."""
        stop_all([self], reason, grace)

    def ask_to_stop(self, reason: str) -> None:
        """The clock stops, the group goes on (SIGCONT: a stopped process acts on no signal but SIGKILL) and the
        trainer gets SIGINT, after which it saves a checkpoint and leaves."""
        self.state.done = reason
        self.state.active = round(self.active_now(), 2)
        if self.proc is not None and self.proc.poll() is None:
            self._signal_group(signal.SIGCONT)
            with contextlib.suppress(ProcessLookupError):
                self.proc.send_signal(signal.SIGINT)

    def wait_until(self, deadline: float) -> None:
        """Wait for the trainer to end, at most until ``deadline`` (``time.monotonic()``)."""
        if self.proc is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(max(0.0, deadline - time.monotonic()))

    def kill(self) -> None:
        """SIGKILL whatever is left of the group (a stopped process dies of it too)."""
        if self.proc is None:
            return
        self._signal_group(signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(10)

    def exit_reason(self) -> str | None:
        """None while the trainer runs; else why it ended (its last log line when it failed)."""
        if self.proc is None or self.proc.poll() is None:
            return None
        code = self.proc.returncode
        if code == 0:
            return "finished its total_steps"
        lines = [ln for ln in (self.out / self.name / "train.log").read_text(errors="replace").splitlines()
                 if ln.strip() and not ln.startswith("#")]
        return f"failed (exit {code}): {lines[-1].strip() if lines else 'no output'}"


def stop_all(pipelines: list[Pipeline], reason: str | None, grace: float) -> None:
    """Ask every trainer to save and end at once, wait for them all within one ``grace``, then SIGKILL what is left
    of each group: two trainers take the time of the slower, not the sum. ``reason`` None: each pipeline keeps
    the one it has (an interrupted bench goes on with both when run again)."""
    for p in pipelines:
        p.ask_to_stop(reason or p.state.done or "interrupted")
    deadline = time.monotonic() + grace
    for p in pipelines:
        p.wait_until(deadline)
    for p in pipelines:
        p.kill()


# ------------------------------------------------------------------------------------------------ evaluation
def evaluate_checkpoint(game: str, path: Path, games: int, scenario: str | None, step: int,
                        seconds: float, workers: int) -> list[Any]:
    """The checkpoint's evaluation points against each level's opponent, on held-out seeds."""
    from sb3_contrib import MaskablePPO

    from cardwar.training.evaluate import evaluate

    model = MaskablePPO.load(path, device="cpu")
    return [evaluate(model, game, opponent, games, seed=EVAL_SEED, step=step, scenario=scenario,
                     workers=workers, seconds=seconds) for opponent, _ in LEVELS]


# ------------------------------------------------------------------------------------------------ report
def report(out: Path) -> dict[str, Any]:
    """The figures of the bench in ``out`` (running, finished or killed) as a dict."""
    from cardwar.training.evaluate import read_csv

    state = BenchState.load(out)
    rows: dict[str, Any] = {}
    for name, p in state.pipelines.items():
        points = read_csv(out / name / "eval.csv")
        crossings = first_crossings(points)
        evals = sorted((int(s), c) for s, c in p.checkpoints.items() if "eval_seconds" in c)
        levels = {}
        for level, point in crossings.items():
            if point is None:
                levels[level] = None
                continue
            with_eval = point.seconds + sum(c["eval_seconds"] for s, c in evals if s <= point.step)
            levels[level] = {"minutes": round(point.seconds / 60, 2), "steps": point.step,
                             "minutes_with_evaluation": round(with_eval / 60, 2)}
        last = max(points, key=lambda q: q.step) if points else None
        rows[name] = {"config": p.config, "run_dir": p.run_dir, "minutes": round(p.active / 60, 2),
                      "steps_evaluated": last.step if last else None, "stopped": p.done, "levels": levels,
                      "last": {q.opponent: q.score for q in points if last and q.step == last.step}}
    verdicts = {}
    if set(PIPELINES) <= set(rows):
        for level in level_names():
            o, t = (rows[n]["levels"][level] for n in PIPELINES)
            met, why = verdict(o and o["minutes"], t and t["minutes"],
                               *(rows[n]["minutes"] for n in PIPELINES))
            verdicts[level] = {"met": met, "why": why}
    return {"game": state.game, "budget_minutes": state.minutes, "eval_every": state.eval_every,
            "eval_games": state.eval_games, "eval_seed": EVAL_SEED, "eval_scenario": state.scenario,
            "pipelines": rows, "target": verdicts, "out": str(out)}


def format_table(data: dict[str, Any]) -> str:
    """The report as a Markdown table and one line per level on the target."""
    m = data["budget_minutes"]
    lines = [f"time to strength, {data['game']}: {data['eval_games']} games against each opponent every "
             f"{data['eval_every']:,} steps, held-out seeds {data['eval_seed']}+"
             + (f" on {data['eval_scenario']}" if data["eval_scenario"] else "") + f"; budget {m:g} min each",
             "", "| pipeline | level | minutes | env steps | minutes with its evaluations |",
             "|---|---|---:|---:|---:|"]
    for name, row in data["pipelines"].items():
        for level, hit in row["levels"].items():
            if hit is None:
                ran = row["minutes"]
                why = "" if ran >= m - 0.05 else f" ({row['stopped'] or 'still running'})"
                lines.append(f"| {name} | {level} | not reached in {min(ran, m):.1f} min{why} | - | - |")
            else:
                lines.append(f"| {name} | {level} | {hit['minutes']:.1f} | {hit['steps']:,} | "
                             f"{hit['minutes_with_evaluation']:.1f} |")
    lines.append("")
    for name, row in data["pipelines"].items():
        last = ", ".join(f"{k} {v:.2f}" for k, v in row["last"].items())
        lines.append(f"{name}: {row['minutes']:.1f} min, last evaluation at step {row['steps_evaluated'] or 0:,}"
                     f" ({last or 'none'}); stopped: {row['stopped'] or 'still running'}; {row['run_dir']}")
    for level, v in data["target"].items():
        lines.append(f"target {level}: {'met' if v['met'] else 'missed'} ({v['why']})")
    return "\n".join(lines)


def plot(out: Path, path: Path) -> None:
    """Score against each pipeline's own minutes, one panel per opponent, both pipelines, levels dashed."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from cardwar.training.evaluate import read_csv

    state = BenchState.load(out)
    fig, axes = plt.subplots(1, len(LEVELS), figsize=(6 * len(LEVELS), 4), dpi=100, squeeze=False)
    for ax, (opponent, threshold) in zip(axes[0], LEVELS):
        for name, color in zip(state.pipelines, ("tab:blue", "tab:orange")):
            pts = sorted((p for p in read_csv(out / name / "eval.csv") if _opponent_of(p.opponent) == opponent),
                         key=lambda p: p.step)
            at = [p.seconds / 60 for p in pts]
            ax.plot(at, [p.score for p in pts], marker="o", ms=3, color=color, label=name)
            ax.fill_between(at, [p.low for p in pts], [p.high for p in pts], color=color, alpha=0.15)
            hit = next((p for p in pts if p.score >= threshold - 1e-9), None)
            if hit is not None:  # the first crossing of the level, the figure the table gives
                ax.plot([hit.seconds / 60], [hit.score], marker="*", ms=14, color=color, mec="black", zorder=5)
        ax.axhline(threshold, color="grey", lw=0.9, ls="--", label=f"level {threshold:.2f}")
        ax.set_ylim(0, 1)
        ax.set_xlabel("the pipeline's wall-clock minutes (its own slices)")
        ax.set_ylabel("score rate (win 1, draw 1/2)")
        ax.set_title(f"{state.game}: vs {opponent}, held-out seeds (star: first at the level)")
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right", fontsize="small")
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(path)


# ------------------------------------------------------------------------------------------------ the run
def _parse_sets(items: list[str] | None) -> dict[str, list[str]]:
    """``--set KEY=V`` for both pipelines, ``--set ours:KEY=V`` / ``tutorial:KEY=V`` for one."""
    out: dict[str, list[str]] = {n: [] for n in PIPELINES}
    for item in items or []:
        head, colon, rest = item.partition(":")
        if colon and head in PIPELINES and "=" in rest and "=" not in head:
            out[head].append(rest)
        elif "=" in item:
            for n in PIPELINES:
                out[n].append(item)
        else:
            raise BenchError(f"--set {item!r} is not KEY=VALUE (or ours:KEY=VALUE, tutorial:KEY=VALUE)")
    return out


def _check_configs(game: str, sets: dict[str, list[str]], configs: dict[str, str], eval_every: int) -> str | None:
    """Each pipeline's config with its overrides, checked before anything starts (one line if wrong); returns
    the scenario the evaluations play (ours' evaluation scenario: held-out maps where it trains on generated ones).

    ``eval_every`` must be a multiple of each pipeline's rollout, so that every periodic checkpoint falls on a
    multiple of it and is told apart from an interruption's."""
    from cardwar.training.callbacks import eval_scenario
    from cardwar.configs import ConfigNotFound, resolve
    from cardwar.training.config import TrainConfigError, load_config

    scenario = None
    for name, cfg in configs.items():
        try:
            path, _ = resolve("training", cfg)
            config = load_config(path, ["eval.games=0", *sets[name]])
        except (ConfigNotFound, TrainConfigError) as err:
            raise BenchError(f"{name} pipeline: {err}") from None
        if config.game != game:
            raise BenchError(f"{name} pipeline: the config {cfg} is for {config.game}, not {game}")
        rollout = config.ppo.n_steps * config.env.n_envs
        if eval_every % rollout:
            raise BenchError(f"--eval-every {eval_every} is not a multiple of the {name} pipeline's rollout "
                             f"({config.ppo.n_steps} x {config.env.n_envs} = {rollout} steps)")
        if name == "ours":
            scenario = eval_scenario(config)
    return scenario


def check_request(game: str, minutes: float, eval_every: int, eval_games: int, slice_seconds: float) -> None:
    """The user's numbers and game, each refused in one line."""
    if game not in games_with_tutorial():
        raise BenchError(f"--time-to-strength: unknown game {game!r}; one of {', '.join(games_with_tutorial())}")
    for flag, value, low in (("--minutes", minutes, 0.05), ("--slice", slice_seconds, 0.5)):
        if not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
            raise BenchError(f"{flag} must be a number of at least {low:g}, got {value!r}")
    if eval_every < 1:
        raise BenchError(f"--eval-every must be at least 1 step, got {eval_every}")
    if eval_games < 2:
        raise BenchError(f"--eval-games must be at least 2 (one seat-swapped pair), got {eval_games}")


def run(game: str, minutes: float = 30.0, out: Path | None = None, plot_path: Path | None = None,
        eval_every: int = 20_480, eval_games: int = 100, slice_seconds: float = 10.0,
        sets: list[str] | None = None, full: bool = False, as_json: bool = False, progress: bool = True) -> dict:
    """Run (or go on with) the bench in ``out``, print its table (or JSON) and return the report.

    Ctrl-C or ``kill`` at any moment from here on ends it in one line, with 130 or 143: both trainers are asked
    to save and end (together, within 60 s, then SIGKILL), the state is saved, and the same command goes on.
    """
    interrupts = Interrupts()  # first: a signal during the checks below is handled as well as a later one
    try:
        return _run(interrupts, game, minutes, out, plot_path, eval_every, eval_games, slice_seconds, sets, full,
                    as_json, progress)
    except BenchInterrupted as err:  # before any trainer started, or after both ended (the report): nothing to stop
        print(f"interrupted ({signal.Signals(err.signum).name})", file=sys.stderr)
        raise SystemExit(err.exit_code) from None
    finally:
        interrupts.restore()


def _run(interrupts: Interrupts, game: str, minutes: float, out: Path | None, plot_path: Path | None,
         eval_every: int, eval_games: int, slice_seconds: float, sets: list[str] | None, full: bool, as_json: bool,
         progress: bool) -> dict:
    check_request(game, minutes, eval_every, eval_games, slice_seconds)
    out = Path(out or f"runs/time_to_strength/{game}")
    per = _parse_sets(sets)
    configs = {"ours": game, "tutorial": f"tutorial/{game}"}
    if (out / STATE).is_file():
        state = BenchState.load(out)
        if state.game != game:
            raise BenchError(f"--out {out} holds a {state.game} bench, not {game}")
        if state.minutes != minutes:
            print(f"note: going on with {out}; its budget changes from {state.minutes:g} to {minutes:g} min",
                  file=sys.stderr)
            for p in state.pipelines.values():
                if p.done == "budget" and p.active < minutes * 60:
                    p.done = None
            state.minutes = minutes
        else:
            print(f"note: going on with the bench in {out}", file=sys.stderr)
        for name, p in state.pipelines.items():
            if p.done is not None and p.done.startswith("failed"):  # e.g. a bug fixed since: it goes on too
                print(f"note: {name} {p.done}; it goes on from its last checkpoint", file=sys.stderr)
                p.done = None
        if (eval_every, eval_games, per) != (state.eval_every, state.eval_games, state.sets):
            print(f"note: {out} keeps the settings it started with (--eval-every {state.eval_every}, "
                  f"--eval-games {state.eval_games}, its --set); the ones given now are not used", file=sys.stderr)
    else:
        scenario = _check_configs(game, per, configs, eval_every)
        out.mkdir(parents=True, exist_ok=True)
        state = BenchState(game, minutes, eval_every, eval_games, scenario, per,
                           {n: PipelineState(config=configs[n]) for n in PIPELINES})
    for n in PIPELINES:
        (out / n).mkdir(parents=True, exist_ok=True)
    state.save(out)
    plot_path = Path(plot_path) if plot_path else out / "time_to_strength.png"
    pipelines = [Pipeline(n, game, state.pipelines[n], out, state.sets[n], state.eval_every) for n in PIPELINES]

    def kill_now() -> None:  # a second signal: no more waiting for the trainers to save
        for p in pipelines:
            if p.proc is not None:
                p._signal_group(signal.SIGKILL)

    interrupts.now = kill_now
    try:
        _interleave(state, pipelines, out, plot_path, slice_seconds, full, progress)
    except KeyboardInterrupt as err:  # BenchInterrupted, or a KeyboardInterrupt raised by other code
        for p in pipelines:
            p.pause()  # the clocks stop here
        before = {p.name: p.state.done for p in pipelines}
        stop_all(pipelines, None, grace=60.0)  # each trainer saves a checkpoint and leaves; both at once
        for p in pipelines:
            p.state.done = before[p.name]  # an interrupted pipeline is not done: the same command goes on
        state.save(out)
        print(f"interrupted: both trainers ended; the figures so far: cardwar bench --time-to-strength {game} "
              f"--out {out} --report (the same command without --report goes on)", file=sys.stderr)
        raise SystemExit(getattr(err, "exit_code", 130)) from None
    finally:
        interrupts.now = None
        for p in pipelines:
            p.kill()
    data = report(out)
    plot(out, plot_path)
    data["plot"] = str(plot_path)
    print(json.dumps(data) if as_json else format_table(data) + f"\nplot: {plot_path}")
    return data


def _interleave(state: BenchState, pipelines: list[Pipeline], out: Path, plot_path: Path, slice_seconds: float,
                full: bool, progress: bool) -> None:
    """Slices in turn until every pipeline has stopped; the new checkpoints evaluated between rounds."""
    from tqdm import tqdm

    budget = state.minutes * 60
    bar = tqdm(total=round(budget * len(pipelines) / 60, 1), unit="min", desc=f"time to strength {state.game}",
               disable=not progress, file=sys.stderr, dynamic_ncols=True,
               bar_format="{l_bar}{bar}| {n:.1f}/{total:.1f} pipeline-min [{elapsed}]{postfix}")
    workers = min(2, os.cpu_count() or 1)
    try:
        while True:
            live = [p for p in pipelines if p.state.done is None]
            for p in live:
                if p.state.active >= budget:
                    p.state.done = "budget"
                    continue
                if p.proc is None:
                    p.launch()
                else:
                    p.resume_slice()
                end = time.time() + slice_seconds
                while time.time() < end and p.exit_reason() is None and p.active_now() < budget:
                    time.sleep(0.2)
                    p.new_checkpoints()
                p.pause()
                p.new_checkpoints()
                p.state.active = round(p.active_now(), 2)
                reason = p.exit_reason()
                if reason is not None:
                    p.state.done = reason
                elif p.state.active >= budget:
                    p.stop("budget")
                    p.new_checkpoints()
                state.save(out)
                bar.update(round(sum(min(q.state.active, budget) for q in pipelines) / 60, 1) - bar.n)
            evaluated = _evaluate_pending(state, pipelines, out, workers, bar)
            if evaluated:
                plot(out, plot_path)
            if not full:
                for p in pipelines:
                    if p.state.done is None and all(first_crossings(_points(out, p.name)).values()):
                        p.stop("reached every level")
                        state.save(out)
            if all(p.state.done is not None for p in pipelines) and not _pending(state):
                break
    finally:
        bar.close()


def _points(out: Path, name: str) -> list[Any]:
    from cardwar.training.evaluate import read_csv

    return read_csv(out / name / "eval.csv")


def _pending(state: BenchState) -> list[tuple[str, int]]:
    return sorted(((n, int(s)) for n, p in state.pipelines.items() for s, c in p.checkpoints.items()
                   if "eval_seconds" not in c), key=lambda x: (x[1], x[0]))


def _evaluate_pending(state: BenchState, pipelines: list[Pipeline], out: Path, workers: int, bar: Any) -> int:
    """Evaluate every checkpoint not yet evaluated (both trainers are stopped meanwhile)."""
    from cardwar.training.evaluate import append_csv

    done = 0
    for name, step in _pending(state):
        p = state.pipelines[name]
        info = p.checkpoints[str(step)]
        path = Path(p.run_dir or "", "checkpoints", f"model_{step:09d}.zip")
        start = time.time()
        if not path.is_file():  # retired by the trainer (it keeps every checkpoint today): nothing to play
            info["eval_seconds"] = 0.0
            continue
        points = evaluate_checkpoint(state.game, path, state.eval_games, state.scenario, step, info["active"],
                                     workers)
        append_csv(out / name / "eval.csv", points)
        info["eval_seconds"] = round(time.time() - start, 2)
        state.save(out)
        done += 1
        scores = ", ".join(f"vs {q.opponent} {q.score:.2f}" for q in points)
        bar.set_postfix_str(f"{name} {step:,}: {scores}", refresh=False)
        bar.write(f"{name} at step {step:,} ({info['active'] / 60:.1f} min): {scores}", file=sys.stderr)
    return done


def add_arguments(parser: Any) -> None:
    """The bench's options on ``cardwar bench`` (beside ``--time-to-strength GAME``)."""
    g = parser.add_argument_group("time to strength (--time-to-strength GAME)")
    g.add_argument("--minutes", type=float, default=30.0, help="each pipeline's budget, its own minutes (default 30)")
    g.add_argument("--out", metavar="DIR", help="where the runs and figures go; an existing one goes on "
                                                "(default runs/time_to_strength/GAME)")
    g.add_argument("--plot", metavar="PNG", help="the curve's file (default OUT/time_to_strength.png)")
    g.add_argument("--eval-every", type=int, default=20_480, help="env steps between evaluations (default 20480)")
    g.add_argument("--eval-games", type=int, default=100, help="games against each opponent (default 100)")
    g.add_argument("--slice", type=float, default=10.0, help="seconds each pipeline runs in turn (default 10)")
    g.add_argument("--set", action="append", metavar="[PIPELINE:]KEY=VALUE",
                   help="a config override for both pipelines, or ours:KEY=VALUE / tutorial:KEY=VALUE for one")
    g.add_argument("--full", action="store_true", help="run each pipeline to its budget even after every level")
    g.add_argument("--report", action="store_true", help="print the figures of --out without running anything")


def main(args: Any) -> int:
    """``cardwar bench --time-to-strength GAME``: run or report; a user's mistake raises :class:`BenchError`."""
    game = args.time_to_strength
    if game not in games_with_tutorial():
        raise BenchError(f"--time-to-strength: unknown game {game!r}; one of {', '.join(games_with_tutorial())}")
    if args.report:
        out = Path(args.out or f"runs/time_to_strength/{game}")
        if not (out / STATE).is_file():
            raise BenchError(f"--report: no time-to-strength bench in {out}")
        data = report(out)
        if args.plot:
            plot(out, Path(args.plot))
            data["plot"] = args.plot
        print(json.dumps(data) if args.json else format_table(data))
        return 0
    run(game, minutes=args.minutes, out=Path(args.out) if args.out else None,
        plot_path=Path(args.plot) if args.plot else None, eval_every=args.eval_every, eval_games=args.eval_games,
        slice_seconds=args.slice, sets=args.set, full=args.full, as_json=args.json, progress=not args.json)
    return 0
