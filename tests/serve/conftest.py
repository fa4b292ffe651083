"""Fixtures of the server tests: an app on a fresh database, in-process (TestClient) or as a real process."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from cardwar.serve import ServerSettings, create_app


class Api:
    """A client of one app, with the calls the tests make (each returns the response)."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.watch: dict[str, dict[str, str]] = {}

    @property
    def manager(self) -> Any:
        return self.client.app.state.manager

    def new(self, **body: Any) -> Any:
        return self.client.post("/api/sessions", json={"game": "naval", "agent": "random", **body})

    def start(self, **body: Any) -> tuple[str, dict[str, str], dict]:
        """A new session: its id, its auth header and its first state (the watch token: ``self.watch[id]``)."""
        r = self.new(**body)
        assert r.status_code == 201, r.text
        data = r.json()
        self.watch[data["id"]] = {"Authorization": f"Bearer {data['watch_token']}"}
        return data["id"], {"Authorization": f"Bearer {data['token']}"}, data["state"]

    def record(self, sid: str, auth: dict[str, str] | None = None) -> Any:
        """The record, with the session's token (default: its watch token)."""
        return self.client.get(f"/api/sessions/{sid}/record", headers=auth or self.watch[sid])

    def spectate(self, sid: str, auth: dict[str, str] | None = None) -> Any:
        """The public state, with the watch token unless another header is given."""
        return self.client.get(f"/api/sessions/{sid}/spectate", headers=auth or self.watch[sid])

    def state(self, sid: str, auth: dict[str, str]) -> Any:
        return self.client.get(f"/api/sessions/{sid}", headers=auth)

    def move(self, sid: str, auth: dict[str, str], **body: Any) -> Any:
        return self.client.post(f"/api/sessions/{sid}/moves", json=body, headers=auth)

    def play_out(self, sid: str, auth: dict[str, str], state: dict, rng: random.Random,
                 on_response: Any = None) -> dict:
        """Random legal moves until the game ends; ``on_response(response)`` sees every answer."""
        while state["status"] == "your_turn":
            choice = rng.choice(state["legal"])
            r = self.move(sid, auth, move=choice["move"], version=state["version"])
            assert r.status_code == 200, r.text
            if on_response is not None:
                on_response(r)
            state = r.json()["state"]
        assert state["status"] == "over"
        return state


def make_api(tmp_path: Any, **settings: Any) -> Iterator[Api]:
    extra = settings.pop("extra", {"reproducible_seeds": True})
    tmp_path.mkdir(parents=True, exist_ok=True)
    app = create_app(ServerSettings(db=tmp_path / "sessions.db", extra=extra, **settings))
    with TestClient(app) as client:
        yield Api(client)


@pytest.fixture
def api(tmp_path: Any) -> Iterator[Api]:
    """The API on a fresh database; seeds used as given, so a test's games are the same every run."""
    yield from make_api(tmp_path)
