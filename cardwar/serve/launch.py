"""Start ``cardwar serve`` as a child process on a free loopback port (for tests, benchmarks, examples).

The child runs in its own process group and is killed whole when the context ends,
also when the caller fails, so no server is ever left running.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from types import TracebackType


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class ServerProcess:
    """``with ServerProcess(db) as server: server.url ...``; ``restart()`` kills it and starts it again on
    the same port and database (``hard=True``: SIGKILL, no clean shutdown)."""

    def __init__(self, db: str | Path, *args: str, port: int | None = None, log: str | Path | None = None,
                 start_timeout: float = 60.0) -> None:
        self.db, self.args = Path(db), list(args)
        self.port = port or free_port()
        self.log_path = Path(log) if log else self.db.with_suffix(".log")
        self.start_timeout = start_timeout
        self.proc: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> ServerProcess:
        argv = [sys.executable, "-m", "cardwar", "serve", "--port", str(self.port), "--db", str(self.db),
                "--log-level", "warning", *self.args]
        log = open(self.log_path, "a")  # noqa: SIM115 - the child writes it for its whole life
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=log, stderr=log, start_new_session=True)
        log.close()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"cardwar serve exited with {self.proc.returncode}: "
                                   f"{self.log_path.read_text()[-2000:]}")
            try:
                with urllib.request.urlopen(self.url + "/api/health", timeout=2) as r:
                    if json.load(r).get("ok"):
                        return self
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"cardwar serve did not answer within {self.start_timeout:g} s")

    def stop(self, hard: bool = False) -> None:
        """End the server and everything in its process group (SIGTERM then SIGKILL; ``hard``: SIGKILL at once)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL if hard else signal.SIGTERM)
            self.proc.wait(timeout=10)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.proc = None

    def restart(self, hard: bool = True) -> None:
        self.stop(hard=hard)
        self.start()

    def __enter__(self) -> ServerProcess:
        return self.start()

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        self.stop()
