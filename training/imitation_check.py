"""Imitation measured alone (issue 22): how closely the fitted policy reproduces its teacher.

::

    python -m cardwar.training.imitation_check hexwar --out runs/imitation/hex_base
    python -m cardwar.training.imitation_check hexwar --set policy.distance_fields=true --dagger 1 --out ...
    python -m cardwar.training.imitation_check naval --games 400 --out runs/imitation/naval_base

It does what a run's warm start does (``imitation`` section of the training config, ``--set`` overrides
it), and measures:

1. **Top-1 agreement** of the policy's likeliest legal action with the teacher's, on the training
   examples and on **held-out positions**: teacher games on other seeds (50000 on) and, for the hex game,
   on maps no learner trains on (the config's ``eval.scenario``, ``random:test``), after every epoch.
2. **A bound from the data**: examples whose observation and mask occur more than once with different
   teacher moves (the teacher breaks ties at random, or uses something the observation lacks); the
   share that disagrees with the majority move of its group is error no policy of the observation can
   remove.
3. **The imitated policy's score against its teacher** (masked greedy play, seats swapped, held-out seeds
   and maps; a draw is half), and against ``random``.
4. **DAgger** (``--dagger N``; Ross, Gordon and Bagnell 2011): the fitted policy plays half as many
   games again while the teacher labels every position it reached; the fit goes on over all examples,
   and 1-3 are measured again. Plain imitation only sees the teacher's positions, so the learner's own
   slips lead it where it has no data; DAgger gathers exactly those.

Everything goes to ``--out``: ``report.json`` (every figure and the command) and the teacher games
(``train/``, ``test/``, ``dagger_<k>/``), so a killed check plays only what is missing when run again.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import numpy as np

HELD_OUT_SEED = 50_000
"""Seeds from here on are held out: no training run or teacher game of this check uses them."""


def label_conflicts(demos: Any) -> dict[str, float]:
    """Examples whose (observation, mask) occurs again with another teacher move: the share of all examples
    in repeated positions, and the share that differs from its position's majority move (a floor on the
    top-1 error of any policy that sees only the observation)."""
    groups: dict[bytes, list[int]] = defaultdict(list)
    for i in range(len(demos)):
        groups[demos.obs[i].tobytes() + demos.masks[i].tobytes()].append(int(demos.actions[i]))
    repeated = disagree = 0
    for moves in groups.values():
        if len(moves) > 1:
            repeated += len(moves)
            disagree += len(moves) - Counter(moves).most_common(1)[0][1]
    n = max(len(demos), 1)
    return {"repeated_positions": repeated / n, "irreducible_disagreement": disagree / n}


def _model(config: Any, out: Path) -> Any:
    """A fresh model of the config's network (its envs in this process: they only give the spaces)."""
    from cardwar.training.trainer import new_model
    from cardwar.training.vec_env import make_vec_env

    model = new_model(config, make_vec_env(config, in_process=True), out)
    if config.init:  # as the run does: the fit goes on from the model ``init`` names
        from cardwar.training.trainer import load_initial_weights

        load_initial_weights(model, config)
    return model


def _demos(config: Any, games: int, seed: int, scenario: str | None, folder: Path, workers: int,
           learner: Any = None) -> Any:
    from cardwar.training.imitation import collect, to_steps

    im = config.imitation
    demos = collect(config.game, games, im.teacher, tuple(im.opponents), scenario, config.env.rules, seed=seed,
                    workers=workers, folder=folder, learner=learner)
    return to_steps(demos) if config.env.actions == "steps" else demos


def check(config: Any, out: Path, games: int, test_games: int, eval_games: int, dagger: int, workers: int,
          command: str) -> dict[str, Any]:
    """Run the check (see the module docstring); the report, also written to ``out/report.json``."""
    from cardwar.training.imitation import _accuracy, join, pretrain

    out.mkdir(parents=True, exist_ok=True)
    im = config.imitation
    held_scenario = config.eval.scenario or config.env.scenario
    report: dict[str, Any] = {"command": command, "game": config.game, "teacher": im.teacher,
                              "policy": vars(config.policy), "epochs": im.epochs, "value_coef": im.value_coef,
                              "rounds": []}
    start = time.perf_counter()
    train = _demos(config, games, config.seed * 1_000_003, config.env.scenario, out / "train", workers)
    test = _demos(config, test_games, HELD_OUT_SEED + 7_000_000, held_scenario, out / "test", workers)
    report["examples"] = {"train": len(train), "held_out": len(test)}
    report["label_conflicts"] = label_conflicts(train)
    print(f"{len(train):,} training examples ({games} games), {len(test):,} held-out ({test_games} games on "
          f"{held_scenario or 'the game'}); repeated positions {report['label_conflicts']['repeated_positions']:.3f}, "
          f"irreducible disagreement {report['label_conflicts']['irreducible_disagreement']:.3f}", file=sys.stderr)
    model = _model(config, out)
    everything = np.arange(len(test))
    before = _earlier_rounds(out / "report.json", eval_games)
    parts = [train]
    for round_ in range(dagger + 1):
        demos = join(parts)
        curve: list[dict[str, float]] = []

        def measured(epoch: int, stats: dict[str, float]) -> None:
            row = {"epoch": epoch, "train_accuracy": stats["accuracy"],
                   "held_out_accuracy": _accuracy(model.policy, test, everything)}
            curve.append(row)
            print(f"round {round_} epoch {epoch}: train {row['train_accuracy']:.3f}, "
                  f"held-out {row['held_out_accuracy']:.3f}", file=sys.stderr)

        pretrain(model.policy, demos, im.epochs, im.batch_size, im.learning_rate, seed=config.seed,
                 state_path=out / f"fit_{round_}.pt", targets=im.targets, value_coef=im.value_coef,
                 on_epoch=measured)
        earlier = before.get(round_)
        if not curve and earlier is not None and earlier["examples"] == len(demos):
            report["rounds"].append(earlier)  # a check run again: this round was fitted and measured already
            print(f"round {round_}: kept from {out / 'report.json'}", file=sys.stderr)
        else:
            _measure(model, config, out, round_, demos, curve, measured, eval_games, workers, start, report)
        if round_ < dagger:
            parts.append(_demos(config, max(games // 2, 2), config.seed * 1_000_003 + 10_000_000 * (round_ + 1),
                                config.env.scenario, out / f"dagger_{round_ + 1}", workers, learner=model))
    return report


def _measure(model: Any, config: Any, out: Path, round_: int, demos: Any, curve: list, measured: Any,
             eval_games: int, workers: int, start: float, report: dict[str, Any]) -> None:
    """Score a round's fitted policy against its teacher and random, save it and the report."""
    from cardwar.training.callbacks import write_json_atomically
    from cardwar.training.evaluate import evaluate

    im = config.imitation
    held_scenario = config.eval.scenario or config.env.scenario
    if not curve:  # the fit was already finished but never measured: measure it once
        measured(im.epochs, {"accuracy": float("nan")})
    scores = {}
    for opponent in (im.teacher, "random"):
        point = evaluate(model, config.game, opponent, eval_games, HELD_OUT_SEED, 0, scenario=held_scenario,
                         rules=config.env.rules, workers=workers)
        scores[opponent] = {"score": point.score, "low": point.low, "high": point.high, "games": point.games,
                            "wins": point.wins, "draws": point.draws, "losses": point.losses}
        print(f"round {round_}: imitated policy vs {opponent}: {point.score:.3f} ({point.low:.3f}-"
              f"{point.high:.3f}, {point.games} games)", file=sys.stderr)
    report["rounds"].append({"round": round_, "examples": len(demos), "curve": curve, "scores": scores,
                             "minutes": (time.perf_counter() - start) / 60})
    model.save(out / f"imitated_{round_}.zip")
    write_json_atomically(out / "report.json", report)


def _earlier_rounds(path: Path, eval_games: int) -> dict[int, dict[str, Any]]:
    """The rounds a check run before in this folder measured with as many games (a rerun keeps them)."""
    try:
        rounds = json.loads(path.read_text())["rounds"]
    except (OSError, ValueError, KeyError):
        return {}
    return {r["round"]: r for r in rounds
            if all(s.get("games") == eval_games + eval_games % 2 for s in r.get("scores", {}).values())}


def main(argv: list[str] | None = None) -> int:
    from cardwar.cli import UsageError, _training_config
    from cardwar.training.config import TrainConfigError, game_names, load_config

    parser = argparse.ArgumentParser(prog="python -m cardwar.training.imitation_check",
                                     description="Fit a policy to its teacher and measure how closely it plays "
                                                 "like it (issue 22).")
    parser.add_argument("game", help="naval, hexwar or skirmish")
    parser.add_argument("--config", help="training config: a shipped name or a YAML path (default: the game's)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="override a config key")
    parser.add_argument("--games", type=int, help="teacher games to fit (default: the config's imitation.games)")
    parser.add_argument("--test-games", type=int, default=100, help="held-out teacher games (default 100)")
    parser.add_argument("--eval-games", type=int, default=200, help="games against the teacher and random (200)")
    parser.add_argument("--dagger", type=int, default=None, help="DAgger rounds (default: imitation.dagger_rounds)")
    parser.add_argument("--workers", type=int, default=2, help="processes for the games (default 2)")
    parser.add_argument("--out", type=Path, required=True, help="folder for the report and the games")
    args = parser.parse_args(argv)
    try:
        if args.game not in game_names():
            raise UsageError(f"unknown game {args.game!r}; choose from {', '.join(game_names())}")
        least = {"games": 1, "test_games": 1, "eval_games": 2, "workers": 1, "dagger": 0}
        for name, low in least.items():
            value = getattr(args, name)
            if value is not None and value < low:
                raise UsageError(f"--{name.replace('_', '-')} must be at least {low}")
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise UsageError(f"--out {args.out}: cannot make the folder ({err.strerror})") from None
        config = load_config(_training_config(args.config, args.game), args.set)
        if config.game != args.game:
            raise UsageError(f"the config is for {config.game}, not {args.game}")
    except (UsageError, TrainConfigError) as err:
        print(f"imitation_check: error: {err}", file=sys.stderr)
        return 2
    import os

    import torch

    # as the trainer does: torch threads waiting on each other for busy cores cost far more than they give
    # (a fit here ran five times slower on 2 threads than on 1 with the machine's 2 cores busy)
    torch.set_num_threads(max(1, (os.cpu_count() or 2) // 2))
    games = args.games or config.imitation.games or 1000
    dagger = config.imitation.dagger_rounds if args.dagger is None else args.dagger
    command = "python -m cardwar.training.imitation_check " + " ".join(sys.argv[1:] if argv is None else argv)
    report = check(config, args.out, games, args.test_games, args.eval_games, dagger, args.workers, command)
    last = report["rounds"][-1]
    print(json.dumps({"held_out_accuracy": last["curve"][-1]["held_out_accuracy"],
                      "vs_teacher": last["scores"][config.imitation.teacher]["score"],
                      "vs_random": last["scores"]["random"]["score"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
