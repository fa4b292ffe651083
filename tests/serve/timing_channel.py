"""Measure the stopwatch channel of ``cardwar serve``: does a client's round trip follow the bot's hidden steps?

``python -m tests.serve.timing_channel [--agent heuristic] [--move-ms 50] [--scenario duel] [--games 8]
[--no-pad-hidden] [--arena] [--json]``

Starts a real ``cardwar serve`` on loopback (``--reproducible-seeds``, and ``--no-pad-hidden`` when asked), plays
``--games`` skirmishes with ``{"sequence": "phases"}`` against the bot with random legal moves over one
keep-alive connection, the player in either seat in turn, and times every answer. After each game the record
(``GET /record``) is replayed as the server counts what a seat is told (:func:`cardwar.serve.sessions.replay`)
to find each answer's untold bot steps. Prints the Pearson r between the round trip and that count over the
answers in which the bot moved (which the client knows; over all answers r mostly says whether the bot moved,
which is public), by the player's seat too, the median round trips and each session's final hidden budget
(read from the server's database afterwards). Figures and the commands that gave them: docs/serve.md, "Timing".

``--arena`` measures the same for a seat of the arena's game loop (``cardwar.arena.play_game``, what the dealer
runs for an engine): the gap between a seat's answer and its next request, against the other seat's untold
steps in between (a stopwatch player in process: an engine's own clock sees the same, plus the pipes). The
arena does not pad (docs/engine-protocol.md, "Time").
"""

from __future__ import annotations

import argparse
import http.client
import json
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from cardwar.record import GameRecord
from cardwar.serve.launch import ServerProcess
from cardwar.serve.sessions import replay

SEATS = ("player_0", "player_1")


def answer_counts(record: GameRecord, human: str) -> list[tuple[int, int]]:
    """Per answer (the new game's, then one per move of ``human``): ``(untold bot steps, bot steps)``."""
    _, public = replay(record)
    out, hidden, steps = [], 0, 0
    for move, told in zip(record.moves, public):
        if move.seat == human:
            out.append((hidden, steps))
            hidden = steps = 0
        else:
            steps += 1
            hidden += not told
    out.append((hidden, steps))
    return out


def pearson(x: np.ndarray, y: np.ndarray) -> float | None:
    return float(np.corrcoef(x, y)[0, 1]) if len(x) > 2 and x.std() > 0 and y.std() > 0 else None


def measure(agent: str = "heuristic", games: int = 8, move_ms: int | None = None, scenario: str | None = None,
            pad: bool = True, seed: int = 100) -> dict[str, Any]:
    rows: list[tuple[int, int, float, int, int, int]] = []  # hidden, bot steps, round trip (ms), seat, game, answer
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="cardwar-timing-") as tmp:
        db = Path(tmp) / "s.db"
        args = ["--reproducible-seeds", "--max-sessions-per-client", str(games + 10)]
        with ServerProcess(db, *args, *([] if pad else ["--no-pad-hidden"])) as server:
            conn = http.client.HTTPConnection("127.0.0.1", server.port)

            def call(method: str, path: str, body: Any = None, token: str | None = None) -> tuple[int, Any, float]:
                headers = {"Content-Type": "application/json"}
                if token:
                    headers["Authorization"] = f"Bearer {token}"
                t0 = time.perf_counter()
                conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
                r = conn.getresponse()
                data = r.read()
                return r.status, json.loads(data), (time.perf_counter() - t0) * 1000

            rng = random.Random(seed)
            for g in range(games):
                seat = SEATS[g % 2]
                body: dict[str, Any] = {"game": "skirmish", "agent": agent, "seed": seed + g, "seat": seat,
                                        "rules": {"sequence": "phases"}}
                if move_ms:
                    body["move_ms"] = move_ms
                if scenario:
                    body["scenario"] = scenario
                status, data, ms = call("POST", "/api/sessions", body)
                assert status == 201, data
                trips = [ms]
                sid, token, state = data["id"], data["token"], data["state"]
                while state["status"] == "your_turn":
                    move = {"move": rng.choice(state["legal"])["move"], "version": state["version"]}
                    status, data, ms = call("POST", f"/api/sessions/{sid}/moves", move, token)
                    assert status == 200, data
                    trips.append(ms)
                    state = data["state"]
                status, record, _ = call("GET", f"/api/sessions/{sid}/record", None, token)
                counts = answer_counts(GameRecord.from_dict(record), seat)
                assert len(counts) == len(trips), (len(counts), len(trips))
                rows += [(h, n, ms, g % 2, g, i) for i, ((h, n), ms) in enumerate(zip(counts, trips))]
            conn.close()
        with sqlite3.connect(db) as con:
            budgets = sorted(json.loads(s).get("hidden_budget_ms") or 0.0 for (s,) in
                             con.execute("SELECT settings FROM sessions"))
    hidden, steps, took, seats, game, index = (np.array(c, dtype=float) for c in zip(*rows))
    moved = steps > 0
    # What is public about an answer beside the count: its game (and so that game's budget) and how far into the
    # game it is (the record and the log grow). Both regressed out of the round trip and of the count.
    m = moved
    design = np.column_stack([game[m] == k for k in range(games)] + [index[m], index[m] ** 2]).astype(float)

    def residual(y: np.ndarray) -> np.ndarray:
        return y - design @ np.linalg.lstsq(design, y, rcond=None)[0]

    within = pearson(residual(hidden[m]), residual(took[m]))

    def r(mask: np.ndarray) -> float | None:
        value = pearson(hidden[mask], took[mask])
        return None if value is None else round(value, 3)

    return {"agent": agent, "move_ms": move_ms, "scenario": scenario or "ww2_squads", "pad_hidden": pad,
            "games": games, "answers": len(rows), "bot_moved": int(moved.sum()),
            "hidden_range": [int(hidden[moved].min()), int(hidden[moved].max())],
            "r_bot_moved": r(moved), "r_player_first": r(moved & (seats == 0)), "r_bot_first": r(moved & (seats == 1)),
            "r_all_answers": r(np.ones_like(moved)), "r_within_game": None if within is None else round(within, 3),
            "median_ms_bot_moved": round(float(np.median(took[moved])), 1),
            "median_ms_other": round(float(np.median(took[~moved])), 1),
            "budgets_ms": [round(b, 1) for b in budgets], "wall_s": round(time.time() - started, 1)}


class Stopwatch:
    """A seat that plays random legal moves and times the gap from each answer to its next request."""

    def __init__(self, seed: int) -> None:
        self.rng, self.last, self.gaps = random.Random(seed), None, []

    def act(self, observation: dict, view: Any) -> int:
        now = time.perf_counter()
        self.gaps.append(None if self.last is None else (now - self.last) * 1000)
        move = int(self.rng.choice(list(np.flatnonzero(observation["action_mask"]))))
        self.last = time.perf_counter()
        return move


def arena_gaps(agent: str = "heuristic", games: int = 8, move_ms: int | None = None, scenario: str | None = None,
               seed: int = 500) -> dict[str, Any]:
    from cardwar.arena import play_game
    from cardwar.arena.table import Table
    from cardwar.envs import make_raw_env
    from cardwar.players import make_player
    from cardwar.record import make_env

    spec = f"{agent}:seconds={move_ms / 1000 * 0.8:g}" if move_ms else agent  # as the server gives a timed search
    hidden_n, gaps = [], []
    started = time.time()
    for g in range(games):
        me, watch = g % 2, Stopwatch(g)
        other = make_player(spec, "skirmish", seed=g + 1)
        env = make_raw_env("skirmish", scenario=scenario or "ww2_squads", rules={"sequence": "phases"})
        out = play_game(env, (watch, other) if me == 0 else (other, watch), seed + g, game="skirmish")
        record = out.record
        table = Table(make_env(record), record.game, record.seed)
        counts, hidden, steps = [], 0, 0
        for m in record.moves:
            mover, told = table.to_move, len(table.history[me].moves)
            table.play(table.parse(m.move))
            if mover == me:
                counts.append((hidden, steps))
                hidden = steps = 0
            else:
                steps += 1
                hidden += len(table.history[me].moves) == told
        for (h, n), gap in zip(counts, watch.gaps):
            if gap is not None and n:  # the other seat moved in between
                hidden_n.append(h)
                gaps.append(gap)
    h, t = np.array(hidden_n, dtype=float), np.array(gaps)
    r = pearson(h, t)
    return {"arena": True, "agent": spec, "scenario": scenario or "ww2_squads", "games": games, "gaps": len(h),
            "hidden_range": [int(h.min()), int(h.max())], "r_other_moved": None if r is None else round(r, 3),
            "median_gap_ms": round(float(np.median(t)), 1), "wall_s": round(time.time() - started, 1)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--agent", default="heuristic")
    ap.add_argument("--move-ms", type=int)
    ap.add_argument("--scenario")
    ap.add_argument("--games", type=int, default=8)
    ap.add_argument("--seed", type=int, default=100)
    ap.add_argument("--no-pad-hidden", dest="pad", action="store_false")
    ap.add_argument("--arena", action="store_true", help="the arena's gaps, not the server's answers")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.arena:
        out = arena_gaps(a.agent, a.games, a.move_ms, a.scenario)
    else:
        out = measure(a.agent, a.games, a.move_ms, a.scenario, a.pad, a.seed)
    if a.json:
        print(json.dumps(out))
    else:
        for k, v in out.items():
            print(f"{k:>20}: {v}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
