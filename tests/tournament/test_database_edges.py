"""A tournament database at the edges a tournament organiser meets (issue 28 item 4).

- One run at a time holds the *file*: a symlink or a hard link to a database being played
  is refused like its own path, and SQLite closing a descriptor of the file in the same
  process does not drop the hold (as it would a plain POSIX lock).
- A file that cannot be written (``chattr +i``; a read-only file for a user who is not root)
  and a damaged one (a zeroed page) are one line and exit 2, ``--report-only`` too.
- A 0-byte file is started as a new tournament with a note saying so.
- Reports are replaced whole: a writer killed mid-write leaves the old files as they were.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from cardwar.tournament.config import config_from_dict
from cardwar.tournament.report import build_report, write_reports
from cardwar.tournament.runner import current_rows, run_tournament
from cardwar.tournament.store import Store
from tests.subprocesses import run_command

NAME = "naval-tournament"  # what --game naval names a tournament given by flags
BASE = ["--game", "naval", "--entrant", "a=random", "--entrant", "b=random", "--quiet", "--rounds", "10"]


def cardwar(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return run_command([sys.executable, "-m", "cardwar", *args], timeout=180, cwd=cwd)


def one_line_error(done: subprocess.CompletedProcess, *words: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr[-2000:]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _config(pairs: int):
    return config_from_dict({"name": NAME, "game": "naval", "entrants": {"a": "random", "b": "random"},
                             "pairs": pairs})


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    """A finished tournament of 6 pairs (12 games); tests copy it before they change it."""
    db = tmp_path_factory.mktemp("played") / "t.sqlite"
    with Store(db) as store:
        run_tournament(_config(6), store)
    return db


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


# ---------------------------------------------------------------- 1. one run at a time, by the file
@pytest.mark.parametrize("link", ["symlink", "another path"])
def test_a_second_name_of_a_database_being_played_is_refused(tmp_path, played, link):
    db = tmp_path / "t.sqlite"
    shutil.copy(played, db)
    other = tmp_path / "elsewhere" / "x.sqlite"
    other.parent.mkdir()
    if link == "symlink":
        other.symlink_to(db)
    else:
        other = Path("..") / tmp_path.name / "elsewhere" / ".." / "t.sqlite"  # relative, through a detour
    with Store(db) as holder, holder.running(NAME):
        with Store(db, readonly=True):  # SQLite opens and closes its own descriptors of the file here
            pass
        done = cardwar("tournament", *BASE, "--pairs", "7", "--allow-changed", "--db", str(other),
                       "--out", str(tmp_path / "out"), cwd=tmp_path)
        one_line_error(done, f"tournament {NAME!r}", f"is being played by pid {os.getpid()} on ")
        with Store(db, readonly=True) as store:  # the refused run played nothing
            assert len(store.games(NAME)) == 12
    done = cardwar("tournament", *BASE, "--pairs", "7", "--allow-changed", "--db", str(other),
                   "--out", str(tmp_path / "out"), cwd=tmp_path)  # once the first run is over, through the link
    assert done.returncode == 0, done.stderr[-2000:]
    with Store(db, readonly=True) as store:
        assert len(store.games(NAME)) == 14  # the one new pair, stored once in the one file
    assert not Path(f"{db}.lock").exists()


def test_a_hard_link_to_a_database_is_refused_by_either_name(tmp_path, played):
    """SQLite keeps the write-ahead log by name (it follows symlinks, not hard links): a database with two names
    is never written, whether a run holds it (the issue's case: the second run is refused) or not."""
    db = tmp_path / "t.sqlite"
    shutil.copy(played, db)
    other = tmp_path / "x.sqlite"
    args = [*BASE, "--pairs", "7", "--allow-changed", "--out", str(tmp_path / "out")]
    with Store(db) as holder, holder.running(NAME):
        os.link(db, other)
        one_line_error(cardwar("tournament", *args, "--db", str(other), cwd=tmp_path), "2 names (hard links)",
                       "copy it to a file of its own")
    for name in (db, other):
        one_line_error(cardwar("tournament", *args, "--db", str(name), cwd=tmp_path), f"{name}: the database file "
                       "has 2 names")
    done = cardwar("tournament", *BASE, "--pairs", "6", "--report-only", "--db", str(other),
                   "--out", str(tmp_path / "out"), cwd=tmp_path)  # reading through either name is fine
    assert done.returncode == 0, done.stderr[-2000:]
    other.unlink()
    assert cardwar("tournament", *args, "--db", str(db), cwd=tmp_path).returncode == 0
    with Store(db, readonly=True) as store:
        assert len(store.games(NAME)) == 14


def test_two_tournaments_in_one_database_are_played_at_once(tmp_path, played):
    """The hold is one byte per tournament: another tournament in the same file is not refused."""
    db = tmp_path / "t.sqlite"
    shutil.copy(played, db)
    with Store(db) as holder, holder.running(NAME):
        done = cardwar("tournament", *BASE, "--name", "other", "--pairs", "1", "--db", str(db),
                       "--out", str(tmp_path / "out"), cwd=tmp_path)
        assert done.returncode == 0, done.stderr[-2000:]


# ---------------------------------------------------------------- 2. a file that cannot be written, a damaged one
@pytest.fixture
def unwritable():
    """``unwritable(path)`` makes the file impossible to write for this user (``chattr +i`` as root, where root
    could write a read-only file; a read-only file otherwise); the attribute is taken off after the test."""
    made: list[Path] = []

    def make(path: Path) -> None:
        if os.geteuid() != 0:
            path.chmod(0o444)
            return
        if shutil.which("chattr") is None:
            pytest.skip("root ignores file permissions, and there is no chattr to make the file immutable")
        done = subprocess.run(["chattr", "+i", str(path)], capture_output=True, text=True)
        if done.returncode != 0:
            pytest.skip(f"this filesystem takes no immutable attribute: {done.stderr.strip()}")
        made.append(path)

    try:
        yield make
    finally:
        for path in made:
            subprocess.run(["chattr", "-i", str(path)], capture_output=True)


def test_a_database_that_cannot_be_written_is_one_line_and_is_read_with_report_only(tmp_path, played, unwritable):
    db = tmp_path / "t.sqlite"
    shutil.copy(played, db)
    unwritable(db)
    with pytest.raises(OSError):
        open(db, "r+b").close()  # noqa: SIM115 - the file really cannot be written
    before = _digest(db)
    done = cardwar("tournament", *BASE, "--pairs", "7", "--allow-changed", "--db", str(db),
                   "--out", str(tmp_path / "out"), cwd=tmp_path)
    one_line_error(done, f"{db}: cannot write the database", "--report-only")
    done = cardwar("tournament", *BASE, "--pairs", "6", "--report-only", "--db", str(db),
                   "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "12 games in 6 duplicate pairs" in (tmp_path / "out" / "report.md").read_text()
    assert _digest(db) == before


def _zero_page(db: Path, page: int) -> None:
    size = sqlite3.connect(db).execute("PRAGMA page_size").fetchone()[0]
    with open(db, "r+b") as f:
        f.seek((page - 1) * size)
        f.write(bytes(size))


def _page_of_games_root(db: Path) -> int:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT rootpage FROM sqlite_master WHERE name = 'games'").fetchone()[0]
    finally:
        con.close()


def _pages_inside_a_record(db: Path) -> list[int]:
    """The pages holding the middle of the longest game record (a table leaf or an overflow page; a free
    page may hold an old copy too)."""
    con = sqlite3.connect(db)
    try:
        size = con.execute("PRAGMA page_size").fetchone()[0]
        record = con.execute("SELECT record FROM games ORDER BY length(record) DESC LIMIT 1").fetchone()[0]
    finally:
        con.close()
    middle = record.encode()[len(record) // 2:len(record) // 2 + 200]
    data, pages, at = db.read_bytes(), [], 0
    while (at := data.find(middle, at)) >= 0:
        pages.append(at // size + 1)
        at += 1
    assert pages
    return pages


@pytest.mark.parametrize("where", ["the games table's root page", "a page inside a game record"])
def test_a_database_with_a_zeroed_page_is_one_line(tmp_path, played, where):
    db = tmp_path / "t.sqlite"
    shutil.copy(played, db)
    for page in [_page_of_games_root(db)] if where.startswith("the games") else _pages_inside_a_record(db):
        _zero_page(db, page)
    for extra in (["--pairs", "7", "--allow-changed"], ["--pairs", "6", "--report-only"]):
        done = cardwar("tournament", *BASE, *extra, "--db", str(db), "--out", str(tmp_path / "out"), cwd=tmp_path)
        one_line_error(done, f"{db}: the database is damaged", ".recover")


def test_damage_inside_a_value_is_named_by_its_game(tmp_path, played):
    """A value SQLite stores whole but whose bytes were zeroed (its pages' structure intact): the game is named."""
    db = tmp_path / "t.sqlite"
    shutil.copy(played, db)
    con = sqlite3.connect(db)
    gid, record = con.execute("SELECT id, record FROM games ORDER BY id LIMIT 1 OFFSET 3").fetchone()
    con.execute("UPDATE games SET record = ? WHERE id = ?", (record[:100] + "\x00" * 50 + record[150:], gid))
    con.commit()
    con.close()
    with Store(db, readonly=True) as store, pytest.raises(ValueError, match=f"damaged .*game {gid}: its game record"):
        store.games(NAME)
    one_line_error(cardwar("tournament", *BASE, "--pairs", "6", "--report-only", "--db", str(db),
                           "--out", str(tmp_path / "out"), cwd=tmp_path), f"game {gid}")


# ---------------------------------------------------------------- 4. a 0-byte file
def test_an_empty_file_is_started_as_new_with_a_note(tmp_path):
    db = tmp_path / "t.sqlite"
    db.touch()
    one_line_error(cardwar("tournament", *BASE, "--pairs", "1", "--report-only", "--db", str(db),
                           "--out", str(tmp_path / "out"), cwd=tmp_path), "it is an empty file: 0 bytes")
    assert db.stat().st_size == 0  # --report-only wrote nothing
    done = cardwar("tournament", *BASE, "--pairs", "1", "--db", str(db), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    notes = [line for line in done.stderr.splitlines() if "empty file" in line]
    assert notes == [f"note: {db} is an empty file (0 bytes): it is taken as a new tournament database"]
    with Store(db, readonly=True) as store:
        assert store.tournaments() == [NAME] and len(store.games(NAME)) == 2
    done = cardwar("tournament", *BASE, "--pairs", "1", "--db", str(db), "--out", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0 and "empty file" not in done.stderr  # no note once it holds the tournament


# ---------------------------------------------------------------- 3. reports replaced whole
def _report(db: Path, pairs: int):
    config = _config(pairs)
    with Store(db, readonly=True) as store:
        return build_report(config, current_rows(config, store), rounds=10)


def test_a_report_writer_that_fails_mid_write_leaves_the_old_files(tmp_path, played, monkeypatch):
    from cardwar.tournament import report as report_module

    out = tmp_path / "out"
    old_paths = write_reports(_report(played, 6), out)
    old = {p.name: p.read_bytes() for p in old_paths}
    real = report_module._plot_ratings

    def half_then_fail(rep, path):
        real(rep, path)
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(report_module, "_plot_ratings", half_then_fail)
    with pytest.raises(OSError):
        write_reports(_report(played, 3), out)  # another report: the files before the plot are replaced whole
    assert sorted(os.listdir(out)) == sorted(old)  # nothing half-written is left beside them
    assert (out / "ratings.png").read_bytes() == old["ratings.png"]
    assert (out / "crosstable.png").read_bytes() == old["crosstable.png"]
    assert "6 duplicate pairs" in old["report.md"].decode() and "3 duplicate pairs" in (out / "report.md").read_text()


KILLED_WRITER = r"""
import os, signal, sys
from pathlib import Path
from matplotlib.figure import Figure
from cardwar.tournament.config import config_from_dict
from cardwar.tournament.report import build_report, write_reports
from cardwar.tournament.runner import current_rows
from cardwar.tournament.store import Store

def killed_halfway(self, path, **kwargs):  # the plot is being written when kill -9 comes
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n")
        f.flush()
        os.kill(os.getpid(), signal.SIGKILL)

Figure.savefig = killed_halfway
config = config_from_dict({"name": sys.argv[3], "game": "naval", "entrants": {"a": "random", "b": "random"},
                           "pairs": 3})
with Store(sys.argv[1], readonly=True) as store:
    write_reports(build_report(config, current_rows(config, store), rounds=10), Path(sys.argv[2]))
"""


def test_a_report_writer_killed_mid_write_leaves_the_old_files_and_its_leftover_is_swept(tmp_path, played):
    out = tmp_path / "out"
    old = {p.name: p.read_bytes() for p in write_reports(_report(played, 6), out)}
    done = run_command([sys.executable, "-c", KILLED_WRITER, str(played), str(out), NAME], timeout=120)
    assert done.returncode == -9, done.stderr[-2000:]
    assert sorted(p.name for p in out.iterdir() if not p.name.startswith(".")) == sorted(old)
    for name in ("ratings.png", "crosstable.png"):  # the one being written when killed, and the one after it
        assert (out / name).read_bytes() == old[name], name
    assert "3 duplicate pairs" in (out / "report.md").read_text()  # the files before it were replaced whole
    leftovers = [p.name for p in out.iterdir() if p.name.startswith(".")]
    assert len(leftovers) == 1 and leftovers[0].startswith(".ratings.png.cardwar-tmp-"), leftovers
    write_reports(_report(played, 6), out)  # the next writer sweeps what the killed one left
    assert sorted(os.listdir(out)) == sorted(old)
    assert (out / "report.md").read_bytes() == old["report.md"]
