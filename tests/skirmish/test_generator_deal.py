"""A generated skirmish map says nothing of its forces (issue 27): the generator seed makes the map, the deal
the forces.

The public map (ground, edges, objectives) identifies its generator seed, so the seed decides only the map; each
figure's starting hex, quality, skills, grenades and stance come from the deal, a separate draw from the game's
deal seed (``envs/turn_based_env.py``, RULES.md §10.1). The forces stay mirror images of each other (the
generator's fairness), so a seat still knows the enemy's start from its own; what the deal hides is the forces
from anyone who has only the map. Here: the same map dealt twice deploys other forces; the envs' maps rebuild
from their names but their seeds do not find the figures; the scenario's deal never reaches a seat; and a record
keeps the deal, so `cardwar replay` plays the game again (and an old record without one still rebuilds).
"""

from __future__ import annotations

import math

import pytest

from cardwar.cli import main
from cardwar.envs import make_raw_env, skirmish_v0
from cardwar.envs.skirmish.codec import scenario_from_record, scenario_to_record
from cardwar.envs.skirmish.generator import ZONE_COLS, generate
from cardwar.envs.skirmish.public_map import public_map
from cardwar.envs.skirmish.scenario import WIDTH, Scenario
from cardwar.envs.skirmish.state import new_state
from cardwar.envs.skirmish.view import public_scenario
from cardwar.record import GameRecord, final_state
from tests.skirmish.test_generator import _check_fair


def the_map(sc: Scenario) -> tuple:
    """What the generator seed decides: everything but the figures."""
    return (sc.name, sc.title, sc.description, sc.rows, sc.edges, sc.victory, sc.turn_limit, sc.teams, sc.sides,
            sc.width, sc.height, tuple((f.side, f.name, f.weapon, f.team) for f in sc.figures))


def forces(sc: Scenario) -> tuple:
    return tuple((f.cell, f.quality, f.stance, f.grenades, tuple(sorted(f.skills.items()))) for f in sc.figures)


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_a_map_dealt_twice_is_the_same_map_with_other_forces(size):
    differ = 0
    for seed in range(15):
        plain, a, b = generate(seed, size=size), generate(seed, size=size, deal=1), generate(seed, size=size, deal=2)
        assert the_map(a) == the_map(b) == the_map(plain)
        assert public_map(a) == public_map(b) == public_map(plain)
        for sc in (a, b):
            _check_fair(sc)  # still mirror images: fair by construction
        assert (plain.deal, a.deal, b.deal) == (None, 1, 2)
        differ += forces(a) != forces(b)
    assert differ == 15


def test_the_deal_spreads_the_deployment_over_the_zone():
    """One medium map dealt 30 times: nearly every hex of the west zone is someone's start at least once."""
    sc = generate(4)
    zone = {c for c in range(len(sc.ground)) if c % WIDTH < ZONE_COLS and sc.ground[c] not in "BK#"}
    starts = {f.cell for deal in range(30) for f in generate(4, deal=deal).side_figures(0)}
    assert starts <= zone and len(starts) >= 0.9 * len(zone)


def test_the_envs_maps_rebuild_from_their_names_but_their_seed_does_not_find_the_figures():
    """``random:test`` games: each map is ``generate(seed)``'s for the seed in its name (odd), but the figures
    that seed alone draws stand where the played ones do no more often than a chance guess of as many hexes in
    the zone."""
    env = skirmish_v0.raw_env(scenario="random:test")
    hits, chance, var = 0, 0.0, 0.0
    for reset in range(40):
        env.reset(seed=reset)
        sc = env.scenario
        seed = int(sc.name.rsplit("_", 1)[1])
        assert seed % 2 == 1 and sc.deal is not None
        again = generate(seed)
        assert the_map(sc) == the_map(again)
        assert forces(sc) != forces(again)
        zone = [c for c in range(len(sc.ground)) if c % WIDTH < ZONE_COLS and sc.ground[c] not in "BK#"]
        k, z = len(sc.side_figures(0)), len(zone)
        hits += len({f.cell for f in sc.side_figures(0)} & {f.cell for f in again.side_figures(0)})
        chance += k * k / z
        var += k * (k / z) * (1 - k / z) * (z - k) / (z - 1)
    assert hits <= chance + 3 * math.sqrt(var), (hits, chance, var)


def test_a_seat_never_sees_the_deal():
    env = skirmish_v0.raw_env(scenario="random:train")
    env.reset(seed=5)
    s = env.state
    assert s.scenario.deal is not None and public_scenario(s.scenario).deal is None
    for seat in (0, 1, None):
        assert s.information_view(seat).scenario.deal is None
    assert str(s.scenario.deal) not in repr(public_map(s.scenario))


def test_a_record_keeps_the_deal_and_an_old_one_rebuilds_as_before():
    sc = generate(11, size="small", deal=12345)
    data = scenario_to_record(new_state(sc))
    assert data == {"name": "generated_small_11", "deal": 12345}
    again = scenario_from_record(data)
    assert again == sc and again.deal == 12345
    # a record from before the deal: the forces come from the map's seed, as they did then
    old = scenario_from_record({"name": "generated_small_11"})
    assert old == generate(11, size="small") and old.deal is None
    assert scenario_to_record(new_state(old)) == {"name": "generated_small_11"}
    assert scenario_to_record(new_state("duel")) == {"name": "duel"}
    for bad in (-1, "7", 1.5, True):
        with pytest.raises(ValueError, match="deal"):
            scenario_from_record({"name": "generated_small_11", "deal": bad})


def test_a_saved_random_skirmish_replays_with_its_forces(tmp_path, capsys):
    """`cardwar play skirmish` on a ``random:test`` map (a fresh dealer's secret) saves the map's name and deal;
    `cardwar replay` plays it back to its result, on the forces the record's seed deals."""
    path = tmp_path / "random.json"
    assert main(["play", "skirmish", "--scenario", "random:test", "--seed", "3", "--quiet", "--save", str(path)]) == 0
    capsys.readouterr()
    rec = GameRecord.load(path)
    assert set(rec.scenario_data) == {"name", "deal"}
    env = make_raw_env("skirmish", "random:test")
    env.reset(seed=rec.seed)
    dealt = env.state.scenario
    assert rec.scenario_data == {"name": dealt.name, "deal": dealt.deal}
    replayed = final_state(rec).scenario
    assert replayed == dealt and forces(replayed) == forces(dealt)
    assert forces(dealt) != forces(generate(int(dealt.name.rsplit("_", 1)[1])))
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("Result: ")
