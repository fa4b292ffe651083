"""What the API takes and tells: the request bodies, the error responses, and the games' rule options."""

from __future__ import annotations

from functools import lru_cache
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr

from cardwar import games
from cardwar.serve.sessions import MAX_SEED

OptionValue = StrictBool | StrictInt | StrictFloat | Annotated[StrictStr, Field(max_length=200)] | None


class NewSession(BaseModel):
    """A new game: what to play, which seat is the person's, and the bot to play against."""

    model_config = ConfigDict(extra="forbid")
    game: Annotated[str, Field(max_length=40, description="a game of GET /api/games (the game registry)")]
    agent: Annotated[str, Field(max_length=40)] = "heuristic"
    options: Annotated[dict[Annotated[str, Field(max_length=40)], OptionValue], Field(max_length=10)] = {}
    seat: Annotated[str, Field(max_length=20)] | None = None
    rules: Annotated[dict[Annotated[str, Field(max_length=40)], OptionValue], Field(max_length=20)] = {}
    scenario: Annotated[str, Field(max_length=60)] | None = None
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = None
    move_ms: Annotated[int, Field(ge=1)] | None = None


class LegalMove(BaseModel):
    """A move the seat may make now: send its ``id`` or its ``move`` (notation); ``steps`` are the clicks that
    build it (``card:9C``, ``zone:G``, ``unit:3``, ``hex:C4``), [] for a button."""

    id: int
    move: str
    steps: list[str]


class BotInfo(BaseModel):
    """The bot: its seat, agent, the options it was built with and its time per move."""

    seat: str
    agent: str
    options: dict[str, Any]
    move_ms: int


class SessionState(BaseModel):
    """The game as one seat (or a spectator) sees it: the last saved state (docs/serve.md, "The state")."""

    model_config = ConfigDict(extra="allow")
    session: str
    game: str
    version: Annotated[int, Field(description="+1 at every change; send it back with a move (409 if stale)")]
    status: Annotated[str, Field(description="your_turn, waiting (a spectator's game in play) or over")]
    you: Annotated[str | None, Field(description="your seat (null for a spectator)")]
    bot: BotInfo
    to_move: str | None
    turn: int
    scenario: str | None
    rules: dict[str, Any]
    view: Annotated[dict[str, Any], Field(description="the seat's information view (docs/engine-protocol.md)")]
    legal: list[LegalMove]
    log: list[str]
    log_seats: list[str | None]
    result: Annotated[dict[str, Any] | None, Field(
        description="once over: winner, returns, turns, detail (with the game's reason), or resigned, or forfeit")]
    page: str | None
    map: Annotated[dict[str, Any] | None, Field(description="hex games: the public map")] = None


class Timing(BaseModel):
    """Only with ``cardwar serve --timing`` (an operator's measurement; docs/serve.md, "Timing")."""

    server_ms: float
    bot_ms: float


class NewSessionAnswer(BaseModel):
    """A new session: keep ``token`` (it plays) and hand ``watch_token`` to spectators."""

    id: str
    token: str
    watch_token: str
    bot_moves: Annotated[list[str], Field(description="the bot's moves before yours, as your log tells them")]
    state: SessionState
    timing: Timing | None = None


class MoveAnswer(BaseModel):
    """The bot's answer to a move, and the state after it."""

    bot_moves: list[str]
    state: SessionState
    timing: Timing | None = None


class MoveBody(BaseModel):
    """A move by its notation (``"attack E>F broadside 4D"``) or its id; ``version`` (optional) is the
    state's version the move was chosen from: a stale one is refused (409) rather than misapplied."""

    model_config = ConfigDict(extra="forbid")
    move: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    id: Annotated[int, Field(ge=0, le=100_000)] | None = None
    version: Annotated[int, Field(ge=0)] | None = None


class ResignBody(BaseModel):
    """A resignation; ``version`` as for a move."""

    model_config = ConfigDict(extra="forbid")
    version: Annotated[int, Field(ge=0)] | None = None


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/json": {"schema": {
        "type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}}}}
    for code, text in {400: "Bad request", 401: "Token missing", 403: "Wrong token", 404: "Unknown session",
                       409: "Not now (game over, not your turn, stale version)", 410: "Session expired",
                       413: "Body too large", 422: "Malformed or illegal",
                       429: "Too many games in play, or streams (the message says how to go on)",
                       503: "The server is full (see Retry-After)"}.items()}


def rule_options(game: str) -> list[dict[str, Any]]:
    """The rule options of ``game`` (its registry entry's rules dataclass): name, type, default, allowed values
    (the module's ``_CHOICES`` where it has one) and the field's docstring."""
    import sys
    from dataclasses import MISSING, fields

    config = games.get(game).hook("rules")
    choices = getattr(sys.modules.get(config.__module__), "_CHOICES", {})
    helps = attribute_docs(config)
    out = []
    for f in fields(config):
        default = f.default if f.default is not MISSING else (
            f.default_factory() if f.default_factory is not MISSING else None)  # type: ignore[misc]
        out.append({"name": f.name, "type": type(default).__name__, "default": default,
                    "choices": list(choices.get(f.name, [True, False] if isinstance(default, bool) else [])),
                    "help": helps.get(f.name, "")})
    return out


@lru_cache(maxsize=4)
def attribute_docs(cls: type) -> dict[str, str]:
    """The docstring under each field of a dataclass (the rule options' explanations), one line each."""
    import ast
    import inspect
    import textwrap

    body = ast.parse(textwrap.dedent(inspect.getsource(cls))).body[0].body  # type: ignore[attr-defined]
    docs = {}
    for field_node, doc in zip(body, body[1:]):
        if (isinstance(field_node, ast.AnnAssign) and isinstance(field_node.target, ast.Name)
                and isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant)
                and isinstance(doc.value.value, str)):
            docs[field_node.target.id] = " ".join(doc.value.value.split())
    return docs
