"""What stands before the routes: JSON errors, and the request body's size limit (413 with a message)."""

from __future__ import annotations

from typing import Any

from fastapi.responses import JSONResponse


def error_response(status: int, message: str, retry_after: int | None = None) -> JSONResponse:
    """``{"error": message}`` with ``status`` (and ``Retry-After`` when given)."""
    headers = {"Retry-After": str(retry_after)} if retry_after is not None else None
    return JSONResponse({"error": message}, status_code=status, headers=headers)


class BodyLimit:
    """413 with a JSON message for a body over the limit: by its Content-Length before it is read, else
    (a chunked body) by reading at most the limit, which the route then gets as one piece. A Content-Length
    that is not a number is a JSON 400 (uvicorn refuses most before the app: see :mod:`cardwar.serve.protocol`)."""

    def __init__(self, app: Any, limit: int) -> None:
        self.app, self.limit = app, limit

    def _too_large(self) -> JSONResponse:
        return error_response(413, f"request body too large (this server's limit is {self.limit} bytes)")

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return await self.app(scope, receive, send)
        lengths = [v for k, v in scope.get("headers") or () if k.lower() == b"content-length"]
        if lengths:
            if len(set(lengths)) != 1 or not lengths[0].strip().isdigit():
                return await error_response(400, "bad Content-Length header: give the body's size in bytes, "
                                                 "a number")(scope, receive, send)
            if int(lengths[0]) > self.limit:
                return await self._too_large()(scope, receive, send)
            return await self.app(scope, receive, send)
        if scope.get("method") in ("GET", "HEAD", "OPTIONS"):
            return await self.app(scope, receive, send)
        body, more = b"", True
        while more:
            message = await receive()
            if message["type"] != "http.request":
                return
            body += message.get("body", b"")
            more = message.get("more_body", False)
            if len(body) > self.limit:
                return await self._too_large()(scope, receive, send)
        sent = False

        async def replay() -> dict:
            nonlocal sent
            if sent:
                return await receive()
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
