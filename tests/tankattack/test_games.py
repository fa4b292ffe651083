"""Whole games: every random game ends; masks are exact against trying every action; JSON round trip and
clone independence; views hold everything but the dice (RULES.md 18); invariants hold throughout."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.tankattack import (
    NUM_ACTIONS, TankIllegalActionError, TankState, load_scenario, state_from_json, state_to_json,
)
from cardwar.envs.tankattack.board import direction
from cardwar.envs.tankattack.contact import front_touches, same_trench
from cardwar.envs.tankattack.state import Stage


def _invariants(s: TankState) -> None:
    """One element a cell and the grid agrees; PIPs never negative; the game's stage names a decision."""
    on = [c for c in s.cell if c >= 0]
    assert len(on) == len(set(on))
    for e, c in enumerate(s.cell):
        if c >= 0:
            assert s.grid[c] == e and s.board.on_map(c) and c != s.board.bunker
    assert sum(1 for g in s.grid if g >= 0) == len(on)
    assert s.pips >= 0
    assert s.is_terminal() == (s.stage is Stage.GAME_OVER)
    if not s.is_terminal():
        assert s.legal_actions(), s.stage


def _legal_contact_after_move(s: TankState, e: int) -> None:
    """8.3: a move never ends with the mover's flank or rear against an enemy's front (outside a trench)."""
    for y in range(len(s.cell)):
        if s.cell[y] >= 0 and s.side[y] != s.side[e] and front_touches(s, y, e) and not same_trench(s, y, e):
            assert direction(s.cell[e], s.cell[y]) == s.facing[e]


def assert_mask_exact(s: TankState, legal: list[int]) -> None:
    """Every one of the 416 actions tried on a clone: exactly the legal ones are accepted, a refused one changes
    nothing, and the clones never touch ``s``."""
    before = s.to_dict()
    for a in range(NUM_ACTIONS):
        c = s.clone()
        try:
            c.apply_action(a)
            ok = True
        except TankIllegalActionError:
            ok = False
            assert c.to_dict() == before, "a refused action changed nothing"
        assert ok == (a in legal), (a, s.stage)
    assert s.to_dict() == before, "the clones never touched the original"


def play(seed: int, scenario: str = "trench_raid", check_masks: int = 0, roundtrip: int = 0) -> TankState:
    s = TankState.new_game(load_scenario(scenario), seed=seed)
    rng = np.random.default_rng(10_000 + seed)
    n = 0
    while not s.is_terminal():
        _invariants(s)
        legal = s.legal_actions()
        if check_masks and n % check_masks == 0:
            assert_mask_exact(s, legal)
        if roundtrip and n % roundtrip == 0:
            back = state_from_json(state_to_json(s))
            assert back.to_dict() == s.to_dict() and back.legal_actions() == legal
            a = int(rng.choice(legal))
            twin = s.clone()
            s.apply_action(a)
            back.apply_action(a)
            twin.apply_action(a)
            assert back.to_dict() == s.to_dict() == twin.to_dict(), "same dice after a round trip and a clone"
        else:
            a = int(rng.choice(legal))
            mover = s.pending.get("element") if s.stage is Stage.MOVE_FACE else None
            s.apply_action(a)
            if mover is not None:
                _legal_contact_after_move(s, mover)
        n += 1
        assert n < 20_000
    assert s.legal_actions() == [] and s.result["reason"] in ("break point", "breakthrough", "turn limit",
                                                              "general lost")
    assert s.returns() in ([1.0, -1.0], [-1.0, 1.0], [0.0, 0.0])
    return s


def test_random_games_all_end():
    """150 random games of the small scenario end, with the invariants at every step."""
    reasons = {play(seed).result["reason"] for seed in range(150)}
    assert "turn limit" in reasons and "break point" in reasons


def test_masks_exact_by_trying_every_action():
    """Every one of the 416 actions is tried on a clone: accepted exactly when listed as legal."""
    play(0, check_masks=6)


def test_json_round_trip_and_clone_play_on_identically():
    for seed in range(5):
        play(seed, roundtrip=3)


def test_clone_independence():
    s = TankState.new_game(load_scenario("trench_raid"), seed=1)
    before = s.to_dict()
    c = s.clone()
    while not c.is_terminal():
        c.apply_action(c.legal_actions()[-1])
    assert s.to_dict() == before


def test_views_hide_only_the_dice():
    """Nothing is hidden (RULES.md 18): both seats' views are the same public state without the Generator,
    and a different random stream changes no view until the next roll."""
    s = TankState.new_game(load_scenario("trench_raid"), seed=3)
    v0, v1 = s.information_view(0), s.information_view(1)
    assert v0.data == v1.data and "rng" not in v0.data
    other = s.clone()
    other.rng = np.random.default_rng(999)
    assert other.information_view(0).data == v0.data


def test_cambrai_plays():
    for seed in range(3):
        play(seed, "cambrai")


@pytest.mark.slow
def test_thousands_of_games():
    for seed in range(2000):
        play(seed)
    for seed in range(100):
        play(seed, "cambrai", check_masks=50 if seed < 5 else 0, roundtrip=40 if seed < 5 else 0)
