"""The hex map as text (ansi render, terminal play) and public narration of moves.

Drawn from an information view, so a side (or a spectator) sees no hidden unit.
Odd rows are indented half a hex (odd-r layout). A unit is its type letter,
upper case for blue, lower case for red, followed by its hits; ``*`` marks the
unit to act, ``o`` objectives, ``s`` smoke.
"""

from __future__ import annotations

from cardwar.envs.hexwar.actions import DECODED, Kind, action_to_string
from cardwar.envs.hexwar.hexgrid import label
from cardwar.envs.hexwar.scenario import MAX_WIDTH, SIDES, Scenario, cell_of, hex_of
from cardwar.envs.hexwar.state import HexPhase, HexState
from cardwar.envs.hexwar.terrain import CHAR_OF
from cardwar.envs.hexwar.units import STATS
from cardwar.envs.hexwar.view import HexView


def _unit_code(side: int, utype) -> str:
    code = STATS[utype].code
    return code if side == 0 else code.lower()


def render_view(v: HexView, scenario: Scenario) -> str:
    """The board as ``v.side`` knows it."""
    by_cell: dict[int, list] = {}
    for u in v.units:
        if u.cell >= 0:
            by_cell.setdefault(u.cell, []).append(u)
    objectives = {cell_of(o.hex): h for o, h in zip(scenario.objectives, v.holders)}
    acting = next((u for u in v.units if u.uid == v.acting), None)
    lines = [f"{scenario.title} - turn {v.turn}/{v.turns}"]
    cols = "     " + "".join(f"{chr(65 + c):<6}" for c in range(scenario.width))
    lines.append(cols)
    for r in range(scenario.height):
        row = [f"{r + 1:>3} " + ("   " if r % 2 else "")]
        for c in range(scenario.width):
            cell = r * MAX_WIDTH + c
            t = CHAR_OF[scenario.terrain[cell]]
            units = "".join(_unit_code(u.side, u.type) + str(u.hits) for u in by_cell.get(cell, []))
            mark = "*" if acting is not None and acting.cell == cell else ""
            if cell in objectives:
                mark += "o"
            if cell in v.smoke:
                mark += "s"
            row.append(f"{t}{units}{mark}"[:6].ljust(6))
        lines.append("".join(row).rstrip())
    off = [f"{SIDES[u.side]} {STATS[u.type].name} ({u.hits} hits{', acted' if u.activated else ''})"
           for u in v.units if u.cell < 0]
    if off:
        lines.append("Off-table: " + "; ".join(off))
    held = ", ".join(f"{label(o.hex)}={'none' if h < 0 else SIDES[h]}" for o, h in zip(scenario.objectives,
                                                                                        v.holders))
    lines.append(f"Objectives: {held}   Lost: blue {v.lost[0]}, red {v.lost[1]}")
    if v.phase == HexPhase.GAME_OVER:
        lines.append(describe_result(v.result, v.winner))
    elif v.phase == HexPhase.EVADE:
        lines.append(f"{SIDES[v.current]} decides: evade or not")
    elif acting is not None:
        where = label(hex_of(acting.cell)) if acting.cell >= 0 else "off-table"
        lines.append(f"To act: {SIDES[acting.side]} {STATS[acting.type].name} at {where}")
    else:
        lines.append(f"To act: a {SIDES[v.current]} unit")
    return "\n".join(lines)


def render_state(s: HexState, viewer: int | None | str = None) -> str:
    """Board text for a side (0/1), a spectator (None) or ``"omniscient"`` (hidden units too)."""
    from cardwar.envs.hexwar.view import HexView as _HexView

    if viewer == "omniscient":
        return render_view(_HexView.of(s, None, everything=True), s.scenario)
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
    if after.last_shots is not before.last_shots:
        for r in after.last_shots:
            lines.append(f"  D3 {r.roll} {r.modifier:+d} -> {r.hits} hit(s) on {SIDES[after.side[r.target]]} "
                         f"{STATS[after.utype[r.target]].name}" + (" (cover)" if r.cover else "")
                         + (" - eliminated" if r.eliminated else ""))
    if after.is_terminal() and not before.is_terminal():
        lines.append(describe_result(after.result, after.winner))
    return lines
