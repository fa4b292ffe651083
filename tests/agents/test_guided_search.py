"""mcts guided by a network (PUCT, as AlphaZero): priors steer the search, values replace the play-outs."""

from __future__ import annotations

import numpy as np
import pytest

from cardwar import agents
from cardwar.agents.mcts import ISMCTS
from cardwar.agents.spec import AgentSpecError


class TwoPly:
    """A toy game: player 0 then player 1 each pick 0..4, twice; every position is valued by the guide."""

    def __init__(self, moves: tuple[int, ...] = ()) -> None:
        self.moves = list(moves)

    @property
    def current_player(self) -> int:
        return len(self.moves) % 2

    def legal_actions(self) -> list[int]:
        return list(range(5))

    def is_terminal(self) -> bool:
        return len(self.moves) >= 4

    def returns(self) -> tuple[float, float]:
        return (0.0, 0.0)

    def apply_action(self, a: int, validate: bool = True) -> None:
        self.moves.append(a)


def search(guide, iterations=300):
    s = ISMCTS(lambda view, rng: TwoPly(), lambda s, p: 0.0, np.random.default_rng(0), iterations=iterations,
               seconds=None, exploration=1.0, guide=guide)
    return s.search(None, list(range(5)))


def test_the_priors_steer_the_search_when_the_values_do_not_tell_moves_apart():
    def guide(s, legal):
        return np.array([0.01, 0.01, 0.01, 0.01, 0.96]), 0.0

    assert search(guide) == 4


def test_a_leafs_value_is_the_player_to_moves_and_is_backed_up_as_the_other_players_loss():
    calls = []

    def guide(s, legal):
        calls.append(tuple(s.moves))
        if len(s.moves) == 1:  # player 1 to move: after 3 it is lost for player 1, so 3 wins for player 0
            return np.full(5, 0.2), (-1.0 if s.moves[0] == 3 else 0.5)
        return np.full(5, 0.2), 0.0

    assert search(guide) == 3
    assert () in calls and {(a,) for a in range(5)} <= set(calls)  # each new node valued by the net


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_mcts_with_the_shipped_model_plays_legal_reproducible_moves(game):
    from cardwar.envs import make_raw_env

    def first_moves(n=24):
        env = make_raw_env(game)
        env.reset(seed=11)
        bot, other = agents.make("mcts:model=ppo,iterations=16", game, seed=3), agents.make("random", game, seed=4)
        moves = []
        for agent in env.agent_iter(max_iter=n):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                break
            player = bot if agent == env.possible_agents[0] else other
            action = player.act(obs, env.view(agent))
            assert obs["action_mask"][action] == 1
            moves.append(action)
            env.step(action)
        assert bot.search.guide.calls > 0
        return moves

    assert first_moves() == first_moves()  # an iteration budget makes it reproducible


def test_a_model_that_is_not_there_is_a_one_line_error():
    with pytest.raises(AgentSpecError, match="no model file"):
        agents.make("mcts:model=/nowhere/model.zip", "naval")
    assert any(o.name == "model" for o in agents.REGISTRY["mcts"].options["hexwar"])
