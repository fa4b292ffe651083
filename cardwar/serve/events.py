"""Session events for the server-sent event streams: a change wakes every stream of that session.

Requests run in worker threads; streams wait on the event loop. :meth:`Broadcaster.changed`
is called from a thread after a session is saved and hands the news to the loop. What a
stream then sends is built for its own reader (the person's seat, or a spectator), so an
event never carries more than a plain read of the state would.
"""

from __future__ import annotations

import asyncio
import threading
from collections import defaultdict


class Broadcaster:
    """Per-session wake-ups, from any thread to the streams waiting on the loop."""

    def __init__(self) -> None:
        self._waiters: dict[str, set[asyncio.Event]] = defaultdict(set)
        self._lock = threading.Lock()
        self.loop: asyncio.AbstractEventLoop | None = None

    def subscribe(self, session_id: str) -> asyncio.Event:
        """An event set whenever the session changes (call from the loop)."""
        self.loop = asyncio.get_running_loop()
        event = asyncio.Event()
        with self._lock:
            self._waiters[session_id].add(event)
        return event

    def unsubscribe(self, session_id: str, event: asyncio.Event) -> None:
        with self._lock:
            waiting = self._waiters.get(session_id)
            if waiting is not None:
                waiting.discard(event)
                if not waiting:
                    del self._waiters[session_id]

    def changed(self, session_id: str) -> None:
        """The session changed (call from any thread)."""
        with self._lock:
            events = list(self._waiters.get(session_id, ()))
        if events and self.loop is not None and not self.loop.is_closed():
            for event in events:
                self.loop.call_soon_threadsafe(event.set)

    def streams(self) -> int:
        with self._lock:
            return sum(len(w) for w in self._waiters.values())
