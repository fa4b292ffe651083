"""JSON serialisation of the full naval state (hidden information included).

Cards are written by name (``"10H"``), Seazones by letter, so a saved game can
be read by a person. ``state_from_dict(state_to_dict(s))`` plays on exactly as
``s`` does, the random generator included.
"""

from __future__ import annotations

import json

import numpy as np

from cardwar.envs.naval.actions import AttackStyle
from cardwar.envs.naval.battle import BattleReport
from cardwar.envs.naval.cards import card_to_str, parse_card
from cardwar.envs.naval.config import NavalConfig
from cardwar.envs.naval.hands import HandCategory
from cardwar.envs.naval.seemap import parse_zone, zone_letter
from cardwar.envs.naval.state import NavalState, PendingAttack, Phase

FORMAT_VERSION = 1


def _names(cards: list[int] | tuple[int, ...]) -> list[str]:
    return [card_to_str(c) for c in cards]


def _cards(names: list[str]) -> list[int]:
    return [parse_card(n) for n in names]


def _card_or_none(c: int) -> str | None:
    return card_to_str(c) if c >= 0 else None


def _battle_to_dict(b: BattleReport) -> dict:
    return {"attacker": b.attacker, "src": zone_letter(b.src), "dst": zone_letter(b.dst), "style": b.style.name,
            "attack_hand": _names(b.attack_hand), "defence_hand": _names(b.defence_hand),
            "attack_category": b.attack_category.name, "defence_category": b.defence_category.name,
            "attacker_won": b.attacker_won, "royal_flush": b.royal_flush,
            "destroyed": [[zone_letter(z), card_to_str(c)] for z, c in b.destroyed]}


def _battle_from_dict(d: dict) -> BattleReport:
    return BattleReport(d["attacker"], parse_zone(d["src"]), parse_zone(d["dst"]), AttackStyle[d["style"]],
                        tuple(_cards(d["attack_hand"])), tuple(_cards(d["defence_hand"])),
                        HandCategory[d["attack_category"]], HandCategory[d["defence_category"]],
                        d["attacker_won"], d["royal_flush"],
                        tuple((parse_zone(z), parse_card(c)) for z, c in d["destroyed"]))


def state_to_dict(s: NavalState) -> dict:
    """Every field of the state, the Generator's state included."""
    pa = s.pending
    return {
        "format": FORMAT_VERSION, "game": "naval", "config": s.config.to_dict(),
        "rng": s.rng.bit_generator.state, "deck": _names(s.deck), "hands": [_names(h) for h in s.hands],
        "board": [None if s.owner[z] < 0 else [s.owner[z], card_to_str(s.ship[z])] for z in range(9)],
        "discards": _names(s.discards), "phase": s.phase.name, "active": s.active, "current": s.current,
        "first_player": s.first_player, "turn": s.turn, "actions_taken": s.actions_taken,
        "deployed": s.deployed, "attacked": s.attacked,
        "pending": None if pa is None else {
            "attacker": pa.attacker, "src": zone_letter(pa.src), "dst": zone_letter(pa.dst),
            "style": pa.style.name, "attack_card": card_to_str(pa.attack_card),
            "deck_card": _card_or_none(pa.deck_card)},
        "mulligan_choices": list(s.mulligan_choices), "mulligan_shown": _names(s.mulligan_shown),
        "rf_candidates": [zone_letter(z) for z in s.rf_candidates], "rf_picks_left": s.rf_picks_left,
        "rf_cut": s.rf_cut, "rf_loser": s.rf_loser, "rf_winner_zone": s.rf_winner_zone, "last_battle": None if s.last_battle is None else _battle_to_dict(s.last_battle),
        "winner": s.winner, "result": s.result, "move_number": s.move_number,
    }


def state_from_dict(d: dict) -> NavalState:
    """Rebuild a state written by :func:`state_to_dict`."""
    if d.get("game") != "naval" or d.get("format") != FORMAT_VERSION:
        raise ValueError(f"not a naval state of format {FORMAT_VERSION}: game={d.get('game')!r}, "
                         f"format={d.get('format')!r}")
    s = NavalState.__new__(NavalState)
    s.config = NavalConfig.from_dict(d["config"])
    bg = getattr(np.random, d["rng"]["bit_generator"])()
    bg.state = d["rng"]
    s.rng = np.random.Generator(bg)
    s.deck, s.hands = _cards(d["deck"]), [_cards(h) for h in d["hands"]]
    s.owner = [-1 if b is None else b[0] for b in d["board"]]
    s.ship = [-1 if b is None else parse_card(b[1]) for b in d["board"]]
    s.discards = _cards(d["discards"])
    s.phase = Phase[d["phase"]]
    s.active, s.current, s.first_player = d["active"], d["current"], d["first_player"]
    s.turn, s.actions_taken, s.deployed, s.attacked = d["turn"], d["actions_taken"], d["deployed"], d["attacked"]
    p = d["pending"]
    s.pending = None if p is None else PendingAttack(
        p["attacker"], parse_zone(p["src"]), parse_zone(p["dst"]), AttackStyle[p["style"]],
        parse_card(p["attack_card"]), -1 if p["deck_card"] is None else parse_card(p["deck_card"]))
    s.mulligan_choices, s.mulligan_shown = list(d["mulligan_choices"]), _cards(d["mulligan_shown"])
    s.rf_candidates = [parse_zone(z) for z in d["rf_candidates"]]
    s.rf_picks_left, s.rf_cut = d["rf_picks_left"], d["rf_cut"]
    s.rf_loser, s.rf_winner_zone = d["rf_loser"], d["rf_winner_zone"]
    s.last_battle = None if d["last_battle"] is None else _battle_from_dict(d["last_battle"])
    s.winner, s.result, s.move_number = d["winner"], d["result"], d["move_number"]
    return s


def state_to_json(s: NavalState) -> str:
    """:func:`state_to_dict` as a JSON string."""
    return json.dumps(state_to_dict(s))


def state_from_json(text: str) -> NavalState:
    """Inverse of :func:`state_to_json`."""
    return state_from_dict(json.loads(text))
