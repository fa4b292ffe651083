"""The server's settings: limits that keep one client from taking the server, and where sessions live."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class ServerSettings:
    """What ``cardwar serve`` is started with (every limit has a flag of the same name)."""

    db: Path = Path("cardwar-sessions.db")
    """The SQLite file that holds every session (created when missing)."""
    cors_origins: tuple[str, ...] = ()
    """Web origins allowed to call the API from a browser page of theirs (none by default)."""
    max_sessions_per_client: int = 20
    """Games in play that one client address may hold at once (HTTP 429 past it); a game that is over, or
    idle for ``session_idle_s``, does not count."""
    max_sessions: int = 2000
    """Open sessions the whole server holds at once."""
    session_ttl_s: float = 24 * 3600.0
    """A session that sees no request for this long expires (its game is dropped at the next purge)."""
    session_idle_s: float = 1800.0
    """A session that sees no request for this long stops counting toward ``max_sessions_per_client``
    (it may still be continued until ``session_ttl_s``), so an abandoned game locks nobody out for long."""
    keep_finished_s: float = 7 * 24 * 3600.0
    """A finished game (its state and record) is kept this long after its last move, then purged."""
    purge_interval_s: float = 3600.0
    """How often expired and old finished sessions are deleted (also once at start-up)."""
    max_body_bytes: int = 16 * 1024
    """Largest request body accepted (HTTP 413 past it)."""
    max_move_ms: int = 2000
    """Most thinking time a session may give the bot per move."""
    default_move_ms: int = 300
    """The bot's thinking time per move when a session does not say."""
    max_streams_per_session: int = 8
    """Event streams (the player's and spectators') open on one session at once (HTTP 429 past it)."""
    max_streams_per_client: int = 16
    """Event streams one client address may hold open at once (HTTP 429 past it)."""
    max_streams: int = 256
    """Event streams the whole server holds open at once (HTTP 503 with Retry-After past it)."""
    cache_size: int = 512
    """Live games kept in memory; the others are rebuilt from the database when asked for."""
    workers: int = 2
    """Requests that play (a move and the bot's answers, a new game) at once; more wait their turn."""
    timing: bool = False
    """Send each playing request's timings (``timing`` in the body, a ``Server-Timing`` header): the operator's
    measurement (the load benchmark's), off by default because the bot's time counts its hidden declaration steps,
    whose number its opponent may not know (docs/serve.md, "Timing")."""
    pad_hidden: bool = True
    """Once the bot has taken a step the player is not told of (a skirmish declaration step in the phases
    sequence), make every answer in which the bot moves take the session's hidden budget in wall time, so that
    a client timing its requests cannot count the hidden steps; off (``--no-pad-hidden``) for benchmarks only
    (docs/serve.md, "Timing")."""
    pad_hidden_min_ms: float = 100.0
    """The first hidden budget of a session whose bot does not think for ``move_ms`` (the heuristic); a bot that
    does starts at its ``move_ms``. An answer that overruns the budget raises it to the next step of the grid
    ``first * pad_hidden_ratio ** k``, for the rest of the game."""
    pad_hidden_ratio: float = 1.5
    """The grid's ratio: an overrun tells a client only the step it fell in (a coarser grid tells less and
    waits longer)."""
    keep_alive_s: float = 5.0
    """An idle keep-alive connection is closed this long after its last response (uvicorn's ``timeout_keep_alive``)."""
    header_timeout_s: float = 10.0
    """A request's line and headers must arrive within this long of the connection's opening or of the previous
    response's end (408 and closed past it; :mod:`cardwar.serve.protocol`)."""
    body_timeout_s: float = 10.0
    """A request's body must arrive within this long of its headers (408 and closed past it)."""
    max_header_bytes: int = 16 * 1024
    """Largest request line and headers (a 400 past it; h11's ``max_incomplete_event_size``, through uvicorn's
    ``h11_max_incomplete_event_size``)."""
    max_connections_per_client: int = 64
    """Connections one client address may hold open at once; a further one is closed as soon as it is accepted.
    Above ``max_streams_per_client``, so that an address's event streams leave it room for requests."""
    max_connections: int = 1000
    """Connections and requests in all (uvicorn's ``limit_concurrency``): a request past it gets a 503. Keep it
    under the process's open-file limit (``ulimit -n``), which ``cardwar serve`` raises toward it."""
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("max_sessions_per_client", "max_sessions", "max_body_bytes", "max_move_ms", "default_move_ms",
                     "max_streams_per_session", "max_streams_per_client", "max_streams", "cache_size", "workers",
                     "max_header_bytes", "max_connections_per_client", "max_connections"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        for name in ("session_ttl_s", "session_idle_s", "keep_finished_s", "purge_interval_s", "keep_alive_s",
                     "header_timeout_s", "body_timeout_s"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name[:-2].replace('_', '-')} must be positive, got {getattr(self, name)}")
        if self.pad_hidden_min_ms <= 0:
            raise ValueError(f"pad-hidden-min-ms must be positive, got {self.pad_hidden_min_ms}")
        if self.pad_hidden_ratio <= 1:
            raise ValueError(f"pad-hidden-ratio must be above 1, got {self.pad_hidden_ratio}")
        if self.max_connections_per_client <= self.max_streams_per_client:
            raise ValueError(f"max-connections-per-client ({self.max_connections_per_client}) must be above "
                             f"max-streams-per-client ({self.max_streams_per_client}): an address's streams would "
                             "leave it no connection for its requests")
        if self.default_move_ms > self.max_move_ms:
            raise ValueError(f"default-move-ms ({self.default_move_ms}) is above max-move-ms ({self.max_move_ms})")

    def limits(self) -> dict[str, Any]:
        """What the server was started with (``GET /api/games`` lists it): every ``cardwar serve`` flag but the
        address, the database and the log level, by the setting's name."""
        names = ("max_move_ms", "default_move_ms", "max_sessions_per_client", "max_sessions", "session_ttl_s",
                 "session_idle_s", "keep_finished_s", "purge_interval_s", "max_body_bytes",
                 "max_streams_per_session", "max_streams_per_client", "max_streams", "pad_hidden",
                 "pad_hidden_min_ms", "workers", "timing", "keep_alive_s", "header_timeout_s", "body_timeout_s",
                 "max_header_bytes", "max_connections_per_client", "max_connections")
        return {**{name: getattr(self, name) for name in names}, "cors_origins": list(self.cors_origins),
                "reproducible_seeds": bool(self.extra.get("reproducible_seeds"))}
