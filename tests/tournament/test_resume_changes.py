"""Real processes on one database: a second run of a tournament is refused in one line, the lock of a run
killed with ``kill -9`` goes with it, and the resumed run (its entrants reordered) plays exactly the missing pairs.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import yaml

from cardwar.tournament.config import load_config
from cardwar.tournament.runner import current_rows
from cardwar.tournament.store import Store
from tests.subprocesses import run_command

ENTRANTS = {"r1": "random", "r2": "random", "r3": "random"}


def _query(db: Path, sql: str, default):
    if not db.exists():
        return default
    con = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=30)
    try:
        return con.execute(sql).fetchone()
    except sqlite3.OperationalError:
        return default
    finally:
        con.close()


def _write(path: Path, entrants: dict, pairs: int, name: str = "k") -> Path:
    path.write_text(yaml.safe_dump({"name": name, "game": "naval", "entrants": entrants, "pairs": pairs, "seed": 0,
                                    "time": {"move_ms": 60_000}}, sort_keys=False))
    return path


def _argv(cfg: Path, db: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "cardwar", "tournament", str(cfg), "--db", str(db), "--out", str(out), "--quiet",
            "--rounds", "10"]


def test_a_second_run_is_refused_and_the_lock_of_a_killed_run_goes_with_it(tmp_path):
    db = tmp_path / "k.sqlite"
    cfg = _write(tmp_path / "k.yaml", ENTRANTS, pairs=30)  # 90 pairs, 180 games
    first = subprocess.Popen(_argv(cfg, db, tmp_path / "r"), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
    try:
        deadline = time.time() + 120
        while time.time() < deadline and first.poll() is None and (
                _query(db, f"SELECT pid FROM runs WHERE pid = {first.pid}", None) is None
                or _query(db, "SELECT COUNT(*) FROM games", (0,))[0] < 6):
            time.sleep(0.05)
        assert first.poll() is None, "finished before it could be stopped"
        os.killpg(first.pid, signal.SIGSTOP)  # holds its lock, plays no more while the second run tries
        second = run_command(_argv(cfg, db, tmp_path / "r2"), timeout=120)
        lines = second.stderr.strip().splitlines()
        assert second.returncode == 2 and len(lines) == 1 and "Traceback" not in second.stderr, second.stderr
        assert f"tournament 'k' in {db} is being played by pid {first.pid} on " in lines[0]
        os.killpg(first.pid, signal.SIGKILL)  # kill -9: no clean-up runs
        first.wait()
    finally:
        try:
            os.killpg(first.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        first.wait()
    stored = _query(db, "SELECT COUNT(*) FROM games", (0,))[0]
    assert 6 <= stored < 180 and stored % 2 == 0  # whole pairs only
    assert _query(db, "SELECT pid FROM runs", None) == (first.pid,)  # its row is left; its lock is not
    # the same tournament with its entrants in another order: resumes, plays only what is missing
    reordered = _write(tmp_path / "k2.yaml", {k: ENTRANTS[k] for k in ("r3", "r1", "r2")}, pairs=30)
    done = run_command(_argv(reordered, db, tmp_path / "r3"), timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert f"{(180 - stored) // 2} pairs played now, {stored // 2} already stored" in done.stderr
    config = load_config(reordered)
    with Store(db) as store:
        rows = store.games("k")
        current = current_rows(config, store)
        assert store.db.execute("SELECT COUNT(*) FROM runs").fetchone()[0] == 0  # a finished run clears its row
    assert len(rows) == 180 and len({r.key for r in rows}) == 180 and len(current) == 180
    assert "180 games in 90 duplicate pairs" in (tmp_path / "r3" / "report.md").read_text()


def test_one_database_holds_two_tournaments_played_at_once_but_each_by_one_run(tmp_path):
    db = tmp_path / "two.sqlite"
    cfg_t = _write(tmp_path / "t.yaml", {"a": "random", "b": "random"}, pairs=1, name="t")
    cfg_u = _write(tmp_path / "u.yaml", {"a": "random", "b": "random"}, pairs=1, name="u")
    with Store(db) as store, store.running("t"):  # this test process plays "t" now
        busy = run_command(_argv(cfg_t, db, tmp_path / "rt"), timeout=120)
        other = run_command(_argv(cfg_u, db, tmp_path / "ru"), timeout=120)
    assert busy.returncode == 2 and f"is being played by pid {os.getpid()}" in busy.stderr, busy.stderr
    assert len(busy.stderr.strip().splitlines()) == 1
    assert other.returncode == 0, other.stderr[-2000:]
    done = run_command(_argv(cfg_t, db, tmp_path / "rt"), timeout=120)  # released: now it runs
    assert done.returncode == 0, done.stderr[-2000:]
    with Store(db, readonly=True) as store:
        assert {t: len(store.games(t)) for t in store.tournaments()} == {"u": 2, "t": 2}
