"""``cardwar serve`` as a real process: event streams, a restart that loses no game, bad command lines."""

from __future__ import annotations

import json
import socket
import sys
import threading
import time

import httpx

from cardwar.serve.launch import ServerProcess
from tests.serve.test_hidden_information import CARD, without_mulligan_shown
from tests.subprocesses import run_command


WATCH: dict[str, str] = {}
"""The watch token of each session the tests started (spectators need it)."""


def start(client: httpx.Client, **body):
    r = client.post("/api/sessions", json={"game": "naval", "agent": "random", **body})
    assert r.status_code == 201, r.text
    data = r.json()
    WATCH[data["id"]] = data["watch_token"]
    return data["id"], {"Authorization": f"Bearer {data['token']}"}, data["state"]


def read_events(client: httpx.Client, path: str, out: list, ready: threading.Event, **kwargs) -> None:
    """Collect the ``state`` events of a stream until it ends (the game is over)."""
    with client.stream("GET", path, timeout=60, **kwargs) as r:
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
        ready.set()
        for line in r.iter_lines():
            if line.startswith("data: "):
                out.append(json.loads(line[len("data: "):]))


def test_event_streams_follow_the_game_to_its_end_and_hide_what_they_should(tmp_path):
    with ServerProcess(tmp_path / "s.db", "--reproducible-seeds") as server, \
            httpx.Client(base_url=server.url, timeout=30) as client:
        sid, auth, state = start(client, seed=21)
        mine, public = [], []
        ready = [threading.Event(), threading.Event()]
        token = auth["Authorization"].split()[1]
        readers = [threading.Thread(target=read_events, args=(client, f"/api/sessions/{sid}/events", mine, ready[0]),
                                    kwargs={"params": {"token": token}}, daemon=True),
                   threading.Thread(target=read_events, args=(client, f"/api/sessions/{sid}/spectate/events", public,
                                                              ready[1]), kwargs={"params": {"token": WATCH[sid]}},
                                    daemon=True)]
        for t in readers:
            t.start()
        assert all(e.wait(30) for e in ready)
        versions, answers = [state["version"]], [state]
        while state["status"] == "your_turn":
            r = client.post(f"/api/sessions/{sid}/moves", headers=auth,
                            json={"move": state["legal"][-1]["move"], "version": state["version"]})
            state = r.json()["state"]
            versions.append(state["version"])
            answers.append(state)
        for t in readers:
            t.join(30)
            assert not t.is_alive(), "an event stream did not end with the game"
        assert mine[-1] == state and mine[-1]["status"] == "over"
        assert set(versions) <= {e["version"] for e in mine} | {versions[0]}  # no change went unannounced
        assert public[-1]["result"] == state["result"] and all(e["view"]["hand"] == [] for e in public)
        assert all(e["legal"] == [] for e in public)
        # the person's stream says exactly what the API answered at each version (those answers are scanned
        # against the full state in test_hidden_information.py); the spectator's never names the person's hand
        by_version = {s["version"]: s for s in answers}
        assert all(e == by_version[e["version"]] for e in mine if e["version"] in by_version)
        for e in public:
            hand = set(by_version.get(e["version"], {"view": {"hand": []}})["view"]["hand"])
            assert not set(CARD.findall(without_mulligan_shown(e))) & hand
        assert client.get(f"/api/sessions/{sid}/events").status_code == 401  # a stream needs the token too
        assert client.get(f"/api/sessions/{sid}/spectate/events").status_code == 401  # so does a spectator's
        assert client.get(f"/api/sessions/{sid}/events", params={"token": WATCH[sid]}).status_code == 403


def test_a_killed_server_restarts_and_every_open_game_goes_on(tmp_path):
    with ServerProcess(tmp_path / "s.db", "--reproducible-seeds") as server, \
            httpx.Client(base_url=server.url, timeout=30) as client:
        games = [start(client, seed=s) for s in range(3)]
        games.append(start(client, game="hexwar", seed=5, scenario="random", rules={"hidden_units": True},
                           agent="ppo"))
        states = []
        for sid, auth, state in games:
            for _ in range(4):
                if state["status"] != "your_turn":
                    break
                state = client.post(f"/api/sessions/{sid}/moves", headers=auth,
                                    json={"move": state["legal"][0]["move"], "version": state["version"]}).json()["state"]
            states.append(state)
        server.restart(hard=True)  # SIGKILL: no clean shutdown
        for (sid, auth, _), before in zip(games, states):
            after = client.get(f"/api/sessions/{sid}", headers=auth)
            assert after.status_code == 200 and after.json() == before
            if before["status"] == "your_turn":
                r = client.post(f"/api/sessions/{sid}/moves", headers=auth,
                                json={"move": before["legal"][0]["move"], "version": before["version"]})
                assert r.status_code == 200 and r.json()["state"]["version"] > before["version"]
        assert client.get("/api/health").json()["open_sessions"] == sum(s["status"] != "over" for s in states)


def test_serve_command_line_mistakes_are_one_line_and_exit_2(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        cases = [["--port", str(port), "--db", str(tmp_path / "a.db")],
                 ["--db", str(tmp_path)],
                 ["--port", "-1"],
                 ["--max-move-ms", "100", "--default-move-ms", "500", "--db", str(tmp_path / "b.db")],
                 ["--host", "not a host", "--port", "0", "--db", str(tmp_path / "c.db")],
                 ["--port", "99999", "--db", str(tmp_path / "d.db")],
                 ["--db", str(tmp_path / "no" / "such" / "folder.db")],
                 ["--db", __file__],  # not a database
                 ["--cors-origin", "notaurl", "--db", str(tmp_path / "e.db")],
                 ["--max-streams", "0", "--db", str(tmp_path / "f.db")],
                 ["--purge-interval", "0", "--db", str(tmp_path / "g.db")]]
        for args in cases:
            r = run_command([sys.executable, "-m", "cardwar", "serve", *args], timeout=60)
            lines = [line for line in r.stderr.splitlines() if line.strip() and not line.startswith("cardwar serve: http")]
            assert r.returncode == 2, (args, r.stderr)
            assert len(lines) == 1 and "error" in lines[0] and "Traceback" not in r.stderr, (args, r.stderr)


def test_the_documented_example_client_plays_a_whole_game_of_each_game(tmp_path):
    """docs/examples/serve_client.py against a live server: every game of the registry (the skirmish on its duel,
    the smallest map), to the end, with why it ended (each game's result names its reason)."""
    from cardwar import games

    with ServerProcess(tmp_path / "s.db") as server:
        for game in games.names():
            extra = ["--scenario", "duel"] if game == "skirmish" else []
            r = run_command([sys.executable, "docs/examples/serve_client.py", game, "random", "--url", server.url,
                             *extra], timeout=300)
            assert r.returncode == 0, r.stderr
            assert "result: {" in r.stdout and "winner" in r.stdout
            last = r.stdout.strip().splitlines()[-1]
            assert last.startswith("winner: ") and last.split(" - ", 1)[1].strip(), last  # a reason is printed
        r = run_command([sys.executable, "docs/examples/serve_client.py", "chess", "--url", server.url], timeout=60)
        assert r.returncode == 2 and "the server offers naval, hexwar, skirmish" in r.stderr


def raw_request(port: int, head: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send ``head`` (a request as bytes) and read the answer to its end: status, headers, body."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(head)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    top, _, body = data.partition(b"\r\n\r\n")
    lines = top.decode("latin-1").split("\r\n")
    headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split()[1]), headers, body


def test_tokens_never_reach_the_log_and_malformed_requests_get_json(tmp_path):
    """The access log masks a token however its parameter is spelled or percent-encoded (the server accepts
    ``?%74oken=``); a Content-Length that is not a number is a JSON 400, though uvicorn refuses it itself."""
    from urllib.parse import unquote_plus

    log = tmp_path / "server.log"
    with ServerProcess(tmp_path / "s.db", "--log-level", "info", log=log) as server, \
            httpx.Client(base_url=server.url, timeout=30) as client:
        sid, auth, _ = start(client, seed=3)
        token, watch = auth["Authorization"].split()[1], WATCH[sid]
        client.post(f"/api/sessions/{sid}/resign", headers=auth)
        record = f"/api/sessions/{sid}/record"
        encoded = "".join(f"%{ord(ch):02X}" for ch in token)  # the value percent-encoded, every character
        for query in (f"token={token}", f"%74oken={token}", f"tok%65n={watch}", f"%74%6F%6B%65%6E={encoded}",
                      f"token={encoded}"):
            r = client.get(f"{record}?{query}")
            assert r.status_code == 200, (query, r.text)  # accepted, however spelled
        for query in (f"TOKEN={token}", f"x=1&%2574oken={token}", f"token%3D{token}"):  # refused, still masked
            assert client.get(f"{record}?{query}").status_code == 401
        with client.stream("GET", f"/api/sessions/{sid}/events?%74oken={token}") as r:
            assert r.status_code == 200
        for length in (b"abc", b"-1", b"1e3", b"12abc"):
            status, headers, body = raw_request(server.port, b"POST /api/sessions HTTP/1.1\r\nHost: x\r\n"
                                                b"Content-Type: application/json\r\nContent-Length: " + length +
                                                b"\r\n\r\n{}")
            assert status == 400 and headers["content-type"] == "application/json", (length, headers, body)
            assert "Content-Length" in json.loads(body)["error"]
        time.sleep(0.3)  # the last access-log lines
    text = log.read_text()
    assert text.count("/record?") >= 8 and "/events?" in text  # the requests are in the log
    for line in text.splitlines():
        plain = unquote_plus(unquote_plus(line))
        assert token not in plain and watch not in plain, line
