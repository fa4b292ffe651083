"""Calibrating the ``level`` agent and checking it (issue 31.4): ``cardwar levels calibrate|bench GAME``.

*Calibrate*: a round robin among the game's shipped ladder's untimed entrants (``configs/tournaments/GAME.yaml``
less its timed searches: their strength depends on the machine) and ``level:skill=p,base=BASE`` for a grid of
``p``, on the ladder's scenarios, rated as every tournament is (Bradley-Terry Elo, ``random`` 0, bootstrap
intervals). Each ``p``'s rating becomes a point of the table ``agents/level_tables/GAME.json`` (``p = 0`` is
``random``, ``p = 1`` the base bot), which the ``level`` agent inverts for ``level:elo=N``; the table also keeps
the whole ladder's ratings, the command and the date.

*Bench*: each requested rating (by default the server's odd levels) plays a gauntlet against every entrant of
the calibration's ladder, on seeds the calibration never played, and is rated against their *fixed* shipped
ratings (the maximum-likelihood Elo of one player against opponents of known rating, as engine rating lists
place a new engine against rated anchors), with a bootstrap interval over its pairs. The scale is the shipped
table's, so the check asks the question a user asks: does ``level:elo=N`` score against the ladder's bots as a
player of N would? (A second free round robin would re-estimate the scale itself: its random anchor wins a few
games in a hundred, and that noise stretched every rating of a game's bench by 20-25%.) Each requested rating is
set beside the rating it measured and that rating's 95% interval, printed, and drawn (``levels.png``).

Both are tournaments in a database (``--db``), so a killed run goes on where it stopped when run again.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shlex
from pathlib import Path
from typing import Any

import numpy as np

from cardwar.tournament.config import TournamentConfig, config_from_dict, load_config

SKILLS = (0.25, 0.5, 0.7, 0.85)
"""The calibration's grid of ``skill`` between random (0) and the base bot (1)."""

CALIBRATION_SEED = 7000
BENCH_SEED = 9000
"""Pair seeds of the two tournaments: the bench plays deals the calibration did not."""


def _number(x: float) -> str:
    return f"{x:g}"


def skill_name(skill: float) -> str:
    return f"skill_{_number(skill)}"


def ladder_entrants(game: str) -> tuple[dict[str, str], TournamentConfig]:
    """The shipped ladder's entrants that are not timed searches, and the ladder itself."""
    from cardwar import agents

    ladder = load_config(game)
    untimed = {}
    for name, spec in ladder.entrants.items():
        if spec.startswith("engine:"):
            continue
        agent, options = agents.check_spec(spec, game)
        declared = {o.name: o for o in agents.REGISTRY[agent].options[game]}
        seconds = options["seconds"] if "seconds" in options else getattr(declared.get("seconds"), "default", None)
        timed = "seconds" in declared and seconds is not None  # a search's default budget is a clock too
        if not timed:
            untimed[name] = spec
    return untimed, ladder


def _base_name(entrants: dict[str, str], base: str) -> str:
    for name, spec in entrants.items():
        if spec == base:
            return name
    return "base"


def digest(data: Any) -> str:
    """Eight hex digits of the sha256 of ``data`` as JSON: a tournament's name carries what its entrants' play
    depends on beyond their specs (the models, the table), so that stored games of another one are not counted."""
    import hashlib

    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:8]


def calibration_config(game: str, base: str, skills: tuple[float, ...], pairs: int) -> TournamentConfig:
    """The calibration's round robin (module docstring); its name holds a digest of the shipped models its
    entrants play (a retrained ``ppo`` keeps its spec but not its games)."""
    if "," in base:
        raise ValueError(f"--base {base!r}: a level's base takes at most one option (the level spec "
                         f"level:skill=P,base=... cannot hold a second comma); use a bot with its defaults")
    entrants, ladder = ladder_entrants(game)
    if _base_name(entrants, base) == "base":
        entrants["base"] = base
    for s in skills:
        entrants[skill_name(s)] = f"level:skill={_number(s)},base={base}"
    models = digest(shipped_models(game, list(entrants.values())))
    return config_from_dict({"name": f"{game}-levels-calibration-{models}", "game": game, "entrants": entrants,
                             "format": "round_robin", "pairs": pairs, "seed": CALIBRATION_SEED,
                             "scenarios": list(ladder.scenarios), "rules": dict(ladder.rules),
                             "time": {"move_ms": ladder.move_ms, "game_ms": ladder.game_ms}, "anchor": "random"})


def bench_config(game: str, elo: float, ladder: list[dict[str, Any]], tournament: dict[str, Any],
                 pairs: int, table: Any = None) -> TournamentConfig:
    """The bench of one requested rating: ``level:elo=N`` against every entrant of the calibration's ladder (a
    gauntlet), on the calibration's scenarios and rules, from seeds the calibration did not play. Its name holds
    a digest of ``table`` (its points and models): after a new calibration ``level:elo=N`` plays another skill."""
    hero = f"elo_{_number(elo)}"
    entrants = {hero: f"level:elo={_number(elo)}", **{r["name"]: r["spec"] for r in ladder}}
    made = "" if table is None else "-" + digest({"points": table.raw["points"], "models": table.raw.get("models")})
    return config_from_dict({"name": f"{game}-levels-bench-{_number(elo)}{made}", "game": game, "entrants": entrants,
                             "format": "gauntlet", "gauntlet": hero, "pairs": pairs, "seed": BENCH_SEED,
                             "scenarios": list(tournament.get("scenarios") or ()),
                             "rules": dict(tournament.get("rules") or {}),
                             "time": {"move_ms": tournament.get("move_ms"), "game_ms": tournament.get("game_ms")},
                             "anchor": "random"})


def expected_score(diff: np.ndarray) -> np.ndarray:
    """A player's expected score against one rated ``diff`` Elo below it (the logistic Elo curve)."""
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


def rating_against_fixed(opponent_elo: np.ndarray, pair_score: np.ndarray) -> float:
    """The maximum-likelihood rating of a player whose pairs (two games each, ``pair_score`` 0 to 2) were played
    against opponents of fixed ratings, with one virtual draw against each opponent (as the tournament's fit has
    one per pairing, so that a clean sweep is finite). The score's derivative is monotone: one root."""
    from scipy.optimize import brentq

    others = np.unique(opponent_elo)

    def excess(e: float) -> float:
        games = pair_score.sum() - 2.0 * expected_score(e - opponent_elo).sum()
        virtual = (0.5 - expected_score(e - others)).sum()
        return float(games + virtual)

    return float(brentq(excess, -5000.0, 5000.0, xtol=1e-6))


def fixed_scale_rating(opponent_elo: np.ndarray, pair_score: np.ndarray, rounds: int = 1000,
                       seed: int = 0) -> tuple[float, float, float]:
    """The rating against the ladder's fixed ratings and its 95% bootstrap interval (pairs resampled within each
    opponent, as the tournament's bootstrap resamples pairs within each pairing)."""
    rng = np.random.default_rng(seed)
    elo = rating_against_fixed(opponent_elo, pair_score)
    groups = [np.flatnonzero(opponent_elo == o) for o in np.unique(opponent_elo)]
    reps = []
    for _ in range(rounds):
        pick = np.concatenate([g[rng.integers(g.size, size=g.size)] for g in groups])
        reps.append(rating_against_fixed(opponent_elo[pick], pair_score[pick]))
    lower, upper = np.percentile(reps, [2.5, 97.5])
    return elo, float(lower), float(upper)


def _run(config: TournamentConfig, db: Path, out: Path, workers: int, quiet: bool) -> dict[str, Any]:
    """Play (or resume) ``config`` in ``db``, write its reports to ``out``, and return ``report.json``'s data.

    A changed config goes on (more ``--pairs``, a table with new levels): the games already stored that the new
    schedule plays count, matched by content, and only the rest is played."""
    from cardwar.tournament.command import _check_out, _play
    from cardwar.tournament.report import build_report, to_json, write_reports
    from cardwar.tournament.runner import current_rows
    from cardwar.tournament.store import Store

    _check_out(out)
    db.parent.mkdir(parents=True, exist_ok=True)
    args = argparse.Namespace(workers=workers, backend="local", ray_address=None, allow_changed=True,
                              reproducible_seeds=False, shared_deals=False, quiet=quiet)
    with Store(db) as store:
        _play(args, config, store, db, out)
        rows = current_rows(config, store)
    report = build_report(config, rows)
    write_reports(report, out)
    return to_json(report)


def shipped_models(game: str, specs: list[str]) -> dict[str, str]:
    """The sha256 of the shipped model behind each spec that plays one (``ppo``, ``ppo:deterministic=...``): a
    table's ratings hold only for the models it was made with (tests/agents/test_levels.py compares them)."""
    import hashlib

    from cardwar import agents
    from cardwar.agents.ppo_agent import pretrained_path

    out = {}
    for spec in specs:
        name, options = agents.check_spec(spec, game)
        base = options.get("base")
        if base is not None:
            out.update(shipped_models(game, [base]))
        if name == "ppo" and not options.get("path"):
            out["ppo"] = hashlib.sha256(pretrained_path(game).read_bytes()).hexdigest()
    return out


def table_from_report(report: dict[str, Any], config: TournamentConfig, base: str, skills: tuple[float, ...],
                      command: str) -> dict[str, Any]:
    """The calibration table: a point per skill (0: random, 1: the base bot) and the whole ladder's ratings."""
    by_name = {r["name"]: r for r in report["ratings"]}
    base_name = _base_name(config.entrants, base)
    points = [{"skill": 0.0, "entrant": "random", "elo": 0.0, "lower": 0.0, "upper": 0.0}]
    for s, name in [*[(s, skill_name(s)) for s in skills], (1.0, base_name)]:
        r = by_name[name]
        points.append({"skill": s, "entrant": name, "elo": r["elo"], "lower": r["lower"], "upper": r["upper"]})
    return {"game": config.game, "base": base, "scale": "Bradley-Terry Elo, random = 0 (cardwar.tournament.ratings)",
            "points": points,
            "ladder": [{k: r[k] for k in ("name", "spec", "elo", "lower", "upper", "games", "score")}
                       for r in report["ratings"]],
            "tournament": config.to_dict(), "games": report["games"], "command": command,
            "models": shipped_models(config.game, list(config.entrants.values())),
            "date": dt.date.today().isoformat()}


def calibrate(args: argparse.Namespace) -> int:
    from cardwar.agents import check_spec
    from cardwar.agents.levels import calibration, from_dict, table_path

    from cardwar.agents.levels import LevelTableError

    try:
        old = calibration(args.game)
    except LevelTableError as err:  # the command that makes the table again must not need the old one
        if not args.base:
            raise ValueError(f"{err}; give --base") from None
        old = None
    base = args.base or (old.base if old is not None else "heuristic")
    check_spec(base, args.game)
    if base.split(":", 1)[0] == "level":
        raise ValueError("--base: a level cannot be the base bot")
    skills = tuple(sorted(set(args.skills)))
    if not all(0 < s < 1 for s in skills):
        raise ValueError(f"--skills: each must be between 0 and 1 (0 is random, 1 the base bot), got {args.skills}")
    config = calibration_config(args.game, base, skills, args.pairs)
    out = Path(args.out or f"tournaments/{config.name}")
    report = _run(config, Path(args.db or f"tournaments/{config.name}.sqlite"), out, args.workers, args.quiet)
    command = (f"cardwar levels calibrate {args.game} --base {shlex.quote(base)} --pairs {args.pairs} "
               f"--skills {' '.join(_number(s) for s in skills)} --workers {args.workers}")
    table = table_from_report(report, config, base, skills, command)
    made = from_dict(table)
    dest = Path(args.write) if args.write else Path(str(table_path(args.game)))
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".partial")
    partial.write_text(json.dumps(table, indent=1) + "\n")
    os.replace(partial, dest)  # a kill while writing leaves the old table whole, never one cut short
    print(f"{args.game}: base {base}, {report['games']} games")
    for p, elo in zip(table["points"], made.elos):
        interval = "n/a" if p["lower"] is None else f"{p['lower']:.0f} to {p['upper']:.0f}"
        print(f"  skill {p['skill']:<5g} measured {p['elo']:7.1f} ({interval})  table {elo:7.1f}")
    print(f"table: {dest}; reports: {out}")
    return 0


def bench_row(elo: float, games: list[Any], ladder: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    """Requested against measured for one level: the rating its pairs against the ladder's fixed ratings give,
    that rating's interval, and whether the interval holds the request."""
    from cardwar.tournament.pentanomial import pair_scores

    hero = f"elo_{_number(elo)}"
    opponent_elo, pair_score = [], []
    for r in ladder:
        scores, _ = pair_scores(games, hero, r["name"])
        opponent_elo += [r["elo"]] * len(scores)
        pair_score += scores
    measured, lower, upper = fixed_scale_rating(np.asarray(opponent_elo, float), np.asarray(pair_score, float),
                                                rounds=rounds)
    return {"requested": elo, "measured": round(measured, 1), "lower": round(lower, 1), "upper": round(upper, 1),
            "within": lower <= elo <= upper, "games": 2 * len(pair_score),
            "score": round(float(np.mean(pair_score)) / 2, 4)}


def plot_bench(rows: list[dict[str, Any]], game: str, table: Any, path: Path) -> None:
    """Requested (x) against measured (y) with the 95% intervals, beside the diagonal; the ladder's bots marked at
    their ratings on the right."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    top = table.top
    fig, ax = plt.subplots(figsize=(5.5, 5))
    x = [r["requested"] for r in rows]
    y = [r["measured"] for r in rows]
    err = [[r["measured"] - r["lower"] for r in rows], [r["upper"] - r["measured"] for r in rows]]
    ax.plot([0, top], [0, top], color="grey", lw=1, ls="--", label="measured = requested")
    ax.errorbar(x, y, yerr=err, fmt="o", capsize=4, label="measured on new deals (95% interval)")
    for r in table.raw["ladder"]:
        if not str(r["spec"]).startswith("level:"):
            ax.axhline(r["elo"], color="tab:orange", lw=0.6, alpha=0.6)
            ax.annotate(r["name"], (top, r["elo"]), fontsize=8, ha="right", va="bottom", color="tab:orange")
    ax.set_xlim(-10, top * 1.03)
    ax.set_xlabel("requested Elo (level:elo=N)")
    ax.set_ylabel("measured Elo on the shipped ladder (random = 0)")
    ax.set_title(f"{game}: opponents at a chosen strength")
    ax.legend(loc="upper left", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def bench(args: argparse.Namespace) -> int:
    from cardwar.agents.levels import LEVELS, calibration
    from cardwar.tournament.report import results_of
    from cardwar.tournament.runner import current_rows
    from cardwar.tournament.store import Store

    table = calibration(args.game)
    if table is None:
        raise ValueError(f"{args.game} has no calibration table: run `cardwar levels calibrate {args.game}` first")
    elos = sorted(set(args.elo)) if args.elo else [lv["elo"] for lv in table.levels() if lv["level"] % 2]
    for elo in elos:
        if not 0 <= elo <= table.bound:
            raise ValueError(f"--elo {elo:g} is outside {args.game}'s range, 0 to {table.bound}")
    ladder, tournament = table.raw["ladder"], table.raw["tournament"]
    out = Path(args.out or f"tournaments/{args.game}-levels-bench")
    db = Path(args.db or f"tournaments/{args.game}-levels-bench.sqlite")
    rows = []
    for elo in elos:
        config = bench_config(args.game, elo, ladder, tournament, args.pairs, table)
        _run(config, db, out / f"elo_{_number(elo)}", args.workers, args.quiet)
        with Store(db, readonly=True) as store:
            games = results_of(current_rows(config, store), config)
        rows.append(bench_row(elo, games, ladder, args.rounds))
    print(f"{args.game}: requested against measured Elo on the shipped ladder's fixed ratings ({LEVELS} server "
          f"levels up to {table.top:.0f}; each level {rows[0]['games']} games against its {len(ladder)} entrants)")
    print("| requested | measured | 95% interval | score | within |\n|---:|---:|---|---:|---|")
    for r in rows:
        print(f"| {r['requested']:.0f} | {r['measured']:.0f} | {r['lower']:.0f} to {r['upper']:.0f} | "
              f"{r['score']:.3f} | {'yes' if r['within'] else 'NO'} |")
    out.mkdir(parents=True, exist_ok=True)
    plot_bench(rows, args.game, table, out / "levels.png")
    (out / "levels.json").write_text(json.dumps({"game": args.game, "rows": rows, "ladder": ladder}, indent=1) + "\n")
    print(f"{sum(r['within'] for r in rows)} of {len(rows)} within their interval; plot: {out / 'levels.png'}")
    return 0


def add_parser(sub: Any, number: Any) -> None:
    """``cardwar levels calibrate|bench GAME``."""
    from cardwar import games

    lv = sub.add_parser("levels", help="opponents at a chosen strength (level:elo=N): calibrate, bench")
    lsub = lv.add_subparsers(dest="levels_command", required=True)
    for name, func, help_ in (("calibrate", calibrate, "the level table of a game, by a round robin on its ladder"),
                              ("bench", bench, "requested against measured Elo on new deals")):
        p = lsub.add_parser(name, help=help_)
        p.add_argument("game", choices=list(games.names()))
        p.add_argument("--pairs", type=number(int, 1, "--pairs"), default=20, help="game pairs per pairing (20)")
        p.add_argument("--workers", type=number(int, 1, "--workers"), default=1, help="parallel games (default 1)")
        p.add_argument("--db", help="SQLite database (default tournaments/GAME-levels-*.sqlite)")
        p.add_argument("--out", help="report folder (default tournaments/GAME-levels-*/)")
        p.add_argument("--quiet", action="store_true", help="no progress bar")
        if name == "calibrate":
            p.add_argument("--base", help="the bot a level plays (default: the table's, else heuristic)")
            p.add_argument("--skills", type=number(float, 0, "--skills"), nargs="+", default=list(SKILLS),
                           help=f"the skill grid between 0 and 1 (default {' '.join(map(str, SKILLS))})")
            p.add_argument("--write", help="where the table goes (default: the package's, agents/level_tables/)")
        else:
            p.add_argument("--elo", type=number(float, 0, "--elo"), nargs="+",
                           help="requested ratings (default: the server's levels 1, 3, 5, 7)")
            p.add_argument("--rounds", type=number(int, 10, "--rounds"), default=1000,
                           help="bootstrap resamples of each interval (1000)")
        p.set_defaults(func=func)
