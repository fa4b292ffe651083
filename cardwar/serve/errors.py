"""Errors a client caused, each with its HTTP status and a one-line message (never a 500)."""

from __future__ import annotations


class ServeError(Exception):
    """A request the server refuses; ``status`` is the HTTP status (4xx) and the message says why."""

    def __init__(self, status: int, message: str, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.retry_after = status, message, retry_after


def bad_request(message: str) -> ServeError:
    return ServeError(400, message)


def not_found(session_id: str) -> ServeError:
    return ServeError(404, f"no session {session_id!r} (unknown, or expired and removed)")
