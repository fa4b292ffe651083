"""The dice as explicit chance events (envs/tankattack/chance.py, RULES.md 18)."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.tankattack import END, TankState, load_scenario
from cardwar.envs.tankattack.chance import FACES, Step, apply_with_dice, chance_free
from cardwar.envs.tankattack.serialize import state_to_dict


class RecordingDice:
    """The state's real Generator, writing down every die it hands out."""

    def __init__(self, rng: np.random.Generator) -> None:
        self.rng, self.rolled = rng, []

    def integers(self, low, high=None):
        v = int(self.rng.integers(low, high))
        self.rolled.append(v)
        return v


def _public(s: TankState) -> dict:
    d = state_to_dict(s)
    del d["rng"]
    return d


@pytest.mark.parametrize("scenario", ["trench_raid", "cambrai"])
def test_a_decision_with_the_dice_it_rolled_is_the_decision_as_played(scenario):
    """Play whole random games; at every decision the chance tree, given the dice the real roll gave, reaches
    the very state the engine reached, and it asks for exactly as many dice as were rolled."""
    s = TankState.new_game(load_scenario(scenario), seed=3)
    rng = np.random.default_rng(3)
    rolls = 0
    while not s.is_terminal() and s.bound < 24:
        legal = s.legal_actions()
        a = int(legal[rng.integers(len(legal))])
        step = Step(chance_free(s), a)
        real = RecordingDice(s.rng)
        s.rng = real
        s.apply_action(a)
        s.rng = real.rng
        for die in real.rolled:
            assert step.needs_die
            step = step.with_die(die)
        assert not step.needs_die
        assert _public(step.after) == _public(s)
        rolls += len(real.rolled)
    assert rolls > 20


def _settle(step: Step, face: int = 1) -> TankState:
    while step.needs_die:
        step = step.with_die(face)
    return step.after


def test_the_pip_roll_is_a_chance_node_of_six_faces():
    """The decision that closes the defender's first bound rolls the attacker's PIP die among its dice (after
    any shooting dice of the bound's end): exactly one of its chance nodes sets the PIPs, to the face chosen."""
    s = chance_free(TankState.new_game(load_scenario("trench_raid"), seed=1))
    while True:  # "end", then whatever the closing steps of the bound ask, every die a 1
        legal = s.legal_actions()
        step = Step(s, END if END in legal else int(legal[0]))
        after = _settle(step)
        if after.bound == 2:
            break
        s = after
    n = len(_dice_of(step))
    pip_dice = [i for i in range(n) if _settle(Step(s, step.action, (1,) * i + (6,) * (n - i))).pip_roll == 6
                and _settle(Step(s, step.action, (1,) * i + (6,) + (1,) * (n - i - 1))).pip_roll == 6]
    assert len(pip_dice) == 1
    i = pip_dice[0]
    for face in FACES:
        after = _settle(Step(s, step.action, (1,) * i + (face,) + (1,) * (n - i - 1)))
        assert (after.bound, after.pip_roll, after.pips) == (2, face, face)


def _dice_of(step: Step) -> tuple[int, ...]:
    while step.needs_die:
        step = step.with_die(1)
    return step.dice


def test_too_many_dice_and_a_bad_face_are_errors():
    s = chance_free(TankState.new_game(load_scenario("trench_raid"), seed=1))
    a = int(s.legal_actions()[0])
    assert apply_with_dice(s, a, ()) is not None  # choosing an element rolls nothing
    with pytest.raises(ValueError, match="rolled 0 dice"):
        apply_with_dice(s, a, (3,))
    with pytest.raises(ValueError, match="1-6"):
        Step(s, a).with_die(7)
