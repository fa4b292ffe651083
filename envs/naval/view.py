"""Information views: what one captain may know (OpenSpiel's Observer idea).

A view holds the seat's own hand, the face-up Seemap, the discards, public
counts, the mulligan-shown cards and the public part of a pending attack. It
never holds the other hand, the deck order or any face-down card the seat did
not play itself. Agents and observations are built from views only.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import NamedTuple

from cardwar.envs.naval.actions import AttackStyle
from cardwar.envs.naval.battle import BattleReport
from cardwar.envs.naval.cards import NUM_CARDS, card_to_str
from cardwar.envs.naval.seemap import zone_letter
from cardwar.envs.naval.state import NavalState, Phase


@dataclass(frozen=True)
class PublicAttack:
    """A pending attack as a captain sees it."""

    attacker: int
    src: int
    dst: int
    style: AttackStyle
    own_card: int
    """The face-down attack card if the viewer played it, else -1."""
    deck_card_drawn: bool
    """A Broadside drew a face-down card from the deck (nobody sees it until the reveal)."""


class NavalView(NamedTuple):
    """Everything one captain may know about the game (an immutable tuple: cheap to build)."""

    seat: int | None
    phase: Phase
    active: int
    current: int
    first_player: int
    """-1 until Setup 4 chooses it after the mulligans."""
    turn: int
    actions_taken: int
    deployed: bool
    attacked: bool
    hand: tuple[int, ...]
    board_owner: tuple[int, ...]
    board_card: tuple[int, ...]
    discards: tuple[int, ...]
    deck_count: int
    hand_counts: tuple[int, int]
    pending: PublicAttack | None
    mulligan_choices: tuple[bool | None, bool | None]
    """Own choice always; the other's only once both are resolved."""
    mulligan_shown: tuple[int, ...]
    royal_flush_candidates: tuple[int, ...]
    last_battle: BattleReport | None
    winner: int | None
    result: dict | None
    config: object = None
    """The rule options in force (public)."""
    royal_flush_state: tuple = (0, False, -1, -1)
    """Public bookkeeping of a High Royal Flush being resolved: picks left, supply cut,
    losing ship's zone awaiting the normal result, winning ship's zone."""

    @classmethod
    def of(cls, s: NavalState, seat: int | None) -> "NavalView":
        """The view of ``seat`` (0 = A, 1 = B, None = spectator) of state ``s``."""
        pending = None
        if s.pending is not None:
            pa = s.pending
            pending = PublicAttack(pa.attacker, pa.src, pa.dst, pa.style,
                                   pa.attack_card if seat == pa.attacker else -1, pa.deck_card >= 0)
        if s.phase == Phase.MULLIGAN:
            mc = tuple(c if p == seat else None for p, c in enumerate(s.mulligan_choices))
        else:
            mc = tuple(s.mulligan_choices)
        return cls(seat, s.phase, s.active, s.current, s.first_player, s.turn, s.actions_taken, s.deployed,
                   s.attacked, tuple(s.hands[seat]) if seat is not None else (), tuple(s.owner), tuple(s.ship),
                   tuple(s.discards), len(s.deck), (len(s.hands[0]), len(s.hands[1])), pending, mc,  # type: ignore[arg-type]
                   tuple(s.mulligan_shown), tuple(s.rf_candidates), s.last_battle, s.winner,
                   copy.deepcopy(s.result) if s.result is not None else None, s.config,
                   (s.rf_picks_left, s.rf_cut, s.rf_loser, s.rf_winner_zone))

    def unseen_cards(self) -> list[int]:
        """Cards this seat cannot see: the deck, the other hand and face-down cards of the other side."""
        seen = set(self.hand) | set(self.discards) | {c for c in self.board_card if c >= 0}
        if self.pending is not None and self.pending.own_card >= 0:
            seen.add(self.pending.own_card)
        return [c for c in range(NUM_CARDS) if c not in seen]

    def to_dict(self) -> dict:
        """JSON-friendly form with card names (safe to send to this seat)."""
        names = lambda cs: [card_to_str(c) for c in cs]  # noqa: E731
        board = {zone_letter(z): {"captain": "AB"[o], "card": card_to_str(c)}
                 for z, (o, c) in enumerate(zip(self.board_owner, self.board_card)) if o >= 0}
        pend = None
        if self.pending is not None:
            p = self.pending
            pend = {"attacker": "AB"[p.attacker], "from": zone_letter(p.src), "to": zone_letter(p.dst),
                    "style": p.style.name.lower(), "deck_card_drawn": p.deck_card_drawn,
                    "own_card": card_to_str(p.own_card) if p.own_card >= 0 else None}
        lb = None
        if self.last_battle is not None:
            b = self.last_battle
            lb = {"attacker": "AB"[b.attacker], "from": zone_letter(b.src), "to": zone_letter(b.dst),
                  "style": b.style.name.lower(), "attack_hand": names(b.attack_hand),
                  "defence_hand": names(b.defence_hand), "attacker_won": b.attacker_won,
                  "royal_flush": b.royal_flush,
                  "destroyed": [{"zone": zone_letter(z), "card": card_to_str(c)} for z, c in b.destroyed]}
        return {
            "seat": None if self.seat is None else "AB"[self.seat], "phase": self.phase.name.lower(),
            "active": "AB"[self.active], "current": "AB"[self.current], "first_player": "AB"[self.first_player] if self.first_player >= 0 else None,
            "turn": self.turn, "actions_taken": self.actions_taken, "deployed": self.deployed,
            "attacked": self.attacked, "hand": names(sorted(self.hand)), "board": board,
            "discards": names(self.discards), "deck_count": self.deck_count,
            "hand_counts": {"A": self.hand_counts[0], "B": self.hand_counts[1]}, "pending_attack": pend,
            "mulligan_choices": {"A": self.mulligan_choices[0], "B": self.mulligan_choices[1]},
            "mulligan_shown": names(self.mulligan_shown),
            "royal_flush_candidates": [zone_letter(z) for z in self.royal_flush_candidates],
            "last_battle": lb, "winner": None if self.winner is None else "AB"[self.winner], "result": self.result,
        }
