"""Game records: one played game as JSON, enough to replay it move by move.

A record names the game, its rule options, the scenario (hex game), the seed and
each seat's player spec, lists the moves in notation with the seat that made each,
and ends with the result. ``cardwar play --save FILE`` writes one; replays,
tournaments (SQLite) and the server read the same format. Format (version 1)::

    {"format": "cardwar-game-record", "format_version": 1, "cardwar_version": "0.2.0",
     "game": "naval", "rules": {...every option...}, "scenario": null, "scenario_data": null,
     "seed": 3, "players": {"captain_a": "human", "captain_b": "heuristic"},
     "moves": [{"seat": "captain_a", "move": "keep"}, ...],
     "finished": true, "quit_by": null,
     "result": {"winner": "captain_b", "returns": [-1.0, 1.0], "turns": 19, "detail": {...}}}

A game lost by forfeit (an agent that crashed, ran out of time or gave an illegal
move; see :mod:`cardwar.arena`) has ``result.forfeit`` = ``{"seat", "reason", "detail"}``
instead of ``detail``; its moves stop where the forfeit happened.

A record holds hidden information (the seed fixes the deck and the dice, and
``scenario_data`` places hidden units): it is written when the game ends, or when a
player quits (``finished`` false, ``result`` null, ``quit_by`` the seat), never shown
to a seat while the game can go on.

**Integers and JavaScript.** A JSON number is a float64 in JavaScript, exact only up to
2**53 - 1 (:data:`MAX_SAFE_INT`); a dealer's keyed deal seed has 63 bits, and ``JSON.parse``
rounded it, so a record saved by a web page no longer replayed (issue 28). So an integer
beyond that range is written as a decimal string (``"seed": "5860184471265397281"``, as
protobuf's JSON mapping writes a 64-bit integer), and read back as either: :func:`json_int`,
:func:`read_int`. Smaller ones stay numbers. The same holds for the skirmish's ``deal`` in
``scenario_data`` and for the engine protocol's ``seed``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cardwar import __version__, games

FORMAT = "cardwar-game-record"
FORMAT_VERSION = 1
MAX_SAFE_INT = 2**53 - 1
"""The largest integer a float64 (a JavaScript number) holds exactly (``Number.MAX_SAFE_INTEGER``)."""


def json_int(n: int) -> int | str:
    """``n`` as JSON that JavaScript reads exactly: the number if ``|n| <= 2**53 - 1``, else its decimal string."""
    return int(n) if -MAX_SAFE_INT <= n <= MAX_SAFE_INT else str(int(n))


def read_int(value: Any) -> int | None:
    """An integer written by :func:`json_int` (a number, or a decimal string); None if ``value`` is neither."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?[0-9]{1,40}", value):
        return int(value)
    return None
class _Seats(Mapping):
    """``SEATS[game]``: the seats of each registered game, in seat order (the env's agent names)."""

    def __getitem__(self, game: str) -> tuple[str, str]:
        if not games.known(game):
            raise KeyError(game)
        return games.get(game).seats

    def __iter__(self) -> Iterator[str]:
        return iter(games.names())

    def __len__(self) -> int:
        return len(games.names())


SEATS: Mapping[str, tuple[str, str]] = _Seats()
"""The seats of each game, in seat order (the env's agent names), from the game registry."""


class RecordError(ValueError):
    """A record that cannot be read or does not replay; the message says where."""


@dataclass(frozen=True)
class Move:
    """One move: the seat that made it and the move in the game's notation."""

    seat: str
    move: str


@dataclass(frozen=True)
class GameRecord:
    """One game, from setup to result (or to the moment a player quit)."""

    game: str
    seed: int
    players: dict[str, str]
    """Seat name -> the player's spec (``human`` for a person), in seat order."""
    moves: tuple[Move, ...]
    rules: dict[str, Any]
    """Every rule option in force (the game's config as a dict)."""
    scenario: str | None = None
    """Hex game: the scenario as asked for (a name, ``random``, or a path)."""
    scenario_data: dict[str, Any] | None = None
    """Hex game: the scenario played, in the YAML file's form, so a replay needs no file."""
    finished: bool = True
    result: dict[str, Any] | None = None
    """``winner`` (a seat or null for a draw), ``returns``, ``turns``, ``detail`` (the engine's result)."""
    quit_by: str | None = None
    cardwar_version: str = field(default=__version__)

    # ------------------------------------------------------------ JSON
    def to_dict(self) -> dict[str, Any]:
        """The record as plain JSON data: the format header, then the setup, the moves, the end."""
        return {"format": FORMAT, "format_version": FORMAT_VERSION, "cardwar_version": self.cardwar_version,
                "game": self.game, "rules": dict(self.rules), "scenario": self.scenario,
                "scenario_data": self.scenario_data, "seed": json_int(self.seed), "players": dict(self.players),
                "moves": [{"seat": m.seat, "move": m.move} for m in self.moves],
                "finished": self.finished, "quit_by": self.quit_by, "result": self.result}

    def to_json(self) -> str:
        """The record as JSON text: one field a line, one move a line."""
        data = self.to_dict()
        lines = [f" {json.dumps(k)}: {json.dumps(v)}" for k, v in data.items() if k != "moves"]
        moves = ",\n".join(f"  {json.dumps(m)}" for m in data["moves"])
        lines.insert(list(data).index("moves"), ' "moves": [' + (f"\n{moves}\n ]" if moves else "]"))
        return "{\n" + ",\n".join(lines) + "\n}"

    @classmethod
    def from_dict(cls, data: Any) -> GameRecord:
        """Check and read JSON data; :class:`RecordError` names the first bad field."""
        return _parse(data)

    @classmethod
    def from_json(cls, text: str) -> GameRecord:
        """Read JSON text; :class:`RecordError` for bad JSON or a bad field."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as err:
            raise RecordError(f"not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
        return _parse(data)

    def save(self, path: str | os.PathLike) -> Path:
        """Write the record to ``path`` (through a temporary file, so a crash leaves no half file)."""
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(self.to_json() + "\n", encoding="utf-8")
        os.replace(tmp, p)
        return p

    @classmethod
    def load(cls, path: str | os.PathLike) -> GameRecord:
        """Read a record file; :class:`RecordError` names the file and what is wrong."""
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise RecordError(f"{path}: cannot read: {getattr(err, 'strerror', None) or err}") from None
        try:
            return cls.from_json(text)
        except RecordError as err:
            raise RecordError(f"{path}: {err}") from None


def check_writable(path: str | os.PathLike, what: str = "file") -> None:
    """Raise ValueError with a one-line reason if ``path`` cannot be written (checked before a game)."""
    p = Path(path)
    folder = p.parent if str(p.parent) else Path(".")
    if p.is_dir():
        raise ValueError(f"{path} is a folder; give a {what} name")
    if not folder.is_dir():
        raise ValueError(f"cannot write {path}: no folder {folder}")
    if not os.access(folder, os.W_OK) or (p.exists() and not os.access(p, os.W_OK)):
        raise ValueError(f"cannot write {path}: permission denied")


# ---------------------------------------------------------------- reading
def _need(cond: bool, where: str, msg: str) -> None:
    if not cond:
        raise RecordError(f"{where}: {msg}")


def _parse(data: Any) -> GameRecord:
    _need(isinstance(data, dict), "record", "expected a JSON object")
    _need(data.get("format") == FORMAT, "format", f"expected {FORMAT!r}, got {data.get('format')!r}")
    version = data.get("format_version")
    _need(isinstance(version, int) and not isinstance(version, bool) and 1 <= version <= FORMAT_VERSION,
          "format_version", f"this cardwar reads version 1..{FORMAT_VERSION}, got {version!r}")
    known = {"format", "format_version"} | {f for f in GameRecord.__dataclass_fields__}
    extra = sorted(set(data) - known)
    _need(not extra, extra[0] if extra else "", "unknown field")
    game = data.get("game")
    _need(game in SEATS, "game", f"expected one of {', '.join(SEATS)}, got {game!r}")
    seats = SEATS[game]
    seed = read_int(data.get("seed"))
    _need(seed is not None, "seed", f"expected an integer (or its decimal string), got {data.get('seed')!r}")
    players = data.get("players")
    _need(isinstance(players, dict) and list(players) == list(seats)
          and all(isinstance(v, str) for v in players.values()),
          "players", f"expected {{{', '.join(f'{s!r}: SPEC' for s in seats)}}}, got {players!r}")
    moves = data.get("moves")
    _need(isinstance(moves, list), "moves", "expected a list")
    parsed = []
    for i, m in enumerate(moves):
        ok = isinstance(m, dict) and set(m) == {"seat", "move"} and m["seat"] in seats and isinstance(m["move"], str)
        _need(ok, f"moves[{i}]", f"expected {{\"seat\": one of {', '.join(seats)}, \"move\": TEXT}}, got {m!r}")
        parsed.append(Move(m["seat"], m["move"]))
    _need(isinstance(data.get("rules"), dict), "rules", "expected an object of rule options")
    for key in ("scenario", "cardwar_version"):
        _need(data.get(key) is None or isinstance(data.get(key), str), key, "expected text or null")
    _need(data.get("scenario_data") is None or isinstance(data.get("scenario_data"), dict), "scenario_data",
          "expected an object or null")
    finished = data.get("finished", True)
    _need(isinstance(finished, bool), "finished", "expected true or false")
    result = data.get("result")
    _need(isinstance(result, dict) if finished else result is None, "result",
          "a finished game needs its result object" if finished else "an unfinished game has no result")
    if finished:
        _need(result.get("winner") is None or result.get("winner") in seats, "result.winner",
              f"expected one of {', '.join(seats)} or null")
        f = result.get("forfeit")
        _need(f is None or (isinstance(f, dict) and f.get("seat") in seats
                            and f.get("reason") in ("error", "timeout", "illegal")),
              "result.forfeit", "expected {\"seat\": SEAT, \"reason\": error|timeout|illegal, \"detail\": TEXT}")
    _need(data.get("quit_by") is None or data.get("quit_by") in seats, "quit_by", "expected a seat or null")
    return GameRecord(game=game, seed=seed, players=dict(players), moves=tuple(parsed), rules=dict(data["rules"]),
                      scenario=data.get("scenario"), scenario_data=data.get("scenario_data"), finished=finished,
                      result=result, quit_by=data.get("quit_by"),
                      cardwar_version=data.get("cardwar_version") or "unknown")


# ---------------------------------------------------------------- replay
def make_env(record: GameRecord):
    """The raw AEC env the record's game was played in, not yet reset (a generated map kept in the record
    as ``scenario_data`` is played as kept: no file or generator needed)."""
    g = games.get(record.game)
    scenario: Any = record.scenario
    if record.scenario_data is not None and g.scenario_from_data is not None:
        scenario = g.hook("scenario_from_data")(record.scenario_data)
    return g.make_env(scenario, record.rules)


def result_of(state: Any, seats: tuple[str, str]) -> dict[str, Any]:
    """The ``result`` field of a record for a finished game's state."""
    return {"winner": None if state.winner is None else seats[state.winner], "returns": list(state.returns()),
            "turns": state.turn, "detail": json.loads(json.dumps(state.result))}


LATER_DETAIL = frozenset({"reason", "objective_points"})
"""Keys of a result's ``detail`` added after records were first written (the skirmish's ``reason`` and
``objective_points``, issue 28): a record written before them still replays."""


def same_result(computed: dict[str, Any], recorded: dict[str, Any] | None) -> bool:
    """Whether the moves' result is the record's, a key of :data:`LATER_DETAIL` that the record lacks aside."""
    if computed == recorded:
        return True
    detail, kept = computed.get("detail"), (recorded or {}).get("detail")
    if not isinstance(detail, dict) or not isinstance(kept, dict):
        return False
    return {**computed, "detail": {k: v for k, v in detail.items() if k in kept or k not in LATER_DETAIL}} == recorded


def replay_states(record: GameRecord) -> Iterator[Any]:
    """The states of the game, from the deal to the last move (each a copy), checking as it goes.

    Each move must be read by the notation, made by the seat to move, and legal; a
    finished record must end the game with its recorded result, an unfinished one
    must leave the game open. Any difference is a :class:`RecordError` naming the move.
    """
    from cardwar.explain import why_illegal

    from cardwar.arena.table import is_legal

    g = games.get(record.game)
    seats = g.seats
    try:
        env = make_env(record)
    except ValueError as err:
        raise RecordError(f"rules/scenario: {err}") from None
    env.reset(seed=record.seed)
    yield env.game.clone()
    for i, m in enumerate(record.moves):
        s, where = env.game, f"moves[{i}] {m.move!r}"
        _need(not s.is_terminal(), where, "the game was already over")
        to_move = seats[s.current_player]
        _need(m.seat == to_move, where, f"recorded for {m.seat}, but {to_move} is to move")
        try:
            action = g.parse(m.move)
        except ValueError as err:
            raise RecordError(f"{where}: cannot read it: {err}") from None
        if not is_legal(s, action):
            why = why_illegal(record.game, s.information_view(s.current_player), action) or \
                "the engine does not offer it now"
            _need(False, where, f"not legal: {why}")
        env.step(action)
        yield env.game.clone()
    s = env.game
    forfeit = (record.result or {}).get("forfeit")
    if forfeit is not None:  # a seat forfeited (error, timeout, illegal move): the rules did not end the game
        _need(not s.is_terminal(), "result.forfeit", "the moves end the game, but the record says forfeit")
        _need(seats[s.current_player] == forfeit.get("seat"), "result.forfeit",
              f"{forfeit.get('seat')} forfeited, but {seats[s.current_player]} was to move")
    elif record.finished:
        _need(s.is_terminal(), "moves", f"the game is not over after {len(record.moves)} moves")
        _need(same_result(result_of(s, seats), record.result), "result",
              f"the moves give {result_of(s, seats)}, the record says {record.result}")
    else:
        _need(not s.is_terminal(), "finished", "the moves end the game, but the record says unfinished")


def final_state(record: GameRecord) -> Any:
    """The state after the record's last move (checked as :func:`replay_states` checks)."""
    state = None
    for state in replay_states(record):
        pass
    return state
