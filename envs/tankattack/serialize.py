"""JSON serialisation of the whole Tank Attack state (RULES.md 18: nothing is hidden).

The scenario travels inside the saved game. Cells are written as labels (``"E8"``), ``"reserve"``,
``"lost"`` or ``"gone"``. ``state_from_dict(state_to_dict(s))`` plays on exactly as ``s`` does, dice included.
"""

from __future__ import annotations

import json

import numpy as np

from cardwar.envs.tankattack.board import label, parse_label
from cardwar.envs.tankattack.contact import BUNKER_ID
from cardwar.envs.tankattack.elements import EType
from cardwar.envs.tankattack.fight import LOST
from cardwar.envs.tankattack.rules import TankAttackRules
from cardwar.envs.tankattack.scenario import scenario_from_dict
from cardwar.envs.tankattack.state import GONE, RESERVE, Stage, TankState

FORMAT_VERSION = 1
_SPECIAL = {RESERVE: "reserve", LOST: "lost", GONE: "gone"}
_SPECIAL_IN = {v: k for k, v in _SPECIAL.items()}


def _cell_out(c: int) -> str:
    return _SPECIAL.get(c) or label(c)


def _cell_in(v: str) -> int:
    return _SPECIAL_IN[v] if v in _SPECIAL_IN else parse_label(v)


def state_to_dict(s: TankState) -> dict:
    """Every field of the state, with the scenario and the Generator's position."""
    d = public_dict(s)
    return {**{k: d.pop(k) for k in ("format", "game", "scenario", "rules")}, "rng": s.rng.bit_generator.state,
            **d}


def public_dict(s: TankState) -> dict:
    """Every field of the state but the Generator (what any seat may know, RULES.md 18), in
    :func:`state_to_dict`'s order. ``s`` may be a :class:`~cardwar.envs.tankattack.view.PublicState`."""
    return {
        "format": FORMAT_VERSION, "game": "tankattack", "scenario": s.scenario.to_dict(), "rules": s.rules.to_dict(),
        "elements": [{"type": EType(s.etype[e]).name.lower(), "side": s.side[e], "cell": _cell_out(s.cell[e]),
                      "facing": s.facing[e], "general": s.general[e], "moved": s.moved[e], "shot": s.shot[e],
                      "targeted": s.targeted[e], "fought": s.fought[e], "suppressed": s.suppressed[e],
                      "wire_contact": s.wire_contact[e], "observed": s.observed[e],
                      "initiated": list(s.initiated[e]),
                      "home": None if s.home[e] < 0 else label(s.home[e]), "timer": s.timer[e]}
                     for e in range(len(s.cell))],
        "wire": {label(c): o for c, o in sorted(s.wire.items())},
        "bunker_alive": s.bunker_alive, "bunker_fought": s.bunker_fought,
        "bound": s.bound, "active": s.active, "pips": s.pips, "pip_roll": s.pip_roll,
        "stage": s.stage.value, "pending": dict(s.pending), "pairs": [list(p) for p in s.pairs],
        "result": s.result, "winner": s.winner, "move_number": s.move_number, "events": list(s.events),
    }


def state_from_dict(d: dict) -> TankState:
    """Rebuild a state written by :func:`state_to_dict`."""
    if d.get("game") != "tankattack" or d.get("format") != FORMAT_VERSION:
        raise ValueError(f"not a tankattack state of format {FORMAT_VERSION}: game={d.get('game')!r}, "
                         f"format={d.get('format')!r}")
    s = TankState.__new__(TankState)
    s.scenario = scenario_from_dict(d["scenario"])
    s.rules = TankAttackRules.from_dict(d["rules"])
    bg = getattr(np.random, d["rng"]["bit_generator"])()
    bg.state = d["rng"]
    s.rng = np.random.Generator(bg)
    els = d["elements"]
    s.etype = [EType[e["type"].upper()] for e in els]
    s.side = [e["side"] for e in els]
    s.cell = [_cell_in(e["cell"]) for e in els]
    for name in ("facing", "general", "moved", "shot", "targeted", "fought", "suppressed", "wire_contact", "observed"):
        setattr(s, name, [e[name] for e in els])
    s.initiated = [tuple(e["initiated"]) for e in els]
    s.home = [-1 if e.get("home") is None else parse_label(e["home"]) for e in els]
    s.timer = [int(e.get("timer", 0)) for e in els]
    s.wire = {parse_label(c): o for c, o in d["wire"].items()}
    s.bunker_alive, s.bunker_fought = d["bunker_alive"], d["bunker_fought"]
    s.bound, s.active, s.pips, s.pip_roll = d["bound"], d["active"], d["pips"], d["pip_roll"]
    s.stage = Stage(d["stage"])
    s.pending = {k: (list(v) if isinstance(v, list) else v) for k, v in d["pending"].items()}
    s.pairs = [tuple(p) for p in d["pairs"]]
    s.result, s.winner, s.move_number = d["result"], d["winner"], d["move_number"]
    s.events = list(d["events"])
    s._rebuild()
    return s


def state_to_json(s: TankState) -> str:
    return json.dumps(state_to_dict(s))


def state_from_json(text: str) -> TankState:
    return state_from_dict(json.loads(text))


__all__ = ["BUNKER_ID", "public_dict", "state_from_dict", "state_from_json", "state_to_dict", "state_to_json"]
