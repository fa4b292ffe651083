"""Reports from the store: the rating table, crosstable, pentanomial pair results, forfeits and timings.

Written as Markdown (``report.md``), CSV (``ratings.csv``, ``games.csv``), JSON
(``report.json``) and PNG plots a person would rather look at than read: the ratings
with their interval bars (``ratings.png``) and the crosstable as a heat map
(``crosstable.png``). ``cardwar tournament --report-only`` rebuilds them from the database.
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardwar.tournament.config import TournamentConfig
from cardwar.tournament.store import GameRow


@dataclass
class Report:
    """Everything the reports show, computed once."""

    config: TournamentConfig
    rows: list[GameRow]
    ratings: Any
    skills: list[Any]
    table: Any
    pentanomials: list[Any]
    sprt: dict[str, Any]
    forfeits: dict[str, dict[str, int]]
    move_ms: dict[str, tuple[float, float]]


def build_report(config: TournamentConfig, rows: list[GameRow], rounds: int = 1000) -> Report:
    """Ratings (Bradley-Terry with a pair bootstrap, OpenSkill), crosstable and pair statistics of ``rows``."""
    from cardwar.tournament.crosstable import crosstable
    from cardwar.tournament.openskill_ratings import openskill_ratings
    from cardwar.tournament.pentanomial import pentanomial
    from cardwar.tournament.ratings import rate
    from cardwar.tournament.runner import results_of, sprt_decision

    results = results_of(rows)
    anchor = "random" if "random" in config.entrants else None
    ratings = rate(results, anchor=anchor, rounds=rounds, seed=config.seed)
    order = [e.name for e in ratings.entrants]
    pentas, sprts = [], {}
    for p, (a, b) in enumerate(config.pairings()):
        mine = [r for r in rows if r.pairing == p]
        if mine:
            pentas.append(pentanomial(results_of(mine), a, b))
            s = sprt_decision(config, mine, a, b)
            if s is not None:
                sprts[f"{a} vs {b}"] = s
    forfeits: dict[str, dict[str, int]] = {}
    times: dict[str, list[float]] = {}
    for r in rows:
        if r.forfeit_seat is not None:
            who = (r.first, r.second)[r.forfeit_seat]
            forfeits.setdefault(who, {}).setdefault(r.forfeit_reason or "?", 0)
            forfeits[who][r.forfeit_reason or "?"] += 1
        rec = json.loads(r.record)
        seat_names = list(rec["players"])
        for m, t in zip(rec["moves"], r.move_times):
            times.setdefault((r.first, r.second)[seat_names.index(m["seat"])], []).append(t * 1000)
    move_ms = {k: (float(np.percentile(v, 50)), float(np.percentile(v, 99))) for k, v in times.items()}
    return Report(config, rows, ratings, openskill_ratings(results), crosstable(results, order), pentas, sprts,
                  forfeits, move_ms)


def _fmt(x: float | None, spec: str = ".0f") -> str:
    return "-" if x is None or x != x else format(x, spec)


def to_markdown(rep: Report) -> str:
    """The whole report as Markdown."""
    c, r = rep.config, rep.ratings
    lines = [f"# Tournament {c.name}", "",
             f"{c.game}, {c.format.replace('_', ' ')}, {len(rep.rows)} games in {len(rep.rows) // 2} duplicate pairs"
             + (f", scenarios {', '.join(c.scenarios)}" if c.scenarios else "")
             + f"; time {c.move_ms} ms a move" + (f", {c.game_ms} ms a game" if c.game_ms else ""), "",
             f"## Ratings (Bradley-Terry Elo by maximum likelihood{', random = 0' if r.anchor else ''}; "
             f"{int(r.level * 100)}% intervals from {r.rounds} bootstrap resamples of game pairs)", "",
             "| rank | entrant | Elo | interval | games | score | LOS over next | OpenSkill (mu - 3 sigma) | p50 / p99 ms a move | forfeits |",
             "|---:|---|---:|---|---:|---:|---:|---:|---:|---|"]
    skills = {s.name: s for s in rep.skills}
    for k, e in enumerate(r.entrants, 1):
        f = rep.forfeits.get(e.name, {})
        ms = rep.move_ms.get(e.name)
        lines.append(f"| {k} | {e.name} | {e.elo:.0f} | {e.lower:.0f} .. {e.upper:.0f} | {e.games} | "
                     f"{e.score_rate:.3f} | {_fmt(e.los_next, '.3f')} | {skills[e.name].ordinal:.1f} | "
                     f"{'-' if ms is None else f'{ms[0]:.1f} / {ms[1]:.1f}'} | "
                     f"{', '.join(f'{n} {k2}' for k2, n in sorted(f.items())) or '-'} |")
    t = rep.table
    lines += ["", "## Crosstable (score rate of the row against the column; games)", "",
              "| | " + " | ".join(t.names) + " |", "|---|" + "---:|" * len(t.names)]
    for i, name in enumerate(t.names):
        cells = ["" if i == j else f"{t.points[i, j] / t.games[i, j]:.3f} ({int(t.games[i, j])})" if t.games[i, j]
                 else "-" for j in range(len(t.names))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "## Pairings: pentanomial pair results (pairs scoring 0, 0.5, 1, 1.5, 2 for the first named)", "",
              "| pairing | pairs | 0 | 0.5 | 1 | 1.5 | 2 | score | Elo (95%) | LOS |", "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for p in rep.pentanomials:
        lo, hi = p.elo_interval()
        lines.append(f"| {p.entrant} vs {p.opponent} | {p.pairs} | " + " | ".join(str(x) for x in p.counts)
                     + f" | {_fmt(p.score, '.3f')} | {_fmt(p.elo)} ({_fmt(lo)} .. {_fmt(hi)}) | {_fmt(p.los, '.3f')} |")
    if rep.sprt:
        lines += ["", "## SPRT (pentanomial GSPRT, as fishtest runs it)", "",
                  "| pairing | elo0, elo1 | LLR | bounds | result |", "|---|---|---:|---|---|"]
        for name, s in rep.sprt.items():
            verdict = {"H1": "H1 accepted (upper bound crossed)", "H0": "H0 accepted (lower bound crossed)",
                       None: "running"}[s.decision]
            lines.append(f"| {name} | {s.elo0:g}, {s.elo1:g} | {s.llr:.2f} | {s.lower:.2f} .. {s.upper:.2f} | "
                         f"{verdict} |")
    return "\n".join(lines) + "\n"


def to_json(rep: Report) -> dict[str, Any]:
    """The report as JSON data."""
    skills = {s.name: s for s in rep.skills}
    return {
        "tournament": rep.config.name, "game": rep.config.game, "games": len(rep.rows),
        "anchor": rep.ratings.anchor,
        "ratings": [{"name": e.name, "elo": round(e.elo, 1), "lower": round(e.lower, 1), "upper": round(e.upper, 1),
                     "games": e.games, "score": round(e.score_rate, 4),
                     "los_next": None if e.los_next is None else round(e.los_next, 4),
                     "openskill": {"mu": round(skills[e.name].mu, 3), "sigma": round(skills[e.name].sigma, 3),
                                   "ordinal": round(skills[e.name].ordinal, 3)},
                     "forfeits": rep.forfeits.get(e.name, {}),
                     "move_ms_p50_p99": rep.move_ms.get(e.name)} for e in rep.ratings.entrants],
        "crosstable": {"names": list(rep.table.names), "points": rep.table.points.tolist(),
                       "games": rep.table.games.tolist()},
        "pentanomial": [{"entrant": p.entrant, "opponent": p.opponent, "counts": list(p.counts),
                         "score": p.score, "elo": p.elo} for p in rep.pentanomials],
        "sprt": {k: {"llr": s.llr, "lower": s.lower, "upper": s.upper, "decision": s.decision}
                 for k, s in rep.sprt.items()},
    }


def write_reports(rep: Report, out: Path) -> list[Path]:
    """Markdown, CSV, JSON and PNG files in ``out``; returns their paths."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "report.md", out / "report.json", out / "ratings.csv", out / "games.csv",
             out / "ratings.png", out / "crosstable.png"]
    paths[0].write_text(to_markdown(rep))
    paths[1].write_text(json.dumps(to_json(rep), indent=1))
    with paths[2].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "entrant", "elo", "lower", "upper", "games", "score", "los_next", "openskill_ordinal"])
        skills = {s.name: s for s in rep.skills}
        for k, e in enumerate(rep.ratings.entrants, 1):
            w.writerow([k, e.name, f"{e.elo:.1f}", f"{e.lower:.1f}", f"{e.upper:.1f}", e.games, f"{e.score_rate:.4f}",
                        "" if e.los_next is None else f"{e.los_next:.4f}", f"{skills[e.name].ordinal:.3f}"])
    with paths[3].open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "pairing", "pair", "game_in_pair", "seed", "scenario", "first", "second", "score_first",
                    "length", "forfeit_seat", "forfeit_reason"])
        for r in rep.rows:
            w.writerow([r.id, r.pairing, r.pair, r.game_in_pair, r.seed, r.scenario or "", r.first, r.second,
                        r.score_first, r.length, "" if r.forfeit_seat is None else r.forfeit_seat,
                        r.forfeit_reason or ""])
    _plot_ratings(rep, paths[4])
    _plot_crosstable(rep, paths[5])
    return paths


def _plot_ratings(rep: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    es = list(rep.ratings.entrants)[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(es) + 1.5))
    y = np.arange(len(es))
    elo = np.array([e.elo for e in es])
    err = np.array([[e.elo - e.lower for e in es], [e.upper - e.elo for e in es]])
    ax.errorbar(elo, y, xerr=np.clip(err, 0, None), fmt="o", capsize=4, color="#1f4e9c")
    ax.set_yticks(y, [e.name for e in es])
    ax.axvline(0, color="#999", lw=0.8)
    ax.set_xlabel("Elo (Bradley-Terry" + (", random = 0" if rep.ratings.anchor else "") + f"), "
                  f"{int(rep.ratings.level * 100)}% pair-bootstrap interval")
    ax.set_title(f"{rep.config.name}: {len(rep.rows)} games")
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _plot_crosstable(rep: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = rep.table
    rates = t.rates
    n = len(t.names)
    fig, ax = plt.subplots(figsize=(1.2 * n + 2.5, 1.0 * n + 1.8))
    im = ax.imshow(np.ma.masked_invalid(rates), cmap="RdYlGn", vmin=0, vmax=1)
    for i in range(n):
        for j in range(n):
            if i != j and t.games[i, j]:
                ax.text(j, i, f"{rates[i, j]:.2f}\n({int(t.games[i, j])})", ha="center", va="center", fontsize=8)
    ax.set_xticks(range(n), t.names, rotation=30, ha="right")
    ax.set_yticks(range(n), t.names)
    ax.set_title("score rate of row vs column (games)")
    fig.colorbar(im, ax=ax, fraction=0.046)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
