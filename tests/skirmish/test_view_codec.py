"""SkirmishView.to_dict / from_dict (RULES.md §9.2): JSON-safe, and an exact round trip at every step of
random games, for both seats, in both sequences and with the picture-card options."""

from __future__ import annotations

import json

import numpy as np
import pytest

from cardwar.envs.skirmish.state import new_state
from cardwar.envs.skirmish.view import SkirmishView, UnitView, ViewDataError

CASES = [
    ("duel", {}, 1),
    ("panzer_road", {}, 2),
    ("woods_and_craters", {"sequence": "deck", "king_and_country": True, "lady_luck": True,
                           "knave_events": True, "deck_opportunity_fire": True}, 3),
    ("ww2_squads", {"sequence": "deck", "free_move": "team"}, 4),
]


def _check(view: SkirmishView) -> None:
    d = view.to_dict()
    text = json.dumps(d, allow_nan=False)  # JSON-safe: no tuples as keys, no enums, no sets
    back = SkirmishView.from_dict(json.loads(text))
    assert back == view
    # the same Python types field by field (a tuple stays a tuple, a list a list, the step an enum)
    for name, f in SkirmishView.__dataclass_fields__.items():
        if not f.compare:  # the public map and rules travel in new_game, not in each view
            continue
        assert type(getattr(back, name)) is type(getattr(view, name)), name
    for a, b in zip(back.units, view.units):
        assert isinstance(a, UnitView)
        for name in UnitView._fields:
            assert type(getattr(a, name)) is type(getattr(b, name)), name
    assert back.to_dict() == d


@pytest.mark.parametrize("scenario, rules, seed", CASES)
def test_round_trip_every_step(scenario: str, rules: dict, seed: int) -> None:
    s = new_state(scenario, rules, seed=seed)
    rng = np.random.default_rng(seed)
    seen = {"step": set(), "doors": False, "activation": False, "order": False, "partial": False}
    for _ in range(600):
        if s.over:
            break
        for seat in (0, 1):
            v = s.information_view(seat)
            _check(v)
            seen["step"].add(v.step)
            seen["doors"] |= bool(v.open_doors)
            seen["activation"] |= v.activation is not None
            seen["order"] |= any(u.order for u in v.units)
            seen["partial"] |= bool(v.partial)
        s.apply(int(rng.choice(s.legal())))
    for seat in (0, 1):
        _check(s.information_view(seat))
    assert len(seen["step"]) >= 3 and seen["partial"]
    assert seen["order"] or rules.get("sequence") == "deck"  # phases: declared orders are in the view
    assert seen["activation"] == (rules.get("sequence") == "deck")


def test_doors_and_objectives_survive() -> None:
    """Hex-keyed dicts and the open doors' edge pairs keep their int keys and tuple pairs."""
    s = new_state("panzer_road", None, seed=0)
    v = s.information_view(0)
    v = SkirmishView(**{**v.__dict__, "open_doors": frozenset({(198, 222), (3, 4)}),
                        "objectives": {17: 2, 40: 1}, "objective_owner": {17: 1}})
    _check(v)
    back = SkirmishView.from_dict(json.loads(json.dumps(v.to_dict())))
    assert back.open_doors == frozenset({(198, 222), (3, 4)}) and back.objectives == {17: 2, 40: 1}


def test_bad_dict_is_one_clear_error() -> None:
    d = new_state("duel", None, seed=0).information_view(0).to_dict()
    del d["units"]
    with pytest.raises(ViewDataError, match="not a skirmish view"):
        SkirmishView.from_dict(d)
    d = new_state("duel", None, seed=0).information_view(0).to_dict()
    d["units"][0]["colour"] = "red"
    with pytest.raises(ViewDataError, match="colour"):
        SkirmishView.from_dict(d)


# ------------------------------------------------------------------ the public map (public_map.py)
@pytest.mark.parametrize("name", ["duel", "panzer_road", "woods_and_craters", "ww2_squads"])
def test_public_map_is_the_board_and_never_a_unit(name: str) -> None:
    from cardwar.envs.skirmish.board import GROUND_CHARS, Edge
    from cardwar.envs.skirmish.public_map import public_map
    from cardwar.envs.skirmish.scenario import load_scenario

    sc = load_scenario(name)
    d = json.loads(json.dumps(public_map(sc)))
    assert d == public_map(name) == public_map(new_state(name, None, seed=0))
    board = sc.board
    assert d["ground"] == "".join(GROUND_CHARS[g] for g in board.ground)
    # every listed edge is there with its kind; every drawn non-open edge (implied building walls too)
    edges = {(a, b): k for a, b, k in d["edges"]}
    for a, b, kind in sc.edges:
        assert edges[(a, b)] == kind
    for (a, b), kind in edges.items():
        assert board.edge(a, b) == Edge[kind.upper()] != Edge.OPEN
    assert {o["cell"]: o["points"] for o in d["objectives"]} == dict(sc.victory.objectives)
    # nothing about the units: no key for them, no starting hex of any unit named as such
    assert not {"figures", "vehicles", "units", "mines", "deck", "rules", "seed"} & set(d)
    text = json.dumps({k: v for k, v in d.items() if k not in ("description", "victory")})
    for f in sc.figures:
        assert f.name not in text


# ------------------------------------------------------------------ the spectator's view (public_map.py)
@pytest.mark.parametrize("scenario, rules, seed", CASES[1:3])
def test_spectator_view_is_what_each_side_knows_of_the_other(scenario: str, rules: dict, seed: int) -> None:
    """RULES.md §9.2: a spectator sees each side's units as the enemy's view shows them, the public part of
    their orders, the public events; never a decision's step, partial answers, Kings' cards or mines."""
    from cardwar.envs.skirmish.public_map import spectator_view

    s = new_state(scenario, rules, seed=seed)
    rng = np.random.default_rng(seed)
    hidden_somewhere = 0
    for _ in range(400):
        if s.over:
            break
        v = spectator_view(s)
        views = (s.information_view(0), s.information_view(1))
        for u in v.units:  # each unit exactly as the other side's view has it
            assert u == next(x for x in views[1 - u.side].units if x.uid == u.uid)
        for side in (0, 1):  # and every unit the other side knows of is there
            known = {x.uid for x in views[1 - side].units if x.side == side}
            assert known == {u.uid for u in v.units if u.side == side}
        hidden_somewhere += len(v.units) < len(s.units) or any(not u.seen for u in v.units)
        assert v.seat is None and v.step is None and v.unit is None and v.partial == {}
        assert v.kings == () and v.mines == ()
        assert all(e in views[0].events and e in views[1].events for e in v.events)  # read by both sides
        assert (v.turn, v.drawn, v.pack_sizes, v.to_move, v.activation) == \
            (views[0].turn, views[0].drawn, views[0].pack_sizes, views[0].to_move, views[0].activation)
        _check(v)
        s.apply(int(rng.choice(s.legal())))
    assert hidden_somewhere > 0  # these maps have figures out of the other side's sight
