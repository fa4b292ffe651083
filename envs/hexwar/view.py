"""Information views of the hex game: what one side may know (RULES.md sections 8.1 and 10).

A side sees its own units, every enemy unit that is not hidden, the terrain,
smoke, objective holders, the cards dealt to the units it can see, the face-up
cards of the enemy's hidden units (not whose they are), and public results of
shots. It never sees a hidden enemy unit (its type, hex, id or which card is
its), the deck order, or a future die roll. Units are listed in public-id order.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from typing import NamedTuple

from cardwar.envs.hexwar.hexgrid import from_offset, label, parse_label
from cardwar.envs.hexwar.scenario import NUM_CELLS, SIDES, Scenario, cell_of, hex_of, scenario_from_dict
from cardwar.envs.hexwar.state import ELIMINATED, HexPhase, HexState, PendingShot, ShotReport, card_order_key
from cardwar.envs.hexwar.terrain import CHARS, IMPASSABLE
from cardwar.envs.hexwar.units import TYPE_NAMES, UnitType, type_name
from cardwar.envs.naval.cards import card_to_str, parse_card


class UnitView(NamedTuple):
    """One unit as the viewer sees it."""

    uid: int
    """The unit's public id: a per-game shuffle of the unit numbers, so that the ids a side
    sees say nothing about which scenario units are hidden."""
    side: int
    type: UnitType
    cell: int
    """-1 off-table artillery."""
    hits: int
    activated: bool
    hidden: bool
    """Only ever True for the viewer's own units (hidden from the enemy)."""
    card: int


_MAPS: dict[int, tuple] = {}
_ORDERS: dict[int, tuple[list[int], tuple[int, ...]]] = {}


def _by_public_id(pid: list[int]) -> tuple[int, ...]:
    """The units in public-id order: a game's ids never change (its states share the one list), so the
    order is sorted once a game (cached by the list's identity, bounded)."""
    hit = _ORDERS.get(id(pid))
    if hit is None or hit[0] is not pid:
        if len(_ORDERS) > 256:
            _ORDERS.clear()
        hit = (pid, tuple(sorted(range(len(pid)), key=pid.__getitem__)))
        _ORDERS[id(pid)] = hit
    return hit[1]


_GENERATED = re.compile(r"random-\d+")


def public_map(sc: Scenario) -> Scenario:
    """The scenario with its forces removed (cached per scenario object).

    A procedural scenario with hidden units also loses its generator seed (name
    ``random-57``, title ``Random battle 57``): with the seed anyone could rebuild the
    forces, hidden units included.
    """
    hit = _MAPS.get(id(sc))
    if hit is None or hit[0] is not sc:
        if len(_MAPS) > 256:
            _MAPS.clear()
        public = dataclasses.replace(sc, units=())
        if _GENERATED.fullmatch(sc.name) and any(u.hidden for u in sc.units):
            public = dataclasses.replace(public, name="random", title="Random battle")
        hit = (sc, public)
        _MAPS[id(sc)] = hit
    return hit[1]


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
    terrain: tuple = ()
    """The map's terrain by cell (public: the table is in view of both players)."""
    objectives: tuple = ()
    """The scenario's objectives (hex, value, initial holder); current holders are ``holders``."""
    map: object = None
    """The scenario without its forces (terrain, size, objectives, turn limit): public."""
    config: object = None
    """The rule options in force (public)."""
    hidden_cards: tuple[tuple[int, int, bool], ...] = ()
    """(side, card, played) for each hidden unit the viewer does not know, highest card first:
    the seed deals "a card face up for each unit", so the cards and their number are public,
    not whose they are."""

    @classmethod
    def of(cls, s: HexState, side: int | None, everything: bool = False) -> HexView:
        """The view of ``side`` (None: a spectator); ``everything`` shows hidden units too
        (for omniscient debugging pictures only, never for a player)."""
        pid, sides, cells, hidden = s.public_id, s.side, s.cell, s.hidden
        n = len(cells)
        # known[u]: the viewer knows of unit u (its own, or not hidden); one pass, read below
        known = [True] * n if everything else [sd == side or not h for sd, h in zip(sides, hidden)]
        new = tuple.__new__  # a NamedTuple without its Python-level __new__: views are built every step
        utype, hits, activated, card = s.utype, s.hits, s.activated, s.card
        units = tuple(new(UnitView, (pid[u], sides[u], utype[u], cells[u], hits[u], activated[u],
                                     hidden[u] and (everything or sides[u] == side), card[u]))
                      for u in _by_public_id(pid) if cells[u] != ELIMINATED and known[u])
        unknown = sorted(((sides[u], card[u], activated[u]) for u in range(n)
                          if not known[u] and cells[u] != ELIMINATED and card[u] >= 0),
                         key=lambda x: card_order_key(x[1]), reverse=True)
        act = s.acting_unit()
        order = tuple(pid[u] for u in s.order[s.ptr:] if cells[u] != ELIMINATED and not activated[u] and known[u])
        lost0 = lost1 = 0
        for u in range(n):
            if cells[u] == ELIMINATED:
                if sides[u] == 0:
                    lost0 += 1
                elif sides[u] == 1:
                    lost1 += 1
        pending = None if s.pending is None else PendingShot(tuple(pid[u] for u in s.pending.shooters),
                                                             pid[s.pending.target])
        shots = tuple(new(ShotReport, (pid[r.shooter], pid[r.target], *r[2:])) for r in s.last_shots)
        return new(cls, (side, s.phase, s.turn, s.scenario.turns, s.current_player,
                         pid[act] if act >= 0 and known[act] else -1, units, order, tuple(s.smoke), tuple(s.holders),
                         pending, shots, (lost0, lost1), s.winner,
                         copy.deepcopy(s.result) if s.result is not None else None, s.scenario.terrain,
                         s.scenario.objectives, public_map(s.scenario), s.config, tuple(unknown)))

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict:
        """JSON-friendly form (safe to send to this side): hexes as labels, cards and unit types by name.

        The map, the terrain, the objectives and the rules are left out: they are the same all
        game (:func:`public_map` ``.to_dict()`` and the config, which the engine protocol sends
        once in ``new_game``); :meth:`from_dict` takes them back as arguments.
        """
        side = lambda p: None if p is None or p < 0 else SIDES[p]  # noqa: E731
        return {
            "side": side(self.side), "phase": self.phase.name.lower(), "turn": self.turn, "turns": self.turns,
            "current": side(self.current), "acting": None if self.acting < 0 else self.acting,
            "units": [{"id": u.uid, "side": SIDES[u.side], "type": _TYPE_OUT[u.type], "hex": _hex_out(u.cell),
                       "hits": u.hits, "activated": u.activated, "hidden": u.hidden, "card": _card_out(u.card)}
                      for u in self.units],
            "order": list(self.order), "smoke": [_hex_out(c) for c in self.smoke],
            "holders": [side(h) for h in self.holders],
            "pending_shot": None if self.pending is None else {"shooters": list(self.pending.shooters),
                                                               "target": self.pending.target},
            "last_shots": [r._asdict() for r in self.last_shots],
            "lost": {"blue": self.lost[0], "red": self.lost[1]}, "winner": side(self.winner), "result": self.result,
            "hidden_cards": [{"side": SIDES[s], "card": _CARD_NAMES[c], "played": played}
                             for s, c, played in self.hidden_cards],
        }

    @classmethod
    def from_dict(cls, d: dict, scenario: Scenario, config: object = None) -> HexView:
        """The view :meth:`to_dict` wrote, on ``scenario``'s map (its forces are ignored: the view keeps
        :func:`public_map`), with ``config`` (a HexConfig or its dict; default rules if None).

        ``from_dict(v.to_dict(), v.map, v.config) == v``.
        """
        from cardwar.envs.hexwar.config import HexConfig

        side = lambda x: None if x is None else SIDES.index(x)  # noqa: E731
        new, cells, cards = tuple.__new__, _CELLS, _CARDS  # read every move by a served agent: kept lean
        units = tuple(new(UnitView, (u["id"], SIDES.index(u["side"]), TYPE_NAMES[u["type"]],
                                     -1 if u["hex"] is None else cells.get(u["hex"]) or _hex_in(u["hex"]), u["hits"],
                                     u["activated"], u["hidden"],
                                     -1 if u["card"] is None else cards.get(u["card"]) or _card_in(u["card"])))
                      for u in d["units"])
        p = d["pending_shot"]
        pending = None if p is None else PendingShot(tuple(p["shooters"]), p["target"])
        sc = public_map(scenario)
        if not isinstance(config, HexConfig):
            config = HexConfig.from_dict(config)
        return cls(side(d["side"]), HexPhase[d["phase"].upper()],  # type: ignore[arg-type]
                   d["turn"], d["turns"], side(d["current"]),
                   -1 if d["acting"] is None else d["acting"], units, tuple(d["order"]),
                   tuple(_hex_in(h) for h in d["smoke"]), tuple(-1 if h is None else side(h) for h in d["holders"]),
                   pending, tuple(ShotReport(**r) for r in d["last_shots"]), (d["lost"]["blue"], d["lost"]["red"]),
                   side(d["winner"]), copy.deepcopy(d["result"]), sc.terrain, sc.objectives, sc, config,
                   tuple((SIDES.index(h["side"]), _card_in(h["card"]), h["played"]) for h in d["hidden_cards"]))


def public_map_from_dict(d: dict) -> Scenario:
    """The scenario :func:`public_map` ``(sc).to_dict()`` wrote: a map with no forces.

    A scenario file needs a unit of each side on the table, so each side gets a placeholder
    on a passable hex while the file is read; the placeholders are removed after.
    """
    data = copy.deepcopy(d)
    spots = [label(from_offset(c, r)) for r, row in enumerate(str(data.get("map", "")).strip().splitlines())
             for c, ch in enumerate(row.split()) if ch in CHARS and CHARS[ch] not in IMPASSABLE]
    sides = data.get("sides") if isinstance(data.get("sides"), dict) else {}
    data["sides"] = {s: {**(sides.get(s) if isinstance(sides.get(s), dict) else {}),
                         "units": [{"type": "foot", "hex": spots[min(i, len(spots) - 1)]}] if spots else []}
                     for i, s in enumerate(SIDES)}
    sc = scenario_from_dict(data, name=str(d.get("name") or "map"), source="<public map>")
    return dataclasses.replace(sc, units=())


_LABELS = tuple(label(hex_of(c)) for c in range(NUM_CELLS))  # JSON views are built every move: tables, not parsing
_CELLS = {name: c for c, name in enumerate(_LABELS)}
_CARD_NAMES = tuple(card_to_str(c) for c in range(52))
_CARDS = {name: c for c, name in enumerate(_CARD_NAMES)}
_TYPE_OUT = {t: type_name(t) for t in UnitType}


def _hex_out(cell: int) -> str | None:
    return None if cell < 0 else _LABELS[cell]


def _hex_in(text: str | None) -> int:
    if text is None:
        return -1
    cell = _CELLS.get(text)
    return cell if cell is not None else cell_of(parse_label(text))


def _card_out(card: int) -> str | None:
    return None if card < 0 else _CARD_NAMES[card]


def _card_in(text: str | None) -> int:
    if text is None:
        return -1
    card = _CARDS.get(text)
    return card if card is not None else parse_card(text)
