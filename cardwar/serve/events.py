"""Session events for the server-sent event streams: a change wakes every stream of that session.

Requests run in worker threads; streams wait on the event loop. :meth:`Broadcaster.changed`
is called from a thread after a session is saved and hands the news to the loop. What a
stream then sends is the state committed for its own reader (the person's seat, or a
spectator), so an event never carries more than a plain read of the state would.

Streams are capped (:class:`StreamLimits`): per session and per client address (429 past
either), and in all (503 with ``Retry-After``); a stream that is refused never opens.
"""

from __future__ import annotations

import asyncio
import threading
from collections import Counter, defaultdict
from typing import NamedTuple

from cardwar.serve.errors import ServeError

RETRY_AFTER_S = 30
"""What a client refused for a full server is told to wait (streams come and go)."""


class StreamLimits(NamedTuple):
    """The most event streams open at once: on one session, from one client address, in all."""

    per_session: int = 8
    per_client: int = 16
    total: int = 256


class Broadcaster:
    """Per-session wake-ups, from any thread to the streams waiting on the loop; counts and caps the streams."""

    def __init__(self, limits: StreamLimits | None = None) -> None:
        self.limits = limits or StreamLimits()
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._client_of: dict[asyncio.Event, str] = {}
        self._per_client: Counter[str] = Counter()
        self._lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None
        self.closing = False
        """The server is shutting down: every stream sends a ``close`` event and ends (:meth:`close_all`)."""

    def subscribe(self, session_id: str, client: str = "") -> asyncio.Event:
        """An event set whenever the session changes (call from the loop); :class:`ServeError` past a cap."""
        self.loop = asyncio.get_running_loop()
        event = asyncio.Event()
        cap = self.limits
        with self._lock:
            if self.closing:
                raise ServeError(503, "the server is shutting down; try again in a moment", retry_after=5)
            if len(self._client_of) >= cap.total:
                raise ServeError(503, f"the server holds as many event streams as it may ({cap.total}); "
                                      "try again later, or read the state instead", retry_after=RETRY_AFTER_S)
            if len(self._waiters.get(session_id, ())) >= cap.per_session:
                raise ServeError(429, f"too many event streams on this session (this server's cap is "
                                      f"{cap.per_session}): close one (a page's tab) first")
            if self._per_client[client] >= cap.per_client:
                raise ServeError(429, f"too many event streams from this address (this server's cap is "
                                      f"{cap.per_client}): close one (a page's tab) first")
            self._waiters[session_id].add(event)
            self._client_of[event] = client
            self._per_client[client] += 1
        return event

    def unsubscribe(self, session_id: str, event: asyncio.Event) -> None:
        with self._lock:
            waiting = self._waiters.get(session_id)
            if waiting is not None and event in waiting:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[session_id]
            client = self._client_of.pop(event, None)
            if client is not None:
                self._per_client[client] -= 1
                if self._per_client[client] <= 0:
                    del self._per_client[client]

    def changed(self, session_id: str) -> None:
        """The session changed (call from any thread)."""
        with self._lock:
            events = list(self._waiters.get(session_id, ()))
        if events and self.loop is not None and not self.loop.is_closed():
            for event in events:
                self.loop.call_soon_threadsafe(event.set)

    def close_all(self) -> None:
        """The server is shutting down (uvicorn's first step, before it waits for open requests): wake every stream,
        which then ends with a ``close`` event, so the shutdown is prompt and cancels nothing."""
        with self._lock:
            self.closing = True
            events = list(self._client_of)
        for event in events:
            if self.loop is not None and not self.loop.is_closed():
                self.loop.call_soon_threadsafe(event.set)

    def streams(self) -> int:
        """The streams open now, on every session."""
        with self._lock:
            return len(self._client_of)
