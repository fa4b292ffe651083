"""The bot server: ``cardwar serve``, an HTTP API and a web page where a person plays our agents.

The server is the dealer. It holds each game (:class:`cardwar.arena.Table`) and gives
a client only what its seat may see, as the engine protocol gives an engine. Sessions
live in SQLite, so a restarted server continues every open game. See ``docs/serve.md``.
"""

from cardwar.serve.settings import ServerSettings

__all__ = ["ServerSettings", "create_app"]


def create_app(settings: ServerSettings | None = None):  # noqa: ANN201 - a FastAPI app (imported lazily)
    """The FastAPI application for ``settings`` (defaults: an in-memory-free SQLite file ``cardwar-sessions.db``)."""
    from cardwar.serve.app import create_app as _create

    return _create(settings or ServerSettings())
