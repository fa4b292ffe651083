"""Ctrl-C and ``kill`` during a run: the first one saves what can be saved, a second one ends at once.

Inside :func:`save_on_interrupt`, SIGINT and SIGTERM raise :class:`RunInterrupted` in the trainer
(workers ignore SIGINT and leave both to it, see :mod:`cardwar.training.workers`); each phase of
the run catches it, saves, and the run prints the ``--resume`` command. A second signal while
that happens kills the workers and exits without waiting (status 128 + signal number).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from cardwar.training.workers import kill_all_now

SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []  # the signals ``first`` turned into RunInterrupted, in this process's current run


class RunInterrupted(KeyboardInterrupt):
    """Ctrl-C (SIGINT) or ``kill`` (SIGTERM) reached the trainer."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def name(self) -> str:
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """The shell's convention for a process ended by a signal: 128 + its number."""
        return 128 + self.signum


@contextmanager
def save_on_interrupt() -> Iterator[None]:
    """Turn SIGINT/SIGTERM into :class:`RunInterrupted` (once) for the duration (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in SIGNALS}

    def second(signum: int, frame: FrameType | None) -> None:
        print(f"\n{signal.Signals(signum).name} again: stopping now, without saving", file=sys.stderr, flush=True)
        kill_all_now()
        os._exit(128 + signum)

    def first(signum: int, frame: FrameType | None) -> None:
        for s in SIGNALS:
            signal.signal(s, second)
        _received.append(signum)
        raise RunInterrupted(signum)

    _received.clear()
    for s in SIGNALS:
        signal.signal(s, first)
    try:
        yield
    finally:
        _received.clear()
        for s, handler in previous.items():
            signal.signal(s, handler)


def raise_if_lost() -> None:
    """Raise again the interrupt of a signal already received, if the run is still going.

    A handler's exception is lost when the signal lands inside code that swallows it: an at-fork hook (the
    logging module's, as a worker is forked) or a finalizer prints "Exception ignored" and carries on. The
    loops that run long (each PPO step, each evaluation game) call this, so such a Ctrl-C still stops the run.
    """
    if _received:
        raise RunInterrupted(_received[-1])
