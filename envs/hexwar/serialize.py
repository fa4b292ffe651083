"""JSON serialisation of the full hex state (hidden information included).

The scenario travels inside the saved game, so a file replays anywhere. Hexes
are written as labels (``"C4"``), cards by name, unit types by their scenario
names. ``state_from_dict(state_to_dict(s))`` plays on exactly as ``s`` does.
"""

from __future__ import annotations

import json

import numpy as np

from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.hexgrid import label, parse_label
from cardwar.envs.hexwar.scenario import cell_of, hex_of, scenario_from_dict
from cardwar.envs.hexwar.state import ELIMINATED, OFF_TABLE, HexPhase, HexState, PendingShot, ShotReport
from cardwar.envs.hexwar.units import TYPE_NAMES, type_name
from cardwar.envs.naval.cards import card_to_str, parse_card

FORMAT_VERSION = 1


def _cell_out(c: int) -> str | None:
    return None if c == OFF_TABLE else "eliminated" if c == ELIMINATED else label(hex_of(c))


def _cell_in(v: str | None) -> int:
    return OFF_TABLE if v is None else ELIMINATED if v == "eliminated" else cell_of(parse_label(v))


def _card_out(c: int) -> str | None:
    return card_to_str(c) if c >= 0 else None


def state_to_dict(s: HexState) -> dict:
    """Every field of the state, with the scenario and the Generator's state."""
    return {
        "format": FORMAT_VERSION, "game": "hexwar", "scenario": s.scenario.to_dict(), "config": s.config.to_dict(),
        "rng": s.rng.bit_generator.state,
        "units": [{"side": s.side[u], "type": type_name(s.utype[u]), "hex": _cell_out(s.cell[u]), "hits": s.hits[u],
                   "activated": s.activated[u], "hidden": s.hidden[u], "card": _card_out(s.card[u])}
                  for u in range(len(s.cell))],
        "deck": [card_to_str(c) for c in s.deck], "discards": [card_to_str(c) for c in s.discards],
        "order": list(s.order), "ptr": s.ptr, "phase": s.phase.name, "turn": s.turn,
        "smoke": [label(hex_of(c)) for c in s.smoke], "holders": list(s.holders),
        "pending": None if s.pending is None else {"shooters": list(s.pending.shooters), "target": s.pending.target},
        "last_shots": [r._asdict() for r in s.last_shots], "winner": s.winner, "result": s.result,
        "move_number": s.move_number, "public_id": list(s.public_id),
    }


def state_from_dict(d: dict) -> HexState:
    """Rebuild a state written by :func:`state_to_dict`."""
    if d.get("game") != "hexwar" or d.get("format") != FORMAT_VERSION:
        raise ValueError(f"not a hexwar state of format {FORMAT_VERSION}: game={d.get('game')!r}, "
                         f"format={d.get('format')!r}")
    s = HexState.__new__(HexState)
    sc = d["scenario"]
    s.scenario = scenario_from_dict(sc, name=sc.get("name", "saved"), source="<saved game>")
    s.config = HexConfig.from_dict(d["config"])
    bg = getattr(np.random, d["rng"]["bit_generator"])()
    bg.state = d["rng"]
    s.rng = np.random.Generator(bg)
    units = d["units"]
    s.side = [u["side"] for u in units]
    s.utype = [TYPE_NAMES[u["type"]] for u in units]
    s.cell = [_cell_in(u["hex"]) for u in units]
    s.hits = [u["hits"] for u in units]
    s.activated = [u["activated"] for u in units]
    s.hidden = [u["hidden"] for u in units]
    s.card = [-1 if u["card"] is None else parse_card(u["card"]) for u in units]
    s.deck = [parse_card(c) for c in d["deck"]]
    s.discards = [parse_card(c) for c in d["discards"]]
    s.order, s.ptr, s.phase, s.turn = list(d["order"]), d["ptr"], HexPhase[d["phase"]], d["turn"]
    s.smoke = [cell_of(parse_label(h)) for h in d["smoke"]]
    s.holders = list(d["holders"])
    p = d["pending"]
    s.pending = None if p is None else PendingShot(tuple(p["shooters"]), p["target"])
    s.last_shots = tuple(ShotReport(**r) for r in d["last_shots"])
    s.winner, s.result, s.move_number = d["winner"], d["result"], d["move_number"]
    s.public_id = list(d["public_id"])
    s._moves_memo = s._occ_memo = None
    return s


def state_to_json(s: HexState) -> str:
    """:func:`state_to_dict` as JSON text."""
    return json.dumps(state_to_dict(s))


def state_from_json(text: str) -> HexState:
    """Inverse of :func:`state_to_json`."""
    return state_from_dict(json.loads(text))
