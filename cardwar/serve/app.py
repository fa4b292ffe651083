"""The HTTP API (FastAPI) and the web page: ``cardwar serve``.

Routes (all JSON; errors are ``{"error": MESSAGE}`` with a 4xx status):

- ``GET /api/games``: games, seats, rule options, scenarios and agents a session may choose;
- ``POST /api/sessions``: a new game against a bot -> its id, its secret token and the state;
- ``GET /api/sessions/{id}``: the state as the person's seat sees it (token);
- ``POST /api/sessions/{id}/moves``: play a move; the bot answers before the response (token);
- ``POST /api/sessions/{id}/resign`` (token);
- ``GET /api/sessions/{id}/events``: server-sent events, the state after every change (token);
- ``GET /api/sessions/{id}/spectate`` and ``.../spectate/events``: public information only;
- ``GET /api/sessions/{id}/record``: the game record, once the game is over;
- ``GET /``: the web page (``cardwar/serve/static``), which uses only these routes.

The token goes in ``Authorization: Bearer TOKEN`` (or ``?token=`` for a browser's
EventSource, which cannot set headers; the server's access log hides it).
"""

from __future__ import annotations

import asyncio
import time
from contextlib import asynccontextmanager
from functools import lru_cache, partial
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated, Any, Literal

import anyio.to_thread
from fastapi import Depends, FastAPI, Header, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.sse import EventSourceResponse, ServerSentEvent
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictFloat, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardwar import __version__
from cardwar.record import SEATS
from cardwar.serve.bots import bot_catalogue
from cardwar.serve.errors import ServeError
from cardwar.serve.events import Broadcaster
from cardwar.serve.sessions import MAX_SEED, Session, SessionManager, scenarios
from cardwar.serve.settings import ServerSettings
from cardwar.serve.views import session_state

STATIC = Path(__file__).with_name("static")
KEEPALIVE_S = 15.0

OptionValue = StrictBool | StrictInt | StrictFloat | Annotated[StrictStr, Field(max_length=200)] | None


class NewSession(BaseModel):
    """A new game: what to play, which seat is the person's, and the bot to play against."""

    model_config = ConfigDict(extra="forbid")
    game: Literal["naval", "hexwar"]
    agent: Annotated[str, Field(max_length=40)] = "heuristic"
    options: Annotated[dict[Annotated[str, Field(max_length=40)], OptionValue], Field(max_length=10)] = {}
    seat: Annotated[str, Field(max_length=20)] | None = None
    rules: Annotated[dict[Annotated[str, Field(max_length=40)], OptionValue], Field(max_length=20)] = {}
    scenario: Annotated[str, Field(max_length=60)] | None = None
    seed: Annotated[int, Field(ge=0, le=MAX_SEED)] | None = None
    move_ms: Annotated[int, Field(ge=1)] | None = None


class MoveBody(BaseModel):
    """A move by its notation (``"attack E>F broadside 4D"``) or its id; ``version`` (optional) is the
    state's version the move was chosen from: a stale one is refused (409) rather than misapplied."""

    model_config = ConfigDict(extra="forbid")
    move: Annotated[str, Field(min_length=1, max_length=80)] | None = None
    id: Annotated[int, Field(ge=0, le=100_000)] | None = None
    version: Annotated[int, Field(ge=0)] | None = None


class ResignBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    version: Annotated[int, Field(ge=0)] | None = None


ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"description": text, "content": {"application/json": {"schema": {
        "type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}}}}
    for code, text in {400: "Bad request", 401: "Token missing", 403: "Wrong token", 404: "Unknown session",
                       409: "Not now (game over, not your turn, stale version)", 410: "Session expired",
                       413: "Body too large", 422: "Malformed or illegal", 429: "Too many sessions",
                       503: "The server is full (see Retry-After)"}.items()}


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def _validation_message(err: RequestValidationError) -> str:
    """One line for a body that is not the JSON the route takes."""
    parts = []
    for e in err.errors()[:3]:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        if e.get("type") == "json_invalid":
            return f"malformed JSON: {e.get('ctx', {}).get('error', 'cannot parse the body')}"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


class BodyLimit:
    """413 with a JSON message for a body over the limit: by its Content-Length before it is read, else
    (a chunked body) by reading at most the limit, which the route then gets as one piece."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    def _too_large(self) -> JSONResponse:
        return _error(413, f"request body too large (limit {self.limit} bytes)")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        length = dict(scope.get("headers") or ()).get(b"content-length")
        if length is not None:
            if not length.isdigit():
                return await _error(400, "bad Content-Length header")(scope, receive, send)
            if int(length) > self.limit:
                return await self._too_large()(scope, receive, send)
            return await self.app(scope, receive, send)
        if scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                return await self._too_large()(scope, receive, send)
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _token(authorization: str | None, token: str | None = None) -> str | None:
    if authorization:
        scheme, _, value = authorization.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else None
    return token


def rule_options(game: str) -> list[dict[str, Any]]:
    """The rule options of ``game``: name, type, default and allowed values."""
    from dataclasses import fields

    if game == "naval":
        from cardwar.envs.naval.config import _CHOICES, NavalConfig as Config
    else:
        from cardwar.envs.hexwar.config import _CHOICES, HexConfig as Config  # type: ignore[assignment]
    helps = attribute_docs(Config)
    out = []
    for f in fields(Config):
        default = f.default
        out.append({"name": f.name, "type": type(default).__name__, "default": default,
                    "choices": list(_CHOICES.get(f.name, [True, False] if isinstance(default, bool) else [])),
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
                and isinstance(doc, ast.Expr) and isinstance(doc.value, ast.Constant) and isinstance(doc.value.value, str)):
            docs[field_node.target.id] = " ".join(doc.value.value.split())
    return docs


def _authorized(manager: SessionManager, session_id: str, authorization: str | None,
                token: str | None = None) -> Session:
    session = manager.get(session_id)
    manager.authorize(session, _token(authorization, token))
    return session


def stream_reader(request: Request, session_id: str, authorization: Annotated[str | None, Header()] = None,
                  token: Annotated[str | None, Query(max_length=100)] = None) -> Session:
    """The session of an event stream, checked before the stream starts (a browser's EventSource
    cannot send headers, so ``?token=`` is taken too)."""
    return _authorized(request.app.state.manager, session_id, authorization, token)


def spectator(request: Request, session_id: str) -> Session:
    return request.app.state.manager.get(session_id)


def create_app(settings: ServerSettings) -> FastAPI:
    """The application: routes, error handlers, CORS (only when origins are given), the page."""
    broadcaster = Broadcaster()
    manager = SessionManager(settings, on_change=lambda s: broadcaster.changed(s.id))
    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        yield
        manager.close()

    app = FastAPI(title="cardwar bot server", version=__version__, lifespan=lifespan,
                  description="Play cardwar's agents from any front end. The server is the dealer: a client "
                              "sees only what its seat may know. See docs/serve.md.")
    app.state.manager, app.state.broadcaster = manager, broadcaster
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])

    @app.exception_handler(ServeError)
    async def _serve_error(_: Request, err: ServeError) -> JSONResponse:
        response = _error(err.status, err.message)
        if err.retry_after is not None:
            response.headers["Retry-After"] = str(err.retry_after)
        return response

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        return _error(422 if "malformed JSON" not in (m := _validation_message(err)) else 400, m)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, err: StarletteHTTPException) -> JSONResponse:
        detail = err.detail if isinstance(err.detail, str) else "request refused"
        if err.status_code == 413:
            detail = f"request body too large (limit {settings.max_body_bytes} bytes)"
        return JSONResponse({"error": detail}, status_code=err.status_code, headers=getattr(err, "headers", None))

    def client_of(request: Request) -> str:
        return request.client.host if request.client else "unknown"

    def authorized(session_id: str, authorization: str | None, token: str | None = None) -> Session:
        return _authorized(manager, session_id, authorization, token)

    def timed(body: dict[str, Any], server_ms: float, bot_ms: float) -> JSONResponse:
        body["timing"] = {"server_ms": round(server_ms, 3), "bot_ms": round(bot_ms, 3)}
        return JSONResponse(body, headers={"Server-Timing": f"server;dur={server_ms:.3f}, bot;dur={bot_ms:.3f}"})

    # ------------------------------------------------------------------ discovery
    @app.get("/api/games", summary="Games, seats, rule options, scenarios and agents")
    def games() -> dict[str, Any]:
        return {"version": __version__, "games": [
            {"name": g, "seats": list(SEATS[g]), "rules": rule_options(g), "scenarios": scenarios(g),
             "agents": bot_catalogue(g)} for g in SEATS],
            "limits": {"max_move_ms": settings.max_move_ms, "default_move_ms": settings.default_move_ms,
                       "max_sessions_per_client": settings.max_sessions_per_client,
                       "max_sessions": settings.max_sessions,
                       "session_ttl_s": settings.session_ttl_s, "max_body_bytes": settings.max_body_bytes}}

    @app.get("/api/health", summary="Liveness and the number of open sessions")
    def health() -> dict[str, Any]:
        return {"ok": True, "open_sessions": manager.store.open_count(), "streams": broadcaster.streams()}

    # ------------------------------------------------------------------ sessions
    # Requests that play (a new game, a move: the engine and the bot) run in a few threads of their own,
    # not in the 40 that serve every other route: the work holds the GIL, so more threads than cores add
    # no throughput and stretch each request over the others' time slices (docs/benchmarks.md).
    playing = anyio.CapacityLimiter(settings.workers)

    async def in_play_thread(fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=playing)

    @app.post("/api/sessions", status_code=201, responses=ERRORS, summary="Start a game against a bot")
    async def new_session(body: NewSession, request: Request) -> JSONResponse:
        return await in_play_thread(create_session, body, client_of(request))

    def create_session(body: NewSession, client: str) -> JSONResponse:
        start = time.perf_counter()
        session, token, timing = manager.create(body.model_dump(), client)
        state = session_state(session, session.human)
        response = timed({"id": session.id, "token": token, "bot_moves": list(state["log"]), "state": state},
                         (time.perf_counter() - start) * 1000 - timing.bot_ms, timing.bot_ms)
        response.status_code = 201
        return response

    @app.get("/api/sessions/{session_id}", responses=ERRORS, summary="The game as your seat sees it")
    def read_session(session_id: str, authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        session = authorized(session_id, authorization)
        manager.touch(session)
        return session_state(session, session.human)

    @app.post("/api/sessions/{session_id}/moves", responses=ERRORS, summary="Play a move; the bot answers")
    async def play(session_id: str, body: MoveBody,
                   authorization: Annotated[str | None, Header()] = None) -> JSONResponse:
        return await in_play_thread(play_move, session_id, body, authorization)

    def play_move(session_id: str, body: MoveBody, authorization: str | None) -> JSONResponse:
        start = time.perf_counter()
        session = authorized(session_id, authorization)
        if (body.move is None) == (body.id is None):
            raise ServeError(422, "give the move by \"move\" (notation) or by \"id\", one of the two")
        played_id = body.id if body.move is None else body.move
        bot_lines, timing = manager.play(session, played_id, body.version)  # type: ignore[arg-type]
        state = session_state(session, session.human)
        return timed({"bot_moves": bot_lines, "state": state},
                     (time.perf_counter() - start) * 1000 - timing.bot_ms, timing.bot_ms)

    @app.post("/api/sessions/{session_id}/resign", responses=ERRORS, summary="Resign the game")
    def resign(session_id: str, body: ResignBody | None = None,
               authorization: Annotated[str | None, Header()] = None) -> dict[str, Any]:
        session = authorized(session_id, authorization)
        manager.resign(session, body.version if body else None)
        return session_state(session, session.human)

    @app.get("/api/sessions/{session_id}/spectate", responses=ERRORS, summary="Public information only")
    def spectate(session_id: str) -> dict[str, Any]:
        return session_state(manager.get(session_id), None)

    @app.get("/api/sessions/{session_id}/record", responses=ERRORS,
             summary="The game record (cardwar replay), once the game is over")
    def record(session_id: str) -> JSONResponse:
        session = manager.get(session_id)
        if not session.over:
            raise ServeError(409, "the record is given once the game is over (it shows every hidden card)")
        return JSONResponse(session.record().to_dict())

    async def stream(session_id: str, seat_of: Any) -> AsyncIterator[ServerSentEvent]:
        """The state now, then after every change, until the game is over (a comment every 15 s keeps it open)."""
        session = manager.get(session_id)
        wake = broadcaster.subscribe(session_id)
        try:
            sent = -1
            while True:
                try:
                    session = manager.get(session_id)
                except ServeError as err:  # expired while watched: say so, and end the stream
                    yield ServerSentEvent(event="error", data={"error": err.message})
                    return
                if session.version != sent:
                    sent = session.version
                    yield ServerSentEvent(event="state", id=str(sent), data=session_state(session, seat_of(session)))
                    if session.over:
                        return
                try:
                    await asyncio.wait_for(wake.wait(), KEEPALIVE_S)
                except TimeoutError:
                    yield ServerSentEvent(comment="keep-alive")
                wake.clear()
        finally:
            broadcaster.unsubscribe(session_id, wake)

    @app.get("/api/sessions/{session_id}/events", response_class=EventSourceResponse, responses=ERRORS,
             summary="Server-sent events: your seat's state after every change")
    async def events(session: Annotated[Session, Depends(stream_reader)]) -> AsyncIterator[ServerSentEvent]:
        async for event in stream(session.id, lambda s: s.human):
            yield event

    @app.get("/api/sessions/{session_id}/spectate/events", response_class=EventSourceResponse, responses=ERRORS,
             summary="Server-sent events: the public state after every change")
    async def spectate_events(session: Annotated[Session, Depends(spectator)]) -> AsyncIterator[ServerSentEvent]:
        async for event in stream(session.id, lambda s: None):
            yield event

    # ------------------------------------------------------------------ the page
    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    return app
