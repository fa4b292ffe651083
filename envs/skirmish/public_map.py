"""The public map of a skirmish scenario as JSON-safe data (RULES.md §1, §10): what both sides and a
spectator know before the first card, for the server's ``new_game`` and the web page. The board's ground,
every obstacle on a hex edge (building walls implied by §1.3 included, doors as built), the objectives and
the victory terms; never a unit, a starting hex, a mine or a rule option."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from cardwar.envs.skirmish.actions import GRID
from cardwar.envs.skirmish.board import GROUND_CHARS, Edge, Ground
from cardwar.envs.skirmish.scenario import HEIGHT, WIDTH, Scenario, load_scenario
from cardwar.envs.skirmish.text import victory_text
from cardwar.envs.skirmish.view import SkirmishView, _this_turn

GENERATED = re.compile(r"generated_(\w+)_\d+")
"""A generated map's name: its seed would rebuild every figure, so it is never shown (generator.py)."""

GROUND_NAMES: dict[str, str] = {GROUND_CHARS[g]: g.name.lower() for g in Ground}
"""Map character -> ground name (§1.2)."""


def _scenario(source: Any) -> Scenario:
    if isinstance(source, Scenario):
        return source
    if isinstance(source, str):
        return load_scenario(source)
    sc = getattr(source, "scenario", None)
    if isinstance(sc, Scenario):
        return sc
    raise TypeError(f"public_map takes a Scenario, a scenario name or a game state, not {type(source).__name__}")


def public_map(source: Any) -> dict[str, Any]:
    """The public map of a scenario (a :class:`Scenario`, a shipped name or a state with ``.scenario``).

    Keys: ``name``, ``title``, ``description``, ``sides``, ``teams`` (side -> team names, for activation
    cards), ``grid`` ([24, 16]), ``width``/``height`` (the part drawn), ``ground`` (one character a cell,
    ``cell = row * 24 + col``), ``ground_names``, ``edges`` ([a, b, kind] for every edge that is not open,
    both hexes drawn, a < b; kind as in scenario files), ``objectives`` ([{cell, label, points, name}]),
    ``victory`` (kind, text, exit side/edge/count, the target vehicle's name, vehicle points),
    ``turn_limit``."""
    sc = _scenario(source)
    board = sc.board
    drawn = {r * WIDTH + c for r in range(sc.height) for c in range(sc.width)}
    edges = []
    for a in sorted(drawn):
        for b in GRID.neighbours(a):
            if a < b and b in drawn:
                e = board.edge(a, b)
                if e != Edge.OPEN:
                    edges.append([a, b, e.name.lower()])
    v = sc.victory
    names = dict(v.objective_names or {})
    name, title, description = sc.name, sc.title or sc.name, sc.description
    generated = GENERATED.fullmatch(name)
    if generated:  # the generator's seed rebuilds the figures: name, title and story without it
        name, title = "generated", f"Generated skirmish ({generated.group(1)})"
        description = re.sub(r"\s*\(seed \d+\)", "", description)
    return {
        "name": name, "title": title, "description": description,
        "sides": list(sc.sides), "teams": {str(side): list(t) for side, t in sorted(sc.teams.items())},
        "grid": [WIDTH, HEIGHT], "width": sc.width, "height": sc.height,
        "ground": "".join(GROUND_CHARS[g] for g in board.ground), "ground_names": dict(GROUND_NAMES),
        "edges": edges,
        "objectives": [{"cell": c, "label": GRID.label(c), "points": p, "name": names.get(c, "")}
                       for c, p in sorted((v.objectives or {}).items())],
        "victory": {"kind": v.kind, "text": victory_text(sc), "exit_side": v.exit_side, "exit_edge": v.exit_edge,
                    "exit_count": v.exit_count, "target": v.target, "vehicle_points": v.vehicle_points},
        "turn_limit": sc.turn_limit,
    }


def spectator_view(state: Any) -> SkirmishView:
    """What a spectator may know (RULES.md §9.2), as ``text.scene(state, None)`` draws it: each side's units
    as the *enemy's* view shows them (seen now, or where last seen), the public part of their orders, the
    cards drawn face up, the pack sizes; no decision's step or unit, no partial answers, no Kings' cards (the
    counts: ``enemy_kings`` is 0, see each side's view), no mines, only this turn's public events.
    ``seat`` is None."""
    views = (state.information_view(0), state.information_view(1))
    units = tuple(sorted((u for s in (0, 1) for u in views[1 - s].units if u.side == s), key=lambda u: u.uid))
    events = tuple(e.text for e in _this_turn(state.events, state.turn) if e.seat is None)
    return replace(views[0], seat=None, step=None, unit=None, partial={}, units=units, kings=(), enemy_kings=0,
                   mines=(), events=events)


__all__ = ["GENERATED", "GROUND_NAMES", "public_map", "spectator_view"]
