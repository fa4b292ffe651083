"""The server's settings: limits that keep one client from taking the server, and where sessions live."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class ServerSettings:
    """What ``cardwar serve`` is started with (every limit has a flag of the same name)."""

    db: Path = Path("cardwar-sessions.db")
    """The SQLite file that holds every session (created when missing)."""
    cors_origins: tuple[str, ...] = ()
    """Web origins allowed to call the API from a browser page of theirs (none by default)."""
    max_sessions_per_client: int = 20
    """Open sessions one client address may hold at once (HTTP 429 past it)."""
    max_sessions: int = 2000
    """Open sessions the whole server holds at once."""
    session_ttl_s: float = 24 * 3600.0
    """A session that sees no request for this long expires (its game is dropped)."""
    max_body_bytes: int = 16 * 1024
    """Largest request body accepted (HTTP 413 past it)."""
    max_move_ms: int = 2000
    """Most thinking time a session may give the bot per move."""
    default_move_ms: int = 300
    """The bot's thinking time per move when a session does not say."""
    cache_size: int = 512
    """Live games kept in memory; the others are rebuilt from the database when asked for."""
    workers: int = 2
    """Requests that play (a move and the bot's answers, a new game) at once; more wait their turn."""
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("max_sessions_per_client", "max_sessions", "max_body_bytes", "max_move_ms", "default_move_ms",
                     "cache_size", "workers"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name.replace('_', '-')} must be at least 1, got {getattr(self, name)}")
        if self.session_ttl_s <= 0:
            raise ValueError(f"session-ttl must be positive, got {self.session_ttl_s}")
        if self.default_move_ms > self.max_move_ms:
            raise ValueError(f"default-move-ms ({self.default_move_ms}) is above max-move-ms ({self.max_move_ms})")
