"""uvicorn's HTTP/1.1 protocol (h11), with JSON refusals and deadlines for slow clients.

uvicorn refuses a malformed request (a ``Content-Length`` that is not a number, a bad
header line) before the application sees it, with a plain-text 400. Every refusal of
this server is ``{"error": ...}``: this subclass writes that instead, naming what h11
found wrong.

uvicorn bounds some of what a client may hold, with its own settings, which ``cardwar serve``
passes on: ``timeout_keep_alive`` (an idle connection between two requests),
``h11_max_incomplete_event_size`` (the request line and headers) and ``limit_concurrency``
(connections and requests in all; its 503 is answered here in JSON). It bounds nothing
before the first request of a connection, nor the time a request's headers or body may
take to arrive, nor how many connections one address holds, so a client that opens
connections and sends nothing, or a byte at a time, or a body that never ends, held a file
descriptor each for as long as it liked (issue 28). :func:`guarded_protocol` adds, as
Apache's ``mod_reqtimeout`` and nginx's ``client_header_timeout`` / ``client_body_timeout`` do:

- **header deadline**: a request's line and headers must have arrived ``header_timeout_s`` after the
  connection opened, or after the previous response ended (an idle keep-alive connection is closed sooner,
  by uvicorn's ``timeout_keep_alive``); past it the connection is closed (with a JSON 408 if part of a
  request came);
- **body deadline**: the whole body must have arrived ``body_timeout_s`` after the headers (408, closed);
- **connections per address**: past ``max_connections_per_client`` open at once from one address, a new
  connection is closed as soon as it is accepted (the peer address of the TCP connection, not a header).

``cardwar serve`` runs uvicorn with it (``http=guarded_protocol(...)``).
"""

from __future__ import annotations

import json
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

def _response(status: int, reason: bytes, message: str, extra: list[tuple[bytes, bytes]] = ()) -> tuple:
    body = json.dumps({"error": message}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
               (b"connection", b"close"), *extra]
    return h11.Response(status_code=status, headers=headers, reason=reason), body


class JsonErrorH11Protocol(H11Protocol):
    """:class:`H11Protocol` whose 400 for an unreadable request is JSON; its ``shutdown_hooks`` run once."""

    shutdown_hooks: ClassVar[list[Callable[[], None]]] = []
    """Called once when uvicorn starts its shutdown, before it waits for the open requests: the event streams
    end with a ``close`` event then, instead of being cancelled after the graceful timeout
    (:meth:`cardwar.serve.events.Broadcaster.close_all`)."""

    def send_400_response(self, msg: str) -> None:
        err = sys.exc_info()[1]  # called from h11's RemoteProtocolError handler: it says what was wrong
        detail = str(err).splitlines()[0][:200] if err is not None and str(err) else ""
        text = "malformed HTTP request" + (f" ({detail})" if detail else "") + \
            ": check the request line and headers (Content-Length must be a number of bytes)"
        self._refuse(400, b"Bad Request", text)

    def _refuse(self, status: int, reason: bytes, text: str) -> None:
        """Answer ``status`` with ``{"error": text}`` and close, whatever h11's state (the raw bytes where h11
        cannot send a response now: before a request was read)."""
        response, body = _response(status, reason, text)
        try:
            data = self.conn.send(response) + self.conn.send(h11.Data(data=body)) + self.conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError:
            head = b"".join(b"%s: %s\r\n" % (k, v) for k, v in response.headers)
            data = b"HTTP/1.1 %d %s\r\n%s\r\n%s" % (status, reason, head, body)
        self.transport.write(data)
        self.transport.close()

    def shutdown(self) -> None:
        hooks = type(self).shutdown_hooks
        while hooks:  # each runs once, at the first connection uvicorn shuts down
            hooks.pop(0)()
        super().shutdown()


@dataclass(frozen=True)
class ConnectionLimits:
    """What one connection may hold, and how many one address may open (``cardwar serve``'s flags)."""

    header_timeout_s: float = 10.0
    body_timeout_s: float = 10.0
    max_connections_per_client: int = 64
    max_connections: int | None = None
    """uvicorn's ``limit_concurrency``: connections and requests in all, past which a request gets a 503."""


class GuardedH11Protocol(JsonErrorH11Protocol):
    """The deadlines and the per-address count of the module docstring (configured by :func:`guarded_protocol`)."""

    limits: ClassVar[ConnectionLimits] = ConnectionLimits()
    per_address: ClassVar[Counter[str]] = Counter()
    refused_logged: ClassVar[dict[str, float]] = {}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._concurrency = self.limit_concurrency
        self.limit_concurrency = None  # uvicorn's check, answered in JSON by _concurrency_guard below
        self.app = self._concurrency_guard(self.app)
        self._deadline: Any = None
        self._deadline_kind: str | None = None
        self._address: str | None = None

    # ------------------------------------------------------------------ connections per address
    def connection_made(self, transport: Any) -> None:  # type: ignore[override]
        super().connection_made(transport)
        address = self.client[0] if self.client else "unknown"
        if self.per_address[address] >= self.limits.max_connections_per_client:
            self._log_refusal(address)
            transport.close()
            return
        self._address = address
        self.per_address[address] += 1
        self._arm()

    def _log_refusal(self, address: str) -> None:
        """One warning a minute per address at most (a flood must not flood the log)."""
        now = time.monotonic()
        if now - self.refused_logged.get(address, -60.0) >= 60.0:
            self.refused_logged[address] = now
            self.logger.warning("%s holds %d connections (this server's cap per address, "
                                "--max-connections-per-client): closing its new ones", address,
                                self.limits.max_connections_per_client)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        if self._address is not None:
            self.per_address[self._address] -= 1
            if self.per_address[self._address] <= 0:
                del self.per_address[self._address]
            self._address = None
        super().connection_lost(exc)

    # ------------------------------------------------------------------ deadlines
    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        self._arm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        self._arm()

    def _arm(self) -> None:
        """The deadline h11's reading state calls for: headers (waiting for a request), body (reading one), or none
        (the request is in, the app has it). A deadline runs from when its state began, not from the last byte."""
        if self.transport is None or self.transport.is_closing():
            return
        state = self.conn.their_state
        kind = "headers" if state is h11.IDLE else "body" if state is h11.SEND_BODY else None
        if kind == self._deadline_kind:
            return
        self._disarm()
        if kind is not None:
            delay = self.limits.header_timeout_s if kind == "headers" else self.limits.body_timeout_s
            self._deadline = self.loop.call_later(delay, self._too_slow, kind)
            self._deadline_kind = kind

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
        self._deadline, self._deadline_kind = None, None

    def _too_slow(self, kind: str) -> None:
        """The deadline passed: a 408 where a request was begun and not yet answered, then the connection is closed."""
        self._deadline, self._deadline_kind = None, None
        if self.transport.is_closing():
            return
        begun = kind == "body" or bool(self.conn.trailing_data[0])
        answering = self.cycle is not None and not self.cycle.response_complete
        if answering and self.cycle.response_started:
            self.transport.close()  # the app answered already (without reading the body): just close
            return
        if answering:  # the app waits for the body: it gets a disconnect, and whatever it sends is dropped
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        if begun:
            limit = self.limits.header_timeout_s if kind == "headers" else self.limits.body_timeout_s
            self._refuse(408, b"Request Timeout", f"the request's {'headers' if kind == 'headers' else 'body'} "
                                                  f"did not arrive within {limit:g} s (this server's limit)")
        else:  # nothing asked: close quietly, as uvicorn closes an idle keep-alive connection
            self.transport.close()

    # ------------------------------------------------------------------ uvicorn's limit_concurrency, in JSON
    def _concurrency_guard(self, app: Any) -> Any:
        async def guarded(scope: Any, receive: Any, send: Any) -> None:
            limit = self._concurrency
            if limit is not None and scope["type"] == "http" and (
                    len(self.connections) >= limit or len(self.tasks) > limit):  # uvicorn's test; this request's task is counted
                self.logger.warning("Exceeded concurrency limit.")
                body = json.dumps({"error": f"the server holds as many connections and requests as it may "
                                            f"({limit}, --max-connections); try again later"}).encode()
                await send({"type": "http.response.start", "status": 503, "headers": [
                    (b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                    (b"retry-after", b"5"), (b"connection", b"close")]})
                await send({"type": "http.response.body", "body": body})
                return
            await app(scope, receive, send)
        return guarded


def guarded_protocol(limits: ConnectionLimits,
                     on_shutdown: list[Callable[[], None]] | None = None) -> type[GuardedH11Protocol]:
    """A protocol class for uvicorn (``http=``) with ``limits``, its own per-address count, and ``on_shutdown``
    (called once, when uvicorn begins to shut down)."""
    return type("CardwarH11Protocol", (GuardedH11Protocol,),
                {"limits": limits, "per_address": Counter(), "refused_logged": {},
                 "shutdown_hooks": list(on_shutdown or ())})
