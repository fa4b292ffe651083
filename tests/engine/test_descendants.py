"""Every process an engine starts ends with it, whatever it does (issue 28 item 4).

The engine runs under its keeper (``cardwar/engine/reaper.py``), the child subreaper of its
whole tree: a child that calls ``setsid()`` (out of the engine's process group, which a
group kill used to miss), a daemon made by double fork, an engine that ignores ``quit``,
the end of its input and SIGTERM. Each is ended when the engine is closed, when it crashes,
and when the process that started it is killed with ``kill -9``. Processes are found by a
marker in their environment.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from cardwar.engine.process import EngineProcess
from tests.engine.unruly import MARKER, marked, token, wait_for, write_script  # noqa: F401 (token: a fixture)

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper is Linux's subreaper")



def _hello(proc: EngineProcess) -> bytes:
    import time

    proc.send(b'{"type": "hello", "protocol": 1, "game": "naval", "rules": {}}\n', time.monotonic() + 30)
    return proc.read_line(time.monotonic() + 30)


def _outside_group(token: str, group: int) -> list[int] | None:
    """The marked processes outside process group ``group``; None while one of them is ending."""
    found = []
    for pid in marked(token):
        try:
            if os.getpgid(pid) != group:
                found.append(pid)
        except ProcessLookupError:
            return None
    return found


@pytest.mark.parametrize("mode", ["setsid", "daemon", "stubborn,setsid,daemon"])
def test_closing_an_engine_ends_every_process_it_started(tmp_path, token, mode):
    script = write_script(tmp_path)
    proc = EngineProcess([sys.executable, str(script), mode], env={**os.environ, MARKER: token})
    try:
        assert b"unruly" in _hello(proc)
        expected = 2 + mode.count("setsid") + mode.count("daemon")  # keeper, engine, and what it left running
        # the daemon's middle fork exits on its own: wait until the tree is settled and every pid readable
        assert wait_for(lambda: len(marked(token)) == expected and _outside_group(token, proc.pid), 30), \
            marked(token)
        assert proc.pid in marked(token)
        # the setsid child and the daemon are outside the engine's process group
    finally:
        proc.kill()
    assert marked(token) == []


def test_an_engine_that_crashes_takes_its_setsid_child_with_it(tmp_path, token):
    script = write_script(tmp_path)
    proc = EngineProcess([sys.executable, str(script), "setsid,daemon"], env={**os.environ, MARKER: token})
    try:
        _hello(proc)
        assert wait_for(lambda: len(marked(token)) == 4, 30)  # keeper, engine, setsid child, daemon
        os.kill(proc.pid, signal.SIGKILL)  # the engine alone dies
        assert proc.wait_exit(30)  # its keeper exits once everything below it is gone
        assert marked(token) == []
        assert "killed by signal 9" in proc._exit_note()  # the keeper exits as the engine did
    finally:
        proc.kill()


def test_a_program_that_cannot_be_executed_raises_as_popen_would(tmp_path):
    script = tmp_path / "not_executable"
    script.write_text("#!/bin/sh\n")
    with pytest.raises(PermissionError):
        EngineProcess([str(script)])
    with pytest.raises(FileNotFoundError):
        EngineProcess([str(tmp_path / "nothing here")])


DEALER = textwrap.dedent(r"""
    import sys, time
    from cardwar.engine.process import EngineProcess
    procs = [EngineProcess([sys.executable, sys.argv[1], "stubborn,setsid,daemon"]) for _ in range(2)]
    for p in procs:
        p.send(b'{"type": "hello", "protocol": 1, "game": "naval", "rules": {}}\n', time.monotonic() + 30)
        p.read_line(time.monotonic() + 30)
    print("ready", flush=True)
    time.sleep(300)
""")


def test_killing_the_dealer_with_sigkill_ends_every_engine_and_descendant(tmp_path, token):
    """The engines ignore the end of their input and SIGTERM; the dealer gets no chance to clean up."""
    script = write_script(tmp_path)
    dealer = subprocess.Popen([sys.executable, "-c", DEALER, str(script)], stdout=subprocess.PIPE, text=True,
                              env={**os.environ, MARKER: token}, start_new_session=True)
    try:
        assert dealer.stdout.readline().strip() == "ready"
        assert wait_for(lambda: len(marked(token)) == 1 + 2 * 4, 30), marked(token)  # the dealer, 2 x 4 below it
        dealer.kill()  # kill -9: the dealer only
        dealer.wait()
        assert wait_for(lambda: marked(token) == [], 10), f"left running: {marked(token)}"
    finally:
        dealer.kill()
        dealer.wait()
