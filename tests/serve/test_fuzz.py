"""A fuzz run of the OpenAPI schema (schemathesis): whatever a client sends, never a 5xx.

Schemathesis generates requests from the schema - valid ones and ones that break it
(negative testing) - for every route, against the app on a fresh database. Half the
requests on a session's routes are aimed at real sessions (one a game, one finished)
with their tokens, so moves, resignations and streams are fuzzed too, not only 404s.
"""

from __future__ import annotations

import tempfile
import zlib
from pathlib import Path

import schemathesis
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import status_code_conformance

from cardwar.serve import ServerSettings, create_app

_DB = Path(tempfile.mkdtemp(prefix="cardwar-fuzz-")) / "sessions.db"
app = create_app(ServerSettings(db=_DB, max_sessions_per_client=10_000, max_move_ms=50, default_move_ms=20,
                                extra={"reproducible_seeds": True}))
schema = schemathesis.openapi.from_asgi("/openapi.json", app)
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE])


def _sessions() -> list[tuple[str, str]]:
    with TestClient(app) as client:
        made = [client.post("/api/sessions", json=body).json() for body in (
            {"game": "naval", "agent": "random", "seed": 1},
            {"game": "hexwar", "agent": "random", "seed": 2, "rules": {"hidden_units": True}, "scenario": "random"},
            {"game": "naval", "agent": "random", "seed": 3})]
        client.post(f"/api/sessions/{made[2]['id']}/resign", headers={"Authorization": f"Bearer {made[2]['token']}"})
    return [(m["id"], m["token"]) for m in made]


SESSIONS = _sessions()


@schema.parametrize()
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_request_gets_a_server_error(case):
    if case.path_parameters and "session_id" in case.path_parameters:
        pick = zlib.crc32(repr(case.body).encode() + repr(case.query).encode()) % (2 * len(SESSIONS))
        if case.path.endswith("/events"):  # a live game's stream ends only with the game: use the finished one
            pick = len(SESSIONS) - 1 if pick < len(SESSIONS) else pick
        if pick < len(SESSIONS):  # a real session, with (mostly) its real token
            sid, token = SESSIONS[pick]
            case.path_parameters["session_id"] = sid
            if pick % 2 == 0:
                case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token}"}
    case.call_and_validate(checks=[not_a_server_error, status_code_conformance])
