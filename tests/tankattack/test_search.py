"""``mcts`` for Tank Attack (agents/tankattack_search.py): the dice are chance nodes, not a determinised state."""

from __future__ import annotations

import numpy as np

from cardwar.agents.tankattack_search import DEFENDER, ChanceMCTS, TankSearch, _node, evaluate
from cardwar.envs.tankattack import TankState, load_scenario
from cardwar.envs.tankattack.chance import FACES, Step, chance_free
from cardwar.envs.tankattack_v0 import raw_env


def _expected(step: Step, seat: int) -> float:
    """The exact expectation of ``evaluate`` after a decision, over every sequence of its dice (1/6 each)."""
    if not step.needs_die:
        return evaluate(step.after, seat)
    return sum(_expected(step.with_die(f), seat) for f in FACES) / len(FACES)


def _first_rolling_decision(seed: int) -> tuple[TankState, int]:
    s = chance_free(TankState.new_game(load_scenario("trench_raid"), seed=seed))
    rng = np.random.default_rng(seed)
    while True:
        legal = s.legal_actions()
        for a in legal:
            if Step(s, a).needs_die:
                return s, a
        step = Step(s, int(legal[rng.integers(len(legal))]))
        while step.needs_die:
            step = step.with_die(int(rng.integers(1, 7)))
        s = step.after


def test_a_chance_node_averages_the_dice_as_they_fall():
    """With the search cut one decision deep, the value of a decision that rolls dice converges to the exact
    expectation over its 6**k dice sequences (computed independently here), within sampling error."""
    s, a = _first_rolling_decision(2)
    search = ChanceMCTS(np.random.default_rng(0), iterations=1, seconds=None, max_depth=1)
    child = _node(Step(s, a))  # the decision's chance node
    n = 3000
    values = [search._simulate(child, 1) for _ in range(n)]
    exact = _expected(Step(s, a), DEFENDER)
    assert len(set(values)) > 1  # the dice matter to this decision's value
    sd = np.std(values) / np.sqrt(n)
    assert abs(np.mean(values) - exact) < 4 * sd, (np.mean(values), exact)


def test_mcts_plays_only_legal_moves_to_the_end_and_is_reproducible():
    def play(seed: int) -> list[int]:
        env = raw_env(scenario="trench_raid")
        env.reset(seed=seed)
        agents = {name: TankSearch(seed=seed + i, iterations=12) for i, name in enumerate(env.possible_agents)}
        moves = []
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            a = agents[name].act(obs, env.view(name))
            assert obs["action_mask"][a] == 1
            moves.append(a)
            env.step(a)
        assert env.game.is_terminal()
        return moves

    assert play(5) == play(5)


def test_the_evaluation_is_the_result_at_the_end_and_zero_sum():
    s = TankState.new_game(load_scenario("cambrai"), seed=1)
    assert -1 <= evaluate(s, 0) <= 1 and evaluate(s, 0) == -evaluate(s, 1)
    rng = np.random.default_rng(1)
    while not s.is_terminal():
        legal = s.legal_actions()
        s.apply_action(int(legal[rng.integers(len(legal))]))
    assert evaluate(s, 0) == s.returns()[0] and evaluate(s, 1) == s.returns()[1]
