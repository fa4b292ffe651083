"""The HTTP API (FastAPI) and the web page: ``cardwar serve``.

Routes (all JSON; errors are ``{"error": MESSAGE}`` with a 4xx status):

- ``GET /api/games``: games, seats, rule options, scenarios and agents a session may choose, the limits;
- ``POST /api/sessions``: a new game against a bot -> its id, its secret token, its watch token, the state;
- ``GET /api/sessions/{id}``: the state as the person's seat sees it (token);
- ``POST /api/sessions/{id}/moves``: play a move; the bot answers before the response (token);
- ``POST /api/sessions/{id}/resign`` (token);
- ``GET /api/sessions/{id}/events``: server-sent events, the state after every change (token);
- ``GET /api/sessions/{id}/spectate`` and ``.../spectate/events``: public information only (the session's
  watch token, or its token);
- ``GET /api/sessions/{id}/record``: the game record, once the game is over (either token);
- ``GET /``: the web page (``cardwar/serve/static``), which uses only these routes;
- ``GET /docs`` and ``/redoc``: the API's docs, their scripts served by this server (:mod:`.docs_pages`).

The token goes in ``Authorization: Bearer TOKEN`` (or ``?token=`` for a browser's EventSource and
a link to the record, which cannot set headers; the server's access log hides it). Every read
sends the state as last committed (:meth:`Session.state`), never a move half played.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from functools import partial
from pathlib import Path
from typing import Annotated, Any

import anyio.to_thread
from fastapi import Depends, FastAPI, Header, Query, Request, Security
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.security import APIKeyQuery, HTTPBearer
from fastapi.sse import EventSourceResponse, ServerSentEvent
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from cardwar import __version__
from cardwar import games as registry
from cardwar.serve import streams
from cardwar.serve.bots import bot_catalogue
from cardwar.serve.docs_pages import add_docs
from cardwar.serve.errors import ServeError
from cardwar.serve.events import Broadcaster, StreamLimits
from cardwar.serve.middleware import BodyLimit, error_response
from cardwar.serve.schema import (ERRORS, MoveAnswer, MoveBody, NewSession, NewSessionAnswer, ResignBody,
                                  SessionState, rule_options)
from cardwar.serve.sessions import Session, SessionManager, scenarios
from cardwar.serve.settings import ServerSettings

STATIC = Path(__file__).with_name("static")


def page_module(page: str | None) -> str | None:
    """The web page's module of a game (its registry ``page``) as a file under ``/static/``, if it is one there
    (every shipped game's is; a game without one is played with the page's buttons)."""
    if not page:
        return None
    name = page if page.endswith(".js") else f"{page}.js"
    return name if "/" not in name and (STATIC / name).is_file() else None

log = logging.getLogger("cardwar.serve")

BEARER = HTTPBearer(auto_error=False, scheme_name="token", description="the session's token (or, where the route "
                                                                       "says so, its watch token)")
TOKEN_QUERY = APIKeyQuery(name="token", auto_error=False, scheme_name="token_query",
                          description="the same token as ?token= (a browser's EventSource, a link)")
"""The security schemes, so that /docs has an Authorize button; the routes read the header themselves."""
TOKEN = [Security(BEARER)]
TOKEN_OR_QUERY = [Security(BEARER), Security(TOKEN_QUERY)]
Auth = Annotated[str | None, Header(include_in_schema=False)]
"""The ``Authorization`` header (documented by :data:`BEARER`)."""
QueryToken = Annotated[str | None, Query(max_length=100, include_in_schema=False)]
"""``?token=`` (documented by :data:`TOKEN_QUERY`)."""


def state_answer(description: str) -> dict[int | str, dict[str, Any]]:
    return {**ERRORS, 200: {"model": SessionState, "description": description}}


def _validation_message(err: RequestValidationError) -> str:
    """One line for a body that is not the JSON the route takes."""
    parts = []
    for e in err.errors()[:3]:
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body") or "body"
        if e.get("type") == "json_invalid":
            return f"malformed JSON: {e.get('ctx', {}).get('error', 'cannot parse the body')}"
        parts.append(f"{where}: {e.get('msg', 'invalid')}")
    return "; ".join(parts) or "invalid request"


def _token(authorization: str | None, token: str | None = None) -> str | None:
    if authorization:
        scheme, _, value = authorization.partition(" ")
        return value.strip() if scheme.lower() == "bearer" else None
    return token


def _authorized(manager: SessionManager, session_id: str, authorization: str | None,
                token: str | None = None, watch: bool = False) -> Session:
    session = manager.get(session_id)
    manager.authorize(session, _token(authorization, token), watch=watch)
    return session


def client_of(request: Request) -> str:
    """The client's address: what the per-client caps count."""
    return request.client.host if request.client else "unknown"


async def _stream(request: Request, session_id: str, authorization: str | None, token: str | None,
                  spectator: bool) -> AsyncIterator[streams.Stream]:
    async for stream in streams.open_stream(request.app.state.manager, request.app.state.broadcaster, session_id,
                                            _token(authorization, token), client_of(request), spectator):
        yield stream


async def player_stream(request: Request, session_id: str, authorization: Auth = None,
                        token: QueryToken = None) -> AsyncIterator[streams.Stream]:
    """The person's stream, checked and counted before it starts (a browser's EventSource cannot send
    headers, so ``?token=`` is taken too)."""
    async for stream in _stream(request, session_id, authorization, token, spectator=False):
        yield stream


async def spectator_stream(request: Request, session_id: str, authorization: Auth = None,
                           token: QueryToken = None) -> AsyncIterator[streams.Stream]:
    """A spectator's stream: the session's watch token (or its token); public information only."""
    async for stream in _stream(request, session_id, authorization, token, spectator=True):
        yield stream


async def purge_now(manager: SessionManager) -> None:
    """Delete expired and old finished sessions, in a thread (a purge that fails is tried again at the next)."""
    try:
        purged = await anyio.to_thread.run_sync(manager.purge)
    except Exception:  # noqa: BLE001 - a locked or full disk must not stop the server; said in its log
        log.exception("purging old sessions failed")
        return
    if purged:
        log.info("purged %d expired or finished sessions", len(purged))


async def purge_every(manager: SessionManager, interval_s: float) -> None:
    """The purge schedule: every ``interval_s`` while the server runs (and once at start-up, by the lifespan)."""
    while True:
        await asyncio.sleep(interval_s)
        await purge_now(manager)


def create_app(settings: ServerSettings) -> FastAPI:
    """The application: routes, error handlers, CORS (only when origins are given), the page, the docs."""
    broadcaster = Broadcaster(StreamLimits(settings.max_streams_per_session, settings.max_streams_per_client,
                                           settings.max_streams))
    manager = SessionManager(settings, on_change=lambda s: broadcaster.changed(s.id))

    @asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        await purge_now(manager)
        task = asyncio.create_task(purge_every(manager, settings.purge_interval_s))
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            manager.close()

    app = FastAPI(title="cardwar bot server", version=__version__, lifespan=lifespan, docs_url=None, redoc_url=None,
                  description="Play cardwar's agents from any front end. The server is the dealer: a client "
                              "sees only what its seat may know. See docs/serve.md.")
    add_docs(app)  # /docs and /redoc load their scripts from this server (the fastapi-offline package's copies)
    app.state.manager, app.state.broadcaster = manager, broadcaster
    app.add_middleware(BodyLimit, limit=settings.max_body_bytes)
    if settings.cors_origins:
        from fastapi.middleware.cors import CORSMiddleware

        app.add_middleware(CORSMiddleware, allow_origins=list(settings.cors_origins), allow_methods=["GET", "POST"],
                           allow_headers=["Authorization", "Content-Type"])

    @app.exception_handler(ServeError)
    async def _serve_error(_: Request, err: ServeError) -> JSONResponse:
        return error_response(err.status, err.message, err.retry_after)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_: Request, err: RequestValidationError) -> JSONResponse:
        return error_response(422 if "malformed JSON" not in (m := _validation_message(err)) else 400, m)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_: Request, err: StarletteHTTPException) -> JSONResponse:
        detail = err.detail if isinstance(err.detail, str) else "request refused"
        if err.status_code == 413:
            detail = f"request body too large (this server's limit is {settings.max_body_bytes} bytes)"
        return JSONResponse({"error": detail}, status_code=err.status_code, headers=getattr(err, "headers", None))

    def authorized(session_id: str, authorization: str | None, token: str | None = None,
                   watch: bool = False) -> Session:
        return _authorized(manager, session_id, authorization, token, watch)

    def timed(body: dict[str, Any], server_ms: float, bot_ms: float) -> JSONResponse:
        """A playing request's answer; its timings only with ``--timing`` (an operator's measurement): the bot's
        time, and the server's (which steps the game through them), grow with the bot's hidden declaration steps,
        whose number the log leaves out (docs/serve.md, "Timing")."""
        if not settings.timing:
            return JSONResponse(body)
        body["timing"] = {"server_ms": round(server_ms, 3), "bot_ms": round(bot_ms, 3)}
        return JSONResponse(body, headers={"Server-Timing": f"server;dur={server_ms:.3f}, bot;dur={bot_ms:.3f}"})

    # ------------------------------------------------------------------ discovery
    @app.get("/api/games", summary="Games, seats, rule options, scenarios, agents and the server's limits")
    def games() -> dict[str, Any]:
        return {"version": __version__, "games": [game_info(name) for name in registry.names()
                                                  if registry.get(name).agents],  # games with agents to play
                "limits": settings.limits()}

    def game_info(name: str) -> dict[str, Any]:
        g = registry.get(name)
        return {"name": name, "title": g.title, "summary": g.summary, "seats": list(g.seats),
                "rules": rule_options(name), "scenarios": scenarios(name), "default_scenario": g.default_scenario,
                "agents": bot_catalogue(name), "page": page_module(g.page)}

    @app.get("/api/health", summary="Liveness, the number of open sessions and of event streams")
    def health() -> dict[str, Any]:
        return {"ok": True, "open_sessions": manager.store.open_count(), "streams": broadcaster.streams()}

    # ------------------------------------------------------------------ sessions
    # Requests that play (a new game, a move: the engine and the bot) run in a few threads of their own,
    # not in the 40 that serve every other route: the work holds the GIL, so more threads than cores add
    # no throughput and stretch each request over the others' time slices (docs/benchmarks.md).
    playing = anyio.CapacityLimiter(settings.workers)

    async def in_play_thread(fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(partial(fn, *args), limiter=playing)

    @app.post("/api/sessions", status_code=201, summary="Start a game against a bot",
              responses={**ERRORS, 201: {"model": NewSessionAnswer, "description": "The new session"}})
    async def new_session(body: NewSession, request: Request) -> JSONResponse:
        return await in_play_thread(create_session, body, client_of(request))

    def create_session(body: NewSession, client: str) -> JSONResponse:
        start = time.perf_counter()
        session, token, watch, timing = manager.create(body.model_dump(), client)
        state = session.state()
        response = timed({"id": session.id, "token": token, "watch_token": watch, "bot_moves": list(state["log"]),
                          "state": state}, (time.perf_counter() - start) * 1000 - timing.bot_ms - timing.pad_ms,
                         timing.bot_ms)
        response.status_code = 201
        return response

    @app.get("/api/sessions/{session_id}", response_model=None, responses=state_answer("The state"),
             dependencies=TOKEN, summary="The game as your seat sees it")
    def read_session(session_id: str, authorization: Auth = None) -> dict[str, Any]:
        session = authorized(session_id, authorization)
        manager.touch(session)
        return session.state()

    @app.post("/api/sessions/{session_id}/moves", summary="Play a move; the bot answers", dependencies=TOKEN,
              responses={**ERRORS, 200: {"model": MoveAnswer, "description": "The bot's answer and the state"}})
    async def play(session_id: str, body: MoveBody, authorization: Auth = None) -> JSONResponse:
        return await in_play_thread(play_move, session_id, body, authorization)

    def play_move(session_id: str, body: MoveBody, authorization: str | None) -> JSONResponse:
        start = time.perf_counter()
        session = authorized(session_id, authorization)
        if (body.move is None) == (body.id is None):
            raise ServeError(422, "give the move by \"move\" (notation) or by \"id\", one of the two")
        played_id = body.id if body.move is None else body.move
        bot_lines, state, timing = manager.play(session, played_id, body.version)  # type: ignore[arg-type]
        return timed({"bot_moves": bot_lines, "state": state},
                     (time.perf_counter() - start) * 1000 - timing.bot_ms - timing.pad_ms, timing.bot_ms)

    @app.post("/api/sessions/{session_id}/resign", response_model=None, responses=state_answer("The final state"),
              dependencies=TOKEN, summary="Resign the game")
    def resign(session_id: str, body: ResignBody | None = None, authorization: Auth = None) -> dict[str, Any]:
        session = authorized(session_id, authorization)
        return manager.resign(session, body.version if body else None)

    @app.get("/api/sessions/{session_id}/spectate", response_model=None, dependencies=TOKEN,
             responses=state_answer("The public state"),
             summary="Public information only (the session's watch token, or its token)")
    def spectate(session_id: str, authorization: Auth = None) -> dict[str, Any]:
        return authorized(session_id, authorization, watch=True).state(spectator=True)

    @app.get("/api/sessions/{session_id}/record", responses=ERRORS, dependencies=TOKEN_OR_QUERY,
             summary="The game record (cardwar replay), once the game is over (either token)")
    def record(session_id: str, authorization: Auth = None, token: QueryToken = None) -> JSONResponse:
        session = authorized(session_id, authorization, token, watch=True)
        if not session.finished:
            raise ServeError(409, "the record is given once the game is over (it shows every hidden card)")
        return JSONResponse(session.record().to_dict())

    @app.get("/api/sessions/{session_id}/events", response_class=EventSourceResponse, responses=ERRORS,
             dependencies=TOKEN_OR_QUERY,
             summary="Server-sent events: your seat's state after every change")
    async def events(stream: Annotated[streams.Stream, Depends(player_stream)]) -> AsyncIterator[ServerSentEvent]:
        async for event in streams.events(manager, stream, broadcaster):
            yield event

    @app.get("/api/sessions/{session_id}/spectate/events", response_class=EventSourceResponse, responses=ERRORS,
             dependencies=TOKEN_OR_QUERY,
             summary="Server-sent events: the public state after every change (watch token, or the token)")
    async def spectate_events(stream: Annotated[streams.Stream, Depends(spectator_stream)]
                              ) -> AsyncIterator[ServerSentEvent]:
        async for event in streams.events(manager, stream, broadcaster):
            yield event

    # ------------------------------------------------------------------ the page
    @app.api_route("/", methods=["GET", "HEAD"], include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    return app
