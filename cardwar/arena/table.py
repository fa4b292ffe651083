"""A game in progress, one move at a time: the env, the moves so far and what each seat has seen.

:func:`cardwar.arena.play_game` drives a :class:`Table` to the end in one call; the
server (``cardwar serve``) keeps one open between a person's moves and rebuilds it
from its record after a restart. Either way a move is checked, applied, recorded
and told to each seat the same way.
"""

from __future__ import annotations

from typing import Any

from cardwar import games
from cardwar.arena.visibility import visible_lines
from cardwar.record import GameRecord, Move, RecordError, result_of


class SeatHistory(list):
    """A seat's visible history: the public log's lines (the list itself: its own moves in notation, the
    other's as the log tells them), and ``moves``, each move in notation as that seat may know it:
    ``{"seat": "captain_a", "move": "attack H>I broadside ?"}``, one a line, in the same order."""

    def __init__(self) -> None:
        super().__init__()
        self.moves: list[dict[str, str]] = []


def seen_notation(game: str | games.Game, before: Any, action: int, after: Any, viewer: int) -> str | None:
    """The notation of ``action`` (made in ``before``, leading to ``after``) as ``viewer`` may know it then;
    None where the seat is not told of the move at all (a skirmish declaration step that caused nothing public).

    The game's ``seen_notation`` hook decides (:mod:`cardwar.games`): naval hides face-down cards as
    ``?`` (``attack H>I broadside ?``), every hex move is public as notated, and every skirmish
    step is hidden from the other seat, whose public events tell the rest.
    """
    return games.get(game).seen(before, action, after, viewer)


def notation(game: str | games.Game) -> tuple[Any, Any]:
    """``(action_to_string, string_to_action)`` of ``game``."""
    g = games.get(game)
    return g.hook("action_to_string"), g.hook("string_to_action")


def is_legal(state: Any, action: int) -> bool:
    """Whether ``action`` is legal now: the engine's ``is_legal`` where it has one, else its legal list."""
    check = getattr(state, "is_legal", None)
    if check is not None:
        return bool(check(action))
    return not state.is_terminal() and action in state.legal_actions()


class Table:
    """One game of ``env`` (a raw AEC env of ``game``, reset here with ``seed``).

    ``history[seat]`` is that seat's visible move history: its own moves in notation,
    the other's as the public log tells them (face-down cards unnamed, a hidden unit's
    move not placed), and in ``history[seat].moves`` every move in notation as that
    seat may know it (:class:`SeatHistory`). ``log`` is the public log, a line a move,
    as a spectator sees it.
    """

    def __init__(self, env: Any, game: str, seed: int, *, specs: tuple[str, str] = ("?", "?"),
                 scenario: str | None = None) -> None:
        self.env, self.game, self.seed, self.specs, self.scenario = env, game, seed, tuple(specs), scenario
        self.entry = games.get(game)
        """The game's registry entry, resolved once a table: every move reads this one."""
        self.to_str, self.parse = notation(self.entry)
        self.entry.warm()  # e.g. naval's hand tables (0.4 s, once a process): now, not on a seat's clock
        env.reset(seed=seed)
        self.seats: list[str] = list(env.possible_agents)
        self.moves: list[Move] = []
        self.history: list[SeatHistory] = [SeatHistory(), SeatHistory()]
        self.log: list[str] = []
        self._settle()

    # ------------------------------------------------------------ reading
    @property
    def state(self) -> Any:
        return self.env.game

    @property
    def over(self) -> bool:
        return bool(self.state.is_terminal())

    @property
    def to_move(self) -> int | None:
        """The seat (0 or 1) to move, or None when the game is over."""
        return None if self.over else self.seats.index(self.env.agent_selection)

    def observation(self, seat: int) -> Any:
        return self.env.observe(self.seats[seat])

    def view(self, seat: int | None) -> Any:
        """What ``seat`` may know (None: a spectator's public view)."""
        return self.state.information_view(seat)

    def legal(self) -> list[int]:
        """The legal action ids of the seat to move (none when the game is over)."""
        return [] if self.over else list(self.state.legal_actions())

    # ------------------------------------------------------------ playing
    def play(self, action: int) -> list[str]:
        """Apply the legal ``action`` of the seat to move; returns the public log lines it made.

        ValueError (the game is over, or the move is not legal) leaves the game unchanged.
        """
        if self.over:
            raise ValueError("the game is over")
        if not is_legal(self.state, int(action)):
            raise ValueError(f"{self.to_str(int(action))!r} is not a legal move now")
        seat, action = self.to_move, int(action)
        before = self.entry.snapshot(self.state)  # what the notation hooks read of the position
        self.env.step(action)
        self.moves.append(Move(self.seats[seat], self.to_str(action)))
        lines = visible_lines(self.entry, before, action, self.state)
        mover = self.entry.seats[seat]
        for k in (0, 1):  # the mover sees its move in notation, and both see what it publicly caused
            seen = seen_notation(self.entry, before, action, self.state, k)
            if seen is None:  # a hidden step that caused nothing public: not even its count is told
                continue
            self.history[k].append("; ".join([self.to_str(action), *lines[1:]]) if k == seat else "; ".join(lines))
            self.history[k].moves.append({"seat": mover, "move": seen})
        self.log.append("; ".join(lines))
        self._settle()
        return lines

    def _settle(self) -> None:
        """Step past the AEC env's dead steps (a finished seat's ``None``) so the env waits on a live move."""
        env = self.env
        while env.agents:
            _, _, term, trunc, _ = env.last()
            if not (term or trunc):
                return
            env.step(None)

    # ------------------------------------------------------------ the record
    def record(self, *, finished: bool | None = None, result: dict | None = None, quit_by: str | None = None) -> GameRecord:
        """The game record so far (``cardwar replay`` plays it back); ``result`` overrides the rules' result
        (a forfeit or a resignation)."""
        s, seats, g = self.state, self.entry.seats, self.entry
        done = self.over if finished is None else finished
        if result is None and self.over:
            result = result_of(s, seats)
        return GameRecord(game=self.game, seed=self.seed, players=dict(zip(seats, self.specs)),
                          moves=tuple(self.moves), rules=self.env.config.to_dict(), scenario=self.scenario,
                          scenario_data=None if g.scenario_data is None else g.hook("scenario_data")(s),
                          finished=done, result=result, quit_by=quit_by)

    @classmethod
    def from_record(cls, record: GameRecord) -> Table:
        """The table the record's moves lead to (:class:`RecordError` if a move does not replay)."""
        from cardwar.record import make_env

        table = cls(make_env(record), record.game, record.seed, specs=tuple(record.players.values()),  # type: ignore[arg-type]
                    scenario=record.scenario)
        for i, m in enumerate(record.moves):
            try:
                table.play(table.parse(m.move))
            except ValueError as err:
                raise RecordError(f"moves[{i}] {m.move!r}: {err}") from None
        return table
