"""What a client is sent: the game as one seat (or a spectator) sees it, never more.

The view is the engine's information view (``state.information_view(seat)``), the
same the engine protocol sends an engine; the log is that seat's visible history
(its own moves in full, the other's as the public log tells them). A spectator gets
the public view (``seat=None``: no hand, no face-down card, no hidden unit) and the
public log. The game record, which holds everything, is given only once the game is over.

A log entry is one move; ``log_seats`` says whose (the order of play is public). An entry
may have parts joined by ``"; "`` (the move, then what it caused: a battle, a reveal, a
roll), the same text as ``cardwar play`` prints.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from cardwar.record import SEATS
from cardwar.serve.moves import legal_moves

if TYPE_CHECKING:
    from cardwar.serve.sessions import Session


def public_map(session: Session) -> dict[str, Any] | None:
    """The hex map as everyone may see it (terrain, objectives; never a unit), with ``victory``: the
    scenario's victory condition in words (RULES.md section 9)."""
    if session.game != "hexwar":
        return None
    from cardwar.envs.hexwar.scenario import victory_sentence

    scenario = session.table.view(None).map
    return {**scenario.to_dict(), "victory": victory_sentence(scenario.objectives, scenario.turns)}


def session_state(session: Session, seat: int | None) -> dict[str, Any]:
    """The session as ``seat`` sees it (None: a spectator)."""
    table, seats = session.table, SEATS[session.game]
    view = table.view(seat).to_dict()
    to_move = table.to_move
    over = session.over
    yours = seat is not None and not over and to_move == seat
    state: dict[str, Any] = {
        "session": session.id, "game": session.game, "version": session.version,
        "status": "over" if over else ("your_turn" if yours else "waiting"),
        "you": None if seat is None else seats[seat],
        "bot": {"seat": seats[session.bot_seat], "agent": session.settings["agent"],
                "options": session.settings.get("options", {}), "move_ms": session.settings["move_ms"]},
        "to_move": None if over or to_move is None else seats[to_move],
        "turn": table.state.turn, "scenario": session.settings.get("scenario"), "rules": table.env.config.to_dict(),
        "view": view,
        "legal": legal_moves(session.game, view, table.legal()) if yours else [],
        "log": list(table.history[seat] if seat is not None else table.log),
        "log_seats": [m.seat for m in table.moves],
        "result": session.result(),
    }
    if session.game == "hexwar":
        state["map"] = public_map(session)
    return state
