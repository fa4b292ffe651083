"""The smaller promises of issue 28 item 2: HEAD answers, docs with nothing from the network, a typed OpenAPI with
its security schemes, ``limits`` listing every flag, a 409 that names a version reads return, and a shutdown that
ends open event streams with an event instead of cancelling them."""

from __future__ import annotations

import json
import re
import signal
import threading
import time
from pathlib import Path

import httpx

from cardwar.serve.launch import ServerProcess
from tests.serve.conftest import make_api

DOCS = Path(__file__).resolve().parents[2] / "docs" / "serve.md"


def test_head_answers_200_where_get_does(api):
    for path in ("/", "/docs", "/redoc", "/static/app.js"):
        head, get = api.client.head(path), api.client.get(path)
        assert head.status_code == get.status_code == 200, path
        assert head.content == b"" and head.headers["content-type"] == get.headers["content-type"]


def test_the_docs_pages_load_nothing_from_another_host(api):
    """ReDoc's script as served holds no address it would load from (its sidebar logo came from Redocly's CDN); the
    pages name only this server's scripts and styles."""
    for page in ("/docs", "/redoc"):
        html = api.client.get(page).text
        for ref in re.findall(r'(?:src|href)="([^"]+)"', html) + re.findall(r"url: '([^']+)'", html):
            assert ref.startswith("/"), (page, ref)
    script = api.client.get("/static-docs/redoc.standalone.js")
    assert script.status_code == 200 and b"cdn.redoc.ly" not in script.content
    assert b'src:"/static/favicon.svg"' in script.content  # the logo, from this server
    assert api.client.get("/static/favicon.svg").status_code == 200


def test_the_openapi_schema_types_the_answers_and_names_the_token_schemes(api):
    spec = api.client.get("/openapi.json").json()
    schemes = spec["components"]["securitySchemes"]
    assert schemes["token"] == {**schemes["token"], "type": "http", "scheme": "bearer"}  # Swagger: Authorize
    assert schemes["token_query"]["in"] == "query" and schemes["token_query"]["name"] == "token"
    paths, models = spec["paths"], spec["components"]["schemas"]

    def answer(path: str, method: str, status: str) -> dict:
        ref = paths[path][method]["responses"][status]["content"]["application/json"]["schema"]["$ref"]
        return models[ref.rsplit("/", 1)[1]]

    state = answer("/api/sessions/{session_id}", "get", "200")
    assert {"version", "status", "view", "legal", "log", "result"} <= set(state["properties"])
    assert {"id", "token", "watch_token", "state"} <= set(answer("/api/sessions", "post", "201")["properties"])
    assert {"bot_moves", "state"} <= set(answer("/api/sessions/{session_id}/moves", "post", "200")["properties"])
    for path, method in (("/api/sessions/{session_id}/resign", "post"), ("/api/sessions/{session_id}/spectate", "get")):
        assert answer(path, method, "200") == state
    for path, item in paths.items():
        for method, op in item.items():
            needs = "{session_id}" in path
            assert bool(op.get("security")) == needs, (path, method)
            assert "authorization" not in [p["name"].lower() for p in op.get("parameters", [])]  # the scheme says it
    # and the typed answer is what the server sends
    sid, auth, first = api.start(seed=4)
    assert set(first) <= set(state["properties"])
    assert set(state["required"]) <= set(first)


def serve_parser():
    """The ``cardwar serve`` sub-parser of the command line."""
    import argparse

    from cardwar.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices["serve"]


def test_limits_list_every_flag_but_the_address_the_database_and_the_log_level(api):
    """docs/serve.md: ``limits`` is "every flag above but the address, the database and the log level"; each flag
    of the docs' table is a real flag, and each real flag is in the table."""
    limits = api.client.get("/api/games").json()["limits"]
    flags = {a.dest: a.option_strings[0] for a in serve_parser()._actions if a.option_strings and a.dest != "help"}
    for dest, flag in flags.items():
        if dest in ("host", "port", "db", "log_level"):
            continue
        assert {dest, dest + "_s", dest + "s"} & set(limits), f"{flag} ({dest}) is not in limits: {sorted(limits)}"
    table = DOCS.read_text().split("## The API")[0]
    documented = set(re.findall(r"`(--[a-z-]+)", table))
    assert documented == set(flags.values()), documented ^ set(flags.values())


def test_a_stale_move_during_the_bots_answer_names_the_version_reads_return(tmp_path):
    """While a move waits for the bot (a search thinking for move_ms), a second move with an old version is refused;
    the version its 409 names is the one a read returns right after (never one no read can see yet)."""
    for api in make_api(tmp_path, max_move_ms=3000):
        sid, auth, state = api.start(agent="mcts", move_ms=1500, seed=3)
        done: dict = {}
        first = threading.Thread(target=lambda: done.update(r=api.move(sid, auth, move=state["legal"][0]["move"],
                                                                        version=state["version"])))
        first.start()
        time.sleep(0.3)  # the bot is thinking (1.5 s)
        r = api.move(sid, auth, move=state["legal"][0]["move"], version=state["version"] - 1)
        read = api.state(sid, auth).json()["version"]
        first.join()
        assert r.status_code == 409 and done["r"].status_code == 200
        named = int(re.search(r"last saved state is version (\d+)", r.json()["error"]).group(1))
        assert named == read


def test_sigterm_ends_open_streams_with_a_close_event_and_exits_cleanly(tmp_path):
    """uvicorn waits for open requests when it shuts down; an event stream never ends by itself, so it was cancelled
    after the 5 s grace with an error in the log and no event. Now every stream gets ``event: close`` and ends,
    and the server shuts down with no error logged (its status is the signal's: uvicorn raises it again once
    shut down, so that a process manager sees why it ended)."""
    server = ServerProcess(tmp_path / "s.db", "--reproducible-seeds")
    with server, httpx.Client(base_url=server.url, timeout=60) as client:
        r = client.post("/api/sessions", json={"game": "naval", "agent": "random", "seed": 1})
        sid, token = r.json()["id"], r.json()["token"]
        lines: list[str] = []
        opened = threading.Event()

        def read() -> None:
            with client.stream("GET", f"/api/sessions/{sid}/events", params={"token": token}) as stream:
                for line in stream.iter_lines():
                    lines.append(line)
                    if line.startswith("data: "):
                        opened.set()

        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        assert opened.wait(30)
        server.proc.send_signal(signal.SIGTERM)
        reader.join(60)
        assert not reader.is_alive()
        assert server.proc.wait(60) in (0, -signal.SIGTERM)  # uvicorn re-raises the signal once it has shut down
        events = [ln for ln in lines if ln.startswith("event: ")]
        assert events == ["event: state", "event: close"], lines
        closing = json.loads([ln for ln in lines if ln.startswith("data: ")][-1][len("data: "):])
        assert "shutting down" in closing["reason"]
    log = server.log_path.read_text()
    assert "ERROR" not in log and "Cancel" not in log and "Traceback" not in log, log
