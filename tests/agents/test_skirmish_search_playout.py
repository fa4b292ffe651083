"""The skirmish search's play-outs (issue 31): the wary play-out policy keeps out of enemy fire as the
heuristic does, cheaply, on the sampled game; a play-out's leaf is scored after the turn's declarations
have resolved, never mid-turn.

Positions are the tiny scenarios of test_skirmish_agents (clear ground, every skill 5: a regular's fire hits
on a card of 5 or less less the target's cover, RULES.md §5.1-5.2, a chance of 0.5 in the open)."""

from __future__ import annotations

import numpy as np

import cardwar.agents.skirmish_search as ss
from cardwar.agents.skirmish_heuristic import SkirmishHeuristic
from cardwar.agents.skirmish_search import SkirmishSearch, _exposure, wary_policy
from cardwar.envs.skirmish.actions import CHOICE, Step, action_name
from cardwar.envs.skirmish.generator import generate
from cardwar.envs.skirmish.state import new_state

from tests.agents.test_skirmish_agents import fig, observe, scenario

WALL = [["E" + str(r), "F" + str(r), "wall_high"] for r in range(1, 7)]
WALL += [["E2", "F1", "wall_high"], ["E4", "F3", "wall_high"], ["E6", "F5", "wall_high"]]


def test_exposure_is_the_enemy_rifles_chance_to_hit_a_hex_it_sees() -> None:
    """Red's rifle (Shoot 5) sees and reaches the open hex C3: a hit on 5 or less, 0.5. Behind a head-high wall
    (§1.4) Blue's hexes are out of its sight: 0."""
    s = new_state(scenario([fig("Blue", "B3")], [fig("Red", "H3")]), None, 0)
    board = s.scenario.board
    assert _exposure(s, 0)(board.parse("C3")) == 0.5
    s = new_state(scenario([fig("Blue", "B3")], [fig("Red", "H3")], edges=WALL), None, 0)
    assert _exposure(s, 0)(s.scenario.board.parse("C3")) == 0.0


def _stance_after_walking_to(s, dest: str) -> str:
    s.apply(CHOICE["walk"])
    assert s.decision.step == Step.DESTINATION
    s.apply(s.scenario.board.parse(dest))
    while s.decision.step != Step.STANCE:
        s.apply(s.legal()[0])
    return action_name(wary_policy(s, s.legal(), np.random.default_rng(0)))


def test_a_man_walking_into_an_enemys_sight_goes_prone_and_out_of_it_does_not() -> None:
    s = new_state(scenario([fig("Blue", "B3")], [fig("Red", "H3")]), None, 0)
    assert s.decision.step == Step.MODE and s.seat == 0
    assert _stance_after_walking_to(s, "C3") == "prone"
    s = new_state(scenario([fig("Blue", "B3")], [fig("Red", "H3")], edges=WALL), None, 0)
    assert _stance_after_walking_to(s, "C3") != "prone"


def test_a_wary_destination_weighs_progress_against_the_enemys_fire() -> None:
    """Blue walks towards a Red it must close on (casualties) over open ground Red's rifle sees: the hex
    chosen is never worse than the best of the walk's hexes by more than the policy's noise (below 1) on
    distance to the goal + 3 x the threat there - 0.7 x the hex's cover."""
    s = new_state(scenario([fig("Blue", "B3")], [fig("Red", "H3")]), None, 0)
    s.apply(CHOICE["walk"])
    legal = [a for a in s.legal() if a < 24 * 16]
    threat = _exposure(s, 0)
    dist = ss.goal_distances(s.scenario.board, ss._goals(s, 0))
    for seed in range(20):
        c = wary_policy(s, s.legal(), np.random.default_rng(seed))
        best = min(dist[x] + 3.0 * threat(x) - 0.7 * s.scenario.board.hex_cover(x) for x in legal)
        assert dist[c] + 3.0 * threat(c) - 0.7 * s.scenario.board.hex_cover(c) <= best + 1.0


def test_a_play_out_is_scored_after_the_turn_resolves() -> None:
    """The leaf of every play-out is the next turn's first declaration (or the game's end): the turn's moves
    and fire have resolved, so no order is pending when the value is read."""
    seen: list[tuple[int, bool, int]] = []
    real = ss.evaluate

    def spy(state, player):
        seen.append((state.turn, state.over, len(state.orders)))
        return real(state, player)

    ss.evaluate = spy
    try:
        s = new_state(generate(7, deal=3), None, 3)
        agent, other = SkirmishSearch(seed=2, iterations=20, rollout="wary"), SkirmishHeuristic(seed=1)
        turns = []
        while not s.over and len(seen) < 200:
            obs, v = observe(s)
            before = len(seen)
            a = agent.act(obs, v) if s.seat == 0 else other.act(obs, v)
            turns += [v.turn] * (len(seen) - before)
            s.apply(a)
    finally:
        ss.evaluate = real
    assert len(seen) >= 50
    for (turn, over, pending), start in zip(seen, turns):
        assert over or (turn == start + 1 and pending == 0), (turn, start, over, pending)


def test_the_playout_check_plays_pairs_and_refuses_an_unknown_policy(capsys) -> None:
    from cardwar.agents import skirmish_playout_check as check

    assert check.main(["--policy", "nope"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    out = check.play("wary", 2, 5000)
    assert out["wins"] + out["draws"] + out["losses"] == 2 and out["ms_a_move"] > 0
