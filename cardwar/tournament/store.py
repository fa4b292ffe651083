"""The result store: every finished game is a row in SQLite, written so that a killed run loses nothing.

A pair's two games (same seed, seats swapped) are written in one transaction, so
the database only ever holds whole pairs; a tournament killed with ``kill -9``
resumes by playing the pairs that are missing, and the ``UNIQUE`` key makes a
pair impossible to store twice. As fastchess keeps its results apart from its
scheduler and its reporter, this module knows nothing of how games are played.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from cardwar.record import GameRecord

SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    name TEXT PRIMARY KEY,
    config TEXT NOT NULL,            -- the resolved config as JSON
    config_hash TEXT NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS games (
    id INTEGER PRIMARY KEY,
    tournament TEXT NOT NULL REFERENCES tournaments(name),
    pairing INTEGER NOT NULL,        -- index into the schedule's pairings
    pair INTEGER NOT NULL,           -- game pair within the pairing
    game_in_pair INTEGER NOT NULL,   -- 0: entrant a takes the first seat, 1: seats swapped
    seed INTEGER NOT NULL,
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
    UNIQUE (tournament, pairing, pair, game_in_pair)
);
"""


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

    def comparable(self) -> tuple:
        """Everything but the timings (which differ between runs and backends)."""
        rec = json.loads(self.record)
        rec.pop("cardwar_version", None)
        return (self.pairing, self.pair, self.game_in_pair, self.seed, self.scenario, self.first, self.second,
                self.score_first, tuple(self.returns), self.length, self.forfeit_seat, self.forfeit_reason,
                json.dumps(rec, sort_keys=True))


class ConfigChanged(ValueError):
    """The tournament exists with another config."""


class Store:
    """A tournament database (one file may hold several tournaments)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        if self.path.parent and not self.path.parent.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self.db = sqlite3.connect(str(self.path), timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
        except sqlite3.DatabaseError as err:
            raise ValueError(f"{self.path}: not a cardwar tournament database ({err})") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ------------------------------------------------------------ tournaments
    def open_tournament(self, name: str, config: dict[str, Any], config_hash: str, allow_changed: bool = False) -> bool:
        """Register ``name`` (True if new); a different config for an existing one is refused unless allowed."""
        row = self.db.execute("SELECT config_hash FROM tournaments WHERE name = ?", (name,)).fetchone()
        if row is None:
            with self.db:
                self.db.execute("INSERT INTO tournaments VALUES (?, ?, ?, ?)",
                                (name, json.dumps(config, sort_keys=True), config_hash, time.time()))
            return True
        if row[0] != config_hash:
            if not allow_changed:
                raise ConfigChanged(f"tournament {name!r} in {self.path} was started with another config; "
                                    f"rename it, use another --db, or pass --allow-changed to go on with the new one")
            with self.db:
                self.db.execute("UPDATE tournaments SET config = ?, config_hash = ? WHERE name = ?",
                                (json.dumps(config, sort_keys=True), config_hash, name))
        return False

    def config(self, name: str) -> dict[str, Any] | None:
        row = self.db.execute("SELECT config FROM tournaments WHERE name = ?", (name,)).fetchone()
        return None if row is None else json.loads(row[0])

    def tournaments(self) -> list[str]:
        return [r[0] for r in self.db.execute("SELECT name FROM tournaments ORDER BY created")]

    # ------------------------------------------------------------ games
    def add_pair(self, tournament: str, rows: list[GameRow]) -> None:
        """Store a pair's games in one transaction (a pair already stored is left as it is)."""
        with self.db:
            for r in rows:
                self.db.execute(
                    "INSERT OR IGNORE INTO games (tournament, pairing, pair, game_in_pair, seed, scenario, first, "
                    "second, first_spec, second_spec, score_first, returns, length, move_times, forfeit_seat, "
                    "forfeit_reason, forfeit_detail, record, finished) VALUES "
                    "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (tournament, r.pairing, r.pair, r.game_in_pair, r.seed, r.scenario, r.first, r.second,
                     r.first_spec, r.second_spec, r.score_first, json.dumps(r.returns), r.length,
                     json.dumps([round(t, 6) for t in r.move_times]), r.forfeit_seat, r.forfeit_reason,
                     r.forfeit_detail, r.record, time.time()))

    def done_pairs(self, tournament: str) -> set[tuple[int, int]]:
        """``(pairing, pair)`` of every pair whose two games are stored."""
        rows = self.db.execute("SELECT pairing, pair FROM games WHERE tournament = ? GROUP BY pairing, pair "
                               "HAVING COUNT(*) = 2", (tournament,))
        return {(a, b) for a, b in rows}

    def games(self, tournament: str) -> list[GameRow]:
        """Every stored game, in schedule order."""
        return list(self._rows("WHERE tournament = ? ORDER BY pairing, pair, game_in_pair", (tournament,)))

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
                "returns, length, move_times, forfeit_seat, forfeit_reason, forfeit_detail, record, id")
        for r in self.db.execute(f"SELECT {cols} FROM games {where}", args):
            yield GameRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], json.loads(r[10]), r[11],
                          json.loads(r[12]), r[13], r[14], r[15], r[16], r[17])
