"""A generated skirmish map says nothing of its forces (issue 27), and neither side's forces say anything of the
other's: the generator seed makes the map, the deal the forces, each side's from its own stream.

The public map (ground, edges, objectives) identifies its generator seed, so the seed decides only the map; each
figure's starting hex, quality, skills, grenades and stance come from the deal, a separate draw from the game's
deal seed (``envs/turn_based_env.py``, RULES.md §10.1). The two sides are no longer mirror images: each side's
forces are drawn in its own deployment zone (the mirror of the other's) by the same procedure from its own
stream of the deal, so a seat cannot work out the enemy's starting hexes or skills from its own (RULES.md §9.2
hides both); fairness holds in distribution. Here: the same map dealt twice deploys other forces; a guess of
the enemy's forces as the mirror of one's own does no better than chance; each side's forces are its own
stream's draw; the envs' maps rebuild from their names but their seeds do not find the figures; the scenario's
deal never reaches a seat; and a record keeps the deal, so `cardwar replay` plays the game again (and an old
record without one still rebuilds, with the mirrored forces it was played with).
"""

from __future__ import annotations

import hashlib
import json
import math

import numpy as np
import pytest

from cardwar.cli import main
from cardwar.envs import make_raw_env, skirmish_v0
from cardwar.envs.skirmish.codec import scenario_from_record, scenario_to_record
from cardwar.envs.skirmish.generator import SIZES, ZONE_COLS, _draw_side, generate, mirror_function
from cardwar.envs.skirmish.public_map import public_map
from cardwar.envs.skirmish.scenario import WIDTH, Scenario, label
from cardwar.envs.skirmish.state import new_state
from cardwar.envs.skirmish.view import public_scenario
from cardwar.record import GameRecord, final_state, json_int
from tests.skirmish.test_generator import _check_fair, _check_mirrored, zone


def the_map(sc: Scenario) -> tuple:
    """What the generator seed decides: everything but the figures' hidden parts (and the description, which
    says how the forces were drawn: the same text for every deal, another without one)."""
    return (sc.name, sc.title, sc.rows, sc.edges, sc.victory, sc.turn_limit, sc.teams, sc.sides,
            sc.width, sc.height, tuple((f.side, f.name, f.weapon, f.team, f.role) for f in sc.figures))


def hidden(f) -> tuple:
    """What a figure's deal decides besides its hex."""
    return (f.quality, f.stance, f.grenades, tuple(sorted(f.skills.items())))


def forces(sc: Scenario) -> tuple:
    return tuple((f.cell, f.quality, f.stance, f.grenades, tuple(sorted(f.skills.items()))) for f in sc.figures)


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_a_map_dealt_twice_is_the_same_map_with_other_forces(size):
    differ = 0
    for seed in range(15):
        plain, a, b = generate(seed, size=size), generate(seed, size=size, deal=1), generate(seed, size=size, deal=2)
        assert the_map(a) == the_map(b) == the_map(plain)
        assert public_map(a) == public_map(b)
        assert {**public_map(plain), "description": ""} == {**public_map(a), "description": ""}
        for sc in (a, b):
            _check_fair(sc)  # mirrored map, zones and roster; the forces each side's own draw
        _check_mirrored(plain)  # before the deal: side 1 side 0's mirror image
        assert (plain.deal, a.deal, b.deal) == (None, 1, 2)
        differ += forces(a) != forces(b)
    assert differ == 15


def test_a_guess_of_the_enemy_as_ones_own_mirror_image_is_no_better_than_chance():
    """100 medium maps, each dealt once. A seat that guesses the enemy's starting hexes as the mirror of its own
    finds as many as a guess of 6 random hexes of the enemy's zone would (within 3 standard deviations of the
    hypergeometric count; the old mirrored forces found all 600). And guessing enemy figure i's quality, each
    skill, grenades, stance (and all of them at once) as one's own figure i's is right as often as guessing
    them from another deal's figure i on the same map: the two sides' draws are independent."""
    hits, chance, var = 0, 0.0, 0.0
    keys = ("quality", "shoot", "throw", "melee", "field_craft", "grenades", "stance", "all")

    def parts(f) -> dict:
        return {"quality": f.quality, **f.skills, "grenades": f.grenades, "stance": f.stance, "all": hidden(f)}

    same = dict.fromkeys(keys, 0)
    other = dict.fromkeys(keys, 0)
    pairs = 0
    for seed in range(100):
        sc, elsewhere = generate(seed, deal=1000 + seed), generate(seed, deal=5000 + seed)
        m = mirror_function(sc)
        own, enemy = sc.side_figures(0), sc.side_figures(1)
        k, z = len(own), len(zone(sc, 0))
        hits += len({m(f.cell) for f in own} & {f.cell for f in enemy})
        chance += k * k / z
        var += k * (k / z) * (1 - k / z) * (z - k) / (z - 1)
        for f, g, h in zip(own, enemy, elsewhere.side_figures(1)):
            pf, pg, ph = parts(f), parts(g), parts(h)
            for key in keys:
                same[key] += pf[key] == pg[key]
                other[key] += pf[key] == ph[key]
            pairs += 1
    assert abs(hits - chance) <= 3 * math.sqrt(var), (hits, chance, var)
    for key in keys:
        p = (same[key] + other[key]) / (2 * pairs)
        sd = math.sqrt(2 * p * (1 - p) / pairs) or 1 / pairs
        assert abs(same[key] - other[key]) / pairs <= 4 * sd, (key, same[key], other[key], pairs)
        assert same[key] < pairs, key  # never the copy it was


@pytest.mark.parametrize("size", ["small", "medium", "large"])
def test_each_side_is_its_own_streams_draw(size):
    """By construction: side s's forces are what ``_draw_side`` draws in side s's zone from the deal's stream s
    alone, so nothing of side 0's draw enters side 1's (and the zone lists are mirror images, hex for hex: the
    same odds for both)."""
    for seed in range(5):
        for deal in (0, 7, 2**62 + seed):
            sc = generate(seed, size=size, deal=deal)
            m = mirror_function(sc)
            west = [c for r in range(sc.height) for c in range(r * WIDTH, r * WIDTH + ZONE_COLS)
                    if sc.ground[c] not in "BK"]
            streams = np.random.SeedSequence(deal).spawn(2)
            for side, z in ((0, west), (1, [m(c) for c in west])):
                drawn = _draw_side(np.random.default_rng(streams[side]), z, SIZES[size]["figures"])
                got = [(label(f.cell), f.quality.name.lower(), f.skills, f.grenades, f.stance.name.lower())
                       for f in sc.side_figures(side)]
                assert got == [(label(d["cell"]), d["quality"], d["skills"], d["grenades"], d["stance"])
                               for d in drawn]


def forces_digest(sc: Scenario) -> str:
    rows = [[f.side, f.name, label(f.cell), f.quality.name, f.stance.name, f.grenades, sorted(f.skills.items()),
             f.weapon, f.role] for f in sc.figures]
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()[:16]


def test_without_a_deal_the_forces_are_exactly_those_of_before():
    """``generate(seed)`` without a deal (a record from before the deal) draws what it drew before side 1 was
    dealt alone (digests taken from the generator of commit 8aec641): old records replay as played."""
    pinned = {("small", 11): "795ad0e7d0cf4b20", ("medium", 0): "885fc3f779c46b96",
              ("medium", 7): "aba48b37ec99c140", ("large", 3): "3f3389fe162f001b"}
    assert {key: forces_digest(generate(key[1], size=key[0])) for key in pinned} == pinned


def test_the_deal_spreads_the_deployment_over_the_zone():
    """One medium map dealt 30 times: for each side, nearly every hex of its zone is someone's start at least
    once."""
    sc = generate(4)
    for side in (0, 1):
        starts = {f.cell for deal in range(30) for f in generate(4, deal=deal).side_figures(side)}
        assert starts <= zone(sc, side) and len(starts) >= 0.9 * len(zone(sc, side))


def test_the_envs_maps_rebuild_from_their_names_but_their_seed_does_not_find_the_figures():
    """``random:test`` games: each map is ``generate(seed)``'s for the seed in its name (odd), but the figures
    that seed alone draws stand where the played ones do no more often than a chance guess of as many hexes in
    the zone; nor do side 1's stand on the mirror of side 0's."""
    env = skirmish_v0.raw_env(scenario="random:test")
    hits, chance, var = 0, 0.0, 0.0
    mirrored = 0
    for reset in range(40):
        env.reset(seed=reset)
        sc = env.scenario
        seed = int(sc.name.rsplit("_", 1)[1])
        assert seed % 2 == 1 and sc.deal is not None
        again = generate(seed)
        assert the_map(sc) == the_map(again)
        assert forces(sc) != forces(again)
        west = [c for c in range(len(sc.ground)) if c % WIDTH < ZONE_COLS and sc.ground[c] not in "BK#"]
        k, z = len(sc.side_figures(0)), len(west)
        hits += len({f.cell for f in sc.side_figures(0)} & {f.cell for f in again.side_figures(0)})
        chance += k * k / z
        var += k * (k / z) * (1 - k / z) * (z - k) / (z - 1)
        m = mirror_function(sc)
        mirrored += len({m(f.cell) for f in sc.side_figures(0)} & {f.cell for f in sc.side_figures(1)})
    assert hits <= chance + 3 * math.sqrt(var), (hits, chance, var)
    assert mirrored <= chance + 3 * math.sqrt(var), (mirrored, chance, var)  # nor does a seat's own start


def test_a_seat_never_sees_the_deal():
    env = skirmish_v0.raw_env(scenario="random:train")
    env.reset(seed=5)
    s = env.game
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
    assert scenario_from_record({"name": "generated_small_11", "deal": "12345"}).deal == 12345  # text, as JS needs
    for bad in (-1, "-7", "seven", 1.5, True):
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
    dealt = env.game.scenario
    assert rec.scenario_data == {"name": dealt.name, "deal": json_int(dealt.deal)}  # beyond 2**53 - 1: text
    replayed = final_state(rec).scenario
    assert replayed == dealt and forces(replayed) == forces(dealt)
    assert forces(dealt) != forces(generate(int(dealt.name.rsplit("_", 1)[1])))
    assert main(["replay", str(path)]) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("Result: ")
