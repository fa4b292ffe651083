"""rgb_array pictures of the trench map (Pillow), drawn from a seat's information view.

``render_rgb(state, viewer)`` draws what ``viewer`` knows: in Tank Attack that is everything but the
future dice (RULES.md 18), so every viewer sees the same map and only the title differs.

Layout: a title bar (scenario, bound, whose bound and PIPs, the viewer); the map, one square per cell
(:data:`CELL_PX` pixels) with column letters and row numbers; a status panel (the stage and who decides,
the pending choice, reserves, AP Lost, the bound's last events, the result). Ground: open pale green,
road sand, hill ochre, wood dark green, crater brown, ruin and town grey, river and ford blue, bridge
brown, lake deep blue. A trench is a dark brown zig-zag band, a Strongpoint a thick black frame, wire a
row of crosses in its owner's colour, the Command Bunker a black square with ``K``. An element is a
base in its side's colour (defender blue, attacker red) with its two-letter code (``envs/tankattack/
text.py``) and a thick bar on its front edge; a General has a white ring, a Suppressed element a
hatched base, the element the decision is about a yellow outline.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw

from cardwar.envs.hexmap.picture import HIGHLIGHT, INK, PAPER, SIDE_RGB, TITLE_BG
from cardwar.envs.hexmap.picture import font as _font
from cardwar.envs.tankattack.board import Ground, cell_at, parse_map
from cardwar.envs.tankattack.scenario import SIDE_NAMES
from cardwar.envs.tankattack.text import VIEWER_NAMES, decider, element_code, pending_line, type_name
from cardwar.envs.tankattack.view import TankView

CELL_PX = 34
MARGIN = 22
TITLE_H = 26
PANEL_LINES = 9
LINE_H = 15
MIN_WIDTH = 640

GROUND_RGB: dict[Ground, tuple[int, int, int]] = {
    Ground.OPEN: (196, 214, 160), Ground.ROAD: (222, 204, 160), Ground.HILL: (206, 176, 104),
    Ground.WOOD: (74, 122, 64), Ground.CRATER: (150, 118, 84), Ground.RUIN: (150, 150, 150),
    Ground.TOWN: (170, 160, 150), Ground.RIVER: (90, 140, 210), Ground.FORD: (150, 190, 230),
    Ground.BRIDGE: (140, 100, 60), Ground.LAKE: (40, 80, 160),
}
TRENCH_RGB = (92, 60, 30)


def image_size(width: int, height: int) -> tuple[int, int]:
    """Pixel size of a ``width`` x ``height`` map's picture."""
    w = max(2 * MARGIN + width * CELL_PX, MIN_WIDTH)
    return w, TITLE_H + MARGIN + height * CELL_PX + 8 + PANEL_LINES * LINE_H + 8


def _xy(col: int, row: int) -> tuple[int, int]:
    return MARGIN + col * CELL_PX, TITLE_H + MARGIN + row * CELL_PX


@lru_cache(maxsize=32)
def _terrain(rows: tuple[str, ...]) -> Image.Image:
    """The map's fixed layer: ground, trenches, Strongpoints, labels (built once a map)."""
    b = parse_map(rows)
    img = Image.new("RGB", image_size(b.width, b.height), PAPER)
    d = ImageDraw.Draw(img)
    f = _font(11)
    for r in range(b.height):
        d.text((4, _xy(0, r)[1] + CELL_PX // 2 - 6), str(r + 1), fill=INK, font=f)
        for c in range(b.width):
            cell = cell_at(c, r)
            x, y = _xy(c, r)
            d.rectangle([x, y, x + CELL_PX - 1, y + CELL_PX - 1], fill=GROUND_RGB[b.ground[cell]],
                        outline=(160, 160, 140))
            if cell in b.trench:
                pts = [(x + k * CELL_PX // 4, y + CELL_PX // 2 + (5 if k % 2 else -5)) for k in range(5)]
                d.line(pts, fill=TRENCH_RGB, width=5)
            if cell in b.strongpoints:
                d.rectangle([x + 2, y + 2, x + CELL_PX - 3, y + CELL_PX - 3], outline=INK, width=3)
    for c in range(b.width):
        d.text((_xy(c, 0)[0] + CELL_PX // 2 - 3, TITLE_H + 5), chr(ord("A") + c), fill=INK, font=f)
    return img


def _element(d: ImageDraw.ImageDraw, e: dict, col: int, row: int, marked: bool) -> None:
    x, y = _xy(col, row)
    m = 4
    box = [x + m, y + m, x + CELL_PX - 1 - m, y + CELL_PX - 1 - m]
    colour = SIDE_RGB[e["side"]]
    d.rectangle(box, fill=colour, outline=HIGHLIGHT if marked else INK, width=3 if marked else 1)
    if e["suppressed"]:
        for k in range(box[0], box[2], 6):
            d.line([(k, box[3]), (min(k + 6, box[2]), box[1])], fill=(240, 240, 240), width=1)
    if e["general"]:
        d.ellipse([box[0] + 3, box[1] + 3, box[2] - 3, box[3] - 3], outline=(255, 255, 255), width=2)
    fx0, fy0, fx1, fy1 = box
    front = [(fx0, fy0, fx1, fy0), (fx1, fy0, fx1, fy1), (fx0, fy1, fx1, fy1), (fx0, fy0, fx0, fy1)][e["facing"]]
    d.line(front, fill=(250, 250, 250), width=4)
    d.text((x + CELL_PX // 2 - 7, y + CELL_PX // 2 - 6), element_code(e).upper(), fill=(255, 255, 255), font=_font(11))


def render_view_rgb(v: TankView, viewer: int | str | None = None) -> np.ndarray:
    """The picture of a view, (height, width, 3) uint8."""
    data = v.data
    sc = data["scenario"]
    rows = tuple(sc["map"])
    img = _terrain(rows).copy()
    b = parse_map(rows)
    d = ImageDraw.Draw(img)
    for c_label, owner in data["wire"].items():
        col, row = ord(c_label[0]) - ord("A"), int(c_label[1:]) - 1
        x, y = _xy(col, row)
        for k in range(3):
            cx, cy = x + 6 + k * 11, y + CELL_PX - 8
            d.line([(cx - 3, cy - 3), (cx + 3, cy + 3)], fill=SIDE_RGB[owner], width=2)
            d.line([(cx - 3, cy + 3), (cx + 3, cy - 3)], fill=SIDE_RGB[owner], width=2)
    if data["bunker_alive"] and b.bunker is not None:
        x, y = _xy(b.bunker % 16, b.bunker // 16)
        d.rectangle([x + 5, y + 5, x + CELL_PX - 6, y + CELL_PX - 6], fill=INK)
        d.text((x + CELL_PX // 2 - 3, y + CELL_PX // 2 - 6), "K", fill=(255, 255, 255), font=_font(12))
    p = data["pending"]
    marked = {p[k] for k in ("element", "shooter") if k in p and p[k] >= 0}
    for k, e in enumerate(data["elements"]):
        if e["cell"] in ("reserve", "lost", "gone"):
            continue
        col, row = ord(e["cell"][0]) - ord("A"), int(e["cell"][1:]) - 1
        _element(d, e, col, row, k in marked)
    width = img.size[0]
    d.rectangle([0, 0, width, TITLE_H - 1], fill=TITLE_BG)
    who = VIEWER_NAMES.get(viewer if viewer is not None else v.seat, str(viewer))
    d.text((8, 6), f"{sc['name']} | bound {data['bound']}/{2 * sc['turn_limit']}, "
                   f"{SIDE_NAMES[data['active']]}'s, PIPs {data['pips']}/{data['pip_roll']} | view: {who}",
           fill=(255, 255, 255), font=_font(13))
    y = TITLE_H + MARGIN + b.height * CELL_PX + 8
    dec = decider(data)
    if dec is None:
        res = data["result"] or {}
        w = res.get("winner")
        lines = [f"GAME OVER: {'draw' if w is None else SIDE_NAMES[w] + ' wins'} ({res.get('reason', '')})"]
    else:
        lines = [f"stage {data['stage']}: the {SIDE_NAMES[dec]} decides"]
    pend = pending_line(data)
    if pend:
        lines.append(pend)
    for sd, name in enumerate(SIDE_NAMES):
        res_ = [type_name(e) for e in data["elements"] if e["side"] == sd and e["cell"] == "reserve"]
        lost = sum(1 for e in data["elements"] if e["side"] == sd and e["cell"] == "lost")
        lines.append(f"{name}: reserve {', '.join(res_) or 'none'}; {lost} Lost")
    lines += [f"- {ev}" for ev in data["events"][-(PANEL_LINES - len(lines)):]]
    f = _font(12)
    for k, line in enumerate(lines[:PANEL_LINES]):
        d.text((8, y + k * LINE_H), line[:110], fill=INK, font=f)
    return np.asarray(img, dtype=np.uint8)


def render_rgb(state, viewer: int | str | None = None) -> np.ndarray:
    """The picture for a seat (0/1), a spectator (``None``) or ``"omniscient"``: always drawn from an
    information view (the same for all, as nothing is hidden)."""
    seat = viewer if viewer in (0, 1) else None
    return render_view_rgb(state.information_view(seat), viewer)
