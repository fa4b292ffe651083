"""The dealer's side: an external program as a player (``engine:CMD``), driven over the engine protocol.

:class:`EngineAgent` starts the program, shakes hands, tells it each new game,
sends each move request with the seat's view only, and turns anything that goes
wrong into a :class:`cardwar.arena.PlayerFailure` with a forfeit reason:

- ``error``: it would not start, answered the hello wrongly, crashed or closed its pipes;
- ``timeout``: no move within the budget plus :data:`GRACE_MS` (or ``move_limit_ms`` when
  the game has no clock); it is killed, its whole process group with it;
- ``illegal``: the answer is not a JSON move message or names no legal move.

After ``error`` or a ``timeout`` that killed it the process is gone, and the next
game starts a fresh one; after ``illegal`` (or an answer late but inside the grace)
the process is kept for the next game. Each move request carries a ``request``
number; an answer that echoes another number is stale (an engine that answered
twice) and is dropped. A tournament reuses one agent for many games
(:func:`cardwar.players.seat_player` keeps one per worker process)::

    player = make_player("engine:python bot.py", "naval", seed=s)   # starts it, hello
    for each game:
        player.new_game(seed=...)     # optional: the next game's seed; restarts a failed engine now
        outcome = play_game(env, (player, other), ...)
        player.game_over(outcome.record.result)
    player.close()                    # quit, then kill the group (also on `with`, and at exit)
"""

from __future__ import annotations

import os
import shlex
import shutil
import time
from collections.abc import Sequence
from typing import IO, Any, NoReturn

import numpy as np

from cardwar.agents.spec import AgentSpecError
from cardwar.arena.game import PlayerFailure
from cardwar.engine import protocol
from cardwar.engine.process import STDERR_CAP, EngineClosed, EngineProcess, EngineTimeout

GRACE_MS = 50
"""Transport slack: an engine is killed only when ``time_ms`` + this has passed without an answer.
An answer inside the grace is still a timeout forfeit (the engine is kept for the next game)."""


def parse_engine_command(command: str) -> list[str]:
    """The argv of an engine command (shell-like quoting, no shell); one-line :class:`AgentSpecError` if bad."""
    if not isinstance(command, str) or not command.strip():
        raise AgentSpecError("engine: needs a command, e.g. engine:python mybot.py")
    try:
        argv = shlex.split(command)
    except ValueError as err:
        raise AgentSpecError(f"engine command {command.strip()!r}: {str(err).lower()}") from None
    if not argv:
        raise AgentSpecError("engine: needs a command, e.g. engine:python mybot.py")
    program = argv[0]
    found = os.access(program, os.X_OK) and os.path.isfile(program) if os.sep in program else shutil.which(program)
    if not found:
        raise AgentSpecError(f"engine command {command.strip()!r}: no program {program!r} "
                             f"({'not an executable file' if os.sep in program else 'not found on PATH'})")
    return argv


class EngineAgent:
    """An engine process playing one seat of ``game``; ``seed`` is the engine's own seed, sent in ``new_game``."""

    def __init__(self, command: str | Sequence[str], game: str, seed: int | None = None, *,
                 rules: dict[str, Any] | None = None, move_limit_ms: int = 60_000, grace_ms: int = GRACE_MS,
                 start_timeout_s: float = 30.0, quit_timeout_s: float = 1.0,
                 stderr: str | os.PathLike | None = None, stderr_cap: int = STDERR_CAP,
                 transcript: str | os.PathLike | None = None, label: str | None = None,
                 cwd: str | os.PathLike | None = None, env: dict[str, str] | None = None) -> None:
        self.argv = parse_engine_command(command) if isinstance(command, str) else list(command)
        self.game, self.seed, self.rules = game, seed, rules
        self.name, self.author = "engine", None
        self.label = label
        """What forfeit details call the engine (a tournament's entrant name); default its command."""
        self.move_limit_ms, self.grace_ms = move_limit_ms, grace_ms
        self.start_timeout_s, self.quit_timeout_s = start_timeout_s, quit_timeout_s
        self._popen = {"stderr": stderr, "stderr_cap": stderr_cap, "cwd": cwd, "env": env}
        self._transcript: IO[str] | None = open(transcript, "a", buffering=1) if transcript else None  # noqa: SIM115
        self.starts = 0
        """Processes started so far (1 + restarts)."""
        self.stale = 0
        """Stale answers dropped so far (answers echoing an earlier request)."""
        self._proc: EngineProcess | None = None
        self._start_error: str | None = None
        self._in_game = False
        self._history: list[str] | None = None
        self._seen = self._turn = self._request = 0
        self._names = protocol.notation_table(game)  # built now, not on the first move's clock
        self._start()

    # ------------------------------------------------------------ the arena's interface
    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """A move with no clock (bounded by ``move_limit_ms``)."""
        return self.act_within(observation, view, None, None)

    def act_within(self, observation: dict[str, np.ndarray], view: Any, budget_ms: int | None,
                   history: list[str] | None) -> int:
        """The engine's move for this seat; :class:`PlayerFailure` (error, timeout, illegal) if it gives none."""
        start = time.monotonic()
        limit = self.move_limit_ms if budget_ms is None else budget_ms + self.grace_ms
        deadline = start + limit / 1000
        proc = self._ready()
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        try:
            if self._starts_game(history, view):
                self._send(protocol.new_game(self.game, view, self.seed), deadline)
                self._in_game = True
            self._stale(proc)
            self._request += 1
            self._send(protocol.move_request(self.game, view, history or [], legal, budget_ms,
                                             request=self._request, moves=getattr(history, "moves", None)),
                       deadline)
            action = self._answer(legal, deadline)
        except EngineTimeout:
            self._fail("timeout", f"no move within {limit} ms" if budget_ms is None
                       else f"no move within {budget_ms} ms (+{self.grace_ms} ms grace)")
        except EngineClosed as err:
            self._fail("error", str(err))
        except protocol.ProtocolError as err:
            self._fail("illegal", str(err), kill=False)  # it answers, wrongly: kept for the next game
        self._history, self._seen, self._turn = history, len(history or ()), view.turn
        spent = (time.monotonic() - start) * 1000
        if budget_ms is not None and spent > budget_ms:
            raise PlayerFailure("timeout", f"{self.who}: answered in {spent:.0f} ms of {budget_ms} ms")
        return action

    # ------------------------------------------------------------ games and the process's life
    def new_game(self, seed: int | None = None) -> None:
        """The next call starts a new game (with ``seed`` if given); a failed engine is restarted now."""
        if seed is not None:
            self.seed = seed
        self._in_game = False
        if self._proc is None and self._start_error is None:
            self._start()

    def game_over(self, result: dict[str, Any] | None) -> None:
        """Tell the engine the game's result (it need not answer); the next move starts a new game."""
        if self._proc is not None and self._in_game:
            try:
                self._send(protocol.game_over(result), time.monotonic() + 1.0)
            except (EngineTimeout, EngineClosed):
                self._kill()
        self._in_game = False

    def close(self) -> None:
        """Send quit, give the engine ``quit_timeout_s`` to exit, then kill its process group (idempotent)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                self._send(protocol.QUIT, time.monotonic() + self.quit_timeout_s, proc)
                proc.wait_exit(self.quit_timeout_s)
            except (EngineTimeout, EngineClosed):
                pass
            proc.kill()
        if self._transcript is not None:
            self._transcript.close()
            self._transcript = None

    def __enter__(self) -> EngineAgent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def who(self) -> str:
        """The engine as forfeit details name it: its label (entrant name) or its command (paths by their
        last part), and the name it gave in its hello."""
        base = self.label or shlex.join(os.path.basename(a) if os.sep in a else a for a in self.argv)
        base = base if len(base) <= 100 else base[:48] + "..." + base[-49:]
        return f"engine {base!r}" + (f" ({self.name})" if self.name != "engine" else "")

    @property
    def alive(self) -> bool:
        """A process is running (started, and not seen to end)."""
        return self._proc is not None and self._proc.alive

    def abandon(self) -> None:
        """Forget the process without ending it (a forked child's copy of its parent's engine)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.abandon()
        if self._transcript is not None:
            self._transcript = None

    @property
    def pid(self) -> int | None:
        """The running engine's process id (also its process group's), or None."""
        return None if self._proc is None else self._proc.pid

    def __repr__(self) -> str:
        return f"EngineAgent({shlex.join(self.argv)!r}, {self.game!r}, name={self.name!r})"

    # ------------------------------------------------------------ inside
    def _start(self) -> None:
        """Start the program and shake hands; a failure is kept for the next move to report."""
        try:
            self._proc = EngineProcess(self.argv, **self._popen)  # type: ignore[arg-type]
        except OSError as err:
            self._start_error = f"cannot start {shlex.join(self.argv)!r}: {err.strerror or err}"
            return
        self.starts += 1
        self._in_game = False
        self._proc.note(f"started {shlex.join(self.argv)} (pid {self._proc.pid}, start {self.starts})")
        deadline = time.monotonic() + self.start_timeout_s
        rules = self.rules if self.rules is not None else _default_rules(self.game)
        try:
            self._send(protocol.hello(self.game, rules), deadline)
            self.name, self.author = protocol.check_engine_hello(self._read(deadline))
        except EngineTimeout:
            self._start_error = f"no hello within {self.start_timeout_s:g} s of starting"
        except (EngineClosed, protocol.ProtocolError) as err:
            self._start_error = f"hello: {err}"
        if self._start_error is not None:
            self._proc.note(self._start_error)
            self._kill()

    def _ready(self) -> EngineProcess:
        if self._start_error is None and (self._proc is None or not self._proc.alive):
            self._kill()
            self._start()
        if self._start_error is not None:
            error, self._start_error = self._start_error, None  # the next game tries a fresh start
            raise PlayerFailure("error", f"{self.who}: {error}")
        assert self._proc is not None
        return self._proc

    def _starts_game(self, history: list[str] | None, view: Any) -> bool:
        """Whether this move is the first of a game: none is open, or the arena's history list is a new one
        no longer than the last (without a history: the turn went back)."""
        if not self._in_game:
            return True
        if history is None:
            return view.turn < self._turn
        return history is not self._history and len(history) <= self._seen

    def _stale(self, proc: EngineProcess) -> None:
        """Drop lines written since the last answer (an engine's extra output must not answer the next request)."""
        for line in proc.pending_lines():
            self._log("<", line)

    def _answer(self, legal: list[int], deadline: float) -> int:
        """The action the answer to the outstanding request names; answers to earlier requests are dropped."""
        while True:
            msg = self._read(deadline)
            if msg["type"] == "move" and not protocol.answers_request(msg, self._request):
                self.stale += 1
                self._log("#", f"dropped: answers request {msg.get('request')!r}, not {self._request}".encode())
                continue
            names = self._names
            return protocol.answer_action(self.game, msg, {names[a]: a for a in legal}, set(legal))

    def _read(self, deadline: float) -> dict[str, Any]:
        """The next message that is not an ``info``/``log`` line (or a blank one)."""
        assert self._proc is not None
        while True:
            line = self._proc.read_line(deadline)
            self._log("<", line)
            if not line.strip():
                continue
            msg = protocol.decode(line)
            if msg["type"] not in protocol.IGNORED_TYPES:
                return msg

    def _send(self, message: dict[str, Any], deadline: float, proc: EngineProcess | None = None) -> None:
        data = protocol.encode(message)
        self._log(">", data)
        (proc or self._proc).send(data, deadline)  # type: ignore[union-attr]

    def _log(self, direction: str, line: bytes) -> None:
        if self._transcript is not None:
            self._transcript.write(f"{direction} {line.decode('utf-8', 'replace').rstrip()}\n")

    def _fail(self, reason: str, detail: str, kill: bool = True) -> NoReturn:
        if kill:
            if self._proc is not None:
                self._proc.note(f"killed: {reason}: {detail}")
            self._kill()
        raise PlayerFailure(reason, f"{self.who}: {detail}")

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        self._in_game = False
        if proc is not None:
            proc.kill()


def _default_rules(game: str) -> dict[str, Any]:
    from cardwar import games

    return games.get(game).default_rules()
