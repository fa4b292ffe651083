"""One engine process per entrant, seat and worker across games (tournament pairs, a match's games), a fresh
one only after a forfeit by error or timeout, and none left running when the worker ends. A process keeps to
one seat: the two games of a duplicate pair deal the same cards (tests/hidden has the remembering attack)."""

from __future__ import annotations

import multiprocessing as mp
import time
from concurrent.futures import ProcessPoolExecutor

import pytest

from cardwar.players import close_engines, kept_engines, release_player, seat_player
from cardwar.tournament.play import play_pair
from cardwar.tournament.schedule import PairJob
from tests.engine.conftest import assert_gone, group_members, kill_groups, misbehaving_spec, notes


def jobs(spec: str, pairs: int, move_ms: int | None = None) -> list[PairJob]:
    return [PairJob(tournament="reuse", game="naval", pairing=0, pair=k, a="bot", b="rnd", spec_a=spec,
                    spec_b="random", seed=k, scenario=None, rules={}, move_ms=move_ms, game_ms=None,
                    secret="0123456789abcdef") for k in range(pairs)]


@pytest.fixture
def pidfile(tmp_path):
    """The file the misbehaving engines note their starts and ends in; every engine noted is killed at the end."""
    path = tmp_path / "pids.txt"
    try:
        yield path
    finally:
        close_engines()
        kill_groups({pid for _, pid in notes(path)})


def starts(pidfile) -> list[int]:
    return [pid for word, pid in notes(pidfile) if word == "start"]


def wait_ended(pidfile, pids, seconds: float = 5.0) -> None:
    """Each engine noted an end (quit or end of input), then is gone with its process group."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not all(any(p == pid and w != "start" for w, p in notes(pidfile))
                                                  for pid in pids):
        time.sleep(0.02)
    for pid in pids:
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    if f.read().rsplit(")", 1)[1].split()[0] == "Z":
                        break
            except OSError:
                break
            time.sleep(0.02)


def test_a_tournament_worker_plays_every_pair_with_one_engine_process_a_seat(misbehaving, pidfile, tmp_path):
    spec = misbehaving_spec(misbehaving, "echo", pidfile)
    rows = [row for job in jobs(spec, 3) for row in play_pair(job, {"stderr": str(tmp_path / "stderr")})]
    assert len(rows) == 6 and all(r.forfeit_reason is None for r in rows)
    assert len(starts(pidfile)) == 2  # six games, one process in each seat
    assert (tmp_path / "stderr" / "bot.stderr").read_text().count("[cardwar] started") == 2
    pids = [engine.pid for engine in kept_engines()]
    assert len(pids) == 2
    close_engines()  # what the worker's exit does
    for pid in pids:
        assert ("quit", pid) in notes(pidfile)
        assert_gone(pid)


def test_after_a_timeout_forfeit_the_next_game_gets_a_new_process_and_the_forfeit_names_the_entrant(
        misbehaving, pidfile):
    spec = misbehaving_spec(misbehaving, "hang_game2", pidfile)  # hangs in the second game of its life
    rows = [row for job in jobs(spec, 3, move_ms=200) for row in play_pair(job)]
    # one process a seat: each hangs in its second game (pair 1), and the third pair gets new ones
    assert [r.forfeit_reason for r in rows] == [None, None, "timeout", "timeout", None, None]
    assert rows[2].forfeit_detail.startswith("engine 'bot' (hang_game2): no move within 200 ms")
    first, second, third, fourth = starts(pidfile)
    assert_gone(first)
    assert_gone(second)
    kept = kept_engines()
    assert len(kept) == 2 and all(k.starts == 2 for k in kept)


def test_the_same_engine_in_both_seats_gets_two_processes_then_both_are_kept(misbehaving, pidfile):
    spec = misbehaving_spec(misbehaving, "echo", pidfile)
    from cardwar.arena import play_game
    from cardwar.envs import make_raw_env

    for seed in (1, 2):
        players = [seat_player(spec, "naval", seed * 10 + i) for i in (0, 1)]
        assert players[0] is not players[1]
        out = play_game(make_raw_env("naval"), players, seed, game="naval")
        assert out.forfeit is None
        for p in players:
            release_player(p, out)
    assert len(starts(pidfile)) == 2 and len(kept_engines()) == 2


def _pair_in_worker(job: PairJob) -> list[int]:
    return [len(play_pair(job))]


def test_a_process_pool_worker_keeps_its_engine_and_closes_it_at_shutdown(misbehaving, pidfile):
    spec = misbehaving_spec(misbehaving, "echo", pidfile)
    with ProcessPoolExecutor(max_workers=1, mp_context=mp.get_context("fork")) as pool:
        assert list(pool.map(_pair_in_worker, jobs(spec, 3))) == [[2], [2], [2]]
    pids = starts(pidfile)
    assert len(pids) == 2  # one a seat
    wait_ended(pidfile, pids)
    for pid in pids:
        assert ("quit", pid) in notes(pidfile)  # told to quit by the worker's exit, not left to find its input closed
        assert_gone(pid)


def test_a_tournament_pool_of_two_workers_starts_at_most_four_processes_and_none_outlives_it(misbehaving, pidfile):
    from training.workers import WorkerPool

    spec = misbehaving_spec(misbehaving, "echo", pidfile)
    with WorkerPool(play_pair, 2, name="test") as pool:
        rows = [row for _, result in pool.imap_unordered(jobs(spec, 6)) for row in result]
    assert len(rows) == 12 and all(r.forfeit_reason is None for r in rows)
    pids = starts(pidfile)
    assert 2 <= len(pids) <= 4  # one a seat in each worker
    wait_ended(pidfile, pids)
    for pid in pids:  # the workers end them on the way out (on_exit), or they see the end of their input
        assert group_members(pid) == []  # (its parent gone, it is reaped by init, or stays a zombie)


def test_engines_that_ignore_quit_and_their_input_closing_end_with_the_pool(misbehaving, pidfile):
    from training.workers import WorkerPool

    spec = misbehaving_spec(misbehaving, "stubborn", pidfile)
    with WorkerPool(play_pair, 2, name="test", on_exit=close_engines) as pool:
        rows = [row for _, result in pool.imap_unordered(jobs(spec, 6)) for row in result]
    assert len(rows) == 12
    pids = starts(pidfile)
    assert 2 <= len(pids) <= 4
    for pid in pids:  # told to quit, then, still there after its quit time, killed with its process group
        assert ("quit", pid) in notes(pidfile)
        assert_gone(pid)
