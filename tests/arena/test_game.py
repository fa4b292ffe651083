"""The arena's game loop: forfeits by Kaggle's classes, clocks, records that replay, per-seat move history."""

from __future__ import annotations

import time

import numpy as np
import pytest

from cardwar import agents
from cardwar.arena import Clock, PlayerFailure, play_game
from cardwar.envs import make_raw_env
from cardwar.envs.naval.cards import card_to_str
from cardwar.record import final_state, replay_states
from tests.misbehaving_agents import Crashing


class Illegal:
    def act(self, obs, view):
        return int(np.flatnonzero(obs["action_mask"] == 0)[0])


class Slow:
    def act(self, obs, view):
        time.sleep(0.05)
        return int(np.flatnonzero(obs["action_mask"])[0])


class Failing:
    def act_within(self, obs, view, budget_ms, history):
        raise PlayerFailure("timeout", "no answer in 10 ms")


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_a_normal_game_gives_the_engine_result_and_a_record_that_replays(game):
    env = make_raw_env(game)
    out = play_game(env, (agents.make("heuristic", game, seed=1), agents.make("random", game, seed=2)), 5,
                    game=game, specs=("heuristic", "random"))
    assert out.forfeit is None and out.returns == list(env.game.returns())
    assert len(out.times) == len(out.moves) == out.length > 0
    assert final_state(out.record).returns() == out.returns
    assert out.record.players == dict(zip(env.possible_agents, ("heuristic", "random")))


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_a_crash_is_a_forfeit_for_error_and_the_other_seat_wins(game):
    out = play_game(make_raw_env(game), (agents.make("random", game, seed=3), Crashing(at=4)), 7, game=game)
    assert out.forfeit is not None and out.forfeit.seat == 1 and out.forfeit.reason == "error"
    assert "segfault" in out.forfeit.detail and out.returns == [1.0, -1.0]
    states = list(replay_states(out.record))  # the record stops where the forfeit happened, and replays
    assert not states[-1].is_terminal() and out.record.result["forfeit"]["reason"] == "error"


def test_an_illegal_move_is_a_forfeit_for_illegal():
    out = play_game(make_raw_env("naval"), (Illegal(), agents.make("random", "naval")), 1, game="naval")
    assert out.forfeit.seat == 0 and out.forfeit.reason == "illegal" and out.returns == [-1.0, 1.0]
    assert out.moves == []


def test_a_slow_in_process_agent_loses_on_time_after_it_answers():
    out = play_game(make_raw_env("naval"), (agents.make("random", "naval"), Slow()), 1, game="naval",
                    clock=Clock(move_seconds=0.01))
    assert out.forfeit.seat == 1 and out.forfeit.reason == "timeout" and "ms" in out.forfeit.detail


def test_game_time_is_each_seats_own_total():
    clock = Clock(move_seconds=1.0, game_seconds=0.12)
    assert clock.budget(0.0) == 1.0 or clock.budget(0.0) == pytest.approx(0.12)
    assert clock.budget(0.1) == pytest.approx(0.02)
    out = play_game(make_raw_env("naval"), (agents.make("random", "naval"), Slow()), 1, game="naval", clock=clock)
    assert out.forfeit.seat == 1 and out.forfeit.reason == "timeout"
    assert len([m for m in out.moves if m.seat == "captain_b"]) <= 2  # 0.05 s a move: out of 0.12 s by the third


def test_a_player_failure_keeps_its_reason():
    out = play_game(make_raw_env("naval"), (Failing(), agents.make("random", "naval")), 1, game="naval")
    assert (out.forfeit.seat, out.forfeit.reason) == (0, "timeout")


def test_own_agents_raise_instead_of_forfeiting_when_asked():
    with pytest.raises(RuntimeError, match="segfault"):
        play_game(make_raw_env("naval"), (Crashing(at=2), agents.make("random", "naval")), 1, game="naval",
                  forfeits=False)


class Recorder:
    """Random play that keeps the history the arena hands it."""

    def __init__(self, seed: int) -> None:
        self.rng, self.histories = np.random.default_rng(seed), []

    def act_within(self, obs, view, budget_ms, history):
        self.histories.append((view, list(history)))
        return int(self.rng.choice(np.flatnonzero(obs["action_mask"])))


def test_the_move_history_never_names_a_card_the_seat_has_not_seen():
    """Face-down attack and defence cards of the other captain never appear in a seat's history."""
    for seed in range(6):
        a, b = Recorder(seed), Recorder(seed + 100)
        out = play_game(make_raw_env("naval"), (a, b), seed, game="naval")
        assert out.forfeit is None
        for seat, rec in ((0, a), (1, b)):
            for view, history in rec.histories:
                seen = {card_to_str(c) for c in view.hand} | set(" ".join(str(x) for x in view.to_dict().values()).split())
                for line in history:
                    for word in line.replace(",", " ").replace(":", " ").split():
                        if len(word) in (2, 3) and word[-1] in "CDHS" and word[:-1] in (
                                "A", "K", "Q", "J", "10", "9", "8", "7", "6", "5", "4", "3", "2"):
                            assert word in seen or word in str(view.to_dict()), (seat, word, line)
