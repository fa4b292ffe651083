"""The web page on a phone (390 x 844 CSS pixels, Chromium) and a laptop (1280 x 800), measured (issue 28 item 3).

Whole games are played by clicks at phone size, one per game, and at every decision the page is measured where the
player is: nothing is wider than the screen, and the turn, the prompt, every move button, the Play button and, at
the end, the result lie inside the screen without scrolling (a bar fixed at the bottom, as chess apps have it).
Naval's labels never overlap; at 1280 x 800 every skirmish figure is inside the visible map box. The logs are read
against the API's words: the bot's last moves a line each, without the player's own orders or a
``player_N decides``, and the player's own skirmish steps in sentences naming the figure, from the state each was
made in (checked against that state, read from the API before the click).
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from cardwar.serve.launch import ServerProcess
from tests.serve.browser import BOX, PHONE, api_state, browser, inside, new_page, play_move, rect_overlap, \
    saved_session, server, start_game, status, version

__all__ = ["browser", "server"]  # the module's fixtures (tests/serve/browser.py)

MEASURE = """() => {
  const box = e => { const r = e.getBoundingClientRect();
    return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  const shown = e => e && e.getClientRects().length > 0;
  const out = {width: window.innerWidth, height: window.innerHeight, doc: document.documentElement.scrollWidth,
               scrollY: window.scrollY, boxes: {}};
  for (const sel of ["#turn", "#prompt", "#move-form button", "#result .result-head", "#result .result-why",
                     "#record-link", "#again"]) {
    const e = document.querySelector(sel);
    if (shown(e)) out.boxes[sel] = box(e);
  }
  document.querySelectorAll("#choices button").forEach(b => { out.boxes["button " + (b.dataset.move || b.id)] = box(b); });
  return out;
}"""
"""The screen's size, the document's width and where the decision's parts are (viewport pixels)."""


def assert_decision_on_screen(page: Any, over: bool = False) -> dict[str, Any]:
    """Nothing wider than the screen, and the decision (or the result) inside it where the page is now."""
    m = page.evaluate(MEASURE)
    screen = {"left": 0, "top": 0, "right": m["width"], "bottom": m["height"]}
    assert m["doc"] <= m["width"], f"the page is {m['doc']} px wide on a {m['width']} px screen"
    wanted = ["#turn", "#result .result-head", "#record-link", "#again"] if over else ["#turn", "#prompt", "#move-form button"]
    for name in wanted:
        assert name in m["boxes"], f"{name} is not shown"
    for name, b in m["boxes"].items():
        assert inside(b, screen), f"{name} at {b} is outside the {m['width']} x {m['height']} screen (scrollY {m['scrollY']})"
    return m


def assert_on_screen_top_and_bottom(page: Any, over: bool = False) -> None:
    """The same at the top of the page and scrolled to its end (wherever the player has scrolled)."""
    for where in ("0", "document.documentElement.scrollHeight"):
        page.evaluate(f"window.scrollTo(0, {where})")
        assert_decision_on_screen(page, over)


NAVAL_LABELS = """zone => [".zone-letter", ".port-tag", ".ship .card", ".zone-badge"].flatMap(sel =>
  [...zone.querySelectorAll(sel)].map(e => { const r = e.getBoundingClientRect();
    return {what: sel, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }))"""


def assert_naval_labels_apart(page: Any) -> int:
    """In every sea zone the letter, the port's name, the ship's card and an attack's badge share no pixel, and
    each lies inside its zone; returns the number of badges seen."""
    badges = 0
    zones = page.locator("#board .sea .zone")
    for i in range(zones.count()):
        zone = zones.nth(i)
        outer = zone.evaluate(BOX)
        parts = zone.evaluate(NAVAL_LABELS)
        for k, a in enumerate(parts):
            assert inside(a, outer), (zone.get_attribute("data-zone"), a, outer)
            for b in parts[k + 1:]:
                assert rect_overlap(a, b) == 0, (zone.get_attribute("data-zone"), a, b)
        badges += sum(1 for p in parts if p["what"] == ".zone-badge")
    return badges


def test_naval_on_a_phone_a_whole_game_with_the_decision_on_screen_and_labels_apart(
        server: ServerProcess, browser: Any) -> None:
    """Against the heuristic, which attacks: the zones under attack show both badges beside their ships."""
    with new_page(browser, PHONE, phone=True) as page:
        start_game(page, server.url, "naval", agent="heuristic")
        assert_on_screen_top_and_bottom(page)
        rng, moves, badges = random.Random(4), 0, 0
        while status(page) != "over":
            assert moves < 400, "the game did not end in 400 moves"
            assert_decision_on_screen(page)
            badges += assert_naval_labels_apart(page)
            if moves % 15 == 0:
                assert_on_screen_top_and_bottom(page)
            play_move(page, rng)
            moves += 1
        assert badges >= 2, "no attack was shown (the test wants the bot to attack once)"
        assert_naval_labels_apart(page)
        assert_on_screen_top_and_bottom(page, over=True)
        assert page.locator("#result .result-head").inner_text() in ("You win!", "The bot wins", "A draw")


def test_naval_shows_what_ends_the_game_and_who_wins(server: ServerProcess, browser: Any) -> None:
    """envs/naval/RULES.md §8 under the game's rule options: the blockade of the enemy's three seaports, and at
    deck out the enemy seaports held, then the tie-breakers; and the count now, as the view tells it."""
    for rules, words in [({}, ["all three enemy ports (A, B, C)", "at the end of the turn in which the deck runs out",
                               "more enemy ports", "more cards in hand, then the best poker hand"]),
                         ({"blockade": "all_zones", "deck_out": "immediate", "sealane_control": "majority",
                           "alternate_win": True},
                          ["all nine sea zones", "as soon as the deck runs out", "more sealanes",
                           "more sea zones held, then more cards in hand"])]:
        with new_page(browser, PHONE, phone=True) as page:
            start_game(page, server.url, "naval", agent="heuristic", rules=rules)
            rng = random.Random(8)
            for _ in range(12):
                if status(page) == "your_turn":
                    play_move(page, rng)
            state = api_state(server, page)
            info = page.locator("#scenario-info")
            assert info.is_visible()
            text = " ".join(info.inner_text().split())
            for w in words:
                assert w in text, (w, text)
            board, me = state["view"]["board"], state["view"]["seat"]
            opp = "B" if me == "A" else "A"
            ships = {z: s["captain"] for z, s in board.items() if s}
            if rules.get("sealane_control") == "majority":
                def lanes(c: str, o: str) -> int:
                    return sum(1 for col in ("ADG", "BEH", "CFI")
                               if sum(ships.get(z) == c for z in col) > sum(ships.get(z) == o for z in col))
                count = (lanes(me, opp), lanes(opp, me))
            else:
                own_ports = {"A": "GHI", "B": "ABC"}
                count = (sum(ships.get(z) == me for z in own_ports[opp]), sum(ships.get(z) == opp for z in own_ports[me]))
            assert info.locator(".victory-now").get_attribute("data-sealanes") == f"{count[0]}-{count[1]}"
            assert f"deck {state['view']['deck_count']}" in text


@pytest.mark.parametrize("scenario", ["meeting_engagement", "hill_and_hedgerows"])
def test_hexwar_on_a_phone_a_whole_game_with_the_decision_on_screen(server: ServerProcess, browser: Any,
                                                                    scenario: str) -> None:
    with new_page(browser, PHONE, phone=True) as page:
        start_game(page, server.url, "hexwar", scenario=scenario)
        assert_on_screen_top_and_bottom(page)
        rng, moves = random.Random(6), 0
        while status(page) != "over":
            assert moves < 400, "the game did not end in 400 moves"
            assert_decision_on_screen(page)
            if moves % 15 == 0:
                assert_on_screen_top_and_bottom(page)
            play_move(page, rng)
            moves += 1
        assert moves > 5
        assert_on_screen_top_and_bottom(page, over=True)


SKIRMISH_STEP_WORDS = {  # what the sentence of a step says besides the figure's name (the move fills {move})
    "mode": {"stay": "will stay where it is", "crawl": "will crawl", "search": "will move searching", "walk": "will walk",
             "run": "will run", "move": "will move", "all_out_run": "will run all out"},
    "destination": "will move to {move}",
    "stance": "will end {move}",
    "watch": {"watch": "will watch for opportunity fire", "no_watch": "will not watch"},
    "action": {"nothing": "takes no combat action", "fire": "will fire", "reload": "will reload"},
    "target": {"done": "takes no more targets", "": "targets"},
}


def expected_words(step: str, move: str) -> str | None:
    """The words the page's sentence for a step must hold (None: a step this table leaves to the page)."""
    words = SKIRMISH_STEP_WORDS.get(step)
    if isinstance(words, str):
        return words.format(move=move)
    if words is None:
        return None
    return words.get(move, words.get("") if re.fullmatch(r"[A-X]\d{1,2}", move) else None)


def bot_lines_expected(lines: list[str], own_names: set[str]) -> list[str]:
    """The bot's last moves as the page must list them: each entry's events a line each, without the
    ``player_N decides`` head and without the player's own figures' declarations (independent of the page's code)."""
    out = []
    for line in lines:
        parts = line.split("; ")
        if re.fullmatch(r"player_\d decides", parts[0]):
            parts = parts[1:]
        kept = [p for p in parts if not any(p.startswith(name + " declares ") for name in own_names)]
        out += kept or ["<no public event>"]
    return out


@pytest.mark.slow  # a whole duel, the API read twice a step: 10-40 s
@pytest.mark.parametrize("rules", [{}, {"sequence": "deck"}], ids=["phases", "deck"])
def test_skirmish_on_a_phone_a_whole_game_its_logs_in_sentences(server: ServerProcess, browser: Any,
                                                                 rules: dict[str, Any]) -> None:
    """The duel by clicks on a phone: the decision on screen at every step, the figures' table in its own box; the
    bot's moves a line each with none of the player's orders; every own log entry a sentence that names the
    figure and says what the step was, from the API's state before the click."""
    with new_page(browser, PHONE, phone=True) as page:
        start_game(page, server.url, "skirmish", scenario="duel", seat="player_0", rules=rules)
        assert_on_screen_top_and_bottom(page)
        rng, moves, made, checked_bot = random.Random(9), 0, [], 0
        while status(page) != "over":
            assert moves < 800, "the duel did not end in 800 moves"
            assert_decision_on_screen(page)
            if moves % 25 == 0:
                assert_on_screen_top_and_bottom(page)
            before = api_state(server, page)
            play_move(page, rng)
            after = api_state(server, page)
            unit = next((u for u in before["view"]["units"] if u["uid"] == before["view"]["unit"]), None)
            line = after["log"][len(before["log"])]  # the move, then the events it caused
            made.append((len(before["log"]), before["view"]["step"], unit["name"] if unit else None, line))
            # the bot's last moves: the page's list against the API's lines, read independently
            own = {u["name"] for u in after["view"]["units"] if u["side"] == 0}
            lines = saved_session(page).get("botMoves") or []
            shown = [" ".join(t.split()) for t in page.locator("#bot-moves li").all_inner_texts()]
            if lines:
                expected = bot_lines_expected(lines, own)
                assert len(shown) == len(expected), (shown, expected)
                for got, want in zip(shown, expected):
                    assert got == want or (want == "<no public event>" and "German" in got), (got, want)
                    assert not got.startswith("player_")
                checked_bot += 1
            moves += 1
        assert checked_bot > 3 and moves > 10
        assert_on_screen_top_and_bottom(page, over=True)
        # the log: an entry a move, in the API's words underneath; the player's own in sentences
        state = api_state(server, page)
        items = page.locator("#log li")
        assert items.evaluate_all("es => es.map(e => e.dataset.line)") == state["log"]
        texts = [" ".join(t.split()) for t in items.all_inner_texts()]
        for i, text in enumerate(texts):
            assert "player_0 decides" not in text and "player_1 decides" not in text, text
            if state["log_seats"][i] == "player_1":
                assert text.startswith("German"), text
        for index, step, name, line in made:
            move, *events = line.split("; ")
            sentence = items.nth(index).locator(".sk-own").inner_text()
            assert texts[index] == " ".join([sentence, *events]), (texts[index], line)  # the events follow it
            text = sentence
            assert text.endswith((".", "!")) and len(text.split()) >= 3, f"{move!r} at {step} reads {text!r}"
            if name is not None and step not in ("activate", "interrupt", "team") and move != "king":
                assert text.startswith(name), (text, name, step, move)
            words = expected_words(step, move)
            if words is not None:
                assert words in text, (step, move, text)
        # the sentences outlive a reload (kept with the session)
        page.reload()
        page.wait_for_selector("#game:not([hidden])[data-version]")
        assert [" ".join(t.split()) for t in page.locator("#log li").all_inner_texts()] == texts


@pytest.mark.parametrize("scenario", ["duel", "panzer_road", "woods_and_craters", "ww2_squads"])
def test_skirmish_map_fits_its_box_on_a_laptop(server: ServerProcess, browser: Any, scenario: str) -> None:
    """1280 x 800: the map is scaled to its box, so every figure drawn is inside the visible map (none hidden in a
    scroll area), and the box does not scroll."""
    with new_page(browser, {"width": 1280, "height": 800}) as page:
        start_game(page, server.url, "skirmish", scenario=scenario)
        box = page.locator(".map-box")
        assert box.evaluate("e => e.scrollWidth <= e.clientWidth + 1 && e.scrollHeight <= e.clientHeight + 1")
        visible = box.evaluate(BOX)
        assert visible["right"] <= 1280
        figures = page.locator("svg.skirmish-map g.sk-unit").evaluate_all(
            "es => es.map(e => { const r = e.getBoundingClientRect(); "
            "return {uid: e.dataset.uid, left: r.left, right: r.right, top: r.top, bottom: r.bottom}; })")
        assert len(figures) == len({u["uid"] for u in api_state(server, page)["view"]["units"]
                                    if u["vehicle"] or (u["wounds"] < 3 and (u["active"] or u["wounds"] >= 2))})
        outside = [f for f in figures if not inside(f, visible)]
        assert not outside, f"{len(outside)} of {len(figures)} figures outside the map box {visible}: {outside}"


@pytest.mark.parametrize("scenario", ["duel", "ww2_squads"])
def test_skirmish_on_a_phone_is_no_wider_than_the_screen(server: ServerProcess, browser: Any, scenario: str) -> None:
    """390 x 844: the map keeps a finger-wide hex and scrolls in its box, the figures' table in its own; the page is
    the screen's width and the Play button is whole; the player's figures are in view at the start."""
    with new_page(browser, PHONE, phone=True) as page:
        start_game(page, server.url, "skirmish", scenario=scenario)
        assert_on_screen_top_and_bottom(page)
        hex_box = page.locator("svg.skirmish-map .sk-t .ground").first.evaluate(BOX)
        assert hex_box["right"] - hex_box["left"] >= 39.5  # MIN_HEX_PX (skirmish.js), a finger's width
        assert page.locator(".map-box").evaluate("e => e.scrollWidth > e.clientWidth")
        for sel in (".sk-roster", ".sk-forces", ".sk-events", ".sk-legend", "#move-form button"):
            b = page.locator(sel).first.evaluate(BOX)
            assert b["left"] >= 0 and b["right"] <= PHONE["width"], (sel, b)
        state = api_state(server, page)
        mine = [u for u in state["view"]["units"] if u["side"] == 0 and u["active"]]
        visible = page.locator(".map-box").evaluate(BOX)
        seen = [u for u in mine if inside(page.locator(f"g.sk-unit[data-uid='{u['uid']}']").evaluate(BOX),
                                          {**visible, "top": -1e9, "bottom": 1e9})]
        assert seen, "none of the player's figures is in view at the start"
        play_move(page, random.Random(1))  # and it plays
        assert version(page) > state["version"] or status(page) == "over"
