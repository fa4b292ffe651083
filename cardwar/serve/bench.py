"""Load benchmark of ``cardwar serve``: many clients play whole games against a bot at once.

``python -m cardwar.serve.bench [--sessions 50] [--games-per-session 1] [--game naval|hexwar|skirmish|both|all]
[--agent ppo] [--restart] [--seconds 300] [--json]``

It starts the server (:class:`cardwar.serve.launch.ServerProcess`, on 127.0.0.1 only, on a
fresh database in a temporary folder), then every session is a thread with its own
``httpx.Client`` (one keep-alive connection) that plays its games as fast as the server
answers: it creates a session, then posts a random legal move of ``state["legal"]`` with
the state's version until the game is over, then checks the game's record. ``both``
alternates naval and hexwar between sessions (a mixed load), ``all`` every game of the registry.

Two latencies are reported for every move, as p50/p99:

- the server's own work, ``timing.server_ms`` of the response (also in its
  ``Server-Timing`` header): the request handler's wall time less the bot's thinking;
- the round trip the client sees, from sending the request to the whole response read,
  the bot's thinking included (measured here, by the client).

The server only sends its timings when started with ``--timing`` (off by default: the bot's
time tells a player how many hidden steps the bot took, docs/serve.md); the benchmark starts
its own server, on loopback, with it, and with ``--no-pad-hidden``: a skirmish (phases) answer in
which the bot moves otherwise waits out the session's hidden budget (100 ms or more), which would
measure the padding, not the server (docs/serve.md, "Timing").

The target is p99 of the server's own work under 50 ms. The clients share the machine's
cores with the server, so the round trip includes the clients' own work too.

``--restart`` kills the server with SIGKILL in the middle of the load and starts it again
on the same database. A client whose request fails to connect waits, reads its state
again (GET) and carries on. At the end every session's game must be over, and every
finished game's record (``GET /api/sessions/{id}/record``) must replay
(``GameRecord.from_dict`` + ``final_state``); a session that fails this is *lost*.

The run is bounded: ``--seconds`` (default 300) ends it, finished or not; unfinished
games, lost sessions or errors make it fail (exit status 1) after the figures are printed.
Progress lines go to stderr every few seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import threading
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from cardwar import games as registry
from cardwar.serve.launch import ServerProcess

TARGET_P99_MS = 50.0
"""The target: p99 of the server's own work per move, in milliseconds."""

DEFAULT_MOVES = 100
"""About how many moves a client makes in one game (to place the restart mid-load) when the game's registry
entry does not say (``extra["moves_per_game"]``: its own figure against ``ppo``)."""


def moves_per_game(game: str) -> int:
    """About how many moves a client makes in one game of ``game``: its entry's ``extra["moves_per_game"]``."""
    return int(registry.get(game).extra.get("moves_per_game", DEFAULT_MOVES))

REQUEST_TIMEOUT_S = 60.0  # the first request after a start loads the model (seconds on a busy machine)
RETRY_PAUSE_S = 0.05
MAX_RETRY_PAUSE_S = 0.5


def process_cpu_s(pid: int) -> float | None:
    """CPU seconds (user + system) a process has used so far (Linux ``/proc``; None elsewhere)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (0-100, nearest rank) of ``values``; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, min(len(ordered), int(-(-q * len(ordered) // 100))))
    return ordered[rank - 1]


def server_timing(header: str | None) -> dict[str, float]:
    """``{"server": 1.2, "bot": 3.4}`` from a ``Server-Timing`` header (``server;dur=1.2, bot;dur=3.4``)."""
    out: dict[str, float] = {}
    for part in (header or "").split(","):
        name, _, rest = part.strip().partition(";")
        for param in rest.split(";"):
            key, _, value = param.strip().partition("=")
            if key == "dur":
                try:
                    out[name.strip()] = float(value)
                except ValueError:
                    pass
    return out


class Lost(Exception):
    """The server could not be reached (a restart): the caller waits, reads the state again and retries."""


@dataclass
class SessionResult:
    """What one client session did."""

    index: int
    game: str
    ids: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    finished: int = 0  # games played to their end and checked
    in_game: bool = False  # between its create's answer and its game's end
    in_game_at_restart: bool = False
    reconnected: bool = False  # met a connection error and reached the server again
    recovered_after_s: float | None = None  # first answer after the kill, seconds after it


@dataclass
class Load:
    """Everything the clients measured, shared between their threads."""

    restart: bool
    lock: threading.Lock = field(default_factory=threading.Lock)
    server_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    round_trip_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    bot_ms: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    create_ms: list[float] = field(default_factory=list)
    bot_plies: int = 0
    errors: list[str] = field(default_factory=list)
    reconnects: int = 0
    interrupted_creates: int = 0
    header_mismatch: int = 0
    stop: threading.Event = field(default_factory=threading.Event)
    killed_at: float | None = None  # perf_counter of the kill, while the server is down or after
    down: threading.Event = field(default_factory=threading.Event)  # set from the kill until it answers
    server_cpu_s: float | None = 0.0  # CPU of server processes that have ended (a restart)
    restart_after: int | None = None  # the moves after which the restart is due
    restart_done: threading.Event = field(default_factory=threading.Event)  # set once it happened (or never will)

    @property
    def moves(self) -> int:
        return sum(len(v) for v in self.server_ms.values())

    def hold_for_restart(self) -> None:
        """A client waits here once the restart is due and until it has happened: the main loop, which polls,
        then kills the server with sessions mid-game however loaded the machine (on CI three short games could
        end between two of its polls, and the restart never happened)."""
        if (self.restart and self.restart_after is not None and not self.restart_done.is_set()
                and self.moves >= self.restart_after):
            self.restart_done.wait(timeout=60.0)

    def error(self, message: str) -> None:
        with self.lock:
            self.errors.append(message[:300])


class Client:
    """One session's client: an ``httpx.Client`` with a keep-alive connection, and retries over a restart."""

    def __init__(self, url: str, load: Load, result: SessionResult) -> None:
        self.http = httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S)
        self.load, self.result = load, result
        self.lost_since: float | None = None

    def close(self) -> None:
        self.http.close()

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """One request; a connection error raises :class:`Lost` (the caller decides how to retry)."""
        try:
            response = self.http.request(method, path, **kwargs)
        except httpx.TimeoutException as err:  # the server was too slow: an error, whatever the cause
            self.load.error(f"{method} {path}: timed out ({type(err).__name__})")
            raise Lost() from None
        except httpx.TransportError as err:
            if self.lost_since is None:
                self.lost_since = time.perf_counter()
            with self.load.lock:
                self.load.reconnects += 1
            if not self.load.restart or (self.load.killed_at is None and not self.load.down.is_set()):
                self.load.error(f"{method} {path}: {type(err).__name__}: {err}")
            raise Lost() from None
        if self.lost_since is not None:
            self.lost_since = None
            self.result.reconnected = True
            if self.load.killed_at is not None and self.result.recovered_after_s is None:
                self.result.recovered_after_s = time.perf_counter() - self.load.killed_at
        return response

    def retry(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """The request, repeated after connection errors until it is answered (or the run stops); the pause
        doubles from 50 ms to at most 0.5 s, as a polite client's would."""
        pause = RETRY_PAUSE_S
        while True:
            try:
                return self.request(method, path, **kwargs)
            except Lost:
                if self.load.stop.is_set():
                    raise
                time.sleep(pause * random.uniform(0.5, 1.0))
                pause = min(MAX_RETRY_PAUSE_S, pause * 2)


def expect(load: Load, response: httpx.Response, status: int, what: str) -> dict[str, Any] | None:
    """The JSON body if the status is ``status``; else an error is counted and None returned."""
    if response.status_code != status:
        load.error(f"{what}: HTTP {response.status_code}: {response.text[:200]}")
        return None
    return response.json()


def play_session(url: str, load: Load, result: SessionResult, games: int, agent: str, seed: int) -> None:
    """One client: ``games`` games in a row, each to its end, then its record checked."""
    rng = random.Random(seed)
    client = Client(url, load, result)
    try:
        for _ in range(games):
            if load.stop.is_set():
                return
            if not play_game(client, load, result, agent, rng):
                return
    except Lost:
        return  # the run stopped while the server was unreachable
    except Exception as err:  # noqa: BLE001 - a client bug is reported as an error, not a hung thread
        load.error(f"session {result.index}: {type(err).__name__}: {err}")
    finally:
        client.close()


def play_game(client: Client, load: Load, result: SessionResult, agent: str, rng: random.Random) -> bool:
    """One game; False if it could not go on (an error, or the run stopped)."""
    start = time.perf_counter()
    try:
        r = client.request("POST", "/api/sessions", json={"game": result.game, "agent": agent})
    except Lost:
        # A create cut by the kill may have made a session that no client knows of: count it and try again.
        with load.lock:
            load.interrupted_creates += 1
        r = client.retry("POST", "/api/sessions", json={"game": result.game, "agent": agent})
    created = expect(load, r, 201, f"session {result.index}: create")
    if created is None:
        return False
    with load.lock:
        load.create_ms.append((time.perf_counter() - start) * 1000)
    sid = created["id"]
    auth = {"Authorization": f"Bearer {created['token']}"}
    result.ids.append(sid)
    result.tokens.append(created["token"])
    result.in_game = True
    try:
        return play_moves(client, load, result, sid, auth, created["state"], rng)
    finally:
        result.in_game = False


def play_moves(client: Client, load: Load, result: SessionResult, sid: str, auth: dict[str, str],
               state: dict[str, Any], rng: random.Random) -> bool:
    """Random legal moves until the game is over, then its record checked."""
    game = result.game
    while state["status"] == "your_turn":
        if load.stop.is_set():
            return False
        move = rng.choice(state["legal"])
        body = {"move": move["move"], "version": state["version"]}
        sent = time.perf_counter()
        try:
            r = client.request("POST", f"/api/sessions/{sid}/moves", json=body, headers=auth)
        except Lost:
            # The move may or may not have been saved before the kill: the state read again tells.
            r = client.retry("GET", f"/api/sessions/{sid}", headers=auth)
            fresh = expect(load, r, 200, f"session {result.index}: state after reconnecting")
            if fresh is None:
                return False
            state = fresh
            continue
        round_trip = (time.perf_counter() - sent) * 1000
        answer = expect(load, r, 200, f"session {result.index}: move {move['move']!r}")
        if answer is None:
            return False
        timing = answer.get("timing")
        if timing is None:  # a server started without --timing sends none
            load.error(f"session {result.index}: the answer has no timing (is the server started with --timing?)")
            return False
        header = server_timing(r.headers.get("server-timing"))
        if abs(header.get("server", -1.0) - timing["server_ms"]) > 0.01:
            with load.lock:
                load.header_mismatch += 1
        with load.lock:
            load.server_ms[game].append(timing["server_ms"])
            load.bot_ms[game].append(timing["bot_ms"])
            load.round_trip_ms[game].append(round_trip)
            load.bot_plies += len(answer["bot_moves"])
        state = answer["state"]
        load.hold_for_restart()
    if state["status"] != "over":
        load.error(f"session {result.index}: status {state['status']!r}, neither my turn nor over")
        return False
    if check_record(client, load, result, sid, auth):
        result.finished += 1
    return True


def check_record(client: Client, load: Load, result: SessionResult, sid: str, auth: dict[str, str]) -> bool:
    """The finished game's record replays to its recorded end."""
    from cardwar.record import GameRecord, final_state

    r = client.retry("GET", f"/api/sessions/{sid}/record", headers=auth)
    data = expect(load, r, 200, f"session {result.index}: record")
    if data is None:
        return False
    try:
        record = GameRecord.from_dict(data)
        state = final_state(record)
    except Exception as err:  # noqa: BLE001 - a record that does not replay is a lost game
        load.error(f"session {result.index}: record of {sid} does not replay: {err}")
        return False
    if not record.finished or not (state.is_terminal() or (record.result or {}).get("forfeit")):
        load.error(f"session {result.index}: record of {sid} is not a finished game")
        return False
    return True


def audit(url: str, results: list[SessionResult]) -> tuple[int, list[str]]:
    """After the load: every session a client created is still there, and a finished one's record replays.
    The sessions checked, and one line per lost one (an unfinished game is counted by the games finished)."""
    from cardwar.record import GameRecord, final_state

    lost, checked = [], 0
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as http:
        for res in results:
            for sid, token in zip(res.ids, res.tokens):
                checked += 1
                auth = {"Authorization": f"Bearer {token}"}
                r = http.get(f"/api/sessions/{sid}", headers=auth)
                status = r.json().get("status") if r.status_code == 200 else None
                if status in ("your_turn", "waiting"):
                    continue  # still open and playable (the time limit came first): unfinished, not lost
                if status != "over":
                    lost.append(f"{sid}: HTTP {r.status_code}, status {status}")
                    continue
                r = http.get(f"/api/sessions/{sid}/record", headers=auth)
                try:
                    final_state(GameRecord.from_dict(r.json()))
                except Exception as err:  # noqa: BLE001
                    lost.append(f"{sid}: record does not replay: {err}")
    return checked, lost


def progress(load: Load, results: list[SessionResult], started: float, games_total: int) -> str:
    done = sum(r.finished for r in results)
    elapsed = time.perf_counter() - started
    return (f"bench: {elapsed:5.0f} s  games {done}/{games_total}  moves {load.moves} "
            f"({load.moves / max(elapsed, 1e-9):.0f}/s)  errors {len(load.errors)}"
            + ("  [server down]" if load.down.is_set() else ""))


def game_list(game: str) -> list[str]:
    """The games of ``--game``: one, ``both`` (the registry's first two: naval and hexwar) or ``all`` (the
    registry's)."""
    if game == "both":
        return list(registry.names()[:2])
    if game == "all":
        return list(registry.names())
    return [game]


def run_load(*, sessions: int = 50, games_per_session: int = 1, game: str | None = None, agent: str = "ppo",
             restart: bool = False, seconds: float = 300.0, seed: int = 0, progress_every: float = 5.0,
             quiet: bool = False) -> dict[str, Any]:
    """Run the benchmark; the report (see :func:`format_report`); ``report["ok"]`` says whether it passed."""
    games = game_list(game or registry.names()[0])
    results = [SessionResult(i, games[i % len(games)]) for i in range(sessions)]
    games_total = sessions * games_per_session
    expected_moves = sum(moves_per_game(r.game) for r in results) * games_per_session
    restart_after = max(1, int(expected_moves * 0.4))
    load = Load(restart=restart, restart_after=restart_after if restart else None)
    say = (lambda line: None) if quiet else (lambda line: print(line, file=sys.stderr, flush=True))
    restart_info: dict[str, Any] = {}
    # The clients replay records in threads; the naval engine builds its hand tables on first use, which is
    # not safe to race (a thread can read the half-built table): build them here, before any thread starts.
    for g in games:
        registry.get(g).warm()

    with tempfile.TemporaryDirectory(prefix="cardwar-bench-") as tmp:
        db = Path(tmp) / "sessions.db"
        server = ServerProcess(db, "--host", "127.0.0.1", "--timing", "--no-pad-hidden",  # timings, no padding
                               "--max-sessions-per-client", str(max(20, sessions + 10)),
                               "--max-sessions", str(max(2000, sessions * 2 + 10)),
                               "--max-connections-per-client", str(max(64, 2 * sessions + 20)),  # all from loopback
                               "--max-connections", str(max(1000, 2 * sessions + 40)), log=Path(tmp) / "server.log")
        say(f"bench: starting cardwar serve on {server.url} ({db})")
        with server:
            warm_up(server.url, games, agent, seed)
            say(f"bench: {sessions} sessions x {games_per_session} game(s) of {game} against {agent}"
                + (f"; hard restart after about {restart_after} moves" if restart else ""))
            started = time.perf_counter()
            client_cpu = time.process_time()
            assert server.proc is not None
            server_cpu = process_cpu_s(server.proc.pid)
            load.server_cpu_s = None if server_cpu is None else -server_cpu
            deadline = started + seconds
            threads = [threading.Thread(target=play_session, name=f"session-{r.index}", daemon=True,
                                        args=(server.url, load, r, games_per_session, agent, seed * 100_003 + r.index))
                       for r in results]
            for t in threads:
                t.start()
            next_line = started + progress_every
            while any(t.is_alive() for t in threads):
                now = time.perf_counter()
                if now >= deadline:
                    say(f"bench: time limit of {seconds:g} s reached")
                    break
                if restart and not restart_info and (load.moves >= restart_after
                                                     or any(r.finished == games_per_session for r in results)):
                    restart_info = hard_restart(server, load, results, say)
                    load.restart_done.set()
                if now >= next_line:
                    say(progress(load, results, started, games_total))
                    next_line = now + progress_every
                time.sleep(0.02)
            elapsed = time.perf_counter() - started
            client_cpu = time.process_time() - client_cpu
            assert server.proc is not None
            server_cpu = process_cpu_s(server.proc.pid)
            if server_cpu is not None and load.server_cpu_s is not None:
                load.server_cpu_s += server_cpu
            load.stop.set()
            load.restart_done.set()  # a client held for a restart that will not come goes on to its end
            grace = time.perf_counter() + 10.0  # a client still waiting on an answer gets this long
            for t in threads:
                t.join(timeout=max(0.0, grace - time.perf_counter()))
            say(progress(load, results, started, games_total))
            checked, lost = audit(server.url, results)
            health = httpx.get(server.url + "/api/health", timeout=REQUEST_TIMEOUT_S).json()
    return make_report(load, results, elapsed=elapsed, client_cpu_s=client_cpu, seconds=seconds, sessions=sessions,
                       games_per_session=games_per_session, game=game, agent=agent, restart=restart,
                       restart_info=restart_info, checked=checked, lost=lost, open_at_end=health["open_sessions"])


def warm_up(url: str, games: list[str], agent: str, seed: int) -> None:
    """One whole game of each game played, alone, before the clock starts: the server's one-time set-up
    (loading the bot's model, the engine's tables) is not part of the load's figures."""
    rng = random.Random(seed - 1)
    with httpx.Client(base_url=url, timeout=REQUEST_TIMEOUT_S) as http:
        for g in games:
            r = http.post("/api/sessions", json={"game": g, "agent": agent})
            if r.status_code != 201:
                raise RuntimeError(f"warm-up: cannot start a {g} session against {agent}: {r.text[:300]}")
            data = r.json()
            auth = {"Authorization": f"Bearer {data['token']}"}
            state = data["state"]
            while state["status"] == "your_turn":
                r = http.post(f"/api/sessions/{data['id']}/moves", headers=auth,
                              json={"move": rng.choice(state["legal"])["move"], "version": state["version"]})
                if r.status_code != 200:
                    raise RuntimeError(f"warm-up: a {g} move was refused: {r.text[:300]}")
                state = r.json()["state"]


def hard_restart(server: ServerProcess, load: Load, results: list[SessionResult], say: Any) -> dict[str, Any]:
    """SIGKILL the server and start it again on its database; how long it was down."""
    for r in results:
        r.in_game_at_restart = r.in_game
    in_game = sum(1 for r in results if r.in_game_at_restart)
    moves_before = load.moves
    say(f"bench: hard restart (SIGKILL) after {moves_before} moves, {in_game} sessions mid-game")
    assert server.proc is not None
    cpu = process_cpu_s(server.proc.pid)
    load.server_cpu_s = None if cpu is None or load.server_cpu_s is None else load.server_cpu_s + cpu
    load.down.set()
    load.killed_at = time.perf_counter()
    server.stop(hard=True)
    killed = time.perf_counter()
    server.start()
    up = time.perf_counter()
    assert server.proc is not None
    cpu = process_cpu_s(server.proc.pid)  # the new process's start-up is not the load's
    load.server_cpu_s = None if cpu is None or load.server_cpu_s is None else load.server_cpu_s - cpu
    load.down.clear()
    say(f"bench: server answers again {up - load.killed_at:.2f} s after the kill")
    return {"after_moves": moves_before, "kill_s": round(killed - load.killed_at, 3),
            "downtime_s": round(up - load.killed_at, 3), "sessions_mid_game": in_game}


def summary(values: list[float]) -> dict[str, float | None]:
    p50, p99 = percentile(values, 50), percentile(values, 99)
    return {"p50": None if p50 is None else round(p50, 2), "p99": None if p99 is None else round(p99, 2),
            "max": round(max(values), 2) if values else None}


def make_report(load: Load, results: list[SessionResult], *, elapsed: float, client_cpu_s: float, seconds: float,
                sessions: int, games_per_session: int, game: str, agent: str, restart: bool,
                restart_info: dict[str, Any], checked: int, lost: list[str], open_at_end: int) -> dict[str, Any]:
    every = [g for g in load.server_ms if load.server_ms[g]]
    server_all = [x for g in every for x in load.server_ms[g]]
    trip_all = [x for g in every for x in load.round_trip_ms[g]]
    games_total = sessions * games_per_session
    finished = sum(r.finished for r in results)
    sessions_done = sum(1 for r in results if r.finished == games_per_session)
    server = summary(server_all)
    report: dict[str, Any] = {
        "game": game, "agent": agent, "sessions": sessions, "games_per_session": games_per_session,
        "seconds": round(elapsed, 2), "time_limit_s": seconds, "timed_out": elapsed >= seconds,
        "games_finished": finished, "games_total": games_total,
        "sessions_finished": sessions_done,
        "moves": load.moves, "moves_per_s": round(load.moves / elapsed, 1) if elapsed > 0 else 0.0,
        "plies_per_s": round((load.moves + load.bot_plies) / elapsed, 1) if elapsed > 0 else 0.0,
        "server_ms": server, "round_trip_ms": summary(trip_all),
        "bot_ms": summary([x for g in every for x in load.bot_ms[g]]),
        "create_ms": summary(load.create_ms),
        "cpu": {"cores": os.cpu_count(), "server_s": None if load.server_cpu_s is None else round(load.server_cpu_s, 2),
                "clients_s": round(client_cpu_s, 2),
                "server_ms_per_move": None if load.server_cpu_s is None or not load.moves
                else round(load.server_cpu_s * 1000 / load.moves, 2)},
        "per_game": {g: {"moves": len(load.server_ms[g]), "server_ms": summary(load.server_ms[g]),
                         "round_trip_ms": summary(load.round_trip_ms[g]), "bot_ms": summary(load.bot_ms[g])}
                     for g in every},
        "target_p99_ms": TARGET_P99_MS,
        "target_met": server["p99"] is not None and server["p99"] < TARGET_P99_MS,
        "errors": len(load.errors), "error_samples": load.errors[:10],
        "server_timing_header_mismatches": load.header_mismatch,
        "sessions_checked": checked, "sessions_lost": len(lost), "lost_samples": lost[:10],
        "open_sessions_at_end": open_at_end,
        "restart": None,
    }
    if restart:
        mid = [r for r in results if r.in_game_at_restart]
        recovered = [r for r in mid if r.finished == games_per_session]
        waits = [r.recovered_after_s for r in mid if r.recovered_after_s is not None]
        report["restart"] = {**restart_info, "done": bool(restart_info), "reconnects": load.reconnects,
                             "interrupted_creates": load.interrupted_creates,
                             "sessions_reconnected": sum(1 for r in results if r.reconnected),
                             "sessions_mid_game": len(mid), "sessions_recovered": len(recovered),
                             "recovered_within_s": round(max(waits), 2) if waits else None}
    problems = []
    if finished < games_total:
        problems.append(f"{games_total - finished} of {games_total} games unfinished")
    if load.errors:
        problems.append(f"{len(load.errors)} errors")
    if lost:
        problems.append(f"{len(lost)} sessions lost")
    if load.header_mismatch:
        problems.append(f"{load.header_mismatch} Server-Timing headers differ from the body's timing")
    # A session the server holds open at the end is one no client knows of: a create cut by the kill.
    if open_at_end > (load.interrupted_creates if restart else 0):
        problems.append(f"{open_at_end} sessions still open on the server")
    if restart and not restart_info:
        problems.append("the restart did not happen (the games ended first)")
    report["problems"] = problems
    report["ok"] = not problems
    return report


def _ms(s: dict[str, float | None]) -> str:
    return f"p50 {s['p50']} ms, p99 {s['p99']} ms, max {s['max']} ms"


def format_report(report: dict[str, Any]) -> str:
    """The report as lines for a person."""
    r = report
    lines = [
        f"cardwar serve load: {r['sessions']} sessions x {r['games_per_session']} game(s) of {r['game']} "
        f"against {r['agent']}, {r['seconds']} s (limit {r['time_limit_s']:g} s)",
        f"  games finished     {r['games_finished']}/{r['games_total']} "
        f"(sessions finished {r['sessions_finished']}/{r['sessions']})",
        f"  moves              {r['moves']} client moves, {r['moves_per_s']}/s "
        f"({r['plies_per_s']} plies/s with the bot's)",
        f"  server's own work  {_ms(r['server_ms'])}  "
        f"[target p99 < {r['target_p99_ms']:g} ms: {'met' if r['target_met'] else 'MISSED'}]",
        f"  client round trip  {_ms(r['round_trip_ms'])}  (bot's thinking included)",
        f"  bot's thinking     {_ms(r['bot_ms'])} per request",
        f"  session create     {_ms(r['create_ms'])}",
        f"  CPU                server {r['cpu']['server_s']} s ({r['cpu']['server_ms_per_move']} ms a move, bot "
        f"included), clients {r['cpu']['clients_s']} s, on {r['cpu']['cores']} cores",
    ]
    if len(r["per_game"]) > 1:
        for g, s in r["per_game"].items():
            lines.append(f"    {g:<7} {s['moves']} moves; server {_ms(s['server_ms'])}; "
                         f"round trip {_ms(s['round_trip_ms'])}")
    lines.append(f"  errors             {r['errors']}" + "".join(f"\n    {e}" for e in r["error_samples"]))
    lines.append(f"  sessions lost      {r['sessions_lost']} of {r['sessions_checked']} checked"
                 + "".join(f"\n    {e}" for e in r["lost_samples"]))
    rs = r["restart"]
    if rs is not None:
        if rs["done"]:
            lines.append(f"  restart            SIGKILL after {rs['after_moves']} moves; down {rs['downtime_s']} s "
                         f"(kill to answering); {rs['sessions_recovered']}/{rs['sessions_mid_game']} sessions "
                         f"mid-game recovered and finished (all back within {rs['recovered_within_s']} s of the "
                         f"kill); {rs['reconnects']} connection errors retried, "
                         f"{rs['interrupted_creates']} creates interrupted")
        else:
            lines.append("  restart            did not happen")
    lines.append("  result             " + ("OK" if r["ok"] else "FAILED: " + "; ".join(r["problems"])))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardwar.serve.bench", description=__doc__.split("\n\n")[0])
    p.add_argument("--sessions", type=int, default=50, help="concurrent client sessions (default 50)")
    p.add_argument("--games-per-session", type=int, default=1, help="games each session plays in a row (default 1)")
    first = registry.names()[0]
    p.add_argument("--game", choices=[*registry.names(), "both", "all"], default=first,
                   help=f"the game played (both: {' and '.join(registry.names()[:2])} sessions alternate; all: every "
                        f"game; default {first})")
    p.add_argument("--agent", default="ppo", help="the bot the clients play against (default ppo)")
    p.add_argument("--restart", action="store_true", help="SIGKILL and restart the server in the middle of the load")
    p.add_argument("--seconds", type=float, default=300.0, help="time limit of the load (default 300)")
    p.add_argument("--seed", type=int, default=0, help="seed of the clients' move choices (default 0)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    args = p.parse_args(argv)
    if args.sessions < 1 or args.games_per_session < 1 or args.seconds <= 0:
        p.error("--sessions and --games-per-session must be at least 1, --seconds positive")
    report = run_load(sessions=args.sessions, games_per_session=args.games_per_session, game=args.game,
                      agent=args.agent, restart=args.restart, seconds=args.seconds, seed=args.seed)
    print(json.dumps(report, indent=2) if args.json else format_report(report))
    return 0 if report["ok"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
