"""An engine's keeper (Linux): it starts the engine and ends every process the engine ever starts.

Run by :class:`cardwar.engine.process.EngineProcess` as ``python -I -S reaper.py FD DEALER_PID
PROGRAM ARGS...`` (standard library only: a bare interpreter and ``ctypes``). It makes itself the
engine's *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``, as ``tini`` and systemd do), so
every descendant the engine leaves behind, whatever it does (a new session with ``setsid``, a
double fork), is re-parented to it instead of to init and stays in its tree. The engine is
started in a session of its own (its process id is its group's, as before) with the parent-death
signal ``SIGKILL`` set, so it cannot outlive its keeper.

The keeper writes ``ok PID`` (or ``error ERRNO``, the engine could not be executed) on ``FD`` and
then waits. It ends everything below it - SIGKILL to each descendant, again until it has no child
left - when:

- the engine exits (so the dealer sees it end at once, the keeper's exit status being the
  engine's: its code, or the same signal);
- the dealer asks (``SIGTERM``, ``SIGHUP`` or ``SIGINT``);
- the dealer is gone, ``kill -9`` included (a pidfd on it; polled where there is none).

What it cannot stop is an engine that kills its keeper on purpose: run engines you do not trust
in a sandbox of their own (see docs/engine-protocol.md).
"""

from __future__ import annotations

import errno
import os
import select
import signal
import sys

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
_ENDS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def _prctl(option: int, value: int) -> None:
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


def descendants(root: int) -> list[int]:
    """Every process below ``root`` (from each process's parent in ``/proc``), nearest first."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat.rsplit(b")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry))
    found, queue = [], [root]
    while queue:
        below = children.get(queue.pop(0), [])
        found += below
        queue += below
    return found


def reap(engine: int, status: int | None) -> tuple[int | None, bool]:
    """Reap every child that has ended, without waiting: (the engine's wait status if it was among them, else
    ``status``; whether no child at all is left)."""
    try:
        while True:
            pid, st = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return status, False
            if pid == engine:
                status = st
    except ChildProcessError:
        return status, True


def end_all(engine: int, status: int | None, wake: int) -> int | None:
    """SIGKILL every descendant and reap, until no child is left (orphans come to us: we are their subreaper).

    Returns the engine's wait status (``status`` if it was reaped before)."""
    while True:
        status, none_left = reap(engine, status)
        if none_left:
            return status  # no child: nothing below us is left anywhere
        for pid in descendants(os.getpid()):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        select.select([wake], [], [], 0.01)  # SIGCHLD (the wake-up pipe) or a moment
        _drain(wake)


def _drain(fd: int) -> bytes:
    out = b""
    while True:
        try:
            chunk = os.read(fd, 512)
        except (BlockingIOError, InterruptedError):
            return out
        if not chunk:
            return out
        out += chunk


def _exit_as(status: int | None) -> None:
    """Exit as the engine did: its exit code, or killed by the same signal."""
    if status is None:
        os._exit(1)
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the engine's crash, not ours: no core
        except (ImportError, ValueError, OSError):
            pass
        try:
            signal.signal(sig, signal.SIG_DFL)  # SIGKILL and SIGSTOP have no handler to reset
            signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])
        except (OSError, ValueError):
            pass
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def _exec_engine(argv: list[str], keeper: int, report: int) -> None:
    """In the forked child: a session of its own, die with the keeper, default signals, then the engine."""
    try:
        os.setsid()
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != keeper:  # the keeper died before the death signal was set
            os._exit(1)
        for sig in (signal.SIGPIPE, signal.SIGXFSZ, signal.SIGCHLD, *_ENDS):
            signal.signal(sig, signal.SIG_DFL)  # Python ignores SIGPIPE; an ignored signal would stay so
        os.execvp(argv[0], argv)
    except OSError as err:
        os.write(report, str(err.errno or errno.ENOEXEC).encode())
    finally:
        os._exit(127)


def _watch(dealer: int) -> int:
    """A pidfd on the dealer (readable once it has ended), or -1: then :func:`main` polls its parent."""
    if hasattr(os, "pidfd_open"):
        try:
            fd = os.pidfd_open(dealer)
        except OSError:
            return -1
        return fd
    return -1


def main(argv: list[str]) -> None:
    control, dealer, command = int(argv[1]), int(argv[2]), argv[3:]
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_r, False)
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    for sig in (signal.SIGCHLD, *_ENDS):
        signal.signal(sig, lambda *_: None)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    watch = _watch(dealer)
    if os.getppid() != dealer:  # the dealer is already gone: start nothing
        os._exit(1)
    report_r, report_w = os.pipe()
    keeper = os.getpid()
    engine = os.fork()
    if engine == 0:
        signal.set_wakeup_fd(-1)
        for fd in (report_r, wake_r, wake_w, control, *([watch] if watch >= 0 else [])):
            os.close(fd)
        _exec_engine(command, keeper, report_w)
    os.close(report_w)
    failed = b""
    while chunk := os.read(report_r, 64):  # closed by a successful exec, or the errno of a failed one
        failed += chunk
    os.close(report_r)
    os.write(control, f"error {int(failed)}\n".encode() if failed else f"ok {engine}\n".encode())
    os.close(control)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)  # the engine's pipes are the engine's: the dealer sees them close when it does
    os.dup2(null, 1)
    os.close(null)
    if failed:
        os.waitpid(engine, 0)
        os._exit(127)
    status = None
    while True:
        ready = select.select([wake_r] + ([watch] if watch >= 0 else []), [], [], None if watch >= 0 else 0.5)[0]
        signals = _drain(wake_r)
        ending = watch in ready or os.getppid() != dealer or any(s in signals for s in _ENDS)
        status, _ = reap(engine, status)
        if ending or status is not None:
            _exit_as(end_all(engine, status, wake_r))


if __name__ == "__main__":
    main(sys.argv)
