"""Engines that misbehave forfeit with Kaggle's reasons (error, timeout, illegal), and leave no process behind."""

from __future__ import annotations

import time

import pytest

from cardwar import agents
from cardwar.arena import Clock, play_game
from cardwar.envs import make_raw_env
from cardwar.record import replay_states
from tests.engine.conftest import assert_gone


def forfeit_of(player, game: str = "naval", seat: int = 0, clock: Clock | None = None, seed: int = 1):
    """Play ``player`` in ``seat`` against random; the outcome."""
    other = agents.make("random", game, seed=5)
    players = (player, other) if seat == 0 else (other, player)
    return play_game(make_raw_env(game), players, seed, game=game, clock=clock)


@pytest.mark.parametrize("mode, reason, clock, options, words", [
    ("crash", "error", None, {}, "exited with status 3"),
    ("slow", "timeout", Clock(move_seconds=0.2), {}, "no move within 200 ms (+50 ms grace)"),
    ("hang", "timeout", None, {"move_limit_ms": 300}, "no move within 300 ms"),
    ("illegal", "illegal", None, {}, "'fire all torpedoes' is not a move"),
    ("garbage", "illegal", None, {}, "not JSON: 'e2e4'"),
    ("bad_id", "illegal", None, {}, "id 100000 is not a legal move"),
    ("protocol2", "error", None, {}, "the engine speaks protocol 2; this dealer speaks protocol 1"),
])
def test_a_misbehaving_engine_forfeits_with_its_reason_and_no_process_is_left(engines, mode, reason, clock, options,
                                                                              words):
    player = engines(mode, "naval", 1, **options)
    pid = player.pid
    start = time.monotonic()
    out = forfeit_of(player, clock=clock)
    assert out.forfeit is not None and (out.forfeit.seat, out.forfeit.reason) == (0, reason), out.forfeit
    assert words in out.forfeit.detail and out.returns == [-1.0, 1.0]
    assert out.forfeit.detail.startswith("engine '") and "misbehaving.py" in out.forfeit.detail  # names it
    assert time.monotonic() - start < 5  # a hang is cut at its limit, not waited out
    if reason == "illegal":  # it answers, if wrongly: kept for the next game, ended by close
        assert player.pid == pid and player.alive
        player.close()
    assert_gone(pid)  # the hang engine's child `sleep` went with its process group
    assert not list(replay_states(out.record))[-1].is_terminal()


def test_forfeit_details_name_the_engine_by_its_label_or_command(engines):
    slow = forfeit_of(engines("slow", "naval", 1, label="slowbot"), clock=Clock(move_seconds=0.1))
    assert slow.forfeit.detail == "engine 'slowbot' (slow): no move within 100 ms (+50 ms grace)"
    mute = engines("nohello", "naval", 1, start_timeout_s=0.3)
    out = forfeit_of(mute)
    assert out.forfeit.reason == "error" and out.forfeit.detail.startswith("engine '")
    assert out.forfeit.detail.endswith("misbehaving.py nohello': no hello within 0.3 s of starting")


def test_a_stale_answer_is_dropped_not_taken_as_the_next_move(engines):
    """An engine that answers twice: the late copy echoes an earlier request's number and is dropped."""
    honest = forfeit_of(engines("echo", "naval", 1))
    player = engines("double", "naval", 1, transcript=None)
    double = forfeit_of(player)
    assert double.forfeit is None and double.moves == honest.moves
    assert player.stale >= len(double.moves) // 3  # most of its requests had a stale line before the answer


def test_two_answers_at_once_without_request_numbers_the_second_is_dropped(engines):
    honest = forfeit_of(engines("normal", "naval", 1))
    twice = forfeit_of(engines("twice", "naval", 1))
    assert twice.forfeit is None and twice.moves == honest.moves


def test_an_extra_answer_finished_only_after_the_next_request_is_dropped(engines):
    """An engine whose extra line is split across writes (unbuffered output): the line was begun before the
    next request was sent, so it cannot answer it, even though its newline arrives after."""
    honest = forfeit_of(engines("normal", "naval", 1))
    split = forfeit_of(engines("split", "naval", 1))
    assert split.forfeit is None and split.moves == honest.moves


def test_stderr_goes_to_a_file_rotated_at_its_cap(engines, tmp_path):
    log = tmp_path / "bot.stderr"
    player = engines("noisy", "naval", 1, stderr=log, stderr_cap=64 * 1024)  # 20 kB a move
    assert forfeit_of(player).forfeit is None
    player.close()
    rotated = tmp_path / "bot.stderr.1"
    assert rotated.exists() and log.stat().st_size <= 64 * 1024 and rotated.stat().st_size <= 64 * 1024
    assert "x" * 1000 in log.read_text()
    crash_log = tmp_path / "crash.stderr"
    crash = engines("crash", "naval", 1, stderr=crash_log)
    assert forfeit_of(crash).forfeit.reason == "error"
    lines = crash_log.read_text().splitlines()  # the dealer's notes: when it started, why it was ended
    assert lines[0].startswith("[cardwar] started ") and lines[-1].startswith("[cardwar] killed: error: ")


def test_an_answer_inside_the_grace_is_still_a_timeout_but_the_engine_is_kept(engines):
    player = engines("late", "naval", 1, grace_ms=3000)  # answers after 300 ms
    pid = player.pid
    out = forfeit_of(player, clock=Clock(move_seconds=0.1))
    assert (out.forfeit.reason, player.pid, player.starts) == ("timeout", pid, 1)
    assert "of 100 ms" in out.forfeit.detail


def test_a_well_behaved_engine_may_write_info_log_and_blank_lines_and_answer_by_id(engines):
    out = forfeit_of(engines("chatty", "naval", 1))
    assert out.forfeit is None and out.moves


@pytest.mark.parametrize("mode", ["crash", "slow"])
def test_after_a_failure_the_next_game_gets_a_fresh_process(engines, mode):
    player = engines(mode, "naval", 1)
    first = player.pid
    out = forfeit_of(player, clock=Clock(move_seconds=0.2))
    assert out.forfeit is not None and player.pid is None
    player.game_over(out.record.result)
    player.new_game()  # restarts it outside any move's clock
    assert player.pid not in (None, first) and player.starts == 2
    second = forfeit_of(player, clock=Clock(move_seconds=0.2))
    assert second.forfeit is not None and second.forfeit.reason == out.forfeit.reason  # the same engine again
    assert_gone(first)


def test_an_engine_that_will_not_start_forfeits_for_error_then_is_tried_again(engines, tmp_path):
    missing = tmp_path / "gone.py"
    missing.write_text("")
    player = engines(f"engine:/bin/sh {missing}", "naval", 1)  # exits at once: no hello
    out = forfeit_of(player)
    assert out.forfeit.reason == "error" and "hello" in out.forfeit.detail
    assert forfeit_of(player).forfeit.reason == "error" and player.starts == 2


def test_close_ends_the_process_group_and_a_closed_engine_is_gone(engines):
    player = engines("hang", "naval", 1)
    pid = player.pid
    with player:
        pass
    assert_gone(pid)
