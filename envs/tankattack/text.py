"""The trench map as text (the ``ansi`` render), drawn from a seat's information view.

Nothing is hidden in Tank Attack (RULES.md 18), so every viewer sees the same map; the title names the
viewer. Each cell is 3 characters: an element's two-letter code (upper case the defender's, lower case
the attacker's) and its facing (``^ > v <``), or the ground's legend character (RULES.md 20.2: ``#``
trench, ``S`` Strongpoint, ``w`` wire still standing, ``K`` the Bunker while it stands) centred; a
``*`` after a code marks the element the pending decision is about. Below the map: the bound, PIPs,
the stage and who decides, the pending choice, reserves, AP Lost, the bound's events and the legend.
No code means two things (:data:`LEGEND` is checked for that).
"""

from __future__ import annotations

import textwrap

from cardwar.envs.tankattack.board import GROUND_CHAR, cell_at, label, parse_map
from cardwar.envs.tankattack.elements import STATS, EType
from cardwar.envs.tankattack.scenario import SIDE_NAMES
from cardwar.envs.tankattack.view import TankView

CODES: dict[EType, str] = {
    EType.RIFLES: "RI", EType.DISMOUNTED_CAVALRY: "DC", EType.STURMTRUPPE: "ST", EType.MG: "MG",
    EType.LIGHT_MORTAR: "LM", EType.MEDIUM_MORTAR: "MM", EType.FIELD_ARTILLERY: "FA", EType.HEAVY_ARTILLERY: "HA",
    EType.AAA: "AA", EType.FORWARD_OBSERVER: "FO", EType.SNIPER: "SN", EType.MINEFIELD: "MI", EType.TANK: "TK",
    EType.ARMOURED_CAR: "AC", EType.CAVALRY: "CV", EType.BALLOON: "BL", EType.BOMBER: "BO", EType.FIGHTER: "FI",
    EType.SCOUT: "SC", EType.AIR_ACE: "AE", EType.BARRAGE: "BA", EType.GAS: "GS",
}
"""Two letters per element type; the General shows ``GN``."""
GENERAL = "GN"
ARROWS = "^>v<"
PENDING = "*"
LEGEND: dict[str, str] = {
    **{code: STATS[t].name for t, code in CODES.items()}, GENERAL: "General (Rifles)",
    **{ch: g.name.lower() for g, ch in GROUND_CHAR.items()},
    "#": "trench", "S": "Strongpoint", "w": "wire", "K": "Command Bunker",
}
"""Every code and character of the map and its one meaning."""

_WIDTH = 100
_TYPE_OF = {t.name.lower(): t for t in EType}
VIEWER_NAMES = {0: "defender", 1: "attacker", None: "spectator", "omniscient": "omniscient"}


def element_code(e: dict) -> str:
    code = GENERAL if e["general"] else CODES[_TYPE_OF[e["type"]]]
    return code if e["side"] == 0 else code.lower()


def type_name(e: dict) -> str:
    return "General" if e["general"] else STATS[_TYPE_OF[e["type"]]].name


def decider(d: dict) -> int | None:
    """The seat to decide, read from the view's data (as ``TankState.current_player``); ``None`` at the end."""
    st, p, els = d["stage"], d["pending"], d["elements"]
    if st == "game_over":
        return None
    if st in ("face_choice", "recoil_choice"):
        return els[p["element"]]["side"]
    if st in ("shoot_target", "shoot_aid"):
        return els[p["shooter"]]["side"]
    if st == "shoot_return":
        return els[p["target"]]["side"]
    return d["active"]


def pending_line(d: dict) -> str | None:
    p, els = d["pending"], d["elements"]

    def who(e: int) -> str:
        if e == -1:
            return "the Bunker"
        el = els[e]
        return f"{type_name(el)} {el['cell']}"

    if not p:
        return None
    parts = []
    if "element" in p:
        parts.append(f"element {who(p['element'])}")
    if "dest" in p:
        parts.append(f"to {label(p['dest'])}")
    if "shooter" in p:
        parts.append(f"shooter {who(p['shooter'])}")
    if "target" in p:
        parts.append(f"target {who(p['target'])}")
    if p.get("aids"):
        parts.append("aided by " + ", ".join(who(a) for a in p["aids"]))
    if "x" in p:
        parts.append(f"combat of {who(p['x'])}")
    return "Pending: " + "; ".join(parts) if parts else None


def render_view(v: TankView, title: str | None = None, viewer: int | str | None = None) -> str:
    """The map and status of a view as text."""
    d = v.data
    sc = d["scenario"]
    board = parse_map(tuple(sc["map"]))
    grid: dict[str, dict] = {e["cell"]: e for e in d["elements"] if e["cell"] not in ("reserve", "lost", "gone")}
    p = d["pending"]
    marked = {p[k] for k in ("element", "shooter") if k in p and p[k] >= 0}
    marked_cells = {d["elements"][e]["cell"] for e in marked}
    who = VIEWER_NAMES.get(viewer if viewer is not None else v.seat, str(viewer))
    lines = [title or f"{sc['title']} - view of the {who}"]
    lines.append("    " + "".join(f" {chr(ord('A') + c)} " for c in range(board.width)))
    for r in range(board.height):
        row_chars = board.row_text(r)
        out = []
        for c in range(board.width):
            lab = f"{chr(ord('A') + c)}{r + 1}"
            e = grid.get(lab)
            if e is not None:
                out.append(element_code(e) + (PENDING if lab in marked_cells else ARROWS[e["facing"]]))
                continue
            ch = row_chars[c]
            if ch == "w" and lab not in d["wire"]:
                ch = GROUND_CHAR[board.ground[cell_at(c, r)]]
            if ch == "K" and not d["bunker_alive"]:
                ch = "."
            out.append(f" {ch} ")
        lines.append(f"{r + 1:>3} " + "".join(out))
    side_name = SIDE_NAMES[d["active"]]
    lines.append(f"Bound {d['bound']} of {2 * sc['turn_limit']}: the {side_name}'s; PIPs {d['pips']} left of "
                 f"{d['pip_roll']} rolled")
    dec = decider(d)
    if dec is None:
        res = d["result"] or {}
        w = res.get("winner")
        lines.append(f"Game over: {'draw' if w is None else SIDE_NAMES[w] + ' wins'} ({res.get('reason', '')})")
    else:
        lines.append(f"Stage {d['stage']}; the {SIDE_NAMES[dec]} decides")
    pend = pending_line(d)
    if pend:
        lines.append(pend)
    for sd, name in enumerate(SIDE_NAMES):
        res = [type_name(e) for e in d["elements"] if e["side"] == sd and e["cell"] == "reserve"]
        lost = [type_name(e) for e in d["elements"] if e["side"] == sd and e["cell"] == "lost"]
        lost_ap = sum(STATS[_TYPE_OF[e["type"]]].ap for e in d["elements"] if e["side"] == sd and e["cell"] == "lost")
        text = (f"{name.title()} ({'upper' if sd == 0 else 'lower'} case): reserve "
                f"{', '.join(res) or 'none'}; Lost {', '.join(lost) or 'none'} ({lost_ap} AP)")
        lines += textwrap.wrap(text, _WIDTH, subsequent_indent="    ")
    for ev in d["events"][-6:]:
        lines += textwrap.wrap(f"- {ev}", _WIDTH, subsequent_indent="    ")
    lines += legend_lines()
    return "\n".join(lines)


def legend_lines() -> list[str]:
    """The legend printed under every map."""
    elements = "  ".join(f"{code} {name}" for code, name in LEGEND.items() if len(code) == 2)
    ground = "  ".join(f"{ch} {name}" for ch, name in LEGEND.items() if len(ch) == 1)
    out: list[str] = []
    for text in (f"Elements (defender upper case, attacker lower case; then facing {ARROWS}, "
                 f"{PENDING} the element the decision is about): {elements}", f"Map: {ground}"):
        out += textwrap.wrap(text, _WIDTH, subsequent_indent="    ", break_on_hyphens=False)
    return out


def render_state(s, viewer: int | str | None = None) -> str:
    """Board text for a seat (0/1), a spectator (``None``) or ``"omniscient"``: all the same map, as
    nothing is hidden, and always drawn from an information view."""
    seat = viewer if viewer in (0, 1) else None
    return render_view(s.information_view(seat), viewer=viewer)
