"""Whole games through the arena with engine processes: the documented bot, our agents served by
``cardwar engine`` (the same moves as in process), and an engine killed mid-game."""

from __future__ import annotations

import os
import signal
import sys
import textwrap

import pytest

from cardwar import agents
from cardwar.arena import play_game
from cardwar.envs import make_raw_env
from cardwar.record import final_state
from tests.engine.conftest import assert_gone, bot_spec, served_spec
from tests.subprocesses import run_command

SETUPS = {"naval": {}, "hexwar": {"scenario": "random", "rules": {"hidden_units": True}},
          "skirmish": {"scenario": "random:test"}, "tankattack": {"scenario": "trench_raid"}}


@pytest.mark.parametrize("game", ["naval", "hexwar", "skirmish", "tankattack"])
def test_the_example_bot_plays_whole_games_against_the_heuristic_and_the_records_replay(engines, game):
    env = make_raw_env(game, **SETUPS[game])
    bot = engines(bot_spec(), game, seed=4)
    assert bot.name == "attack-first bot" and bot.author == "cardwar docs"
    for seed, seat in ((1, 0), (2, 1)):
        heuristic = agents.make("heuristic", game, seed=seed)
        players = (bot, heuristic) if seat == 0 else (heuristic, bot)
        out = play_game(env, players, seed, game=game, specs=("bot", "heuristic")[::1 - 2 * seat],
                        pad_hidden=False)  # the games, not the waits (tests/arena/test_padding.py)
        bot.game_over(out.record.result)
        assert out.forfeit is None and out.returns == list(env.game.returns())
        assert final_state(out.record).returns() == out.returns
    assert bot.starts == 1  # one process for both games


@pytest.mark.parametrize("game, seeds", [("naval", (3, 4)), ("hexwar", (5, 6, 7)), ("skirmish", (8, 9)),
                                        ("tankattack", (10, 11))])
def test_a_served_agent_plays_exactly_as_it_does_in_process(engines, game, seeds):
    """Same seeds, same returns and the same moves; ``make_player`` seeds the served agent as ``agents.make``."""
    env = make_raw_env(game, **SETUPS[game])
    served = engines(served_spec(game, "heuristic"), game, seed=seeds[0])
    for k, seed in enumerate(seeds):
        seat = k % 2
        if k:
            served.new_game(seed=seed)
        local = play_game(env, _seated(agents.make("heuristic", game, seed=seed), game, seat, seed), seed, game=game)
        remote = play_game(env, _seated(served, game, seat, seed), seed, game=game, pad_hidden=False)
        served.game_over(remote.record.result)
        assert remote.forfeit is None
        assert remote.returns == local.returns and remote.moves == local.moves, (game, seed)
    assert served.starts == 1 and served.name == "cardwar heuristic"


def _seated(player, game: str, seat: int, seed: int) -> tuple:
    other = agents.make("random", game, seed=seed + 100)
    return (player, other) if seat == 0 else (other, player)


def test_an_engine_killed_mid_game_forfeits_and_is_restarted_for_the_next_game(engines):
    env = make_raw_env("naval")
    bot = engines(bot_spec(), "naval", seed=1)
    first, moves = bot.pid, []

    def kill_after_ten(agent, obs, action):
        moves.append(action)
        if len(moves) == 10:
            os.killpg(first, signal.SIGKILL)

    out = play_game(env, (bot, agents.make("random", "naval", seed=2)), 3, game="naval", on_move=kill_after_ten)
    assert out.forfeit is not None and (out.forfeit.seat, out.forfeit.reason) == (0, "error")
    assert "killed by signal 9" in out.forfeit.detail
    assert_gone(first)
    bot.game_over(out.record.result)
    again = play_game(env, (bot, agents.make("random", "naval", seed=2)), 3, game="naval")  # no new_game(): lazily
    assert again.forfeit is None and bot.starts == 2 and bot.pid != first


def test_an_engine_driven_by_act_alone_is_told_of_each_new_game(engines, tmp_path):
    """Without the arena (no history, no game_over), a new game is seen from the turn going back."""
    env = make_raw_env("naval")
    transcript = tmp_path / "act.jsonl"
    bot, other = engines(bot_spec(), "naval", seed=1, transcript=transcript), agents.make("random", "naval", seed=2)
    asked = 0
    for seed in (1, 2):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mine = agent == env.possible_agents[0]
            asked += mine
            env.step((bot if mine else other).act(obs, env.view(agent)))
    sent = [line for line in transcript.read_text().splitlines() if line.startswith("> ")]
    assert sum('"type":"new_game"' in line for line in sent) == 2
    assert sum('"type":"move"' in line for line in sent) == asked


def test_no_engine_outlives_the_python_process_that_started_it(tmp_path):
    """An EngineAgent never closed is killed, with its process group, when Python exits."""
    script = tmp_path / "forget.py"
    script.write_text(textwrap.dedent(f"""
        from cardwar.players import make_player
        player = make_player({bot_spec()!r}, "naval", 1)
        print(player.pid, flush=True)
    """))
    done = run_command([sys.executable, str(script)], timeout=60)
    assert done.returncode == 0, done.stderr
    pid = int(done.stdout.split()[0])
    try:
        assert_gone(pid)
    finally:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
