"""Small positions from text, for rule tests and examples.

    sc = scenario_from_text('''
        . . W .
        . H . .
    ''', blue=[("tank", "A1")], red=[("foot", "C2")])
    s = position(sc, order=[0, 1])   # unit 0 (first listed) acts first

Units are numbered blue first, then red, in the order given.
"""

from __future__ import annotations

from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.scenario import Scenario, scenario_from_dict
from cardwar.envs.hexwar.state import HexPhase, HexState


def scenario_from_text(terrain: str, blue: list[tuple[str, str | None]], red: list[tuple[str, str | None]],
                       objectives: list[tuple[str, int, str]] | None = None, turns: int = 5,
                       hidden: set[int] | None = None) -> Scenario:
    """A scenario from a terrain picture and unit lists of (type, hex label or None)."""
    hidden = hidden or set()
    units = {"blue": [], "red": []}
    uid = 0
    for side, lst in (("blue", blue), ("red", red)):
        for utype, where in lst:
            d: dict = {"type": utype}
            if where is not None:
                d["hex"] = where
            if uid in hidden:
                d["hidden"] = True
            units[side].append(d)
            uid += 1
    data = {"turns": turns, "map": "\n".join(r.strip() for r in terrain.strip().splitlines()),
            "objectives": [{"hex": h, "value": v, "holder": who} for h, v, who in (objectives or [])],
            "sides": {s: {"units": u} for s, u in units.items()}}
    return scenario_from_dict(data, name="diagram", source="<diagram>")


def position(scenario: Scenario, order: list[int], config: HexConfig | None = None, seed: int = 0) -> HexState:
    """A state at the start of turn 1 whose activation order is ``order`` (others already acted)."""
    s = HexState.new_game(scenario, config, seed=seed)
    s.order = list(order)
    s.ptr = 0
    s.activated = [u not in order for u in range(len(s.cell))]
    s.phase = HexPhase.ACT
    return s
