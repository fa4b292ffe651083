"""Shipped scenarios, scenario-file error messages and the procedural generator."""

from __future__ import annotations

import itertools
import re
from collections import deque

import pytest
import yaml

from cardwar.envs.hexwar.generator import ATTACKER_RATIO, generate_scenario
from cardwar.envs.hexwar.hexgrid import Hex, distance, from_offset, neighbours, to_offset
from cardwar.envs.hexwar.scenario import (
    MAX_HEIGHT, MAX_WIDTH, Objective, Scenario, ScenarioError, available_scenarios, cell_of, load_scenario,
    scenario_from_dict, victory_sentence,
)
from cardwar.envs.hexwar.terrain import IMPASSABLE, Terrain, stack_limit
from cardwar.envs.hexwar.units import STATS, UnitType

SHIPPED = ("meeting_engagement", "river_crossing", "artillery_barrage", "hill_and_hedgerows")
SEEDS = range(50)


# ------------------------------------------------------------------ helpers
def terrain_counts(sc: Scenario) -> dict[Terrain, int]:
    out: dict[Terrain, int] = {}
    for c, t in enumerate(sc.terrain):
        if sc.on_map[c]:
            out[t] = out.get(t, 0) + 1
    return out


def reachable(sc: Scenario, starts: list[Hex], blocked: frozenset[Terrain] = frozenset()) -> set[Hex]:
    """Passable on-map hexes reachable by land from ``starts`` (independent of the generator's own BFS)."""
    def ok(h: Hex) -> bool:
        col, row = to_offset(h)
        return (0 <= col < sc.width and 0 <= row < sc.height
                and sc.terrain[cell_of(h)] not in IMPASSABLE | blocked)

    seen = {h for h in starts if ok(h)}
    queue = deque(seen)
    while queue:
        for n in neighbours(queue.popleft()):
            if n not in seen and ok(n):
                seen.add(n)
                queue.append(n)
    return seen


def rows(sc: Scenario, *rr: int) -> list[Hex]:
    return [from_offset(c, r) for r in rr for c in range(sc.width)]


def points(sc: Scenario, side: int) -> int:
    return sum(STATS[u.type].points for u in sc.units if u.side == side)


def check_stacking(sc: Scenario) -> None:
    here: dict[Hex, list[int]] = {}
    for u in sc.units:
        if u.hex is not None:
            here.setdefault(u.hex, []).append(u.side)
    for h, sides in here.items():
        assert len(set(sides)) == 1 and len(sides) <= stack_limit(sc.terrain[cell_of(h)]), h


# ------------------------------------------------------------------ shipped scenarios
def test_the_four_scenarios_ship():
    assert set(SHIPPED) <= set(available_scenarios())


@pytest.mark.parametrize("name", available_scenarios())
def test_shipped_scenario_loads_and_round_trips(name):
    sc = load_scenario(name)
    assert sc.name == name and sc.title and sc.description
    assert 10 <= sc.turns <= 15
    assert sc.width <= MAX_WIDTH and sc.height <= MAX_HEIGHT
    assert scenario_from_dict(sc.to_dict()) == sc
    assert sc.objectives
    for side in (0, 1):
        n = sum(u.side == side for u in sc.units)
        assert 4 <= n <= 8
        assert len({u.type for u in sc.units if u.side == side}) >= 3  # mixed forces
    check_stacking(sc)
    # Blue starts in the top half, red in the bottom half; everything reachable from both edges.
    for u in sc.units:
        if u.hex is not None:
            assert (u.hex.r < sc.height / 2) == (u.side == 0), u
    top, bottom = reachable(sc, rows(sc, 0)), reachable(sc, rows(sc, sc.height - 1))
    for h in [u.hex for u in sc.units if u.hex is not None] + [o.hex for o in sc.objectives]:
        assert h in top and h in bottom, h


def test_meeting_engagement_is_the_mid_sized_default():
    sc = load_scenario("meeting_engagement")
    assert (sc.width, sc.height) == (12, 10)
    assert all(u.hex is not None for u in sc.units)
    assert all(o.holder == -1 for o in sc.objectives)
    assert all(5 <= sum(u.side == s for u in sc.units) <= 6 for s in (0, 1))


def test_river_crossing_has_one_bridge_one_ford_and_a_river():
    sc = load_scenario("river_crossing")
    counts = terrain_counts(sc)
    assert counts.get(Terrain.BRIDGE) == 1 and counts.get(Terrain.FORD) == 1
    assert counts.get(Terrain.RIVER, 0) >= 8
    assert counts.get(Terrain.MARSH, 0) + counts.get(Terrain.LAKE, 0) > 0
    # Without the bridge and the ford, the far bank cannot be reached from blue's edge.
    dry = reachable(sc, rows(sc, 0), frozenset({Terrain.BRIDGE, Terrain.FORD}))
    assert not dry & set(rows(sc, sc.height - 1))
    assert all(o.holder == 1 for o in sc.objectives)
    assert all(o.hex not in dry for o in sc.objectives)


def test_artillery_barrage_has_off_table_artillery_mortars_and_a_village():
    sc = load_scenario("artillery_barrage")
    assert any(u.hex is None and u.type == UnitType.ARTILLERY for u in sc.units)
    assert any(u.type == UnitType.MORTAR and u.hex is not None for u in sc.units)
    assert terrain_counts(sc).get(Terrain.BUILDINGS, 0) >= 3
    assert any(sc.terrain[cell_of(o.hex)] == Terrain.BUILDINGS for o in sc.objectives)


def test_hill_and_hedgerows_has_bocage_hills_tanks_at_guns_and_hidden_defenders():
    sc = load_scenario("hill_and_hedgerows")
    counts = terrain_counts(sc)
    assert counts.get(Terrain.BROKEN, 0) >= 15 and counts.get(Terrain.HILL, 0) >= 3
    types = {u.type for u in sc.units}
    assert UnitType.TANK in types and UnitType.AT_GUN in types
    assert any(u.hidden and u.side == 1 for u in sc.units)
    assert any(u.type == UnitType.TANK and sc.terrain[cell_of(u.hex)] == Terrain.HILL for u in sc.units)


# ------------------------------------------------------------------ victory in the descriptions (RULES 9)
def winner_by_points(objectives, holders) -> int | None:
    """RULES.md 9, "Turn limit": the side with more objective points wins; equal points are a draw."""
    pts = [sum(o.value for o, h in zip(objectives, holders) if h == side) for side in (0, 1)]
    return None if pts[0] == pts[1] else (0 if pts[0] > pts[1] else 1)


def end_holders(objectives):
    """Every way the objectives can be held at the end: a held objective stays held by someone."""
    return itertools.product(*[(0, 1) if o.holder >= 0 else (-1, 0, 1) for o in objectives])


def deciding_by_brute_force(objectives) -> set[str]:
    """Objectives whose holder at the end wins, whatever happens to the others."""
    return {o.title for i, o in enumerate(objectives)
            if all(winner_by_points(objectives, hs) == hs[i] for hs in end_holders(objectives) if hs[i] >= 0)}


def claimed_deciding(description: str) -> set[str]:
    return set(re.findall(r"whoever holds (.+?) at the end wins", description))


@pytest.mark.parametrize("name", available_scenarios())
def test_description_states_the_real_victory_condition(name):
    """The description says what really wins (RULES 9), not that both objectives are needed."""
    sc = load_scenario(name)
    assert victory_sentence(sc.objectives, sc.turns) in sc.description
    assert claimed_deciding(sc.description) == deciding_by_brute_force(sc.objectives)
    for o in sc.objectives:
        assert o.name and o.title in sc.description and f"{o.title}, {o.value} point" in sc.description
    needs_all = [all(winner_by_points(sc.objectives, hs) != side for hs in end_holders(sc.objectives)
                     if any(h != side for h in hs)) for side in (0, 1)]
    if not any(needs_all):
        assert not re.search(r"\bhold(s|ing)? (both|all|every)\b", sc.description, re.I), sc.description


@pytest.mark.parametrize("values, holders", [
    ((1, 1), (-1, -1)), ((2, 1), (1, 1)), ((2, 1), (-1, -1)), ((3, 1, 1), (1, -1, 0)), ((2, 1, 1), (-1, 1, 1)),
    ((1,), (-1,)), ((1,), (0,)), ((2, 2, 1), (-1, -1, -1)),
])
def test_victory_sentence_names_exactly_the_objectives_that_decide(values, holders):
    objectives = [Objective(from_offset(i * 2, 3), v, h, f"objective {i + 1}")
                  for i, (v, h) in enumerate(zip(values, holders))]
    text = victory_sentence(objectives, 9)
    assert claimed_deciding(text) == deciding_by_brute_force(objectives)
    assert "end of turn 9" in text and all(o.title in text for o in objectives)
    unheld_decider = [o for o in objectives if o.title in claimed_deciding(text) and o.holder < 0]
    assert ("while nobody holds it" in text) == bool(unheld_decider)


# ------------------------------------------------------------------ error messages
GOOD = """\
title: Test
turns: 10
map: |
  . . W .
  . . . .
  ~ = ~ ~
  . . . .
objectives:
  - {hex: B4, value: 1, holder: red}
sides:
  blue:
    units:
      - {type: foot, hex: A1}
      - {type: tank, hex: B1}
  red:
    units:
      - {type: foot, hex: A4}
"""


def load_text(tmp_path, text: str, name: str = "broken.yaml") -> Scenario:
    path = tmp_path / name
    path.write_text(text)
    return load_scenario(str(path))


def test_good_test_file_loads(tmp_path):
    sc = load_text(tmp_path, GOOD, "good.yaml")
    assert (sc.width, sc.height, sc.turns) == (4, 4, 10)


@pytest.mark.parametrize("old, new, field, words", [
    ("{type: tank, hex: B1}", "{type: panzer, hex: B1}", "sides.blue.units[1].type", "panzer"),
    ("{type: tank, hex: B1}", "{type: tank, hex: E1}", "sides.blue.units[1].hex", "off the"),
    ("{type: foot, hex: A4}", "{type: foot, hex: A3}", "sides.red.units[0].hex", "impassable"),
    ("title: Test", "title: Test\nweather: rain", "(top level)", "weather"),
    ("turns: 10\n", "", "(top level)", "turns"),
    ("  . . . .\n  ~ = ~ ~", "  . . .\n  ~ = ~ ~", "map row 2", "3 hexes"),
    ("value: 1, holder: red", "value: 1, holder: green", "objectives[0].holder", "green"),
])
def test_mistake_names_file_and_field(tmp_path, old, new, field, words):
    assert old in GOOD
    with pytest.raises(ScenarioError) as err:
        load_text(tmp_path, GOOD.replace(old, new, 1))
    msg = str(err.value)
    assert str(tmp_path / "broken.yaml") in msg
    assert field in msg
    assert words in msg


def test_bad_yaml_syntax_names_file(tmp_path):
    with pytest.raises(ScenarioError) as err:
        load_text(tmp_path, GOOD.replace("{type: foot, hex: A1}", "{type: foot, hex: A1"))
    msg = str(err.value)
    assert str(tmp_path / "broken.yaml") in msg and "YAML" in msg


def one_line_error_naming(path, call) -> str:
    """The ScenarioError message of ``call()``: one line that names ``path``."""
    with pytest.raises(ScenarioError) as err:
        call()
    msg = str(err.value)
    assert "\n" not in msg, msg
    assert str(path) in msg, msg
    return msg


def test_a_folder_given_as_a_scenario_is_one_line_naming_it(tmp_path):
    folder = tmp_path / "battle.yaml"
    folder.mkdir()
    assert "folder" in one_line_error_naming(folder, lambda: load_scenario(str(folder)))
    assert "folder" in one_line_error_naming(tmp_path, lambda: load_scenario(str(tmp_path)))


def test_a_binary_file_given_as_a_scenario_is_one_line_naming_it(tmp_path):
    path = tmp_path / "picture.yaml"
    path.write_bytes(bytes(range(256)))  # not UTF-8 text
    assert "not a text file" in one_line_error_naming(path, lambda: load_scenario(str(path)))
    nul = tmp_path / "nul.yaml"
    nul.write_bytes(b"title: x\x00\x00\n")  # valid UTF-8, but NUL bytes: still binary
    assert "not a text file" in one_line_error_naming(nul, lambda: load_scenario(str(nul)))


@pytest.mark.parametrize("text, where", [
    (GOOD.replace("{type: foot, hex: A1}", "{type: foot, hex: A1"), "line"),  # unclosed flow mapping
    ("title: x\n\tturns: 3\n", "line 2"),  # a tab cannot start a token
    ("title: [1, 2\nturns: 3\n", "line"),
    ("title: x\x07\n", "position"),  # a control character
])
def test_malformed_yaml_is_one_line_naming_the_file_and_the_place(tmp_path, text, where):
    path = tmp_path / "broken.yaml"
    path.write_text(text)
    msg = one_line_error_naming(path, lambda: load_scenario(str(path)))
    assert "not valid YAML" in msg and where in msg, msg


def test_a_missing_file_is_one_line_naming_it(tmp_path):
    path = tmp_path / "nowhere.yaml"
    assert "no such" in one_line_error_naming(path, lambda: load_scenario(str(path)))


def test_unknown_scenario_name_lists_the_available_ones():
    with pytest.raises(ScenarioError) as err:
        load_scenario("no_such_battle")
    msg = str(err.value)
    assert "no_such_battle" in msg
    for name in SHIPPED:
        assert name in msg


# ------------------------------------------------------------------ generator
@pytest.fixture(scope="module")
def generated() -> dict[int, Scenario]:
    return {seed: generate_scenario(seed) for seed in SEEDS}


def test_same_seed_same_scenario(generated):
    for seed in (0, 7, 31):
        assert generate_scenario(seed) == generated[seed]
        assert generate_scenario(seed).to_dict() == generated[seed].to_dict()


def test_different_seeds_different_maps(generated):
    maps = {sc.terrain for sc in generated.values()}
    assert len(maps) >= 45


def test_generated_scenarios_validate(generated):
    for seed, sc in generated.items():
        assert sc.name == f"random-{seed}"
        assert (sc.width, sc.height, sc.turns) == (12, 10, 12)
        assert scenario_from_dict(sc.to_dict()) == sc
        assert 1 <= len(sc.objectives) <= 3
        for o in sc.objectives:
            assert 1 <= o.value <= 2 and o.name
            assert 2 <= to_offset(o.hex)[1] <= sc.height - 3  # in the middle rows
        assert len({o.holder for o in sc.objectives}) == 1  # all nobody's, or all the one defender's
        check_stacking(sc)


# Movement distance, computed here from the rules text (RULES 4) rather than with the generator's own
# helpers: one activation moves up to the allowance; into, through or out of woods, buildings or broken
# ground only one hex; rivers, marsh and lakes never. Other units are left out (an empty map).
SLOW = {Terrain.WOODS, Terrain.BUILDINGS, Terrain.BROKEN}


def one_activation(sc: Scenario, start: Hex, allowance: int) -> set[Hex]:
    def ok(h: Hex) -> bool:
        col, row = to_offset(h)
        return 0 <= col < sc.width and 0 <= row < sc.height and sc.terrain[cell_of(h)] not in IMPASSABLE

    def slow(h: Hex) -> bool:
        return sc.terrain[cell_of(h)] in SLOW

    out, frontier = set(), {start}
    for step in range(1 if slow(start) else allowance):
        nxt = set()
        for h in frontier:
            for n in neighbours(h):
                if ok(n) and n != start and n not in out and not (slow(n) and step > 0):
                    out.add(n)
                    if not slow(n):
                        nxt.add(n)
        frontier = nxt
    return out


def activations_to(sc: Scenario, side: int, target: Hex) -> int:
    """Fewest activations any unit of ``side`` on the table needs to stand on ``target``."""
    best = 10**6
    for u in sc.units:
        if u.side != side or u.hex is None:
            continue
        seen, frontier, k = {u.hex}, {u.hex}, 0
        while frontier and target not in seen and k < best:
            frontier = {n for h in frontier for n in one_activation(sc, h, STATS[u.type].move)} - seen
            seen |= frontier
            k += 1
        if target in seen:
            best = min(best, k)
    return best


def first_there(sc: Scenario) -> list[int]:
    """Per objective: the side that arrives in strictly fewer activations, or -1."""
    out = []
    for o in sc.objectives:
        b, r = activations_to(sc, 0, o.hex), activations_to(sc, 1, o.hex)
        out.append(-1 if b == r else (0 if b < r else 1))
    return out


def defender(sc: Scenario) -> int:
    return sc.objectives[0].holder


def test_generator_draws_meeting_engagements_and_defended_positions(generated):
    kinds = [defender(sc) for sc in generated.values()]
    assert all(kinds.count(k) >= 8 for k in (-1, 0, 1)), kinds


def test_in_a_meeting_engagement_neither_side_reaches_every_objective_first(generated):
    """Objectives lie where both sides' fastest units arrive in as many activations (or, where no hex
    ties, one each side reaches first): no side gets to all of them first."""
    meetings = [sc for sc in generated.values() if defender(sc) < 0]
    ties = 0
    for sc in meetings:
        firsts = first_there(sc)
        assert not all(f == 0 for f in firsts) and not all(f == 1 for f in firsts), (sc.name, firsts)
        ties += firsts.count(-1)
    assert ties >= 0.9 * sum(len(sc.objectives) for sc in meetings)


def test_a_defender_deploys_around_what_it_defends(generated):
    """The defender holds every objective, has a unit on or next to each, deploys within 3 hexes of
    one (not at its edge, not in contact with the attacker), and reaches each objective before the
    attacker; the attacker deploys at its edge, and the description says who attacks."""
    defended = [sc for sc in generated.values() if defender(sc) >= 0]
    for sc in defended:
        d = defender(sc)
        attacker_rows = (0, 1) if d == 1 else (sc.height - 2, sc.height - 1)
        assert all(o.holder == d for o in sc.objectives)
        for u in sc.units:
            if u.hex is None:
                continue
            if u.side == d:
                assert min(distance(u.hex, o.hex) for o in sc.objectives) <= 3, (sc.name, u)
                assert min(distance(u.hex, h) for h in rows(sc, *attacker_rows)) >= 3, (sc.name, u)
            else:
                assert to_offset(u.hex)[1] in attacker_rows, (sc.name, u)
        for o in sc.objectives:
            assert any(u.side == d and u.hex is not None and distance(u.hex, o.hex) <= 1 for u in sc.units)
            assert activations_to(sc, d, o.hex) < activations_to(sc, 1 - d, o.hex), (sc.name, o)
        assert f"{('Blue', 'Red')[1 - d]} attacks" in sc.description


def test_generated_forces_are_balanced_and_an_attacker_outnumbers_the_defender(generated):
    """Meeting engagements: points within one. Attack and defence: the attacker has ATTACKER_RATIO
    times the defender's points (the defender holds, hides and digs in)."""
    for sc in generated.values():
        p = points(sc, 0), points(sc, 1)
        d = defender(sc)
        if d < 0:
            assert abs(p[0] - p[1]) <= 1 and 18 <= min(p) and max(p) <= 26, (sc.name, p)
        else:
            assert 18 <= p[d] <= 26 and p[1 - d] == round(p[d] * ATTACKER_RATIO), (sc.name, p)
        assert f"Blue fields {p[0]} points of troops and Red {p[1]}" in sc.description
        for side in (0, 1):
            mine = [u for u in sc.units if u.side == side]
            assert len({u.type for u in mine}) >= 2, sc.name
            assert all(u.hex is not None or u.type == UnitType.ARTILLERY for u in mine)


def test_generated_description_states_the_victory_rule(generated):
    for sc in generated.values():
        assert victory_sentence(sc.objectives, sc.turns) in sc.description
        assert claimed_deciding(sc.description) == deciding_by_brute_force(sc.objectives)


def test_hidden_units_appear_in_most_generated_battles(generated):
    """Defenders hide their infantry and anti-tank guns (a defender always has some); in a meeting
    engagement both sides do, in their own edge rows. Only 3-point types hide, so the points in the
    description say no more than the number of hidden units (public: RULES 8.1). Exactly where they
    may stand: tests/hexwar/test_generator_hidden.py."""
    with_hidden = [sc for sc in generated.values() if any(u.hidden for u in sc.units)]
    assert len(with_hidden) >= 0.6 * len(generated)
    for sc in generated.values():
        d = defender(sc)
        for u in sc.units:
            if u.hidden:
                assert u.type in (UnitType.FOOT, UnitType.AT_GUN) and STATS[u.type].points == 3
                own_rows = (0, 1) if u.side == 0 else (sc.height - 2, sc.height - 1)
                assert u.side == d or (d < 0 and to_offset(u.hex)[1] in own_rows), (sc.name, u)
        if d >= 0:
            assert any(u.hidden for u in sc.units if u.side == d), sc.name


def test_generated_objectives_and_units_reachable_from_both_zones(generated):
    for sc in generated.values():
        blue = reachable(sc, rows(sc, 0, 1))
        red = reachable(sc, rows(sc, sc.height - 2, sc.height - 1))
        for h in [u.hex for u in sc.units if u.hex is not None] + [o.hex for o in sc.objectives]:
            assert h in blue and h in red, (sc.name, h)


def test_some_seeds_give_rivers_with_crossings_and_some_off_table_artillery(generated):
    rivers = [sc for sc in generated.values() if terrain_counts(sc).get(Terrain.RIVER)]
    assert len(rivers) >= 5
    for sc in rivers:
        counts = terrain_counts(sc)
        assert counts.get(Terrain.BRIDGE, 0) + counts.get(Terrain.FORD, 0) >= 1
        # The river really cuts the map: without its crossings the two zones are apart.
        dry = reachable(sc, rows(sc, 0, 1), frozenset({Terrain.BRIDGE, Terrain.FORD}))
        assert not dry & set(rows(sc, sc.height - 2, sc.height - 1)), sc.name
    assert sum(any(u.hex is None for u in sc.units) for sc in generated.values()) >= 5
    assert any(terrain_counts(sc).get(t) for sc in generated.values() for t in (Terrain.MARSH, Terrain.LAKE))
    assert all(terrain_counts(sc).get(Terrain.WOODS) for sc in generated.values())


@pytest.mark.parametrize("width, height", [(6, 6), (8, 7), (12, 10)])
def test_generator_respects_map_size(width, height):
    for seed in range(10):
        sc = generate_scenario(seed, width=width, height=height, turns=10)
        assert (sc.width, sc.height, sc.turns) == (width, height, 10)
        assert scenario_from_dict(sc.to_dict()) == sc


def test_generator_rejects_oversized_maps():
    with pytest.raises(ValueError):
        generate_scenario(0, width=13)
    with pytest.raises(ValueError):
        generate_scenario(0, height=11)


def test_generated_scenario_survives_a_yaml_file(tmp_path):
    sc = generate_scenario(3)
    path = tmp_path / "random.yaml"
    path.write_text(yaml.safe_dump(sc.to_dict(), sort_keys=False))
    assert load_scenario(str(path)) == sc


def test_reach_analysis_agrees_with_the_movement_rules(generated):
    """``reach.first_to_objectives`` (used by the generator and the balance figures) gives, on every
    generated map, what the independent count of activations above gives."""
    from cardwar.envs.hexwar.reach import first_to_objectives

    for sc in list(generated.values())[:25]:
        assert first_to_objectives(sc, "moves") == first_there(sc), sc.name


def test_balance_command_prints_its_table(capsys):
    """``python -m cardwar.cli.hexwar_balance --maps N --seed S`` prints one row per kind of map and one
    for all; its reach-first counts are those of the maps."""
    from cardwar.cli import hexwar_balance
    from cardwar.envs.hexwar.reach import first_everywhere

    assert hexwar_balance.main(["--maps", "4", "--seed", "10", "--games", "1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("| all maps |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    maps = [generate_scenario(s) for s in range(10, 14)]
    assert cells[1] == "4" and cells[2] == str(sum(any(u.hidden for u in sc.units) for sc in maps))
    firsts = [first_everywhere(sc, "moves") for sc in maps]
    assert cells[3].split(" / ")[0] == str(firsts.count(0)) and cells[4].split(" / ")[0] == str(firsts.count(1))
    assert "4 maps, 1 heuristic-vs-heuristic game(s) each" in out
