"""The server offers opponents at a chosen strength as levels (issue 31.4).

``GET /api/games`` lists each game's ``level`` agent with its levels (a rating on the game's ladder each, from
the shipped calibration) and its base bot; a session asks for one with ``{"agent": "level", "options": {"elo":
N}}``. A rating outside the table, or a base bot of the client's choosing, is a 4xx. The page offers the levels in
its opponent list and starts a game at the one chosen.
"""

from __future__ import annotations

import random
from typing import Any

from cardwar import agents
from cardwar import games as registry
from cardwar.agents.levels import LEVELS, calibration
from cardwar.serve.bots import bot_spec
from cardwar.serve.launch import ServerProcess
from tests.serve.browser import api_state, browser, new_page, server, start_game  # noqa: F401 - fixtures


def test_every_game_offers_its_calibrated_levels(api) -> None:
    listed = {g["name"]: g for g in api.client.get("/api/games").json()["games"]}
    for name in registry.names():
        table = calibration(name)
        level = next((a for a in listed[name]["agents"] if a["name"] == "level"), None)
        if table is None:
            assert level is None  # nothing to offer without a calibration
            continue
        assert level is not None and level["base"] == table.base and not level["thinks_for_move_ms"]
        assert [lv["level"] for lv in level["levels"]] == list(range(1, LEVELS + 1))
        elos = [lv["elo"] for lv in level["levels"]]
        assert elos == sorted(elos) and table.top <= elos[-1] < table.top + 1 and elos[0] > 0
        assert {o["name"] for o in level["options"]} == {"elo", "skill"}  # not base: the calibration's own
        for lv in level["levels"]:  # each level offered is one the server builds (the top: the base bot itself)
            bot = agents.make(bot_spec(name, "level", {"elo": lv["elo"]}, 1000), name, seed=0)
            assert bot.skill == 1.0 if lv["level"] == LEVELS else 0.0 < bot.skill < 1.0
        top = level["levels"][-1]["elo"]  # and a session starts at the top one
        r = api.new(game=name, agent="level", options={"elo": top})
        assert r.status_code == 201, (name, top, r.status_code, r.text)


def test_a_game_at_a_level_plays_to_its_end(api) -> None:
    elo = calibration("naval").levels()[2]["elo"]
    sid, auth, state = api.start(game="naval", agent="level", options={"elo": elo}, seed=4)
    assert state["bot"]["agent"] == "level" and state["bot"]["options"] == {"elo": elo}
    final = api.play_out(sid, auth, state, random.Random(2))
    assert final["status"] == "over"


def test_a_level_outside_the_table_or_with_its_own_base_is_refused(api) -> None:
    top = calibration("hexwar").top
    for options, words in (({"elo": top + 400}, "must be >= 0 and <="), ({"elo": -1}, "must be >= 0"),
                           ({"skill": 0.5, "base": "mcts"}, "base")):
        r = api.new(game="hexwar", agent="level", options=options)
        assert 400 <= r.status_code < 500 and words in r.text, (options, r.status_code, r.text)


def test_the_page_offers_the_levels_and_starts_the_one_chosen(server: ServerProcess, browser: Any) -> None:  # noqa: F811
    levels = calibration("hexwar").levels()
    with new_page(browser, {"width": 1360, "height": 940}) as page:
        start_game(page, server.url, "hexwar", agent="level@3", scenario="meeting_engagement")
        state = api_state(server, page)
        assert state["bot"]["agent"] == "level" and state["bot"]["options"] == {"elo": levels[2]["elo"]}
        assert f"bot: level (Elo {levels[2]['elo']})" in page.locator("#headline").inner_text()
        page.evaluate("localStorage.removeItem('cardwar.session')")  # a new game: the setup form, as it was left
        page.goto(server.url)
        page.wait_for_selector("#setup:not([hidden])")
        page.click("label.game-tile:has(input[value=hexwar])")
        assert page.input_value("#agent") == "level@3"
        options = page.locator("#agent optgroup option").all_inner_texts()
        assert options == [f"level {lv['level']} of {LEVELS} (Elo {lv['elo']})" for lv in levels]
        help_text = page.locator("#agent-help").inner_text()
        assert f"Elo {levels[2]['elo']}" in help_text and "heuristic" in help_text


def test_a_cut_level_table_takes_the_levels_away_and_nothing_else(api, monkeypatch, tmp_path) -> None:
    """A table cut short (a hand edit, a full disk): that game lists no level and every other bot still plays;
    a level asked for is a 4xx, never a 500."""
    import cardwar.agents.levels as levels
    from cardwar.serve import bots

    cut = tmp_path / "hexwar.json"
    cut.write_text('{"game": "hexwar", "po')
    real = levels.table_path
    monkeypatch.setattr(levels, "table_path", lambda game: cut if game == "hexwar" else real(game))
    levels.calibration.cache_clear()
    bots.playable.cache_clear()
    try:
        r = api.client.get("/api/games")
        assert r.status_code == 200
        listed = {g["name"]: {a["name"] for a in g["agents"]} for g in r.json()["games"]}
        assert "level" not in listed["hexwar"] and "heuristic" in listed["hexwar"] and "level" in listed["naval"]
        assert api.new(game="hexwar", agent="heuristic").status_code == 201
        refused = api.new(game="hexwar", agent="level", options={"elo": 100})
        assert 400 <= refused.status_code < 500, refused.text
    finally:
        levels.calibration.cache_clear()
        bots.playable.cache_clear()
