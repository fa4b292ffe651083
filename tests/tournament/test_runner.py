"""Tournaments: duplicate pairs with seats swapped, a store that survives kill -9, SPRT, Ray, reports."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from cardwar.cli.match import play_game
from cardwar.tournament.config import TournamentConfigError, config_from_dict
from cardwar.tournament.report import build_report, pairing_name, write_reports
from cardwar.tournament.runner import current_rows, run_tournament
from cardwar.tournament.schedule import schedule
from cardwar.tournament.store import ConfigChanged, Store
from tests.subprocesses import run_command


def _config(**extra):
    data = {"name": "t", "game": "naval", "entrants": {"random": "random", "heuristic": "heuristic:samples=4",
                                                        "h2": "heuristic:samples=2"},
            "pairs": 2, "seed": 10, **extra}
    return config_from_dict(data)


def test_every_pairing_plays_duplicate_pairs_on_the_same_seeds_with_seats_swapped(tmp_path):
    config = _config()
    jobs = schedule(config)
    assert len(jobs) == 3 * 2 and {(j.a, j.b) for j in jobs} == set(config.pairings())
    assert sorted({j.seed for j in jobs}) == [10, 11]  # pair k of every pairing plays seed + k
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(config, store)
        rows = current_rows(config, store)
        dealers = {(r.pairing, r.pair, r.game_in_pair): store.dealer("t", r) for r in rows}
    assert all(d.secret is not None for d in dealers.values())  # a new tournament draws its dealer's secret
    assert len(rows) == 12
    by_pair = {}
    for r in rows:
        by_pair.setdefault((r.pairing, r.pair), []).append(r)
    for (p, k), (g0, g1) in by_pair.items():
        assert g0.seed == g1.seed == 10 + k
        assert (g0.first, g0.second) == (g1.second, g1.first) and g0.game_in_pair == 0 and g1.game_in_pair == 1
        a, b = config.pairings()[p]
        assert (g0.first, g1.first) == (a, b)
        # each game is the very game `cardwar match` plays for these specs and seed, dealt as its pairing is
        dealer = dealers[(p, k, 0)]
        job = next(j for j in jobs if (j.pairing, j.pair) == (p, k))
        assert dealer == dealers[(p, k, 1)] and dealer.context == job.deal_context is not None
        for g in (g0, g1):
            returns = play_game("naval", g.first_spec, g.second_spec, g.seed, dealer=dealer)
            assert g.returns == returns and g.score_first == (1.0 if returns[0] > 0 else 0.0 if returns[0] < 0 else 0.5)


def test_a_changed_config_is_refused_unless_allowed(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(pairs=1), store)
        with pytest.raises(ConfigChanged, match="another config"):
            run_tournament(_config(pairs=2), store)
        summary = run_tournament(_config(pairs=2), store, allow_changed=True)
        assert (summary.already, summary.played) == (3, 3)


def test_sprt_stops_a_lopsided_gauntlet_pairing_early(tmp_path):
    config = config_from_dict({"name": "g", "game": "hexwar", "format": "gauntlet", "gauntlet": "heuristic",
                               "entrants": {"heuristic": "heuristic", "random": "random"}, "pairs": 40, "seed": 0,
                               "sprt": {"elo0": 0, "elo1": 400, "alpha": 0.05, "beta": 0.05}})
    with Store(tmp_path / "g.sqlite") as store:
        summary = run_tournament(config, store)
        rows = store.games("g")
    assert summary.sprt == {0: "H1"}
    assert len(rows) < 2 * 40  # stopped before the schedule's end
    rep = build_report(config, rows, rounds=50)
    assert rep.sprt[pairing_name("heuristic", "random")].decision == "H1"


def test_reports_are_written_and_rebuilt_from_the_database(tmp_path):
    config = _config()
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(config, store)
        rows = store.games("t")
    paths = write_reports(build_report(config, rows, rounds=50), tmp_path / "out")
    assert all(p.is_file() and p.stat().st_size > 0 for p in paths)
    text = (tmp_path / "out" / "report.md").read_text()
    assert "| random | 0 |" in text.replace("| 3 | random", "| random").replace("| 2 | random", "| random") or \
        "random | 0 " in text  # random is the anchor: Elo 0


def test_ray_backend_gives_the_same_rows_as_the_local_backend(tmp_path):
    pytest.importorskip("ray", reason="the ray extra is installed by ./dev.sh")
    config = _config(pairs=1)
    rows = {}
    for backend in ("local", "ray"):
        with Store(tmp_path / f"{backend}.sqlite") as store:
            run_tournament(config, store, workers=2, backend=backend, reproducible_seeds=True)  # same deals in both
            rows[backend] = sorted(r.comparable() for r in store.games("t"))
    assert rows["local"] == rows["ray"] and len(rows["local"]) == 6


def _count(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(str(db), timeout=30)
    try:
        return con.execute("SELECT COUNT(*) FROM games").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        con.close()


def test_a_tournament_killed_with_sigkill_resumes_with_exact_counts(tmp_path):
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({"name": "k", "game": "naval", "entrants": {"random": "random",
                                   "heuristic": "heuristic:samples=4"}, "pairs": 30, "seed": 0}))
    db = tmp_path / "k.sqlite"
    argv = [sys.executable, "-m", "cardwar", "tournament", str(cfg), "--db", str(db), "--out", str(tmp_path / "r"),
            "--workers", "2", "--quiet", "--rounds", "20"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        deadline = time.time() + 120
        while _count(db) < 8 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.1)
        assert proc.poll() is None, "finished before it could be killed"
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    stored = _count(db)
    assert 8 <= stored < 60 and stored % 2 == 0  # whole pairs only
    done = run_command(argv, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    with Store(db) as store:
        rows = store.games("k")
    keys = [(r.pairing, r.pair, r.game_in_pair) for r in rows]
    assert len(rows) == 60 and len(set(keys)) == 60  # none lost, none played twice
    assert f"{(60 - stored) // 2} pairs played now, {stored // 2} already stored" in done.stderr


@pytest.mark.parametrize("data, message", [
    ({"game": "naval", "entrants": {"a": "random", "b": "random"}}, "name"),
    ({"name": "x", "game": "chess", "entrants": {"a": "random"}}, "expected one of naval, hexwar, skirmish"),
    ({"name": "x", "game": "naval", "entrants": {"a": "random"}}, "at least two"),
    ({"name": "x", "game": "naval", "entrants": {"a": "random", "b": "heuristic:samples=0"}}, "entrants.b"),
    ({"name": "x", "game": "naval", "entrants": {"a": "random", "b": "random"}, "pairs": 0}, "pairs"),
    ({"name": "x", "game": "naval", "entrants": {"a": "random", "b": "random"}, "sprt": {"elo0": 0, "elo1": 5}},
     "gauntlet"),
    ({"name": "x", "game": "hexwar", "entrants": {"a": "random", "b": "random"}, "scenarios": ["nowhere"]},
     "nowhere"),
    ({"name": "x", "game": "naval", "entrants": {"a": "random", "b": "random"}, "pair": 3}, "did you mean 'pairs'"),
])
def test_a_broken_config_is_one_clear_line(data, message):
    with pytest.raises(TournamentConfigError, match=message) as err:
        config_from_dict(data)
    assert "\n" not in str(err.value)
