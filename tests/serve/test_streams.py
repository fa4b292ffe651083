"""Event streams are capped (per session, per client address, in all) and spectators need a token."""

from __future__ import annotations

import time
from contextlib import ExitStack

import httpx
import pytest

from cardwar.serve.launch import ServerProcess


def new_game(client: httpx.Client) -> dict:
    r = client.post("/api/sessions", json={"game": "naval", "agent": "random"})
    assert r.status_code == 201, r.text
    return r.json()


def open_stream(stack: ExitStack, client: httpx.Client, path: str, token: str) -> httpx.Response:
    """An event stream held open until ``stack`` closes (its first event is not read)."""
    return stack.enter_context(client.stream("GET", path, params={"token": token}, timeout=10))


def streams_open(client: httpx.Client) -> int:
    return client.get("/api/health").json()["streams"]


def wait_for_streams(client: httpx.Client, n: int) -> None:
    deadline = time.monotonic() + 10
    while streams_open(client) != n:
        assert time.monotonic() < deadline, f"the server still counts {streams_open(client)} streams, not {n}"
        time.sleep(0.05)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("streams")
    with ServerProcess(tmp / "s.db", "--max-streams-per-session", "2", "--max-streams-per-client", "3",
                       "--max-streams", "4") as s:
        yield s


def client_from(server: ServerProcess, address: str) -> httpx.Client:
    """A client whose connections come from ``address`` (any 127.x.y.z is this machine)."""
    return httpx.Client(base_url=server.url, timeout=10, transport=httpx.HTTPTransport(local_address=address))


def test_streams_are_capped_per_session_per_client_and_in_all(server: ServerProcess) -> None:
    with client_from(server, "127.0.0.1") as one, client_from(server, "127.0.0.2") as two, \
            client_from(server, "127.0.0.3") as three, ExitStack() as held:
        limits = one.get("/api/games").json()["limits"]
        assert (limits["max_streams_per_session"], limits["max_streams_per_client"], limits["max_streams"]) == (2, 3, 4)
        a, b, c = new_game(one), new_game(one), new_game(one)
        events = lambda g: f"/api/sessions/{g['id']}/events"  # noqa: E731
        spectate = lambda g: f"/api/sessions/{g['id']}/spectate/events"  # noqa: E731
        first = open_stream(held, one, events(a), a["token"])
        assert first.status_code == 200 and first.headers["content-type"].startswith("text/event-stream")
        assert open_stream(held, one, spectate(a), a["watch_token"]).status_code == 200
        r = one.get(events(a), params={"token": a["token"]})  # a third on one session
        assert r.status_code == 429 and "this server's cap is 2" in r.json()["error"], r.text
        assert open_stream(held, one, events(b), b["token"]).status_code == 200
        r = one.get(events(c), params={"token": c["token"]})  # a fourth from one address
        assert r.status_code == 429 and "from this address (this server's cap is 3)" in r.json()["error"], r.text
        assert open_stream(held, two, spectate(c), c["watch_token"]).status_code == 200  # another address may
        r = three.get(spectate(c), params={"token": c["watch_token"]})  # a fifth in all
        assert r.status_code == 503 and int(r.headers["retry-after"]) > 0 and "event streams" in r.json()["error"]
        assert streams_open(one) == 4
        first.close()  # a stream that ends gives its place back
        wait_for_streams(one, 3)
        assert open_stream(held, one, events(a), a["token"]).status_code == 200
    with httpx.Client(base_url=server.url, timeout=10) as client:
        wait_for_streams(client, 0)


def test_spectators_need_the_watch_token_and_see_public_information_only(server: ServerProcess) -> None:
    with httpx.Client(base_url=server.url, timeout=10) as client:
        game = new_game(client)
        sid, token, watch = game["id"], game["token"], game["watch_token"]
        bearer = lambda t: {"Authorization": f"Bearer {t}"}  # noqa: E731
        r = client.get(f"/api/sessions/{sid}/spectate")
        assert r.status_code == 401 and "watch token" in r.json()["error"]
        assert client.get(f"/api/sessions/{sid}/spectate", headers=bearer("nope")).status_code == 403
        public = client.get(f"/api/sessions/{sid}/spectate", headers=bearer(watch)).json()
        assert public["you"] is None and public["view"]["hand"] == [] and public["legal"] == []
        assert client.get(f"/api/sessions/{sid}/spectate", headers=bearer(token)).json() == public  # the player may
        # the watch token is for watching: not the player's view, its moves, its resignation
        assert client.get(f"/api/sessions/{sid}", headers=bearer(watch)).status_code == 403
        move = game["state"]["legal"][0]["move"]
        assert client.post(f"/api/sessions/{sid}/moves", headers=bearer(watch), json={"move": move}).status_code == 403
        assert client.post(f"/api/sessions/{sid}/resign", headers=bearer(watch)).status_code == 403
        assert client.get(f"/api/sessions/{sid}/spectate/events").status_code == 401
        # the record (every hidden card) once the game is over, to either token, never without one
        assert client.get(f"/api/sessions/{sid}/record", headers=bearer(watch)).status_code == 409
        assert client.post(f"/api/sessions/{sid}/resign", headers=bearer(token)).status_code == 200
        assert client.get(f"/api/sessions/{sid}/record").status_code == 401
        assert client.get(f"/api/sessions/{sid}/record", params={"token": watch}).json()["quit_by"] == "captain_a"
        assert client.get(f"/api/sessions/{sid}/record", headers=bearer(token)).status_code == 200
