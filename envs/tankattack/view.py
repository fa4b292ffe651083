"""Information views: Tank Attack hides nothing but the future dice (RULES.md 18).

A seat's view is the whole public state (every element, both reserves, terrain, wire, PIPs, flags, the
bound's events) without the random Generator, the one thing no seat may know.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cardwar.envs.tankattack.serialize import state_to_dict


class TankView(NamedTuple):
    """What one seat (or a spectator, ``None``) knows."""

    seat: int | None
    data: dict[str, Any]
    """:func:`state_to_dict` less ``rng``."""

    @property
    def turn(self) -> int:
        """The bound (the engine client tells a new game by the turn going back)."""
        return self.data["bound"]

    @classmethod
    def of(cls, s, seat: int | None) -> TankView:
        d = state_to_dict(s)
        del d["rng"]
        return cls(seat, d)
