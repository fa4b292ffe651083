"""The web page of ``cardwar serve`` in a real browser (Playwright driving Debian's chromium).

Moves are chosen the way a person chooses them: by clicking what the page highlights
(``[data-step].clickable``) and the move buttons (``button[data-move]``); the API is read
only to check the page. Screenshots of both boards go to ``tests/artifacts/``.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

import pytest

from cardwar.serve.launch import ServerProcess
from tests.serve.browser import ARTIFACTS, BOX, PHONE, api_get, api_state, browser, new_page, play_move, \
    play_to_end, rect_overlap, saved_session, server, settle, start_game, status, version

__all__ = ["browser", "server"]  # the module's fixtures (tests/serve/browser.py)


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A fresh page (its own localStorage); a script error on it fails the test."""
    with new_page(browser, {"width": 1360, "height": 940}) as page:
        yield page


def log_lines(page: Any) -> list[str]:
    """The log as the page shows it (the page puts each part of a line on its own)."""
    return [" ".join(line.split()) for line in page.locator("#log li").all_inner_texts()]


def log_data(page: Any) -> list[str]:
    """The log entries in the API's words, as each line of the page's log keeps them (``data-line``)."""
    return page.locator("#log li").evaluate_all("es => es.map(e => e.dataset.line)")


def api_log(state: dict[str, Any]) -> list[str]:
    return [" ".join(line.replace(";   ", "; ").split()) for line in state["log"]]


def reason_of(result: dict[str, Any]) -> str | None:
    """Why the game ended, as the API says it (at the top of the result, or in its detail)."""
    return result.get("reason") or (result.get("detail") or {}).get("reason")


def assert_result_shown(server: ServerProcess, page: Any) -> None:
    state = api_state(server, page)
    assert state["status"] == "over" and state["result"] is not None
    result = page.locator("#result")
    result.wait_for()
    headline = result.locator(".result-head").inner_text()
    winner = state["result"].get("winner")
    expected = "You win!" if winner == state["you"] else ("A draw" if winner in (None, "draw") else "The bot wins")
    assert headline == expected
    assert page.locator("#turn").inner_text().startswith("Game over")
    link = page.locator("#record-link")
    record = api_get(server, str(link.get_attribute("href")))
    if state["result"].get("resigned"):  # recorded as a quit, as terminal play records one
        assert record["quit_by"] == state["you"] and record["result"] is None
    else:
        assert record["result"]["winner"] == winner
    assert not page.locator("#resign").is_visible()
    reason = reason_of(state["result"])
    if reason:  # why it ended, whatever the game (naval, hexwar and skirmish send one)
        assert reason.replace("_", " ").lower() in result.locator(".result-why").inner_text().lower()
    assert log_data(page) == state["log"]  # an entry a move, each the API's
    if state["game"] != "skirmish":  # shown in the API's words (the skirmish says them in sentences: test_phone.py)
        # Tank Attack's page says the player's own steps in sentences (test_tankattack_page.py): the bot's entries here
        keep = [i for i, seat in enumerate(state["log_seats"]) if state["game"] != "tankattack" or seat != state["you"]]
        api, shown = api_log(state), log_lines(page)
        assert len(api) == len(shown)
        assert [api[i].replace(";", "") for i in keep] == [shown[i].replace(";", "") for i in keep]


def test_naval_game_played_by_clicks_to_its_end(server: ServerProcess, page: Any) -> None:
    start_game(page, server.url, "naval")
    assert page.locator("#board .sea [data-step^='zone:']").count() == 9
    moves = play_to_end(page, random.Random(7), screenshot=ARTIFACTS / "serve-naval.png")
    assert moves > 5
    assert_result_shown(server, page)
    assert (ARTIFACTS / "serve-naval.png").stat().st_size > 10_000


@pytest.mark.parametrize("scenario,rules", [
    ("meeting_engagement", {}),
    ("hill_and_hedgerows", {"hidden_units": True, "joint_activation": True}),
], ids=["open", "hidden-units"])
def test_hexwar_game_played_by_clicks_to_its_end(server: ServerProcess, page: Any, scenario: str,
                                                 rules: dict[str, Any]) -> None:
    start_game(page, server.url, "hexwar", scenario=scenario, rules=rules)
    state = api_state(server, page)
    assert state["scenario"] == scenario
    for name, value in rules.items():
        assert state["rules"][name] == value
    assert page.locator("svg.hexmap [data-step^='hex:']").count() >= 100
    shot = ARTIFACTS / "serve-hexwar.png" if not rules else None
    moves = play_to_end(page, random.Random(3), max_moves=400, screenshot=shot, screenshot_after=12)
    assert moves > 5
    assert_result_shown(server, page)
    if shot is not None:
        assert shot.stat().st_size > 10_000


def test_an_illegal_move_typed_in_the_box_is_refused_and_changes_nothing(server: ServerProcess, page: Any) -> None:
    start_game(page, server.url, "naval")
    before_version, before_log = version(page), log_lines(page)
    assert status(page) == "your_turn"
    for typed, expected in [("sink E", "illegal move"), ("fly to the moon", "")]:
        page.fill("#move-input", typed)
        page.press("#move-input", "Enter")
        settle(page)
        error = page.locator("#error")
        error.wait_for()
        message = error.inner_text()
        assert message and expected in message
        assert version(page) == before_version and log_lines(page) == before_log
        assert api_state(server, page)["version"] == before_version
    # a legal move typed in the box is played, and the error goes away
    legal = api_state(server, page)["legal"]
    page.fill("#move-input", next(m["move"] for m in legal if m["move"] in ("keep", "pass") or m["steps"]))
    page.press("#move-input", "Enter")
    settle(page)
    assert version(page) > before_version
    assert not page.locator("#error").is_visible()


def test_a_reload_continues_the_game_and_new_game_forgets_it(server: ServerProcess, page: Any) -> None:
    rng = random.Random(11)
    start_game(page, server.url, "hexwar", scenario="river_crossing", seat="red")
    for _ in range(3):
        play_move(page, rng)
    session, v, log = page.get_attribute("#game", "data-session"), version(page), log_lines(page)
    # a half-built move is forgotten by a reload, the game is not
    page.reload()
    page.wait_for_selector("#game:not([hidden])[data-version]")
    settle(page)
    assert page.get_attribute("#game", "data-session") == session
    assert version(page) == v and log_lines(page) == log
    assert saved_session(page)["id"] == session
    play_move(page, rng)
    assert version(page) > v
    # resigning ends it with the result and the record
    page.click("#resign")
    page.click("#resign")  # the second click confirms
    settle(page)
    page.wait_for_selector("#game[data-status=over]")
    assert_result_shown(server, page)
    assert page.locator("#result .result-why").inner_text().lower().find("resigned") >= 0
    # "New game" forgets the session: the setup form comes back, also after a reload
    page.click("#new-game")
    page.wait_for_selector("#setup:not([hidden])")
    assert page.evaluate("localStorage.getItem('cardwar.session')") is None
    page.reload()
    page.wait_for_selector("#setup:not([hidden])")
    assert page.locator("#game").is_hidden()


def test_clicks_build_a_move_step_by_step(server: ServerProcess, page: Any) -> None:
    """Naval: a card, then a zone; the highlights follow the clicks and Escape clears them."""
    start_game(page, server.url, "naval", rules={"mulligan": False, "first_player": "A"})
    state = api_state(server, page)
    assert state["view"]["phase"] == "action" and state["status"] == "your_turn"
    first_steps = {m["steps"][0] for m in state["legal"] if m["steps"]}
    lit = set(page.locator("#board [data-step].clickable").evaluate_all("es => es.map(e => e.dataset.step)"))
    assert lit == first_steps
    card = sorted(first_steps)[0]
    page.click(f"#board [data-step='{card}']")
    lit = set(page.locator("#board [data-step].clickable").evaluate_all("es => es.map(e => e.dataset.step)"))
    assert lit == {m["steps"][1] for m in state["legal"] if m["steps"][:1] == [card]}
    assert page.locator(f"#board [data-step='{card}']").get_attribute("class").split().count("selected") == 1
    other = sorted(first_steps)[1]  # clicking another card switches to it
    page.click(f"#board [data-step='{other}']")
    assert page.locator("#board .selected").evaluate_all("es => es.map(e => e.dataset.step)") == [other]
    page.keyboard.press("Escape")
    assert page.locator("#board .selected").count() == 0
    lit = set(page.locator("#board [data-step].clickable").evaluate_all("es => es.map(e => e.dataset.step)"))
    assert lit == first_steps
    page.click(f"#board [data-step='{card}']")
    zone = page.locator("#board [data-step^='zone:'].clickable").first.get_attribute("data-step")
    page.click(f"#board [data-step='{zone}']")
    settle(page)
    after = api_state(server, page)
    assert after["version"] > state["version"]
    assert after["log"][len(state["log"])] == f"deploy {card[5:]} {zone[5:]}"
    # the move buttons do what they say
    page.click("#choices button[data-move=pass]")
    settle(page)
    assert api_state(server, page)["log"][len(after["log"])] == "pass"


def test_a_searching_bot_starts_with_the_default_move_time_and_any_round_one(server: ServerProcess, page: Any) -> None:
    """The move-time field takes the server's default and round values (a search thinks for it)."""
    start_game(page, server.url, "naval", agent="mcts")
    assert status(page) == "your_turn"
    assert api_state(server, page)["bot"]["move_ms"] == 300
    page.evaluate("localStorage.clear()")  # forget the game: the setup form again
    page.goto(server.url)
    page.wait_for_selector("#setup:not([hidden])")
    page.select_option("#agent", "mcts")
    page.fill("#move_ms", "500")
    assert page.evaluate("document.querySelector('#move_ms').checkValidity()")


def test_a_phone_shows_a_readable_headline_big_hexes_the_scenario_and_units_on_objectives(
        server: ServerProcess, browser: Any) -> None:
    """390 x 844: the headline keeps its size and its row, a hex is a finger wide (the map scrolls in its box,
    not the page), the scenario's story and victory condition are shown, the legend has every terrain, and an
    objective's star never covers the unit in its hex."""
    with new_page(browser, PHONE, phone=True) as page:
        start_game(page, server.url, "hexwar", scenario="river_crossing", seat="red")  # red holds F8 at the start
        state = api_state(server, page)
        headline = page.locator("#headline")
        size = float(headline.evaluate("e => getComputedStyle(e).fontSize").removesuffix("px"))
        box = headline.bounding_box()
        assert size >= 16 and box["width"] >= 300 and box["height"] >= 16, (size, box)
        assert "River crossing" in headline.inner_text()
        assert headline.evaluate("e => e.scrollWidth <= e.clientWidth + 1"), "the headline is cut off"
        cell = page.locator("svg.hexmap [data-hex=A1] .hit").bounding_box()
        assert cell["width"] >= 40 and cell["height"] >= 44, cell
        assert page.locator(".map-box").evaluate("e => e.scrollWidth > e.clientWidth")  # the map scrolls...
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth + 1")  # ...not the page
        # the scenario: its story and its victory condition
        info = page.locator("#scenario-info")
        assert info.is_visible() and "River crossing" in info.inner_text()
        assert "Holland, September 1944" in info.locator(".scenario-story").inner_text()
        victory = " ".join(info.locator(".scenario-victory").inner_text().split())
        assert victory == "Victory: " + " ".join(state["map"]["victory"].removeprefix("Victory: ").split())
        # every terrain in the legend
        shown = set(page.locator(".legend [data-terrain]").evaluate_all("es => es.map(e => e.dataset.terrain)"))
        assert {"clear", "woods", "buildings", "broken", "hill", "river", "ford", "bridge", "marsh", "lake"} <= shown
        # a unit on an objective: the star is beside it, never over it, and units are drawn above objectives
        objectives = [o["hex"] for o in state["map"]["objectives"]]
        held = [(u, objectives.index(u["hex"])) for u in state["view"]["units"] if u["hex"] in objectives]
        assert held, "the test wants a unit on an objective hex"
        for unit, i in held:
            counter = page.locator(f"svg.hexmap .unit[data-unit='{unit['id']}'] .counter").evaluate(BOX)
            star = page.locator("svg.hexmap .objective").nth(i).locator(".obj-star").evaluate(BOX)
            hex_box = page.locator(f"svg.hexmap [data-hex={unit['hex']}] .hit").evaluate(BOX)
            assert rect_overlap(counter, star) == 0, (unit, counter, star)
            assert rect_overlap(star, hex_box) == (star["right"] - star["left"]) * (star["bottom"] - star["top"])
        assert page.evaluate("""() => { const g = [...document.querySelector('svg.hexmap').children];
            const at = name => g.findIndex(e => e.classList.contains(name));
            return at('units') > at('objectives'); }""")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "serve-phone.png"), full_page=True)
        play_move(page, random.Random(2))  # and it plays on a phone
        assert version(page) > state["version"]


def test_new_game_resigns_the_game_left_so_it_no_longer_counts(server: ServerProcess, page: Any) -> None:
    """Leaving a game in play by New game resigns it (a second click confirms): the old session is over, as
    resigned, and a new game can start at once."""
    start_game(page, server.url, "naval")
    old = saved_session(page)
    assert api_get(server, f"/api/sessions/{old['id']}", old["token"])["status"] == "your_turn"
    page.click("#new-game")
    assert "Resign" in page.locator("#new-game").inner_text()  # asks first
    assert api_get(server, f"/api/sessions/{old['id']}", old["token"])["status"] == "your_turn"
    page.click("#new-game")
    page.wait_for_selector("#setup:not([hidden])")
    page.wait_for_selector("#game[data-busy=false]", state="attached")
    left = api_get(server, f"/api/sessions/{old['id']}", old["token"])
    assert left["status"] == "over" and left["result"] == {"winner": "captain_b", "resigned": "captain_a"}
    assert page.evaluate("localStorage.getItem('cardwar.session')") is None and not page.locator("#error").is_visible()
    start_game(page, server.url, "naval")
    assert saved_session(page)["id"] != old["id"]


@pytest.mark.parametrize("path, ready", [("/docs", ".swagger-ui .opblock"), ("/redoc", "[role=menuitem]")])
def test_the_api_docs_render_with_no_network_but_this_server(server: ServerProcess, page: Any, path: str,
                                                             ready: str) -> None:
    """/docs (Swagger UI) and /redoc draw the API with every request to another host refused: offline they work."""
    elsewhere: list[str] = []

    def only_here(route: Any) -> None:
        if route.request.url.startswith(server.url):
            route.continue_()
        else:
            elsewhere.append(route.request.url)
            route.abort()

    page.route("**/*", only_here)
    page.goto(server.url + path)
    page.wait_for_selector(ready)
    assert "/api/sessions" in page.locator("body").inner_text()
    assert not elsewhere, elsewhere


# ------------------------------------------------------------------ the squad skirmish (static/skirmish.js)
@pytest.mark.parametrize("rules", [{}, {"sequence": "deck"}], ids=["phases", "deck"])
def test_skirmish_game_played_by_clicks_to_its_end(server: ServerProcess, page: Any, rules: dict[str, Any]) -> None:
    """A whole duel against random, every answer a click: a lit hex (or the figure on it) or a choice's
    button; the map, the figures and the drawn cards are drawn from the state the API sends. In the deck
    sequence the figure to activate is a click on it, and the activation card is shown."""
    start_game(page, server.url, "skirmish", scenario="duel", seat="player_0", rules=rules)
    state = api_state(server, page)
    assert state["scenario"] == "duel" and state["game"] == "skirmish"
    assert state["rules"]["sequence"] == rules.get("sequence", "phases")
    drawn = state["map"]
    cells = sum(1 for ch in drawn["ground"] if ch != "#")
    assert page.locator("svg.skirmish-map g.hex[data-step^='hex:']").count() == cells == 80  # a 10 x 8 field
    assert page.locator("svg.skirmish-map [data-objective]").count() == len(drawn["objectives"]) == 2
    assert page.locator("svg.skirmish-map .sk-edge").count() >= len(drawn["edges"])
    own = [u for u in state["view"]["units"] if u["side"] == 0]
    for u in own:  # each own figure at its hex, with its stance drawn
        figure = page.locator(f"svg.skirmish-map g.sk-unit[data-uid='{u['uid']}']")
        assert figure.get_attribute("data-step") == f"hex:{_label(u['cell'])}"
        assert figure.locator(".sk-stance").get_attribute("data-stance") == ("prone", "kneeling", "standing")[u["stance"]]
    # every choice that is not a hex is a button, one per legal answer
    assert {b for b in page.locator("#choices button[data-move]").evaluate_all("bs => bs.map(b => b.dataset.move)")} \
        == {m["move"] for m in state["legal"] if not m["steps"]}
    shot = ARTIFACTS / "serve-skirmish.png" if not rules else None
    rng, moves, saw_orders, saw_cards, saw_activate = random.Random(5), 0, False, False, False
    while status(page) != "over":
        assert moves < 800, "the duel did not end in 800 moves"
        s = api_state(server, page)
        lit = sorted(m["steps"][0] for m in s["legal"] if m["steps"])
        on_page = sorted(set(page.locator("#board g.hex.clickable").evaluate_all("es => es.map(e => e.dataset.step)")))
        assert on_page == lit  # every hex answer lit, nothing else
        saw_orders |= page.locator("svg.skirmish-map .sk-fire-order, svg.skirmish-map .sk-move-order").count() > 0
        drawn = len(s["view"]["drawn"][0]) + len(s["view"]["drawn"][1])
        assert page.locator(".sk-drawn .sk-card").count() == drawn  # this turn's draws, face up, as sent
        saw_cards |= drawn > 0
        if s["view"]["step"] == "activate":  # the figures to activate are lit, on the map
            saw_activate = True
            assert page.locator("#board g.sk-unit.clickable").count() > 0
            assert "activation:" in page.locator(".sk-stage").inner_text()
        if shot is not None and lit and moves > 20 and s["view"]["step"] in ("target", "destination"):
            page.mouse.move(0, 0)
            page.screenshot(path=str(shot), full_page=True)
            shot = None
        play_move(page, rng)
        moves += 1
    # a short duel (random play) may end before a card is drawn where the seat looks: the draws are checked
    # against the state at every move above; here, that the game was played and (phases) orders were drawn
    assert moves > 10 and (saw_orders or rules), (moves, saw_cards, saw_orders)  # the deck sequence declares none
    assert saw_activate == (rules.get("sequence") == "deck")
    assert_result_shown(server, page)
    if not rules:
        assert (ARTIFACTS / "serve-skirmish.png").stat().st_size > 10_000


def test_skirmish_an_illegal_click_or_answer_is_refused_and_changes_nothing(server: ServerProcess, page: Any) -> None:
    start_game(page, server.url, "skirmish", scenario="duel")
    before_version, before_log = version(page), log_lines(page)
    # a hex that answers nothing now (the step is a mode): clicking it sends nothing
    page.locator("svg.skirmish-map g.hex[data-hex='A1']").click()
    settle(page)
    assert version(page) == before_version and api_state(server, page)["version"] == before_version
    # typed: a hex when a mode is asked, then a word that is no move
    for typed, expected in [("C5", "illegal move 'C5'"), ("fly", "neither a hex")]:
        page.fill("#move-input", typed)
        page.press("#move-input", "Enter")
        settle(page)
        message = page.locator("#error").inner_text()
        assert expected in message, message
        assert version(page) == before_version and log_lines(page) == before_log
    page.locator("#choices button[data-move=walk]").click()  # a legal answer: the next step lights hexes
    settle(page)
    assert version(page) > before_version and page.locator("#error").is_hidden()
    assert page.locator("#board g.hex.clickable").count() > 0


def _label(cell: int) -> str:
    return "ABCDEFGHIJKLMNOPQRSTUVWX"[cell % 24] + str(cell // 24 + 1)
