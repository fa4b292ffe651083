"""One engine process: lines in and out with deadlines, and a kill that takes everything it started.

On Linux the engine is started under its keeper (:mod:`cardwar.engine.reaper`), a small
process that is the child subreaper of everything the engine starts: a descendant that
leaves the engine's session (``setsid``) or double-forks stays in the keeper's tree, and the
keeper ends them all when the engine exits, when it is killed, and when the dealer itself
dies, ``kill -9`` included (it watches the dealer through a pidfd). The engine also gets
the parent-death signal ``SIGKILL``, so it cannot outlive its keeper. Elsewhere the engine
runs in its own session (so its own process group), and a kill reaches that group.

Pipes are non-blocking and waited on with ``poll`` (no thread, no sleep loop), together
with a pidfd where Linux has one, so a crash is seen at once even when a child still holds
the output pipe. A finalizer ends the engine if the owner forgets to, at the latest when
Python exits; only the process that started the engine ever kills it (a forked child that
inherited the object lets it be).

The engine's stderr goes nowhere, or to a file through :class:`CappedLog`: the
dealer reads the stderr pipe whenever it waits on the engine (never blocking on
it) and keeps the file under a size cap by rotating it to ``FILE.1``.
"""

from __future__ import annotations

import math
import os
import select
import signal
import subprocess
import sys
import time
import weakref
from collections import deque
from collections.abc import Sequence
from typing import Any

MAX_LINE = 1 << 22
"""The longest line an engine may write (4 MiB); a longer one is unreadable."""

STDERR_CAP = 1 << 20
"""The size at which an engine's stderr file is rotated (1 MiB): FILE becomes FILE.1, a new FILE begins."""


class EngineTimeout(Exception):
    """The deadline passed before the engine wrote a line (or read ours)."""


class EngineClosed(Exception):
    """The engine exited or closed its pipes; the message says how."""


class CappedLog:
    """An append-only file that never grows past ``cap`` bytes: when a write would pass it, the file
    is renamed ``FILE.1`` (replacing the last one) and a new ``FILE`` begun, as logrotate does with one
    generation. Several writers (a tournament's workers) may share a path: each reopens the path when
    another has rotated it."""

    def __init__(self, path: str | os.PathLike, cap: int = STDERR_CAP) -> None:
        self.path, self.cap = os.fspath(path), max(1024, int(cap))
        self._file = open(self.path, "ab")  # noqa: SIM115

    def write(self, data: bytes) -> None:
        while data:
            if self._file.closed:
                return
            try:
                here = os.fstat(self._file.fileno())
                there = os.stat(self.path)
            except FileNotFoundError:
                here = there = None  # type: ignore[assignment]
            if here is None or (here.st_ino, here.st_dev) != (there.st_ino, there.st_dev):
                self._reopen()  # another writer rotated it
                continue
            room = self.cap - here.st_size
            if room <= 0:
                self._rotate()
                continue
            chunk, data = data[:room], data[room:]
            self._file.write(chunk)
            self._file.flush()

    def _rotate(self) -> None:
        try:
            os.replace(self.path, self.path + ".1")
        except FileNotFoundError:
            pass
        self._reopen()

    def _reopen(self) -> None:
        self._file.close()
        self._file = open(self.path, "ab")  # noqa: SIM115

    def close(self) -> None:
        self._file.close()


def _kill_group(proc: subprocess.Popen, files: tuple[Any, ...], owner: int, kept: bool = False) -> None:
    """End the engine and everything it started, and reap it.

    ``kept``: ``proc`` is the engine's keeper: asked to end (SIGTERM), it SIGKILLs every process below
    it and exits; one that does not within :data:`KEEPER_GRACE_S` is killed with its group and the
    engine's. Otherwise SIGKILL to the process group of ``proc`` (its leader not yet reaped, so the id
    is still its own). Only in the process that started it (``owner``): a forked child that inherited
    the object only closes its copies of the pipes."""
    if os.getpid() != owner:
        _close_all(files)
        return
    groups = [proc.pid]
    if kept:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=KEEPER_GRACE_S)
        except subprocess.TimeoutExpired:  # pragma: no cover - a keeper stopped or stuck in the kernel
            pass
        groups = [] if proc.returncode is not None else [proc.pid, getattr(proc, "engine_pid", proc.pid)]
    for group in groups:
        try:
            os.killpg(group, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:  # pragma: no cover - a process stuck in the kernel
        pass
    _close_all(files)


def _close_all(files: tuple[Any, ...]) -> None:
    for f in files:
        try:
            f.close()
        except OSError:
            pass


class EngineProcess:
    """A started engine: :meth:`send` and :meth:`read_line` with deadlines (``time.monotonic()`` values)."""

    def __init__(self, argv: Sequence[str], *, stderr: str | os.PathLike | None = None,
                 stderr_cap: int = STDERR_CAP, cwd: str | os.PathLike | None = None,
                 env: dict[str, str] | None = None) -> None:
        self._log: CappedLog | None = CappedLog(stderr, stderr_cap) if stderr is not None else None
        try:
            self.proc, self.pid = _start(list(argv), cwd=cwd, env=env,
                                         stderr=subprocess.DEVNULL if self._log is None else subprocess.PIPE)
        except BaseException:
            if self._log is not None:
                self._log.close()
            raise
        self.kept = self.pid != self.proc.pid
        """Under its keeper (:mod:`cardwar.engine.reaper`): ``pid`` is the engine's, ``proc`` the keeper's."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self._in, self._out = self.proc.stdin.fileno(), self.proc.stdout.fileno()
        self._err = -1 if self.proc.stderr is None else self.proc.stderr.fileno()
        os.set_blocking(self._in, False)
        os.set_blocking(self._out, False)
        self._pidfd = -1
        if hasattr(os, "pidfd_open"):
            try:
                self._pidfd = os.pidfd_open(self.proc.pid)
            except OSError:  # an old kernel: EOF on the pipe tells a crash instead
                self._pidfd = -1
        files: tuple[Any, ...] = (self.proc.stdin, self.proc.stdout)
        if self.proc.stderr is not None:
            files += (self.proc.stderr,)
        if self._pidfd >= 0:
            files += (_Fd(self._pidfd),)
        if self._log is not None:
            files += (self._log,)
        self._finalizer = weakref.finalize(self, _kill_group, self.proc, files, os.getpid(), self.kept)
        self._reader = select.poll()
        self._reader.register(self._out, select.POLLIN)
        if self._pidfd >= 0:
            self._reader.register(self._pidfd, select.POLLIN)
        self._writer = select.poll()
        self._writer.register(self._in, select.POLLOUT)
        if self._err >= 0:
            os.set_blocking(self._err, False)
            self._reader.register(self._err, select.POLLIN)
            self._writer.register(self._err, select.POLLIN)
        self._buffer = bytearray()
        self._lines: deque[bytes] = deque()
        self._partial_is_stale = False  # the line being written was begun before the last pending_lines()
        self.late: list[bytes] = []  # such lines, completed later: dropped, kept here for the transcript
        self._eof = self._exited = False

    @property
    def alive(self) -> bool:
        """Not killed, and not seen to exit or close its output."""
        return self._finalizer.alive and not (self._eof or self._exited)

    def send(self, data: bytes, deadline: float) -> None:
        """Write ``data`` whole; :class:`EngineTimeout` if the engine stops reading, :class:`EngineClosed` if gone."""
        view = memoryview(data)
        while view:
            try:
                view = view[os.write(self._in, view):]
            except BlockingIOError:
                ready = self._writer.poll(_ms_left(deadline))
                if any(fd == self._err for fd, _ in ready):
                    self._drain_stderr()  # an engine blocked on a full stderr pipe cannot read its input
                if not ready and time.monotonic() >= deadline:
                    raise EngineTimeout("the engine stopped reading its input") from None
            except (BrokenPipeError, ValueError, OSError) as err:
                raise EngineClosed(f"the engine closed its input: {self._exit_note()}") from err

    def read_line(self, deadline: float) -> bytes:
        """The next line the engine writes (without its newline), waiting until ``deadline`` at most."""
        while not self._lines:
            if self._eof or self._exited:
                self._drain()
                if self._lines:
                    break
                raise EngineClosed(f"the engine ended: {self._exit_note()}")
            left = _ms_left(deadline)
            if left <= 0:
                raise EngineTimeout("no line before the deadline")
            for fd, _ in self._reader.poll(left):
                if fd == self._out:
                    self._drain()
                elif fd == self._err:
                    self._drain_stderr()
                else:
                    self._exited = True
        return self._lines.popleft()

    def pending_lines(self) -> list[bytes]:
        """Lines already written and not yet read (read without waiting).

        A line begun but not finished is also written before now: when its end arrives it is dropped
        into :attr:`late`, so that output split across writes (an unbuffered engine) cannot answer what
        the dealer sends next."""
        self._drain_stderr()
        self._drain()
        out = [*self.late, *self._lines]
        self._lines.clear()
        self.late.clear()
        self._partial_is_stale = bool(self._buffer)
        return out

    def wait_exit(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the process to exit by itself (not reaped, so the group can still be killed)."""
        if self._pidfd < 0:
            try:
                self.proc.wait(timeout=seconds)
                return True
            except subprocess.TimeoutExpired:
                return False
        if self._exited:
            return True
        self._exited = bool(select.select([self._pidfd], [], [], max(seconds, 0.0))[0])
        return self._exited

    def kill(self) -> None:
        """Kill the whole process group and reap the engine (idempotent); its last stderr is kept."""
        if self._finalizer.alive:
            self._drain_stderr()
        self._finalizer()

    def abandon(self) -> None:
        """Forget the engine without ending it: close this process's copies of its pipes (a forked child's
        inherited engines belong to the parent)."""
        if self._finalizer.alive:
            _close_all(self._finalizer.detach()[2][1])  # type: ignore[index]

    def note(self, text: str) -> None:
        """A line of the dealer's own in the engine's stderr file (when it starts, why it was killed)."""
        if self._log is not None:
            self._log.write(f"[cardwar] {text}\n".encode())

    def _drain_stderr(self) -> None:
        """Copy what the stderr pipe holds now into the capped file (never waits)."""
        if self._err < 0 or self._log is None or not self._finalizer.alive:
            return
        while True:
            try:
                chunk = os.read(self._err, 1 << 16)
            except BlockingIOError:
                return
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                self._reader.unregister(self._err)
                self._writer.unregister(self._err)
                self._err = -1
                return
            self._log.write(chunk)

    def _drain(self) -> None:
        """Read what the pipe holds now; complete lines go to the queue."""
        while True:
            try:
                chunk = os.read(self._out, 1 << 16)
            except BlockingIOError:
                return
            except (OSError, ValueError):
                chunk = b""
            if not chunk:
                self._eof = True
                return
            self._buffer += chunk
            if b"\n" in chunk:
                *lines, rest = self._buffer.split(b"\n")
                if self._partial_is_stale:
                    self.late.append(bytes(lines.pop(0)).rstrip(b"\r"))
                    self._partial_is_stale = False
                self._lines.extend(bytes(x).rstrip(b"\r") for x in lines)
                self._buffer = bytearray(rest)
            if len(self._buffer) > MAX_LINE:
                self._lines.append(bytes(self._buffer[:200]) + b"...")
                self._buffer.clear()
                self._partial_is_stale = False

    def _exit_note(self) -> str:
        """How the engine ended, read without reaping it (its process group stays ours to kill)."""
        if self._eof and not self._exited:
            # output closed: most likely exiting, its keeper ending the rest first; wait for its status, as long
            # as the keeper is given to end everything (a busy machine can take over a second)
            self.wait_exit(KEEPER_GRACE_S)
        try:  # the keeper exits as the engine did: its code, or the same signal
            info = os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        except ChildProcessError:
            info = None
        if info is None:
            return "it closed its output"
        if info.si_code == os.CLD_EXITED:
            return f"it exited with status {info.si_status}"
        return f"it was killed by signal {info.si_status}"


KEEPER_GRACE_S = 5.0
"""How long the keeper is given to end everything below it when asked, before its group is killed outright."""

_REAPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reaper.py")


def _start(argv: list[str], *, stderr: int, cwd: str | os.PathLike | None,
           env: dict[str, str] | None) -> tuple[subprocess.Popen, int]:
    """Start ``argv`` with piped stdin and stdout: (the process we wait on, the engine's process id).

    On Linux under its keeper (the engine's pid comes back on a pipe once it has been executed; a
    program that cannot be executed raises :class:`OSError` as ``Popen`` would); elsewhere, or if
    the keeper cannot run, directly in a session of its own."""
    popen = dict(stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=stderr, bufsize=0, start_new_session=True,
                 close_fds=True, cwd=cwd, env=env)
    if not (sys.platform.startswith("linux") and sys.executable and os.path.isfile(_REAPER)):
        proc = subprocess.Popen(argv, **popen)
        return proc, proc.pid
    report_r, report_w = os.pipe()
    try:
        keeper = subprocess.Popen([sys.executable, "-I", "-S", _REAPER, str(report_w), str(os.getpid()), *argv],
                                  pass_fds=(report_w,), **popen)
    except BaseException:
        os.close(report_r)
        raise
    finally:
        os.close(report_w)
    try:
        line = _read_report(report_r, time.monotonic() + 30.0)
    finally:
        os.close(report_r)
    word, _, value = line.partition(" ")
    if word == "ok" and value.isdigit():
        keeper.engine_pid = int(value)  # type: ignore[attr-defined]
        return keeper, int(value)
    _kill_group(keeper, tuple(f for f in (keeper.stdin, keeper.stdout, keeper.stderr) if f), os.getpid())
    if word == "error" and value.isdigit():
        code = int(value)
        raise OSError(code, os.strerror(code), argv[0])
    proc = subprocess.Popen(argv, **popen)  # the keeper could not run here: the engine alone, as before
    return proc, proc.pid


def _read_report(fd: int, deadline: float) -> str:
    """The keeper's one line (``ok PID`` or ``error ERRNO``); "" if it ended or took past ``deadline``."""
    data = b""
    while not data.endswith(b"\n"):
        if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
            return ""
        chunk = os.read(fd, 64)
        if not chunk:
            return ""
        data += chunk
    return data.decode(errors="replace").strip()


class _Fd:
    """A bare file descriptor with ``close`` (for the finalizer)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def close(self) -> None:
        os.close(self.fd)


def _ms_left(deadline: float) -> int:
    """Milliseconds to ``deadline``, rounded up (poll's unit)."""
    return max(0, math.ceil((deadline - time.monotonic()) * 1000))
