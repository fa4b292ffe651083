"""The Tank Attack heuristic (issue 30 item 1): legal moves only on every shipped scenario and a held-out
generated map, reproducible for a seed, its ratings read the rules, and (slow) it beats random."""

from __future__ import annotations

import math

import numpy as np
import pytest

from cardwar import agents
from cardwar.agents.tankattack_heuristic import TankHeuristic, _odds, bunker_distance
from cardwar.arena import play_agents
from cardwar.cli.match import make_env
from cardwar.envs.tankattack import available_scenarios
from cardwar.envs.tankattack.actions import END
from cardwar.envs.tankattack.board import parse_label
from cardwar.envs.tankattack.outcomes import Result, compare
from cardwar.envs.tankattack.state import Stage

from .conftest import position


def _play(scenario: str, specs: tuple[str, str], seed: int) -> tuple[list[int], list[float]]:
    """One game through the arena's loop, every move checked against the mover's mask."""
    trail: list[int] = []

    def check(agent, obs, a):
        assert obs["action_mask"][a] == 1, f"{agent} chose illegal {a}"
        trail.append(int(a))

    first, second = (agents.make(s, "tankattack", seed=seed + i) for i, s in enumerate(specs))
    returns = play_agents(make_env("tankattack", scenario, None), first, second, seed, on_move=check)
    return trail, returns


@pytest.mark.parametrize("scenario", sorted(available_scenarios()) + ["random:test"])
def test_heuristic_plays_only_legal_moves_to_the_end(scenario):
    """Whole games in both seats (and against itself on the small map): every move in the mask, and the game
    ends with a result (17.3)."""
    pairs = [("heuristic", "random"), ("random", "heuristic")]
    if scenario == "trench_raid":
        pairs.append(("heuristic", "heuristic"))
    for i, specs in enumerate(pairs):
        trail, returns = _play(scenario, specs, 3 + i)
        assert trail and sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_same_seed_same_game():
    assert _play("random:test", ("heuristic", "random"), 5) == _play("random:test", ("heuristic", "random"), 5)


def test_odds_are_the_36_dice_pairs():
    """13.2 by brute force: 5 + d6 against 3 + d6 (a Sturmtruppe against trench Rifles, RULES.md 21: 26/36 wins)."""
    o = _odds(5, 3)
    wins = sum(1 for a in range(1, 7) for b in range(1, 7) if 5 + a > 3 + b)
    doubled = sum(1 for a in range(1, 7) for b in range(1, 7) if compare(5 + a, 3 + b) is Result.DOUBLED)
    assert math.isclose(o[Result.WIN], wins / 36) and wins == 26
    assert math.isclose(o[Result.DOUBLED], doubled / 36)
    assert math.isclose(sum(o.values()), 1.0)


def test_bunker_distance_goes_round_impassable_ground():
    """Steps to the Bunker avoid lakes (2.1 "impassable"): the cell north of a lake wall goes round it."""
    rows = ["........"] * 8 + [".LLLLLL.", "........", "........", "...K...."]
    s = position(rows, defender=["A12 rifles"], attacker=["D1 tank"])
    d = bunker_distance(s)
    bunker = s.board.bunker
    assert d[bunker] == 0
    north = bunker - 16 * 4  # D8, behind the lake wall on row 9
    assert d[north] > 4  # straight down would be 4; the wall forces a way round its end


def test_attacking_tank_drives_into_the_rifles_it_can_kill():
    """A Tank that initiates contact destroys beaten Rifles (14.1): with the PIPs for it, the heuristic moves
    the Tank into the Rifles' front rather than ending its moves."""
    s = position(defender=["D8 rifles"], attacker=["D5 tank"], active=1, pips=6)
    ag = TankHeuristic(seed=0)
    view = s.information_view(1)
    a = ag.act({"action_mask": s.legal_action_mask()}, view)
    assert a != END and s.grid[a] >= 0 and s.etype[s.grid[a]].name == "TANK"
    s.apply_action(a)
    dest = ag.act({"action_mask": s.legal_action_mask()}, s.information_view(1))
    assert dest == parse_label("D7")  # touching the Rifles' front: the contact it initiates


def test_defender_lifts_a_barrage_by_counter_battery():
    """An enemy Barrage on the defender's trench and 6 PIPs: the defender pays for counter-battery (9.2)."""
    rows = ["........"] * 7 + [".######.", "........", "........", "........", "...K...."]
    s = position(rows, defender=["D8 rifles", "E8 rifles"], attacker=["D1 rifles"], active=0, pips=6,
                 reserve=([], ["barrage"]))
    # put the attacker's Barrage on the board in front of D8, facing it
    bar = next(e for e in range(len(s.cell)) if s.etype[e].name == "BARRAGE")
    s.cell[bar], s.facing[bar] = s.board.step(s.cell[0], 0), 2
    s._rebuild()
    s._memo = None
    assert s.stage is Stage.MOVES
    ag = TankHeuristic(seed=0)
    from cardwar.envs.tankattack.actions import COUNTER

    assert COUNTER in s.legal_actions()
    assert ag.act({"action_mask": s.legal_action_mask()}, s.information_view(0)) == COUNTER


@pytest.mark.slow
def test_heuristic_beats_random_on_held_out_maps():
    """20 games on random:test maps, seats swapped in pairs: the score's one-sided 95% lower bound (normal
    approximation of the binomial) is above 0.75. Issue 30 item 2's floor is 0.90 over 200 games
    (docs/strength.md)."""
    score = 0.0
    n = 20
    for g in range(n // 2):
        for hs in (0, 1):
            specs = ("heuristic", "random") if hs == 0 else ("random", "heuristic")
            _, returns = _play("random:test", specs, 100 + 2 * g + hs)
            score += (returns[hs] + 1) / 2
    p = score / n
    assert p - 1.645 * math.sqrt(max(p * (1 - p), 1 / n) / n) > 0.75 or p >= 0.95, p


def test_a_view_rebuilt_from_its_data_gets_the_same_choices():
    """The engine protocol sends the view as JSON data (no public copy): the agent rebuilds the same state
    from it (RULES.md 18), so it decides as it does from the env's view."""
    from cardwar.envs.tankattack import TankState, load_scenario
    from cardwar.envs.tankattack.view import TankView

    s = TankState.new_game(load_scenario("trench_raid"), None, 4)
    a, b, rnd = TankHeuristic(seed=1), TankHeuristic(seed=1), np.random.default_rng(0)
    for _ in range(150):
        if s.is_terminal():
            break
        p = s.current_player
        mask = s.legal_action_mask()
        view = s.information_view(p)
        x = a.act({"action_mask": mask}, view)
        assert x == b.act({"action_mask": mask}, TankView(p, data=view.data))
        s.apply_action(x if p == 1 else int(rnd.choice(np.flatnonzero(mask))))
