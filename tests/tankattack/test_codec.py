"""The registry's hooks for Tank Attack (envs/tankattack/codec.py): the log, records and engine messages."""

from __future__ import annotations

import json

import numpy as np

from cardwar import games
from cardwar.envs.tankattack import TankState, load_scenario
from cardwar.envs.tankattack.codec import before_move, narrate, scenario_from_record, scenario_to_record


def _random_game(scenario: str, seed: int):
    s = TankState.new_game(load_scenario(scenario), seed=seed)
    rng = np.random.default_rng(seed)
    while not s.is_terminal():
        legal = s.legal_actions()
        yield s, int(legal[rng.integers(len(legal))])


def test_the_log_of_a_game_is_each_move_then_every_event_of_every_bound_once_in_order():
    told: list[str] = []
    bounds: list[list[str]] = []  # independently: each bound's list as the engine leaves it
    s = None
    for s, action in _random_game("trench_raid", 4):
        if not bounds or s.events is not bounds[-1]:
            bounds.append(s.events)
        before, mover = before_move(s), ("defender", "attacker")[s.current_player]
        s.apply_action(action)
        lines = narrate(before, action, s)
        assert lines[0] == f"{mover}: {games.get('tankattack').to_string(action)}"  # the move itself
        told += lines[1:]
    if s.events is not bounds[-1]:
        bounds.append(s.events)
    assert told == [line for b in bounds for line in b][1:]  # the first roll came before any move
    assert sum(line.startswith("bound ") for line in told) == s.bound - 1


def test_narration_from_a_whole_state_still_tells_the_moves_events():
    for s, action in _random_game("trench_raid", 6):
        before = s.clone()
        n = len(s.events)
        s.apply_action(action)
        if s.bound == before.bound:
            assert narrate(before, action, s)[1:] == s.events[n:]


def test_a_generated_map_in_a_record_is_the_same_scenario():
    sc = load_scenario("random:test:17")
    s = TankState.new_game(sc, seed=1)
    data = json.loads(json.dumps(scenario_to_record(s)))
    again = scenario_from_record(data)
    assert again.map_rows == sc.map_rows and again.elements == sc.elements and again.turn_limit == sc.turn_limit


def test_a_view_as_an_engine_message_comes_back_the_same_and_encodes_the_same():
    g = games.get("tankattack")
    env = g.make_env("trench_raid")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    for _ in range(60):
        agent = env.agent_selection
        view = env.view(agent)
        msg = json.loads(json.dumps(g.view_dict(view)))
        back = g.hook("view_from_dict")(msg, g.read(g.setup_of(view)), env.config)
        assert back == view
        assert np.array_equal(g.hook("encode_observation")(back), env.observe(agent)["observation"])
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
    assert g.setup_of(view)["scenario"]["map"] == list(load_scenario("trench_raid").map_rows)
