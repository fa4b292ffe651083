"""The dice as explicit chance events (RULES.md 18): a decision, then the dice it rolls, one chance node each.

Every die of Tank Attack is one d6 drawn from the state's Generator when the rules roll it (the PIP die,
each side's combat die, the Gas duration die, the Barrage-against-wire dice). A search that treats chance
as chance (expectimax, MCTS with chance nodes, OpenSpiel's chance players) needs to stop at each roll and
choose the outcome itself. The engine is not cut into pieces for that: a decision is applied to a clone
whose Generator is replaced by :class:`ScriptedDice`, which hands out the dice chosen so far and raises
:class:`NeedDie` at the first roll beyond them. So a decision followed by its dice is

    >>> step = Step(state, action)            # doctest: +SKIP
    >>> while step.needs_die:                 # a chance node: six outcomes, 1/6 each
    ...     step = step.with_die(die)
    >>> step.after                            # the next decision's state

Each die re-applies the decision from its start (a decision rolls at most a few dice), and the states of
such a tree never draw from their own Generator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardwar.envs.tankattack.state import TankState

FACES = (1, 2, 3, 4, 5, 6)
"""Every die of the game is a d6, each face 1/6 (RULES.md 18)."""
FACE_PROBABILITY = 1.0 / 6.0


class NeedDie(Exception):  # noqa: N818 - a signal, not an error
    """The decision rolled one die more than it was given."""


class ScriptedDice:
    """A stand-in for the state's Generator: ``integers(1, 7)`` returns the given dice in order, then raises
    :class:`NeedDie`."""

    def __init__(self, dice: tuple[int, ...]) -> None:
        self.dice = dice
        self.used = 0

    def integers(self, low: int, high: int | None = None) -> int:
        if (low, high) != (1, 7):
            raise ValueError(f"Tank Attack rolls only d6 (integers(1, 7)), not integers({low}, {high})")
        if self.used >= len(self.dice):
            raise NeedDie(self.used)
        self.used += 1
        return self.dice[self.used - 1]


_IDLE = np.random.default_rng(0)
"""The Generator left on the states of a chance tree: never drawn from (every decision goes through
:class:`ScriptedDice`), only copied by ``clone``."""


@dataclass(frozen=True)
class Step:
    """A decision ``action`` taken at ``before`` with the dice ``dice`` chosen so far."""

    before: TankState
    action: int
    dice: tuple[int, ...] = ()

    def _run(self) -> TankState | None:
        after = self.before.clone()
        after.rng = ScriptedDice(self.dice)  # type: ignore[assignment]
        try:
            after.apply_action(self.action)
        except NeedDie:
            return None
        if after.rng.used != len(self.dice):  # type: ignore[attr-defined]
            raise ValueError(f"the decision rolled {after.rng.used} dice, not the {len(self.dice)} given")  # type: ignore[attr-defined]
        after.rng = _IDLE
        return after

    @property
    def needs_die(self) -> bool:
        """Whether the decision rolls another die (a chance node)."""
        return self.result is None

    @property
    def result(self) -> TankState | None:
        cached = self.__dict__.get("_result", False)
        if cached is False:
            cached = self._run()
            object.__setattr__(self, "_result", cached)
        return cached

    @property
    def after(self) -> TankState:
        """The state after the decision and its dice (ValueError while a die is still to come)."""
        out = self.result
        if out is None:
            raise ValueError("the decision rolls another die: choose it with with_die")
        return out

    def with_die(self, face: int) -> Step:
        if face not in FACES:
            raise ValueError(f"a d6 shows 1-6, not {face}")
        return Step(self.before, self.action, self.dice + (face,))


def apply_with_dice(state: TankState, action: int, dice: tuple[int, ...]) -> TankState | None:
    """The state after ``action`` with exactly ``dice`` rolled (None if it rolls more)."""
    return Step(state, action, tuple(dice)).result


def chance_free(state: TankState) -> TankState:
    """A copy of ``state`` whose Generator is never drawn from (the root of a chance tree)."""
    c = state.clone()
    c.rng = _IDLE
    return c


__all__ = ["FACES", "FACE_PROBABILITY", "NeedDie", "ScriptedDice", "Step", "apply_with_dice", "chance_free"]
