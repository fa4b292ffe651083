"""Slow and greedy clients (issue 28 item 2): connections that send nothing, headers a byte at a time, or a body
that never ends are closed at their deadline while normal requests are served; one address cannot hold more
than its share of connections; idle sessions, from however many addresses, never lock a new player out of
``--max-sessions``.

The attackers use other loopback addresses (127.0.0.2, 127.0.0.3...: all of 127/8 is loopback on Linux), so the
server counts them as other clients, as it would count hosts on a network.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager

import httpx
import pytest

from cardwar.serve.launch import ServerProcess
from tests.serve.conftest import make_api


def connect(port: int, source: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=(source, 0))
    s.settimeout(60)
    return s


def read_to_end(s: socket.socket) -> bytes:
    """Everything the server sends until it closes the connection (a timeout fails the test)."""
    data = b""
    while chunk := s.recv(4096):
        data += chunk
    return data


@contextmanager
def client_from(url: str, source: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=30, transport=httpx.HTTPTransport(local_address=source)) as c:
        yield c


def new_game(client: httpx.Client, seed: int) -> httpx.Response:
    return client.post("/api/sessions", json={"game": "naval", "agent": "random", "seed": seed})


@pytest.mark.slow
def test_slow_connections_are_closed_at_their_deadlines_while_normal_requests_are_served(tmp_path):
    per_address = 12
    with ServerProcess(tmp_path / "s.db", "--reproducible-seeds", "--header-timeout", "2", "--body-timeout", "2",
                       "--keep-alive", "1", "--max-connections-per-client", str(per_address),
                       "--max-streams-per-client", "4") as server, ExitStack() as stack:
        # 10 idle connections from each of two addresses; 10 sending headers a byte at a time; 10 bodies that stop
        idle = [connect(server.port, src) for src in ("127.0.0.2", "127.0.0.3") for _ in range(10)]
        trickle = [connect(server.port, "127.0.0.4") for _ in range(10)]
        body = [connect(server.port, "127.0.0.5") for _ in range(10)]
        for s in idle + trickle + body:
            stack.callback(s.close)
        for s in body:
            s.sendall(b"POST /api/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
                      b"Content-Length: 4000\r\n\r\n{\"game\": \"naval\", ")
        stop = threading.Event()
        request = b"GET /api/health HTTP/1.1\r\nHost: x\r\n\r\n"

        def drip() -> None:  # a byte every 0.1 s to every trickling connection, until each is closed
            for i in range(len(request) * 100):
                if stop.is_set():
                    return
                for s in trickle:
                    try:
                        s.sendall(request[i % len(request): i % len(request) + 1])
                    except OSError:
                        pass
                time.sleep(0.1)

        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()
        stack.callback(dripper.join)
        stack.callback(stop.set)
        # one address over its share: the connections past it are closed as soon as they are accepted
        greedy = [connect(server.port, "127.0.0.6") for _ in range(per_address + 4)]
        for s in greedy:
            stack.callback(s.close)

        # meanwhile a normal client plays
        with httpx.Client(base_url=server.url, timeout=30) as client:
            r = new_game(client, 5)
            assert r.status_code == 201, r.text
            data = r.json()
            auth, state = {"Authorization": f"Bearer {data['token']}"}, data["state"]
            for _ in range(3):
                if state["status"] != "your_turn":
                    break
                r = client.post(f"/api/sessions/{data['id']}/moves", headers=auth,
                                json={"move": state["legal"][0]["move"], "version": state["version"]})
                assert r.status_code == 200, r.text
                state = r.json()["state"]
            assert client.get("/api/health").json()["ok"]

        for s in idle:  # nothing was asked: closed without an answer
            assert read_to_end(s) == b""
        for group in (trickle, body):
            for s in group:
                answer = read_to_end(s)
                head, _, text = answer.partition(b"\r\n\r\n")
                assert head.startswith(b"HTTP/1.1 408"), answer
                assert "did not arrive within 2 s" in json.loads(text)["error"]
        for s in greedy[per_address:]:
            assert read_to_end(s) == b""
        assert "127.0.0.6 holds 12 connections" in server.log_path.read_text()

        # a keep-alive connection is closed once idle for --keep-alive after its answer
        s = connect(server.port, "127.0.0.7")
        stack.callback(s.close)
        s.sendall(request)
        answer = read_to_end(s)
        assert answer.startswith(b"HTTP/1.1 200") and b'"ok":true' in answer
        # and the server still answers (every slow connection is gone)
        with httpx.Client(base_url=server.url, timeout=30) as client:
            assert client.get("/api/health").json()["ok"]


@pytest.mark.slow
def test_idle_sessions_of_several_addresses_do_not_lock_a_new_player_out(tmp_path):
    """An attacker on three addresses fills --max-sessions and leaves its games idle: a fresh address still gets
    a game (the idlest session gives its place up), and the server never holds more than the cap."""
    cap = 6
    with ServerProcess(tmp_path / "s.db", "--reproducible-seeds", "--max-sessions", str(cap),
                       "--max-sessions-per-client", "2", "--session-idle", "1") as server, ExitStack() as stack:
        attackers = [stack.enter_context(client_from(server.url, f"127.0.0.{i}")) for i in (2, 3, 4)]
        made = []
        for n, client in enumerate(attackers):
            for k in range(2):
                r = new_game(client, 10 * n + k)
                assert r.status_code == 201, r.text
                made.append(r.json())
        assert json.loads(httpx.get(server.url + "/api/health").text)["open_sessions"] == cap
        fresh = stack.enter_context(client_from(server.url, "127.0.0.9"))
        deadline = time.monotonic() + 60
        while (r := new_game(fresh, 99)).status_code == 503 and time.monotonic() < deadline:
            assert "games in play" in r.json()["error"] and int(r.headers["retry-after"]) >= 1
            time.sleep(0.2)
        assert r.status_code == 201, r.text  # the attacker's games went idle: one gave its place up
        data = r.json()
        auth = {"Authorization": f"Bearer {data['token']}"}
        move = data["state"]["legal"][0]["move"]
        assert fresh.post(f"/api/sessions/{data['id']}/moves", headers=auth,
                          json={"move": move, "version": data["state"]["version"]}).status_code == 200
        assert json.loads(httpx.get(server.url + "/api/health").text)["open_sessions"] == cap
        gone = attackers[0].get(f"/api/sessions/{made[0]['id']}",  # the idlest: the attacker's first game
                                headers={"Authorization": f"Bearer {made[0]['token']}"})
        assert gone.status_code == 410 and "needed its place" in gone.json()["error"]


def test_a_full_server_refuses_only_while_every_session_is_in_play(tmp_path):
    """In process, with the sessions' last requests set back by hand instead of waiting: two addresses fill
    max_sessions 2; a third gets 503 (Retry-After: when the oldest game in play turns idle) while both are in play,
    and a game once they are idle, the idlest expired for it."""
    for api in make_api(tmp_path, max_sessions=2, max_sessions_per_client=5, session_idle_s=600):
        manager = api.manager
        body = {"game": "naval", "agent": "random", "seed": 1}
        first = manager.create(body, "10.0.0.1")[0]
        second = manager.create(body, "10.0.0.2")[0]
        with pytest.raises(Exception) as refused:
            manager.create(body, "10.0.0.3")
        assert refused.value.status == 503 and 590 <= refused.value.retry_after <= 600
        now = time.time()
        for session, ago in ((first, 700), (second, 650)):  # both idle now; the first the longer
            manager.store.touch(session.id, now - ago)
            session.touched = now - ago
        third = manager.create(body, "10.0.0.3")[0]
        assert manager.store.open_count() == 2 and third.status == "open"
        assert first.status == "expired" and second.status == "open"
        with pytest.raises(Exception) as expired:
            manager.get(first.id)
        assert expired.value.status == 410
