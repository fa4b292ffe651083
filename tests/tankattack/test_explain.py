"""Words for a person at the table (envs/tankattack/explain.py): why an answer is refused, citing RULES.md."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.tankattack import END, TankState, load_scenario
from cardwar.envs.tankattack.actions import NUM_ACTIONS
from cardwar.envs.tankattack.board import label, parse_label
from cardwar.envs.tankattack.explain import STAGE_QUESTIONS, decision_note, why_illegal
from cardwar.envs.tankattack.state import Stage


def test_every_decision_has_its_question():
    assert set(STAGE_QUESTIONS) == set(Stage) - {Stage.GAME_OVER}
    assert all("RULES.md" in q for q in STAGE_QUESTIONS.values())


@pytest.mark.parametrize("scenario", ["trench_raid", "cambrai"])
def test_a_reason_exactly_for_the_refused_answers_one_line_with_its_rule(scenario):
    s = TankState.new_game(load_scenario(scenario), seed=4)
    rng = np.random.default_rng(4)
    checked = 0
    for k in range(300):
        if s.is_terminal():
            break
        if k % 10 == 0:
            view = s.information_view(s.current_player)
            legal = set(s.legal_actions())
            for a in range(NUM_ACTIONS):
                why = why_illegal(view, a)
                assert (why is None) == (a in legal), (a, why)
                assert why is None or ("\n" not in why and "RULES.md" in why)
            assert STAGE_QUESTIONS[s.stage] in decision_note(view)
            checked += 1
        legal = s.legal_actions()
        s.apply_action(int(legal[rng.integers(len(legal))]))
    assert checked >= 10


def _first_bound(scenario: str = "trench_raid") -> TankState:
    return TankState.new_game(load_scenario(scenario), seed=1)


def test_an_enemy_element_an_empty_cell_and_a_moved_element_are_named_with_their_rule():
    s = _first_bound()
    view = s.information_view(0)
    enemy = next(c for e, c in enumerate(s.cell) if c >= 0 and s.side[e] == 1)
    assert "enemy's" in why_illegal(view, enemy) and "8.1" in why_illegal(view, enemy)
    empty = next(c for c in range(16 * 24) if s.board.on_map(c) and s.grid[c] < 0)
    assert "no element at" in why_illegal(view, empty)
    mover = next(a for a in s.legal_actions() if a < 384)  # move one element, then ask for it again
    s.apply_action(mover)
    while s.stage is not Stage.MOVES:
        s.apply_action(s.legal_actions()[0])
    moved = next(e for e in range(len(s.cell)) if s.moved[e])
    if s.cell[moved] >= 0 and s.cell[moved] not in s.legal_actions():
        assert "already moved" in why_illegal(s.information_view(0), s.cell[moved])


def test_a_destination_on_another_element_or_the_bunker_is_refused_by_its_rule():
    s = _first_bound()
    mover = next(a for a in s.legal_actions() if a < 384)
    s.apply_action(mover)
    assert s.stage is Stage.MOVE_DEST
    view = s.information_view(0)
    e = s.pending["element"]
    friend = next(c for x, c in enumerate(s.cell) if c >= 0 and x != e and s.side[x] == 0)
    assert "8.9" in why_illegal(view, friend)
    assert "16.4" in why_illegal(view, s.board.bunker)
    far = parse_label("A1") if label(s.cell[e])[1:] != "1" else parse_label("P24")
    assert why_illegal(view, far) is not None


def test_end_is_always_an_answer_to_the_tactical_moves():
    s = _first_bound()
    assert s.stage is Stage.MOVES and why_illegal(s.information_view(0), END) is None
