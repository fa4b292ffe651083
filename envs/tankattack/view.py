"""Information views: Tank Attack hides nothing but the future dice (RULES.md 18).

A seat's view is the whole public state (every element, both reserves, terrain, wire, PIPs, flags, the
bound's events) without the random Generator, the one thing no seat may know.

:meth:`TankView.of` keeps a :class:`PublicState` (a copy of the state's fields less the Generator) and builds
the JSON-ready ``data`` only when it is read: the env's observation reads the copy directly (speed).
"""

from __future__ import annotations

from typing import Any

from cardwar.envs.tankattack.serialize import public_dict

_FIELDS = ("etype", "side", "cell", "facing", "general", "moved", "shot", "targeted", "fought", "suppressed",
           "wire_contact", "observed", "initiated", "home", "timer")
"""The state's per-element lists (``TankState``'s ``_PER_ELEMENT``)."""


class PublicState:
    """A copy of a state's public fields, everything but its Generator (RULES.md 18); never changes."""

    __slots__ = ("scenario", "rules", "board", "wire", "bunker_alive", "bunker_fought", "bound", "active", "pips",
                 "pip_roll", "stage", "pending", "pairs", "result", "winner", "move_number", "events") + _FIELDS

    def __init__(self, s) -> None:
        self.scenario, self.rules, self.board = s.scenario, s.rules, s.board
        for name in _FIELDS:
            setattr(self, name, getattr(s, name)[:])
        self.wire = dict(s.wire)
        self.bunker_alive, self.bunker_fought = s.bunker_alive, s.bunker_fought
        self.bound, self.active, self.pips, self.pip_roll = s.bound, s.active, s.pips, s.pip_roll
        self.stage = s.stage
        self.pending = {k: (list(v) if isinstance(v, list) else v) for k, v in s.pending.items()}
        self.pairs = [tuple(p) for p in s.pairs]
        self.result = None if s.result is None else dict(s.result)
        self.winner, self.move_number = s.winner, s.move_number
        self.events = list(s.events)


class TankView:
    """What one seat (or a spectator, ``None``) knows: ``TankView(seat, data)``, or :meth:`of` a state."""

    __slots__ = ("seat", "_data", "public")

    def __init__(self, seat: int | None, data: dict[str, Any] | None = None, public: PublicState | None = None):
        if data is None and public is None:
            raise ValueError("a TankView needs its data or a PublicState")
        self.seat = seat
        self._data = data
        self.public = public
        """The copy of the state the view was taken of (``None`` for a view built from ``data``)."""

    @property
    def data(self) -> dict[str, Any]:
        """:func:`~cardwar.envs.tankattack.serialize.state_to_dict` less ``rng``."""
        if self._data is None:
            self._data = public_dict(self.public)
        return self._data

    @property
    def turn(self) -> int:
        """The bound (the engine client tells a new game by the turn going back)."""
        return self.public.bound if self._data is None else self._data["bound"]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, TankView):
            return NotImplemented
        return self.seat == other.seat and self.data == other.data

    __hash__ = None  # type: ignore[assignment]  (its data is a dict)

    def __iter__(self):
        """``seat, data = view``, as the NamedTuple it once was."""
        return iter((self.seat, self.data))

    def __repr__(self) -> str:
        return f"TankView(seat={self.seat!r}, data={self.data!r})"

    @classmethod
    def of(cls, s, seat: int | None) -> TankView:
        return cls(seat, public=PublicState(s))
