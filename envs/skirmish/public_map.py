"""The public map of a skirmish scenario as JSON-safe data (RULES.md §1, §10): what both sides and a
spectator know before the first card, for the server's ``new_game`` and the web page. The board's ground,
every obstacle on a hex edge (building walls implied by §1.3 included, doors as built), the objectives and
the victory terms; never a unit, a starting hex, a mine or a rule option."""

from __future__ import annotations

from typing import Any

from cardwar.envs.skirmish.actions import GRID
from cardwar.envs.skirmish.board import GROUND_CHARS, Edge, Ground
from cardwar.envs.skirmish.scenario import HEIGHT, WIDTH, Scenario, load_scenario
from cardwar.envs.skirmish.text import victory_text

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
    return {
        "name": sc.name, "title": sc.title or sc.name, "description": sc.description,
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


__all__ = ["GROUND_NAMES", "public_map"]
