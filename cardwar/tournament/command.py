"""``cardwar tournament``: run (or resume) a tournament from a YAML config and/or flags, then write its reports."""

from __future__ import annotations

import argparse
import sqlite3
import sys
from pathlib import Path
from typing import Any

from cardwar import games
from cardwar.tournament.config import TournamentConfig, config_from_dict, load_config


def add_parser(sub: Any, number: Any) -> None:
    """The ``tournament`` sub-parser (``number(kind, minimum, name)`` is the CLI's checked-number type)."""
    t = sub.add_parser("tournament", help="a tournament among agents and engines: ratings, crosstable, reports")
    t.add_argument("config", nargs="?", help="a shipped tournament's name (a game's name, gauntlet, ...: "
                                             "cardwar configs lists them) or a YAML path; flags override its keys")
    t.add_argument("--game", choices=list(games.names()))
    t.add_argument("--name", help="tournament name (keys its games in the database)")
    t.add_argument("--entrant", action="append", metavar="NAME=SPEC",
                   help="an entrant, e.g. --entrant mcts=mcts:seconds=0.2 or --entrant bot='engine:python bot.py'")
    t.add_argument("--format", choices=["round_robin", "gauntlet"])
    t.add_argument("--gauntlet", metavar="NAME", help="the entrant that plays the field (format gauntlet)")
    t.add_argument("--pairs", type=number(int, 1, "--pairs"), help="game pairs per pairing")
    t.add_argument("--seed", type=number(int, 0, "--seed"), help="seed of pair 0 (pair k plays seed + k)")
    t.add_argument("--scenario", action="append",
                   help="games played on maps: a scenario (repeat for several; cycled over pairs)")
    t.add_argument("--move-ms", type=number(int, 1, "--move-ms"), help="time per move, ms")
    t.add_argument("--game-ms", type=number(int, 1, "--game-ms"), help="time per game and seat, ms")
    t.add_argument("--db", help="SQLite database (default tournaments/NAME.sqlite)")
    t.add_argument("--out", help="report folder (default tournaments/NAME/)")
    t.add_argument("--workers", type=number(int, 1, "--workers"), default=1, help="parallel games (default 1)")
    t.add_argument("--backend", choices=["local", "ray"], default="local", help="local processes or Ray tasks")
    t.add_argument("--ray-address", help="with --backend ray: a Ray cluster, HOST:PORT (default: a local Ray "
                                         "started on the spot); one that does not answer in 30 s is an error")
    t.add_argument("--allow-changed", action="store_true",
                   help="go on although the config changed (an entrant with a new spec enters as a new entrant)")
    t.add_argument("--reproducible-seeds", action="store_true",
                   help="research only: deal from the plain pair seeds, no secret (any engine can then rebuild "
                        "the hidden game from its seed); fixed when the tournament is created")
    t.add_argument("--shared-deals", action="store_true",
                   help="deal every pairing the pair seed's one deal instead of its own (variance reduction across "
                        "opponents; an engine is given a fresh process for a deal it has seen); fixed when the "
                        "tournament is created")
    t.add_argument("--report-only", action="store_true", help="rebuild the reports from the database, play nothing")
    t.add_argument("--rounds", type=number(int, 10, "--rounds"), default=1000, help="bootstrap resamples (1000)")
    t.add_argument("--quiet", action="store_true", help="no progress bar")
    t.set_defaults(func=run_command)


def _entrants(items: list[str] | None) -> dict[str, str] | None:
    if not items:
        return None
    out = {}
    for item in items:
        name, eq, spec = item.partition("=")
        if not eq or not name.strip() or not spec.strip():
            raise ValueError(f"--entrant takes NAME=SPEC, got {item!r}")
        if name.strip() in out:
            raise ValueError(f"--entrant {name.strip()!r} is given twice ({out[name.strip()]} and {spec.strip()}); "
                             "give each entrant its own name")
        out[name.strip()] = spec.strip()
    return out


def _check_out(out: Path) -> None:
    """The report folder can be made and written (one line otherwise); checked before the first game.

    Nothing is left behind: the probe file is written in ``out`` if it exists, else in the
    nearest folder above it that does (where ``out`` will be made).
    """
    import tempfile

    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {out} is a file; give a folder for the reports")
    probe_in = out.absolute()
    while not probe_in.exists():
        probe_in = probe_in.parent
    if not probe_in.is_dir():
        raise ValueError(f"--out {out}: {probe_in} is a file, so the folder cannot be made")
    try:
        with tempfile.NamedTemporaryFile(dir=probe_in, prefix=".cardwar-probe-"):
            pass
    except OSError as err:
        raise ValueError(f"--out {out}: cannot write the reports there ({err.strerror or err} in {probe_in}); "
                         "give a writable folder with --out") from None


def resolve_config(args: argparse.Namespace) -> TournamentConfig:
    """The config from the YAML file with the flags laid over it (or from the flags alone)."""
    overrides: dict[str, Any] = {"game": args.game, "name": args.name, "entrants": _entrants(args.entrant),
                                 "format": args.format, "gauntlet": args.gauntlet, "pairs": args.pairs,
                                 "seed": args.seed, "scenarios": args.scenario}
    timing = {k: v for k, v in (("move_ms", args.move_ms), ("game_ms", args.game_ms)) if v is not None}
    if args.config:
        config = load_config(args.config, overrides)
        if timing:
            d = config.to_dict()
            d["time"] = {"move_ms": d.pop("move_ms"), "game_ms": d.pop("game_ms"), **timing}
            config = config_from_dict(d, where=f"{args.config}: ")
        return config
    data = {k: v for k, v in overrides.items() if v is not None}
    if "name" not in data and "game" in data:
        data["name"] = f"{data['game']}-tournament"
    if timing:
        data["time"] = timing
    return config_from_dict(data, where="flags: ")


def run_command(args: argparse.Namespace) -> int:
    from cardwar.tournament.report import build_report, to_markdown, write_reports
    from cardwar.tournament.store import Store

    from cardwar.tournament.runner import current_rows

    if args.config is None and args.game is None:
        raise ValueError("give a tournament config (a shipped name such as a game's, or a YAML path) "
                         "or --game with --entrant flags")
    if args.ray_address is not None and args.backend != "ray":
        raise ValueError("--ray-address names a Ray cluster for --backend ray; add --backend ray or leave it out")
    if args.report_only and (args.reproducible_seeds or args.shared_deals):
        flag = "--reproducible-seeds" if args.reproducible_seeds else "--shared-deals"
        raise ValueError(f"{flag} sets how a new tournament deals; --report-only plays nothing")
    config = resolve_config(args)
    db = Path(args.db or f"tournaments/{config.name}.sqlite")
    out = Path(args.out or f"tournaments/{config.name}")
    if db.is_dir():
        raise ValueError(f"--db {db} is a folder; give a file name")
    if args.report_only and not db.exists():
        raise ValueError(f"{db} holds no tournament {config.name!r} (there is no such file)")
    _check_out(out)  # before the first game, not after the last (and before the database is made)
    try:
        with Store(db, readonly=args.report_only) as store:
            if args.report_only:
                if store.config(config.name) is None:
                    raise ValueError(f"{db} holds no tournament {config.name!r}"
                                     + (" (it is an empty file: 0 bytes)" if store.empty else
                                        f"; it holds: {', '.join(store.tournaments())}" if store.tournaments() else ""))
            else:
                if store.empty:
                    print(f"note: {db} is an empty file (0 bytes): it is taken as a new tournament database",
                          file=sys.stderr)
                _play(args, config, store, db, out)
            rows = current_rows(config, store)
    except (sqlite3.OperationalError, sqlite3.DatabaseError) as err:
        if isinstance(err, (sqlite3.ProgrammingError, sqlite3.InterfaceError, sqlite3.IntegrityError)):
            raise  # our own mistake, not the file's
        raise ValueError(_database_error(db, err)) from None
    if not rows:
        raise ValueError(f"tournament {config.name!r} has no finished games yet")
    report = build_report(config, rows, rounds=args.rounds)
    try:
        paths = write_reports(report, out)
    except OSError as err:
        raise ValueError(f"--out {out}: cannot write the reports ({err.strerror or err}); the games are stored in "
                         f"{db}: rebuild the reports with --report-only --out FOLDER") from None
    print(to_markdown(report))
    print(f"reports: {', '.join(str(p) for p in paths)}")
    return 0


def _database_error(db: Path, err: sqlite3.DatabaseError) -> str:
    """One line for what SQLite says of the file during a run: damaged, read-only, full, or unreadable."""
    from cardwar.tournament.store import damaged

    text = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
    if "malformed" in text or "corrupt" in text or "not a database" in text:
        return damaged(db, text)
    if "readonly" in text or "read-only" in text:
        return f"{db}: cannot write the database ({text}); --report-only and `cardwar replay --list` read it without writing"
    return f"{db}: {text}; the games stored so far are kept: run the same command again once this is fixed"


def _play(args: argparse.Namespace, config: TournamentConfig, store: Any, db: Path, out: Path) -> None:
    from tqdm import tqdm

    from cardwar.tournament.runner import pairs_done, run_tournament
    from cardwar.tournament.schedule import schedule

    total = len(schedule(config))
    bars: list[Any] = []  # made at the first stored pair, so a refusal before any game is one line

    def on_pair(done: int, _total: int) -> None:
        if not bars:
            bars.append(tqdm(total=total, unit="pair", desc=config.name, disable=args.quiet, initial=done))
        bars[0].n = done
        bars[0].refresh()

    def close_bar() -> None:
        if bars:
            bars.pop().close()

    try:
        summary = run_tournament(config, store, workers=args.workers, backend=args.backend,
                                 ray_address=args.ray_address, allow_changed=args.allow_changed, on_pair=on_pair,
                                 reproducible_seeds=args.reproducible_seeds, shared_deals=args.shared_deals,
                                 engine_log_dir=str(out / "engines"))
    except KeyboardInterrupt:
        close_bar()
        stored, _ = pairs_done(config, store)
        print(f"interrupted: {stored} of {total} pairs are stored in {db}; run the same command to go on",
              file=sys.stderr)
        raise SystemExit(130) from None
    finally:
        close_bar()
    print(f"{summary.played} pairs played now, {summary.already} already stored, {summary.seconds:.1f} s"
          + (f"; SPRT stopped {len(summary.sprt)} pairing(s)" if summary.sprt else ""), file=sys.stderr)
