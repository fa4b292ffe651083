"""Information views of the hex game: what one side may know.

A side sees its own units, every enemy unit that is not hidden, the terrain,
smoke, objective holders, the cards dealt to the units it can see, and public
results of shots. It never sees a hidden enemy unit (nor its card), the deck
order, or a future die roll.
"""

from __future__ import annotations

import copy
from typing import NamedTuple

from envs.hexwar.state import ELIMINATED, HexPhase, HexState, PendingShot, ShotReport
from envs.hexwar.units import UnitType


class UnitView(NamedTuple):
    """One unit as the viewer sees it."""

    uid: int
    side: int
    type: UnitType
    cell: int
    """-1 off-table artillery."""
    hits: int
    activated: bool
    hidden: bool
    """Only ever True for the viewer's own units (hidden from the enemy)."""
    card: int


class HexView(NamedTuple):
    """Everything one side may know."""

    side: int | None
    phase: HexPhase
    turn: int
    turns: int
    current: int
    acting: int
    """The acting unit's id, or -1 when there is none or it is a hidden enemy."""
    units: tuple[UnitView, ...]
    """Living units the viewer knows of."""
    order: tuple[int, ...]
    """Known units still to act this turn, in card order."""
    smoke: tuple[int, ...]
    holders: tuple[int, ...]
    pending: PendingShot | None
    last_shots: tuple[ShotReport, ...]
    lost: tuple[int, int]
    """Units eliminated on each side (public)."""
    winner: int | None
    result: dict | None

    @classmethod
    def of(cls, s: HexState, side: int | None) -> HexView:
        def known(u: int) -> bool:
            return s.side[u] == side or not s.hidden[u]

        new = tuple.__new__  # a NamedTuple without its Python-level __new__: views are built every step
        units = tuple(new(UnitView, (u, s.side[u], s.utype[u], s.cell[u], s.hits[u], s.activated[u], s.hidden[u],
                                     s.card[u])) for u in range(len(s.cell)) if s.cell[u] != ELIMINATED and known(u))
        act = s.acting_unit()
        order = tuple(u for u in s.order[s.ptr:] if s.alive(u) and not s.activated[u] and known(u))
        lost = tuple(sum(1 for u in range(len(s.cell)) if s.side[u] == p and s.cell[u] == ELIMINATED)
                     for p in (0, 1))
        return cls(side, s.phase, s.turn, s.scenario.turns, s.current_player,
                   act if act >= 0 and known(act) else -1, units, order, tuple(s.smoke), tuple(s.holders),
                   s.pending, s.last_shots, lost, s.winner,  # type: ignore[arg-type]
                   copy.deepcopy(s.result) if s.result is not None else None)
