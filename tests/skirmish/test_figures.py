"""Casualties and Movement (Hit the Deck! v1.5) and the WW2 deck's movement rates, as the seeds tell them."""

from __future__ import annotations

import random

import numpy as np
import pytest

from cardwar.envs.skirmish.cards import SKILL_RANGE, Pack, Quality
from cardwar.envs.skirmish.figures import (
    Figure, MoveMode, Skills, Stance, Status, halve, make_figure,
)


def private(**kw) -> Figure:
    """A Veteran rifleman with skills 7, 5, 4, 6 (shoot, throw, melee, field craft)."""
    return Figure(side=0, team=1, quality=Quality.VETERAN, skills=Skills(7, 5, 4, 6), weapon="rifle", position=12,
                  **kw)


def test_halving_rounds_up():
    # "it should be rounded up to the nearest whole number"
    assert [halve(n) for n in range(1, 9)] == [1, 1, 2, 2, 3, 3, 4, 4]


def test_one_wound_halves_all_skills_rounding_up():
    # "One wound - all skills halved (rounding up) and all movement halved."
    p = private()
    assert [p.skill(s) for s in ("shoot", "throw", "melee", "field_craft")] == [7, 5, 4, 6]
    assert p.wound() == Status.WOUNDED
    assert [p.skill(s) for s in ("shoot", "throw", "melee", "field_craft")] == [4, 3, 2, 3]
    assert p.skills == Skills(7, 5, 4, 6)  # the numbers on his card are unchanged


@pytest.mark.parametrize("mode, fit, wounded", [(MoveMode.CRAWL, 1, 1), (MoveMode.SEARCH, 2, 1),
                                                (MoveMode.WALK, 4, 2), (MoveMode.RUN, 6, 3)])
def test_movement_modes_in_hexes_and_halved_by_a_wound(mode, fit, wounded):
    # Crawl 4m (2 inches), Search 8m (4 inches), Walk 16m (8 inches), Run 24m (12 inches); 1 hex = 4 m
    p = private()
    assert p.move_hexes(mode) == fit
    p.wound()
    assert p.move_hexes(mode) == wounded


def test_two_wounds_incapacitate_three_kill_and_wounds_are_cumulative():
    # "Two wounds - incapacitated - plays no further part in the game but is still alive."
    # "Three wounds mean a character is dead."  "All wounds are cumulative."
    p = private()
    p.wound()
    assert p.active
    assert p.wound() == Status.INCAPACITATED and not p.active
    assert p.move_hexes(MoveMode.WALK) == 0
    assert p.wound() == Status.DEAD
    assert p.wound(2) == Status.DEAD and p.wounds == 3
    assert private().wound(2) == Status.INCAPACITATED


def test_unknown_skill_is_an_error():
    with pytest.raises(KeyError):
        private().skill("abseil")


@pytest.mark.parametrize("stance, hexes", [(Stance.PRONE, 1), (Stance.KNEELING, 2), (Stance.STANDING, 3)])
def test_deck_movement_rates_by_starting_stance(stance, hexes):
    # Prone | Normal - 2" ; Kneeling | Normal -4" ; Standing | Normal - 6"  (2 inches a hex)
    p = private(stance=stance)
    assert p.stance_move_hexes() == hexes
    p.wound()
    assert p.stance_move_hexes() == halve(hexes)


def test_an_all_out_run_is_for_a_standing_man():
    # Standing | All out run - 8" | Standing only
    assert private(stance=Stance.STANDING).stance_move_hexes(all_out_run=True) == 4
    assert private(stance=Stance.KNEELING).stance_move_hexes(all_out_run=True) == 0


def test_a_new_figure_carries_a_full_load():
    from cardwar.envs.skirmish.weapons import FIREARMS

    assert private().weapon == "rifle" and private().ammo == FIREARMS["rifle"].magazine == 10  # RULES.md §2
    assert private(ammo=2).ammo == 2


@pytest.mark.parametrize("make_rng", [random.Random, np.random.default_rng])
def test_make_figure_draws_skills_in_range_and_deterministically(make_rng):
    a = make_figure(1, 2, Quality.ELITE, "smg2", 40, make_rng(9), name="Sgt. Schnieder")
    b = make_figure(1, 2, Quality.ELITE, "smg2", 40, make_rng(9), name="Sgt. Schnieder")
    assert a == b and a.ammo == 30 and a.name == "Sgt. Schnieder"
    low, high = SKILL_RANGE[Quality.ELITE]
    assert all(low <= v <= high for v in vars(a.skills).values())


def test_make_figure_from_a_stacked_pack():
    # shoot, throw, melee, field craft for a Poor figure (2-5): 9 passed over, then 2, 5, A passed over, 3, 4
    pack = Pack.stacked(["9D", "2D", "5H", "AC", "3S", "4S"])
    f = make_figure(0, 1, Quality.POOR, "pistol", 0, random.Random(0), pack=pack)
    assert f.skills == Skills(shoot=2, throw=5, melee=3, field_craft=4)
