"""Sessions in SQLite: one row a session, its game as a :class:`cardwar.record.GameRecord` (the moves so far).

A move and the bot's answers are saved in one transaction, guarded by the row's
version (optimistic locking), so a restarted server rebuilds every open game by
replaying its record, and two writers can never both apply a move.
Only a hash of the session's token is kept.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    id TEXT PRIMARY KEY,
    token_hash TEXT NOT NULL,
    client TEXT NOT NULL,
    created REAL NOT NULL,
    touched REAL NOT NULL,
    status TEXT NOT NULL,          -- open | over | expired
    settings TEXT NOT NULL,        -- JSON: game, rules, scenario, seats, agent, move time, seeds
    record TEXT NOT NULL,          -- JSON game record (cardwar.record), the moves so far
    version INTEGER NOT NULL       -- +1 on every change
);
CREATE INDEX IF NOT EXISTS sessions_client ON sessions (client, status);
"""


@dataclass
class SessionRow:
    """A session as stored."""

    id: str
    token_hash: str
    client: str
    created: float
    touched: float
    status: str
    settings: dict[str, Any]
    record: str
    version: int


class StaleSession(Exception):
    """The row changed since it was read (another request saved first)."""


class SessionStore:
    """The sessions database (thread-safe: one connection behind a lock; WAL, so readers never wait long)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        with self._lock:
            self._db.executescript(SCHEMA)

    @property
    def _db(self) -> sqlite3.Connection:
        """The connection (opened again after :meth:`close`: an app's lifespan may end and start again)."""
        if self._conn is None:
            self._conn = sqlite3.connect(str(self.path), check_same_thread=False, isolation_level=None, timeout=30)
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=NORMAL")  # a power cut may lose the last moves, never corrupt
        return self._conn

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def insert(self, row: SessionRow) -> None:
        with self._lock:
            self._db.execute("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?)",
                             (row.id, row.token_hash, row.client, row.created, row.touched, row.status,
                              json.dumps(row.settings), row.record, row.version))

    def get(self, session_id: str) -> SessionRow | None:
        with self._lock:
            r = self._db.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()
        if r is None:
            return None
        return SessionRow(r[0], r[1], r[2], r[3], r[4], r[5], json.loads(r[6]), r[7], r[8])

    def save(self, session_id: str, version: int, *, status: str, record: str, touched: float,
             settings: dict[str, Any]) -> int:
        """Write the new record if the row is still at ``version``; the new version, or :class:`StaleSession`."""
        with self._lock:
            cur = self._db.execute("UPDATE sessions SET status = ?, record = ?, touched = ?, settings = ?, "
                                   "version = version + 1 WHERE id = ? AND version = ?",
                                   (status, record, touched, json.dumps(settings), session_id, version))
        if cur.rowcount != 1:
            raise StaleSession(session_id)
        return version + 1

    def touch(self, session_id: str, when: float) -> None:
        with self._lock:
            self._db.execute("UPDATE sessions SET touched = ? WHERE id = ?", (when, session_id))

    def open_count(self, client: str | None = None) -> int:
        """Open sessions (of one client address, or all)."""
        with self._lock:
            if client is None:
                return self._db.execute("SELECT COUNT(*) FROM sessions WHERE status = 'open'").fetchone()[0]
            return self._db.execute("SELECT COUNT(*) FROM sessions WHERE status = 'open' AND client = ?",
                                    (client,)).fetchone()[0]

    def active(self, client: str, since: float) -> tuple[int, float | None]:
        """Games in play of one client address touched since ``since``: how many, and the oldest's last touch."""
        with self._lock:
            count, oldest = self._db.execute("SELECT COUNT(*), MIN(touched) FROM sessions WHERE status = 'open' "
                                             "AND client = ? AND touched >= ?", (client, since)).fetchone()
        return int(count), oldest

    def in_play(self, since: float) -> tuple[int, float | None]:
        """Games in play on the whole server touched since ``since`` (not idle): how many, and the oldest's last
        touch."""
        with self._lock:
            count, oldest = self._db.execute("SELECT COUNT(*), MIN(touched) FROM sessions WHERE status = 'open' "
                                             "AND touched >= ?", (since,)).fetchone()
        return int(count), oldest

    def expire_idlest(self, before: float) -> str | None:
        """Mark the open session touched longest ago, if that is before ``before``, expired; its id (None if no
        open session is that idle)."""
        with self._lock:
            row = self._db.execute("SELECT id FROM sessions WHERE status = 'open' AND touched < ? "
                                   "ORDER BY touched LIMIT 1", (before,)).fetchone()
            if row is None:
                return None
            self._db.execute("UPDATE sessions SET status = 'expired', version = version + 1 WHERE id = ?", (row[0],))
        return row[0]

    def purge(self, idle_before: float, finished_before: float) -> list[str]:
        """Delete expired sessions, open ones untouched since ``idle_before`` (they have expired), and finished
        ones whose last change is older than ``finished_before``; their ids."""
        where = ("status = 'expired' OR (status = 'open' AND touched < ?) "
                 "OR (status = 'over' AND touched < ?)")
        with self._lock:
            ids = [r[0] for r in self._db.execute(f"SELECT id FROM sessions WHERE {where}",
                                                  (idle_before, finished_before))]
            if ids:
                self._db.execute(f"DELETE FROM sessions WHERE {where}", (idle_before, finished_before))
        return ids

    def expire(self, older_than: float) -> list[str]:
        """Mark open sessions untouched since ``older_than`` expired; their ids."""
        with self._lock:
            ids = [r[0] for r in self._db.execute("SELECT id FROM sessions WHERE status = 'open' AND touched < ?",
                                                  (older_than,))]
            self._db.execute("UPDATE sessions SET status = 'expired', version = version + 1 "
                             "WHERE status = 'open' AND touched < ?", (older_than,))
        return ids

    def open_ids(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT id FROM sessions WHERE status = 'open'")]

    def count(self) -> int:
        """Every row, whatever its status."""
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM sessions").fetchone()[0]


def now() -> float:
    return time.time()
