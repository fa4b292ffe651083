"""Helpers for tests that start `cardwar train` as a real process: its output, its descendants, their end.

Every process a test starts carries ``CARDWAR_TEST_TAG=<tag>`` in its environment, and so does
every process it forks; :func:`tagged` finds them all in /proc, whoever their parent is now.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, ppid)`` of ``pid``, or None if it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text.rsplit(")", 1)[1].split()
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """``pid`` exists and is not a zombie."""
    stat = _stat(pid)
    return stat is not None and stat[0] not in ("Z", "X")


def tagged(tag: str) -> list[int]:
    """Live processes whose environment carries ``CARDWAR_TEST_TAG=tag``."""
    marker = f"CARDWAR_TEST_TAG={tag}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            environ = (entry / "environ").read_bytes()
        except OSError:
            continue
        if marker in environ.split(b"\0") and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def descendants(pid: int) -> list[int]:
    """Live processes below ``pid`` (children, their children, ...)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and (stat := _stat(int(entry.name))) is not None and stat[0] != "Z":
            parents.setdefault(stat[1], []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def wait_until(condition: Callable[[], object], timeout: float, what: str) -> object:
    """Poll ``condition`` until it is truthy; fail the test with ``what`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if value := condition():
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out after {timeout:.0f} s waiting for {what}")


class Train:
    """A running ``python -m cardwar ...`` (or a ``-c`` script) whose output lines are collected as they come."""

    def __init__(self, argv: list[str], tag: str, cwd: Path) -> None:
        env = dict(os.environ, CARDWAR_TEST_TAG=tag, PYTHONUNBUFFERED="1")
        self.proc = subprocess.Popen([sys.executable, *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True, env=env, cwd=cwd)
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [threading.Thread(target=self._read, args=(stream, lines), daemon=True)
                         for stream, lines in ((self.proc.stdout, self.out), (self.proc.stderr, self.err))]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream, lines: list[str]) -> None:
        for line in stream:
            lines.append(line.rstrip("\n"))

    @property
    def pid(self) -> int:
        return self.proc.pid

    def text(self) -> str:
        return "\n".join(self.out + self.err)

    def wait_for_line(self, pattern: str, timeout: float = 120) -> str:
        """The first output line matching ``pattern`` (a regular expression)."""
        def found() -> str | None:
            if self.proc.poll() is not None and not any(r.is_alive() for r in self._readers):
                raise AssertionError(f"exited ({self.proc.returncode}) before {pattern!r}:\n{self.text()}")
            return next((ln for ln in self.out + self.err if re.search(pattern, ln)), None)

        return wait_until(found, timeout, f"{pattern!r} in the output")  # type: ignore[return-value]

    def signal_and_wait(self, signum: int, timeout: float = 60) -> tuple[int, list[int]]:
        """Send ``signum``; its exit status and the descendants it had when the signal went."""
        below = descendants(self.pid)
        self.proc.send_signal(signum)
        return self.wait(timeout), below

    def wait(self, timeout: float = 120) -> int:
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"still running {timeout:.0f} s later (a hang):\n{self.text()}") from None
        for reader in self._readers:
            reader.join(5)
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def assert_all_ended(tag: str, pids: list[int] = (), timeout: float = 5.0) -> None:
    """No process of ours is left: none tagged, and none of ``pids`` (descendants seen before the kill)."""
    def gone() -> bool:
        return not tagged(tag) and not any(alive(p) for p in pids)

    deadline = time.monotonic() + timeout  # a worker may be a moment behind its parent
    while not gone() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = sorted(set(tagged(tag)) | {p for p in pids if alive(p)})
    for pid in left:  # end them anyway, then fail
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    assert not left, f"processes outlived the run: {left}"
