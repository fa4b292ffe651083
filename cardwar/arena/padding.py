"""Padding a seat's wait so that its stopwatch tells nothing hidden (issue 27; docs/engine-protocol.md, *Time*).

The time between a seat's answer and its next question holds the other seat's work, and in a game that hides
steps (the skirmish's declarations) that work grows with how many steps were hidden. A dealer that waits
out a budget fixed by public things before the next question leaves a stopwatch nothing to count. The
budget grows on a grid when a wait overran it (:func:`hidden_budget`), so an overrun tells only that one
happened. The server pads its answers with the same grid; the arena pads the waits of engine seats.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

GRID_RATIO = 1.5
"""Each step of the budget's grid is this much longer than the last."""

SPIN_S = 0.001
""":func:`precise_sleep` spins (rather than sleeps) through this last part of a wait."""


def precise_sleep(seconds: float, spin_s: float = SPIN_S) -> None:
    """Wait ``seconds`` on :func:`time.perf_counter`: sleep to within ``spin_s`` of the end, then spin.

    :func:`time.sleep` overshoots by more the longer it sleeps (here 0.19 ms after 75 ms, 0.11 ms after 15 ms),
    and a padded wait's sleep is longest when the hidden work it covers was least: a stopwatch summing many
    waits could tie that overshoot to what was hidden (tests/arena/test_padding.py measured it). Spinning the
    last millisecond ends every wait within microseconds of its end, whatever its length."""
    end = time.perf_counter() + seconds
    if seconds > spin_s:
        time.sleep(seconds - spin_s)
    while time.perf_counter() < end:
        pass


def hidden_budget(budget_ms: float, spent_ms: float, ratio: float = GRID_RATIO) -> float:
    """The wall time a wait that covers hidden steps, and took ``spent_ms``, is made to take: ``budget_ms``, or,
    when the wait overran it, the first step of the grid ``budget_ms * ratio ** k`` at or above ``spent_ms``
    (which then becomes the budget: a seat learns only that some wait overran, and by how many steps)."""
    target = budget_ms
    if spent_ms > target:
        target *= ratio ** max(0, math.floor(math.log(spent_ms / budget_ms) / math.log(ratio)))
        while target < spent_ms:  # the floor above, and float rounding, leave at most a step or two
            target *= ratio
    return target


@dataclass
class SeatPadding:
    """One seat's wait: from its last answer to its next question, padded to the budget once the game has hidden
    a step from this seat (a fact of the rules: the skirmish's declarations). Every wait, not only those in which
    the other seat moved: the dealer's own work after a seat's move (revealing orders, playing the moves out)
    also grows with what is hidden, and whether the other seat moved in a gap is not always told."""

    budget_ms: float
    clock: Callable[[], float] = time.perf_counter
    sleep: Callable[[float], None] = precise_sleep
    answered_at: float | None = None
    hides: bool = False
    waits: list[float] = field(default_factory=list)
    """Milliseconds waited out before each question (for tests and figures)."""

    def answered(self) -> None:
        """The seat has just answered: its wait starts now."""
        self.answered_at = self.clock()

    def saw(self, told: bool) -> None:
        """The other seat moved; ``told``: this seat was told of the move."""
        self.hides = self.hides or not told

    def before_question(self) -> None:
        """Wait out the budget (raised on its grid if the wait already overran it), when it applies."""
        if self.answered_at is None or not self.hides:
            return
        spent = (self.clock() - self.answered_at) * 1000
        self.budget_ms = hidden_budget(self.budget_ms, spent)
        pause = self.budget_ms - spent
        self.waits.append(max(pause, 0.0))
        if pause > 0:
            self.sleep(pause / 1000)
