"""The result store: every finished game is a row in SQLite, written so that a killed run loses nothing.

A game's identity is its content, never its position in a schedule: the key of a game
(:func:`game_key`) hashes the two entrants in their seats (display name and spec), the
pair's seed, the scenario and the conditions it was played under (game, rules, clock).
``UNIQUE (tournament, game_key)`` makes a game impossible to store twice, however the
entrants are ordered, added or removed between runs. A pair's two games (same seed,
seats swapped) are written in one transaction, so the database only ever holds whole
pairs; a tournament killed with ``kill -9`` resumes by playing the pairs whose keys are
missing.

A tournament is played by one process at a time: :meth:`Store.running` takes a lock that
the kernel drops when its process ends (``kill -9`` included) and a second run is refused
in one line naming the first. Each tournament keeps its dealer's secret
(:mod:`cardwar.arena.seeds`) and how it deals (:data:`SEEDS`) here, so a resume deals the
same games as the first run.

Databases written before game keys existed are migrated when first opened for writing
(the keys are computed for the stored rows); one opened read-only (``--report-only``,
``cardwar replay --list``, a database on read-only media) is migrated in memory and never
written. As fastchess keeps its results apart from its scheduler and its reporter, this
module knows nothing of how games are played.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import socket
import sqlite3
import struct
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardwar.record import GameRecord

SCHEMA_VERSION = 2  # PRAGMA user_version: 0 = before game keys and secrets

TOURNAMENTS = """
CREATE TABLE IF NOT EXISTS tournaments (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,            -- the resolved config as JSON
    config_hash TEXT NOT NULL,
    created REAL NOT NULL,
    secret TEXT,                     -- the dealer's secret (hex); NULL: reproducible (or legacy) seeds
    seeds TEXT NOT NULL DEFAULT 'legacy'  -- pairing / keyed / reproducible / legacy (see SEEDS)
)"""

GAMES = """
CREATE TABLE IF NOT EXISTS {table} (
    id INTEGER PRIMARY KEY,
    tournament TEXT NOT NULL REFERENCES tournaments(name),
    game_key TEXT,                   -- the game's identity (game_key()); NULL: a duplicate kept by the migration
    pairing INTEGER NOT NULL,        -- where the schedule had it when it was played (informative only)
    pair INTEGER NOT NULL,
    game_in_pair INTEGER NOT NULL,   -- 0: entrant a takes the first seat, 1: seats swapped
    seed INTEGER NOT NULL,           -- the pair's seed (the dealer keys the deal with the secret)
    scenario TEXT,
    first TEXT NOT NULL,             -- entrant (display name) in the first seat
    second TEXT NOT NULL,
    first_spec TEXT NOT NULL,
    second_spec TEXT NOT NULL,
    score_first REAL NOT NULL,       -- 1 win, 0.5 draw, 0 loss, for the first seat
    returns TEXT NOT NULL,           -- JSON [first, second]
    length INTEGER NOT NULL,         -- moves played
    move_times TEXT NOT NULL,        -- JSON list of seconds, one per move, in order
    forfeit_seat INTEGER,            -- 0 / 1 / NULL
    forfeit_reason TEXT,             -- error / timeout / illegal / NULL
    forfeit_detail TEXT,
    record TEXT NOT NULL,            -- the game record (cardwar.record format)
    finished REAL NOT NULL,
    UNIQUE (tournament, game_key)
)"""

RUNS = """
CREATE TABLE IF NOT EXISTS runs (
    tournament TEXT PRIMARY KEY,     -- who holds (or last held) the tournament's lock: for the refusal's message
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    started REAL NOT NULL
)"""

SEEDS = {
    "pairing": "a secret; each pairing is dealt its own games (the deal is keyed by the pairing too)",
    "keyed": "a secret; every pairing is dealt the pair seed's one deal (--shared-deals; every keyed "
             "tournament stored before deals were per pairing)",
    "reproducible": "no secret; the plain pair seeds, shared by every pairing (--reproducible-seeds)",
    "legacy": "no secret; the plain pair seeds (stored before secrets existed)",
}
"""How a tournament is dealt (the ``seeds`` column), fixed when it is created: a resume deals as its games were
dealt. Only ``pairing`` keeps an engine from meeting a deal twice by itself; under the others, which share
deals, :func:`cardwar.players.seat_player` gives a deal an engine process has seen to another process."""

_GAME_COLUMNS = ("tournament, game_key, pairing, pair, game_in_pair, seed, scenario, first, second, first_spec, "
                 "second_spec, score_first, returns, length, move_times, forfeit_seat, forfeit_reason, "
                 "forfeit_detail, record, finished")
_OURS = {"games": {"tournament", "pairing", "pair", "game_in_pair", "seed", "first", "second", "first_spec",
                   "second_spec", "score_first", "record"},
         "tournaments": {"name", "config", "config_hash", "created"}}


def conditions(config: dict[str, Any]) -> dict[str, Any]:
    """What every game of a tournament is played under, from its config as a dict: game, rules, clock.

    The rules are every option in force (``{}`` and the defaults spelled out are the same games), as a
    game record holds them, so a migrated game is keyed by the rules it was played under.
    """
    game, rules = config.get("game"), config.get("rules") or {}
    return {"game": game, "rules": json.loads(_rules_in_force(game, json.dumps(rules, sort_keys=True))),
            "move_ms": config.get("move_ms"), "game_ms": config.get("game_ms")}


@lru_cache(maxsize=64)
def _rules_in_force(game: str | None, rules: str) -> str:
    """Every rule option of ``game`` given the options set in ``rules`` (JSON), as JSON; unchanged if unknown."""
    try:
        from cardwar.envs import make_raw_env

        return json.dumps(make_raw_env(game, None, json.loads(rules)).config.to_dict(), sort_keys=True)
    except Exception:  # noqa: BLE001 - a game or rules this version cannot build: keyed as written
        return rules


def game_key(first: str, first_spec: str, second: str, second_spec: str, seed: int, scenario: str | None,
             conds: dict[str, Any]) -> str:
    """A game's identity: a hash of the canonical JSON of who sits where (name and spec), seed, scenario, conditions."""
    payload = {"first": [first, first_spec], "second": [second, second_spec], "seed": int(seed),
               "scenario": scenario, "conditions": conds}
    text = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class GameRow:
    """One finished game as stored."""

    pairing: int
    pair: int
    game_in_pair: int
    seed: int
    scenario: str | None
    first: str
    second: str
    first_spec: str
    second_spec: str
    score_first: float
    returns: list[float]
    length: int
    move_times: list[float]
    forfeit_seat: int | None
    forfeit_reason: str | None
    forfeit_detail: str | None
    record: str
    id: int | None = None
    key: str | None = None  # set by the store (game_key)

    def comparable(self) -> tuple:
        """Everything but the timings (which differ between runs and backends)."""
        rec = json.loads(self.record)
        rec.pop("cardwar_version", None)
        return (self.pairing, self.pair, self.game_in_pair, self.seed, self.scenario, self.first, self.second,
                self.score_first, tuple(self.returns), self.length, self.forfeit_seat, self.forfeit_reason,
                json.dumps(rec, sort_keys=True))

    def key_under(self, conds: dict[str, Any]) -> str:
        return game_key(self.first, self.first_spec, self.second, self.second_spec, self.seed, self.scenario, conds)


class ConfigChanged(ValueError):
    """The tournament exists with another config."""


class TournamentBusy(ValueError):
    """Another process is playing the tournament now."""


def _tables(con: sqlite3.Connection) -> set[str]:
    return {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
            if not r[0].startswith("sqlite_")}


def _columns(con: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in con.execute(f"PRAGMA table_info({table})")}


def _describe(err: BaseException) -> str:
    return str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__


def damaged(path: Path | str, text: str) -> str:
    """The one line for a database SQLite finds damaged (a zeroed page, a torn write), with what to do."""
    return (f"{path}: the database is damaged ({text}); restore it from a copy, or save what SQLite can still "
            f"read with `sqlite3 {path} .recover | sqlite3 NEW.sqlite` and use NEW.sqlite")


def _empty_file(path: Path) -> bool:
    """``path`` is a file of 0 bytes with no write-ahead log holding anything (a ``touch``, or a run killed
    before its first write): SQLite takes it as a new database."""
    try:
        if not path.is_file() or path.stat().st_size:
            return False
        wal = Path(f"{path}-wal")
        return not wal.exists() or wal.stat().st_size == 0
    except OSError:
        return False


def _one_name(path: Path, fd: int) -> None:
    """Refuse to write a database file that has other names (hard links), in one line.

    SQLite keeps a database's write-ahead log and its index beside the name it was opened by
    (it follows symbolic links, not hard links): what a run writes through one name is not seen
    through another until it is checkpointed, a run killed with its log unmerged leaves games the
    other name never sees, and two names written at once damage the file (sqlite.org, "How To
    Corrupt An SQLite Database File", 2.5). A symbolic link is fine."""
    links = os.fstat(fd).st_nlink
    if links > 1:
        raise ValueError(f"{path}: the database file has {links} names (hard links), and SQLite keeps its write-ahead "
                         "log by name, so games written through one name are not seen through another and the file "
                         "can be damaged; play it under one name: copy it to a file of its own (cp) or remove the "
                         "other links (a symbolic link is fine)")


_LOCK_BASE = 1 << 40
"""Run locks sit at this offset of the database file plus a byte per tournament: far past SQLite's own lock
bytes (at 1 GiB) and past any database it writes, so they never meet."""

_OFD_LOCKS = sys.platform.startswith("linux") and sys.maxsize > 2**32
"""Open-file-description locks, through the 64-bit Linux ``struct flock`` (type, whence, start, len, pid)."""


def _flock(kind: int, offset: int) -> bytes:
    """A ``struct flock`` for one byte at ``offset`` (``l_pid`` 0, as ``F_OFD_SETLK`` requires)."""
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, offset, 1, 0)


class Store:
    """A tournament database (one file may hold several tournaments).

    ``readonly``: open without writing anything (``mode=ro``, or ``immutable=1`` where the
    folder cannot take SQLite's shared-memory file, e.g. read-only media); a database of
    the old layout is then migrated in a copy in memory.
    """

    def __init__(self, path: str | Path, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        self._file: int | None = None  # the database file itself, open for writing: what run locks are taken on
        self._held: list[int] = []  # the lock bytes this Store holds on it (one per tournament being played)
        self._lock_fd: int | None = None  # <database>.lock, where the kernel has no open-file-description locks
        self.empty = _empty_file(self.path)
        """The file was there with nothing in it (0 bytes, no write-ahead log): taken as a new database."""
        try:
            self.db = self._open_readonly() if readonly else self._open_writable()
        except sqlite3.DatabaseError as err:
            self._close_file()
            raise ValueError(self._open_error(err)) from None
        except BaseException:
            self._close_file()
            raise

    # ------------------------------------------------------------ opening
    def _open_error(self, err: sqlite3.DatabaseError) -> str:
        text = _describe(err)
        if "malformed" in text or "corrupt" in text:
            return damaged(self.path, text)
        if "not a database" in text:
            return f"{self.path}: not a cardwar tournament database ({text})"
        folder = self.path.parent if str(self.path.parent) else Path(".")
        if "readonly" in text or "read-only" in text or (folder.is_dir() and not os.access(folder, os.W_OK)):
            return (f"{self.path}: cannot write the database ({text}); --report-only and `cardwar replay --list` "
                    "read it without writing")
        return f"{self.path}: cannot open the database ({text})"

    def _open_writable(self) -> sqlite3.Connection:
        if self.path.is_dir():
            raise ValueError(f"{self.path} is a folder; give a database file name")
        if not self.path.parent.exists():
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as err:
                raise ValueError(f"{self.path}: cannot make its folder ({err.strerror or err})") from None
        if self.path.exists():
            self._file = self._open_file()  # a file we may not write (chattr +i, read-only): one line, now
            _one_name(self.path, self._file)
        con = sqlite3.connect(str(self.path), timeout=30, isolation_level=None)
        try:
            if self._recognise(con):  # before anything is written: another program's file stays untouched
                self._check_intact(con)  # and a damaged one is refused before a game is played
            con.execute("PRAGMA journal_mode=WAL")
            if self._file is None:
                self._file = self._open_file()
            self._prepare(con)
        except BaseException:
            con.close()
            raise
        return con

    def _open_readonly(self) -> sqlite3.Connection:
        if not self.path.exists():
            raise ValueError(f"{self.path}: no such file")
        if self.path.is_dir():
            raise ValueError(f"{self.path} is a folder, not a tournament database")
        uri = self.path.resolve().as_uri()
        try:
            con = sqlite3.connect(f"{uri}?mode=ro", uri=True, timeout=30, isolation_level=None)
            try:
                con.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.OperationalError:
                con.close()
                raise
        except sqlite3.OperationalError as err:
            # A WAL database reads with mode=ro only where SQLite can make its -shm file; on read-only
            # media it reads as immutable, which is exact when no write-ahead log is left over.
            wal = Path(f"{self.path}-wal")
            if wal.exists() and wal.stat().st_size > 0:
                raise ValueError(f"{self.path}: cannot read it read-only ({_describe(err)}), and its write-ahead log "
                                 f"{wal.name} holds writes not yet in the database; copy both files to a writable "
                                 "folder and read the copy") from None
            con = sqlite3.connect(f"{uri}?immutable=1", uri=True, isolation_level=None)
        try:
            tables = self._recognise(con)
            if tables:
                self._check_intact(con)
            if tables and con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:
                mem = sqlite3.connect(":memory:", isolation_level=None)
                con.backup(mem)
                con.close()
                con = mem
                self._migrate(con)
            elif not tables:  # an empty file: no tournaments, read as an empty database
                con.close()
                con = sqlite3.connect(":memory:", isolation_level=None)
                self._prepare(con)
        except BaseException:
            con.close()
            raise
        return con

    def _open_file(self) -> int:
        """The database file opened for writing (one line if it cannot be: immutable, read-only, read-only media).

        SQLite itself would open such a file read-only without a word and fail at the first write."""
        try:
            return os.open(self.path, os.O_RDWR)
        except OSError as err:
            raise ValueError(f"{self.path}: cannot write the database ({err.strerror or err}); --report-only and "
                             "`cardwar replay --list` read it without writing") from None

    def _close_file(self) -> None:
        if self._file is not None:
            os.close(self._file)  # closing the file drops its open-file-description locks
            self._file = None
            self._held.clear()

    def _check_intact(self, con: sqlite3.Connection) -> None:
        """SQLite's ``quick_check`` of every page's structure (a zeroed page, a torn file): one line if it fails.

        It reads the whole file once (about 1.5 s for 120 MB from a cold disk, 35 ms cached); damage inside a
        value that leaves the structure whole is found when the value is read (:meth:`_rows`)."""
        try:
            found = [r[0] for r in con.execute("PRAGMA quick_check(3)")]
        except sqlite3.DatabaseError as err:
            raise ValueError(damaged(self.path, _describe(err))) from None
        if found != ["ok"]:
            raise ValueError(damaged(self.path, "; ".join(" ".join(f.split()) for f in found)[:300]))

    def _recognise(self, con: sqlite3.Connection) -> set[str]:
        """Our tables, or a one-line refusal for another program's database (nothing is written)."""
        tables = _tables(con)
        if not tables:
            return tables
        missing = [t for t, cols in _OURS.items() if t not in tables or not cols <= _columns(con, t)]
        if missing:
            raise ValueError(f"{self.path}: not a cardwar tournament database (it holds the tables "
                             f"{', '.join(sorted(tables))}, not cardwar's)")
        return tables

    def _prepare(self, con: sqlite3.Connection) -> None:
        """Create the tables of a new database, or migrate an old one, in one write transaction."""
        if con.execute("PRAGMA user_version").fetchone()[0] >= SCHEMA_VERSION:
            return
        con.execute("BEGIN IMMEDIATE")
        try:
            if con.execute("PRAGMA user_version").fetchone()[0] < SCHEMA_VERSION:  # another process may have won
                if _tables(con):
                    self._migrate(con, transaction=False)
                else:
                    for ddl in (TOURNAMENTS, GAMES.format(table="games"), RUNS):
                        con.execute(ddl)
                    con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            con.execute("COMMIT")
        except BaseException:
            con.execute("ROLLBACK")
            raise

    @staticmethod
    def _migrate(con: sqlite3.Connection, transaction: bool = True) -> None:
        """Version 0 -> 2: a secret and seed mode per tournament, a content key per game (UNIQUE), the runs table.

        Old tournaments keep ``seeds = 'legacy'`` (secret NULL): they were dealt from reproducible seeds.
        A row whose key another row already has (a game the old positional matching played twice) is
        kept with key NULL: stored, listed by ``replay --list``, never counted.
        """
        if transaction:
            con.execute("BEGIN")
        try:
            cols = _columns(con, "tournaments")
            if "secret" not in cols:
                con.execute("ALTER TABLE tournaments ADD COLUMN secret TEXT")
            if "seeds" not in cols:
                con.execute("ALTER TABLE tournaments ADD COLUMN seeds TEXT NOT NULL DEFAULT 'legacy'")
            if "game_key" not in _columns(con, "games"):
                conds = {name: conditions(json.loads(cfg))
                         for name, cfg in con.execute("SELECT name, config FROM tournaments")}
                con.execute("DROP TABLE IF EXISTS games_v2")
                con.execute(GAMES.format(table="games_v2"))
                seen: set[tuple[str, str]] = set()
                old = con.execute(
                    "SELECT id, tournament, pairing, pair, game_in_pair, seed, scenario, first, second, first_spec, "
                    "second_spec, score_first, returns, length, move_times, forfeit_seat, forfeit_reason, "
                    "forfeit_detail, record, finished FROM games ORDER BY id").fetchall()
                for r in old:  # keyed by the rules its record says it was played under, the clock of the config
                    played = conds.get(r[1], conditions({}))
                    try:
                        played = conditions({**played, "rules": json.loads(r[18]).get("rules") or {}})
                    except (ValueError, AttributeError):
                        pass
                    key = game_key(r[7], r[9], r[8], r[10], r[5], r[6], played)
                    if (r[1], key) in seen:
                        key = None
                    else:
                        seen.add((r[1], key))
                    con.execute(f"INSERT INTO games_v2 (id, {_GAME_COLUMNS}) VALUES "
                                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                                (r[0], r[1], key, *r[2:]))
                con.execute("DROP TABLE games")
                con.execute("ALTER TABLE games_v2 RENAME TO games")
            con.execute(RUNS)
            con.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            if transaction:
                con.execute("COMMIT")
        except BaseException:
            if transaction:
                con.execute("ROLLBACK")
            raise

    def close(self) -> None:
        self._unlock()
        self.db.close()
        self._close_file()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @contextmanager
    def _write(self) -> Iterator[None]:
        """One write transaction (BEGIN IMMEDIATE: the write lock is taken at once, or waited for)."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    # ------------------------------------------------------------ one run at a time
    @contextmanager
    def running(self, tournament: str) -> Iterator[None]:
        """Hold ``tournament`` for this process while the block runs; a second process is refused in one line.

        The lock is on the database file itself, so it is the file that is held, whatever path
        names it (a symlink, a hard link, another relative path): an open-file-description lock
        (Linux ``F_OFD_SETLK``) on one byte chosen by the tournament's name, far past any byte
        SQLite locks. The kernel drops it when the process ends, ``kill -9`` included, so a
        stale lock cannot outlive its run; SQLite closing its own descriptors of the file does
        not drop it (as it would a plain POSIX lock). Where the kernel has no such locks, a
        POSIX lock on ``<database>.lock`` is taken instead (keyed by the path, not the file).
        The ``runs`` row only names the holder for the refusal's message.
        """
        try:
            import fcntl  # noqa: F401
        except ImportError:  # no POSIX locks (Windows): one run at a time is up to the user
            yield
            return
        offset = int(hashlib.sha256(tournament.encode()).hexdigest()[:7], 16)
        if not self._lock(offset):
            row = self.db.execute("SELECT pid, host, started FROM runs WHERE tournament = ?", (tournament,)).fetchone()
            who = "another process" if row is None else \
                f"pid {row[0]} on {row[1]} (since {time.strftime('%Y-%m-%d %H:%M:%S', time.localtime(row[2]))})"
            raise TournamentBusy(f"tournament {tournament!r} in {self.path} is being played by {who}; wait for it "
                                 "to finish or stop it (its lock goes with its process), then run this again")
        try:
            with self._write():
                self.db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?)",
                                (tournament, os.getpid(), socket.gethostname(), time.time()))
            yield
        finally:
            try:
                with self._write():
                    self.db.execute("DELETE FROM runs WHERE tournament = ? AND pid = ?", (tournament, os.getpid()))
            except sqlite3.Error:
                pass
            self._unlock(offset)

    def _lock(self, offset: int) -> bool:
        """Take the run lock at ``offset``: True if taken, False if another open file holds it."""
        import fcntl

        if self._file is not None and _OFD_LOCKS:
            try:
                fcntl.fcntl(self._file, fcntl.F_OFD_SETLK, _flock(fcntl.F_WRLCK, _LOCK_BASE + offset))
            except OSError as err:
                if err.errno in (errno.EAGAIN, errno.EACCES):
                    return False
                if err.errno not in (errno.EINVAL, errno.ENOLCK, errno.EOPNOTSUPP):
                    raise ValueError(f"{self.path}: cannot lock the database ({err.strerror or err})") from None
            else:
                self._held.append(offset)
                return True
        lock_path = Path(f"{self.path}.lock")  # no open-file-description locks here: the old way, by path
        try:
            fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as err:
            raise ValueError(f"{lock_path}: cannot make the tournament's lock file ({err.strerror or err})") from None
        try:
            fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1, offset)
        except OSError:
            os.close(fd)
            return False
        self._lock_fd = fd
        return True

    def _unlock(self, offset: int | None = None) -> None:
        """Drop the run lock (all of this Store's, by default), here and in any forked copy of the descriptor."""
        import fcntl

        for held in [o for o in self._held if offset is None or o == offset]:
            self._held.remove(held)
            if self._file is not None:
                try:
                    fcntl.fcntl(self._file, fcntl.F_OFD_SETLK, _flock(fcntl.F_UNLCK, _LOCK_BASE + held))
                except OSError:
                    pass
        if self._lock_fd is not None:
            os.close(self._lock_fd)  # closing the file drops its record locks
            self._lock_fd = None

    # ------------------------------------------------------------ tournaments
    def open_tournament(self, name: str, config: dict[str, Any], config_hash: str, allow_changed: bool = False,
                        reproducible: bool = False, shared_deals: bool = False) -> bool:
        """Register ``name`` (True if new), drawing its dealer's secret; a changed config is refused unless allowed.

        A new tournament deals each pairing its own games (``seeds`` ``pairing``); ``shared_deals``:
        every pairing the pair seed's one deal (``keyed``); ``reproducible``: from the plain seeds, no
        secret (shared too). A tournament keeps the way it was dealt (:data:`SEEDS`): resuming it
        with ``reproducible`` where it has a secret (or the reverse), or ``shared_deals`` where its
        deals are per pairing, is refused, since it would deal other games under the same keys. One
        stored before secrets existed (``legacy``), or before deals were per pairing (``keyed``),
        goes on as it was dealt without a flag.
        """
        from cardwar.arena.seeds import new_secret

        with self._write():
            row = self.db.execute("SELECT config, config_hash, seeds FROM tournaments WHERE name = ?",
                                  (name,)).fetchone()
            if row is None:
                secret = None if reproducible else new_secret()
                seeds = "reproducible" if reproducible else "keyed" if shared_deals else "pairing"
                self.db.execute("INSERT INTO tournaments (name, config, config_hash, created, secret, seeds) "
                                "VALUES (?, ?, ?, ?, ?, ?)",
                                (name, json.dumps(config, sort_keys=True), config_hash, time.time(), secret, seeds))
                return True
            seeds = row[2]
            if seeds not in SEEDS:
                raise ValueError(f"tournament {name!r} in {self.path} is dealt in a way this cardwar does not know "
                                 f"(seeds {seeds!r}); a newer cardwar made it: resume it with that one")
            if seeds in ("keyed", "pairing") and reproducible:
                raise ValueError(f"tournament {name!r} in {self.path} deals from a secret it keeps; "
                                 "--reproducible-seeds would deal other games: leave it out to go on")
            if seeds == "reproducible" and not reproducible:
                raise ValueError(f"tournament {name!r} in {self.path} was started with --reproducible-seeds; "
                                 "add it to go on")
            if seeds == "pairing" and shared_deals:
                raise ValueError(f"tournament {name!r} in {self.path} deals each pairing its own games; "
                                 "--shared-deals would deal other games: leave it out to go on")
            if row[1] != config_hash:
                from cardwar.tournament.config import describe_changes

                changes = describe_changes(json.loads(row[0]), config)
                if changes and not allow_changed:
                    what = "; ".join(text for _, text in changes)
                    hint = ("pass --allow-changed to enter it as a new entrant (its games under the old spec stay "
                            "stored and leave the report)" if [k for k, _ in changes] == ["spec"] else
                            "pass --allow-changed to go on with the new config (games no longer in it stay stored "
                            "and leave the report)")
                    raise ConfigChanged(f"tournament {name!r} in {self.path} was started with another config: "
                                        f"{what}; {hint}")
                self.db.execute("UPDATE tournaments SET config = ?, config_hash = ? WHERE name = ?",
                                (json.dumps(config, sort_keys=True), config_hash, name))
        return False

    def secret(self, name: str) -> str | None:
        """The tournament's dealer's secret (None: reproducible or legacy seeds). Never printed during a run."""
        row = self.db.execute("SELECT secret FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else row[0]

    def seeds(self, name: str) -> str | None:
        """How the tournament is dealt: ``pairing``, ``keyed``, ``reproducible`` or ``legacy`` (:data:`SEEDS`)."""
        row = self.db.execute("SELECT seeds FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else row[0]

    def dealer(self, name: str, row: GameRow):
        """The dealer (:class:`~cardwar.arena.seeds.Dealer`) of a stored game of ``name``: ``dealer.deal(row.seed)``
        is the deal it was played on (its record's seed), ``dealer.seat(row.seed, i)`` the seed seat ``i`` was sent."""
        from cardwar.arena.seeds import Dealer
        from cardwar.tournament.schedule import deal_context

        context = (deal_context(row.first, row.first_spec, row.second, row.second_spec)
                   if self.seeds(name) == "pairing" else None)
        return Dealer(self.secret(name), context)

    def config(self, name: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT config FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else json.loads(row[0])

    def tournaments(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM tournaments ORDER BY created")]

    # ------------------------------------------------------------ games
    def add_pair(self, tournament: str, rows: list[GameRow]) -> int:
        """Store a pair's games in one transaction, keyed by content; a game already stored is left as it is.

        Returns how many rows were new.
        """
        added = 0
        with self._write():
            cfg = self.db.execute("SELECT config FROM tournaments WHERE name = ?", (tournament,)).fetchone()
            if cfg is None:
                raise ValueError(f"{self.path}: no tournament {tournament!r} to store games in")
            conds = conditions(json.loads(cfg[0]))
            for r in rows:
                cur = self.db.execute(
                    f"INSERT OR IGNORE INTO games ({_GAME_COLUMNS}) VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (tournament, r.key_under(conds), r.pairing, r.pair, r.game_in_pair, r.seed, r.scenario, r.first,
                     r.second, r.first_spec, r.second_spec, r.score_first, json.dumps(r.returns), r.length,
                     json.dumps([round(t, 6) for t in r.move_times]), r.forfeit_seat, r.forfeit_reason,
                     r.forfeit_detail, r.record, time.time()))
                added += cur.rowcount
        return added

    def keys(self, tournament: str) -> set[str]:
        """The keys of every stored game of ``tournament``."""
        return {r[0] for r in self.db.execute("SELECT game_key FROM games WHERE tournament = ? AND game_key "
                                              "IS NOT NULL", (tournament,))}

    def games(self, tournament: str) -> list[GameRow]:
        """Every stored game of ``tournament`` in the order played, whatever its config is now.

        :func:`cardwar.tournament.runner.current_rows` picks the games of the current config.
        """
        return list(self._rows("WHERE tournament = ? ORDER BY id", (tournament,)))

    def game(self, game_id: int) -> GameRow | None:
        return next(self._rows("WHERE id = ?", (game_id,)), None)

    def record(self, game_id: int) -> GameRecord:
        """The game record of stored game ``game_id`` (what ``cardwar replay --db`` plays back)."""
        row = self.game(game_id)
        if row is None:
            raise ValueError(f"{self.path}: no game with id {game_id}")
        return GameRecord.from_json(row.record)

    def _rows(self, where: str, args: tuple) -> Iterator[GameRow]:
        cols = ("pairing, pair, game_in_pair, seed, scenario, first, second, first_spec, second_spec, score_first, "
                "returns, length, move_times, forfeit_seat, forfeit_reason, forfeit_detail, record, id, game_key")
        for r in self.db.execute(f"SELECT {cols} FROM games {where}", args):
            try:  # a zeroed page inside a value leaves SQLite's structure whole: found here, as unreadable JSON
                returns, times = json.loads(r[10]), json.loads(r[12])
                if not isinstance(r[16], str) or "\x00" in r[16]:  # JSON never holds a raw NUL: zeroed bytes
                    raise ValueError("its game record holds zeroed bytes")
            except (TypeError, ValueError) as err:
                raise ValueError(damaged(self.path, f"game {r[17]}: {_describe(err)}")) from None
            yield GameRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], returns, r[11],
                          times, r[13], r[14], r[15], r[16], r[17], r[18])
