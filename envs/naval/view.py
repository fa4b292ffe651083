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
from cardwar.envs.naval.cards import NUM_CARDS, card_to_str, parse_card
from cardwar.envs.naval.hands import fast_category
from cardwar.envs.naval.seemap import parse_zone, zone_letter
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
        # tuple.__new__: the NamedTuple without its Python-level __new__ (a view is built every step)
        return tuple.__new__(cls, (
            seat, s.phase, s.active, s.current, s.first_player, s.turn, s.actions_taken, s.deployed,
            s.attacked, tuple(s.hands[seat]) if seat is not None else (), tuple(s.owner), tuple(s.ship),
            tuple(s.discards), len(s.deck), (len(s.hands[0]), len(s.hands[1])), pending, mc,
            tuple(s.mulligan_shown), tuple(s.rf_candidates), s.last_battle, s.winner,
            copy.deepcopy(s.result) if s.result is not None else None, s.config,
            (s.rf_picks_left, s.rf_cut, s.rf_loser, s.rf_winner_zone)))

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
            "royal_flush_state": _rf_state_to_dict(self.royal_flush_state),
        }

    @classmethod
    def from_dict(cls, d: dict, config: object = None) -> NavalView:
        """The view :meth:`to_dict` wrote (the hand comes back sorted); ``config``: the rules in force
        (a NavalConfig or its dict, e.g. the engine protocol's ``new_game`` rules; default rules if None).

        ``from_dict(v.to_dict(), v.config) == v._replace(hand=tuple(sorted(v.hand)))``.
        """
        from cardwar.envs.naval.config import NavalConfig

        seat = lambda x: None if x is None else "AB".index(x)  # noqa: E731
        cards = lambda xs: tuple(_CARDS.get(c) if c in _CARDS else parse_card(c) for c in xs)  # noqa: E731
        owner, ship = [-1] * 9, [-1] * 9
        for z, b in d["board"].items():
            owner[parse_zone(z)], ship[parse_zone(z)] = "AB".index(b["captain"]), parse_card(b["card"])
        pend = None
        if d["pending_attack"] is not None:
            p = d["pending_attack"]
            pend = PublicAttack("AB".index(p["attacker"]), parse_zone(p["from"]), parse_zone(p["to"]),
                                AttackStyle[p["style"].upper()],
                                -1 if p["own_card"] is None else parse_card(p["own_card"]), p["deck_card_drawn"])
        lb = None
        if d["last_battle"] is not None:
            b = d["last_battle"]
            att, dfn = cards(b["attack_hand"]), cards(b["defence_hand"])
            lb = BattleReport("AB".index(b["attacker"]), parse_zone(b["from"]), parse_zone(b["to"]),
                              AttackStyle[b["style"].upper()], att, dfn, fast_category(att), fast_category(dfn),
                              b["attacker_won"], b["royal_flush"],
                              tuple((parse_zone(x["zone"]), parse_card(x["card"])) for x in b["destroyed"]))
        if not isinstance(config, NavalConfig):
            config = NavalConfig.from_dict(config)
        mc, hc = d["mulligan_choices"], d["hand_counts"]
        return cls(seat(d["seat"]), Phase[d["phase"].upper()],  # type: ignore[arg-type]
                   seat(d["active"]), seat(d["current"]),
                   -1 if d["first_player"] is None else seat(d["first_player"]), d["turn"], d["actions_taken"],
                   d["deployed"], d["attacked"], cards(d["hand"]), tuple(owner), tuple(ship), cards(d["discards"]),
                   d["deck_count"], (hc["A"], hc["B"]), pend, (mc["A"], mc["B"]), cards(d["mulligan_shown"]),
                   tuple(parse_zone(z) for z in d["royal_flush_candidates"]), lb, seat(d["winner"]),
                   copy.deepcopy(d["result"]), config, _rf_state_from_dict(d.get("royal_flush_state")))


_CARDS = {card_to_str(c): c for c in range(NUM_CARDS)}  # views are read every move: a table, not parsing


def _rf_state_to_dict(rf: tuple) -> dict:
    picks, cut, loser, winner_zone = rf
    return {"picks_left": picks, "supply_cut": cut, "loser_zone": zone_letter(loser) if loser >= 0 else None,
            "winner_zone": zone_letter(winner_zone) if winner_zone >= 0 else None}


def _rf_state_from_dict(d: dict | None) -> tuple:
    if d is None:
        return (0, False, -1, -1)
    zone = lambda z: -1 if z is None else parse_zone(z)  # noqa: E731
    return (d["picks_left"], d["supply_cut"], zone(d["loser_zone"]), zone(d["winner_zone"]))
