"""The skirmish as text (the ansi render, terminal play), drawn from what a viewer may know (RULES.md §9.2).

``render_text(state, viewer)`` for ``viewer``:

* ``0`` or ``1``: that side, built only from ``state.information_view(viewer)``, so nothing it may not
  know (unseen enemies, the enemy's unrevealed orders, ammunition and Kings) can reach the text;
* ``None``: a spectator who sees only what is public, i.e. what each side knows of the other: a side's
  units as the *enemy's* view shows them (seen now, or where last seen), no unrevealed order, no
  ammunition, skills or Kings (only their counts), no mines. Built from the two information views;
* ``"omniscient"``: everything (each side's units from its own view, both hands of Kings, both sides'
  mines, the decision in progress).

Layout (fits 100 columns for the 24-hex-wide grid):

* a header: scenario title, turn/limit, sequence, stage, the activation card (deck sequence), whose
  decision it is and, where the viewer may know it, the step, the unit and the answers so far;
* the map: pointy-top hexes in odd-r rows (odd rows shifted right by half a hex), 3 characters a hex:
  the ground character (§1.2), a unit glyph and a mark. Glyphs: side 0's figures ``A``..``Z``, side 1's
  ``a``..``z`` (scenario order), vehicles digits (side 0 ``1``..``4``, side 1 ``6``..``9``). Marks:
  ``*`` the unit the decision is about, ``?`` an enemy where last seen (not seen now), ``+`` more than one
  unit in the hex (the glyph is the first, a vehicle before its riders), ``@`` an objective, ``!`` a
  mine the viewer knows of;
* the edges (§1.3) by kind, doors as they stand now (building walls are implied: every outer edge of a
  ``B`` or ``K`` hex not listed);
* objectives and their holders, casualty points;
* per side: cards drawn this turn, pack and discard sizes, Kings (own cards; the enemy's only counted),
  then a table of its units: glyph, name, hex, stance, wounds, weapon, ammunition/reserve and grenades
  (own only), flags (burning, watching, moved, ran, deployed, jammed) and the order as far as revealed;
* the last few events the viewer may see.

The glyph of a unit depends on the scenario alone, never on the state, so it tells nothing hidden.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass, field
from typing import Any

from cardwar.envs.skirmish.actions import GRID, WIDTH, Step
from cardwar.envs.skirmish.board import GROUND_CHARS, Board, Edge, Ground
from cardwar.envs.skirmish.cards import card_to_str
from cardwar.envs.skirmish.figures import Stance
from cardwar.envs.skirmish.view import SkirmishView, UnitView

Viewer = Any  # 0, 1, None or "omniscient"

TEXT_WIDTH = 100
ACTING, GHOST, MORE, OBJECTIVE, MINE = "*", "?", "+", "@", "!"
SIDE0_VEHICLES, SIDE1_VEHICLES = "1234", "6789"

LEGEND: dict[str, str] = {
    **{GROUND_CHARS[g]: g.name.lower().replace("_", " ") for g in Ground},
    ACTING: "unit the decision is about", GHOST: "enemy last seen here (not seen now)",
    MORE: "more units in the hex", OBJECTIVE: "objective", MINE: "own mine",
}
"""Every map character that is not a unit glyph, and its one meaning."""

STANCE_NAMES = {int(s): s.name.lower() for s in Stance}
EDGE_NAMES = {Edge.WALL_LOW: "waist-high wall", Edge.WALL_HIGH: "head-high wall", Edge.HEDGE_LOW: "waist-high hedge",
              Edge.HEDGE_HIGH: "head-high hedge", Edge.DOOR_OPEN: "open door", Edge.DOOR_CLOSED: "closed door",
              Edge.WINDOW: "window", Edge.BUILDING_WALL: "building wall", Edge.EMBRASURE: "embrasure"}
FACINGS = ("E", "NE", "NW", "W", "SW", "SE")
"""Directions 0..5, counter-clockwise from east (board.py)."""
VIEWER_NAMES = {None: "spectator view", "omniscient": "omniscient view"}


# ----------------------------------------------------------------------------- what a viewer knows
@dataclass
class Scene:
    """Everything a render may show for one viewer, gathered from information views only."""

    viewer: Viewer
    title: str
    sides: tuple[str, str]
    board: Board
    width: int
    height: int
    turn: int
    turn_limit: int
    sequence: str
    stage: str
    to_move: int | None
    step: Step | None
    unit: int | None
    partial: dict[str, Any]
    units: list[UnitView]
    drawn: tuple[tuple[int, ...], tuple[int, ...]]
    pack_sizes: tuple[int, int]
    discard_sizes: tuple[int, int]
    kings: list[tuple[int, ...] | None]
    """Each side's Kings as the viewer knows them: the cards, or None (only counted)."""
    king_counts: tuple[int, int]
    activation: tuple | None
    deck_left: int
    objectives: dict[int, int]
    objective_names: dict[int, str]
    objective_owner: dict[int, int]
    casualty_points: tuple[int, int]
    open_doors: frozenset
    mines: tuple[int, ...]
    events: tuple[str, ...]
    over: bool
    winner: int | None
    victory: str = ""
    """The scenario's victory condition in a few words (public)."""
    glyphs: dict[int, str] = field(default_factory=dict)
    team_names: dict[int, list[str]] = field(default_factory=dict)

    @property
    def side_names(self) -> tuple[str, str]:
        return self.sides


def unit_glyphs(scenario: Any) -> dict[int, str]:
    """uid -> map glyph, from the scenario alone (figures first in file order, then vehicles; new_state's
    uids): side 0's figures A..Z, side 1's a..z, vehicles digits."""
    out: dict[int, str] = {}
    count = [0, 0]
    for uid, f in enumerate(scenario.figures):
        base = "A" if f.side == 0 else "a"
        out[uid] = chr(ord(base) + count[f.side] % 26)
        count[f.side] += 1
    vcount = [0, 0]
    for j, v in enumerate(scenario.vehicles):
        digits = SIDE0_VEHICLES if v.side == 0 else SIDE1_VEHICLES
        out[len(scenario.figures) + j] = digits[vcount[v.side] % len(digits)]
        vcount[v.side] += 1
    return out


def victory_text(scenario: Any) -> str:
    """The scenario's victory condition in a few words (RULES.md §10)."""
    v = scenario.victory
    sides = scenario.sides
    if v.kind == "objectives":
        return "hold the objectives at the turn limit"
    if v.kind == "exit" and v.exit_side is not None:
        return f"{sides[v.exit_side]} exits {v.exit_count} figures by the {v.exit_edge} edge"
    if v.kind == "destroy":
        return f"disable, destroy or drive off {v.target}"
    if v.kind == "casualties":
        return "inflict more casualty points" + (f" (a vehicle {v.vehicle_points})" if v.vehicle_points else "")
    return v.kind


def _common_events(a: tuple[str, ...], b: tuple[str, ...], keep: int = 40) -> tuple[str, ...]:
    """The events both sides see (a longest common subsequence of their recent events): the public record."""
    a, b = a[-keep:], b[-keep:]
    n, m = len(a), len(b)
    best = [[0] * (m + 1) for _ in range(n + 1)]
    for i in range(n - 1, -1, -1):
        for j in range(m - 1, -1, -1):
            best[i][j] = best[i + 1][j + 1] + 1 if a[i] == b[j] else max(best[i + 1][j], best[i][j + 1])
    out, i, j = [], 0, 0
    while i < n and j < m:
        if a[i] == b[j]:
            out.append(a[i])
            i, j = i + 1, j + 1
        elif best[i + 1][j] >= best[i][j + 1]:
            i += 1
        else:
            j += 1
    return tuple(out)


def scene(state: Any, viewer: Viewer) -> Scene:
    """What ``viewer`` may know of ``state``: built from ``state.information_view`` only."""
    if viewer not in (0, 1, None, "omniscient") or isinstance(viewer, bool):
        raise ValueError(f"viewer must be 0, 1, None or 'omniscient', got {viewer!r}")
    sc = state.scenario
    if viewer in (0, 1):  # this side's view alone: nothing else reaches its render
        v: SkirmishView = state.information_view(viewer)
        units = list(v.units)
        kings: list[tuple[int, ...] | None] = [None, None]
        kings[viewer] = v.kings
        counts = [0, 0]
        counts[viewer], counts[1 - viewer] = len(v.kings), v.enemy_kings
        step, unit, partial, mines, events = v.step, v.unit, dict(v.partial), v.mines, v.events
    else:
        views = [state.information_view(0), state.information_view(1)]
        v = views[0]
        if viewer is None:  # a side's units as its enemy knows them
            units = [u for s in (0, 1) for u in views[1 - s].units if u.side == s]
            kings = [None, None]
            step, unit, partial, mines = None, None, {}, ()
            events = _common_events(views[0].events, views[1].events)
        else:  # omniscient: each side's units as it knows them itself
            units = [u for s in (0, 1) for u in views[s].units if u.side == s]
            kings = [views[0].kings, views[1].kings]
            d = views[v.to_move] if v.to_move is not None else v
            step, unit, partial = d.step, d.unit, dict(d.partial)
            mines = tuple(sorted(set(views[0].mines) | set(views[1].mines)))
            events = tuple(e.text for e in state.events)
        counts = [views[1].enemy_kings, views[0].enemy_kings]
        units.sort(key=lambda u: u.uid)
    victory = sc.victory
    return Scene(
        viewer=viewer, title=sc.title or sc.name, sides=tuple(sc.sides), board=sc.board, width=sc.width,
        height=sc.height, turn=v.turn, turn_limit=v.turn_limit, sequence=v.sequence, stage=v.stage,
        to_move=v.to_move, step=step, unit=unit, partial=partial, units=units, drawn=v.drawn,
        pack_sizes=v.pack_sizes, discard_sizes=v.discard_sizes, kings=kings, king_counts=(counts[0], counts[1]),
        activation=v.activation, deck_left=v.deck_left, objectives=dict(v.objectives),
        objective_names=dict(getattr(victory, "objective_names", {}) or {}), objective_owner=dict(v.objective_owner),
        casualty_points=v.casualty_points, open_doors=v.open_doors, mines=tuple(mines), events=tuple(events),
        over=v.over, winner=v.winner, victory=victory_text(sc), glyphs=unit_glyphs(sc), team_names=dict(sc.teams))


# ----------------------------------------------------------------------------- pieces shared with picture.py
def on_map(u: UnitView) -> bool:
    """Whether the unit stands on the table (alive, incapacitated included; a vehicle even as a wreck)."""
    if u.vehicle:
        return True
    return u.wounds < 3 and (u.active or u.wounds >= 2)


def status(u: UnitView) -> str:
    if u.vehicle:
        return ",".join(u.damage) if u.damage else ("active" if u.active else "out")
    if u.wounds >= 3:
        return "dead"
    if u.wounds == 2:
        return "incapacitated"
    if not u.active:
        return "off table"
    return "wounded" if u.wounds == 1 else "fit"


def activation_name(sc: Scene, card: tuple | None) -> str:
    if not card:
        return "none"
    kind = card[0]
    if kind == "team":
        names = sc.team_names.get(card[1]) or []
        team = names[card[2]] if card[2] < len(names) else f"fire team {card[2] + 1}"
        return f"{sc.sides[card[1]]} {team}"
    if kind == "free":
        return f"{sc.sides[card[1]]} free move"
    who = card[1]
    if isinstance(who, int):
        known = next((u for u in sc.units if u.uid == who), None)
        who = known.name if known is not None else f"unit {who}"
    return f"{kind} {who}"


def _label(cell: int | None) -> str:
    return "-" if cell is None or cell < 0 else GRID.label(cell)


def decision_line(sc: Scene) -> str:
    """Whose decision it is and, where the viewer may know it, what is asked about which unit."""
    if sc.over:
        return "Game over: " + ("a draw" if sc.winner is None else f"{sc.sides[sc.winner]} wins")
    if sc.to_move is None:
        return "No decision pending"
    text = f"{sc.sides[sc.to_move]} to decide"
    if sc.step is None:
        return text
    text += f": {sc.step.name.lower()}"
    u = next((x for x in sc.units if x.uid == sc.unit), None)
    if u is not None:
        text += f" for {u.name} at {_label(u.cell)}"
    if sc.partial:
        parts = []
        for k, val in sc.partial.items():
            if val is None or val == []:
                continue
            if k in ("destination",) and isinstance(val, int):
                val = _label(val)
            elif k == "targets":
                val = " ".join(_label(t) for t in val)
            elif k == "stance" and isinstance(val, int):
                val = STANCE_NAMES.get(val, val)
            parts.append(f"{k} {val}")
        if parts:
            text += " (so far: " + ", ".join(parts) + ")"
    return text


def cards_text(cards: tuple[int, ...]) -> str:
    return " ".join(card_to_str(c) for c in cards) if cards else "none"


def order_text(u: UnitView) -> str:
    o = u.order
    if not o:
        return ""
    parts = []
    mode = o.get("mode")
    if mode and mode != "stay":
        dest = o.get("destination")
        parts.append(f"{mode}" + (f">{_label(dest)}" if dest is not None else ""))
    elif "mode" in o:
        parts.append("stay")
    if o.get("watch"):
        parts.append("watch")
    action = o.get("action")
    if action and action != "nothing":
        targets = o.get("targets") or []
        parts.append(action + (">" + ",".join(_label(t) for t in targets) if targets else ""))
    return " ".join(parts)


def weapon_text(u: UnitView) -> str:
    if u.vehicle:
        return u.weapon
    w = u.weapon
    if u.at_weapon and u.at_weapon != w:
        w += "+" + u.at_weapon
    return w


def ammo_text(u: UnitView) -> str:
    if u.vehicle:
        return "" if u.at_ammo is None else f"gun {u.at_ammo}"
    if u.ammo is None:
        return ""
    text = f"{u.ammo}/{u.reserve}"
    if u.at_weapon and u.at_ammo is not None:
        text += f" at{u.at_ammo}"
    return text


def flags(u: UnitView) -> list[str]:
    out = []
    if u.burning:
        out.append("burning")
    if u.watching:
        out.append("watching")
    if u.jammed:
        out.append("jammed")
    if u.deployed:
        out.append("deployed")
    if u.ran:
        out.append("ran")
    elif u.moved:
        out.append("moved")
    return out


# ----------------------------------------------------------------------------- the text
def _map_lines(sc: Scene) -> list[str]:
    by_cell: dict[int, list[UnitView]] = {}
    for u in sc.units:
        if on_map(u):
            by_cell.setdefault(u.cell, []).append(u)
    for here in by_cell.values():  # vehicles first, then seen before last-seen, then uid
        here.sort(key=lambda u: (not u.vehicle, not u.seen, u.uid))
    mines = set(sc.mines)
    acting = next((u.cell for u in sc.units if u.uid == sc.unit), None) if sc.unit is not None else None
    lines = ["    " + "".join(f"{chr(65 + c):<3}" for c in range(sc.width)).rstrip()]
    for r in range(sc.height):
        row = [f"{r + 1:>3} " + (" " if r % 2 else "")]
        for c in range(sc.width):
            cell = r * WIDTH + c
            ground = GROUND_CHARS[sc.board.ground[cell]]
            here = by_cell.get(cell, [])
            glyph = sc.glyphs.get(here[0].uid, "?") if here else " "
            if cell == acting:
                mark = ACTING
            elif here and not here[0].seen:
                mark = GHOST
            elif len(here) > 1:
                mark = MORE
            elif cell in sc.objectives:
                mark = OBJECTIVE
            elif cell in mines:
                mark = MINE
            else:
                mark = " "
            row.append(ground + glyph + mark)
        lines.append("".join(row).rstrip())
    return lines


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, TEXT_WIDTH, subsequent_indent="    ", break_on_hyphens=False) or [""]


def _edge_lines(sc: Scene) -> list[str]:
    groups: dict[Edge, list[str]] = {}
    for (a, b), e in sorted(sc.board.edges.items()):
        now = sc.board.edge(a, b, sc.open_doors)
        groups.setdefault(now, []).append(f"{GRID.label(a)}-{GRID.label(b)}")
    if not groups:
        return ["Edges: none listed (building walls: every outer edge of B and K hexes)"]
    out = []
    for e in sorted(groups):
        out += _wrap(f"  {EDGE_NAMES.get(e, e.name.lower())}: " + " ".join(groups[e]))
    return ["Edges (building walls: every outer edge of B and K hexes not listed here):"] + out


def _unit_rows(sc: Scene, side: int) -> list[str]:
    rows = []
    for u in sc.units:
        if u.side != side:
            continue
        g = sc.glyphs.get(u.uid, "?")
        if not u.seen:  # last seen: only where, and what it carries (its state now is not known)
            rows.append(f"  {g} {u.name[:18]:<18} {_label(u.cell):<4} last seen there")
            continue
        if u.vehicle:
            facing = "" if u.facing is None else f" facing {FACINGS[u.facing % 6]}"
            head = f"  {g} {u.name[:18]:<18} {_label(u.cell):<4} {'vehicle ' + (u.armour or ''):<13}{facing:<9}"
            tail = [weapon_text(u), ammo_text(u), status(u), *flags(u), order_text(u)]
        else:
            st = STANCE_NAMES.get(u.stance, str(u.stance))
            head = f"  {g} {u.name[:18]:<18} {_label(u.cell):<4} {st:<9}{u.wounds}  {weapon_text(u):<16}"
            own = u.ammo is not None
            tail = [f"{ammo_text(u):<7}" if own else "", f"gren {u.grenades}" if own and u.grenades else "",
                    f"petrol {u.petrol_bombs}" if own and u.petrol_bombs else "",
                    f"knives {u.knives}" if own and u.knives else "",
                    "" if status(u) in ("fit", "wounded") else status(u), *flags(u),
                    ("order: " + order_text(u)) if order_text(u) else ""]
        row = (head + " " + " ".join(t for t in tail if t)).rstrip()
        if len(row) > TEXT_WIDTH and tail and tail[-1]:  # the order goes on a line of its own, whole
            rows.append((head + " " + " ".join(t for t in tail[:-1] if t)).rstrip()[:TEXT_WIDTH])
            rows.append(("      " + tail[-1])[:TEXT_WIDTH])
        else:
            rows.append(row[:TEXT_WIDTH])
    return rows or ["  (no unit known)"]


def _side_lines(sc: Scene, side: int) -> list[str]:
    kings = sc.kings[side]
    k = f"Kings {cards_text(kings)}" if kings is not None else f"Kings held {sc.king_counts[side]}"
    head = (f"{sc.sides[side]} (side {side}, {'upper' if side == 0 else 'lower'} case): drawn this turn "
            f"{cards_text(sc.drawn[side])}; pack {sc.pack_sizes[side]}, discards {sc.discard_sizes[side]}; {k}")
    columns = "  G Name               Hex  Stance   W  Weapon           Ammo/res, grenades, flags, order"
    return _wrap(head) + [columns] + _unit_rows(sc, side)


def render_scene(sc: Scene) -> str:
    who = VIEWER_NAMES.get(sc.viewer) or f"{sc.sides[sc.viewer]}'s view"
    lines = [f"{sc.title} - turn {sc.turn}/{sc.turn_limit} - {who}"]
    head = f"Sequence {sc.sequence}, stage {sc.stage}"
    if sc.sequence == "deck":
        head += f"; activation card: {activation_name(sc, sc.activation)} ({sc.deck_left} left in the deck)"
    lines += _wrap(head)
    lines += _wrap(decision_line(sc))
    lines += _map_lines(sc)
    lines += _wrap("Map: " + "  ".join(f"{ch} {name}" for ch, name in LEGEND.items())
                   + "  A-Z side 0, a-z side 1, 1-4 / 6-9 vehicles")
    lines += _edge_lines(sc)
    objs = []
    for cell, pts in sorted(sc.objectives.items()):
        owner = sc.objective_owner.get(cell)
        name = sc.objective_names.get(cell)
        objs.append(f"{_label(cell)}{' ' + name if name else ''} {pts} pts: "
                    + ("nobody" if owner is None else sc.sides[owner]))
    lines += _wrap(f"Victory: {sc.victory}. Objectives: " + ("; ".join(objs) if objs else "none")
                   + f".  Casualty points scored: {sc.sides[0]} {sc.casualty_points[0]}, "
                   f"{sc.sides[1]} {sc.casualty_points[1]}")
    for side in (0, 1):
        lines += _side_lines(sc, side)
    if sc.events:
        lines.append("Recent events:")
        for e in sc.events[-5:]:
            lines += _wrap("  " + e)
    return "\n".join(line[:TEXT_WIDTH] for line in lines)


def render_text(state: Any, viewer: Viewer = None) -> str:
    """The board and forces as ``viewer`` (0, 1, None for a spectator, ``"omniscient"``) may know them."""
    return render_scene(scene(state, viewer))


__all__ = ["LEGEND", "Scene", "render_scene", "render_text", "scene", "unit_glyphs"]
