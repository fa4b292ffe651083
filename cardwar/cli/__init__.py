"""``cardwar``: the command line: ``play``, ``match``, ``train``, ``tournament``, ``replay``, ``engine``,
``agents``, ``configs``, ``bench``.

A user's mistake (a bad option, an unknown agent) gets one clear line on stderr
and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from cardwar import __version__


class UsageError(Exception):
    """A mistake in what the user asked for."""


class _Parser(argparse.ArgumentParser):
    """argparse, but a mistake is one line on stderr (with a pointer to ``--help``) and exit status 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _number(kind: type, minimum: float, name: str) -> Callable[[str], Any]:
    """An argparse ``type`` that reads ``kind`` and requires it to be at least ``minimum``."""

    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not {'an integer' if kind is int else 'a number'}") from None
        if not value >= minimum or value != value:  # also refuses nan
            raise argparse.ArgumentTypeError(f"{name} must be at least {minimum:g}, got {text}")
        return value

    return read


def parse_rule_options(items: list[str] | None) -> dict:
    """``["supply_cut=always", "mulligan=false"]`` -> options dict with bools and ints converted."""
    out: dict = {}
    for item in items or []:
        if "=" not in item:
            raise UsageError(f"--rule takes KEY=VALUE, got {item!r}")
        key, value = (x.strip() for x in item.split("=", 1))
        low = value.lower()
        out[key] = True if low == "true" else False if low == "false" else int(value) if value.isdigit() else value
    return out


SEAT_WORDS = {"a": 0, "b": 1, "first": 0, "second": 1, "1": 0, "2": 1, "blue": 0, "red": 1}
"""Seat names every game takes besides its own (``captain_a``, ``player_1``): A/B, first/second, 1/2, blue/red."""


def seat_of(game: str, name: str, flag: str) -> int:
    """The seat (0 or 1) ``name`` means in ``game``; a :class:`UsageError` listing the names otherwise."""
    from cardwar import games

    seats = games.get(game).seats
    low = str(name).strip().lower()
    if low in seats:
        return seats.index(low)
    if low in SEAT_WORDS:
        return SEAT_WORDS[low]
    raise UsageError(f"{flag} {name!r}: give a seat of {game}: {', '.join(seats)} (or A/B, first/second)")


def viewer_of(game: str, name: str) -> int | str | None:
    """``--viewer``: a seat (0/1), None (spectator) or ``"omniscient"``."""
    low = str(name).strip().lower()
    if low in ("spectator", "public"):
        return None
    if low in ("omniscient", "all", "everything"):
        return "omniscient"
    return seat_of(game, name, "--viewer")


def _play(args: argparse.Namespace) -> int:
    from cardwar import games
    from cardwar.record import check_writable

    g = games.get(args.game)
    if args.opponent is not None:  # a person plays one seat against the opponent agent
        human_first = seat_of(args.game, args.seat, "--seat") == 0
        args.a, args.b = ("human", args.opponent) if human_first else (args.opponent, "human")
        args.quiet = False
    if args.png is not None and g.render_picture is None:
        raise UsageError(f"--png draws the map; the {args.game} game has no picture")
    if args.png is not None and not args.png.lower().endswith(".png"):
        raise UsageError(f"--png {args.png}: give a file name ending in .png")
    if args.scenario is not None and not g.has_scenarios:
        raise UsageError(f"--scenario: the {args.game} game has no scenarios")
    for flag, path in (("--save", args.save), ("--png", args.png)):
        if path is not None:  # checked before the game, not after an hour of play
            try:
                check_writable(path)
            except ValueError as err:
                raise UsageError(f"{flag}: {err}") from None
    rules = _rules_for(args.game, args.rule)
    from cardwar.cli.play import play_any

    result = play_any(args.game, scenario=args.scenario, rules=rules, seed=args.seed, spec_a=args.a, spec_b=args.b,
                      viewer=viewer_of(args.game, args.viewer), quiet=args.quiet, png=args.png, save=args.save,
                      dealer=_dealer(args))
    if args.json:
        print(json.dumps(result))
    return 0


def _rules_for(game: str, items: list[str] | None) -> dict:
    """The rule options given with ``--rule``, checked (a bad one: one line, exit 2), as a plain dict of only
    those: an option not given stays unset, so a scenario's own suggestion (``sequence: deck``) still holds."""
    from cardwar import games

    options = parse_rule_options(items)
    games.get(game).rules_from_dict(options)
    return options


def _dealer(args: argparse.Namespace) -> Any:
    """The dealer ``--secret`` / ``--reproducible-seeds`` ask for (a fresh secret by default)."""
    from cardwar.arena.seeds import Dealer

    try:
        return Dealer.from_options(args.secret, args.reproducible_seeds)
    except ValueError as err:
        raise UsageError(str(err)) from None


def _seeds_line(secret: str | None, seed_flag: str) -> str:
    """How to deal these games again, said once they are over."""
    if secret is None:
        return f"deals: reproducible research seeds (rerun: {seed_flag} --reproducible-seeds)"
    return f"deals keyed by the secret {secret} (rerun exactly: {seed_flag} --secret {secret})"


def _add_seed_options(parser: argparse.ArgumentParser) -> None:
    """``--secret`` and ``--reproducible-seeds``: how game seeds become deals and the seats' seeds."""
    parser.add_argument("--secret", metavar="HEX",
                        help="the dealer's secret that keys the deals and the players' seeds (default: a fresh one, "
                             "printed when the games are over, so no player can rebuild a deal from its seed)")
    parser.add_argument("--reproducible-seeds", action="store_true",
                        help="research only: deal from the plain game seed and give the seats 2*seed+1 and "
                             "2*seed+2, which any player (an engine too) can invert to read the hidden game")


def _match(args: argparse.Namespace) -> int:
    from cardwar.cli.match import run_match

    rules = _rules_for(args.game, args.rule)
    res = run_match(args.game, args.agent_a, args.agent_b, args.games, args.seed, args.scenario, rules,
                    args.workers, progress=not args.json, dealer=_dealer(args))
    lo, hi = res.interval()
    print(f"{args.agent_a} vs {args.agent_b} ({args.game}{', ' + args.scenario if args.scenario else ''}): "
          f"{res.games} games, seats swapped in pairs")
    print(f"  {args.agent_a}: {res.wins_a} wins, {res.draws} draws, {res.wins_b} losses")
    print(f"  score rate of {args.agent_a}: {res.score_a:.3f} (95% CI {lo:.3f}-{hi:.3f})")
    print(f"  {res.games / res.seconds:.2f} games/s on {args.workers} worker(s)")
    print("  " + _seeds_line(res.secret, f"--seed {args.seed}"))
    if args.json:
        print(json.dumps(res.to_dict()))
    return 0


def _openspiel_specs(game: str) -> list[dict[str, Any]]:
    """The ``openspiel:`` specs that play ``game`` (name, summary, options), or one line naming the extra."""
    try:
        from cardwar.openspiel.bots import listing
    except ImportError:
        return [{"name": "openspiel:...", "summary": "OpenSpiel bots and trained policies: "
                 "pip install 'cardwar[openspiel]'", "options": []}]
    return listing(game)


def _agents(args: argparse.Namespace) -> int:
    from cardwar import games as registry
    from cardwar.agents import REGISTRY

    games = [args.game] if args.game else list(registry.names())
    if args.json:
        print(json.dumps({g: [REGISTRY[a].to_dict(g) for a in registry.get(g).agent_names()]
                          + [{**s, "options": [{"name": o.name, "type": o.kind.__name__, "default": o.default,
                                                "help": o.help, "range": o.bounds() or None,
                                                "nullable": o.nullable} for o in s["options"]]}
                             for s in _openspiel_specs(g)] for g in games}))
        return 0
    for game in games:
        print(f"{game}:")
        for info in (REGISTRY[a] for a in registry.get(game).agent_names()):
            print(f"  {info.name:10s} {info.to_dict(game)['summary']}")
            for o in info.options[game]:
                print(f"      {o.describe():58s} {o.help}")
        for spec in _openspiel_specs(game):
            print(f"  {spec['name']:10s} {spec['summary']}")
            for o in spec["options"]:
                print(f"      {o.describe():58s} {o.help}")
    example = next((f"{REGISTRY[a].name}:{o.name}={str(o.default).lower()}" for g in games for a in registry.get(g).agent_names()
                    for o in REGISTRY[a].options[g] if o.default is not None and o.kind is not str), "mcts:seconds=0.5")
    print(f"\nA spec is NAME or NAME:KEY=VALUE,KEY=VALUE (e.g. {example}, ppo:PATH, rllib:RUN_DIR).")
    return 0


def _configs(args: argparse.Namespace) -> int:
    """``cardwar configs``: the shipped configs, each with its kind, name(s), path and one-line description."""
    from cardwar.configs import shipped_configs

    found = shipped_configs(args.kind)
    if args.json:
        print(json.dumps([{"kind": c.kind, "name": c.name, "aliases": list(c.aliases), "path": str(c.path),
                           "description": c.description} for c in found]))
        return 0
    rows = [(c.kind, " / ".join((c.name, *c.aliases)), c.description) for c in found]
    width = [max(len(r[i]) for r in rows) for i in range(2)]
    for (kind, name, description), c in zip(rows, found):
        print(f"{kind:<{width[0]}}  {name:<{width[1]}}  {description}")
        print(f"{'':<{width[0]}}  {'':<{width[1]}}  {c.path}")
    print("\nGive the name (cardwar tournament NAME, cardwar train GAME --config NAME, --scenario NAME) "
          "or a path; for a tournament or training config, a file of that name here wins.")
    return 0


def _bench(args: argparse.Namespace) -> int:
    from cardwar.cli.bench import MissingExtra

    if args.time_to_strength:
        from cardwar.cli.time_to_strength import main as time_to_strength

        return time_to_strength(args)
    try:
        if args.profile:
            from cardwar.cli.bench_training import run_training_profile

            from cardwar.cli.bench_training import vec_env_kinds

            try:
                kinds = vec_env_kinds(args.vec_envs)
            except ValueError as err:
                raise UsageError(f"--vec-envs: {err}") from None
            run_training_profile(args.profile, steps=args.steps, rounds=args.rounds, as_json=args.json,
                                 vec_envs=kinds)
            return 0
        if args.training:
            from cardwar.cli.bench_training import run_training_bench

            run_training_bench(steps=args.steps, as_json=args.json)
            return 0
        from cardwar.cli.bench import run_bench

        run_bench(seconds=args.seconds, rounds=args.rounds, as_json=args.json)
    except MissingExtra as err:  # an optional extra, not a bug: one line naming it, exit 2
        raise UsageError(str(err)) from None
    return 0


def _engine(args: argparse.Namespace) -> int:
    from cardwar.agents import check_spec
    from cardwar.engine.server import serve_stdio

    check_spec(args.agent, args.game)  # a bad spec: one line, exit 2, before any message is read
    return serve_stdio(args.game, args.agent)


def _training_config(text: str | None, game: str) -> Path:
    """The training config ``--config`` means: a path, a shipped name (``naval``, ``best_response/naval``;
    a file here wins, with a note), or by default the game's shipped config."""
    from cardwar.configs import ConfigNotFound, resolve, training_config_path

    if text is None:
        return training_config_path(game)
    try:
        path, note = resolve("training", text)
    except ConfigNotFound as err:
        raise UsageError(f"--config {err}") from None
    if note:
        print(note, file=sys.stderr)
    return path


def _train_rllib(args: argparse.Namespace) -> int:
    """``cardwar train GAME --backend rllib``: RLlib PPO self-play on a local Ray or on ``--ray-address``;
    ``--resume RUN`` goes on with a run from its latest checkpoint (``--steps`` extends its budget)."""
    from pathlib import Path

    for flag, value in (("--config", args.config), ("--export", args.export)):
        if value:
            raise UsageError(f"{flag} is for the SB3 backend; --backend rllib takes --set KEY=VALUE and --steps")
    if args.resume and args.set:
        raise UsageError("--resume continues a run with its own settings; drop --set "
                         "(use --steps to extend the budget)")
    try:
        from cardwar.training.interrupts import RunInterrupted
        from cardwar.training.rllib import RLlibSettings, resume, train
    except ImportError:
        raise UsageError("--backend rllib needs RLlib: pip install 'cardwar[rllib]'") from None
    if args.resume and not (Path(args.resume) / "settings.json").is_file():
        raise UsageError(f"--resume {args.resume}: not an RLlib run folder (no settings.json); runs are made by "
                         f"`cardwar train {args.game} --backend rllib`")
    try:
        settings = RLlibSettings().updated(args.set).checked(args.game)
    except ValueError as err:
        raise UsageError(str(err)) from None
    if args.steps is not None:
        settings.total_steps = args.steps
    if args.ray_address is not None:
        from cardwar.tournament.runner import check_ray_address

        try:
            check_ray_address(args.ray_address)
        except ValueError as err:
            raise UsageError(str(err)) from None
    try:
        if args.resume:
            run_dir = resume(Path(args.resume), total_steps=args.steps, ray_address=args.ray_address,
                             progress=not args.quiet, game=args.game)
        else:
            run_dir = train(args.game, settings, runs_root=Path(args.runs), ray_address=args.ray_address,
                            progress=not args.quiet)
    except RunInterrupted as err:  # the run saved a checkpoint and printed the --resume command
        return err.exit_code
    except ValueError as err:  # a run folder that cannot go on (another game's, done, unreadable)
        raise UsageError(str(err)) from None
    print(f"run folder: {run_dir}")
    print(f"  policy: {run_dir / 'final'}  (as an agent: rllib:{run_dir})   curve: {run_dir / 'curve.png'}")
    return 0


def _train(args: argparse.Namespace) -> int:
    from pathlib import Path

    if args.ray_address is not None and args.backend != "rllib":
        raise UsageError("--ray-address names a Ray cluster for --backend rllib; add --backend rllib or leave it out")
    if args.backend == "rllib":
        return _train_rllib(args)
    from cardwar.training.interrupts import RunInterrupted
    from cardwar.training.trainer import resume, train
    from cardwar.training.workers import WorkerError

    if args.export and Path(args.export).is_dir():
        raise UsageError(f"--export {args.export} is a folder; give a file name such as {args.game}_ppo.zip")
    if not args.resume and Path(args.runs).exists() and not Path(args.runs).is_dir():
        raise UsageError(f"--runs {args.runs} is a file, not a folder")
    try:
        if args.resume:
            if args.config or args.set:
                raise UsageError("--resume continues a run with its own config; drop --config/--set "
                                 "(use --steps to extend the budget)")
            run_dir = resume(Path(args.resume), total_steps=args.steps, progress=not args.quiet, game=args.game)
        else:
            from cardwar.training.config import load_config, with_step_budget

            config = load_config(_training_config(args.config, args.game), args.set)
            if config.game != args.game:
                raise UsageError(f"the config is for {config.game!r}, not {args.game!r}")
            if args.steps is not None:
                rollout = config.ppo.n_steps * config.env.n_envs
                if args.steps < rollout:
                    raise UsageError(f"--steps {args.steps} is less than one rollout (ppo.n_steps "
                                     f"{config.ppo.n_steps} x env.n_envs {config.env.n_envs} = {rollout} steps)")
                config, note = with_step_budget(config, args.steps)
                if note:
                    print(note, file=sys.stderr)
            run_dir = train(config, runs_root=Path(args.runs), progress=not args.quiet)
    except RunInterrupted as err:  # the trainer saved and printed the --resume command
        return err.exit_code
    except WorkerError as err:  # not the user's mistake, but one line all the same
        print(f"cardwar train: error: {err}", file=sys.stderr)
        return 1
    if args.export:
        from cardwar.training.trainer import export_for_play

        print(f"exported for play: {export_for_play(run_dir / 'final.zip', Path(args.export))}")
    print(f"run folder: {run_dir}")
    print(f"  model: {run_dir / 'final.zip'}  (as an agent: ppo:{run_dir / 'final.zip'})")
    print(f"  curve: {run_dir / 'curve.png'}   logs: tensorboard --logdir {run_dir / 'tb'}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    from cardwar.cli.replay import run_replay

    return run_replay(args)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of every subcommand."""
    from cardwar import games

    game_names = list(games.names())  # a plug-in registered before the parser is built is offered too
    p = _Parser(prog="cardwar", description="Card-driven wargames for RL research.")
    p.add_argument("--version", action="version", version=f"cardwar {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    play = sub.add_parser("play", help="play a game between two agents, printed move by move")
    play.add_argument("game", choices=game_names)
    play.add_argument("--seed", type=int, default=1,
                      help="game seed (default 1); keyed by the dealer's secret (--secret), so it tells no seat the deal")
    play.add_argument("--a", default="random", help="agent spec for the first seat: Captain A / blue / player_0 "
                                                    "(default random)")
    play.add_argument("--b", default="random", help="agent spec for the second seat: Captain B / red / player_1 "
                                                    "(default random)")
    play.add_argument("--viewer", default="spectator",
                      help="whose knowledge the printout shows: spectator (default: no hidden cards or units), "
                           "omniscient, or a seat (A/B, or the game's seat name)")
    play.add_argument("--scenario", default=None,
                      help="games played on maps: scenario name, a .yaml path, or random (default: the game's own; "
                           "cardwar configs scenario lists them)")
    play.add_argument("--png", help="games with a map picture: write the final picture to this PNG file")
    play.add_argument("--rule", action="append", metavar="KEY=VALUE",
                      help="rule option, e.g. supply_cut=always (see the game's RULES.md)")
    play.add_argument("--opponent", metavar="SPEC",
                      help="play yourself against this agent (e.g. heuristic); you see only your own view")
    play.add_argument("--seat", default="A",
                      help="your seat with --opponent: A/B, first/second or the game's seat name (default: the first)")
    play.add_argument("--quiet", action="store_true", help="print only the result")
    play.add_argument("--save", metavar="FILE",
                      help="write the game record (JSON: rules, seed, players, moves, result) to FILE when the game "
                           "ends or you quit")
    play.add_argument("--json", action="store_true",
                      help="print the result as JSON on the last line, the game record (moves included) with it")
    _add_seed_options(play)
    play.set_defaults(func=_play)
    match = sub.add_parser("match", help="two agents play N games, seats swapped in pairs")
    match.add_argument("game", choices=game_names)
    match.add_argument("agent_a", help="agent spec, e.g. heuristic or mcts:iterations=400")
    match.add_argument("agent_b", help="agent spec")
    match.add_argument("--games", type=_number(int, 1, "--games"), default=100,
                       help="number of games (rounded up to pairs)")
    match.add_argument("--seed", type=int, default=0, help="seed of the first pair (default 0)")
    match.add_argument("--scenario", default=None, help="games played on maps: scenario name, .yaml path or random")
    match.add_argument("--rule", action="append", metavar="KEY=VALUE", help="rule option")
    match.add_argument("--workers", type=_number(int, 1, "--workers"), default=1, help="processes (default 1)")
    match.add_argument("--json", action="store_true", help="last line: one JSON object")
    _add_seed_options(match)
    match.set_defaults(func=_match)
    train = sub.add_parser("train", help="self-play MaskablePPO training in a resumable run folder")
    train.add_argument("game", choices=game_names)
    train.add_argument("--config", help="training YAML: a path or a shipped name, e.g. GAME or best_response/GAME "
                                        "(cardwar configs lists them; default: the game's shipped config)")
    train.add_argument("--set", action="append", metavar="KEY=VALUE",
                       help="override a config key, e.g. --set ppo.learning_rate=1e-4 (repeatable)")
    train.add_argument("--steps", type=_number(int, 1, "--steps"),
                       help="total step budget, imitation included: overrides total_steps, and scales "
                            "imitation.games down in proportion when it is smaller; at least one rollout "
                            "(ppo.n_steps x env.n_envs). The run stops at the first whole rollout at or past it "
                            "(said in one line at the start, and kept in budget.json)")
    train.add_argument("--resume", metavar="RUN_DIR",
                       help="continue this run where it stopped (imitation games kept, latest checkpoint; "
                            "with --backend rllib, an RLlib run from its latest checkpoint)")
    train.add_argument("--runs", default="runs", help="folder for new runs (default runs/)")
    train.add_argument("--quiet", action="store_true", help="no progress bar")
    train.add_argument("--export", metavar="ZIP",
                       help="also write the final model, without optimizer state, here "
                            "(e.g. agents/pretrained/GAME_ppo.zip, the model `ppo` plays)")
    train.add_argument("--backend", choices=["sb3", "rllib"], default="sb3",
                       help="sb3: MaskablePPO on this machine (default); rllib: RLlib PPO self-play on Ray "
                            "(pip install 'cardwar[rllib]'; --set takes its settings, e.g. num_env_runners=4)")
    train.add_argument("--ray-address", metavar="HOST:PORT",
                       help="with --backend rllib: a Ray cluster to run on (default: a new local Ray)")
    train.set_defaults(func=_train)
    from cardwar.tournament.command import add_parser as add_tournament

    add_tournament(sub, _number)
    from cardwar.tournament.levels import add_parser as add_levels

    add_levels(sub, _number)
    from cardwar.serve.command import add_parser as add_serve

    add_serve(sub, _number)
    agents_cmd = sub.add_parser("agents", help="the agents and the options their specs take")
    agents_cmd.add_argument("game", nargs="?", choices=game_names)
    agents_cmd.add_argument("--json", action="store_true", help="one JSON object")
    agents_cmd.set_defaults(func=_agents)
    configs_cmd = sub.add_parser("configs", help="the shipped configs (tournaments, training, hex scenarios), "
                                                 "found by name from any directory")
    configs_cmd.add_argument("kind", nargs="?", choices=["tournament", "training", "scenario"])
    configs_cmd.add_argument("--json", action="store_true", help="one JSON list")
    configs_cmd.set_defaults(func=_configs)
    bench = sub.add_parser("bench", help="random-play steps/s of the games' envs beside PettingZoo's classic envs")
    bench.add_argument("--seconds", type=_number(float, 0.1, "--seconds"), default=6.0,
                       help="measured seconds per env (default 6)")
    bench.add_argument("--rounds", type=_number(int, 1, "--rounds"), default=3, help="interleaved rounds (default 3)")
    bench.add_argument("--json", action="store_true", help="machine-readable output")
    bench.add_argument("--training", action="store_true",
                       help="steps/s of short MaskablePPO runs (learning included) beside the PettingZoo SB3 tutorial")
    bench.add_argument("--steps", type=_number(int, 64, "--steps"), default=8192,
                       help="--training: steps per measured run (default 8192)")
    from cardwar.configs import training_config_path

    trained = [g for g in game_names if training_config_path(g).is_file()]  # the games with a committed config
    bench.add_argument("--profile", choices=trained, metavar="GAME",
                       help="--training: where a short run of GAME's committed config spends its time (env, "
                            "opponents, IPC, learner) with each vec env of --vec-envs")
    bench.add_argument("--vec-envs", default="subproc,dummy,batched,batched:2", metavar="LIST",
                       help="--profile: the vec envs compared, the first the reference: subproc, dummy, batched, "
                            "batched:W (W worker processes), each with an optional @N (N envs, ppo.n_steps scaled "
                            "to the same rollout); default subproc,dummy,batched,batched:2")
    bench.add_argument("--time-to-strength", metavar="GAME",
                       help="minutes and env steps until the learner scores 0.90 vs random and 0.60 vs the heuristic, "
                            "ours beside the PettingZoo SB3 tutorial's pipeline (a game with "
                            "configs/training/tutorial/GAME.yaml)")
    from cardwar.cli.time_to_strength import add_arguments as time_to_strength_arguments

    time_to_strength_arguments(bench)
    bench.set_defaults(func=_bench)
    engine = sub.add_parser("engine", help="serve an agent over the JSON-lines engine protocol on stdin/stdout "
                                           "(docs/engine-protocol.md)")
    engine.add_argument("--game", required=True, choices=game_names)
    engine.add_argument("--agent", required=True, metavar="SPEC",
                        help="agent spec, e.g. heuristic or mcts:iterations=400")
    engine.set_defaults(func=_engine)
    replay = sub.add_parser("replay", help="play a recorded game back move by move (a record file or a tournament "
                                           "database), as any seat or everyone saw it")
    replay.add_argument("file", nargs="?", metavar="FILE.json",
                        help="a game record: cardwar play --save FILE, or cardwar play --json output")
    replay.add_argument("--db", metavar="FILE", help="a tournament database (SQLite) to read the game from")
    replay.add_argument("--game", type=_number(int, 0, "--game"), metavar="ID",
                        help="with --db: the id of the game to replay (see --list)")
    replay.add_argument("--list", action="store_true",
                        help="with --db: list the stored games (id, pairing, seats, result, length, forfeit)")
    replay.add_argument("--tournament", metavar="NAME", help="with --list: only this tournament's games")
    replay.add_argument("--viewer",
                        help="whose knowledge the replay shows (default omniscient for a finished game: everything; "
                             "a seat, A/B or the game's seat name, only what that seat saw; spectator the public "
                             "board)")
    replay.add_argument("--step", action="store_true", help="wait for Enter after each move (on a terminal)")
    replay.add_argument("--to", type=_number(int, 0, "--to"), metavar="N", help="stop after move N")
    replay.add_argument("--quiet", action="store_true", help="print only the result (pictures are still written)")
    replay.add_argument("--png-frames", metavar="DIR",
                        help="games with a map picture: one PNG per position in DIR, frame_0000.png (the deal), "
                             "frame_0001.png (after move 1), ...")
    replay.add_argument("--gif", metavar="FILE.gif",
                        help="games with a map picture: an animated GIF, one frame per position")
    replay.add_argument("--fps", type=_number(float, 0.1, "--fps"), metavar="F",
                        help="with --gif: frames a second (default 4, at most 50)")
    replay.set_defaults(func=_replay)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``cardwar`` console script."""
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (UsageError, ValueError, FileNotFoundError, PermissionError) as err:
        print(f"cardwar {args.command}: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # e.g. `cardwar play naval | head`: the reader left, nothing is wrong
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
