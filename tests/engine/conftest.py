"""Engines for the tests: the documented example bot, our agents served by ``cardwar engine``, and
misbehaving scripts; every process a test starts is killed with its process group when the test ends."""

from __future__ import annotations

import os
import pathlib
import shlex
import signal
import sys
import textwrap
import time
from collections.abc import Callable, Iterator

import pytest

from cardwar.players import make_player
from cardwar.engine.client import EngineAgent

REPO = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE_BOT = REPO / "docs" / "examples" / "engine_bot.py"
PYTHON = shlex.quote(sys.executable)

MISBEHAVING = textwrap.dedent('''
    import json, os, subprocess, sys, time
    mode, moves, games, last = sys.argv[1], 0, 0, None
    pidfile = sys.argv[2] if len(sys.argv) > 2 else None

    def note(word):
        if pidfile:
            with open(pidfile, "a") as f:
                f.write(f"{word} {os.getpid()}\\n")

    note("start")
    if mode == "nohello":
        time.sleep(300)
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 2 if mode == "protocol2" else 1, "name": mode}),
                  flush=True)
            if mode == "hang":
                subprocess.Popen(["sleep", "300"])  # a child in the engine's process group
        elif msg["type"] == "new_game":
            games += 1
        elif msg["type"] == "move":
            moves += 1
            legal = msg["legal"]
            answer = {"type": "move", "move": legal[0]["move"]}
            if mode in ("echo", "double", "hang_game2", "noisy", "stubborn"):
                answer["request"] = msg["request"]
            if mode == "crash" and moves == 3:
                sys.exit(3)
            if mode == "slow":
                time.sleep(1.5)
            if mode == "late":
                time.sleep(0.3)
            if mode == "hang" or (mode == "hang_game2" and games == 2):
                time.sleep(300)
            if mode == "noisy":
                sys.stderr.write("x" * 20000 + "\\n")
                sys.stderr.flush()
            if mode == "illegal":
                print(json.dumps({"type": "move", "move": "fire all torpedoes"}), flush=True)
            elif mode == "garbage":
                print("e2e4", flush=True)
            elif mode == "bad_id":
                print(json.dumps({"type": "move", "id": 100000}), flush=True)
            elif mode == "chatty":  # info and log lines, a blank line, then a move by id
                print(json.dumps({"type": "info", "depth": 3}), flush=True)
                print(json.dumps({"type": "log", "text": "thinking"}), "", sep="\\n", flush=True)
                print(json.dumps({"type": "move", "id": legal[-1]["id"]}), flush=True)
            elif mode == "double":  # the last answer again, late (stale), then this one
                if last is not None:
                    print(json.dumps(last), flush=True)
                    time.sleep(0.002)
                print(json.dumps(answer), flush=True)
                last = {**answer, "move": "pass"}
            elif mode == "split":  # an extra answer whose newline comes only after the next request
                if last is not None:
                    sys.stdout.write("\\n")
                sys.stdout.write(json.dumps(answer) + "\\n" + json.dumps({"type": "move", "move": legal[-1]["move"]}))
                sys.stdout.flush()
                last = answer
            elif mode == "twice":  # two answers at once, no request numbers: the second answers nothing
                print(json.dumps(answer) + "\\n" + json.dumps({"type": "move", "move": legal[-1]["move"]}),
                      flush=True)
            else:
                print(json.dumps(answer), flush=True)
        elif msg["type"] == "quit":
            note("quit")
            if mode == "stubborn":  # will not leave: neither quit nor the end of its input ends it
                continue
            break
    else:
        note("eof")
        if mode == "stubborn":
            time.sleep(300)
''')


def bot_spec(*args: str) -> str:
    """``engine:`` spec of the documented example bot."""
    return f"engine:{PYTHON} {shlex.quote(str(EXAMPLE_BOT))} {' '.join(args)}".rstrip()


def served_spec(game: str, agent: str) -> str:
    """``engine:`` spec of one of our agents served by ``cardwar engine``."""
    return f"engine:{PYTHON} -m cardwar engine --game {game} --agent {shlex.quote(agent)}"


def group_members(pgid: int) -> list[int]:
    """Running processes whose process group is ``pgid`` (a zombie has ended: only its status is left)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = pathlib.Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            state, _, pgrp = stat.rsplit(")", 1)[1].split()[:3]
            if int(pgrp) == pgid and state != "Z":
                found.append(int(entry))
    return found


def assert_gone(pid: int) -> None:
    """The engine process was reaped, and everything in its process group has ended.

    The engine itself is waited for; the rest of its group was sent SIGKILL with it and is given
    a moment to die (the kernel delivers the signal to each process in turn).
    """
    assert not os.path.exists(f"/proc/{pid}"), f"engine process {pid} is still there"
    deadline = time.monotonic() + 2.0
    while group_members(pid) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert group_members(pid) == [], f"processes of group {pid} are still there"


def misbehaving_spec(script: pathlib.Path, mode: str, pidfile: pathlib.Path | None = None) -> str:
    """``engine:`` spec of the misbehaving script in ``mode`` (noting its starts and ends in ``pidfile``)."""
    return f"engine:{PYTHON} {shlex.quote(str(script))} {mode}" + (f" {shlex.quote(str(pidfile))}" if pidfile else "")


def notes(pidfile: pathlib.Path) -> list[tuple[str, int]]:
    """``(word, pid)`` lines the misbehaving script wrote: ``start``, ``quit`` or ``eof``."""
    if not pidfile.exists():
        return []
    return [(w, int(p)) for w, p in (line.split() for line in pidfile.read_text().splitlines())]


def kill_groups(pids) -> None:
    """SIGKILL each process group (a test's engines, whatever happened to the test)."""
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


@pytest.fixture(autouse=True)
def no_kept_engines() -> Iterator[None]:
    """Every engine kept between games (cardwar.players) is closed when a test ends."""
    from cardwar.players import close_engines

    try:
        yield
    finally:
        close_engines()


@pytest.fixture
def misbehaving(tmp_path: pathlib.Path) -> pathlib.Path:
    """The misbehaving engine script, written to a file."""
    script = tmp_path / "misbehaving.py"
    script.write_text(MISBEHAVING)
    return script


@pytest.fixture
def engines(tmp_path: pathlib.Path) -> Iterator[Callable[..., EngineAgent]]:
    """``engines(spec_or_mode, game, seed=None, **options)``: an engine player (a misbehaving mode names the
    script above), every one closed and its process groups killed when the test ends, failed or not."""
    made: list[EngineAgent] = []
    pids: set[int] = set()
    script = tmp_path / "misbehaving.py"
    script.write_text(MISBEHAVING)

    def make(spec: str, game: str, seed: int | None = None, **options: object) -> EngineAgent:
        if not spec.startswith("engine:"):
            spec = misbehaving_spec(script, spec)
        player = make_player(spec, game, seed, **options)
        made.append(player)
        if player.pid is not None:
            pids.add(player.pid)
        return player

    try:
        yield make
    finally:
        for player in made:
            if player.pid is not None:
                pids.add(player.pid)
            player.close()
        for pid in pids:
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
