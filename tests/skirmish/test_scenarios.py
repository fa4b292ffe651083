"""Skirmish scenarios (RULES.md §10): the shipped files load, the WW2 seed's squads are the seed's, and every
mistake in a file is a one-line ScenarioError naming the file and the field."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from cardwar.envs.skirmish.cards import Quality
from cardwar.envs.skirmish.generator import mirror_function
from cardwar.envs.skirmish.scenario import (
    OFF, SKIRMISH_SCENARIO_DIR, WIDTH, Scenario, ScenarioError, label, load_scenario, parse_label, reachable,
    scenario_from_dict, scenario_names,
)
from cardwar.envs.skirmish.weapons import AT_WEAPONS, FIREARMS, SEED_WEAPONS, Armour

SHIPPED = scenario_names()


def test_the_four_scenarios_ship():
    assert {"ww2_squads", "panzer_road", "woods_and_craters", "duel"} <= set(SHIPPED)


def test_scenario_files_are_package_data():
    """The wheel takes configs/scenarios/skirmish/*.yaml (pyproject's package-data), as hexwar's."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    data = tomllib.loads((root / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert "scenarios/skirmish/*.yaml" in data["cardwar.configs"]
    assert SKIRMISH_SCENARIO_DIR == root / "configs" / "scenarios" / "skirmish"


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_scenario_is_valid(name):
    s = load_scenario(name)
    assert s.name == name
    board = s.board  # the board helper builds it from the stored rows and edges
    assert len(board.ground) == len(s.ground) == 384
    # the description states the turn limit and the victory condition
    assert f"Turn limit: {s.turn_limit} turns" in s.description
    assert f"Victory: {s.victory.kind}" in s.description
    on_map = {c for c in range(384) if s.ground[c] != OFF}
    cells = [f.cell for f in s.figures if f.crew_of is None]
    assert len(cells) == len(set(cells)), "one figure a hex"
    assert all(c in on_map for c in cells)
    for v in s.vehicles:
        assert s.ground[v.cell] in ".,ro" and v.cell not in cells
    for f in s.figures:
        assert f.weapon in FIREARMS and all(w in FIREARMS or w in AT_WEAPONS for w in f.other_weapons)
        assert f.team < len(s.teams[f.side])
    # every hex can be reached on foot from every figure's start (no sealed pocket)
    for side in (0, 1):
        start = [f.cell for f in s.figures if f.side == side]
        assert reachable(s.ground, dict(((a, b), k) for a, b, k in s.edges), start) == on_map
    if s.victory.kind == "objectives":
        assert s.victory.objectives and all(c in on_map for c in s.victory.objectives)
    if s.victory.kind == "exit":
        assert s.victory.exit_count <= len(s.side_figures(s.victory.exit_side))
    if s.victory.kind == "destroy":
        assert s.victory.target in {v.name for v in s.vehicles}


def test_ww2_squads_are_the_seeds():
    """ww2-skirmish-card-deck.txt: "an imaginary American infantry force of 8 men, divided into two fire teams"
    and "A similar German force of 7 men", each man with the weapon the seed lists, on its table row."""
    s = load_scenario("ww2_squads")
    assert s.sides == ("American", "German")
    american, german = s.side_figures(0), s.side_figures(1)
    assert len(american) == 8 and len(german) == 7
    assert s.teams[0] == ["Fire team one", "Fire team two"] and s.teams[1] == ["Fire team one", "Fire team two"]
    seed = {  # name: (team, the seed's weapons)
        "Lt. Pitts": (0, ["M1 carbine"]), "Cpl. Whitfield": (0, ["M1 Rifle"]), "Pvt. Diamond": (0, ["M1 Rifle"]),
        "Pvt. Lee": (0, ["Thompson Sub Machine gun"]), "Sgt. Stevens": (1, ["Browning Automatic Rifle"]),
        "Pvt. Estes": (1, ["M1 Rifle"]), "Pvt. Taylor": (1, ["M1 Rifle"]),
        "Pvt. Thibodeaux": (1, [".45 pistol", "Bazooka"]),
        "Sgt. Schnieder": (0, ["machine pistol"]), "Pvt. Altmann": (0, ["Rifle"]), "Pvt. Fritz": (0, ["Rifle"]),
        "Pvt. Wieser": (0, ["Rifle"]), "Sgt. Wherkheiser": (1, ["machine pistol"]),
        "Pvt. Stahl": (1, ["MG42 Machine gun"]), "Pvt. Lindemann": (1, ["Rifle"]),
    }
    assert {f.name for f in s.figures} == set(seed)
    for f in s.figures:
        team, weapons = seed[f.name]
        assert f.team == team, f.name
        assert (f.weapon, *f.other_weapons) == tuple(SEED_WEAPONS[w] for w in weapons), f.name
    assert [sum(f.team == t for f in american) for t in (0, 1)] == [4, 4]
    assert [sum(f.team == t for f in german) for t in (0, 1)] == [4, 3]
    # the table rows RULES.md §10 names
    by_name = {f.name: f for f in s.figures}
    assert by_name["Pvt. Lee"].weapon == "smg1" and by_name["Sgt. Schnieder"].weapon == "smg2"
    assert by_name["Pvt. Stahl"].weapon == "lmg" and by_name["Sgt. Stevens"].weapon == "lmg"
    assert by_name["Pvt. Thibodeaux"].other_weapons == ("at_medium",)
    assert {f.role for f in s.figures if f.name.startswith(("Sgt.", "Lt."))} == {"sergeant", "officer"}
    # the seed's deck: three cards a fire team and two Free Move cards a side
    assert sorted(s.deck) == sorted([("team", side, t) for side in (0, 1) for t in (0, 1) for _ in range(3)]
                                    + [("free", side) for side in (0, 1) for _ in range(2)])
    assert s.rules == {"sequence": "deck"}
    # a village: walls, hedges, a building with doors and windows
    kinds = {k for _, _, k in s.edges}
    assert {"wall_low", "wall_high", "hedge_low", "hedge_high", "door_open", "door_closed", "window"} <= kinds
    assert s.victory.kind == "objectives" and set(s.victory.objectives.values()) == {2}
    assert all(s.ground[c] == "B" for c in s.victory.objectives)


def test_vehicle_scenario():
    s = load_scenario("panzer_road")
    (tank,) = s.vehicles
    assert tank.armour is Armour.L and tank.kind == "tracked" and tank.turret and "at_medium" in tank.weapons
    riders = [f for f in s.figures if f.crew_of == tank.name]
    assert len(riders) == 2 and all(f.cell == tank.cell and f.side == tank.side for f in riders)
    assert any("at_medium" in f.other_weapons for f in s.side_figures(1 - tank.side))
    assert s.victory.kind == "exit" and s.victory.exit_side == tank.side and s.victory.exit_edge == "west"


def test_duel_is_mirror_fair():
    s = load_scenario("duel")
    m = mirror_function(s)
    on_map = [c for c in range(384) if s.ground[c] != OFF]
    assert sorted(map(m, on_map)) == on_map
    for c in on_map:
        assert s.ground[m(c)] == s.ground[c]
        for n in s.board.neighbours(c):
            assert s.edge_kind(m(c), m(n)) == s.edge_kind(c, n)
    assert {m(c): p for c, p in s.victory.objectives.items()} == s.victory.objectives
    for f in s.side_figures(0):
        (g,) = [g for g in s.side_figures(1) if g.cell == m(f.cell)]
        assert (g.quality, g.weapon, g.grenades, g.stance) == (f.quality, f.weapon, f.grenades, f.stance)


def test_labels():
    assert label(0) == "A1" and label(WIDTH + 2) == "C2" and label(383) == "X16"
    assert all(parse_label(label(c)) == c for c in range(384))
    with pytest.raises(ValueError):
        parse_label("Y1")


# ------------------------------------------------------------------ broken files
def _base() -> dict:
    return yaml.safe_load((SKIRMISH_SCENARIO_DIR / "duel.yaml").read_text())


def _fig(d, side="American", i=0):
    return d["sides"][side]["figures"][i]


def _set(path, value):
    def mutate(d):
        *head, last = path
        for k in head:
            d = d[k]
        d[last] = value
    return mutate


def _tank(d):
    d["sides"]["German"]["vehicles"] = [{"name": "Puma", "kind": "wheeled", "armour": "L", "hex": "J1",
                                         "facing": "W", "weapons": ["at_light"]}]


BROKEN = {
    "unknown weapon": (lambda d: _fig(d).update(weapon="phaser"), "sides.American.figures[0].weapon",
                       "unknown weapon"),
    "hex off the grid": (lambda d: _fig(d).update(hex="Z9"), "sides.American.figures[0].hex", "not a hex label"),
    "hex off the map": (lambda d: _fig(d).update(hex="L3"), "sides.American.figures[0].hex", "off the map"),
    "two figures on one hex": (lambda d: _fig(d, i=1).update(hex=_fig(d)["hex"]), "sides.American.figures[1].hex",
                               "already holds Cpl. Grant"),
    "unknown quality": (lambda d: _fig(d).update(quality="heroic"), "sides.American.figures[0].quality",
                        "unknown quality"),
    "unknown stance": (lambda d: _fig(d).update(stance="sitting"), "stance", "unknown stance"),
    "unknown victory kind": (_set(["victory", "kind"], "glory"), "victory.kind", "unknown victory kind"),
    "victory without objectives": (_set(["victory", "objectives"], []), "victory.objectives", "not empty"),
    "objective off the map": (lambda d: d["victory"]["objectives"][0].update(hex="X16"), "victory.objectives[0].hex",
                              "off the map"),
    "exit with too many": (_set(["victory"], {"kind": "exit", "side": "German", "edge": "west", "count": 9}),
                           "victory.count", "1..3"),
    "exit by no edge": (_set(["victory"], {"kind": "exit", "side": "German", "edge": "up", "count": 1}),
                        "victory.edge", "unknown map edge"),
    "destroy nothing": (_set(["victory"], {"kind": "destroy", "target": "Tiger"}), "victory.target",
                        "no vehicle named"),
    "missing turn limit": (lambda d: d.pop("turns"), "(top level)", "missing field(s) turns"),
    "zero turns": (_set(["turns"], 0), "turns", "expected an integer 1..60"),
    "unknown field": (_set(["weather"], "rain"), "(top level)", "unknown field(s) weather"),
    "row too short": (lambda d: d.update(map=d["map"].replace(". o . .", ". o .", 1)), "map row 2", "has 9 hexes"),
    "unknown ground": (lambda d: d.update(map=d["map"].replace("o", "~", 1)), "map row 2", "unknown ground '~'"),
    "unknown edge kind": (lambda d: d["edges"].append("fence C5-C6"), "edges[5]", "unknown edge kind"),
    "edge between far hexes": (lambda d: d["edges"].append("wall_low A1-C1"), "edges[5]", "are not neighbours"),
    "door in the open": (lambda d: d["edges"].append("door_open A1-B1"), "edges[5]", "needs a building"),
    "wall on a building": (lambda d: d["edges"].append("wall_low E4-E5"), "edges[5]", "outer wall of a building"),
    "edge listed twice": (lambda d: d["edges"].append("window E4-D4"), "edges[5]", "listed twice"),
    "sealed building": (lambda d: d.update(edges=["hedge_low C3-C4"]), "edges", "building at E4, F5 has no door"),
    "sealed room": (lambda d: d.update(edges=["door_open E4-D4", "building_wall E4-F5"]), "edges",
                    "building at F5 has no door"),
    "unknown rule": (_set(["rules"], {"gravity": "low"}), "rules.gravity", "unknown rule option"),
    "bad rule value": (_set(["rules"], {"sequence": "random"}), "rules.sequence", "expected one of phases, deck"),
    "deck names no team": (_set(["deck"], [{"card": "team", "side": "American", "team": "Alpha"}]), "deck[0].team",
                           "unknown team"),
    "deck for one side": (_set(["deck"], [{"card": "free", "side": "American", "count": 2}]), "deck",
                          "no card activates German"),
    "three sides": (lambda d: d["sides"].update(Italian=d["sides"]["German"]), "sides", "exactly two sides"),
    "unknown team": (lambda d: _fig(d).update(team="Bravo"), "sides.American.figures[0].team", "unknown team"),
    "same name twice": (lambda d: _fig(d, i=1).update(name="Cpl. Grant"), "sides.American.figures[1].name",
                        "used twice"),
    "too much ammunition": (lambda d: _fig(d, i=1).update(ammo=99), "sides.American.figures[1].ammo", "0..10"),
    "skill not a number": (lambda d: _fig(d).update(skills={"shoot": "good"}), "figures[0].skills.shoot", "1..10"),
    "vehicle in woods": (lambda d: (_tank(d), d["sides"]["German"]["vehicles"][0].update(hex="H1")),
                         "sides.German.vehicles[0].hex", "a vehicle cannot stand there"),
    "vehicle unknown armour": (lambda d: (_tank(d), d["sides"]["German"]["vehicles"][0].update(armour="Z")),
                               "vehicles[0].armour", "unknown armour"),
    "crew of no vehicle": (lambda d: _fig(d).update(crew_of="Jeep"), "figures[0].crew_of", "no vehicle 'Jeep'"),
    "anti-tank rounds without one": (lambda d: _fig(d).update(at_ammo=3), "figures[0].at_ammo",
                                     "no anti-tank weapon"),
    "mine under a figure": (_set(["mines"], [{"hex": "A3", "side": "German"}]), "mines[0].hex", "holds Cpl. Grant"),
    "mine of no side": (_set(["mines"], [{"hex": "C3", "side": "Italian"}]), "mines[0].side", "unknown side"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_file_gives_one_line_error(case, tmp_path):
    mutate, field, words = BROKEN[case]
    data = copy.deepcopy(_base())
    mutate(data)
    path = tmp_path / "broken.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    with pytest.raises(ScenarioError) as err:
        load_scenario(path)
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{path}: ") and field in msg and words in msg, msg


def test_the_base_of_the_broken_cases_loads(tmp_path):
    path = tmp_path / "fine.yaml"
    path.write_text(yaml.safe_dump(_base(), sort_keys=False))
    assert isinstance(load_scenario(path), Scenario)


@pytest.mark.parametrize("text, words", [
    ("turns: [1\n", "not valid YAML"),
    ("\x00\x01", "not a text file"),
])
def test_unreadable_files(tmp_path, text, words):
    path = tmp_path / "bad.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=re.escape(words)) as err:
        load_scenario(path)
    assert "\n" not in str(err.value)


def test_missing_file_folder_and_name(tmp_path):
    with pytest.raises(ScenarioError, match="no such scenario file"):
        load_scenario(tmp_path / "nothing.yaml")
    with pytest.raises(ScenarioError, match="is a folder"):
        load_scenario(tmp_path)
    with pytest.raises(ScenarioError, match="unknown skirmish scenario 'nowhere'; scenarios: duel"):
        load_scenario("nowhere")


def test_not_a_mapping():
    with pytest.raises(ScenarioError, match=r"<x>: \(top level\): expected a mapping"):
        scenario_from_dict([1, 2], source="<x>")


def test_fixed_skills_and_defaults():
    d = _base()
    _fig(d).update(skills={"shoot": 8, "demolitions": 5})
    s = scenario_from_dict(d, source="<t>")
    f = s.figures[0]
    assert f.skills == {"shoot": 8, "demolitions": 5} and f.quality is Quality.REGULAR
    assert f.ammo is None and f.reserve is None and f.role == "" and f.crew_of is None
    assert s.figures[3].cell == parse_label("J6") and s.deck is None and s.mines == () and s.rules == {}


def test_destroy_victory_vehicle_deck_and_mines():
    d = _base()
    _tank(d)
    d["victory"] = {"kind": "destroy", "target": "Puma"}
    d["deck"] = [{"card": "figure", "figure": "Cpl. Grant", "count": 3}, {"card": "vehicle", "vehicle": "Puma",
                                                                         "count": 3}]
    d["mines"] = [{"hex": "C3", "side": "German"}]
    s = scenario_from_dict(d, source="<t>")
    (v,) = s.vehicles
    assert (v.side, v.kind, v.armour, v.facing, v.cell, v.weapons, v.turret) == \
        (1, "wheeled", Armour.L, 3, parse_label("J1"), ("at_light",), True)
    assert s.victory.kind == "destroy" and s.victory.target == "Puma"
    assert s.deck == (("figure", "Cpl. Grant"),) * 3 + (("vehicle", "Puma"),) * 3
    assert s.mines == ((parse_label("C3"), 1),)


def test_casualties_and_unarmoured_vehicles():
    d = _base()
    d["victory"] = {"kind": "casualties", "vehicle_points": 3}
    d["sides"]["German"]["vehicles"] = [{"name": "Jeep", "kind": "wheeled", "armour": "U", "hex": "J1",
                                         "facing": 2, "weapons": ["lmg"], "damage_points": 2}]
    s = scenario_from_dict(d, source="<t>")
    assert s.victory.vehicle_points == 3 and s.vehicles[0].damage_points == 2 and s.vehicles[0].facing == 2
    del d["sides"]["German"]["vehicles"][0]["damage_points"]
    assert scenario_from_dict(d, source="<t>").vehicles[0].damage_points == 3  # HtD's truck
