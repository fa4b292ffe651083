"""The hex map as text (ansi render, terminal play) and public narration of moves.

Drawn from an information view, so a side (or a spectator) sees no hidden unit.
Odd rows are indented half a hex (odd-r layout). Each hex is 8 characters: its
terrain character, then up to two units - type letter (upper case blue, lower
case red) and hits - then marks: ``*`` the unit to act, ``@`` an objective,
``%`` smoke. Below the map: objectives, the activation cards of the turn (played
and still to come, as far as the viewer may know them) and a legend. No
character means two things (:data:`LEGEND` is checked for that).
"""

from __future__ import annotations

import textwrap

from cardwar.envs.hexwar.actions import DECODED, Kind, action_to_string
from cardwar.envs.hexwar.hexgrid import label
from cardwar.envs.hexwar.scenario import MAX_WIDTH, SIDES, Scenario, cell_of, hex_of
from cardwar.envs.hexwar.state import HexPhase, HexState, card_order_key
from cardwar.envs.hexwar.terrain import CHAR_OF, Terrain
from cardwar.envs.hexwar.units import STATS, UnitType
from cardwar.envs.hexwar.view import HexView, UnitView
from cardwar.envs.naval.cards import card_to_str

CELL = 8
"""Characters per hex."""
ACTING, OBJECTIVE, SMOKE = "*", "@", "%"

LEGEND: dict[str, str] = {
    **{CHAR_OF[t]: t.name.lower() for t in Terrain},
    **{STATS[t].code: STATS[t].name for t in UnitType},
    ACTING: "unit to act", OBJECTIVE: "objective", SMOKE: "smoke",
}
"""Every character the map uses and its one meaning (unit letters: upper case blue, lower case red)."""

_WIDTH = 100
"""Wrap width of the lines under the map."""


def _unit_code(side: int, utype: UnitType) -> str:
    code = STATS[utype].code
    return code if side == 0 else code.lower()


def legend_lines() -> list[str]:
    """The legend printed under every map."""
    terrain = "  ".join(f"{CHAR_OF[t]} {t.name.lower()}" for t in Terrain)
    units = "  ".join(f"{STATS[t].code} {STATS[t].name}" for t in UnitType)
    out: list[str] = []
    for text in (f"Terrain: {terrain}", f"Units (blue upper case, red lower case, then hits): {units}",
                 f"Marks: {ACTING} unit to act  {OBJECTIVE} objective  {SMOKE} smoke"):
        out += textwrap.wrap(text, _WIDTH, subsequent_indent="    ", break_on_hyphens=False)
    return out


def _where(u: UnitView) -> str:
    return label(hex_of(u.cell)) if u.cell >= 0 else "off-table"


def _card_entry(u: UnitView, acting: int) -> str:
    mark = ACTING if u.uid == acting else ""
    return f"{mark}{card_to_str(u.card)} {SIDES[u.side]} {STATS[u.type].name} {_where(u)}"


def card_lines(v: HexView) -> list[str]:
    """The turn's activation cards as ``v.side`` may know them (seed: "deal a card face up for
    each unit ... starting with the highest value card (Kings) working down").

    Known units show card, side, type and hex; the enemy's hidden units only their face-up
    cards. Never the undealt deck (its order is secret).
    """
    entries: list[tuple[tuple[int, int], bool, str]] = []
    for u in v.units:
        if u.card >= 0:
            entries.append((card_order_key(u.card), u.activated, _card_entry(u, v.acting)))
    hidden_acts = v.phase == HexPhase.ACT and v.acting < 0  # the card up belongs to a hidden unit
    top = max((card_order_key(c) for _, c, played in v.hidden_cards if not played), default=None)
    for side, card, played in v.hidden_cards:
        mark = ACTING if hidden_acts and card_order_key(card) == top else ""
        entries.append((card_order_key(card), played, f"{mark}{card_to_str(card)} {SIDES[side]} hidden unit"))
    entries.sort(reverse=True)
    done = [e for _, played, e in entries if played]
    to_come = [e for _, played, e in entries if not played]
    out = [f"Cards of turn {v.turn} (King high; spades, hearts, diamonds, clubs):"]
    for head, items in (("to come", to_come), ("played", done)):
        text = f"  {head}: " + (", ".join(items) if items else "none")
        out += textwrap.wrap(text, _WIDTH, subsequent_indent="    ", break_on_hyphens=False)
    return out


def render_view(v: HexView, scenario: Scenario, title: str | None = None) -> str:
    """The board as ``v.side`` knows it (``title`` overrides the public title)."""
    by_cell: dict[int, list[UnitView]] = {}
    for u in v.units:
        if u.cell >= 0:
            by_cell.setdefault(u.cell, []).append(u)
    public = v.map if v.map is not None else scenario
    objectives = {cell_of(o.hex) for o in scenario.objectives}
    acting = next((u for u in v.units if u.uid == v.acting), None)
    lines = [f"{title or public.title} - turn {v.turn}/{v.turns}"]
    half = CELL // 2
    lines.append((" " * 4 + "".join(f"{chr(65 + c):<{CELL}}" for c in range(scenario.width))).rstrip())
    for r in range(scenario.height):
        row = [f"{r + 1:>3} " + (" " * half if r % 2 else "")]
        for c in range(scenario.width):
            cell = r * MAX_WIDTH + c
            units = "".join(_unit_code(u.side, u.type) + str(u.hits) for u in by_cell.get(cell, []))
            mark = ACTING if acting is not None and acting.cell == cell else ""
            if cell in objectives:
                mark += OBJECTIVE
            if cell in v.smoke:
                mark += SMOKE
            row.append(f"{CHAR_OF[scenario.terrain[cell]]}{units}{mark}".ljust(CELL))
        lines.append("".join(row).rstrip())
    off = [f"{SIDES[u.side]} {STATS[u.type].name} ({u.hits} hits{', acted' if u.activated else ''})"
           for u in v.units if u.cell < 0]
    if off:
        lines.append("Off-table: " + "; ".join(off))
    held = "; ".join(f"{o.title}, {o.value} pt{'s' if o.value != 1 else ''}: {'none' if h < 0 else SIDES[h]}"
                     for o, h in zip(scenario.objectives, v.holders))
    lines += textwrap.wrap(f"Objectives: {held or 'none'}.   Lost: blue {v.lost[0]}, red {v.lost[1]}", _WIDTH,
                           subsequent_indent="    ", break_on_hyphens=False)
    if v.phase != HexPhase.GAME_OVER:
        lines += card_lines(v)
    if v.phase == HexPhase.GAME_OVER:
        lines.append(describe_result(v.result, v.winner))
    elif v.phase == HexPhase.EVADE:
        lines.append(f"{SIDES[v.current]} decides: evade or not")
    elif acting is not None:
        lines.append(f"To act: {SIDES[acting.side]} {STATS[acting.type].name} at {_where(acting)}")
    else:
        lines.append(f"To act: a hidden {SIDES[v.current]} unit")
    lines += legend_lines()
    return "\n".join(lines)


def render_state(s: HexState, viewer: int | None | str = None) -> str:
    """Board text for a side (0/1), a spectator (None) or ``"omniscient"`` (hidden units too)."""
    if viewer == "omniscient":
        return render_view(HexView.of(s, None, everything=True), s.scenario, title=s.scenario.title)
    return render_view(s.information_view(viewer), s.scenario)  # type: ignore[arg-type]


def describe_result(result: dict | None, winner: int | None) -> str:
    """One line: who won and why."""
    if result is None:
        return "game in progress"
    who = "Draw" if winner is None else f"{SIDES[winner].title()} wins"
    if result["reason"] == "elimination":
        return f"{who}: the other side has no unit left on the table"
    pts = result["objective_points"]
    return f"{who} at the turn limit: objective points blue {pts[0]} - red {pts[1]}"


def narrate(before: HexState, action: int, after: HexState) -> list[str]:
    """Public log lines for ``action`` (a hidden unit's pass is not announced by place)."""
    a = DECODED[int(action)]
    side = SIDES[before.current_player]
    u = before.acting_unit()
    who = f"{side} {STATS[before.utype[u]].name}" if u >= 0 else side
    if u >= 0 and before.hidden[u] and a.kind == Kind.PASS:
        return [f"{side}: a hidden unit holds its position"]
    if a.kind in (Kind.EVADE, Kind.NO_EVADE):
        lines = [f"{side} {'takes' if a.kind == Kind.EVADE else 'does not take'} evasive action"]
    else:
        where = label(hex_of(before.cell[u])) if u >= 0 and before.cell[u] >= 0 else "off-table"
        lines = [f"{who} at {where}: {action_to_string(action)}"]
    if a.kind in (Kind.MOVE, Kind.JOINT_MOVE) and u >= 0 and not after.is_terminal():
        shown = [v for v in range(len(after.cell)) if before.hidden[v] and not after.hidden[v]
                 and after.side[v] != before.side[u]]
        for v in shown:
            lines.append(f"  revealed: {SIDES[after.side[v]]} {STATS[after.utype[v]].name} at "
                         f"{label(hex_of(after.cell[v]))}")
        if after.cell[u] != a.cell:
            lines.append(f"  the move stops at {label(hex_of(after.cell[u]))}")
    if after.last_shots is not before.last_shots:
        for r in after.last_shots:
            lines.append(f"  D3 {r.roll} {r.modifier:+d} -> {r.hits} hit(s) on {SIDES[after.side[r.target]]} "
                         f"{STATS[after.utype[r.target]].name}" + (" (cover)" if r.cover else "")
                         + (" - eliminated" if r.eliminated else ""))
    if after.is_terminal() and not before.is_terminal():
        lines.append(describe_result(after.result, after.winner))
    return lines
