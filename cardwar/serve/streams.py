"""The event streams (server-sent events): the person's seat's state, or the public one, after every change.

A stream is opened by a dependency (:func:`open_stream`) that checks the token and takes
a place under the stream caps before the response starts, so a refusal is a plain JSON
4xx; the place is given back when the stream ends, however it ends.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from fastapi.sse import ServerSentEvent

from cardwar.serve.errors import ServeError
from cardwar.serve.events import Broadcaster
from cardwar.serve.sessions import SessionManager

KEEPALIVE_S = 15.0


@dataclass
class Stream:
    """An open stream: its session, whether it is a spectator's, and its wake-up event."""

    session_id: str
    spectator: bool
    wake: asyncio.Event


async def open_stream(manager: SessionManager, broadcaster: Broadcaster, session_id: str, token: str | None,
                      client: str, spectator: bool) -> AsyncIterator[Stream]:
    """Check the token (a spectator's stream also takes the watch token), take a place (429/503 past the
    caps), and give it back when the stream is over."""
    session = manager.get(session_id)
    manager.authorize(session, token, watch=spectator)
    wake = broadcaster.subscribe(session.id, client)
    try:
        yield Stream(session.id, spectator, wake)
    finally:
        broadcaster.unsubscribe(session.id, wake)


CLOSING = {"reason": "the server is shutting down; the game is saved: read it again, or reconnect, in a moment"}
"""The ``close`` event's data: a stream ended by the server's shutdown, not by the game."""


async def events(manager: SessionManager, stream: Stream,
                 broadcaster: Broadcaster | None = None) -> AsyncIterator[ServerSentEvent]:
    """The committed state now, then after every change, until the game is over (a comment every 15 s keeps
    the connection open); a session that expires or is purged while watched ends with an ``error`` event, and
    every stream ends with a ``close`` event when the server shuts down."""
    sent = -1
    while True:
        if broadcaster is not None and broadcaster.closing:
            yield ServerSentEvent(event="close", data=CLOSING)
            return
        try:
            session = manager.get(stream.session_id)
        except ServeError as err:
            yield ServerSentEvent(event="error", data={"error": err.message})
            return
        state: dict[str, Any] = session.state(spectator=stream.spectator)
        if state["version"] != sent:
            sent = state["version"]
            yield ServerSentEvent(event="state", id=str(sent), data=state)
            if state["status"] == "over":
                return
        try:
            await asyncio.wait_for(stream.wake.wait(), KEEPALIVE_S)
        except asyncio.TimeoutError:  # TimeoutError from 3.11 on
            yield ServerSentEvent(comment="keep-alive")
        stream.wake.clear()
