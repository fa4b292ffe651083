"""Worker processes that cannot outlive the trainer, and that report their failures in one line.

Every process the trainer forks (the envs of :class:`WorkerVecEnv`, the game players of
:class:`WorkerPool`) starts with :func:`worker_setup`:

- it dies with the trainer: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` on Linux, a watchdog thread on
  the parent's pid elsewhere, and the trainer kills its workers in a ``finally`` besides;
- it ignores SIGINT (Ctrl-C reaches the whole terminal process group; the trainer handles it and
  saves), but keeps the default SIGTERM, so ``kill PID`` of a worker ends it;
- it runs torch on one thread (the workers share the cores).

A worker that fails sends ``"ExceptionType: message"`` to the trainer before it exits, which
raises :class:`WorkerError` with that line, instead of a traceback per process or a hang.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

PR_SET_PDEATHSIG = 1
_live: weakref.WeakSet = weakref.WeakSet()  # every worker started here, for an emergency stop


class WorkerError(RuntimeError):
    """A worker process failed or died; the message is one line saying which and why."""


def describe(err: BaseException) -> str:
    """``"ValueError: first line of the message"``."""
    text = str(err).strip().splitlines()
    return f"{type(err).__name__}: {text[0]}" if text else type(err).__name__


def worker_setup(parent_pid: int) -> None:
    """Call first in every worker: die with the parent, leave Ctrl-C to it, one torch thread."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(signal, "pthread_sigmask"):  # blocked by :func:`start` around the fork
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    if not _set_parent_death_signal():
        threading.Thread(target=_watch_parent, args=(parent_pid,), daemon=True).start()
    if os.getppid() != parent_pid:  # the parent died before the death signal was armed
        os._exit(1)
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def _set_parent_death_signal() -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(1.0)
    os._exit(1)


def stop_processes(processes: Iterable[mp.process.BaseProcess], grace: float = 2.0) -> None:
    """End ``processes``: wait ``grace`` seconds for those already stopping, then SIGTERM, then SIGKILL."""
    processes = [p for p in processes if p.pid is not None]
    deadline = time.monotonic() + grace
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
    for p in processes:
        if p.is_alive():
            p.terminate()
    deadline = time.monotonic() + 2.0
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.kill()
            p.join(5.0)


def kill_all_now() -> None:
    """SIGKILL every live worker started by this process (a second Ctrl-C: no time to wait)."""
    for p in list(_live):
        try:
            if p.pid is not None and p.is_alive():
                p.kill()
        except (OSError, ValueError, AssertionError):
            pass


def exit_reason(process: mp.process.BaseProcess) -> str:
    """How a dead worker ended, in words."""
    code = process.exitcode
    if code is None:
        return "stopped answering"
    if code < 0:
        try:
            return f"was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"was killed by signal {-code}"
    return f"exited with status {code}"


def start(target: Callable[..., None], args: tuple, name: str) -> mp.process.BaseProcess:
    """Fork a daemon worker running ``target(*args)``; it is tracked for :func:`kill_all_now`."""
    process = mp.get_context("fork").Process(target=target, args=args, name=name, daemon=True)
    # Signals wait (blocked) across the fork: the parent handles them after it, the child once it is set up.
    blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM}) \
        if hasattr(signal, "pthread_sigmask") else None
    try:
        process.start()
    finally:
        if blocked is not None:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)
    _live.add(process)
    return process


# ---------------------------------------------------------------------------------------------- job pool
def _pool_worker(conn: Connection, fn: Callable[[Any], Any], parent_pid: int, inherited: list[Connection],
                 on_exit: Callable[[], None] | None = None) -> None:
    for other in inherited:  # the parent's ends of earlier workers' pipes: theirs alone to hold
        other.close()
    worker_setup(parent_pid)
    try:
        while True:
            try:
                message = conn.recv()
            except EOFError:
                break
            if message is None:
                break
            index, job = message
            try:
                conn.send(("ok", index, fn(job)))
            except Exception as err:  # noqa: BLE001 - reported to the parent in one line
                conn.send(("error", index, describe(err)))
                break
    finally:
        conn.close()
        if on_exit is not None:  # os._exit skips atexit: what the worker kept (an engine process) ends here
            try:
                on_exit()
            except Exception:  # noqa: BLE001 - the worker is leaving either way
                pass
        os._exit(0)


class WorkerPool:
    """``workers`` forked processes running ``fn(job)``, one job at a time each.

    Use as a context manager: leaving it (normally, by an exception or by Ctrl-C) ends every
    worker. ``fn`` must be a module-level function (it is looked up again in the child);
    ``on_exit`` runs in each worker as it leaves (e.g. to end the engines it kept).
    """

    def __init__(self, fn: Callable[[Any], Any], workers: int, name: str = "worker",
                 on_exit: Callable[[], None] | None = None) -> None:
        self.name = name
        self.conns: list[Connection] = []
        self.processes: list[mp.process.BaseProcess] = []
        parent = os.getpid()
        for k in range(max(1, workers)):
            ours, theirs = mp.get_context("fork").Pipe()
            self.processes.append(start(_pool_worker, (theirs, fn, parent, list(self.conns), on_exit),
                                        f"{name}-{k}"))
            theirs.close()
            self.conns.append(ours)

    def __enter__(self) -> WorkerPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def imap_unordered(self, jobs: list[Any]) -> Iterator[tuple[int, Any]]:
        """``(index, fn(jobs[index]))`` as they finish; :class:`WorkerError` if a job fails or a worker dies."""
        pending = list(enumerate(jobs))[::-1]
        busy: dict[int, int] = {}  # worker -> job index
        for w in range(len(self.conns)):
            if pending:
                self._send(w, pending.pop(), busy)
        from cardwar.training.interrupts import raise_if_lost  # (interrupts imports this module)

        while busy:
            raise_if_lost()  # a Ctrl-C that came as a worker was forked
            ready = wait([self.conns[w] for w in busy] + [self.processes[w].sentinel for w in busy])
            for w in list(busy):
                conn = self.conns[w]
                if conn in ready or conn.poll():
                    try:
                        status, index, result = conn.recv()
                    except (EOFError, OSError):
                        raise WorkerError(f"{self.name} worker {w} {self._reason(w)}") from None
                    if status == "error":
                        raise WorkerError(f"{self.name} worker {w} failed: {result}")
                    del busy[w]
                    yield index, result
                    if pending:
                        self._send(w, pending.pop(), busy)
                elif self.processes[w].sentinel in ready:
                    raise WorkerError(f"{self.name} worker {w} {self._reason(w)}")

    def _send(self, w: int, item: tuple[int, Any], busy: dict[int, int]) -> None:
        try:
            self.conns[w].send(item)
        except OSError:
            raise WorkerError(f"{self.name} worker {w} {self._reason(w)}") from None
        busy[w] = item[0]

    def _reason(self, w: int) -> str:
        self.processes[w].join(1.0)
        return exit_reason(self.processes[w])

    def close(self) -> None:
        """Tell idle workers to stop, then end any that are still running."""
        for conn in self.conns:
            try:
                conn.send(None)
            except OSError:
                pass
        stop_processes(self.processes, grace=3.0)  # time for on_exit (ending kept engines takes about 1 s)
        for conn in self.conns:
            conn.close()
