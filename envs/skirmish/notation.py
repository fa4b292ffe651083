"""The skirmish's move notation, its table of action ids, and what each seat may read of a move (the arena's hooks).

A move is one id of the flat action space (:mod:`cardwar.envs.skirmish.actions`), written as a hex label
(``"C5"``) or a choice's name (``"walk"``). Every id range:

{{ACTION_TABLE}}

What the other seat reads of a move: nothing but that a decision was made (``"?"``), and of a hidden
declaration step not even that, unless it caused something public (the last one reveals). A move of the
skirmish is a small step of one figure's orders, and the orders are hidden (RULES.md §9.1: declarations
until the reveal) or their effects are what the other side may see (§9.2: a move is seen only where a
figure sees it); what a move publicly causes - the reveal, draws, wounds - is told by the engine's public
events, which :func:`narrate` returns after the move's own line.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from cardwar.envs.doc_pages import fill, id_range, markdown_table
from cardwar.envs.skirmish.pending import DECLARATION_STAGES
from cardwar.envs.skirmish.actions import CHOICES, COMBAT_ACTIONS, GRID, N_ACTIONS, N_CELLS, STANCES, action_name, \
    parse_action

HIDDEN = "?"
SEATS = ("player_0", "player_1")


class SkirmishNotationError(ValueError):
    """Text that names no action."""


def action_to_string(action: int) -> str:
    """The notation of ``action``: a hex label (``"C5"``) or a choice's name (``"walk"``)."""
    return action_name(int(action))


def string_to_action(text: str) -> int:
    """The id ``text`` names (:class:`SkirmishNotationError`, a ValueError, otherwise)."""
    try:
        return parse_action(text)
    except ValueError as err:
        raise SkirmishNotationError(str(err)) from None


_GROUPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("movement mode", ("stay", "crawl", "search", "walk", "run", "move", "all_out_run")),
    ("stance", STANCES),
    ("opportunity fire", ("watch", "no_watch")),
    ("combat action / activity", COMBAT_ACTIONS),
    ("control", ("done", "hold")),
    ("For King and Country! (play a kept King on the figure, §3.4)", ("king",)),
    ("vehicle speed", ("speed_0", "speed_1", "speed_2", "speed_3")),
    ("fire team", ("team_0", "team_1", "team_2", "team_3")),
)


def action_table() -> list[tuple[str, str, str, str]]:
    """Every id range: (ids, kind, meaning, notation)."""
    rows = [(id_range(0, N_CELLS - 1), "hex", "a destination, a target, the figure to activate, a mover to fire at "
             "(by its hex)", f"{GRID.label(0)} .. {GRID.label(N_CELLS - 1)}")]
    named = set()
    for kind, names in _GROUPS:
        ids = [N_CELLS + CHOICES.index(n) for n in names if n in CHOICES]
        if not ids:
            continue
        assert ids == list(range(ids[0], ids[0] + len(ids))), f"the {kind} ids are not one range"
        named.update(names)
        rows.append((id_range(min(ids), max(ids)), kind, ", ".join(n for n in names if n in CHOICES),
                     "the name"))
    rest = [n for n in CHOICES if n not in named]
    for n in rest:  # a choice added to actions.py and not grouped here still gets its row
        rows.append((str(N_CELLS + CHOICES.index(n)), "choice", n, "the name"))
    rows.sort(key=lambda r: int(r[0].split("..")[0]))
    assert sum(len(range(int(r[0].split("..")[0]), int(r[0].split("..")[-1]) + 1)) for r in rows) == N_ACTIONS
    return rows


ACTION_TABLE = markdown_table(("ids", "kind", "meaning", "notation"), action_table())

__doc__ = fill(__doc__, ACTION_TABLE=ACTION_TABLE)


def narrate(before: Any, action: int, after: Any) -> list[str]:
    """Public log lines of ``action``: who decided, then the engine's public events the move caused."""
    seat = before.current_player
    lines = [f"{SEATS[seat]} decides"]
    lines += [e.text for e in after.events[len(before.events):] if e.seat is None]
    return lines


class BeforeMove(NamedTuple):
    """What :func:`narrate` and :func:`seen_notation` read of the position before a move: a few fields, where a
    whole copy of the state would cost milliseconds a move."""

    current_player: int
    stage: str
    events: tuple


def before_move(state: Any) -> BeforeMove:
    """The snapshot of ``state`` the two notation hooks need (the arena takes it before each move)."""
    return BeforeMove(state.current_player, state.stage, tuple(state.events))


def seen_notation(before: Any, action: int, after: Any, viewer: int) -> str | None:
    """The move as ``viewer`` may know it: whole for the mover, :data:`HIDDEN` for the other seat; None (the
    other seat is not told of it at all) for a declaration step that caused nothing public, since even the
    number of a side's steps tells how its figures declared (a figure that stays answers fewer)."""
    if viewer == before.current_player:
        return action_to_string(action)
    if before.stage in DECLARATION_STAGES and not any(e.seat is None for e in after.events[len(before.events):]):
        return None
    return HIDDEN


__all__ = ["ACTION_TABLE", "BeforeMove", "DECLARATION_STAGES", "HIDDEN", "SkirmishNotationError", "action_table", "action_to_string",
           "before_move", "narrate", "seen_notation", "string_to_action"]
