"""Small Tank Attack positions built in code, dice fixed by hand (its ``slow`` tests are
opt-in: tests/conftest.py).

``position(map_rows, defender=[...], attacker=[...])`` builds a state whose bound has just begun for the
side named ``active`` with ``pips`` PIPs; ``fix_dice(s, 5, 3)`` makes the next rolls those numbers (the
engine draws every die through ``TankState._roll``).
"""

from __future__ import annotations

from collections.abc import Iterable

import pytest

from cardwar.envs.tankattack import TankState, scenario_from_dict
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.state import Stage

OPEN = ["........"] * 12


def position(rows: Iterable[str] | None = None, defender: Iterable[str] = (), attacker: Iterable[str] = (),
             active: int = 0, pips: int = 6, rules=None, turn_limit: int = 10,
             reserve: tuple[list[str], list[str]] = ([], [])) -> TankState:
    """A state at the start of ``active``'s step 2 with ``pips`` PIPs. A General is added far away on each
    side unless one is listed (the scenario format needs exactly one); Bunker at the map's bottom centre
    unless the map has a ``K``."""
    rows = list(rows or OPEN)
    if not any("K" in r for r in rows):
        last = rows[-1]
        mid = len(last) // 2 - 1
        rows[-1] = last[:mid] + "K" + last[mid + 1:]
    defender, attacker = list(defender), list(attacker)
    width = len(rows[0])
    if not any(x.split()[1] == "general" for x in defender):
        defender.append(f"{chr(ord('A') + width - 1)}{len(rows)} general")
    if not any(x.split()[1] == "general" for x in attacker):
        attacker.append(f"{chr(ord('A') + width - 1)}1 general")
    sc = scenario_from_dict({"name": "test", "map": rows, "turn_limit": turn_limit,
                             "defender": {"placed": defender, "reserve": reserve[0]},
                             "attacker": {"placed": attacker, "reserve": reserve[1]}})
    s = TankState.new_game(sc, rules, seed=0)
    s.bound = 1 if active == 0 else 2
    s.active = active
    s.pips = s.pip_roll = pips
    s.stage, s.pending = Stage.MOVES, {}
    s._memo = None
    return s


def at(s: TankState, label: str) -> int:
    """The element in a cell."""
    e = s.grid[parse_label(label)]
    assert e >= 0, f"nothing at {label}"
    return e


def fix_dice(s: TankState, *dice: int) -> None:
    """The next rolls are ``dice``, in order."""
    it = iter(dice)
    s._roll = lambda: next(it)  # type: ignore[method-assign]


def dice_pairs():
    """The 36 equally likely pairs (first die, second die)."""
    return [(a, b) for a in range(1, 7) for b in range(1, 7)]
