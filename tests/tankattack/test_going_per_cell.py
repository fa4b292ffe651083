"""The rule option ``going="per_cell"`` (RULES.md 8.2, 22): each step costs its paces times the element's
good-going rate over the rate of the cell it enters, instead of the whole move taking the path's worst going."""

from __future__ import annotations

import heapq
from fractions import Fraction

import numpy as np
import pytest

from cardwar.envs.tankattack import TankAttackRules, TankState, load_scenario
from cardwar.envs.tankattack.board import parse_label as L
from cardwar.envs.tankattack.elements import STATS, EType
from cardwar.envs.tankattack.movement import can_stand, cell_going, move_options

from .conftest import OPEN, at, position
from .test_games import _invariants, assert_mask_exact

PER_CELL = TankAttackRules(going="per_cell")
ROWS = list(OPEN)
ROWS[5] = "...xxxxx"  # row 6: open A6-C6, craters (bad going) from D6 on


def test_good_then_rough_by_hand():
    """Cavalry (500p good, 200p bad, 3.2) at A6: A6-B6-C6 is 200p of good going, D6 a crater.
    Per cell: 100 + 100 + 100 x 500 / 200 = 450p <= 500p, so D6 is reached; E6 would be 450 + 250 = 700p.
    Worst going: a path into D6 is bad going throughout, 200p, and D6 is 300p away: not reached."""
    worst = position(ROWS, attacker=["A6 cavalry"], active=1)
    per_cell = position(ROWS, attacker=["A6 cavalry"], active=1, rules=PER_CELL)
    assert L("D6") not in move_options(worst, at(worst, "A6"))
    opts = move_options(per_cell, at(per_cell, "A6"))
    assert L("D6") in opts and L("E6") not in opts
    assert L("E5") in opts and L("F5") not in opts  # open ground, 500p either way: E5 is 450p away, F5 550p


def test_road_then_open_by_hand():
    """Rifles (400p road, 300p good, 3.2) from A6 along a road B6-C6, then open D6 and E6:
    per cell 75 + 75 + 100 = 250p to D6, 350p to E6 (not reached); the worst going (good, 300p) agrees on both."""
    rows = list(OPEN)
    rows[5] = "===....."
    for rules in (None, PER_CELL):
        s = position(rows, attacker=["A6 rifles"], active=1, rules=rules)
        opts = move_options(s, at(s, "A6"))
        assert L("D6") in opts and L("E6") not in opts
    rows[5] = "========"  # all road: four 75p steps are 300p (E6), the fifth 375p; worst going: 400p, the same
    for rules in (None, PER_CELL):
        s = position(rows, attacker=["A6 rifles"], active=1, rules=rules)
        opts = move_options(s, at(s, "A6"))
        assert L("E6") in opts and L("F6") not in opts


def _per_cell_reach(s: TankState, e: int) -> set[int]:
    """An independent per-cell search on a map with no other element near, trench or wire: exact fractions
    of paces, 100p a step and 150p a diagonal, a diagonal never cutting a corner the mover may not enter."""
    move = STATS[s.etype[e]].move
    good = Fraction(move[1])
    start = s.cell[e]
    dist = {start: Fraction(0)}
    heap = [(Fraction(0), start)]
    while heap:
        d, c = heapq.heappop(heap)
        if d > dist[c]:
            continue
        for n in s.board.neighbours8(c):
            if not can_stand(s, e, n):
                continue
            diag = n % 16 != c % 16 and n // 16 != c // 16
            if diag and not (can_stand(s, e, c // 16 * 16 + n % 16) and can_stand(s, e, n // 16 * 16 + c % 16)):
                continue
            nd = d + Fraction(150 if diag else 100) * good / move[cell_going(s, e, n)]
            if nd <= good and nd < dist.get(n, good + 1):
                dist[n] = nd
                heapq.heappush(heap, (nd, n))
    return set(dist) - {start}


@pytest.mark.parametrize("kind", ["rifles", "cavalry", "sturmtruppe", "field_artillery", "tank", "armoured_car"])
def test_per_cell_reach_against_an_independent_search(kind):
    rows = ["..xx....", ".=xW~...", "..=.~...", "WW=.F...", "..=x....", "xx=.....", "..=.WW..", "..=....."]
    s = position(rows + ["........"] * 4, attacker=[f"D4 {kind}", "A12 general"], active=1, rules=PER_CELL)
    e = at(s, "D4")
    got = {d for d, o in move_options(s, e).items() if o.kind != "turn" and not o.assault}
    assert got == _per_cell_reach(s, e)


@pytest.mark.parametrize("scenario", ["trench_raid", "cambrai"])
def test_masks_exact_with_per_cell_going(scenario):
    """With ``going="per_cell"`` every action is tried on a clone: accepted exactly when listed as legal."""
    s = TankState.new_game(load_scenario(scenario), PER_CELL, seed=3)
    rng = np.random.default_rng(3)
    n = 0
    while not s.is_terminal() and n < 400:
        _invariants(s)
        legal = s.legal_actions()
        if n % 9 == 0:
            assert_mask_exact(s, legal)
        s.apply_action(int(rng.choice(legal)))
        n += 1
