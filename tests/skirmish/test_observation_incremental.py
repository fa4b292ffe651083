"""The incremental observation (issue 31 item 5) is the from-scratch one, bit for bit.

``encode_observation`` keeps the map and unit planes from the last call whose inputs were equal and
rebuilds only the decision and game planes; ``incremental=False`` builds every plane again. Seeded random
games (both seats at every step, the phases and the deck sequences, vehicles, hidden enemies, random maps)
compare the two with ``np.array_equal`` on the whole observation, and the env's action mask with one made
from ``legal_actions`` here. A longer run of the same check is marked ``slow``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from cardwar.envs import skirmish_v0
from cardwar.envs.skirmish.actions import N_ACTIONS, N_CELLS
from cardwar.envs.skirmish.observation import OBS_SHAPE, P, encode_observation

CASES = [  # (scenario, rules): both sequences, vehicles (panzer_road), line of sight (hidden enemies), random maps
    ("ww2_squads", None),  # suggests the WW2 activation deck
    ("ww2_squads", {"sequence": "phases"}),
    ("duel", None),
    ("panzer_road", {"sequence": "deck"}),
    ("woods_and_craters", None),
    ("random", {"sequence": "deck"}),
]


def _check_game(env: skirmish_v0.raw_env, seed: int, max_steps: int) -> tuple[int, int]:
    """Play one seeded random game (at most ``max_steps`` steps); at every step compare both seats'
    observations with the from-scratch ones and the mover's mask with ``legal_actions``. Returns (steps,
    steps at which some enemy unit was hidden from the mover: unseen now, or never seen)."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    steps = hidden = 0
    s = env.game
    while not s.is_terminal() and steps < max_steps:
        for seat, agent in enumerate(env.possible_agents):
            got = env.observe(agent)
            view = s.information_view(seat)
            want = encode_observation(view, s.scenario, incremental=False)
            assert got["observation"].shape == OBS_SHAPE
            assert np.array_equal(got["observation"], want), (seed, steps, agent)
            if seat == s.current_player:
                legal = s.legal_actions()
                mask = np.zeros(N_ACTIONS, np.int8)
                mask[legal] = 1
                assert np.array_equal(got["action_mask"], mask), (seed, steps, agent)
                enemies = sum(1 for u in s.units if u.side != seat)
                shown = sum(1 for u in view.units if u.side != seat and u.seen)
                hidden += shown < enemies
        legal = s.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps, hidden


@pytest.mark.parametrize("scenario,rules", CASES)
def test_incremental_observation_is_the_full_one(scenario: str, rules: dict | None) -> None:
    env = skirmish_v0.raw_env(scenario=scenario, rules=rules)
    total = hidden = 0
    for seed in (3, 17, 29):
        n, h = _check_game(env, seed, max_steps=600)
        total += n
        hidden += h
    assert total >= 100  # the games really ran
    assert hidden > 0  # some steps had enemies the mover could not see


def test_two_envs_on_one_scenario_object_do_not_share_stale_planes() -> None:
    """The cache is keyed by the scenario object and the seat; two games of the same scenario interleaved
    (the worst case for it) still give each its own observation."""
    from cardwar.envs.skirmish.scenario import load_scenario

    sc = load_scenario("duel")
    a, b = skirmish_v0.raw_env(scenario=sc), skirmish_v0.raw_env(scenario=sc)
    a.reset(seed=1)
    b.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(120):
        for env in (a, b):
            s = env.game
            if s.is_terminal():
                continue
            for seat, agent in enumerate(env.possible_agents):
                want = encode_observation(s.information_view(seat), sc, incremental=False)
                assert np.array_equal(env.observe(agent)["observation"], want)
            legal = s.legal_actions()
            env.step(int(legal[rng.integers(len(legal))]))


def test_editing_a_view_or_an_observation_after_encoding_changes_nothing_later() -> None:
    """The cache keeps its own copy of the inputs and hands out copies of its planes: a caller who edits
    the view it encoded (here, into the next view it will encode), or the array it got, cannot make a later
    observation stale."""
    env = skirmish_v0.raw_env(scenario="ww2_squads", rules={"sequence": "phases"})
    env.reset(seed=5)
    s = env.game
    rng = np.random.default_rng(5)

    def moving(view):  # an own unit with a declared move (its destination is on the own_destination plane)
        return next((u for u in view.units if u.side == 0 and u.order and u.order.get("destination") is not None
                     and u.order.get("mode", "stay") != "stay"), None)

    while moving(s.information_view(0)) is None:
        legal = s.legal_actions()
        env.step(int(legal[rng.integers(len(legal))]))
    v = s.information_view(0)
    u = moving(v)
    first = encode_observation(v, s.scenario)
    first[:] = 0.5  # the caller's own array
    dest = (u.order["destination"] + 1) % N_CELLS
    other = replace(v, units=tuple(x._replace(order={**x.order, "destination": dest}) if x.uid == u.uid else x
                                   for x in v.units))
    u.order["destination"] = dest  # edit the encoded view into the next one
    got = encode_observation(other, s.scenario)
    assert np.array_equal(got, encode_observation(other, s.scenario, incremental=False))
    assert got.reshape(N_CELLS, -1)[dest, P["own_destination"]] == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("scenario,rules", CASES)
def test_incremental_observation_is_the_full_one_long(scenario: str, rules: dict | None) -> None:
    env = skirmish_v0.raw_env(scenario=scenario, rules=rules)
    for seed in range(100, 140):
        _check_game(env, seed, max_steps=100_000)
