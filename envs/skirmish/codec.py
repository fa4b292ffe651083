"""The skirmish's engine-protocol messages: the public map a game starts on, read back into a board, and
a seat's view read back from JSON (RULES.md §9.2: a served agent gets exactly what its seat may know).

Used through the game registry (:mod:`cardwar.games`): ``new_game`` carries :func:`public_setup`, an
engine's agent reads it once (:func:`read_setup`) and each ``move`` request's view (:func:`view_from_message`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar.envs.skirmish.scenario import HEIGHT, WIDTH, Scenario, Victory


def public_setup(view_or_state: Any) -> dict:
    """The public map (ground, edges, objectives, victory terms; never a unit) of the game being played."""
    from cardwar.envs.skirmish.public_map import public_map

    scenario = getattr(view_or_state, "scenario", None)
    if scenario is None:
        raise ValueError("the skirmish view carries no scenario: build the setup from the game's state")
    return public_map(scenario)


def read_setup(setup: Any) -> Scenario:
    """A :class:`Scenario` with the public map of ``setup`` and no figure (what a served agent may know)."""
    if not isinstance(setup, dict) or not isinstance(setup.get("ground"), str):
        raise ValueError("new_game carries no skirmish map (its \"scenario\" needs \"ground\" and \"edges\")")
    ground = setup["ground"]
    if len(ground) != WIDTH * HEIGHT:
        raise ValueError(f"the map's ground has {len(ground)} cells, not {WIDTH * HEIGHT}")
    v = setup.get("victory") or {}
    objectives = {int(o["cell"]): int(o["points"]) for o in setup.get("objectives", [])}
    names = {int(o["cell"]): str(o.get("name") or "") for o in setup.get("objectives", []) if o.get("name")}
    victory = Victory(kind=v.get("kind", "objectives"), objectives=objectives, exit_side=v.get("exit_side"),
                      exit_edge=v.get("exit_edge"), exit_count=int(v.get("exit_count") or 0), target=v.get("target"),
                      vehicle_points=int(v.get("vehicle_points") or 0), objective_names=names)
    teams = {int(side): list(t) for side, t in (setup.get("teams") or {}).items()}
    return Scenario(name=str(setup.get("name", "map")), description=str(setup.get("description", "")),
                    sides=tuple(setup.get("sides", ("side 0", "side 1"))),  # type: ignore[arg-type]
                    rows=tuple(ground[r * WIDTH:(r + 1) * WIDTH] for r in range(HEIGHT)),
                    edges=tuple(sorted((min(a, b), max(a, b), str(k)) for a, b, k in setup.get("edges", []))),
                    figures=(), vehicles=(), victory=victory, turn_limit=int(setup.get("turn_limit", 0)),
                    teams=teams, title=str(setup.get("title", "")), width=int(setup.get("width", WIDTH)),
                    height=int(setup.get("height", HEIGHT)))


class ServedView:
    """A :class:`SkirmishView` read from a message, with the public map it is played on (``scenario``) and
    the rules in force (``rules``); every other attribute is the view's."""

    def __init__(self, view: Any, scenario: Scenario, rules: Any) -> None:
        self.view, self.scenario, self.rules = view, scenario, rules

    def __getattr__(self, name: str) -> Any:
        return getattr(self.view, name)

    def to_dict(self) -> dict:
        return self.view.to_dict()


def view_from_message(d: dict, scenario: Scenario, rules: Any) -> ServedView:
    """The seat's view a ``move`` request carries, on the map :func:`read_setup` read."""
    from cardwar.envs.skirmish.view import SkirmishView

    return ServedView(SkirmishView.from_dict(d), scenario, rules)


def encode_view(view: Any) -> np.ndarray:
    """skirmish-v0's observation of a served view (the same planes the env gives that seat)."""
    from cardwar.envs.skirmish.observation import encode_observation

    return encode_observation(view.view if isinstance(view, ServedView) else view, view.scenario)


def scenario_to_record(state: Any) -> dict:
    """What a record keeps of the map played: its name, which rebuilds it (a shipped scenario by name, a
    generated one by its generator seed and size), and a generated one's ``deal``, which rebuilds its forces.
    Written once the game is over, like every record."""
    sc = state.scenario
    from cardwar.record import json_int

    return {"name": sc.name} if sc.deal is None else {"name": sc.name, "deal": json_int(sc.deal)}  # 63 bits: text


def scenario_from_record(data: dict) -> Scenario:
    """The scenario :func:`scenario_to_record` named (ValueError for one this build cannot rebuild). A
    generated map without a ``deal`` (a record from before the deal) has its forces drawn from its seed."""
    import re

    from cardwar.envs.skirmish.generator import generate
    from cardwar.envs.skirmish.scenario import load_scenario

    name = str(data.get("name", ""))
    generated = re.fullmatch(r"generated_(\w+?)_(\d+)", name)
    if generated:
        from cardwar.record import read_int

        deal = data.get("deal")
        if deal is not None:  # a number, or its decimal string beyond 2**53 - 1 (cardwar.record.json_int)
            deal = read_int(deal)
            if deal is None or deal < 0:
                raise ValueError(f"scenario_data.deal: expected a whole number >= 0, got {data.get('deal')!r}")
        return generate(int(generated.group(2)), size=generated.group(1), deal=deal)
    return load_scenario(name)
