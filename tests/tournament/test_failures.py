"""`cardwar tournament` failures are one line and exit status 2: never a traceback, never a hang.

Foreign databases, an unwritable --out (found before the first game), read-only media (read
fine with --report-only and `replay --list`), a wrong --ray-address (refused within about
30 s), flags that contradict each other, duplicate entrants, a name that would write outside
its folder; and the harmless cases: --allow-changed with no change, a resumed run that
prints no secret.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

from cardwar.tournament.config import TournamentConfigError, config_from_dict
from cardwar.tournament.runner import check_ray_address, run_tournament
from cardwar.tournament.store import Store
from tests.subprocesses import run_command

BASE = ["--game", "naval", "--entrant", "a=random", "--entrant", "b=random", "--pairs", "1", "--quiet",
        "--rounds", "10"]


def cardwar(*args: str, cwd: Path, timeout: float = 120,
            prefix: list[str] | None = None) -> subprocess.CompletedProcess:
    return run_command([*(prefix or []), sys.executable, "-m", "cardwar", *args], timeout=timeout, cwd=cwd)


def one_line_error(done: subprocess.CompletedProcess, message: str) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and len(lines) == 1, done.stderr[-2000:]
    assert message in lines[0], lines[0]
    return lines[0]


def _ro_argv(folder: Path) -> list[str]:
    """A prefix that runs a command with ``folder`` mounted read-only, in a mount namespace of its own."""
    return ["unshare", "-rm", "sh", "-c", 'mount --bind -o ro "$0" "$0" && exec "$@"', str(folder)]


@pytest.fixture(scope="module")
def read_only(tmp_path_factory):
    """``read_only(folder)``: the argv prefix under which ``folder`` is read-only media (root included)."""
    probe = tmp_path_factory.mktemp("ro")
    ok = shutil.which("unshare") is not None and subprocess.run(
        [*_ro_argv(probe), "sh", "-c", f'! touch "{probe}/x" 2>/dev/null'], capture_output=True).returncode == 0
    if ok:
        return _ro_argv
    if os.geteuid() != 0:  # no namespaces: plain permissions stop a user who is not root
        def chmod(folder: Path) -> list[str]:
            for p in [folder, *folder.rglob("*")]:
                p.chmod(0o555 if p.is_dir() else 0o444)
            return []
        return chmod
    pytest.skip("needs unshare (a private read-only mount) to make read-only media as root")


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _games(db: Path) -> int:
    with Store(db, readonly=True) as store:
        return sum(len(store.games(t)) for t in store.tournaments())


# ---------------------------------------------------------------- databases of other programs
def test_another_programs_database_is_refused_untouched(tmp_path):
    other = tmp_path / "birds.sqlite"
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE birds (name TEXT)")
    con.execute("CREATE TABLE games (name TEXT)")  # a table of our name, not ours
    con.commit()
    con.close()
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database at all\n" * 50)
    before = {db: _digest(db) for db in (other, text)}
    line = one_line_error(cardwar("tournament", *BASE, "--db", str(other), cwd=tmp_path),
                          "not a cardwar tournament database")
    assert f"{other}: not a cardwar tournament database (it holds the tables birds, games" in line
    one_line_error(cardwar("tournament", *BASE, "--db", str(text), "--report-only", cwd=tmp_path),
                   f"{text}: not a cardwar tournament database")
    for db in (other, text):
        for readonly in (False, True):
            with pytest.raises(ValueError, match="not a cardwar tournament database"):
                Store(db, readonly=readonly)
    one_line_error(cardwar("replay", "--db", str(other), "--list", cwd=tmp_path), "not a cardwar tournament database")
    assert {db: _digest(db) for db in (other, text)} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["birds.sqlite", "notes.sqlite"]


# ---------------------------------------------------------------- --out
def test_an_unwritable_out_folder_is_refused_before_the_first_game(tmp_path, read_only):
    locked = tmp_path / "locked"
    locked.mkdir()
    db = tmp_path / "t.sqlite"
    done = cardwar("tournament", *BASE, "--db", str(db), "--out", str(locked / "reports"), cwd=tmp_path,
                   prefix=read_only(locked))
    one_line_error(done, f"--out {locked / 'reports'}: cannot write the reports there")
    assert not db.exists()  # refused before the database was made, let alone a game played
    (tmp_path / "a_file").write_text("x")
    one_line_error(cardwar("tournament", *BASE, "--db", str(db), "--out", str(tmp_path / "a_file"), cwd=tmp_path),
                   "is a file")
    assert not db.exists()


# ---------------------------------------------------------------- read-only media
def test_a_finished_database_on_read_only_media_is_read(tmp_path, read_only):
    media = tmp_path / "media"
    media.mkdir()
    db = media / "t.sqlite"
    config = config_from_dict({"name": "naval-tournament", "game": "naval", "entrants": {"a": "random", "b": "random"},
                               "pairs": 1})
    with Store(db) as store:
        run_tournament(config, store)
    assert not Path(f"{db}-wal").exists()  # finished: the log is checkpointed away, the file stays in WAL mode
    assert db.read_bytes()[18:20] == b"\x02\x02"  # the header's read/write versions: 2 is WAL
    before = _digest(db)
    done = cardwar("tournament", *BASE, "--db", str(db), "--out", str(tmp_path / "again"), "--report-only",
                   cwd=tmp_path, prefix=read_only(media))
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2 games in 1 duplicate pairs" in (tmp_path / "again" / "report.md").read_text()
    done = cardwar("replay", "--db", str(db), "--list", cwd=tmp_path, prefix=read_only(media))
    assert done.returncode == 0 and "2 games" in done.stdout, done.stderr[-2000:]
    assert _digest(db) == before and sorted(os.listdir(media)) == ["t.sqlite"]  # the run lock is on the file itself
    # playing there is refused in one line
    one_line_error(cardwar("tournament", *BASE, "--pairs", "2", "--allow-changed", "--db", str(db), "--out",
                           str(tmp_path / "x"), cwd=tmp_path, prefix=read_only(media)), str(db))


def test_report_only_needs_an_existing_database_and_makes_none(tmp_path):
    one_line_error(cardwar("tournament", *BASE, "--db", str(tmp_path / "none.sqlite"), "--report-only",
                           cwd=tmp_path), "holds no tournament 'naval-tournament' (there is no such file)")
    assert not (tmp_path / "none.sqlite").exists()


# ---------------------------------------------------------------- Ray
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_wrong_ray_address_fails_at_once_in_one_line(tmp_path):
    pytest.importorskip("ray", reason="the ray extra is installed by ./dev.sh")
    port = _free_port()
    start = time.monotonic()
    done = cardwar("tournament", *BASE, "--backend", "ray", "--ray-address", f"127.0.0.1:{port}", "--db",
                   str(tmp_path / "t.sqlite"), cwd=tmp_path, timeout=60)
    one_line_error(done, f"--ray-address 127.0.0.1:{port}: nothing answers")
    assert time.monotonic() - start < 30


def test_a_ray_address_that_is_not_ray_fails_by_the_deadline():
    pytest.importorskip("ray", reason="the ray extra is installed by ./dev.sh")
    with socket.socket() as listener:  # accepts connections and never says a word
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        address = f"127.0.0.1:{listener.getsockname()[1]}"
        start = time.monotonic()
        with pytest.raises(ValueError, match=f"--ray-address {address}: "):
            check_ray_address(address, timeout=3)
        assert time.monotonic() - start < 12


def test_ray_address_without_the_ray_backend_is_an_error(tmp_path):
    one_line_error(cardwar("tournament", *BASE, "--ray-address", "127.0.0.1:6379", cwd=tmp_path),
                   "--ray-address names a Ray cluster for --backend ray")
    assert not list(tmp_path.iterdir())


# ---------------------------------------------------------------- configs and flags
def test_a_gauntlet_must_name_its_entrant(tmp_path):
    with pytest.raises(TournamentConfigError, match="format gauntlet plays one entrant against the field"):
        config_from_dict({"name": "g", "game": "naval", "format": "gauntlet",
                          "entrants": {"a": "random", "b": "random"}})
    cfg = tmp_path / "g.yaml"
    cfg.write_text(yaml.safe_dump({"name": "g", "game": "naval", "format": "gauntlet",
                                   "entrants": {"a": "random", "b": "random"}}))
    one_line_error(cardwar("tournament", str(cfg), cwd=tmp_path), "gauntlet: NAME")
    one_line_error(cardwar("tournament", *BASE, "--format", "gauntlet", cwd=tmp_path), "--gauntlet NAME")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.yaml"]


def test_an_entrant_named_twice_says_so(tmp_path):
    one_line_error(cardwar("tournament", *BASE, "--entrant", "a=heuristic", cwd=tmp_path),
                   "--entrant 'a' is given twice (random and heuristic)")
    cfg = tmp_path / "twice.yaml"
    cfg.write_text("name: t\ngame: naval\nentrants:\n  a: random\n  b: random\n  a: heuristic\n")
    one_line_error(cardwar("tournament", str(cfg), cwd=tmp_path), "'a' is given twice")


def test_a_name_cannot_write_outside_its_folder(tmp_path):
    for name in ["../escape", "sub/dir", "..", ".hidden", "back\\slash", "nul\x00l", "/abs"]:
        with pytest.raises(TournamentConfigError, match="must be a plain file name"):
            config_from_dict({"name": name, "game": "naval", "entrants": {"a": "random", "b": "random"}})
    work = tmp_path / "work"
    work.mkdir()
    one_line_error(cardwar("tournament", *BASE, "--name", "../escape", cwd=work), "must be a plain file name")
    assert not list(work.iterdir()) and sorted(p.name for p in tmp_path.iterdir()) == ["work"]


def test_allow_changed_without_a_change_and_a_resume_print_no_secret(tmp_path):
    db = tmp_path / "t.sqlite"
    first = cardwar("tournament", *BASE, "--db", str(db), cwd=tmp_path)
    assert first.returncode == 0, first.stderr[-2000:]
    again = cardwar("tournament", *BASE, "--db", str(db), "--allow-changed", cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
    assert "0 pairs played now, 1 already stored" in again.stderr
    with Store(db, readonly=True) as store:
        secret = store.secret("naval-tournament")
        assert secret and len(store.games("naval-tournament")) == 2
    reports = tmp_path / "tournaments" / "naval-tournament"
    for text in (first.stdout, first.stderr, again.stdout, again.stderr,
                 *(p.read_text(errors="replace") for p in reports.iterdir())):
        assert secret not in text
    one_line_error(cardwar("tournament", *BASE, "--db", str(db), "--reproducible-seeds", cwd=tmp_path),
                   "--reproducible-seeds would deal other games")


def test_a_changed_spec_on_the_command_line_names_the_entrant(tmp_path):
    db = tmp_path / "t.sqlite"
    with Store(db) as store:
        run_tournament(config_from_dict({"name": "naval-tournament", "game": "naval", "pairs": 1,
                                         "entrants": {"a": "random", "b": "random"}}), store)
    changed = ["--game", "naval", "--entrant", "b=random", "--entrant", "a=heuristic", "--pairs", "1", "--quiet",
               "--rounds", "10", "--db", str(db)]
    one_line_error(cardwar("tournament", *changed, cwd=tmp_path),
                   "entrant 'a' changed its spec: random -> heuristic; pass --allow-changed to enter it as a new "
                   "entrant")
    done = cardwar("tournament", *changed, "--allow-changed", cwd=tmp_path)
    assert done.returncode == 0 and "1 pairs played now, 0 already stored" in done.stderr, done.stderr[-2000:]
    assert _games(db) == 4
