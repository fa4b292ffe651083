"""The bot server's API as a front end uses it: discover, start, read, move, resign, record."""

from __future__ import annotations

import hmac
import random

import pytest

from cardwar.record import GameRecord, final_state, result_of, SEATS
from cardwar import games as registry
from tests.serve.conftest import make_api


def test_discovery_lists_games_seats_rules_scenarios_and_agents(api):
    data = api.client.get("/api/games").json()
    games = {g["name"]: g for g in data["games"]}
    assert set(games) == set(registry.names())  # the game registry's games (cardwar/games.py)
    sk = games["skirmish"]
    assert sk["seats"] == ["player_0", "player_1"] and "duel" in sk["scenarios"] and "random" in sk["scenarios"]
    assert sk["page"] == "skirmish.js" and sk["title"] and {"random"} <= {a["name"] for a in sk["agents"]}
    assert {r["name"]: r for r in sk["rules"]}["sequence"]["choices"] == ["phases", "deck"]
    assert games["naval"]["seats"] == ["captain_a", "captain_b"] and games["hexwar"]["seats"] == ["blue", "red"]
    hex_rules = {r["name"]: r for r in games["hexwar"]["rules"]}
    assert hex_rules["hidden_units"]["default"] is False and hex_rules["hidden_units"]["choices"] == [True, False]
    assert hex_rules["hidden_units"]["help"].startswith("Optional rule 'Hidden Units'")  # the field's docstring
    assert "river_crossing" in games["hexwar"]["scenarios"] and "random" in games["hexwar"]["scenarios"]
    assert games["naval"]["scenarios"] == []
    agents = {a["name"]: a for a in games["naval"]["agents"]}
    assert {"random", "heuristic", "mcts", "ppo"} <= set(agents)
    # the server picks the model and the thinking time: a client cannot name a file or its own seconds
    assert {o["name"] for o in agents["ppo"]["options"]} == {"deterministic"}
    assert "seconds" not in {o["name"] for o in agents["mcts"]["options"]} and agents["mcts"]["thinks_for_move_ms"]
    assert next(o for o in agents["mcts"]["options"] if o["name"] == "model")["choices"] == ["ppo"]
    assert data["limits"]["max_move_ms"] >= data["limits"]["default_move_ms"]


@pytest.mark.parametrize("game, body", [("naval", {"agent": "heuristic"}),
                                        ("hexwar", {"agent": "heuristic", "scenario": "river_crossing"}),
                                        ("skirmish", {"agent": "random", "scenario": "duel"})])
def test_a_whole_game_against_the_bot_ends_with_a_record_that_replays(api, game, body):
    sid, auth, state = api.start(game=game, seed=5, **body)
    assert state["you"] == SEATS[game][0] and state["status"] == "your_turn" and state["legal"]
    final = api.play_out(sid, auth, state, random.Random(1))
    assert final["legal"] == [] and final["result"]["winner"] in (*SEATS[game], None)
    record = GameRecord.from_dict(api.record(sid).json())
    assert record.finished and record.players[SEATS[game][0]] == "human"
    assert result_of(final_state(record), SEATS[game]) == record.result == final["result"]
    assert api.move(sid, auth, move=state["legal"][0]["move"]).status_code == 409  # over: nothing more to play


def test_the_bot_moves_first_when_the_person_takes_the_second_seat(api):
    sid, auth, state = api.start(seat="captain_b", agent="heuristic", seed=3)
    assert state["you"] == "captain_b" and state["bot"]["seat"] == "captain_a"
    assert state["status"] == "your_turn" and state["to_move"] == "captain_b"
    assert state["log"] == ["Captain A has made a mulligan decision"]  # A decides first (Mulligan), B does not see how
    assert state["log_seats"] == ["captain_a"]
    r = api.new(seat="captain_b", agent="heuristic", seed=3)
    assert r.json()["bot_moves"] == state["log"]


def test_a_move_answers_with_the_bots_moves_and_the_new_view(api):
    sid, auth, state = api.start(seed=11)
    keep = next(m for m in state["legal"] if m["move"] == "keep")
    r = api.move(sid, auth, id=keep["id"], version=state["version"])  # by id, as well as by notation
    assert r.status_code == 200
    body = r.json()
    new = body["state"]
    assert new["version"] > state["version"] and new["log"][0] == "keep"
    assert new["log"][1:] == body["bot_moves"] and body["bot_moves"]  # the bot kept or redrew, then played
    assert "timing" not in body and "server-timing" not in r.headers  # only with --timing (tests/serve/test_timing.py)
    assert new == api.state(sid, auth).json()


def test_notation_and_id_name_the_same_move(api):
    a = api.start(seed=4)
    b = api.start(seed=4)
    first = a[2]["legal"][1]
    ra = api.move(a[0], a[1], move=first["move"]).json()["state"]
    rb = api.move(b[0], b[1], id=first["id"]).json()["state"]
    assert ra["view"] == rb["view"] and ra["log"] == rb["log"]


def test_resigning_ends_the_game_and_records_who_quit(api):
    sid, auth, state = api.start(game="hexwar", seed=2)
    r = api.client.post(f"/api/sessions/{sid}/resign", headers=auth)
    assert r.status_code == 200 and r.json()["result"] == {"winner": "red", "resigned": "blue"}
    record = GameRecord.from_dict(api.record(sid).json())
    assert record.quit_by == "blue" and not record.finished
    final_state(record)  # replays


def test_the_spectator_sees_the_board_but_no_hand_and_no_moves(api):
    sid, auth, state = api.start(seed=8)
    state = api.move(sid, auth, move="keep").json()["state"]
    public = api.spectate(sid).json()
    assert public["you"] is None and public["legal"] == [] and public["view"]["hand"] == []
    assert public["view"]["board"] == state["view"]["board"]  # ships at sea are face up (Deploy)
    assert public["view"]["hand_counts"] == state["view"]["hand_counts"]


def test_the_record_is_given_only_once_the_game_is_over(api):
    sid, auth, _ = api.start(seed=1)
    r = api.record(sid)
    assert r.status_code == 409 and "once the game is over" in r.json()["error"]


def test_the_bot_thinks_within_the_sessions_move_time(api):
    sid, auth, state = api.start(agent="mcts", move_ms=120)
    session = api.manager.get(sid)
    assert session.settings["bot_spec"] == "mcts:seconds=0.096"  # 80 %: the rest is the server's
    assert state["bot"]["move_ms"] == 120
    typed = api.start(agent="heuristic", options={"samples": "64", "attack_threshold": None})[2]["bot"]["options"]
    assert typed == {"samples": 64}  # typed as the agent declares, a null left to its default
    r = api.new(agent="mcts", move_ms=10**5)
    assert r.status_code == 400 and "above this server's limit" in r.json()["error"]


def test_tokens_are_compared_in_constant_time(api, monkeypatch):
    calls = []
    real = hmac.compare_digest
    monkeypatch.setattr(hmac, "compare_digest", lambda a, b: calls.append((a, b)) or real(a, b))
    sid, auth, _ = api.start(seed=1)
    assert api.state(sid, auth).status_code == 200
    wrong = {"Authorization": auth["Authorization"][:-1] + ("A" if auth["Authorization"][-1] != "A" else "B")}
    assert api.state(sid, wrong).status_code == 403
    assert len(calls) == 2


def test_an_idle_session_expires(tmp_path):
    import time

    for api in make_api(tmp_path, session_ttl_s=0.3):
        sid, auth, _ = api.start(seed=1)
        time.sleep(0.5)
        r = api.state(sid, auth)
        assert r.status_code == 410 and "expired" in r.json()["error"]
        assert api.client.get("/api/health").json()["open_sessions"] == 0


def test_cors_is_off_by_default_and_allows_only_the_origins_given(tmp_path):
    preflight = {"Origin": "https://game.example", "Access-Control-Request-Method": "POST"}
    for api in make_api(tmp_path / "off"):
        r = api.client.options("/api/sessions", headers=preflight)
        assert "access-control-allow-origin" not in r.headers
    for api in make_api(tmp_path / "on", cors_origins=("https://game.example",)):
        r = api.client.options("/api/sessions", headers=preflight)
        assert r.headers["access-control-allow-origin"] == "https://game.example"
        other = api.client.options("/api/sessions", headers={**preflight, "Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers


def test_the_page_and_the_openapi_schema_are_served(api):
    page = api.client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    schema = api.client.get("/openapi.json").json()
    assert {"/api/games", "/api/sessions", "/api/sessions/{session_id}/moves"} <= set(schema["paths"])
    assert api.client.get("/docs").status_code == 200


@pytest.mark.parametrize("page, script", [("/docs", "swagger-ui-bundle.js"), ("/redoc", "redoc.standalone.js")])
def test_the_api_docs_load_everything_from_this_server(api, page, script):
    """/docs and /redoc name no other host (offline they would be blank) and their scripts are served here."""
    import re

    html = api.client.get(page).text
    assert not re.search(r"(https?:)?//[a-z0-9.-]+", html, re.I), "the docs page names another host"
    refs = re.findall(r"""(?:src|href)=["']([^"']+)["']""", html)
    assert any(ref.endswith(script) for ref in refs), refs
    policy = api.client.get(page).headers["content-security-policy"]  # nor may anything on the page reach out
    assert "default-src 'self'" in policy and "img-src 'self' data: blob:" in policy and "https" not in policy
    for ref in refs:
        assert ref.startswith("/"), ref
        r = api.client.get(ref)
        assert r.status_code == 200 and len(r.content) > 100, (ref, r.status_code)
        if ref.endswith(".js"):
            assert "javascript" in r.headers["content-type"] and len(r.content) > 100_000  # the real bundle
    assert api.client.get("/openapi.json").status_code == 200
