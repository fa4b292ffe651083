"""The engine protocol's messages: JSON objects, one a line, each with a ``"type"``.

The dealer (:class:`cardwar.engine.client.EngineAgent`) holds the game; an engine
sees only its own seat's information view, as in the ACPC poker dealer. Every
message is described, with a captured session, in ``docs/engine-protocol.md``:

- dealer -> engine: ``hello``, ``new_game``, ``move``, ``game_over``, ``quit``;
- engine -> dealer: ``hello``, ``move``, and ``info`` / ``log`` lines (ignored).

This module builds and reads the messages; it starts no process.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

from cardwar import games
from cardwar.record import SEATS, json_int, read_int

PROTOCOL_VERSION = 1
IGNORED_TYPES = frozenset({"info", "log"})
"""Engine lines the dealer reads past (UCI's ``info``): progress, debugging."""


class ProtocolError(ValueError):
    """A line that is not a JSON object with a ``type``, or a message that breaks the protocol."""


_ENCODER = json.JSONEncoder(separators=(",", ":"), check_circular=False)  # messages are trees: no cycle to check


def encode(message: dict[str, Any]) -> bytes:
    """One message as one line of compact JSON, newline included."""
    return _ENCODER.encode(message).encode() + b"\n"


def decode(line: bytes | str) -> dict[str, Any]:
    """The message on one line; :class:`ProtocolError` if it is not a JSON object with a string ``type``."""
    text = line.decode("utf-8", "replace") if isinstance(line, bytes) else line
    try:
        msg = json.loads(text)
    except ValueError:
        raise ProtocolError(f"not JSON: {shorten(text)}") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        raise ProtocolError(f"not a JSON object with a \"type\": {shorten(text)}")
    return msg


def shorten(text: str, size: int = 120) -> str:
    """``text`` on one line, cut to ``size`` characters, quoted (for error messages)."""
    flat = " ".join(str(text).split())
    return repr(flat if len(flat) <= size else flat[:size] + "...")


@lru_cache(maxsize=8)
def notation_table(game: str) -> tuple[str, ...]:
    """The notation of every action id of ``game`` (built once: a move request names many)."""
    g = games.get(game)
    return tuple(g.to_string(a) for a in range(g.actions()))


def parse_move(game: str, text: str) -> int:
    """The action id of a move in notation; ValueError if it is none."""
    return games.get(game).parse(text)


def seat_index(game: str, view: Any) -> int:
    """The seat a view belongs to (0 or 1)."""
    return games.get(game).seat_of(view)


def rules_of(view: Any) -> dict[str, Any]:
    """The rules in force, from a seat's view (``view.config``, or ``view.rules``)."""
    rules = getattr(view, "config", None) or getattr(view, "rules", None)
    return rules.to_dict() if hasattr(rules, "to_dict") else dict(rules or {})


# ---------------------------------------------------------------- dealer -> engine
def hello(game: str, rules: dict[str, Any]) -> dict[str, Any]:
    """The dealer's greeting: the protocol version, the game and the rules it expects to play."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "game": game, "rules": rules}


def new_game(game: str, view: Any, seed: int | None) -> dict[str, Any]:
    """A game starts: its rules, the public map (hex game; never a unit), the engine's seat and its own seed
    (a number up to 2**53 - 1, which a JavaScript engine reads exactly, else its decimal string: the keyed seat seeds
    have 52 bits, only a research seed given by hand may be larger; :func:`new_game_seed` reads either)."""
    g = games.get(game)
    return {"type": "new_game", "game": game, "rules": rules_of(view), "scenario": g.setup_of(view),
            "seat": SEATS[game][seat_index(game, view)], "seed": None if seed is None else json_int(seed)}


def new_game_seed(msg: dict[str, Any]) -> int | None:
    """The engine's seed of a ``new_game`` message (a number or a decimal string); None if absent or unreadable."""
    return read_int(msg.get("seed"))


def move_request(game: str, view: Any, history: list[str], legal: list[int], time_ms: int | None, *,
                 request: int | None = None, moves: list[dict[str, str]] | None = None) -> dict[str, Any]:
    """Choose a move: the seat's view, its visible history (prose, and ``moves`` in notation), the legal
    moves, the time it may take, and ``request``, the number the answer echoes."""
    names = notation_table(game)
    msg: dict[str, Any] = {"type": "move", "request": request, "view": games.get(game).view_dict(view),
                           "history": list(history),
                           "moves": list(moves or ()), "legal": [{"id": a, "move": names[a]} for a in legal],
                           "time_ms": time_ms}
    if request is None:
        del msg["request"]
    return msg


def answers_request(msg: dict[str, Any], request: int | None) -> bool:
    """Whether an engine's ``move`` answers the outstanding ``request``: it echoes that number, or it
    carries none (engines written before request numbers). An answer echoing another number is stale."""
    echoed = msg.get("request")
    return echoed is None or request is None or (echoed == request and not isinstance(echoed, bool))


def game_over(result: dict[str, Any] | None) -> dict[str, Any]:
    """The game has ended (``result``: winner, returns, and the forfeit if any; ``{}`` if unknown)."""
    return {"type": "game_over", "result": result or {}}


QUIT: dict[str, Any] = {"type": "quit"}


# ---------------------------------------------------------------- engine -> dealer
def engine_hello(name: str, author: str | None = None) -> dict[str, Any]:
    """The engine's answer to ``hello``."""
    msg: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL_VERSION, "name": name}
    if author:
        msg["author"] = author
    return msg


def check_engine_hello(msg: dict[str, Any]) -> tuple[str, str | None]:
    """``(name, author)`` of an engine's hello; :class:`ProtocolError` for a wrong type or protocol version."""
    if msg.get("type") != "hello":
        raise ProtocolError(f"expected the engine's hello, got a {shorten(msg.get('type'))} message")
    if msg.get("protocol") != PROTOCOL_VERSION:
        raise ProtocolError(f"the engine speaks protocol {msg.get('protocol')!r}; this dealer speaks "
                            f"protocol {PROTOCOL_VERSION}")
    name, author = msg.get("name"), msg.get("author")
    return (str(name) if name else "engine"), (str(author) if author else None)


def answer_action(game: str, msg: dict[str, Any], legal: dict[str, int], legal_ids: set[int]) -> int:
    """The legal action id an engine's move answer names (by ``move`` notation, else by ``id``).

    ``legal`` maps the request's notation to ids. :class:`ProtocolError` for a message that is not a
    move answer, names no move, or names one that is not legal.
    """
    if msg.get("type") != "move":
        raise ProtocolError(f"expected a move, got a {shorten(msg.get('type'))} message")
    move = msg.get("move")
    if isinstance(move, str):
        if move in legal:
            return legal[move]
        try:
            action = parse_move(game, move)
        except ValueError:
            raise ProtocolError(f"{shorten(move)} is not a move") from None
        if action not in legal_ids:
            raise ProtocolError(f"{shorten(move)} is not a legal move now")
        return action
    ident = msg.get("id")
    if isinstance(ident, int) and not isinstance(ident, bool):
        if ident not in legal_ids:
            raise ProtocolError(f"id {ident} is not a legal move now")
        return ident
    raise ProtocolError("a move answer needs \"move\" (notation) or \"id\"")
