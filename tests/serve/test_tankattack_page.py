"""Tank Attack's web page (``static/tankattack.js``) in Chromium: whole games of ``trench_raid`` played by clicks,
at desktop (1280 x 800) and phone (390 x 844) size.

At every decision the page is read against the API's state, independently of the page's code: every cell of the
map is drawn, each element on the map stands at its cell with its two-letter code (the text board's,
``envs/tankattack/text.py``) and its facing, the trenches, the wire still standing and the Bunker are drawn, the
element the decision is about is marked, the PIPs are shown; the cells lit are exactly the legal cell answers and
the buttons exactly the other legal answers (RULES.md 19), and the decision (turn, prompt, buttons) lies inside the
screen. Moves are chosen as a person chooses them: a random lit cell, element or button.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from cardwar.envs.tankattack.elements import STATS, EType
from cardwar.envs.tankattack.text import CODES, GENERAL
from cardwar.serve.launch import ServerProcess
from tests.serve.browser import ARTIFACTS, BOX, PHONE, api_state, browser, inside, new_page, play_move, \
    saved_session, server, start_game, status
from tests.serve.test_browser import assert_result_shown
from tests.serve.test_phone import assert_decision_on_screen, assert_on_screen_top_and_bottom

__all__ = ["browser", "server"]  # the module's fixtures (tests/serve/browser.py)

DESKTOP = {"width": 1280, "height": 800}
OFF_MAP = ("reserve", "lost", "gone")
CODE = {t.name.lower(): c for t, c in CODES.items()}
NAMES = {t.name.lower(): STATS[t].name for t in EType}


def cells_of(scenario: dict[str, Any]) -> list[str]:
    rows = scenario["map"]
    return [f"{chr(65 + c)}{r + 1}" for r in range(len(rows)) for c in range(len(rows[0]))]


def assert_board_as_sent(page: Any, state: dict[str, Any]) -> None:
    """The map, the works and the elements as the API's state has them; the decision's element marked."""
    v, sc = state["view"], state["map"]["scenario"]
    assert sorted(page.locator("svg.ta-map g.ta-cell").evaluate_all("es => es.map(e => e.dataset.cell)")) \
        == sorted(cells_of(sc))
    rows = sc["map"]
    trenches = sum(row.count("#") + row.count("S") for row in rows)
    assert page.locator("svg.ta-map [data-trench]").count() == trenches
    assert sorted(page.locator("svg.ta-map [data-wire]").evaluate_all("es => es.map(e => e.dataset.wire)")) \
        == sorted(v["wire"])
    assert page.locator("svg.ta-map [data-bunker]").count() == (1 if v["bunker_alive"] else 0)
    drawn = page.locator("svg.ta-map g.ta-el").evaluate_all(
        "es => es.map(e => [Number(e.dataset.element), e.dataset.cell, e.dataset.code, e.dataset.facing])")
    expected = [[i, e["cell"], GENERAL if e["general"] else CODE[e["type"]], "NESW"[e["facing"]]]
                for i, e in enumerate(v["elements"]) if e["cell"] not in OFF_MAP]
    assert sorted(drawn) == sorted(expected)
    p = v["pending"]
    about = {p[k] for k in ("element", "shooter", "x") if isinstance(p.get(k), int) and p[k] >= 0} | set(p.get("group", []))
    about = {i for i in about if v["elements"][i]["cell"] not in OFF_MAP}
    marked = set(page.locator("svg.ta-map g.ta-el.acting").evaluate_all("es => es.map(e => Number(e.dataset.element))"))
    assert marked == about, (v["stage"], p)
    assert page.locator(".ta-status").get_attribute("data-pips") == str(v["pips"])


def assert_decision_clickable(page: Any, state: dict[str, Any]) -> None:
    """The lit cells are the legal cell answers, the buttons the others, one each."""
    legal = state["legal"]
    cells = sorted(m["steps"][0] for m in legal if m["steps"])
    assert all(len(m["steps"]) == 1 and m["steps"][0] == f"cell:{m['move']}" for m in legal if m["steps"])
    lit = sorted(page.locator("svg.ta-map g.ta-cell.clickable").evaluate_all("es => es.map(e => e.dataset.step)"))
    assert lit == cells, (state["view"]["stage"], lit, cells)
    buttons = sorted(page.locator("#choices button[data-move]").evaluate_all("bs => bs.map(b => b.dataset.move)"))
    assert buttons == sorted(m["move"] for m in legal if not m["steps"])
    assert not [m for m in legal if not m["steps"] and re.fullmatch(r"[A-P]\d{1,2}", m["move"])]  # no cell a button


FACING_WORDS = {"N": "north", "E": "east", "S": "south", "W": "west"}


def assert_own_sentence(page: Any, before: dict[str, Any], after: dict[str, Any]) -> None:
    """The player's step, in the log, is a sentence naming what the notation names: the cell (or the element standing
    there, by its type), the facing in words, the reserve brought on; the events it caused follow it, as sent."""
    index = len(before["log"])
    line = after["log"][index]
    move, *events = line.split("; ")
    item = page.locator("#log li").nth(index)
    assert item.get_attribute("data-line") == line
    sentence = " ".join(item.locator(".ta-own").inner_text().split())
    assert sentence.endswith(".") and len(sentence.split()) >= 3 and sentence != move, (move, sentence)
    v = before["view"]
    if re.fullmatch(r"[A-P]\d{1,2}", move):
        here = [e for e in v["elements"] if e["cell"] == move]
        names = {("General" if e["general"] else NAMES[e["type"]]) for e in here}
        assert move in sentence or any(n in sentence for n in names), (move, sentence)
    elif move.startswith("face "):
        assert FACING_WORDS[move[5:]] in sentence, (move, sentence)
    elif move.startswith("enter "):
        assert NAMES[move[6:]] in sentence, (move, sentence)
    texts = " ".join(item.inner_text().split())
    assert texts == " ".join([sentence, *events]).replace(";", ""), (texts, line)


def assert_bot_moves(page: Any) -> None:
    """The bot's last moves: every event its entries hold (the API's words), a line each, then one line counting its
    steps that showed nothing yet (an entry with no event)."""
    lines = saved_session(page).get("botMoves") or []
    if not lines:
        return
    shown = [" ".join(t.split()) for t in page.locator("#bot-moves li").all_inner_texts()]
    events = [" ".join(part.split()) for line in lines for part in line.split("; ") if part]
    quiet = sum(1 for line in lines if not line)
    assert shown[:len(events)] == events
    assert len(shown) == len(events) + (1 if quiet else 0)
    if quiet:
        assert shown[-1].startswith(f"{quiet} step"), shown[-1]


def play_game(page: Any, server: ServerProcess, rng: random.Random, phone: bool = False,
              shot: Any = None, shot_after: int = 6) -> int:
    """Play the whole game by clicks, checking the page at every decision, the first ones included (a deal where
    the attacker breaks in the defender's second bound has few decisions, and the move steps among them come
    early); ``shot``: after ``shot_after`` moves, a picture of the page with the decision lit."""
    moves, stages, cell_px = 0, set(), []
    while status(page) != "over":
        if shot is not None and moves == shot_after:
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.mouse.move(0, 0)
            page.screenshot(path=str(shot), full_page=True)
        assert moves < 400, "the game did not end in 400 decisions"
        state = api_state(server, page)
        assert state["status"] == "your_turn"
        stages.add(state["view"]["stage"])
        assert_board_as_sent(page, state)
        assert_decision_clickable(page, state)
        page.evaluate("window.scrollTo(0, 0)")
        m = assert_decision_on_screen(page)
        screen = {"left": 0, "top": 0, "right": m["width"], "bottom": m["height"]}
        for box in page.locator("svg.ta-map g.ta-cell.clickable").evaluate_all(
                "es => es.map(e => { const r = e.getBoundingClientRect(); "
                "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; })"):
            cell_px.append(box["right"] - box["left"])
            if phone:  # the map is the screen's width: a lit cell is reached by scrolling the page down, no further
                assert inside(box, {**screen, "top": -1e9, "bottom": 1e9}), box
            else:  # the whole map fits the laptop's screen
                assert inside(box, screen), box
        if phone and moves % 15 == 0:
            assert_on_screen_top_and_bottom(page)
        play_move(page, rng)
        assert_own_sentence(page, state, api_state(server, page))
        assert_bot_moves(page)
        moves += 1
    assert {"moves", "move_dest", "move_face"} <= stages, stages
    assert cell_px and min(cell_px) >= 44, min(cell_px)  # a finger's width: Apple's 44-point touch target
    return moves


@pytest.mark.parametrize("seat, agent", [("defender", "random"), ("attacker", "heuristic")])
def test_tankattack_game_played_by_clicks_to_its_end(server: ServerProcess, browser: Any, seat: str,
                                                     agent: str) -> None:
    """A whole trench raid at 1280 x 800, every answer a click on a lit cell (or the element on it) or a button."""
    with new_page(browser, DESKTOP) as page:
        start_game(page, server.url, "tankattack", agent=agent, scenario="trench_raid", seat=seat)
        state = api_state(server, page)
        assert state["game"] == "tankattack" and state["scenario"] == "trench_raid" and state["you"] == seat
        assert page.locator("svg.ta-map g.ta-cell").count() == 8 * 12  # RULES.md 20.2: an 8 x 12 map
        legend = set(page.locator(".ta-legend [data-terrain]").evaluate_all("es => es.map(e => e.dataset.terrain)"))
        assert {"open", "hill", "crater", "ruin", "trench", "wire", "bunker"} <= legend
        info = " ".join(page.locator("#scenario-info").inner_text().split())
        assert "Breakthrough" in info and "Break point" in info and "Turn limit" in info
        rng = random.Random(21 if seat == "defender" else 4)
        moves = play_game(page, server, rng, shot=ARTIFACTS / f"serve-tankattack-{seat}.png")
        assert_result_shown(server, page)
        final = api_state(server, page)
        # every click was one move of this seat in the game's own log (a deal can be short: a random attacker
        # against the heuristic made 5 decisions in 1 of 300 trench raids, so no floor on the count)
        assert moves >= 1 and final["log_seats"].count(seat) == moves, (moves, final["log_seats"])
        result = final["result"]
        assert result["detail"]["reason"] in page.locator("#result .result-why").inner_text().lower()


def test_tankattack_on_a_phone_a_whole_game_with_the_decision_on_screen(server: ServerProcess, browser: Any) -> None:
    """390 x 844: the page is the screen's width, a cell is a finger wide, the decision sits in the bar at the
    bottom at every step, and the result at the end."""
    with new_page(browser, PHONE, phone=True) as page:
        start_game(page, server.url, "tankattack", agent="heuristic", scenario="trench_raid", seat="defender")
        assert_on_screen_top_and_bottom(page)
        for sel in (".ta-forces", ".ta-events", ".ta-legend", ".map-box"):
            b = page.locator(sel).first.evaluate(BOX)
            assert b["left"] >= 0 and b["right"] <= PHONE["width"], (sel, b)
        play_game(page, server, random.Random(8), phone=True, shot=ARTIFACTS / "serve-tankattack-phone.png",
                  shot_after=4)
        assert_on_screen_top_and_bottom(page, over=True)
        assert page.locator("#result .result-head").inner_text() in ("You win!", "The bot wins", "A draw")


def test_move_steps_make_a_cell_a_click_and_every_other_answer_a_button() -> None:
    """RULES.md 19: ids 0-383 are cells (a click on the grid), the rest (facings, end, yes, suppress, enter, the
    spends) buttons; over the legal answers of random trench raids, each is what its id range says."""
    from cardwar.envs.tankattack.actions import action_to_string
    from cardwar.envs.tankattack.page import move_steps
    from cardwar.envs.tankattack.rules import TankAttackRules
    from cardwar.envs.tankattack.scenario import load_scenario
    from cardwar.envs.tankattack.state import TankState

    seen_cells, seen_buttons = 0, set()
    for seed in range(3):
        s, rng = TankState.new_game(load_scenario("trench_raid"), TankAttackRules(), seed), random.Random(seed)
        while s.stage.value != "game_over":
            legal = s.legal_actions()
            for a in legal:
                move = action_to_string(a)
                if a < 384:
                    assert move_steps(move, {}) == [f"cell:{move}"]
                    seen_cells += 1
                else:
                    assert move_steps(move, {}) == []
                    seen_buttons.add(move.split()[0])
            s.apply_action(rng.choice(legal))
    assert seen_cells > 100 and {"end", "face"} <= seen_buttons


def test_page_map_gives_the_scenario_and_each_type_once() -> None:
    """The page's map: the scenario as the view has it, and the element types (RULES.md 3.5) whose AP sum to each
    trench-raid army's 13 (RULES.md 20.2)."""
    from cardwar.envs.tankattack.page import page_map
    from cardwar.envs.tankattack.rules import TankAttackRules
    from cardwar.envs.tankattack.scenario import load_scenario
    from cardwar.envs.tankattack.state import TankState

    s = TankState.new_game(load_scenario("trench_raid"), TankAttackRules(), 1)
    m = page_map(s)
    assert m["scenario"] == s.information_view(0).data["scenario"]
    assert set(m["types"]) == {t.name.lower() for t in EType} and m["general_code"] == GENERAL
    for side in (0, 1):
        assert sum(m["types"][e["type"]]["ap"] for e in s.information_view(None).data["elements"]
                   if e["side"] == side) == 13
