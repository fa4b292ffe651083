"""Periodic evaluation of the learner: masked greedy play against fixed agents, seats swapped.

Game ``2k`` gives the learner the first seat and game ``2k+1`` the second, on the
same seed, as ``cardwar match`` does; the score rate counts a draw as half.
"""

from __future__ import annotations

import csv
import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardwar.agents.ppo_agent import PPOAgent
from cardwar.arena import play_agents
from cardwar.arena.match_result import MatchResult
from cardwar import agents
from cardwar.training.scenario_mix import make_env as make_raw_env


@dataclass
class EvalPoint:
    """One evaluation of the learner against one opponent."""

    step: int
    opponent: str
    games: int
    wins: int
    draws: int
    losses: int
    score: float
    low: float
    high: float
    seconds: float = float("nan")
    """The run's wall-clock seconds when the learner was at ``step`` (NaN in runs older than this column)."""


def evaluate(model: Any, game: str, opponent: str, games: int, seed: int, step: int,
             scenario: str | None = None, rules: dict | None = None, workers: int = 1,
             seconds: float = float("nan")) -> EvalPoint:
    """Play ``games`` games (rounded up to pairs) of the model against ``opponent``.

    With ``workers`` > 1 the pairs are shared among that many forked processes (each has the
    model as it is now); the result is the same as in one process, as every pair has its own seed.
    """
    from cardwar.training.workers import WorkerPool

    res = MatchResult(game, "learner", opponent)
    pairs = list(range((games + 1) // 2))
    play = functools.partial(_play_pairs, model, game, opponent, seed, scenario, rules)
    if workers > 1 and len(pairs) > 1:
        n = min(workers, len(pairs))
        chunks = [pairs[i::2 * n] for i in range(2 * n) if pairs[i::2 * n]]
        with WorkerPool(play, n, "evaluation") as pool:
            returns = [ret for _, part in pool.imap_unordered(chunks) for ret in part]
    else:
        returns = play(pairs)
    for ret in returns:
        res.games += 1
        res.wins_a += ret > 0
        res.wins_b += ret < 0
        res.draws += ret == 0
    lo, hi = res.interval()
    return EvalPoint(step, opponent, res.games, res.wins_a, res.draws, res.wins_b, res.score_a, lo, hi, seconds)


def _play_pairs(model: Any, game: str, opponent: str, seed: int, scenario: str | None, rules: dict | None,
                pairs: list[int]) -> list[float]:
    """The learner's returns in pairs ``k`` (seed ``seed + k``, the learner first, then second)."""
    env = make_raw_env(game, scenario, rules)
    learner = PPOAgent.from_model(model)
    returns = []
    for k in pairs:
        other = agents.make(opponent, game, seed=seed + k)
        for learner_seat in (0, 1):
            players = (learner, other) if learner_seat == 0 else (other, learner)
            returns.append(play_agents(env, *players, seed=seed + k)[learner_seat])
    return returns


def append_csv(path: Path, points: list[EvalPoint]) -> None:
    """Add one evaluation's rows to the run's ``eval.csv`` in one write (header on first write)."""
    import io

    buf = io.StringIO()
    w = csv.writer(buf)
    if not path.exists() or path.stat().st_size == 0:
        w.writerow(["step", "opponent", "games", "wins", "draws", "losses", "score", "ci_low", "ci_high", "seconds"])
    for point in points:
        w.writerow([point.step, point.opponent, point.games, point.wins, point.draws, point.losses,
                    f"{point.score:.4f}", f"{point.low:.4f}", f"{point.high:.4f}", f"{point.seconds:.1f}"])
    with path.open("a", newline="") as f:
        f.write(buf.getvalue())


def read_csv(path: Path) -> list[EvalPoint]:
    """The evaluations recorded so far."""
    if not path.exists():
        return []
    with path.open() as f:
        return [EvalPoint(int(r["step"]), r["opponent"], int(r["games"]), int(r["wins"]), int(r["draws"]),
                          int(r["losses"]), float(r["score"]), float(r["ci_low"]), float(r["ci_high"]),
                           float(r.get("seconds") or "nan"))
                for r in csv.DictReader(f)]


def plot_curve(points: list[EvalPoint], path: Path, title: str) -> None:
    """A PNG of score rate against steps and, beside it, against the run's wall-clock minutes (when the
    rows have them), one line per opponent with its 95% band."""
    import math

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    timed = bool(points) and all(not math.isnan(p.seconds) for p in points)
    fig, axes = plt.subplots(1, 2 if timed else 1, figsize=(12 if timed else 8, 4), dpi=100, squeeze=False)
    xs = [("step", "environment steps (learner's moves)")] + ([("minutes", "wall-clock minutes")] if timed else [])
    for ax, (x, label) in zip(axes[0], xs):
        for opponent in sorted({p.opponent for p in points}):
            pts = sorted((p for p in points if p.opponent == opponent), key=lambda p: p.step)
            at = [p.step if x == "step" else p.seconds / 60 for p in pts]
            ax.plot(at, [p.score for p in pts], marker="o", label=f"vs {opponent}")
            ax.fill_between(at, [p.low for p in pts], [p.high for p in pts], alpha=0.2)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 1)
        ax.set_xlabel(label)
        ax.set_ylabel("score rate (win 1, draw 1/2)")
        ax.set_title(title if x == "step" else f"{title}, against time")
        ax.grid(alpha=0.3)
    if points:
        axes[0][-1].legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")  # never over a point
    fig.tight_layout()
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp)
    plt.close(fig)
    tmp.replace(path)
