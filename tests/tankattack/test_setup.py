"""The players' set-up phase (RULES.md 5 steps 6-9, option ``deployment="players"``): who places what, where
(checked against an independent reading of the map's letters), in which order; masks exact; JSON round trip
and clones; the env's observation and whole games."""

from __future__ import annotations

import numpy as np

from cardwar.envs.tankattack import (
    EType, TankAttackRules, TankState, load_scenario, scenario_from_dict, state_from_json, state_to_json,
)
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.state import RESERVE, Stage

from .test_games import _invariants, assert_mask_exact

L = parse_label
PLAYERS = TankAttackRules(deployment="players")
MAP = ["........", "........", "..LL....", "........", "........", "........",
       ".www.ww.", "........", "###.####", "........", "....W...", "...K...."]
"""8 x 12: a lake (L) at C3-D3, wire in row 7, a trench in row 9 with a gap at D9, a wood at E11, the Bunker D12."""
SCENARIO = {
    "name": "setup", "turn_limit": 6, "map": MAP,
    "defender": {"placed": ["A12 general", "B11 rifles", "C11 cavalry", "H12 mg"], "reserve": ["barrage", "sniper"]},
    "attacker": {"placed": ["A1 general", "B2 tank", "C2 rifles"], "reserve": ["gas"]},
}


def zone_by_hand(side: int, etype: EType, occupied: set[int]) -> list[int]:
    """L102-107 read off the map's letters: the defender's rows 7-12 (600p of the south edge) or any trench
    cell ``#``; the attacker's rows 1-6; never the Bunker ``K``, a lake ``L``, enemy wire ``w`` (the
    defender's, so only for the attacker) or an occupied cell; Cavalry never in a trench (16.1)."""
    out = []
    for r, row in enumerate(MAP):
        for c, ch in enumerate(row):
            cell = r * 16 + c
            zone = (r >= 12 - 6 or ch == "#") if side == 0 else r < 6
            if not zone or ch in "KL" or cell in occupied or (ch == "w" and side == 1):
                continue
            if etype is EType.CAVALRY and ch == "#":
                continue
            out.append(cell)
    return out


def test_the_defender_places_first_then_the_attacker_then_the_defender_moves():
    """5 steps 6-9: "The defender deploys all his elements except for Barrage, Aerial or Gas elements ... The
    attacker then deploys ... The defender takes the first turn." Reserves stay in reserve; every placed
    element faces N (defender) or S (attacker); each cell offered is exactly the hand-read zone."""
    s = TankState.new_game(scenario_from_dict(SCENARIO), PLAYERS, seed=4)
    els = s.scenario.elements
    order = []
    chosen = {0: [L("D10"), L("E8"), L("F12"), L("B9")], 1: [L("C5"), L("D6"), L("E1")]}
    while s.stage is Stage.SETUP:
        e = s.pending["element"]
        side = s.side[e]
        assert s.current_player == side
        occupied = {c for c in s.cell if c >= 0}
        assert s.legal_actions() == zone_by_hand(side, s.etype[e], occupied), (e, s.etype[e])
        order.append((side, s.etype[e]))
        cell = chosen[side].pop(0)
        s.apply_action(cell)
        assert s.cell[e] == cell and s.facing[e] == (0 if side == 0 else 2)
    assert order == [(0, EType.RIFLES), (0, EType.RIFLES), (0, EType.CAVALRY), (0, EType.MG),
                     (1, EType.RIFLES), (1, EType.TANK), (1, EType.RIFLES)]
    assert [el.type for el in els if el.cell is None] == [EType.BARRAGE, EType.SNIPER, EType.GAS]
    assert all(s.cell[e] == RESERVE for e, el in enumerate(els) if el.cell is None)
    assert s.stage is Stage.MOVES and s.bound == 1 and s.active == 0 and 1 <= s.pips <= 6


def test_the_scenario_placement_is_ignored_for_what_the_players_place():
    """With the default option the scenario places the armies and the defender's bound begins at once."""
    s = TankState.new_game(scenario_from_dict(SCENARIO), seed=4)
    assert s.stage is not Stage.SETUP and s.cell[0] == L("A12")
    p = TankState.new_game(scenario_from_dict(SCENARIO), PLAYERS, seed=4)
    assert all(c == RESERVE for c in p.cell)


def test_setup_masks_round_trip_and_clones():
    """Each set-up stage: all 416 actions tried on clones; the JSON round trip and a clone play on alike."""
    s = TankState.new_game(load_scenario("trench_raid"), PLAYERS, seed=2)
    rng = np.random.default_rng(2)
    while s.stage is Stage.SETUP:
        legal = s.legal_actions()
        assert_mask_exact(s, legal)
        back, twin = state_from_json(state_to_json(s)), s.clone()
        assert back.to_dict() == s.to_dict() and back.legal_actions() == legal
        a = int(rng.choice(legal))
        for x in (s, back, twin):
            x.apply_action(a)
        assert back.to_dict() == s.to_dict() == twin.to_dict()
        _invariants(s)


def test_the_env_observes_the_setup_stage():
    """The observation's stage plane names the set-up, and the seat to decide is the placing side."""
    from cardwar.envs.tankattack.observation import PLANES, encode_observation

    s = TankState.new_game(load_scenario("trench_raid"), PLAYERS, seed=0)
    obs = encode_observation(s.information_view(0))
    assert obs[..., PLANES.index("stage_setup")].min() == 1.0
    assert obs[..., PLANES.index("stage_moves")].max() == 0.0


def test_random_games_with_players_deployment_end():
    for name in ("trench_raid", "cambrai"):
        for seed in range(3 if name == "cambrai" else 10):
            s = TankState.new_game(load_scenario(name), PLAYERS, seed=seed)
            rng = np.random.default_rng(seed)
            n = 0
            while not s.is_terminal():
                s.apply_action(int(rng.choice(s.legal_actions())))
                _invariants(s)
                n += 1
                assert n < 30_000
            assert s.result["reason"] in ("break point", "breakthrough", "turn limit", "general lost")


def test_the_env_asks_the_defender_then_the_attacker_to_place():
    """Through the PettingZoo env: the defender's agent places his deployable elements, then the attacker's."""
    from cardwar.envs import tankattack_v0
    from cardwar.envs.tankattack import setup

    env = tankattack_v0.env(scenario="trench_raid", rules={"deployment": "players"})
    env.reset(seed=3)
    placed = setup.to_place(load_scenario("trench_raid"))
    sides = [load_scenario("trench_raid").elements[e].side for e in placed]
    rng = np.random.default_rng(0)
    agents = []
    for _ in placed:
        agents.append(env.agent_selection)
        obs, *_ = env.last()
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert agents == [("defender", "attacker")[sd] for sd in sides] and sides == sorted(sides)
    env.close()
