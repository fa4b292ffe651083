"""The text map (ansi render): its legend, one meaning per character, and the activation cards.

The map is read back here by a small parser of its own; it must recover from the text
alone every unit, objective and smoke cloud of the viewer's information view.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.hexgrid import label
from cardwar.envs.hexwar.scenario import MAX_WIDTH, available_scenarios, cell_of, hex_of, load_scenario
from cardwar.envs.hexwar.state import HexPhase, HexState, card_order_key
from cardwar.envs.hexwar.terrain import CHAR_OF, CHARS, Terrain
from cardwar.envs.hexwar.text import ACTING, CELL, LEGEND, OBJECTIVE, SMOKE, render_state
from cardwar.envs.hexwar.units import STATS, UnitType
from cardwar.envs.naval.cards import card_to_str

MARKS = {ACTING: "acting", OBJECTIVE: "objective", SMOKE: "smoke"}
UNIT_OF = {STATS[t].code: t for t in UnitType}


def random_positions(n: int, hidden: bool = True):
    """States along random games of shipped and procedural scenarios."""
    rng = np.random.default_rng(n)
    for g in range(n):
        sc = load_scenario(available_scenarios()[g % 4]) if g % 2 else generate_scenario(g)
        s = HexState.new_game(sc, HexConfig(hidden_units=hidden), seed=g)
        for _ in range(int(rng.integers(0, 80))):
            if s.is_terminal():
                break
            la = s.legal_actions()
            s.apply_action(la[int(rng.integers(len(la)))])
        yield s


def parse_map(text: str, width: int, height: int) -> dict[int, tuple[str, list[tuple[int, UnitType, int]], set]]:
    """cell -> (terrain char, [(side, type, hits)], marks) read from the map lines of ``text``."""
    lines = text.splitlines()
    out = {}
    for r in range(height):
        line = lines[2 + r].ljust(4 + CELL // 2 + CELL * width)
        assert line.startswith(f"{r + 1:>3} ")
        body = line[4 + (CELL // 2 if r % 2 else 0):]
        for c in range(width):
            chunk = body[CELL * c:CELL * (c + 1)].rstrip()
            m = re.fullmatch(r"(.)((?:[A-Za-z]\d)*)([*@%]*)", chunk)
            assert m, f"cannot read hex {label(hex_of(r * MAX_WIDTH + c))}: {chunk!r}"
            units = [(0 if ch.isupper() else 1, UNIT_OF[ch.upper()], int(d))
                     for ch, d in re.findall(r"([A-Za-z])(\d)", m.group(2))]
            out[r * MAX_WIDTH + c] = (m.group(1), units, set(m.group(3)))
    return out


# ------------------------------------------------------------------ the legend
def test_no_character_of_the_map_means_two_things():
    """Terrain characters, unit letters (either case) and marks are all different."""
    terrain = [CHAR_OF[t] for t in Terrain]
    units = [STATS[t].code for t in UnitType]
    chars = [c.lower() for c in terrain + units + list(MARKS)]
    assert len(chars) == len(set(chars)), sorted(c for c in chars if chars.count(c) > 1)
    assert set(LEGEND) == set(terrain) | set(units) | set(MARKS)
    assert all(not m.isalnum() for m in MARKS)  # marks are never read as a unit or a hit count


@pytest.mark.parametrize("viewer", [0, 1, None, "omniscient"])
def test_every_map_has_a_legend_naming_each_character(viewer):
    s = HexState.new_game(load_scenario("river_crossing"), seed=0)
    text = render_state(s, viewer)
    legend = text[text.index("Terrain:"):]
    for t in Terrain:
        assert f"{CHAR_OF[t]} {t.name.lower()}" in legend
    for t in UnitType:
        assert f"{STATS[t].code} {STATS[t].name}" in " ".join(legend.split())
    for ch in MARKS:
        assert f"{ch} " in legend


@pytest.mark.parametrize("viewer", [0, 1, None, "omniscient"])
def test_the_map_reads_back_to_the_viewers_board(viewer):
    """Every hex's terrain, units (side, type, hits), objective and smoke marks, and the unit to act,
    read from the text alone, are the view's."""
    for s in random_positions(16):
        from cardwar.envs.hexwar.view import HexView

        v = HexView.of(s, None, everything=True) if viewer == "omniscient" else s.information_view(viewer)
        sc = s.scenario
        board = parse_map(render_state(s, viewer), sc.width, sc.height)
        acting = next((u for u in v.units if u.uid == v.acting), None)
        for cell, (t, units, marks) in board.items():
            assert CHARS[t] == sc.terrain[cell]
            here = [(u.side, u.type, u.hits) for u in v.units if u.cell == cell]
            assert units == here, (label(hex_of(cell)), units, here)
            assert (OBJECTIVE in marks) == any(cell_of(o.hex) == cell for o in sc.objectives)
            assert (SMOKE in marks) == (cell in v.smoke)
            assert (ACTING in marks) == (acting is not None and acting.cell == cell and
                                         s.phase != HexPhase.GAME_OVER)


# ------------------------------------------------------------------ the activation cards
def card_section(text: str) -> str:
    start = text.index("Cards of turn")
    return " ".join(text[start:text.index("\nTo act:") if "\nTo act:" in text else None].split())


@pytest.mark.parametrize("viewer", [0, 1, None])
def test_the_cards_of_the_turn_are_shown_as_far_as_the_viewer_may_know_them(viewer):
    """Each known unit's card with its side, type and hex, played or to come, in card order;
    an unknown hidden unit's card only as "hidden unit"; never a card still in the deck."""
    checked = 0
    for s in random_positions(24):
        if s.phase == HexPhase.GAME_OVER:
            continue
        v = s.information_view(viewer)
        cards = card_section(render_state(s, viewer))
        to_come, played = cards.split(" played: ")
        for u in v.units:
            where = label(hex_of(u.cell)) if u.cell >= 0 else "off-table"
            entry = f"{card_to_str(u.card)} {('blue', 'red')[u.side]} {STATS[u.type].name} {where}"
            assert entry in (played if u.activated else to_come), (entry, cards)
        secret = [u for u in range(len(s.cell)) if s.cell[u] >= 0 and s.hidden[u] and s.side[u] != viewer]
        assert cards.count("hidden unit") == len(secret)
        for u in secret:
            assert f"{card_to_str(s.card[u])} {('blue', 'red')[s.side[u]]} hidden unit" in cards
            assert STATS[s.utype[u]].name not in cards.split(card_to_str(s.card[u]))[1].split(",")[0]
        for c in s.deck:
            assert not re.search(rf"(^|[ *]){card_to_str(c)} ", cards), f"deck card {card_to_str(c)} shown"
        # to come: highest card first, as the seed activates them
        shown = [m.group(2) for m in re.finditer(r"(^|[ *])((?:10|[2-9AJQK])[SHDC]) ", to_come)]
        keys = [card_order_key(next(c for c in range(52) if card_to_str(c) == x)) for x in shown]
        assert keys == sorted(keys, reverse=True)
        checked += 1
    assert checked >= 15
