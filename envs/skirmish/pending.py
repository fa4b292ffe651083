"""Where a turn stands, as typed values (RULES.md §7, §9.1): the stage, and what is pending in it.

The turn machine (:mod:`flow`) is in one :class:`Stage`; what it has half done is one small frozen value,
by stage: a movement declaration (:class:`MoveDeclaration`), a combat declaration or a deck activity
(:class:`ActionDeclaration`), an activation card's choices (:class:`Activation`), the moves being played
(:class:`Moving`), or nothing. A change makes a new value (``dataclasses.replace``), so a copy of the state
never shares a half-answered decision with its original. The observations' stage planes are read off
:class:`Stage`, so a new stage cannot be left out of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Union

from cardwar.envs.skirmish.actions import Step


class Stage(str, Enum):
    """The turn machine's stages, in the order of the observation's stage planes.

    Phases (§7.1): declare_move -> moving -> after_move_fire (``opportunity_fire="after_move"``) ->
    declare_combat -> end_turn. Deck (§7.2): deck (draw an activation card) -> activate (a figure, its
    activity, its parameters; a move runs through moving) -> ... -> end_turn when the deck is spent.
    ``setup``: before the first turn."""

    DECLARE_MOVE = "declare_move"
    MOVING = "moving"
    AFTER_MOVE_FIRE = "after_move_fire"
    DECLARE_COMBAT = "declare_combat"
    DECK = "deck"
    ACTIVATE = "activate"
    END_TURN = "end_turn"
    SETUP = "setup"

    def __str__(self) -> str:
        return self.value

    def __format__(self, spec: str) -> str:
        return format(self.value, spec)


DECLARATION_STAGES = (Stage.DECLARE_MOVE, Stage.DECLARE_COMBAT)
"""The phases' hidden declarations (RULES.md §9.1)."""


@dataclass(frozen=True)
class MoveDeclaration:
    """A unit's movement order being declared (§4, §8.1, §9.1): the step asked next and the answers so far."""

    unit: int
    step: Step = Step.MODE
    mode: str = "stay"
    """stay, crawl, search, walk, run; a vehicle ``speed_k``."""
    speed: int | None = None
    """A vehicle's declared speed."""
    paths: Mapping[int, tuple[int, ...]] | None = None
    """The destinations offered -> their paths (kept from the question to the answer)."""
    destination: int | None = None
    path: tuple[int, ...] = ()
    stance: int | None = None
    watch: bool = False

    def partial(self) -> dict[str, Any]:
        """The answers so far, as the seat's view shows them (§9.2)."""
        return {"mode": self.mode, "destination": self.destination, "stance": self.stance}


@dataclass(frozen=True)
class ActionDeclaration:
    """A unit's combat action (phases, §5.7) or deck activity (§7.2) being declared."""

    unit: int
    step: Step = Step.ACTION
    action: str | None = None
    targets: tuple[int | None, ...] = ()
    """Target hexes so far (``None``: a burst's phantom middle slot, §5.4)."""
    paths: Mapping[int, tuple[int, ...]] | None = None
    destination: int | None = None
    path: tuple[int, ...] = ()
    stance: int | None = None

    def partial(self) -> dict[str, Any]:
        out: dict[str, Any] = {"targets": list(self.targets)}
        if self.action is not None:
            out["action"] = self.action
        if self.destination is not None:
            out["destination"] = self.destination
        return out


@dataclass(frozen=True)
class Activation:
    """An activation card in play (§7.2): whose it is, who may still act, and the activity in hand."""

    side: int
    eligible: tuple[int, ...] = ()
    single: bool = False
    """One figure only (a figure's or vehicle's card, a Free Move by figure)."""
    teams: tuple[int, ...] | None = None
    """A Free Move by fire team: the teams to choose among (§7.2 ``free_move="team"``)."""
    activity: ActionDeclaration | None = None


@dataclass(frozen=True)
class Moving:
    """The moves being played, tick by tick (§4.3): where to go on afterwards, and the hexes entered in the
    last tick (opportunity fire meets a mover at each, §5.5)."""

    resume: Activation | None = None
    """None: the phases' moves (then opportunity fire after the move, or combat); else the activation to
    go back to (a deck move)."""
    passed: Mapping[int, tuple[int, ...]] = field(default_factory=dict)


Pending = Union[MoveDeclaration, ActionDeclaration, Activation, Moving, None]


def declaring(pending: Pending) -> MoveDeclaration | ActionDeclaration | None:
    """The declaration or activity in hand, if any."""
    if isinstance(pending, Activation):
        return pending.activity
    if isinstance(pending, (MoveDeclaration, ActionDeclaration)):
        return pending
    return None


def pending_unit(pending: Pending) -> int | None:
    """The unit whose declaration or activity is part-way, if any."""
    d = declaring(pending)
    return None if d is None else d.unit
