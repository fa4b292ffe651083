"""OpenSpiel's AlphaZero on a perfect-information bridged game (Tank Attack), then its bot against a baseline.

    python -m cardwar.openspiel.alphazero tankattack --scenario trench_raid --steps 4 --out az_trench_raid

Training is OpenSpiel's own loop, unchanged: ``open_spiel.python.algorithms.alpha_zero.alpha_zero(config)``
(actor processes play MCTS self-play games with the network's priors and values, the learner trains on
them and saves a checkpoint each step, ``checkpoint-0`` and the last one kept; JAX and Flax ``nnx``, on CPU). The dice are the bridge's explicit
chance nodes, which OpenSpiel's MCTS samples (``dont_return_chance_node``). Then, with ``--eval-games N``,
an ``MCTSBot`` with the trained ``AlphaZeroEvaluator`` plays N games through the bridge against
``--opponent`` (OpenSpiel's ``random`` bot, or ``mcts``: OpenSpiel's MCTS with random play-outs and as
many simulations), seats swapped in pairs; the score has a 95% Wilson interval.

Only perfect-information games: AlphaZero's MCTS searches the state it is given, which in an
imperfect-information game would be the true state (the other hand, hidden units). Needs the
``alphazero`` extra (``pip install 'cardwar[alphazero]'``: jax, flax, optax, chex, orbax). A mistake on
the command line is one line and exit 2.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

MISSING_JAX = "OpenSpiel's AlphaZero needs JAX and Flax: pip install 'cardwar[alphazero]'"


class _Parser(argparse.ArgumentParser):
    """argparse, with a mistake as one line on stderr and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def _at_least(low: int):
    """An argparse type: an integer of at least ``low`` (one line on a mistake)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
        if value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {text}")
        return value

    return parse


_positive, _count = _at_least(1), _at_least(0)


def _rate(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < math.inf:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def wilson(wins: int, draws: int, losses: int) -> tuple[float, float]:
    """95% Wilson interval of the score rate (a draw is half), as ``cardwar match`` prints it."""
    from cardwar.arena.match_result import MatchResult

    games = wins + draws + losses
    return MatchResult("", "", "", games=games, wins_a=wins, wins_b=losses, draws=draws).interval()


def config_for(game_string: str, out: Path, args: argparse.Namespace) -> Any:
    """OpenSpiel's AlphaZero ``Config`` for the command line (its own field names; the shapes are filled in
    by ``alpha_zero`` from the game). No evaluator processes: the evaluation is ours, after training."""
    from open_spiel.python.algorithms.alpha_zero import alpha_zero

    return alpha_zero.Config(
        game=game_string, path=str(out), learning_rate=args.learning_rate, weight_decay=1e-4,
        decouple_weight_decay=False, train_batch_size=args.batch_size,
        replay_buffer_size=args.replay_buffer_size, replay_buffer_reuse=args.replay_buffer_reuse,
        max_steps=args.steps, checkpoint_freq=args.steps, actors=args.actors, evaluators=0,
        evaluation_window=100, eval_levels=2, uct_c=args.uct_c, max_simulations=args.simulations,
        policy_alpha=1.0, policy_epsilon=0.25, temperature=1.0, temperature_drop=args.temperature_drop,
        nn_model=args.model, nn_width=args.width, nn_depth=args.depth, observation_shape=None,
        output_size=None, verbose=False, quiet=True, nn_api_version="nnx")


def load_model(run: Path, step: int | None = None) -> tuple[Any, dict[str, Any]]:
    """The network of a run folder (its ``config.json``, as OpenSpiel's ``alpha_zero`` wrote it) with the weights
    of checkpoint ``step`` (default: the last step, ``max_steps``). Returns (model, config)."""
    import json

    from open_spiel.python.algorithms.alpha_zero import utils

    config = json.loads((Path(run) / "config.json").read_text(encoding="utf-8"))
    model = utils.api_selector(config["nn_api_version"]).Model.build_model(
        config["nn_model"], tuple(config["observation_shape"]), config["output_size"], config["nn_width"],
        config["nn_depth"], config["weight_decay"], config["learning_rate"], str(Path(run).resolve()),
        decouple_weight_decay=config["decouple_weight_decay"])
    model.load_checkpoint(config["max_steps"] if step is None else step)
    return model, config


def alphazero_bot(game: Any, model: Any, simulations: int, uct_c: float, rng: np.random.RandomState) -> Any:
    """OpenSpiel's MCTSBot with the AlphaZero evaluator of ``model``, as AlphaZero evaluates (no noise, PUCT,
    chance nodes sampled, never returned as a leaf)."""
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.algorithms.alpha_zero import evaluator

    return mcts.MCTSBot(game, uct_c, simulations, evaluator.AlphaZeroEvaluator(game, model), solve=False,
                        child_selection_fn=mcts.SearchNode.puct_value, random_state=rng,
                        dont_return_chance_node=True)


def opponent_bot(name: str, game: Any, player: int, simulations: int, uct_c: float,
                 rng: np.random.RandomState) -> Any:
    """``random`` (OpenSpiel's UniformRandomBot) or ``mcts`` (OpenSpiel's MCTSBot, random play-outs)."""
    from open_spiel.python.algorithms import mcts
    from open_spiel.python.bots.uniform_random import UniformRandomBot

    if name == "random":
        return UniformRandomBot(player, rng)
    return mcts.MCTSBot(game, uct_c, simulations, mcts.RandomRolloutEvaluator(1, rng), solve=False,
                        random_state=rng, dont_return_chance_node=True)


def play_game(game: Any, bots: list[Any], rng: np.random.RandomState) -> tuple[list[float], int]:
    """One whole game through the bridge: each seat's bot moves, the dice are the chance nodes' outcomes
    drawn from ``rng``. Returns (returns, decisions)."""
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        action = int(bots[state.current_player()].step(state))
        if action not in state.legal_actions():
            raise RuntimeError(f"the bot of seat {state.current_player()} chose {action}, not a legal move")
        state.apply_action(action)
        decisions += 1
    return state.returns(), decisions


def evaluate(game: Any, model: Any, games: int, opponent: str, simulations: int, uct_c: float,
             seed: int) -> dict[str, Any]:
    """``games`` games of the AlphaZero bot against ``opponent``, seats swapped in pairs (it is the first
    seat in even games): wins, draws, losses, the score rate (a draw is half) and its 95% Wilson interval."""
    rng = np.random.RandomState(seed)
    wins = draws = losses = decisions = 0
    per_seat = [[0, 0, 0], [0, 0, 0]]  # the AlphaZero bot's wins, draws, losses in each seat
    start = time.monotonic()
    for k in range(games):
        az = k % 2
        bots = [None, None]
        bots[az] = alphazero_bot(game, model, simulations, uct_c, rng)
        bots[1 - az] = opponent_bot(opponent, game, 1 - az, simulations, uct_c, rng)
        returns, n = play_game(game, bots, rng)
        decisions += n
        outcome = 0 if returns[az] > 0 else 1 if returns[az] == 0 else 2
        per_seat[az][outcome] += 1
        wins, draws, losses = (sum(seat[i] for seat in per_seat) for i in range(3))
    score = (wins + 0.5 * draws) / games if games else 0.0
    lo, hi = wilson(wins, draws, losses)
    return {"games": games, "wins": wins, "draws": draws, "losses": losses, "score": score, "ci95": (lo, hi),
            "per_seat": per_seat, "decisions": decisions, "seconds": time.monotonic() - start}


def main(argv: list[str] | None = None) -> int:
    """``python -m cardwar.openspiel.alphazero GAME --steps N --out DIR [--eval-games N]``."""
    ap = _Parser(prog="python -m cardwar.openspiel.alphazero", description=__doc__.split("\n")[0])
    ap.add_argument("game", help="a bridged game with perfect information (its registry entry's "
                    "extra['perfect_information'])")
    ap.add_argument("--scenario", help="a shipped scenario of the game (default: the game's)")
    ap.add_argument("--out", type=Path, required=True, help="the folder for OpenSpiel's logs and checkpoints")
    ap.add_argument("--steps", type=_positive, default=4, help="learner steps (default 4)")
    ap.add_argument("--actors", type=_positive, default=1, help="self-play processes (default 1)")
    ap.add_argument("--simulations", type=_positive, default=16, help="MCTS simulations a move (default 16)")
    ap.add_argument("--uct-c", type=_rate, default=2.0, help="PUCT constant (default 2)")
    ap.add_argument("--model", choices=("mlp", "conv2d", "resnet"), default="mlp",
                    help="OpenSpiel's network (default mlp)")
    ap.add_argument("--width", type=_positive, default=64, help="units or filters a layer (default 64)")
    ap.add_argument("--depth", type=_positive, default=2, help="layers or blocks (default 2)")
    ap.add_argument("--learning-rate", type=_rate, default=1e-3)
    ap.add_argument("--batch-size", type=_positive, default=64, help="training batch (default 64)")
    ap.add_argument("--replay-buffer-size", type=_positive, default=4096, help="states kept (default 4096)")
    ap.add_argument("--replay-buffer-reuse", type=_positive, default=8,
                    help="a learner step every size/reuse new states (default 8: every 512)")
    ap.add_argument("--temperature-drop", type=_count, default=20,
                    help="moves (dice included) sampled by visit count before the most visited is played "
                         "(default 20)")
    ap.add_argument("--eval-games", type=_count, default=0,
                    help="games against --opponent after training, seats swapped in pairs (default 0)")
    ap.add_argument("--opponent", choices=("random", "mcts"), default="random",
                    help="OpenSpiel's random bot, or its MCTS with random play-outs (default random)")
    ap.add_argument("--seed", type=int, default=0, help="the evaluation's dice and bots (default 0)")
    ap.add_argument("--checkpoint", type=_count, help="with --eval-only: the learner step whose checkpoint plays "
                    "(default the last; 0 is the untrained network)")
    ap.add_argument("--eval-only", action="store_true",
                    help="no training: evaluate the last checkpoint of the run in --out (its own network and "
                         "simulations)")
    args = ap.parse_args(argv)
    from cardwar.openspiel import missing_open_spiel

    if missing_open_spiel():
        return 2
    try:
        import flax.nnx  # noqa: F401
        import jax  # noqa: F401
        import optax  # noqa: F401
        import orbax.checkpoint  # noqa: F401
    except ImportError:
        print(f"error: {MISSING_JAX}", file=sys.stderr)
        return 2
    from cardwar.openspiel.train import game_params

    try:
        if args.eval_games % 2:
            raise ValueError("--eval-games must be even (seats are swapped in pairs)")
        if args.replay_buffer_reuse > args.replay_buffer_size:
            raise ValueError("--replay-buffer-reuse cannot exceed --replay-buffer-size")
        params = game_params(args.game, -1, args.scenario, [])
        args.params = params
        game_string, game = perfect_information_game(args.game, params)
        if args.out.exists() and not args.out.is_dir():
            raise ValueError(f"--out {args.out} is a file, not a folder")
        if args.checkpoint is not None and not args.eval_only:
            raise ValueError("--checkpoint goes with --eval-only")
        if args.eval_only:
            if args.checkpoint is not None and not (args.out / f"checkpoint-{args.checkpoint}").is_dir():
                raise ValueError(f"no checkpoint-{args.checkpoint} in {args.out}")
            if not args.eval_games:
                raise ValueError("--eval-only needs --eval-games N")
            if not (args.out / "config.json").is_file():
                raise ValueError(f"no AlphaZero run in {args.out} (its config.json is missing)")
            trained = _run_config(args.out)["game"]
            if trained != game_string:
                raise ValueError(f"the run in {args.out} was trained on another game, scenario or rules: {trained}")
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return run(args, game_string, game)


def perfect_information_game(name: str, params: dict[str, Any]) -> tuple[str, Any]:
    """The bridge game and its string; ValueError (one line) for a game with hidden information."""
    import pyspiel

    from cardwar.openspiel.games import load

    game = load(name, **params)
    if game.get_type().information != pyspiel.GameType.Information.PERFECT_INFORMATION:
        raise ValueError(f"AlphaZero's MCTS searches the true state: it plays perfect-information games only, "
                         f"and {name} hides information (OpenSpiel's ISMCTS plays it: openspiel:ismcts)")
    return str(game), game


def run(args: argparse.Namespace, game_string: str, game: Any) -> int:
    """Train with OpenSpiel's ``alpha_zero`` (in this process and its actor processes), then evaluate."""
    import warnings

    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    # OpenSpiel's AlphaZero module makes multiprocessing spawn its actors (and pins that method) on import:
    # import it here, in this command's own process, never in a library caller's.
    nnx_note = "Pay attention that you've been using the `nnx` api"  # model_nnx warns so on every import
    warnings.filterwarnings("ignore", message=nnx_note)
    # the actor processes too (spawned: they read the filter from the environment)
    os.environ["PYTHONWARNINGS"] = ",".join(w for w in (os.environ.get("PYTHONWARNINGS"), f"ignore:{nnx_note}") if w)
    from open_spiel.python.algorithms.alpha_zero import alpha_zero

    out = args.out.resolve()
    if args.eval_only:
        model, config = load_model(out, args.checkpoint)
        args.simulations, args.uct_c = config["max_simulations"], config["uct_c"]
        _report(args, game, model)
        return 0
    config = config_for(game_string, out, args)
    start = time.monotonic()
    alpha_zero.alpha_zero(config)
    seconds = time.monotonic() - start
    print(f"trained OpenSpiel's AlphaZero on {game_string.split('(')[0]} ({args.scenario or 'default scenario'}): "
          f"{args.steps} learner steps, {args.actors} actor(s), {args.simulations} simulations a move, "
          f"{args.model}({args.width}, {args.depth}), {seconds:.0f} s; checkpoints and learner.jsonl in {out}")
    if args.eval_games:
        _report(args, game, load_model(out)[0])
    return 0


def _run_config(run: Path) -> dict[str, Any]:
    import json

    return json.loads((run / "config.json").read_text(encoding="utf-8"))


def _report(args: argparse.Namespace, game: Any, model: Any) -> None:
    """Evaluate on the same game with the seed ``--seed`` (training's has -1: fresh entropy for each actor)."""
    from cardwar.openspiel.games import load

    seeded = load(args.game, **{**args.params, "seed": args.seed})
    result = evaluate(seeded, model, args.eval_games, args.opponent, args.simulations, args.uct_c, args.seed)
    lo, hi = result["ci95"]
    print(f"alphazero ({args.simulations} simulations) vs {args.opponent}: {result['games']} games, seats swapped: "
          f"{result['wins']} wins, {result['draws']} draws, {result['losses']} losses; score rate of alphazero "
          f"{result['score']:.3f} (95% CI {lo:.3f}-{hi:.3f}); {result['decisions']} decisions in "
          f"{result['seconds']:.0f} s")
    seats = game.cardwar.seats
    print("alphazero as " + ", as ".join(f"{seat}: {w}-{d}-{l_}" for seat, (w, d, l_) in zip(seats, result["per_seat"]))
          + " (wins-draws-losses)")


if __name__ == "__main__":
    sys.exit(main())
