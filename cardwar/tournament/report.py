"""Reports from the store: the rating table, crosstable, pentanomial pair results, SPRT, forfeits and timings.

Written as Markdown (``report.md``), CSV (``ratings.csv``, ``games.csv``), JSON
(``report.json``) and PNG plots a person would rather look at than read: the ratings
with their interval bars (``ratings.png``) and the crosstable as a heat map
(``crosstable.png``). ``cardwar tournament --report-only`` rebuilds them from the database.

The reports say what they know: which entrant is the anchor and why, which intervals
come from too few pairs to mean anything ("n/a"), which pairings an SPRT cut short (their
score as played is biased towards the bound crossed; the table rates them by the
bias-corrected Elo), and every forfeit with its seat, reason and detail.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from cardwar.tournament.config import TournamentConfig
from cardwar.tournament.game_result import GameResult
from cardwar.tournament.pentanomial import Pentanomial, pentanomial
from cardwar.tournament.ratings import EntrantRating, SequentialPairing
from cardwar.tournament.sprt import ELO_SEARCH_LIMIT, SequentialOutcome, SprtEstimate, SprtResult, sprt
from cardwar.tournament.store import GameRow

RANDOM_SPEC = "random"
"""The spec of the uniform-random agent, the default anchor (Elo 0)."""

MD_DETAIL_CHARS = 160
"""Forfeit details longer than this are cut in report.md (report.json and games.csv keep them whole)."""


@dataclass(frozen=True)
class Anchor:
    """The entrant rated 0 (None: no anchor, the ratings' mean is 0) and why it was chosen."""

    name: str | None
    rule: str


@dataclass(frozen=True)
class SequentialTest:
    """A pairing played under an SPRT: the test on its pairs, and the Elo of ``a`` over ``b`` as
    played (biased) and corrected (``outcome`` holds the test's state the correction comes from)."""

    a: str
    b: str
    pairs: int
    scheduled: int
    result: SprtResult
    naive_elo: float
    corrected: SprtEstimate | None
    outcome: SequentialOutcome | None

    @property
    def stopped(self) -> bool:
        """True when the SPRT crossed a bound (the pairing was cut short, or would be)."""
        return self.result.decision is not None

    @property
    def decision(self) -> str | None:
        """The SPRT's decision, ``"H0"``, ``"H1"`` or None."""
        return self.result.decision


@dataclass(frozen=True)
class Forfeit:
    """One forfeited game, as stored: where it sits in the schedule, who forfeited, why."""

    game_id: int | None
    pairing: str
    pair: int
    game_in_pair: int
    seat: int
    entrant: str
    reason: str
    detail: str


@dataclass
class Report:
    """Everything the reports show, computed once."""

    config: TournamentConfig
    rows: list[GameRow]
    ratings: Any
    skills: list[Any]
    table: Any
    pentanomials: list[Any]
    sprt: dict[str, SequentialTest]
    forfeits: dict[str, dict[str, int]]
    move_ms: dict[str, tuple[float, float]]
    anchor: Anchor
    forfeit_games: list[Forfeit]


def pairing_name(a: str, b: str) -> str:
    """How a pairing is keyed in the statistics: JSON of ``[a, b]``, unambiguous whatever the names hold
    (entrants ``a vs b`` and ``c`` stay apart from ``a`` and ``b vs c``)."""
    return json.dumps([a, b], ensure_ascii=False)


def pairing_label(a: str, b: str) -> str:
    """How a pairing is shown in the reports: ``"a vs b"``."""
    return f"{a} vs {b}"


def pairing_of(row: GameRow, config: TournamentConfig) -> tuple[str, str]:
    """The schedule pairing ``(a, b)`` a row's two entrants form (by name, not by the row's index);
    two entrants the schedule does not pair are named in sorted order."""
    seats = {row.first, row.second}
    for a, b in config.pairings():
        if {a, b} == seats:
            return a, b
    first, second = sorted(seats)
    return first, second


def results_of(rows: Sequence[GameRow], config: TournamentConfig) -> list[GameResult]:
    """Store rows as the statistics' input, each game under its schedule pairing's name."""
    return [GameResult(pairing_name(*pairing_of(r, config)), r.pair, r.first, r.second, r.score_first) for r in rows]


def choose_anchor(config: TournamentConfig, anchor: str | None = None) -> Anchor:
    """The entrant rated 0: ``anchor`` if given (the tournament's ``anchor:`` key), else the first
    entrant whose spec is ``random`` (whatever its display name), else none (mean 0)."""
    anchor = anchor if anchor is not None else getattr(config, "anchor", None)
    if anchor is not None:
        if anchor not in config.entrants:
            raise ValueError(f"anchor {anchor!r} is not an entrant; entrants: {', '.join(config.entrants)}")
        return Anchor(anchor, "the tournament's anchor key")
    for name, spec in config.entrants.items():
        if spec.strip() == RANDOM_SPEC:
            return Anchor(name, f"its spec is {RANDOM_SPEC}")
    return Anchor(None, f"no anchor key and no entrant with spec {RANDOM_SPEC}: the ratings' mean is 0")


def sequential_tests(config: TournamentConfig, results: Sequence[GameResult]) -> dict[str, SequentialTest]:
    """Every pairing played under the tournament's SPRT, with its test and bias-corrected Elo.

    A pairing under an SPRT is sequential whether or not it crossed a bound: how long it ran
    depended on its LLR staying inside them, and the correction (median-unbiased, see
    :class:`cardwar.tournament.sprt.SequentialOutcome`) allows for that; far from the
    bounds it changes next to nothing.
    """
    if config.sprt is None:
        return {}
    s, tests = config.sprt, {}
    for a, b in config.pairings():
        key = pairing_name(a, b)
        mine = [g for g in results if g.pairing == key]
        if not mine:
            continue
        penta = pentanomial(mine, a, b)
        outcome = SequentialOutcome(penta.counts, s.elo0, s.elo1, s.alpha, s.beta) if penta.pairs else None
        tests[key] = SequentialTest(a, b, penta.pairs, config.pairs, sprt(penta, s.elo0, s.elo1, s.alpha, s.beta),
                                    penta.elo, None if outcome is None else outcome.estimate(), outcome)
    return tests


def sequential_pairings(tests: dict[str, SequentialTest]) -> dict[str, SequentialPairing]:
    """The sequential pairings as the rating fit takes them: corrected Elo and confidence distribution."""
    return {key: SequentialPairing(t.a, t.b, t.corrected.elo, t.outcome.quantiles)
            for key, t in tests.items() if t.corrected is not None and t.outcome is not None}


def forfeited_games(rows: Sequence[GameRow], config: TournamentConfig) -> list[Forfeit]:
    """Every forfeit in ``rows``, with the seat, the entrant in it, the reason and the detail."""
    out = []
    for r in rows:
        if r.forfeit_seat is None:
            continue
        out.append(Forfeit(r.id, pairing_label(*pairing_of(r, config)), r.pair, r.game_in_pair, r.forfeit_seat,
                           (r.first, r.second)[r.forfeit_seat], r.forfeit_reason or "?", r.forfeit_detail or ""))
    return out


def build_report(config: TournamentConfig, rows: list[GameRow], rounds: int = 1000,
                 anchor: str | None = None) -> Report:
    """Ratings (Bradley-Terry with a pair bootstrap, OpenSkill), crosstable and pair statistics of ``rows``.

    ``anchor`` names the entrant rated 0 (the tournament's ``anchor:`` key); see :func:`choose_anchor`.
    """
    from cardwar.tournament.crosstable import crosstable
    from cardwar.tournament.openskill_ratings import openskill_ratings
    from cardwar.tournament.ratings import rate

    chosen = choose_anchor(config, anchor)
    results = results_of(rows, config)
    tests = sequential_tests(config, results)
    ratings = rate(results, anchor=chosen.name, rounds=rounds, seed=config.seed, sequential=sequential_pairings(tests))
    if chosen.name is not None and ratings.anchor is None:
        chosen = Anchor(None, f"{chosen.name} ({chosen.rule}) played no game: the ratings' mean is 0")
    order = [e.name for e in ratings.entrants]
    pentas = []
    for a, b in config.pairings():
        mine = [g for g in results if g.pairing == pairing_name(a, b)]
        if mine:
            pentas.append(pentanomial(mine, a, b))
    forfeits: dict[str, dict[str, int]] = {}
    for f in forfeited_games(rows, config):
        forfeits.setdefault(f.entrant, {}).setdefault(f.reason, 0)
        forfeits[f.entrant][f.reason] += 1
    times: dict[str, list[float]] = {}
    for r in rows:
        rec = json.loads(r.record)
        seat_names = list(rec["players"])
        for m, t in zip(rec["moves"], r.move_times):
            times.setdefault((r.first, r.second)[seat_names.index(m["seat"])], []).append(t * 1000)
    move_ms = {k: (float(np.percentile(v, 50)), float(np.percentile(v, 99))) for k, v in times.items()}
    return Report(config, rows, ratings, openskill_ratings(results), crosstable(results, order), pentas, tests,
                  forfeits, move_ms, chosen, forfeited_games(rows, config))


def _fmt(x: float | None, spec: str = ".0f") -> str:
    if x is None or x != x:
        return "-"
    text = format(x, spec)
    return text.lstrip("-") if float(text) == 0 else text  # -0.2 Elo reads 0, not -0


def interval_text(e: EntrantRating, anchor: str | None, min_pairs: int) -> str:
    """The interval column: ``lo .. hi``, ``anchor``, or why there is none (too few pairs, all alike)."""
    if e.name == anchor:
        return "anchor (0 by definition)"
    if not e.reliable:
        return unreliable_text(e.pairs, min_pairs)
    return f"{e.lower:.0f} .. {e.upper:.0f}"


def unreliable_text(pairs: int, min_pairs: int) -> str:
    """``n/a (4 pairs)`` below ``min_pairs``, else ``n/a (all 50 pairs alike)``: every resample the same."""
    return f"n/a ({pairs} pair{'s' if pairs != 1 else ''})" if pairs < min_pairs else f"n/a (all {pairs} pairs alike)"


def shown_los(rep: Report, rank: int) -> float | None:
    """LOS of the entrant at ``rank`` over the next, or None when either interval is unreliable."""
    es = rep.ratings.entrants
    if rank + 1 >= len(es) or not (es[rank].reliable and es[rank + 1].reliable):
        return None
    return es[rank].los_next


def penta_reliable(p: Pentanomial, min_pairs: int) -> bool:
    """A pentanomial interval means something: enough pairs, and not every pair alike."""
    return p.pairs >= min_pairs and p.variance > 0


def _md_cell(text: str, limit: int | None = None) -> str:
    text = " ".join(str(text).split()).replace("|", "\\|")
    return text if limit is None or len(text) <= limit else text[: limit - 1] + "…"


def _anchor_line(rep: Report) -> str:
    a = rep.anchor
    return f"Anchor: **{a.name}** = 0 ({a.rule})." if a.name else f"Anchor: none ({a.rule})."


def to_markdown(rep: Report) -> str:
    """The whole report as Markdown."""
    c, r = rep.config, rep.ratings
    anchor = f", {r.anchor} = 0" if r.anchor else ", mean 0"
    lines = [f"# Tournament {c.name}", "",
             f"{c.game}, {c.format.replace('_', ' ')}, {len(rep.rows)} games in {len(rep.rows) // 2} duplicate pairs"
             + (f", scenarios {', '.join(c.scenarios)}" if c.scenarios else "")
             + f"; time {c.move_ms} ms a move" + (f", {c.game_ms} ms a game" if c.game_ms else ""), "",
             f"## Ratings (Bradley-Terry Elo by maximum likelihood{anchor}; "
             f"{int(r.level * 100)}% intervals from {r.rounds} bootstrap resamples of game pairs)", "",
             _anchor_line(rep), "",
             "| rank | entrant | Elo | interval | games | pairs | score | LOS over next | OpenSkill (mu - 3 sigma) "
             "| p50 / p99 ms a move | forfeits |",
             "|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|"]
    skills = {s.name: s for s in rep.skills}
    for k, e in enumerate(r.entrants):
        f = rep.forfeits.get(e.name, {})
        ms = rep.move_ms.get(e.name)
        los = shown_los(rep, k)
        los_text = "-" if e.los_next is None else "n/a" if los is None else f"{los:.3f}"
        lines.append(f"| {k + 1} | {e.name}{' †' if e.sequential else ''} | {e.elo:.0f} "
                     f"| {interval_text(e, r.anchor, r.min_pairs)} "
                     f"| {e.games} | {e.pairs} | {e.score_rate:.3f} | {los_text} | {skills[e.name].ordinal:.1f} | "
                     f"{'-' if ms is None else f'{ms[0]:.1f} / {ms[1]:.1f}'} | "
                     f"{', '.join(f'{n} {k2}' for k2, n in sorted(f.items())) or '-'} |")
    notes = []
    if not all(e.reliable for e in r.entrants):
        notes.append(f"n/a: fewer than {r.min_pairs} duplicate pairs, or every resample alike, say nothing about the "
                     "uncertainty; no interval or LOS is shown.")
    if any(e.sequential for e in r.entrants):
        notes.append("†: rated with pairings played under an SPRT, whose score as played is biased towards the bound "
                     "the test crossed; they count at their bias-corrected (median-unbiased) Elo, see the SPRT table.")
    lines += [line for note in notes for line in ("", note)]
    t = rep.table
    lines += ["", "## Crosstable (score rate of the row against the column; games)", "",
              "| | " + " | ".join(t.names) + " |", "|---|" + "---:|" * len(t.names)]
    for i, name in enumerate(t.names):
        cells = ["" if i == j else f"{t.points[i, j] / t.games[i, j]:.3f} ({int(t.games[i, j])})" if t.games[i, j]
                 else "-" for j in range(len(t.names))]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += ["", "## Pairings: pentanomial pair results (pairs scoring 0, 0.5, 1, 1.5, 2 for the first named)", "",
              "| pairing | pairs | 0 | 0.5 | 1 | 1.5 | 2 | score | Elo (95%) | LOS |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---|---:|"]
    for p in rep.pentanomials:
        name = pairing_label(p.entrant, p.opponent)
        mark = " †" if pairing_name(p.entrant, p.opponent) in rep.sprt else ""
        if penta_reliable(p, r.min_pairs):
            lo, hi = p.elo_interval()
            elo, los = f"{_fmt(p.elo)} ({_fmt(lo)} .. {_fmt(hi)})", _fmt(p.los, ".3f")
        else:
            elo, los = f"{_fmt(p.elo)}; {unreliable_text(p.pairs, r.min_pairs)}", "n/a"
        lines.append(f"| {name}{mark} | {p.pairs} | " + " | ".join(str(x) for x in p.counts)
                     + f" | {_fmt(p.score, '.3f')} | {elo} | {los} |")
    if rep.sprt:
        lines += ["", "† played under the SPRT: the Elo and LOS above are as played, biased towards the bound "
                  "crossed."]
        lines += _sprt_markdown(rep)
    if rep.forfeit_games:
        n = len(rep.forfeit_games)
        lines += ["", f"## Forfeits ({n} game{'s' if n != 1 else ''}; the forfeiting seat loses)", "",
                  "| game id | pairing | pair | game | seat | entrant | reason | detail |",
                  "|---:|---|---:|---:|---:|---|---|---|"]
        for f in rep.forfeit_games:
            lines.append(f"| {'-' if f.game_id is None else f.game_id} | {f.pairing} | {f.pair} | {f.game_in_pair} | "
                         f"{f.seat} | {f.entrant} | {f.reason} | {_md_cell(f.detail, MD_DETAIL_CHARS) or '-'} |")
        if any(len(" ".join(f.detail.split())) > MD_DETAIL_CHARS for f in rep.forfeit_games):
            lines += ["", "Long details are cut here; report.json and games.csv hold them whole."]
    return "\n".join(lines) + "\n"


def _sprt_markdown(rep: Report) -> list[str]:
    """The SPRT section: each sequential pairing's test, and its Elo as played and corrected."""
    lines = ["", "## SPRT (pentanomial GSPRT, as fishtest runs it)", "",
             "Elo corrected: the median-unbiased estimate and its interval (fishtest's method on the test's "
             "exact LLR); the Elo as played is biased towards the bound the test crossed.", "",
             "| pairing | pairs | elo0, elo1 | LLR | bounds | result | Elo as played | Elo corrected (95%) | LOS |",
             "|---|---:|---|---:|---|---|---:|---|---:|"]
    for t in rep.sprt.values():
        name, s = pairing_label(t.a, t.b), t.result
        verdict = {"H1": "H1 accepted (upper bound crossed)", "H0": "H0 accepted (lower bound crossed)"}.get(
            s.decision or "", "no bound crossed: schedule ended" if t.pairs >= t.scheduled else "running")
        if s.decision is not None:
            verdict += f", stopped after {t.pairs} of {t.scheduled} pairs"
        est = t.corrected
        corrected = "-" if est is None else f"{_limit(est.elo)} ({_limit(est.lower)} .. {_limit(est.upper)})"
        lines.append(f"| {name} | {t.pairs} | {s.elo0:g}, {s.elo1:g} | {s.llr:.2f} | {s.lower:.2f} .. {s.upper:.2f} | "
                     f"{verdict} | {_fmt(t.naive_elo)} | {corrected} | {'-' if est is None else f'{est.los:.3f}'} |")
    return lines


def _limit(elo: float) -> str:
    """An Elo from the corrected estimate's search, which stops at +/- ``ELO_SEARCH_LIMIT``."""
    if abs(elo) >= ELO_SEARCH_LIMIT - 1e-6:
        return f"{'≥' if elo > 0 else '≤'}{elo:.0f}"
    return f"{elo:.0f}"


def _rating_json(rep: Report, rank: int, e: EntrantRating) -> dict[str, Any]:
    skills = {s.name: s for s in rep.skills}
    shown = e.reliable and e.name != rep.ratings.anchor
    los = shown_los(rep, rank)
    return {"name": e.name, "spec": rep.config.entrants.get(e.name), "elo": round(e.elo, 1),
            "lower": round(e.lower, 1) if shown else None, "upper": round(e.upper, 1) if shown else None,
            "interval": interval_text(e, rep.ratings.anchor, rep.ratings.min_pairs), "reliable": e.reliable,
            "games": e.games, "pairs": e.pairs, "score": round(e.score_rate, 4),
            "los_next": None if los is None else round(los, 4), "sequential": e.sequential,
            "openskill": {"mu": round(skills[e.name].mu, 3), "sigma": round(skills[e.name].sigma, 3),
                          "ordinal": round(skills[e.name].ordinal, 3)},
            "forfeits": rep.forfeits.get(e.name, {}), "move_ms_p50_p99": rep.move_ms.get(e.name)}


def to_json(rep: Report) -> dict[str, Any]:
    """The report as JSON data."""
    min_pairs = rep.ratings.min_pairs
    return {
        "tournament": rep.config.name, "game": rep.config.game, "games": len(rep.rows),
        "anchor": rep.ratings.anchor, "anchor_rule": rep.anchor.rule,
        "anchor_spec": rep.config.entrants.get(rep.ratings.anchor) if rep.ratings.anchor else None,
        "min_reliable_pairs": min_pairs,
        "ratings": [_rating_json(rep, k, e) for k, e in enumerate(rep.ratings.entrants)],
        "crosstable": {"names": list(rep.table.names), "points": rep.table.points.tolist(),
                       "games": rep.table.games.tolist()},
        "pentanomial": [{"entrant": p.entrant, "opponent": p.opponent, "counts": list(p.counts), "pairs": p.pairs,
                         "score": p.score, "elo": p.elo, "reliable": penta_reliable(p, min_pairs),
                         "sequential": pairing_name(p.entrant, p.opponent) in rep.sprt} for p in rep.pentanomials],
        "sprt": {k: {"llr": t.result.llr, "lower": t.result.lower, "upper": t.result.upper,
                     "elo0": t.result.elo0, "elo1": t.result.elo1, "alpha": t.result.alpha, "beta": t.result.beta,
                     "decision": t.result.decision, "stopped": t.stopped, "pairs": t.pairs,
                     "scheduled_pairs": t.scheduled, "elo_as_played": t.naive_elo,
                     "elo_corrected": None if t.corrected is None else
                     {"elo": t.corrected.elo, "lower": t.corrected.lower, "upper": t.corrected.upper,
                      "los": t.corrected.los, "level": t.corrected.level}}
                 for t in rep.sprt.values() for k in [pairing_label(t.a, t.b)]},
        "forfeits": [{"game_id": f.game_id, "pairing": f.pairing, "pair": f.pair, "game_in_pair": f.game_in_pair,
                      "seat": f.seat, "entrant": f.entrant, "reason": f.reason, "detail": f.detail}
                     for f in rep.forfeit_games],
    }


def write_reports(rep: Report, out: Path) -> list[Path]:
    """Markdown, CSV, JSON and PNG files in ``out``; returns their paths.

    Each file is written whole beside its final name and then renamed over it (``os.replace``), so
    a run killed while writing leaves every report as it was before, never a file cut short."""
    out.mkdir(parents=True, exist_ok=True)
    _sweep(out)
    paths = [out / "report.md", out / "report.json", out / "ratings.csv", out / "games.csv",
             out / "ratings.png", out / "crosstable.png"]
    with _replacing(paths[0]) as tmp:
        tmp.write_text(to_markdown(rep))
    with _replacing(paths[1]) as tmp:
        tmp.write_text(json.dumps(to_json(rep), indent=1))
    with _replacing(paths[2]) as tmp, tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "entrant", "elo", "lower", "upper", "reliable", "games", "pairs", "score", "los_next",
                    "sequential", "openskill_ordinal"])
        for k, row in enumerate(_rating_json(rep, k, e) for k, e in enumerate(rep.ratings.entrants)):
            w.writerow([k + 1, row["name"], f"{row['elo']:.1f}", _csv(row["lower"]), _csv(row["upper"]),
                        int(row["reliable"]), row["games"], row["pairs"], f"{row['score']:.4f}", _csv(row["los_next"]),
                        int(row["sequential"]), f"{row['openskill']['ordinal']:.3f}"])
    with _replacing(paths[3]) as tmp, tmp.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "pairing", "pair", "game_in_pair", "seed", "scenario", "first", "second", "score_first",
                    "length", "forfeit_seat", "forfeit_entrant", "forfeit_reason", "forfeit_detail"])
        for r in rep.rows:
            w.writerow([r.id, r.pairing, r.pair, r.game_in_pair, r.seed, r.scenario or "", r.first, r.second,
                        r.score_first, r.length, "" if r.forfeit_seat is None else r.forfeit_seat,
                        "" if r.forfeit_seat is None else (r.first, r.second)[r.forfeit_seat],
                        r.forfeit_reason or "", r.forfeit_detail or ""])
    with _replacing(paths[4]) as tmp:
        _plot_ratings(rep, tmp)
    with _replacing(paths[5]) as tmp:
        _plot_crosstable(rep, tmp)
    return paths


_TMP = ".cardwar-tmp-"
"""Marks a report being written: ``.NAME.cardwar-tmp-PID.SUFFIX`` beside ``NAME`` (the suffix keeps the format)."""


@contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    """A file to write in place of ``path``: written whole and flushed to disk, then renamed over ``path`` in one
    step; removed instead if the block fails. As ``git`` and ``rsync`` replace files, nothing reads a half file."""
    tmp = path.with_name(f".{path.name}{_TMP}{os.getpid()}{path.suffix}")
    try:
        yield tmp
        with tmp.open("rb+") as f:
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def _sweep(out: Path) -> None:
    """Remove what a killed writer left being written (its process is gone); a live writer's file is its own."""
    for leftover in out.glob(f".*{_TMP}*"):
        pid = leftover.name.split(_TMP, 1)[1].split(".", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and _gone(int(pid)):
            leftover.unlink(missing_ok=True)


def _gone(pid: int) -> bool:
    """No process ``pid`` (``kill(pid, 0)``: a process of another user is still there)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _csv(x: float | None) -> str:
    return "" if x is None else f"{x:.4f}" if abs(x) <= 1 else f"{x:.1f}"


def _plot_ratings(rep: Report, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    es = list(rep.ratings.entrants)[::-1]
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(es) + 1.5))
    y = np.arange(len(es))
    ok = np.array([e.reliable for e in es])
    elo = np.array([e.elo for e in es])
    err = np.array([[e.elo - e.lower for e in es], [e.upper - e.elo for e in es]])
    if ok.any():
        ax.errorbar(elo[ok], y[ok], xerr=np.clip(err[:, ok], 0, None), fmt="o", capsize=4, color="#1f4e9c")
    if (~ok).any():
        ax.plot(elo[~ok], y[~ok], "o", mfc="white", color="#1f4e9c", label="no interval: too few pairs")
        ax.legend(loc="best", fontsize=8)
    ax.set_yticks(y, [e.name + (" †" if e.sequential else "") for e in es])
    ax.axvline(0, color="#999", lw=0.8)
    anchor = f", {rep.ratings.anchor} = 0" if rep.ratings.anchor else ", mean 0"
    ax.set_xlabel(f"Elo (Bradley-Terry{anchor}), {int(rep.ratings.level * 100)}% pair-bootstrap interval")
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
