"""Run a command as a test's own subprocess, and end it and everything it started, even when the test fails."""

from __future__ import annotations

import os
import signal
import subprocess
from typing import Any


def run_command(argv: list[str], timeout: float = 300, input: str | None = None,  # noqa: A002
                **kwargs: Any) -> subprocess.CompletedProcess:
    """``subprocess.run`` in a new process group that is killed whole afterwards (workers included).

    A command that outlives ``timeout`` raises ``subprocess.TimeoutExpired`` as usual, after the kill.
    """
    stdin = subprocess.PIPE if input is not None else subprocess.DEVNULL
    proc = subprocess.Popen(argv, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, **kwargs)
    try:
        out, err = proc.communicate(input=input, timeout=timeout)
        return subprocess.CompletedProcess(argv, proc.returncode, out, err)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # anything the command left behind in its group
        except ProcessLookupError:
            pass
        proc.wait()
