"""The skirmish's text and rgb renders: what each viewer sees, and that nothing hidden leaks (RULES.md §9.2)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cardwar.envs.skirmish.actions import GRID, WIDTH
from cardwar.envs.skirmish.cards import card_to_str
from cardwar.envs.skirmish.picture import image_size, render_rgb
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.scenario import load_scenario, scenario_names
from cardwar.envs.skirmish.state import SkirmishState, new_state
from cardwar.envs.skirmish.text import TEXT_WIDTH, render_text, unit_glyphs
from cardwar.envs.skirmish.units import Soldier

VIEWERS = (0, 1, None, "omniscient")


def play(name: str, steps: int, seed: int, **rules) -> SkirmishState:
    """A game of ``name`` (its own rule options, then ``rules``) after ``steps`` random legal actions."""
    sc = load_scenario(name)
    st = new_state(sc, SkirmishRules.from_dict({**sc.rules, **rules}), seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if st.is_terminal():
            break
        st.apply(rng.choice(st.legal()))
    return st


def mid_games() -> list[SkirmishState]:
    return [play("ww2_squads", steps, seed) for seed in range(3) for steps in (40, 150, 260)]


MID = mid_games()


def map_cell(text: str, cell: int) -> str:
    """The 3 characters of ``cell`` on the text map (ground, glyph, mark)."""
    lines = text.splitlines()
    top = next(i for i, line in enumerate(lines) if line.startswith("    A  B  C"))
    row, col = divmod(cell, WIDTH)
    line = lines[top + 1 + row]
    assert line.startswith(f"{row + 1:>3} ")
    start = 4 + (row % 2) + 3 * col
    return line[start:start + 3].ljust(3)


def unit_rows(text: str, st: SkirmishState, u) -> list[str]:
    """The unit table's rows of ``u`` (glyph, then name)."""
    head = f"  {unit_glyphs(st.scenario)[u.uid]} {u.name[:18]}"
    return [line for line in text.splitlines() if line.startswith(head)]


def unseen_by(st: SkirmishState, viewer: int, *, never: bool) -> list:
    """Units of the other side that ``viewer`` does not see now (``never``: and has never seen)."""
    return [u for u in st.units if u.side != viewer and u.on_table and u.uid not in st.seen[viewer]
            and (not never or u.uid not in st.last_seen[viewer])]


def free_cell(st: SkirmishState, avoid: set[int]) -> int:
    board = st.scenario.board
    taken = {u.cell for u in st.units} | avoid | set(st.scenario.victory.objectives or {})
    cells = [c for c in range(len(board.ground)) if board.on_map(c) and c not in taken
             and board.ground[c] == 0]
    return cells[len(cells) // 2]


# ------------------------------------------------------------------ text
@pytest.mark.parametrize("viewer", VIEWERS)
def test_text_shape_and_header(viewer):
    for st in MID:
        text = render_text(st, viewer)
        lines = text.splitlines()
        assert max(len(line) for line in lines) <= TEXT_WIDTH
        assert lines[0].startswith(f"{st.scenario.title} - turn {st.turn}/{st.scenario.turn_limit}")
        assert f"stage {st.stage}" in text
        assert "activation card:" in text  # ww2_squads plays the deck
        for r in range(st.scenario.height):
            assert any(line.startswith(f"{r + 1:>3} ") for line in lines)
        for side in (0, 1):  # the cards of the turn are public
            assert " ".join(card_to_str(c) for c in st.drawn[side]) in text
        assert text == render_text(st, viewer)  # deterministic


def test_text_rejects_unknown_viewers():
    with pytest.raises(ValueError):
        render_text(MID[0], 2)
    with pytest.raises(ValueError):
        render_rgb(MID[0], "god")


def test_own_units_sit_on_their_hexes_with_private_details():
    for st in MID:
        for viewer in (0, 1):
            text = render_text(st, viewer)
            glyphs = unit_glyphs(st.scenario)
            cells: dict[int, int] = {}
            for u in st.units:
                if u.on_table:
                    cells[u.cell] = cells.get(u.cell, 0) + 1
            for u in st.units:
                if u.side != viewer or not isinstance(u, Soldier):
                    continue
                assert u.name in text
                if u.on_table and cells[u.cell] == 1:
                    assert map_cell(text, u.cell)[1] == glyphs[u.uid]
                (row,) = unit_rows(text, st, u)
                if u.fig.wounds < 3:
                    assert f"{u.fig.ammo}/{u.reserve}" in row  # own ammunition and reserve


def test_enemy_ammunition_and_kings_are_not_shown():
    for st in MID:
        for viewer in (0, 1):
            text = render_text(st, viewer)
            for u in st.soldiers(1 - viewer):
                for row in unit_rows(text, st, u):
                    assert f"{u.fig.ammo}/{u.reserve}" not in row
            assert f"Kings held {len(st.kings[1 - viewer])}" in text


def test_text_never_shows_an_enemy_it_has_not_seen():
    checked = 0
    for st in MID + [play("ww2_squads", 200, 2)]:
        glyphs = unit_glyphs(st.scenario)
        for viewer in (0, 1):
            text = render_text(st, viewer)
            for u in unseen_by(st, viewer, never=True):
                assert u.name not in text
                assert glyphs[u.uid] not in map_cell(text, u.cell)
                checked += 1
            for u in unseen_by(st, viewer, never=False):  # last seen elsewhere: not at its real hex
                if st.last_seen[viewer].get(u.uid) != u.cell:
                    assert glyphs[u.uid] not in map_cell(text, u.cell)
        spectator = render_text(st, None)
        for side in (0, 1):  # a spectator sees a side's units as its enemy knows them
            for u in unseen_by(st, 1 - side, never=True):
                assert u.name not in spectator
                assert glyphs[u.uid] not in map_cell(spectator, u.cell)
    assert checked > 0, "no never-seen enemy in the sample: pick other games"


def test_omniscient_text_shows_everything():
    for st in MID:
        text = render_text(st, "omniscient")
        glyphs = unit_glyphs(st.scenario)
        for u in st.units:
            assert u.name[:18] in text
            (row,) = unit_rows(text, st, u)
            if u.on_table:
                assert f" {GRID.label(u.cell)} " in row
                assert "last seen" not in row
            if isinstance(u, Soldier) and u.fig.wounds < 3:
                assert f"{u.fig.ammo}/{u.reserve}" in row
        for u in st.units:
            here = [v for v in st.units if v.on_table and v.cell == u.cell]
            if u.on_table and len(here) == 1:
                assert map_cell(text, u.cell)[1] == glyphs[u.uid]


def moved_unseen(st: SkirmishState, viewer: int) -> tuple[SkirmishState, SkirmishState] | None:
    """Two copies of ``st`` differing only in where an enemy ``viewer`` does not see stands (and its stance)."""
    hidden = unseen_by(st, viewer, never=False)
    soldiers = [u for u in hidden if isinstance(u, Soldier)]
    if not soldiers:
        return None
    u = soldiers[0]
    other = st.clone()
    w = next(x for x in other.units if x.uid == u.uid)
    w.cell = free_cell(st, {st.last_seen[viewer].get(u.uid, -1)})
    w.fig.stance = type(w.fig.stance)((int(w.fig.stance) + 1) % 3)
    return st, other


def test_renders_do_not_change_when_an_unseen_enemy_moves():
    checked = 0
    for st in MID:
        for viewer in (0, 1):
            pair = moved_unseen(st, viewer)
            if pair is None:
                continue
            a, b = pair
            assert render_text(a, viewer) == render_text(b, viewer)
            assert np.array_equal(render_rgb(a, viewer), render_rgb(b, viewer))
            # the spectator sees this side's units as the viewer does
            assert render_text(a, None) == render_text(b, None)
            assert np.array_equal(render_rgb(a, None), render_rgb(b, None))
            # the omniscient render shows the move
            assert render_text(a, "omniscient") != render_text(b, "omniscient")
            assert not np.array_equal(render_rgb(a, "omniscient"), render_rgb(b, "omniscient"))
            checked += 1
    assert checked > 0


def test_unrevealed_orders_do_not_reach_the_enemy():
    """Phases sequence: while the second side declares, the first side's orders are hidden (§9.1)."""
    checked = 0
    for seed in range(6):
        st = play("duel", 0, seed)
        rng = random.Random(seed)
        for _ in range(60):
            if st.is_terminal():
                break
            d = st.decision
            if st.stage.startswith("declare") and d is not None and not st.moves_revealed:
                enemy = [uid for uid, o in st.orders.items() if st.units[uid].side != d.seat]
                if enemy:
                    other = st.clone()
                    o = other.orders[enemy[0]]
                    o.mode, o.destination, o.watch = "crawl", free_cell(st, set()), not o.watch
                    o.action, o.targets = "grenade", [free_cell(st, set())]
                    for viewer in (d.seat, None):
                        assert render_text(st, viewer) == render_text(other, viewer)
                        assert np.array_equal(render_rgb(st, viewer), render_rgb(other, viewer))
                    checked += 1
            st.apply(rng.choice(st.legal()))
    assert checked > 0


# ------------------------------------------------------------------ picture
@pytest.mark.parametrize("name", scenario_names())
@pytest.mark.parametrize("viewer", VIEWERS)
def test_picture_shape_dtype_and_determinism(name, viewer):
    sc = load_scenario(name)
    shape = (*image_size(sc), 3)
    for steps in (0, 60):
        st = play(name, steps, 1)
        img = render_rgb(st, viewer)
        assert isinstance(img, np.ndarray) and img.dtype == np.uint8
        assert img.shape == shape
        assert img.std() > 10
        assert np.array_equal(img, render_rgb(st, viewer))
        text = render_text(st, viewer)
        assert max(len(line) for line in text.splitlines()) <= TEXT_WIDTH
        assert sum(line.startswith(f"{r + 1:>3} ") for line in text.splitlines()
                   for r in range(sc.height)) >= sc.height


def test_picture_size_is_fixed_through_a_game():
    sizes = {render_rgb(st, v).shape for st in MID for v in VIEWERS}
    assert sizes == {(*image_size(MID[0].scenario), 3)}


def test_viewers_pictures_differ_where_their_knowledge_does():
    for st in MID:
        if unseen_by(st, 0, never=False):
            assert not np.array_equal(render_rgb(st, 0), render_rgb(st, "omniscient"))


def test_game_over_renders():
    st = play("duel", 5000, 0)
    assert st.is_terminal()
    for viewer in VIEWERS:
        assert "Game over" in render_text(st, viewer)
        assert render_rgb(st, viewer).shape == (*image_size(st.scenario), 3)


# ------------------------------------------------------------------ engine (view.py) findings
def test_view_of_an_unseen_enemy_does_not_follow_its_stance():
    for st in MID:
        for viewer in (0, 1):
            pair = moved_unseen(st, viewer)
            if pair is None:
                continue
            a, b = pair
            assert a.information_view(viewer) == b.information_view(viewer)
