"""A procedural map says nothing hidden (issue 27): its generator seed makes the public map, the deal its hidden units.

The public terrain identifies a map's generator seed (no two of thousands of seeds draw the same terrain), so
a table from terrain to seed would give away everything the seed decides. So the seed decides only what both
sides see at the start (terrain, objectives, the kind of battle, the points, the visible units, how many units
hide), and the hidden units' types and hexes come from the deal, a separate draw from the game's deal seed
(``envs/turn_based_env.py``, RULES.md 9.1). Here: the same map dealt twice is the same to a spectator and hides
its units differently; the envs' maps are rebuilt from their names, but an attacker who knows the map's seed
finds their hidden units no better than by chance; and a record of such a game replays it.
"""

from __future__ import annotations

import math

import pytest

from cardwar.cli import main
from cardwar.envs import hexwar_v0, make_raw_env
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.scenario import Scenario, scenario_from_dict
from cardwar.envs.hexwar.state import HexState
from cardwar.envs.hexwar.units import UnitType
from cardwar.envs.hexwar.view import HexView
from cardwar.record import GameRecord, final_state
from tests.hexwar.test_generator_hidden import cases, hiding_places

HIDDEN = HexConfig(hidden_units=True)


def public(sc: Scenario) -> tuple:
    """What the generator seed decides: all of the scenario but its hidden units' types and hexes."""
    return (sc.name, sc.title, sc.description, sc.turns, sc.width, sc.height, sc.terrain, sc.objectives,
            sc.side_names, tuple(u for u in sc.units if not u.hidden),
            tuple(sum(u.hidden for u in sc.units if u.side == s) for s in (0, 1)))


def hidden(sc: Scenario) -> list[tuple]:
    return sorted((u.side, u.hex, u.type) for u in sc.units if u.hidden)


def test_a_map_dealt_twice_is_the_same_map_with_other_hidden_units():
    maps = differ = 0
    for seed in range(40):
        plain, a, b = generate_scenario(seed), generate_scenario(seed, deal=1), generate_scenario(seed, deal=2)
        assert public(a) == public(b) == public(plain), seed
        assert a.name == f"random-{seed}"
        # a spectator at the start (or a seat with nothing hidden) is shown exactly the same game
        sa, sb = HexState.new_game(a, HIDDEN, seed=7), HexState.new_game(b, HIDDEN, seed=7)
        assert HexView.of(sa, None) == HexView.of(sb, None), seed
        if any(u.hidden for u in a.units):
            maps += 1
            differ += hidden(a) != hidden(b)
    assert maps >= 25 and differ >= 0.8 * maps, (differ, maps)


def test_a_map_with_no_room_on_its_first_try_is_drawn_again_the_same_whatever_the_deal():
    """Seeds 95819 and 96423 (of 120,000 scanned): a meeting engagement's hiding area fills before every unit
    its side must show stands in it. The first try finds no room (it crashed a training run before); the map is
    drawn again from the same stream, and it is still the same public map with any deal."""
    import numpy as np

    from cardwar.envs.hexwar.generator import _Crowded, _generate

    for seed in (95819, 96423):
        with pytest.raises(_Crowded):
            _generate(np.random.default_rng(seed), None, seed, 12, 10, 12)
        plain, a, b = generate_scenario(seed), generate_scenario(seed, deal=1), generate_scenario(seed, deal=2)
        assert public(a) == public(b) == public(plain) and a.name == f"random-{seed}"
        assert {u.side for u in a.units} == {0, 1}


def test_the_deal_picks_hidden_hexes_and_types_over_the_hiding_places():
    """One map with several hidden units, dealt 40 times: many placements, both hideable types, always in the
    hiding places the rules name (RULES.md 9.1, computed from the view alone)."""
    seed = next(s for s in range(100) if sum(u.hidden for u in generate_scenario(s).units) >= 3)
    placements, types = set(), set()
    for deal in range(40):
        sc = generate_scenario(seed, deal=deal)
        placements.add(tuple(hidden(sc)))
        types |= {t for _, _, t in hidden(sc)}
        for case in cases([sc]):
            assert all(h in hiding_places(case.view) for h, _ in case.secret)
    assert len(placements) >= 30 and types == {UnitType.FOOT, UnitType.AT_GUN}


def overlap(cases_played, cases_guessed) -> tuple[int, float, float]:
    """Hidden hexes an attacker names by rebuilding each map from its seed, against a uniform guess of as
    many hiding places: (hits, expected hits by chance, variance by chance: hypergeometric)."""
    hits, chance, var = 0, 0.0, 0.0
    for played, guessed in zip(cases_played, cases_guessed):
        assert played.view.side == guessed.view.side
        places, k = len(hiding_places(played.view)), len(played.secret)
        hits += len({h for h, _ in played.secret} & {h for h, _ in guessed.secret})
        p = k / places
        chance += k * p
        var += k * p * (1 - p) * (places - k) / max(1, places - 1)
    return hits, chance, var


def test_the_envs_maps_rebuild_from_their_names_but_their_seed_does_not_find_the_hidden_units():
    """``random:test`` games: each map's public part is ``generate_scenario(seed)``'s for the seed in its name
    (a named map stays reproducible, and odd), but rebuilding the map from that seed - what a table from
    terrain to seed would give - names the hidden units' hexes no more often than a chance guess. Against the
    generator of old (hidden units from the seed) the same attack names every one."""
    env = hexwar_v0.raw_env(scenario="random:test", rules={"hidden_units": True})
    played, rebuilt = [], []
    for reset in range(80):
        env.reset(seed=reset)
        sc = env.scenario
        seed = int(sc.name.removeprefix("random-"))
        assert seed % 2 == 1
        again = generate_scenario(seed)
        assert public(sc) == public(again), reset
        played.append(sc)
        rebuilt.append(again)
    seen = cases(played)
    assert len(seen) >= 60
    hits, chance, var = overlap(seen, cases(rebuilt))
    assert hits <= chance + 3 * math.sqrt(var), (hits, chance, var)
    assert sum(hidden(a) != hidden(b) for a, b in zip(played, rebuilt)) >= 0.8 * sum(
        any(u.hidden for u in sc.units) for sc in played)
    old_hits, _, _ = overlap(cases(rebuilt), cases(rebuilt))
    assert old_hits == sum(len(c.secret) for c in cases(rebuilt)) > 2 * chance


def test_train_and_test_seeds_are_wide_and_disjoint():
    """Generator seeds are 63-bit draws (far too many maps to tabulate), even for train and odd for test."""
    seeds = {}
    for split in ("random:train", "random:test"):
        env = hexwar_v0.raw_env(scenario=split)
        seeds[split] = set()
        for reset in range(30):
            env.reset(seed=reset)
            seeds[split].add(int(env.scenario.name.removeprefix("random-")))
        assert all(s % 2 == (split == "random:test") for s in seeds[split])
    assert not seeds["random:train"] & seeds["random:test"]
    assert max(seeds["random:train"] | seeds["random:test"]) >= 2**56


def test_a_saved_random_game_replays_with_its_hidden_units(tmp_path, capsys):
    """`cardwar play` on a ``random:test`` map with hidden units (a fresh dealer's secret) saves the map as
    played; `cardwar replay` plays it back to its result, and the record's seed rebuilds the same deal."""
    path = tmp_path / "random.json"
    assert main(["play", "hexwar", "--scenario", "random:test", "--rule", "hidden_units=true", "--seed", "4",
                 "--a", "heuristic", "--quiet", "--save", str(path)]) == 0
    capsys.readouterr()
    rec = GameRecord.load(path)
    played = scenario_from_dict(rec.scenario_data)
    assert any(u.hidden for u in played.units)
    assert final_state(rec).scenario == played
    env = make_raw_env("hexwar", "random:test", {"hidden_units": True})
    env.reset(seed=rec.seed)
    assert env.game.scenario == played
    assert public(played) == public(generate_scenario(int(played.name.removeprefix("random-"))))
    assert main(["replay", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[-1].startswith("Result: ")


@pytest.mark.parametrize("deal", [0, 2**63 - 1])
def test_any_63_bit_deal_works(deal):
    sc = generate_scenario(2**62 + 1, deal=deal)
    assert sc.name == f"random-{2**62 + 1}" and public(sc) == public(generate_scenario(2**62 + 1))
    assert all(u.hex is not None for u in sc.units if u.hidden)
