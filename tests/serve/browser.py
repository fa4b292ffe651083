"""Helpers of the browser tests: find chromium, start a game on the page, play by clicking what it highlights."""

from __future__ import annotations

import json
import random
import shutil
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import sync_playwright

from cardwar.serve.launch import ServerProcess

ARTIFACTS = Path(__file__).resolve().parents[1] / "artifacts"
"""Screenshots of the boards (gitignored; ``docs/images/serve-*.png`` are copies of one good run)."""

CLICKABLE = "#board [data-step].clickable, #choices button[data-move]"
"""What a player may click now: the highlighted things that continue a legal move, and the move buttons."""


def chromium_path() -> str:
    """Debian's chromium; fails (never skips) when it is missing."""
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        pytest.fail("chromium is missing: `./dev.sh test` installs it with apt (apt-get install chromium)",
                    pytrace=False)
    return path


PHONE = {"width": 390, "height": 844}
"""The phone of issue 28 item 3 (a 390 x 844 CSS-pixel screen, as an iPhone 12-14)."""

BOX = ("e => { const r = e.getBoundingClientRect(); "
       "return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; }")
"""A script giving an element's bounding box in the viewport's pixels."""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    """One server for the module (killed whole at the end, also when a test fails)."""
    tmp = tmp_path_factory.mktemp("browser")
    with ServerProcess(tmp / "s.db", "--reproducible-seeds") as s:
        yield s


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    path = chromium_path()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=path, args=["--no-sandbox"])
        try:
            yield b
        finally:
            b.close()


@contextmanager
def new_page(browser: Any, viewport: dict[str, int], phone: bool = False) -> Iterator[Any]:
    """A fresh page (its own localStorage) of that size (``phone``: a touch screen); a script error fails."""
    context = browser.new_context(viewport=viewport, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(20_000)
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    try:
        yield page
        assert not errors, f"script errors on the page: {errors}"
    finally:
        context.close()


def api_get(server: ServerProcess, path: str, token: str | None = None) -> Any:
    request = urllib.request.Request(server.url + path)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    with urllib.request.urlopen(request, timeout=10) as r:
        return json.load(r)


def saved_session(page: Any) -> dict[str, Any]:
    return json.loads(page.evaluate("localStorage.getItem('cardwar.session')"))


def api_state(server: ServerProcess, page: Any) -> dict[str, Any]:
    s = saved_session(page)
    return api_get(server, f"/api/sessions/{s['id']}", s["token"])


def rect_overlap(a: dict[str, float], b: dict[str, float]) -> float:
    """The area two bounding boxes share (0: none)."""
    w = min(a["right"], b["right"]) - max(a["left"], b["left"])
    h = min(a["bottom"], b["bottom"]) - max(a["top"], b["top"])
    return max(0.0, w) * max(0.0, h)


def inside(box: dict[str, float], outer: dict[str, float], slack: float = 0.5) -> bool:
    """Whether ``box`` lies wholly in ``outer``."""
    return (box["left"] >= outer["left"] - slack and box["right"] <= outer["right"] + slack
            and box["top"] >= outer["top"] - slack and box["bottom"] <= outer["bottom"] + slack)


def start_game(page: Any, url: str, game: str, agent: str = "random", scenario: str | None = None,
               seat: str | None = None, rules: dict[str, Any] | None = None) -> None:
    """Open the page, fill in the setup form and start; returns once the board is shown."""
    page.goto(url)
    page.wait_for_selector("#setup:not([hidden])")
    page.click(f"label.game-tile:has(input[value={game}])")
    page.select_option("#agent", agent)
    if scenario is not None:
        page.select_option("#scenario", scenario)
    if seat is not None:
        page.select_option("#seat", seat)
    if rules:
        page.click("#rules-box summary")
        for name, value in rules.items():
            field = page.locator(f"[data-rule={name}]")
            if isinstance(value, bool):
                field.set_checked(value)
            elif field.evaluate("e => e.tagName") == "SELECT":
                field.select_option(str(value))
            else:
                field.fill(str(value))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])[data-version], #error:not([hidden])")
    assert page.locator("#error").is_hidden(), f"the game did not start: {page.locator('#error').inner_text()}"
    page.wait_for_selector("#game:not([hidden])[data-version]")
    settle(page)


def settle(page: Any) -> None:
    """Wait until no request of the page is in flight."""
    page.wait_for_selector("#game[data-busy=false]")


def status(page: Any) -> str:
    return str(page.get_attribute("#game", "data-status"))


def version(page: Any) -> int:
    return int(page.get_attribute("#game", "data-version"))


def click_something(page: Any, rng: random.Random) -> str:
    """Click one random highlighted thing or move button; returns what it was (its step or move)."""
    options = page.locator(CLICKABLE)
    n = options.count()
    assert n > 0, "it is the player's turn but nothing on the page can be clicked"
    target = options.nth(rng.randrange(n))
    what = target.get_attribute("data-step") or target.get_attribute("data-move") or "?"
    box = target.bounding_box() if "hex" in (target.get_attribute("class") or "").split() else None
    if box:  # a hex: click its top, beside its label, where no unit standing on it covers it
        target.click(position={"x": box["width"] / 2, "y": box["height"] * 0.2})
    else:
        target.click()
    settle(page)
    return what


def play_move(page: Any, rng: random.Random, max_clicks: int = 12) -> None:
    """Click highlighted things until the page has sent a move (its version changes) or the game is over."""
    before = version(page)
    for _ in range(max_clicks):
        if status(page) != "your_turn" or version(page) != before:
            return
        click_something(page, rng)
    raise AssertionError(f"{max_clicks} clicks did not make a move")


def play_to_end(page: Any, rng: random.Random, max_moves: int = 600, screenshot: Path | None = None,
                screenshot_after: int = 10) -> int:
    """Play random clicks until the game is over; returns the number of moves made.

    ``screenshot``: after ``screenshot_after`` moves, click one highlighted thing (so a selection and its
    continuations are lit) and save a picture of the page there (once).
    """
    moves = 0
    while status(page) != "over":
        assert moves < max_moves, f"the game did not end in {max_moves} moves"
        assert status(page) == "your_turn", f"the page waits in status {status(page)!r} after a move"
        if screenshot is not None and moves >= screenshot_after and take_selection_screenshot(
                page, screenshot, prefer=moves < screenshot_after + 40):
            screenshot = None
        play_move(page, rng)
        moves += 1
    return moves


def take_selection_screenshot(page: Any, path: Path, prefer: bool = False) -> bool:
    """Save the page with a selection lit: a naval card in the action phase (a card alone never makes a
    move there); on the hex map the unit to act is preselected and its hexes are lit already."""
    if page.get_attribute("#game", "data-game-name") == "naval":
        card = page.locator("#board [data-step^='card:'].clickable").last
        if not (page.locator("#choices button[data-move=pass]").count() and card.count()):
            return False  # not the action phase: wait for it
        card.click()
    elif page.locator("#board [data-step^='hex:'].clickable" + (".k-shoot" if prefer else "")).count() == 0:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    page.mouse.move(0, 0)  # no hover effect in the picture
    page.wait_for_timeout(300)  # the lifted card's transition
    page.screenshot(path=str(path), full_page=True)
    page.keyboard.press("Escape")
    return True
