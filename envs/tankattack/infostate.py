"""Information states of Tank Attack: what a seat may not know is the future dice alone (RULES.md 18).

:func:`resample_hidden` is the registry hook the information-state harness uses (tests/hidden): another
state the seat cannot tell apart is the same position with the dice reseeded. :func:`state_from_view`
is the proof that nothing else is hidden: the whole engine state is rebuilt from a seat's view and a
Generator, and plays on as the original does (with the same dice).
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.tankattack.serialize import state_from_dict
from cardwar.envs.tankattack.state import TankState
from cardwar.envs.tankattack.view import TankView


def _reseeded(rng: np.random.Generator) -> np.random.Generator:
    return np.random.Generator(np.random.PCG64(int(rng.integers(2**63))))


def resample_hidden(state: TankState, seat: int, rng: np.random.Generator) -> TankState:
    """``state`` with its future dice redrawn from ``rng``; ``state`` itself is not changed."""
    other = state.clone()
    other.rng = _reseeded(rng)
    return other


def state_from_view(view: TankView, rng: np.random.Generator) -> TankState:
    """The engine state a view describes, its dice drawn from ``rng`` (a copy of the Generator: ``rng`` does
    not move)."""
    return state_from_dict({**view.data, "rng": rng.bit_generator.state})


__all__ = ["resample_hidden", "state_from_view"]
