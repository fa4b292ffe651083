"""What a client is sent: the game as one seat (or a spectator) sees it, never more.

The view is the engine's information view (``state.information_view(seat)``) as the game's
registry entry writes it (:func:`cardwar.games.Game.view_dict`), the same the engine protocol
sends an engine; the log is that seat's visible history (its own moves in full, the other's as
the public log tells them). A spectator gets the public view (``seat=None``: no hand, no
face-down card, no hidden unit, no order undeclared) and the public log. The game record, which
holds everything, is given only once the game is over.

A log entry is one move; ``log_seats`` says whose, for the moves the reader is told of (every move
in naval and hexwar; a skirmish seat is not told of the other side's declaration steps that caused
nothing public, and a spectator of neither side's). An entry may have parts joined by ``"; "``
(the move, then what it caused: a battle, a reveal, a roll), the same text as ``cardwar play`` prints.

``map`` is the game's public map (``public_setup``: terrain, edges, objectives; never a unit) where
the game has one, and ``page`` the web page's module for the game.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardwar import games
from cardwar.serve.moves import legal_moves

if TYPE_CHECKING:
    from cardwar.serve.sessions import Session


def public_map(session: Session) -> dict[str, Any] | None:
    """The map as everyone may see it (terrain, edges, objectives; never a unit): the game's ``extra["page_map"]``
    hook (the page's map, e.g. with the victory condition in words) if it has one, else its ``public_setup``
    hook (:mod:`cardwar.games`), given the game's state (the hook keeps only what is public), or None."""
    g = session.entry
    page_map = g.extra.get("page_map")
    if page_map is not None:
        return games.resolve(page_map)(session.table.state)
    if g.public_setup is None:
        return None
    return g.setup_of(session.table.state)


def _log(session: Session, seat: int | None) -> tuple[list[str], list[str]]:
    """The log lines ``seat`` is told of and whose each is (None: a spectator, told of the public moves)."""
    table = session.table
    if seat is not None:
        history = table.history[seat]
        return list(history), [m["seat"] for m in history.moves]
    public = session.public
    lines = [line for line, told in zip(table.log, public) if told]
    return lines, [m.seat for m, told in zip(table.moves, public) if told]


def session_state(session: Session, seat: int | None) -> dict[str, Any]:
    """The session as ``seat`` sees it (None: a spectator)."""
    table, g = session.table, session.entry
    seats = g.seats
    view = g.view_dict(table.view(seat))
    to_move = table.to_move
    over = session.over
    yours = seat is not None and not over and to_move == seat
    log, log_seats = _log(session, seat)
    state: dict[str, Any] = {
        "session": session.id, "game": session.game, "version": session.version,
        "status": "over" if over else ("your_turn" if yours else "waiting"),
        "you": None if seat is None else seats[seat],
        "bot": {"seat": seats[session.bot_seat], "agent": session.settings["agent"],
                "options": session.settings.get("options", {}), "move_ms": session.settings["move_ms"]},
        "to_move": None if over or to_move is None else seats[to_move],
        "turn": table.state.turn, "scenario": _scenario_name(session), "rules": table.env.config.to_dict(),
        "view": view,
        "legal": legal_moves(g, view, table.legal()) if yours else [],
        "log": log,
        "log_seats": log_seats,
        "result": session.result(),
        "page": g.page,
    }
    if session.setup is None:  # read once a game: the map does not change
        session.setup = {"map": public_map(session)}
    public = session.setup["map"]
    if public is not None:
        state["map"] = public
    return state


def _scenario_name(session: Session) -> str | None:
    """The scenario as the session named it (a generator's name, ``random``, never the map's seed)."""
    return session.settings.get("scenario")
