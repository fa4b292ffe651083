"""``cardwar serve``: the bot server (HTTP API and web page) under uvicorn."""

from __future__ import annotations

import argparse
import logging
import re
import sys
from pathlib import Path
from typing import Any

from cardwar.serve.settings import ServerSettings


def add_parser(sub: Any, number: Any) -> None:
    """The ``serve`` sub-parser (``number(kind, minimum, name)`` is the CLI's checked-number type)."""
    s = sub.add_parser("serve", help="serve our agents as opponents over HTTP, with a web page to play on "
                                     "(docs/serve.md)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1: this machine only)")
    s.add_argument("--port", type=number(int, 0, "--port"), default=8000, help="port (default 8000)")
    s.add_argument("--db", default="cardwar-sessions.db", help="SQLite file of the sessions (default "
                                                              "cardwar-sessions.db; a restart continues its games)")
    s.add_argument("--cors-origin", action="append", default=[], metavar="ORIGIN",
                   help="a web origin allowed to call the API from its pages, e.g. https://game.example "
                        "(repeat; none by default)")
    s.add_argument("--max-sessions-per-client", type=number(int, 1, "--max-sessions-per-client"), default=20,
                   help="games in play one client address may hold (default 20; a game over, or idle for "
                        "--session-idle, does not count)")
    s.add_argument("--max-sessions", type=number(int, 1, "--max-sessions"), default=2000,
                   help="open sessions in all (default 2000)")
    s.add_argument("--session-ttl", type=number(float, 1, "--session-ttl"), default=24 * 3600.0, metavar="SECONDS",
                   help="a session idle this long expires (default 86400)")
    s.add_argument("--session-idle", type=number(float, 1, "--session-idle"), default=1800.0, metavar="SECONDS",
                   help="a session idle this long stops counting toward --max-sessions-per-client (default 1800)")
    s.add_argument("--keep-finished", type=number(float, 1, "--keep-finished"), default=7 * 24 * 3600.0,
                   metavar="SECONDS", help="a finished game is kept this long after its end, then purged "
                                           "(default 604800, a week)")
    s.add_argument("--purge-interval", type=number(float, 1, "--purge-interval"), default=3600.0, metavar="SECONDS",
                   help="how often expired and old finished sessions are deleted; also at start-up (default 3600)")
    s.add_argument("--max-streams-per-session", type=number(int, 1, "--max-streams-per-session"), default=8,
                   help="event streams open on one session at once (default 8; 429 past it)")
    s.add_argument("--max-streams-per-client", type=number(int, 1, "--max-streams-per-client"), default=16,
                   help="event streams one client address may hold open (default 16; 429 past it)")
    s.add_argument("--max-streams", type=number(int, 1, "--max-streams"), default=256,
                   help="event streams open in all (default 256; 503 past it)")
    s.add_argument("--max-move-ms", type=number(int, 1, "--max-move-ms"), default=2000,
                   help="most thinking time a session may give the bot per move (default 2000)")
    s.add_argument("--default-move-ms", type=number(int, 1, "--default-move-ms"), default=300,
                   help="the bot's time per move when a session does not say (default 300)")
    s.add_argument("--max-body-bytes", type=number(int, 64, "--max-body-bytes"), default=16 * 1024,
                   help="largest request body (default 16384)")
    s.add_argument("--keep-alive", type=number(float, 0.1, "--keep-alive"), default=5.0, metavar="SECONDS",
                   help="an idle keep-alive connection is closed this long after its last answer (default 5; "
                        "uvicorn's timeout_keep_alive)")
    s.add_argument("--header-timeout", type=number(float, 0.1, "--header-timeout"), default=10.0, metavar="SECONDS",
                   help="a request's headers must arrive within this long of the connection's opening or the "
                        "previous answer (default 10; 408 and closed past it)")
    s.add_argument("--body-timeout", type=number(float, 0.1, "--body-timeout"), default=10.0, metavar="SECONDS",
                   help="a request's body must arrive within this long of its headers (default 10; 408 and closed "
                        "past it)")
    s.add_argument("--max-header-bytes", type=number(int, 1024, "--max-header-bytes"), default=16 * 1024,
                   help="largest request line and headers (default 16384; 400 past it)")
    s.add_argument("--max-connections-per-client", type=number(int, 2, "--max-connections-per-client"), default=64,
                   help="connections one client address may hold open (default 64, above --max-streams-per-client; "
                        "a further one is closed at once)")
    s.add_argument("--max-connections", type=number(int, 1, "--max-connections"), default=1000,
                   help="connections and requests in all (default 1000; 503 past it; uvicorn's limit_concurrency)")
    s.add_argument("--workers", type=number(int, 1, "--workers"), default=2,
                   help="requests that play (moves, new games) at once; the others wait their turn (default 2, "
                        "about the number of cores: the game work holds Python's GIL)")
    s.add_argument("--reproducible-seeds", action="store_true",
                   help="deal from the client's seed as given (research and tests: a client that knows the seed "
                        "knows the deck; by default a secret is mixed in)")
    s.add_argument("--timing", action="store_true",
                   help="send each move's timings (the server's work, the bot's thinking) in the answer and a "
                        "Server-Timing header: for measuring your own server only, since the bot's time tells how "
                        "many hidden steps it took, which the player may not know (off by default; docs/serve.md)")
    s.add_argument("--no-pad-hidden", dest="pad_hidden", action="store_false",
                   help="do not pad answers: by default, once the bot has taken a step the player is not told of "
                        "(a hidden declaration step of a game whose moves are not all told), every answer in which "
                        "the bot moves takes the session's hidden budget, so that timing it does not count the hidden "
                        "steps; turn it off for benchmarks only (docs/serve.md, Timing)")
    s.add_argument("--pad-hidden-min-ms", type=number(float, 0.001, "--pad-hidden-min-ms"), default=100.0,
                   metavar="MS", help="a session's first hidden budget when its bot does not think for move_ms "
                                      "(default 100; a timed search starts at its move_ms); an overrun raises it "
                                      "by steps of 1.5x for the rest of the game")
    s.add_argument("--log-level", default="info", choices=["critical", "error", "warning", "info", "debug"])
    s.set_defaults(func=run_command)


def _decoded(text: str) -> str:
    """``text`` percent-decoded until it no longer changes (``%2574oken`` -> ``%74oken`` -> ``token``)."""
    from urllib.parse import unquote_plus

    for _ in range(5):
        decoded = unquote_plus(text)
        if decoded == text:
            break
        text = decoded
    return text


def mask_query(target: str) -> str:
    """A request target with the value of every query parameter whose name, decoded, has ``token`` in it
    (``token``, ``%74oken``, ``TOKEN``, ``watch_token``) replaced by ``***``."""
    path, sep, query = target.partition("?")
    if not sep:
        return target
    parts = []
    for part in re.split(r"([&;])", query):
        name, eq, _ = part.partition("=")
        if "token" in _decoded(name).lower():  # no "=": an encoded one ("token%3D...") may hide a token: all of it
            part = f"{name}=***" if eq else "***"
        parts.append(part)
    return f"{path}?{''.join(parts)}"


class HideTokens(logging.Filter):
    """Access-log lines never show a session token: a ``?token=`` (of an event stream, a record link), however
    its name is spelled or percent-encoded, is masked in every argument that looks like a request target."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple):
            record.args = tuple(mask_query(a) if isinstance(a, str) and "?" in a else a for a in record.args)
        elif isinstance(record.msg, str) and "?" in record.msg:
            record.msg = mask_query(record.msg)
        return True


def check_db(db: Path) -> None:
    """ValueError (one line) unless ``db`` is, or can become, a sessions database."""
    import sqlite3

    from cardwar.serve.store import SessionStore

    if db.is_dir():
        raise ValueError(f"--db {db}: is a folder; give a file")
    if not db.parent.is_dir():
        raise ValueError(f"--db {db}: the folder {db.parent} does not exist")
    try:
        SessionStore(db).close()
    except sqlite3.Error as err:
        raise ValueError(f"--db {db}: not a sessions database, or cannot be opened ({err})") from None


def settings_from_args(args: argparse.Namespace) -> ServerSettings:
    db = Path(args.db)
    if args.port > 65535:
        raise ValueError(f"--port must be at most 65535, got {args.port}")
    check_db(db)
    for origin in args.cors_origin:
        if origin != "*" and not re.fullmatch(r"https?://[^/\s]+", origin):
            raise ValueError(f"--cors-origin {origin!r}: give an origin such as https://game.example "
                             "(scheme and host, no path), or *")
    return ServerSettings(db=db, cors_origins=tuple(args.cors_origin),
                          max_sessions_per_client=args.max_sessions_per_client, max_sessions=args.max_sessions,
                          session_ttl_s=args.session_ttl, session_idle_s=args.session_idle,
                          keep_finished_s=args.keep_finished, purge_interval_s=args.purge_interval,
                          max_streams_per_session=args.max_streams_per_session,
                          max_streams_per_client=args.max_streams_per_client, max_streams=args.max_streams,
                          max_body_bytes=args.max_body_bytes, keep_alive_s=args.keep_alive,
                          header_timeout_s=args.header_timeout, body_timeout_s=args.body_timeout,
                          max_header_bytes=args.max_header_bytes,
                          max_connections_per_client=args.max_connections_per_client,
                          max_connections=args.max_connections,
                          max_move_ms=args.max_move_ms, default_move_ms=args.default_move_ms, workers=args.workers,
                          timing=args.timing, pad_hidden=args.pad_hidden, pad_hidden_min_ms=args.pad_hidden_min_ms,
                          extra={"reproducible_seeds": args.reproducible_seeds})


def check_address(host: str, port: int) -> None:
    """ValueError (one line) unless this machine can listen on ``host:port`` now."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):
        raise ValueError(f"--host {host}: not an address or a name this machine can resolve") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(address)
        except OSError as err:
            raise ValueError(f"cannot listen on {host}:{port}: {err.strerror or err}") from None


def run_command(args: argparse.Namespace) -> int:
    """Serve until interrupted (Ctrl-C or SIGTERM end it cleanly; open games stay in the database)."""
    import uvicorn

    from cardwar.serve.app import create_app
    from cardwar.serve.protocol import ConnectionLimits, guarded_protocol

    settings = settings_from_args(args)
    check_address(args.host, args.port)
    app = create_app(settings)
    raise_file_limit(settings.max_connections + 64)
    logging.getLogger("uvicorn.access").addFilter(HideTokens())
    shown = "localhost" if args.host in ("127.0.0.1", "::1") else args.host
    where = f"http://{shown}:{args.port}/" if args.port else f"http://{shown} on a free port (uvicorn's line names it)"
    print(f"cardwar serve: {where} (API docs at /docs), sessions in {settings.db}", file=sys.stderr, flush=True)
    protocol = guarded_protocol(ConnectionLimits(settings.header_timeout_s, settings.body_timeout_s,
                                                 settings.max_connections_per_client, settings.max_connections),
                                on_shutdown=[app.state.broadcaster.close_all])
    # loop="asyncio": the loop the server is tested on; uvicorn's "auto" would switch to uvloop wherever it is
    # installed (the alphazero extra brings it, through orbax-checkpoint).
    uvicorn.run(app, host=args.host, port=args.port, log_level=args.log_level, timeout_graceful_shutdown=5,
                http=protocol, ws="none", timeout_keep_alive=settings.keep_alive_s,  # type: ignore[arg-type]
                limit_concurrency=settings.max_connections, h11_max_incomplete_event_size=settings.max_header_bytes,
                loop="asyncio")
    return 0


def raise_file_limit(wanted: int) -> None:
    """Raise this process's open-file limit (soft, up to the hard one) to ``wanted`` descriptors, so that
    ``--max-connections`` is reached before the limit; a line on stderr when the hard limit is lower."""
    try:
        import resource
    except ImportError:  # not on POSIX
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        if target > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
        if target < wanted:
            print(f"cardwar serve: the open-file limit is {target}, below --max-connections + 64 ({wanted}): "
                  "lower --max-connections, or raise the limit (ulimit -n)", file=sys.stderr, flush=True)
