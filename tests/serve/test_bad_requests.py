"""Every mistake a client can make gets a 4xx with a clear message and leaves the game as it was."""

from __future__ import annotations

import re

import pytest

from tests.serve.conftest import make_api


def unchanged(api, sid, auth, before):
    assert api.state(sid, auth).json() == before


@pytest.mark.parametrize("case, status, words", [
    ("malformed JSON", 400, "malformed JSON"),
    ("not an object", 422, "body"),
    ("unknown field", 422, "hack: Extra inputs are not permitted"),
    ("neither move nor id", 422, "one of the two"),
    ("both move and id", 422, "one of the two"),
    ("unreadable move", 422, "moves look like"),
    ("illegal move", 422, "illegal move"),
    ("illegal id", 422, "illegal move"),
    ("no such id", 422, "does not exist"),
    ("stale version", 409, "stale version"),
    ("missing token", 401, "token"),
    ("wrong token", 403, "wrong token"),
    ("not bearer", 401, "token"),
    ("oversized body", 413, "too large"),
    ("move too long", 422, "move"),
])
def test_a_bad_move_request_is_refused_and_changes_nothing(api, case, status, words):
    sid, auth, state = api.start(seed=7)
    url = f"/api/sessions/{sid}/moves"
    json_headers = {**auth, "Content-Type": "application/json"}
    send = {
        "malformed JSON": lambda: api.client.post(url, content=b'{"move": "keep"', headers=json_headers),
        "not an object": lambda: api.client.post(url, content=b'["keep"]', headers=json_headers),
        "unknown field": lambda: api.move(sid, auth, move="keep", hack=1),
        "neither move nor id": lambda: api.move(sid, auth, version=state["version"]),
        "both move and id": lambda: api.move(sid, auth, move="keep", id=3018),
        "unreadable move": lambda: api.move(sid, auth, move="fire the cannons"),
        "illegal move": lambda: api.move(sid, auth, move="pass"),  # the mulligan decision comes first
        "illegal id": lambda: api.move(sid, auth, id=0),
        "no such id": lambda: api.move(sid, auth, id=99999),
        "stale version": lambda: api.move(sid, auth, move="keep", version=state["version"] + 5),
        "missing token": lambda: api.client.post(url, json={"move": "keep"}),
        "wrong token": lambda: api.move(sid, {"Authorization": "Bearer nope"}, move="keep"),
        "not bearer": lambda: api.client.post(url, json={"move": "keep"}, headers={"Authorization": "Basic abc"}),
        "oversized body": lambda: api.client.post(url, content=b'{"move": "' + b"k" * 40_000 + b'"}',
                                                  headers=json_headers),
        "move too long": lambda: api.move(sid, auth, move="keep " * 40),
    }[case]
    r = send()
    assert r.status_code == status, r.text
    assert words in r.json()["error"] and "\n" not in r.json()["error"]
    unchanged(api, sid, auth, state)


def test_a_move_after_the_game_is_over_or_out_of_turn_is_refused(api):
    sid, auth, state = api.start(seed=7)
    api.client.post(f"/api/sessions/{sid}/resign", headers=auth)
    over = api.state(sid, auth).json()
    r = api.move(sid, auth, move="keep")
    assert r.status_code == 409 and "over" in r.json()["error"]
    assert api.client.post(f"/api/sessions/{sid}/resign", headers=auth).status_code == 409
    unchanged(api, sid, auth, over)


def test_the_same_move_sent_twice_is_applied_once(api):
    """A client that retries (a lost response) with the version it saw cannot play a move twice."""
    sid, auth, state = api.start(seed=7)
    assert api.move(sid, auth, move="keep", version=state["version"]).status_code == 200
    after = api.state(sid, auth).json()
    r = api.move(sid, auth, move="keep", version=state["version"])
    assert r.status_code == 409
    unchanged(api, sid, auth, after)


@pytest.mark.parametrize("body, status, words", [
    ({"game": "chess"}, 400, "unknown game"),  # docs/serve.md: an unknown name is a 400
    ({"agent": "alphazero"}, 400, "unknown agent"),
    ({"agent": "ppo", "options": {"path": "/etc/passwd"}}, 400, "set by the server"),
    ({"agent": "mcts", "options": {"seconds": 100}}, 400, "move_ms"),
    ({"agent": "mcts", "options": {"iterations": 10**7}}, 400, "set by the server"),
    ({"agent": "mcts", "options": {"model": "/etc/passwd"}}, 400, "model=ppo"),
    ({"agent": "heuristic", "options": {"samples": 10**5}}, 400, "limit"),
    ({"agent": "heuristic", "options": {"samples": "many"}}, 400, "samples"),
    ({"agent": "heuristic", "options": {"colour": 1}}, 400, "colour"),
    ({"seat": "captain_c"}, 400, "seat"),
    ({"rules": {"deck_out": "never"}}, 400, "deck_out"),
    ({"rules": {"no_such_rule": True}}, 400, "no_such_rule"),
    ({"scenario": "river_crossing"}, 400, "no scenarios"),
    ({"game": "hexwar", "scenario": "../../etc/passwd"}, 400, "unknown scenario"),
    ({"game": "hexwar", "scenario": "configs/scenarios/hexwar/river_crossing.yaml"}, 400, "unknown scenario"),
    ({"seed": -1}, 422, "seed"),
    ({"seed": 2**70}, 422, "seed"),
    ({"move_ms": 0}, 422, "move_ms"),
    ({"move_ms": 3000}, 400, "limit"),
    ({"options": {"x": {"nested": 1}}}, 422, "options"),
    ({"agent": "mcts", "options": {"exploration": "1,iterations=10000000"}}, 400, "give a number"),
    ({"agent": "ppo", "options": {"deterministic": "true,path=/etc/passwd"}}, 400, "give a number"),
    ({"agent": "mcts", "options": {"exploration": "1,model=/etc/hostname"}}, 400, "give a number"),
    ({"agent": "heuristic", "options": {"samples": "100000"}}, 400, "above this server's limit"),
    ({"agent": "mcts", "options": {"rollout_depth": "10000"}}, 400, "above this server's limit"),
    ({"agent": "mcts", "options": {"model": "ppo:x"}}, 400, "give a number"),
    ({"move_ms": 10**9}, 400, "above this server's limit"),
])
def test_a_bad_new_session_is_refused_and_starts_nothing(api, body, status, words):
    r = api.new(**body)
    assert r.status_code == status, r.text
    assert words in r.json()["error"] and "\n" not in r.json()["error"]
    assert api.client.get("/api/health").json()["open_sessions"] == 0


@pytest.mark.parametrize("option, value, cap", [("samples", 10**9, 256), ("samples", 0, 256), ("samples", "1e9", 256),
                                               ("rollout_depth", 10**6, 64), ("rollout_depth", -1, 64)])
def test_a_refused_option_quotes_this_servers_cap_not_the_agents(api, option, value, cap):
    agent = "heuristic" if option == "samples" else "mcts"
    declared = {"samples": 100000, "rollout_depth": 10000}[option]  # the agent's own bound, higher than ours
    r = api.new(agent=agent, options={option: value})
    assert r.status_code == 400, r.text
    message = r.json()["error"]
    assert f"{cap}" in message and "this server's limit" in message, message
    assert not re.search(rf"\b{declared}\b", message), message
    listed = next(o for a in api.client.get("/api/games").json()["games"][0]["agents"] if a["name"] == agent
                  for o in a["options"] if o["name"] == option)
    assert listed["range"].endswith(f"<= {cap}") and str(declared) not in listed["range"]


def test_unknown_sessions_are_404_for_every_route(api):
    for method, path in [("get", "/api/sessions/nope"), ("post", "/api/sessions/nope/moves"),
                         ("post", "/api/sessions/nope/resign"), ("get", "/api/sessions/nope/spectate"),
                         ("get", "/api/sessions/nope/record"), ("get", "/api/sessions/nope/events"),
                         ("get", "/api/sessions/nope/spectate/events"), ("get", "/api/sessions/" + "x" * 500)]:
        kwargs = {"json": {"move": "keep"}} if method == "post" and path.endswith("moves") else {}
        r = getattr(api.client, method)(path, **kwargs)
        assert r.status_code == 404 and "no session" in r.json()["error"], (path, r.text)


def test_only_games_in_play_count_toward_the_per_client_cap_and_the_refusal_says_how_to_go_on(tmp_path):
    """A game over (resigned) or idle for --session-idle frees its place; the 429 says how, with Retry-After."""
    import math
    import time

    for api in make_api(tmp_path, max_sessions_per_client=2, session_idle_s=1.5):
        sid, auth, _ = api.start(seed=1)
        other, other_auth, _ = api.start(seed=2)
        r = api.new(seed=3)
        assert r.status_code == 429, r.text
        message = r.json()["error"]
        assert "this server's cap is 2 per address" in message and "/resign" in message and "New game" in message
        assert 1 <= int(r.headers["retry-after"]) <= math.ceil(1.5)
        assert api.client.post(f"/api/sessions/{sid}/resign", headers=auth).status_code == 200
        assert api.new(seed=3).status_code == 201  # the resigned game no longer counts
        assert api.new(seed=4).status_code == 429
        time.sleep(1.6)  # both games in play go idle: neither counts now
        assert api.new(seed=4).status_code == 201
        assert api.state(other, other_auth).json()["status"] == "your_turn"  # an idle game still plays on
    for api in make_api(tmp_path / "full", max_sessions=1):
        api.start(seed=1)
        r = api.new(seed=2)
        assert r.status_code == 503 and 1 <= int(r.headers["retry-after"]) <= 1800  # the game in play turns idle
        assert "games in play" in r.json()["error"] and "gives its place up" in r.json()["error"]
