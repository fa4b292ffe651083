"""uvicorn's HTTP/1.1 protocol (h11), answering a request it cannot parse with a JSON 400.

uvicorn refuses a malformed request (a ``Content-Length`` that is not a number, a bad
header line) before the application sees it, with a plain-text 400. Every refusal of
this server is ``{"error": ...}``: this subclass writes that instead, naming what h11
found wrong. ``cardwar serve`` runs uvicorn with it (``http=JsonErrorH11Protocol``).
"""

from __future__ import annotations

import json
import sys

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class JsonErrorH11Protocol(H11Protocol):
    """:class:`H11Protocol` whose 400 for an unreadable request is JSON."""

    def send_400_response(self, msg: str) -> None:
        err = sys.exc_info()[1]  # called from h11's RemoteProtocolError handler: it says what was wrong
        detail = str(err).splitlines()[0][:200] if err is not None and str(err) else ""
        text = "malformed HTTP request" + (f" ({detail})" if detail else "") + \
            ": check the request line and headers (Content-Length must be a number of bytes)"
        body = json.dumps({"error": text}).encode()
        headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                   (b"connection", b"close")]
        self.transport.write(self.conn.send(h11.Response(status_code=400, headers=headers, reason=b"Bad Request")))
        self.transport.write(self.conn.send(h11.Data(data=body)))
        self.transport.write(self.conn.send(h11.EndOfMessage()))
        self.transport.close()
