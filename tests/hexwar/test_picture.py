"""The rgb_array picture: shape, what each viewer may see, and that it follows the game."""

from __future__ import annotations

import time

import numpy as np
import pytest

from cardwar.envs.hexwar.actions import DECODED, Kind
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.picture import _Layout, render_rgb
from cardwar.envs.hexwar.scenario import MAX_WIDTH, available_scenarios, cell_of, load_scenario
from cardwar.envs.hexwar.state import HexPhase, HexState
from cardwar.envs.hexwar.terrain import Terrain

VIEWERS = (0, 1, None, "omniscient")


def play(s: HexState, n: int, seed: int = 0) -> HexState:
    rng = np.random.default_rng(seed)
    for _ in range(n):
        if s.is_terminal():
            break
        la = s.legal_actions()
        s.apply_action(la[int(rng.integers(len(la)))])
    return s


def check_image(img: np.ndarray, sc) -> None:
    assert isinstance(img, np.ndarray)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] == 3
    lay = _Layout(sc)
    assert img.shape[:2] == (lay.h, lay.w)
    assert img.std() > 10  # not a blank canvas


def hidden_setup() -> tuple[HexState, int, int]:
    """hill_and_hedgerows with hidden units; a hidden red unit and an empty clear hex away from everything."""
    sc = load_scenario("hill_and_hedgerows")
    s = HexState.new_game(sc, HexConfig(hidden_units=True), seed=0)
    hidden = [u for u in range(len(s.cell)) if s.side[u] == 1 and s.hidden[u] and s.cell[u] >= 0]
    assert hidden, "the scenario should start with hidden red units"
    used = set(s.cell) | {cell_of(o.hex) for o in sc.objectives}
    free = [c for c in range(len(sc.terrain)) if sc.on_map[c] and sc.terrain[c] == Terrain.CLEAR and c not in used]
    return s, hidden[0], free[len(free) // 2]


# ------------------------------------------------------------------ shape
@pytest.mark.parametrize("name", available_scenarios())
@pytest.mark.parametrize("viewer", VIEWERS)
def test_shipped_scenarios_shape(name, viewer):
    sc = load_scenario(name)
    s = HexState.new_game(sc, HexConfig(hidden_units=True), seed=0)
    check_image(render_rgb(s, viewer), sc)
    check_image(render_rgb(play(s, 25), viewer), sc)


def test_full_map_is_about_900_by_700():
    sc = load_scenario("meeting_engagement")
    assert (sc.width, sc.height) == (12, 10)
    h, w, _ = render_rgb(HexState.new_game(sc, seed=0)).shape
    assert 800 <= w <= 1000 and 600 <= h <= 800


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_random_scenarios_shape(seed):
    sc = generate_scenario(seed)
    s = HexState.new_game(sc, seed=seed)
    for viewer in VIEWERS:
        check_image(render_rgb(s, viewer), sc)


def test_small_map_scales():
    small, full = generate_scenario(3, width=6, height=6), generate_scenario(3)
    a = render_rgb(HexState.new_game(small, seed=0))
    b = render_rgb(HexState.new_game(full, seed=0))
    check_image(a, small)
    assert a.shape[0] < b.shape[0] and a.shape[1] <= b.shape[1]


def test_default_viewer_is_spectator():
    s = HexState.new_game(load_scenario("river_crossing"), seed=1)
    assert np.array_equal(render_rgb(s), render_rgb(s, None))


def test_bad_viewer():
    s = HexState.new_game(load_scenario("river_crossing"), seed=1)
    with pytest.raises(ValueError):
        render_rgb(s, "blue")


def test_deterministic_and_cache_safe():
    sc = load_scenario("artillery_barrage")
    s = play(HexState.new_game(sc, seed=3), 10)
    first = render_rgb(s, "omniscient")
    for name in available_scenarios():  # other scenarios in between must not disturb the cached layer
        render_rgb(HexState.new_game(load_scenario(name), seed=0))
    assert np.array_equal(first, render_rgb(s, "omniscient"))
    assert np.array_equal(first, render_rgb(s.clone(), "omniscient"))


# ------------------------------------------------------------------ what a viewer may see
def test_hidden_enemy_unit_never_drawn_for_the_other_side():
    s, u, dest = hidden_setup()
    moved = s.clone()
    moved.cell[u] = dest
    assert np.array_equal(render_rgb(s, 0), render_rgb(moved, 0))
    assert np.array_equal(render_rgb(s, None), render_rgb(moved, None))
    assert not np.array_equal(render_rgb(s, "omniscient"), render_rgb(moved, "omniscient"))
    assert not np.array_equal(render_rgb(s, 1), render_rgb(moved, 1))  # red knows where its own unit is


def test_hidden_enemy_unit_details_do_not_leak():
    """Its hits and type never show. (Whether its card has been played is public: the card is
    dealt face up and the enemy sees it come up, so that is not changed here.)"""
    s, u, _ = hidden_setup()
    changed = s.clone()
    changed.hits[u] = 5
    changed.utype[u] = changed.utype[0]
    assert np.array_equal(render_rgb(s, 0), render_rgb(changed, 0))
    assert np.array_equal(render_rgb(s, None), render_rgb(changed, None))
    assert not np.array_equal(render_rgb(s, "omniscient"), render_rgb(changed, "omniscient"))


def test_hidden_enemy_hex_looks_empty():
    """Blue's picture of a hidden red unit's hex is the same as of that hex with no unit at all."""
    s, u, dest = hidden_setup()
    gone = s.clone()
    gone.cell[u] = -2  # eliminated: certainly not drawn
    gone.hidden[u] = False
    lay = _Layout(s.scenario)
    cx, cy = (int(round(x)) for x in lay.centre(s.cell[u]))
    crop = np.s_[cy - 25:cy + 25, cx - 25:cx + 25]
    assert np.array_equal(render_rgb(s, 0)[crop], render_rgb(gone, 0)[crop])
    assert not np.array_equal(render_rgb(s, "omniscient")[crop], render_rgb(gone, "omniscient")[crop])


def test_revealed_unit_appears():
    s, u, _ = hidden_setup()
    shown = s.clone()
    shown.hidden[u] = False
    assert not np.array_equal(render_rgb(s, 0), render_rgb(shown, 0))


# ------------------------------------------------------------------ the picture follows the game
def test_picture_changes_when_a_unit_moves():
    sc = load_scenario("meeting_engagement")
    s = HexState.new_game(sc, seed=0)
    moves = [a for a in s.legal_actions() if DECODED[a].kind == Kind.MOVE]
    assert moves
    after = s.clone()
    a = moves[0]
    after.apply_action(a)
    dest = DECODED[a].cell
    lay = _Layout(sc)
    cx, cy = (int(round(x)) for x in lay.centre(dest))
    crop = np.s_[cy - 15:cy + 15, cx - 15:cx + 15]
    for viewer in VIEWERS:
        before_img, after_img = render_rgb(s, viewer), render_rgb(after, viewer)
        assert not np.array_equal(before_img, after_img)
        assert not np.array_equal(before_img[crop], after_img[crop])  # a counter now stands there


def test_picture_changes_with_smoke_hits_and_holders():
    sc = load_scenario("meeting_engagement")
    s = HexState.new_game(sc, seed=0)
    base = render_rgb(s, "omniscient")
    smoky = s.clone()
    smoky.smoke = [5 * MAX_WIDTH + 6]
    assert not np.array_equal(base, render_rgb(smoky, "omniscient"))
    hit = s.clone()
    hit.hits[0] = 3
    assert not np.array_equal(base, render_rgb(hit, "omniscient"))
    held = s.clone()
    held.holders[0] = 1
    assert not np.array_equal(base, render_rgb(held, "omniscient"))


def test_game_over_and_evasion_render():
    sc = load_scenario("meeting_engagement")
    s = play(HexState.new_game(sc, seed=2), 5000, seed=5)
    assert s.phase == HexPhase.GAME_OVER
    for viewer in VIEWERS:
        check_image(render_rgb(s, viewer), sc)
    rng = np.random.default_rng(0)
    s = HexState.new_game(sc, seed=0)
    while not s.is_terminal() and s.phase != HexPhase.EVADE:
        la = s.legal_actions()
        pool = [a for a in la if DECODED[a].kind == Kind.SHOOT] or [a for a in la if DECODED[a].kind == Kind.MOVE] \
            or la
        s.apply_action(pool[int(rng.integers(len(pool)))])
    for viewer in VIEWERS:
        check_image(render_rgb(s, viewer), sc)


def test_fast_enough():
    s = play(HexState.new_game(load_scenario("meeting_engagement"), seed=0), 20)
    render_rgb(s, "omniscient")  # builds the cached terrain layer
    n = 20
    t0 = time.perf_counter()
    for _ in range(n):
        render_rgb(s, "omniscient")
    per_frame = (time.perf_counter() - t0) / n
    assert per_frame < 0.03


# ------------------------------------------------------------------ the activation cards
def test_card_strip_shows_the_turns_cards_highest_first_and_hidden_units_anonymously():
    """Seed: "deal a card face up for each unit ... starting with the highest value card (Kings)".
    The strip holds one card per living unit the viewer knows and one per enemy hidden unit (no
    letter, no hex), King first; only the card up is outlined; never a card still in the deck."""
    from cardwar.envs.hexwar.picture import _strip_entries
    from cardwar.envs.hexwar.state import card_order_key

    s, _, _ = hidden_setup()
    play(s, 7, seed=1)
    for viewer in (0, 1, None):
        v = s.information_view(viewer)
        entries = _strip_entries(v)
        known = [u for u in v.units if u.card >= 0]
        secret = [u for u in range(len(s.cell)) if s.cell[u] >= 0 and s.hidden[u] and s.side[u] != viewer]
        assert len(entries) == len(known) + len(secret)
        assert [card_order_key(e[0]) for e in entries] == sorted((card_order_key(e[0]) for e in entries),
                                                                 reverse=True)
        assert sorted(e[0] for e in entries if e[5]) == sorted(s.card[u] for u in secret)
        assert all(e[2] == "?" for e in entries if e[5])
        assert not {e[0] for e in entries} & set(s.deck)
        if s.phase == HexPhase.ACT:
            up = [e for e in entries if e[4]]
            assert len(up) == 1 and up[0][0] == s.card[s.acting_unit()]


def test_card_strip_follows_the_turn():
    """Playing a card fades it and moves the outline: the strip's pixels change."""
    from cardwar.envs.hexwar.picture import BOTTOM_H, CARDS_H

    sc = load_scenario("meeting_engagement")
    s = HexState.new_game(sc, seed=0)
    lay = _Layout(sc)
    strip = np.s_[lay.h - BOTTOM_H - CARDS_H:lay.h - BOTTOM_H, :]
    before = render_rgb(s, 0)[strip]
    s.apply_action(s.legal_actions()[-1])  # pass
    assert not np.array_equal(before, render_rgb(s, 0)[strip])
