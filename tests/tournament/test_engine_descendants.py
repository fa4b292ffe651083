"""No engine process, nor anything an engine started, outlives a tournament (issue 28 item 4).

The engine entrant here (``tests/engine/unruly.py``) starts a child that calls ``setsid()``
and a double-forked daemon, and ignores ``quit``, the end of its input and SIGTERM. After a
run that ends normally nothing of it is left; after the dealer is killed with ``kill -9`` in
the middle of a run (two workers), nothing is left a few seconds later. Processes are found
by a marker in their environment, and killed in the end whatever happened.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.engine.unruly import MARKER, marked, token, wait_for, write_script  # noqa: F401 (token: a fixture)
from tests.tournament.test_failures import cardwar

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the keeper is Linux's subreaper")



def _args(tmp_path, mode: str, pairs: int, workers: int) -> list[str]:
    script = write_script(tmp_path)
    return ["tournament", "--game", "naval", "--entrant", "r=random", "--entrant",
            f"u=engine:{sys.executable} {script} {mode}", "--pairs", str(pairs), "--workers", str(workers),
            "--quiet", "--rounds", "10", "--db", str(tmp_path / "t.sqlite"), "--out", str(tmp_path / "out")]


def test_after_a_run_nothing_an_engine_started_is_left(tmp_path, token, monkeypatch):
    monkeypatch.setenv(MARKER, token)
    done = cardwar(*_args(tmp_path, "stubborn,setsid,daemon", pairs=2, workers=2), cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "4 games in 2 duplicate pairs" in (tmp_path / "out" / "report.md").read_text()
    assert marked(token) == []


def test_a_dealer_killed_with_sigkill_leaves_no_engine_or_descendant(tmp_path, token):
    env = {**os.environ, MARKER: token, "UNRULY_MOVE_S": "0.01"}
    dealer = subprocess.Popen([sys.executable, "-m", "cardwar", *_args(tmp_path, "stubborn,setsid,daemon", pairs=500,
                                                                       workers=2)],
                              stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                              cwd=tmp_path, start_new_session=True)
    try:
        # the dealer, its two workers, and at least one engine with its keeper, setsid child and daemon
        assert wait_for(lambda: len(marked(token)) >= 3 + 4 or dealer.poll() is not None, 120), marked(token)
        assert dealer.poll() is None, dealer.stderr.read()[-2000:]
        engines = [p for p in marked(token) if p != dealer.pid]
        dealer.kill()  # kill -9, the dealer alone: it cleans up nothing
        dealer.wait()
        assert wait_for(lambda: marked(token) == [], 10), f"left running: {marked(token)} of {engines}"
    finally:
        dealer.kill()
        dealer.wait()
        dealer.stderr.close()
