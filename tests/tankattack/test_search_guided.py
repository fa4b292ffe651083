"""The heuristic's guidance of Tank Attack's ``mcts`` (agents/tankattack_search.py): the prior on its move, the
fallback to it, whole moves at the leaves, and its leaf value."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.agents.spec import AgentSpecError
from cardwar.agents.tankattack_heuristic import TankHeuristic
from cardwar.agents.tankattack_search import (
    ATTACKER, DEFENDER, MID_MOVE, ChanceMCTS, HeuristicValue, TankSearch, complete_move, heuristic_prior,
)
from cardwar.envs.tankattack import TankState, load_scenario
from cardwar.envs.tankattack.actions import NUM_ACTIONS
from cardwar.envs.tankattack.chance import FACES, Step, chance_free
from cardwar.envs.tankattack.state import LOST, Stage


def _obs(s: TankState) -> dict[str, np.ndarray]:
    mask = np.zeros(NUM_ACTIONS, np.int8)
    mask[s.legal_actions()] = 1
    return {"action_mask": mask}


def _first(stage: Stage, player: int, seed: int = 3) -> TankState:
    """The first position of a heuristic-vs-heuristic game on ``trench_raid`` at ``stage`` with ``player`` to move
    and a choice to make."""
    s = TankState.new_game(load_scenario("trench_raid"), seed=seed)
    h = [TankHeuristic(seed=1), TankHeuristic(seed=2)]
    while not s.is_terminal():
        p = s.current_player
        if s.stage is stage and p == player and len(s.legal_actions()) > 2:
            return s
        s.apply_action(h[p].act(_obs(s), s.information_view(p)))
    raise AssertionError(f"no {stage} for seat {player} in game {seed}")


def test_the_prior_puts_its_weight_on_the_heuristics_move():
    p = heuristic_prior([5, 7, 9, 11], 9, 0.5)
    assert p.tolist() == pytest.approx([0.5 / 3, 0.5 / 3, 0.5, 0.5 / 3]) and p.sum() == pytest.approx(1.0)
    assert heuristic_prior([5, 7], 99, 0.5).tolist() == [0.5, 0.5]  # not a legal move: no preference


def test_the_search_takes_the_heuristics_move_as_default_and_prior():
    """At the attacker's step 2 the guided search asks the heuristic (the same seed, the same view: the same
    move), and PUCT's first visit below the root (the root's own first visit values the root) goes to it: with no
    values yet, the prior alone decides."""
    s = _first(Stage.MOVES, ATTACKER)
    view = s.information_view(ATTACKER)
    agent = TankSearch(seed=4, iterations=2)
    agent.act(_obs(s), view)
    assert agent.last_guess == TankHeuristic(seed=4 + 7919).act(_obs(s), view)
    visited = [a for a, n in agent.search.last_visits.items() if n]
    assert visited == [agent.last_guess]


def test_the_fallback_keeps_the_heuristics_move_until_another_is_seen_enough():
    """Fewer iterations than ``min_visits``: no move qualifies, so the default is played whatever the values say;
    with a margin no value can clear (values lie in [-1, 1]), likewise."""
    s = chance_free(_first(Stage.MOVES, ATTACKER))
    legal = s.legal_actions()
    default = legal[-1]
    few = ChanceMCTS(np.random.default_rng(0), iterations=5, seconds=None)
    assert few.search(s, default=default, prior=0.0, min_visits=10) == default  # prior 0: rarely visited
    many = ChanceMCTS(np.random.default_rng(0), iterations=200, seconds=None)
    assert many.search(s, default=default, prior=0.0, margin=2.5, min_visits=1) == default
    # and with no margin, the move with the best mean among those seen enough replaces it
    free = ChanceMCTS(np.random.default_rng(0), iterations=200, seconds=None)
    chosen = free.search(s, default=default, prior=0.0, margin=0.0, min_visits=5)
    means, visits = free.last_means, free.last_visits
    ok = [a for a in legal if visits[a] >= 5]
    best = max(ok, key=lambda a: means[a])
    assert chosen == (best if means[best] > means.get(default, -2.0) else default)


def test_a_leaf_in_the_middle_of_a_move_is_valued_once_the_heuristic_has_finished_the_move():
    """An element chosen (its destination and facing still to come, 19) is completed by the heuristic's own
    choices, step by step as the heuristic makes them, and the state given is left as it was."""
    s = chance_free(_first(Stage.MOVE_DEST, ATTACKER))
    before = s.clone()
    done = complete_move(s, TankHeuristic(seed=9), np.random.default_rng(0))
    assert done.stage not in MID_MOVE and done is not s
    assert s.cell == before.cell and s.stage is before.stage
    # the same by hand: the heuristic's choice at each step of the move
    h, t = TankHeuristic(seed=9), s.clone()
    while t.stage in MID_MOVE:
        t.apply_action(h._choose(t, t.current_player, t.legal_actions()), validate=False)
    assert t.cell == done.cell and t.facing == done.facing
    between = chance_free(_first(Stage.MOVES, ATTACKER))
    assert complete_move(between, h, np.random.default_rng(0)) is between


def test_the_leaf_value_is_zero_at_the_root_and_follows_the_heuristics_rating():
    s = chance_free(_first(Stage.MOVES, ATTACKER))
    h = TankHeuristic(seed=0)
    value = HeuristicValue(h, s, np.random.default_rng(0))
    assert value(s) == 0.0
    # an attacking element lost: worse for the attacker, so better for the defender (the values are the defender's)
    t = s.clone()
    e = next(e for e in range(len(t.cell)) if t.side[e] == ATTACKER and t.cell[e] >= 0)
    t.cell[e] = LOST
    t._rebuild()
    assert h._value(t, DEFENDER) > h._value(s, DEFENDER) and value(t) > 0


def test_a_bad_guide_is_a_spec_error():
    with pytest.raises(AgentSpecError, match="guide"):
        TankSearch(guide="sideways")


def _certain_win(step: Step, me: int, depth: int = 0) -> bool:
    """Whether the decision ends the game with ``me`` the winner whatever its dice (every face, RULES.md 18)."""
    if step.needs_die:
        return depth < 3 and all(_certain_win(step.with_die(f), me, depth + 1) for f in FACES)
    return step.after.is_terminal() and step.after.winner == me


def _a_one_move_win() -> tuple[TankState, list[int]]:
    """The first position of seeded random games on ``trench_raid`` where some decisions win for sure and others
    do not, with the winning decisions (found by enumerating the dice, not by the search)."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        s = chance_free(TankState.new_game(load_scenario("trench_raid"), seed=seed))
        while not s.is_terminal():
            legal = s.legal_actions()
            me = s.current_player
            if 1 < len(legal) <= 12:
                wins = [a for a in legal if _certain_win(Step(s, a), me)]
                if wins and len(wins) < len(legal):
                    return s, wins
            step = Step(s, int(legal[rng.integers(len(legal))]))
            while step.needs_die:
                step = step.with_die(FACES[int(rng.integers(len(FACES)))])
            s = step.after
    raise AssertionError("no one-move win in 200 random games")


def test_the_search_finds_a_one_move_win():
    """One decision deep, unguided and guided alike, the search plays a decision that wins whatever the dice; the
    guided one also when its default is a decision that does not win at once (the position found: the defender's
    Shoot aid in the last bound, 11.3, where one more aid ends the game and ending the aids gives the target its
    shot back first)."""
    s, wins = _a_one_move_win()
    plain = ChanceMCTS(np.random.default_rng(1), iterations=300, seconds=None, max_depth=1)
    assert plain.search(s) in wins
    guided = ChanceMCTS(np.random.default_rng(1), iterations=300, seconds=None, max_depth=1)
    others = [a for a in s.legal_actions() if a not in wins]
    leaf = HeuristicValue(TankHeuristic(seed=0), s, np.random.default_rng(2))
    assert guided.search(s, default=others[0], prior=0.5, margin=0.05, min_visits=10, leaf=leaf) in wins


def test_auto_guides_the_defender_only_on_maps_larger_than_the_small_scenario():
    from cardwar.agents.tankattack_search import SMALL_MAP, guided_seats
    from cardwar.envs.tankattack.generator import resolve_random

    small = TankState.new_game(load_scenario("trench_raid"), seed=0)
    large = TankState.new_game(resolve_random("random:test:5"), seed=0)
    assert small.board.width * small.board.height <= SMALL_MAP < large.board.width * large.board.height
    assert guided_seats("auto", small) == (ATTACKER,)
    assert guided_seats("auto", large) == (DEFENDER, ATTACKER)
    assert guided_seats("none", large) == () and guided_seats("both", small) == (DEFENDER, ATTACKER)
