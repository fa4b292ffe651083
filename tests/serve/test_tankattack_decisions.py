"""Tank Attack's page at the decisions random trench raids never reach, and on the 16 x 24 maps, in Chromium.

Each decision is reached deterministically: the server deals the seed it is given (``--reproducible-seeds``) and its
bot (``random``, or the ``heuristic`` where a Barrage must beat trench infantry) draws from the game's seed and the
move count, so a game played through the API by a seeded policy
(``reach``) comes to the same position every run; the first of a few seeds that reaches the decision is used, so a
change of the engine's dice moves the test to another seed rather than breaking it. The page then opens that
session, and is read against the API's state, independently of the page's code: the lit cells and the buttons are
the legal answers (``assert_decision_clickable``), the words name what the rules say (the enemy each facing turns
to, RULES.md 10; the cell each recoil goes towards, 15.1 and 16.1; what a spend's PIPs go to, 9.2 and 16.3), and a
click on the page makes the move the API records.

The 16 x 24 maps (``cambrai``, ``random:test``) are played by taps at 390 x 844: at every decision each lit cell is
scrolled into view and is the thing under the finger at its centre, between the sticky top bar and the decision bar,
at least 44 px across (Apple's touch-target guideline); the page itself brings the decision into view (the element
it is about, or a lit cell when none is in sight). At 1280 x 800 the whole ``cambrai`` map is on the screen, its
cells at least 24 px (WCAG 2.2's target size).
"""

from __future__ import annotations

import json
import random
import urllib.request
from collections.abc import Callable, Iterable
from typing import Any

import pytest

from cardwar.serve.launch import ServerProcess
from tests.serve.browser import PHONE, api_state, browser, new_page, server, settle, start_game, status, version
from tests.serve.test_phone import assert_decision_on_screen
from tests.serve.test_tankattack_page import DESKTOP, NAMES, OFF_MAP, assert_board_as_sent, assert_bot_moves, \
    assert_decision_clickable, assert_own_sentence

__all__ = ["browser", "server"]  # the module's fixtures (tests/serve/browser.py)

FACINGS = {"N": "north", "E": "east", "S": "south", "W": "west"}
STEP = {"N": (0, -1), "E": (1, 0), "S": (0, 1), "W": (-1, 0)}  # RULES.md 1.1: row 1 is the north edge
TOUCH_PX = 44.0
"""Apple's Human Interface Guidelines: a touch target at least 44 x 44 points (CSS pixels on a phone)."""
POINTER_PX = 24.0
"""WCAG 2.2, success criterion 2.5.8 (Target Size, Minimum): 24 x 24 CSS pixels."""


# ---------------------------------------------------------------- reaching a decision through the API
def api_post(server: ServerProcess, path: str, body: dict[str, Any], token: str | None = None) -> Any:
    request = urllib.request.Request(server.url + path, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=60) as r:
        return json.load(r)


def reach(server: ServerProcess, until: Callable[[dict[str, Any]], bool], scenario: str, seat: str,
          prefer: Iterable[str] = (), seeds: Iterable[int] = range(30), max_moves: int = 400,
          rules: dict[str, Any] | None = None, agent: str = "random") -> tuple[dict[str, Any], dict[str, Any]]:
    """A session against the bot (``random``, or another seeded agent), played through the API (the seat's
    moves: the first of ``prefer`` that is legal, else a choice of ``random.Random(seed)``) until ``until(state)``;
    its page session (as the page keeps it in localStorage) and that state. The first seed that gets there is
    used; none: the test fails."""
    prefer = tuple(prefer)
    for seed in seeds:
        data = api_post(server, "/api/sessions", {"game": "tankattack", "agent": agent, "scenario": scenario,
                                                  "seat": seat, "seed": seed, "rules": rules or {}})
        session = {"id": data["id"], "token": data["token"], "watch": data["watch_token"], "botMoves": []}
        state, rng = data["state"], random.Random(seed)
        for _ in range(max_moves):
            if state["status"] != "your_turn":
                break
            if until(state):
                return session, state
            legal = [m["move"] for m in state["legal"]]
            move = next((m for m in prefer if m in legal), None) or rng.choice(legal)
            state = api_post(server, f"/api/sessions/{session['id']}/moves",
                             {"move": move, "version": state["version"]}, session["token"])["state"]
    pytest.fail(f"no game of {scenario} as the {seat} reached the decision (seeds {seeds})")


def at_stage(stage: str) -> Callable[[dict[str, Any]], bool]:
    return lambda state: state["view"]["stage"] == stage


def open_session(page: Any, server: ServerProcess, session: dict[str, Any], state: dict[str, Any]) -> None:
    """The page continuing a session (as after a reload): it shows the state the API has."""
    page.goto(server.url)
    page.wait_for_selector("#setup:not([hidden]), #game:not([hidden])")
    page.evaluate("s => localStorage.setItem('cardwar.session', JSON.stringify(s))", session)
    page.reload()
    page.wait_for_selector("#game:not([hidden])[data-version]")
    settle(page)
    assert version(page) == state["version"] and status(page) == "your_turn"


def labels(page: Any) -> dict[str, str]:
    """The buttons' words, by their move."""
    return dict(page.locator("#choices button[data-move]").evaluate_all(
        "bs => bs.map(b => [b.dataset.move, b.querySelector('span').textContent])"))


def element_name(e: dict[str, Any]) -> str:
    return "General" if e["general"] else NAMES[e["type"]]


def step(cell: str, letter: str, width: int, height: int) -> str | None:
    """The cell one step from ``cell`` towards the facing ``letter`` (RULES.md 1.1), None off the map."""
    dc, dr = STEP[letter]
    c, r = ord(cell[0]) - 65 + dc, int(cell[1:]) - 1 + dr
    return f"{chr(65 + c)}{r + 1}" if 0 <= c < width and 0 <= r < height else None


def map_size(state: dict[str, Any]) -> tuple[int, int]:
    rows = state["map"]["scenario"]["map"]
    return len(rows[0]), len(rows)


def click_and_check(page: Any, server: ServerProcess, state: dict[str, Any], locator: Any, move: str) -> dict:
    """Click what the page shows for ``move``; the API's log records that move as the seat's next entry, and the
    page says it in a sentence (``assert_own_sentence``). Returns the state after."""
    locator.click()
    settle(page)
    after = api_state(server, page)
    entry = after["log"][len(state["log"])]
    assert entry.split("; ")[0] == move, (entry, move)
    assert_own_sentence(page, state, after)
    return after


def the_cell(page: Any, cell: str) -> Any:
    return page.locator(f"svg.ta-map g.ta-cell[data-step='cell:{cell}']")


# ---------------------------------------------------------------- one test per decision random play never reached
def test_facing_choice_names_the_enemy_each_facing_turns_to(server: ServerProcess, browser: Any) -> None:
    """RULES.md 10: two enemies touch an element's flank or rear; its owner chooses which to face. A button per
    offered facing, naming the enemy in that direction (read from the view's cells), the enemies ringed as targets,
    the element as the one the decision is about; the click turns it."""
    session, state = reach(server, at_stage("face_choice"), "cambrai", "attacker")
    with new_page(browser, DESKTOP) as page:
        open_session(page, server, session, state)
        state = api_state(server, page)
        assert_board_as_sent(page, state)
        assert_decision_clickable(page, state)
        v, p = state["view"], state["view"]["pending"]
        me = v["elements"][p["element"]]
        words = labels(page)
        assert len(words) == len(p["choices"]) >= 2
        enemies = set()
        for move, text in words.items():
            letter = move.removeprefix("face ")
            there = step(me["cell"], letter, *map_size(state))
            enemy = next(i for i, e in enumerate(v["elements"]) if e["cell"] == there and e["side"] != me["side"])
            enemies.add(enemy)
            assert text.startswith(f"Face {FACINGS[letter]}:") and there in text \
                and element_name(v["elements"][enemy]) in text, (move, text)
        ringed = set(page.locator("svg.ta-map g.ta-el.target").evaluate_all(
            "es => es.map(e => Number(e.dataset.element))"))
        assert ringed == enemies
        move = sorted(words)[-1]
        click_and_check(page, server, state, page.locator(f"#choices button[data-move='{move}']"), move)


@pytest.mark.parametrize("scenario, agent, suppress", [
    ("trench_raid", "random", False),
    ("cambrai", "heuristic", True)])  # the heuristic's Barrage beats trench infantry (16.3)
def test_recoil_choice_shows_each_way_and_the_click_recoils(server: ServerProcess, browser: Any, scenario: str,
                                                            agent: str, suppress: bool) -> None:
    """RULES.md 15.1 and 16.1: an element beaten in its trench by an enemy from outside it may recoil back or along
    the trench; its owner chooses. The prompt names the enemy that beat it (ringed red), a button a way names the
    cell it goes towards, that cell framed on the map; the click makes the recoil: the element leaves its cell.
    Trench infantry beaten by a Barrage or an Aerial may take Suppression instead (16.3): a button, and the click
    leaves it in its cell, suppressed."""
    session, state = reach(server, lambda s: s["view"]["stage"] == "recoil_choice"
                           and bool(s["view"]["pending"].get("suppress")) == suppress,
                           scenario, "defender", agent=agent)
    with new_page(browser, DESKTOP) as page:
        open_session(page, server, session, state)
        state = api_state(server, page)
        assert_board_as_sent(page, state)
        assert_decision_clickable(page, state)
        v, p = state["view"], state["view"]["pending"]
        me = v["elements"][p["element"]]
        words = labels(page)
        ways = [m for m in words if m.startswith("face ")]
        assert len(ways) == len(p["dirs"]) and ("suppress" in words) == bool(p.get("suppress"))
        ringed = set(page.locator("svg.ta-map g.ta-el.target").evaluate_all(
            "es => es.map(e => Number(e.dataset.element))"))
        winner = p["winner"]
        assert ringed == ({winner} if winner >= 0 else set())  # the enemy that beat it, ringed red
        beaten_by = "the Bunker" if winner < 0 else element_name(v["elements"][winner])
        assert "beaten by" in page.locator("#prompt").inner_text() and beaten_by in page.locator("#prompt").inner_text()
        framed = dict(page.locator("svg.ta-map [data-recoil]").evaluate_all(
            "es => es.map(e => [e.dataset.recoil, e.getAttribute('x')])"))
        assert sorted(framed) == sorted(m.removeprefix("face ") for m in ways)
        for move in ways:
            letter = move.removeprefix("face ")
            there = step(me["cell"], letter, *map_size(state))
            assert words[move] == f"Recoil {FACINGS[letter]} towards {there}", (move, words[move])
            frame = page.locator(f"svg.ta-map [data-recoil={letter}]").evaluate(BOX_CENTRE)
            assert frame == the_cell(page, there).locator(".hit").evaluate(BOX_CENTRE)
        move = "suppress" if suppress else ways[-1]
        if suppress:
            assert words["suppress"] == "Take Suppression (no recoil)"
        after = click_and_check(page, server, state, page.locator(f"#choices button[data-move='{move}']"), move)
        e = after["view"]["elements"][p["element"]]
        assert (e["cell"] == me["cell"] and e["suppressed"]) if suppress else e["cell"] != me["cell"], e


BOX_CENTRE = ("e => { const r = e.getBoundingClientRect(); "
              "return [Math.round(r.x + r.width / 2), Math.round(r.y + r.height / 2)]; }")


def test_aerial_contact_by_clicks(server: ServerProcess, browser: Any) -> None:
    """RULES.md 10: a free aerial contact: the Aerials that may make one lit, a button for none; a click on the
    Aerial, then on a lit destination, then a facing button make it (the API: the Aerial there, its front to an
    enemy, the bound's event "contacts (free)")."""
    session, state = reach(server, at_stage("air_contact"), "random:test", "attacker")
    with new_page(browser, DESKTOP) as page:
        open_session(page, server, session, state)
        assert labels(page) == {"end": "No aerial contact"}
        for expected in ("air_contact", "air_dest", "air_face"):
            state = api_state(server, page)
            assert state["view"]["stage"] == expected
            assert_board_as_sent(page, state)
            assert_decision_clickable(page, state)
            cells = [m["move"] for m in state["legal"] if m["steps"]]
            if expected == "air_face":
                move = next(m["move"] for m in state["legal"] if m["move"].startswith("face "))
                after = click_and_check(page, server, state, page.locator(f"#choices button[data-move='{move}']"),
                                        move)
            else:
                move = cells[0]
                if expected == "air_dest":
                    move_dest = move
                if expected == "air_contact":
                    aerial = next(i for i, e in enumerate(state["view"]["elements"]) if e["cell"] == move)
                after = click_and_check(page, server, state, the_cell(page, move), move)
        assert any(line.endswith("contacts (free)") for line in after["view"]["events"]), after["view"]["events"]
        e = after["view"]["elements"][aerial]
        assert e["cell"] == move_dest
        ahead = step(e["cell"], "NESW"[e["facing"]], *map_size(after))
        assert any(x["cell"] == ahead and x["side"] != e["side"] for x in after["view"]["elements"]), (e, ahead)


@pytest.mark.parametrize("spend, scenario, seat, prefer", [
    ("counter-battery", "random:test", "defender", ()),
    pytest.param("rally", "random:test", "defender", ("rally", "raid", "enter bomber"), marks=pytest.mark.slow)])
def test_spend_target_is_lit_and_the_click_spends_on_it(server: ServerProcess, browser: Any, spend: str,
                                                        scenario: str, seat: str, prefer: tuple[str, ...]) -> None:
    """RULES.md 9.2 and 16.3: a spend is paid when its button is clicked, then its target is clicked: for
    counter-battery the enemy Barrages on the map are lit (read from the view: the other side's Barrages on a cell)
    and the clicked one goes back to its reserve; for a rally the own suppressed elements, and the clicked one is
    no longer suppressed."""
    session, state = reach(server, lambda s: s["view"]["stage"] == "moves" and spend in {m["move"] for m in s["legal"]},
                           scenario, seat, prefer=tuple(p for p in prefer if p != spend))
    with new_page(browser, DESKTOP) as page:
        open_session(page, server, session, state)
        state = api_state(server, page)
        assert_decision_clickable(page, state)
        pips = state["view"]["pips"]
        click_and_check(page, server, state, page.locator(f"#choices button[data-move='{spend}']"), spend)
        state = api_state(server, page)
        v, mine = state["view"], state["view"]["active"]
        assert v["stage"] == "spend_target" and v["pips"] == pips - (6 if spend == "counter-battery" else 1)
        assert_board_as_sent(page, state)
        assert_decision_clickable(page, state)
        if spend == "counter-battery":
            want = {e["cell"] for e in v["elements"] if e["type"] == "barrage" and e["side"] != mine
                    and e["cell"] not in OFF_MAP}
            words = "Counter-battery: click the enemy Barrage to lift"
        else:
            want = {e["cell"] for e in v["elements"]
                    if e["suppressed"] and e["side"] == mine and e["cell"] not in OFF_MAP}
            words = "Rally: click the suppressed element to rally"
        lit = set(page.locator("svg.ta-map g.ta-cell.clickable").evaluate_all("es => es.map(e => e.dataset.cell)"))
        assert lit == want and lit
        assert words in " ".join(page.locator("#prompt").inner_text().split())
        cell = sorted(lit)[0]
        target = next(i for i, e in enumerate(v["elements"]) if e["cell"] == cell)
        after = click_and_check(page, server, state, the_cell(page, cell), cell)
        e = after["view"]["elements"][target]
        assert (e["cell"] == "reserve") if spend == "counter-battery" else not e["suppressed"], e


@pytest.mark.parametrize("scenario, seat, screen", [("trench_raid", "defender", DESKTOP),
                                                    ("cambrai", "attacker", PHONE)])
def test_set_up_placements_by_clicks(server: ServerProcess, browser: Any, scenario: str, seat: str,
                                     screen: dict[str, int]) -> None:
    """RULES.md 5 (``deployment="players"``): the seat places each of its elements, one click a cell: the cells
    lit are empty cells of its zone (6 rows from its own edge, or a trench cell for the defender), the prompt names
    the element; the click puts it there, facing as step 8 says (the defender N, the attacker S). The defender
    places first, so the attacker sees the bot's placements already on the map. On a phone the zone is scrolled
    into view by the page."""
    phone = screen is PHONE
    with new_page(browser, screen, phone=phone) as page:
        start_game(page, server.url, "tankattack", agent="random", scenario=scenario, seat=seat,
                   rules={"deployment": "players"})
        placed = 0
        while True:
            state = api_state(server, page)
            v = state["view"]
            if v["stage"] != "setup":
                break
            assert_board_as_sent(page, state)
            assert_decision_clickable(page, state)
            if phone:
                assert_decision_in_view(page)
            side = v["active"]
            width, height = map_size(state)
            rows = state["map"]["scenario"]["map"]
            zone = set(range(height - 6, height)) if side == 0 else set(range(6))
            taken = {e["cell"] for e in v["elements"]}
            lit = page.locator("svg.ta-map g.ta-cell.clickable").evaluate_all("es => es.map(e => e.dataset.cell)")
            for cell in lit:
                r, c = int(cell[1:]) - 1, ord(cell[0]) - 65
                assert cell not in taken and (r in zone or (side == 0 and rows[r][c] in "#S")), cell
            e = v["elements"][v["pending"]["element"]]
            assert e["cell"] == "reserve" and element_name(e) in page.locator("#prompt").inner_text()
            cell = random.Random(placed).choice(lit)
            after = click_and_check(page, server, state, the_cell(page, cell), cell)
            placed_e = after["view"]["elements"][v["pending"]["element"]]
            assert placed_e["cell"] == cell and placed_e["facing"] == (0 if side == 0 else 2)
            placed += 1
        assert placed >= 3 and v["stage"] == "moves"


# ---------------------------------------------------------------- the 16 x 24 maps on a phone, and on a laptop
BAND = """map => {
  const b = document.querySelector('.map-box').getBoundingClientRect();
  const top = document.querySelector('.topbar'), bar = document.getElementById('action-bar');
  const t = getComputedStyle(top).position === 'sticky' ? top.getBoundingClientRect().bottom : 0;
  const u = getComputedStyle(bar).position === 'fixed' ? bar.getBoundingClientRect().top : window.innerHeight;
  return {left: Math.max(b.left, 0), right: Math.min(b.right, window.innerWidth), top: Math.max(b.top, t),
          bottom: Math.min(b.bottom, u)};
}"""
"""Where the map can be seen (viewport pixels): its box, below the sticky top bar, above the decision bar (fixed at
the bottom of a narrow screen)."""

IN_VIEW = f"""sel => {{
  const band = ({BAND})();
  const seen = e => {{ const r = e.getBoundingClientRect();
    return r.left >= band.left - 0.5 && r.right <= band.right + 0.5
      && r.top >= band.top - 0.5 && r.bottom <= band.bottom + 0.5; }};
  return [...document.querySelectorAll(sel)].map(seen);
}}"""
"""For each element of a selector: whether it lies wholly where the map can be seen."""

REACH_EACH = f"""() => {{
  const out = [];
  for (const g of document.querySelectorAll('svg.ta-map g.ta-cell.clickable')) {{
    g.scrollIntoView({{block: 'center', inline: 'center'}});
    const band = ({BAND})(), r = g.getBoundingClientRect();
    const x = (r.left + r.right) / 2, y = (r.top + r.bottom) / 2;
    const hit = document.elementFromPoint(x, y);
    out.push({{cell: g.dataset.cell, w: r.width, h: r.height, under: !!hit && hit.closest('g.ta-cell') === g,
      inside: r.left >= band.left - 0.5 && r.right <= band.right + 0.5
        && r.top >= band.top - 0.5 && r.bottom <= band.bottom + 0.5}});
  }}
  return out;
}}"""
"""Each lit cell scrolled into view (centred): its size, whether it lies where the map can be seen and whether it is
the element under a finger at its centre (nothing covers it)."""


def assert_decision_in_view(page: Any) -> None:
    """As the page leaves it after a new decision (once its reveal has run): the element the decision is about is in
    view, else at least one lit cell is."""
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    acting = page.evaluate(IN_VIEW, "svg.ta-map g.ta-el.acting")
    if acting:
        assert any(acting), "the element the decision is about is out of view"
        return
    lit = page.evaluate(IN_VIEW, "svg.ta-map g.ta-cell.clickable")
    assert not lit or any(lit), "no lit cell is in view"


def play_big_map(page: Any, server: ServerProcess, rng: random.Random, phone: bool,
                 max_decisions: int | None = None) -> dict[str, Any]:
    """Decisions by taps (clicks on a laptop) on a 16 x 24 map, to the end or ``max_decisions``: at each, the page
    against the API's state, the decision in view as the page leaves it, the decision bar on screen, then every lit
    cell reached by scrolling and hit at its centre; a random lit cell or button is chosen, scrolled into view and
    tapped. Returns the figures: decisions, stages seen, the least lit cell's size in px."""
    decisions, stages, least = 0, set(), float("inf")
    while status(page) != "over" and (max_decisions is None or decisions < max_decisions):
        assert decisions < 600, "the game did not end in 600 decisions"
        state = api_state(server, page)
        assert state["status"] == "your_turn"
        assert_board_as_sent(page, state)
        assert_decision_clickable(page, state)
        stages.add(state["view"]["stage"])
        if phone:
            assert_decision_in_view(page)
        if not phone:
            page.evaluate("window.scrollTo(0, 0)")
        assert_decision_on_screen(page)
        for c in page.evaluate(REACH_EACH):
            assert c["inside"] and c["under"], c
            least = min(least, c["w"], c["h"])
        if not phone:
            page.evaluate("window.scrollTo(0, 0)")  # a laptop sees the whole map from the top of the page
            assert all(page.evaluate(IN_VIEW, "svg.ta-map g.ta-cell.clickable"))
        options = page.locator("#board g.ta-cell.clickable, #choices button[data-move]")
        target = options.nth(rng.randrange(options.count()))
        target.evaluate("e => e.scrollIntoView({block: 'center', inline: 'center'})")
        before = version(page)
        target.tap() if phone else target.click()
        settle(page)
        assert version(page) != before or status(page) != "your_turn"
        assert_own_sentence(page, state, api_state(server, page))
        assert_bot_moves(page)
        decisions += 1
    return {"decisions": decisions, "stages": stages, "least_px": least}


@pytest.mark.parametrize("scenario, screen, decisions", [
    ("cambrai", PHONE, 40),
    pytest.param("random:test", PHONE, None, marks=pytest.mark.slow),
    pytest.param("cambrai", PHONE, None, marks=pytest.mark.slow),
    pytest.param("cambrai", DESKTOP, None, marks=pytest.mark.slow)])
def test_a_16_by_24_map_by_taps(server: ServerProcess, browser: Any, scenario: str, screen: dict[str, int],
                                decisions: int | None) -> None:
    """A 16 x 24 map (RULES.md 20: cambrai, or a generated map) played by taps, a stretch of ``decisions`` or the
    whole game: every lit cell reachable and tappable, at least 44 px on a phone, 24 px on a laptop, where the
    whole map fits the screen."""
    phone = screen is PHONE
    with new_page(browser, screen, phone=phone) as page:
        start_game(page, server.url, "tankattack", agent="random", scenario=scenario, seat="attacker")
        assert map_size(api_state(server, page)) == (16, 24)
        figures = play_big_map(page, server, random.Random(3), phone, decisions)
        assert figures["least_px"] >= (TOUCH_PX if phone else POINTER_PX), figures
        assert {"moves", "move_dest", "move_face"} <= figures["stages"], figures
        if decisions is not None:
            assert figures["decisions"] == decisions or status(page) == "over"
        else:
            assert status(page) == "over"
        print(f"{scenario} at {screen['width']}x{screen['height']}: {figures['decisions']} decisions, the least lit "
              f"cell {figures['least_px']:.1f} px")
