"""rgb_array pictures of the skirmish (Pillow, as hexwar's), drawn from what a viewer may know (RULES.md §9.2).

``render_rgb(state, viewer)`` takes the same viewers as :func:`text.render_text` (0, 1, ``None`` for a
spectator who sees only what each side knows of the other, ``"omniscient"``) and draws the same
:class:`text.Scene`, which is built from information views only: an unseen enemy never reaches the
picture of a side or a spectator (an enemy last seen is a hollow ring where it was last seen, without its
stance or wounds, which the viewer does not know now).

Layout: a title bar (scenario title, turn, whose view); the map on the left; a side panel on the right.
The size depends on the scenario's width and height only (deterministic, one shape for every frame).

* Hexes: pointy-top, odd-r rows, coloured by ground (§1.2): clear pale green, light cover yellow-green
  with tufts, woods dark green with tree crowns, rough brown with stones, shell hole with a crater,
  building tan with a roof-tile hatch, bunker dark grey, off-map charcoal; a small hex label on each.
* Edges (§1.3) as thick lines on the hex side: walls grey (head-high darker and thicker), hedges green
  (head-high darker and thicker), building walls near-black, doors brown (an open door is a gap between
  two brown stubs), windows light blue, embrasures dark with a light slit.
* Objectives: a ring in the holder's colour (white: nobody) and a star with the points.
* Figures: discs in the side's colour (blue 0, red 1) with the weapon letter (R rifle, S SMG, L LMG,
  M MMG, P pistol, A anti-tank, K knife, G grenade); the stance mark beside the disc (standing: a tall
  bar; kneeling: a short bar; prone: a flat bar under the disc); wound pips in red above it; an orange ring
  when burning; a white triangle when watching; grey fill when incapacitated. The unit the current
  decision is about has a yellow ring.
* Vehicles: a rectangle in the side's colour turned to its facing, with a turret disc and gun line when the
  facing is known; a black cross when destroyed, a grey fill when out of action.
* The viewer's own mines: a black ``x``.
* The side panel: the stage, the activation card (deck sequence), whose decision and, where the viewer
  may know it, the step; per side the cards drawn this turn (as little cards), pack and discard sizes,
  Kings (own: the cards, enemy: a count) and casualty points; the objectives' holders.
"""

from __future__ import annotations

import math
import textwrap
from collections import OrderedDict
from typing import Any

import numpy as np
from PIL import Image, ImageDraw

from cardwar.envs.hexmap.picture import HIGHLIGHT, INK, PAPER, SIDE_RGB, TITLE_BG
from cardwar.envs.hexmap.picture import ascii_text as _ascii
from cardwar.envs.hexmap.picture import font as _font
from cardwar.envs.hexmap.picture import hexagon as _hexagon
from cardwar.envs.hexmap.picture import hex_centre, map_size
from cardwar.envs.hexmap.picture import star as _star
from cardwar.envs.skirmish.actions import GRID, WIDTH
from cardwar.envs.skirmish.board import Board, Edge, Ground
from cardwar.envs.skirmish.cards import card_to_str
from cardwar.envs.skirmish.text import (VIEWER_NAMES, Scene, activation_name, decision_line, on_map, scene)
from cardwar.envs.skirmish.view import UnitView

# ------------------------------------------------------------------ geometry and palette
R = 20.0
"""Hex radius (centre to corner) in pixels."""
MARGIN = 12
TITLE_H = 34
PANEL_W = 300
MIN_H = 560

PANEL_BG = (226, 220, 204)
OUTLINE = (110, 112, 96)
SIDE_DARK = ((24, 52, 120), (120, 28, 22))
NOBODY = (250, 250, 250)
FIRE = (255, 128, 0)

GROUND_RGB = {
    Ground.CLEAR: (206, 224, 160),
    Ground.LIGHT: (184, 204, 116),
    Ground.WOODS: (86, 138, 70),
    Ground.ROUGH: (192, 164, 118),
    Ground.SHELL_HOLE: (204, 196, 156),
    Ground.BUILDING: (206, 186, 160),
    Ground.BUNKER: (118, 118, 108),
    Ground.OFF: (64, 66, 70),
}
EDGE_STYLE: dict[Edge, tuple[tuple[int, int, int], int]] = {
    Edge.WALL_LOW: ((150, 150, 150), 4),
    Edge.WALL_HIGH: ((96, 96, 100), 6),
    Edge.HEDGE_LOW: ((60, 160, 60), 4),
    Edge.HEDGE_HIGH: ((24, 100, 34), 6),
    Edge.DOOR_CLOSED: ((132, 84, 40), 5),
    Edge.DOOR_OPEN: ((132, 84, 40), 5),
    Edge.WINDOW: ((150, 210, 245), 5),
    Edge.BUILDING_WALL: ((44, 40, 40), 4),
    Edge.EMBRASURE: ((44, 40, 40), 5),
}
"""Colour and width of each obstacle on a hex side."""
WEAPON_LETTER = {"rifle": "R", "smg1": "S", "smg2": "S", "lmg": "L", "mmg": "M", "pistol": "P", "knife": "K",
                 "grenade": "G", "petrol_bomb": "F"}

LEGEND_LINES = ("Weapons: R rifle S SMG L LMG M MMG P pistol A anti-tank",
                "Stance: tall bar standing, short bar kneeling, flat bar prone",
                "Red pips: wounds. Ring with ?: enemy last seen there",
                "Edges: walls grey, hedges green, doors brown, windows blue")
"""The panel's key, at its foot."""


def _weapon_letter(u: UnitView) -> str:
    if u.weapon.startswith("at_"):
        return "A"
    return WEAPON_LETTER.get(u.weapon, (u.weapon[:1] or "?").upper())


class Layout:
    """Pixel geometry of one scenario's picture (its size depends on the map's width and height only)."""

    def __init__(self, width: int, height: int) -> None:
        self.cols, self.rows = width, height
        self.map_w, self.map_h = map_size(width, height, R)
        self.map_x = MARGIN
        self.map_y = TITLE_H + MARGIN
        self.panel_x = int(math.ceil(self.map_x + self.map_w + MARGIN))
        self.w = self.panel_x + PANEL_W
        self.h = int(max(MIN_H, math.ceil(self.map_y + self.map_h + MARGIN)))

    def centre(self, cell: int) -> tuple[float, float]:
        return hex_centre(cell % WIDTH, cell // WIDTH, R, self.map_x, self.map_y)

    def cells(self) -> list[int]:
        return [r * WIDTH + c for r in range(self.rows) for c in range(self.cols)]


def _side_segment(lay: Layout, a: int, b: int, shrink: float = 0.0) -> tuple[tuple[float, float], tuple[float, float]]:
    """The hex side between adjacent cells ``a`` and ``b`` (shortened by ``shrink`` of its length each end)."""
    ax, ay = lay.centre(a)
    bx, by = lay.centre(b)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    dx, dy = bx - ax, by - ay
    n = math.hypot(dx, dy) or 1.0
    px, py = -dy / n, dx / n
    half = R / 2 * (1 - 2 * shrink)
    return (mx - px * half, my - py * half), (mx + px * half, my + py * half)


# ------------------------------------------------------------------ the terrain layer (cached per board)
_CACHE: OrderedDict[tuple, tuple[Board, Layout, Image.Image, list[tuple[int, int, Edge]]]] = OrderedDict()


def _terrain(board: Board, width: int, height: int) -> tuple[Layout, Image.Image, list[tuple[int, int, Edge]]]:
    key = (id(board), width, height)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is board:
        _CACHE.move_to_end(key)
        return hit[1], hit[2], hit[3]
    lay = Layout(width, height)
    img = Image.new("RGB", (lay.w, lay.h), PAPER)
    d = ImageDraw.Draw(img)
    cells = lay.cells()
    for c in cells:
        g = board.ground[c]
        cx, cy = lay.centre(c)
        d.polygon(_hexagon(cx, cy, R), fill=GROUND_RGB[g], outline=OUTLINE)
        _decorate(d, g, c, cx, cy)
    f = _font(8)
    for c in cells:
        cx, cy = lay.centre(c)
        dark = board.ground[c] in (Ground.WOODS, Ground.BUNKER, Ground.OFF)
        d.text((cx, cy - 0.68 * R), GRID.label(c), font=f, anchor="mm",
               fill=(225, 230, 225) if dark else (70, 70, 60))
    inside = set(cells)
    edges = []
    for a in cells:
        for b in GRID.neighbours(a):
            if a < b and b in inside:
                e = board.edge(a, b)
                if e != Edge.OPEN:
                    edges.append((a, b, e))
    _CACHE[key] = (board, lay, img, edges)
    while len(_CACHE) > 16:
        _CACHE.popitem(last=False)
    return lay, img, edges


def _decorate(d: ImageDraw.ImageDraw, g: Ground, cell: int, cx: float, cy: float) -> None:
    rng = np.random.default_rng(cell * 7919 + int(g))
    if g == Ground.WOODS:
        for sx, sy in ((0, 0.05), (-0.45, -0.2), (0.45, -0.2), (-0.35, 0.4), (0.35, 0.4)):
            x, y = cx + (sx + rng.uniform(-0.06, 0.06)) * R, cy + (sy + rng.uniform(-0.06, 0.06)) * R
            rr = R * rng.uniform(0.2, 0.25)
            d.ellipse([x - rr, y - rr, x + rr, y + rr], fill=(56, 104, 48), outline=(36, 74, 32))
    elif g == Ground.LIGHT:
        for _ in range(6):
            x, y = cx + rng.uniform(-0.55, 0.55) * R, cy + rng.uniform(-0.35, 0.55) * R
            d.line([(x - 2, y + 2), (x, y - 2), (x + 2, y + 2)], fill=(120, 150, 60), width=1)
    elif g == Ground.ROUGH:
        for _ in range(6):
            x, y = cx + rng.uniform(-0.55, 0.55) * R, cy + rng.uniform(-0.35, 0.55) * R
            rr = rng.uniform(1.2, 2.4)
            d.ellipse([x - rr, y - rr, x + rr, y + rr], fill=(128, 104, 76))
    elif g == Ground.SHELL_HOLE:
        rr = 0.5 * R
        d.ellipse([cx - rr, cy - rr * 0.75, cx + rr, cy + rr * 0.75], fill=(150, 134, 100), outline=(110, 96, 70),
                  width=2)
    elif g == Ground.BUILDING:
        for k in range(-3, 4):
            y = cy + k * 0.22 * R
            d.line([(cx - 0.8 * R, y), (cx + 0.8 * R, y)], fill=(188, 164, 138), width=1)
    elif g == Ground.BUNKER:
        d.rectangle([cx - 0.45 * R, cy - 0.2 * R, cx + 0.45 * R, cy + 0.2 * R], fill=(90, 90, 84))


# ------------------------------------------------------------------ drawing the scene
def _draw_edge(d: ImageDraw.ImageDraw, lay: Layout, a: int, b: int, e: Edge) -> None:
    colour, width = EDGE_STYLE[e]
    if e == Edge.DOOR_OPEN:  # a gap between two stubs of the door frame
        p, q = _side_segment(lay, a, b)
        t = 0.28
        d.line([p, (p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t)], fill=colour, width=width)
        d.line([(q[0] + (p[0] - q[0]) * t, q[1] + (p[1] - q[1]) * t), q], fill=colour, width=width)
        return
    p, q = _side_segment(lay, a, b)
    d.line([p, q], fill=colour, width=width)
    if e == Edge.EMBRASURE:
        p, q = _side_segment(lay, a, b, shrink=0.3)
        d.line([p, q], fill=(200, 200, 190), width=2)
    elif e == Edge.WINDOW:
        m = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
        d.ellipse([m[0] - 1.5, m[1] - 1.5, m[0] + 1.5, m[1] + 1.5], fill=(60, 100, 140))


def _stance_mark(d: ImageDraw.ImageDraw, x: float, y: float, r: float, stance: int, ink) -> None:
    if stance == 2:  # standing: a tall bar beside the disc
        d.rectangle([x + r + 1, y - r, x + r + 3, y + r], fill=ink)
    elif stance == 1:  # kneeling: a short bar, low, with a foot
        d.rectangle([x + r + 1, y - 1, x + r + 3, y + r], fill=ink)
        d.rectangle([x + r + 1, y + r - 2, x + r + 6, y + r], fill=ink)
    else:  # prone: a flat bar under the disc
        d.rectangle([x - r, y + r + 1, x + r, y + r + 3], fill=ink)


def _figure(d: ImageDraw.ImageDraw, u: UnitView, x: float, y: float, acting: bool) -> None:
    r = 7.5
    colour = SIDE_RGB[u.side]
    if acting:
        d.ellipse([x - r - 4, y - r - 4, x + r + 4, y + r + 4], outline=HIGHLIGHT, width=3)
    if not u.seen:  # last seen here: a hollow ring, nothing of its state now
        d.ellipse([x - r, y - r, x + r, y + r], outline=colour, width=2)
        d.text((x, y), "?", font=_font(10), anchor="mm", fill=colour)
        return
    fill = colour if u.wounds < 2 else tuple(int(c * 0.4 + 150 * 0.6) for c in colour)
    if u.burning:
        d.ellipse([x - r - 2, y - r - 2, x + r + 2, y + r + 2], outline=FIRE, width=2)
    d.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline=SIDE_DARK[u.side])
    d.text((x, y + 0.5), _weapon_letter(u), font=_font(10), anchor="mm", fill=(255, 255, 255))
    _stance_mark(d, x, y, r, u.stance, SIDE_DARK[u.side])
    for i in range(min(u.wounds, 3)):  # wound pips above the disc
        px = x - 3 * (min(u.wounds, 3) - 1) + 6 * i
        d.ellipse([px - 2, y - r - 6, px + 2, y - r - 2], fill=(220, 20, 20), outline=(90, 0, 0))
    if u.watching:
        d.polygon([(x - r - 5, y - r), (x - r + 1, y - r), (x - r - 2, y - r + 5)], fill=(255, 255, 255),
                  outline=INK)


def _vehicle(d: ImageDraw.ImageDraw, u: UnitView, x: float, y: float, acting: bool) -> None:
    colour = SIDE_RGB[u.side]
    ang = math.radians(-60 * u.facing) if u.facing is not None else 0.0
    ux, uy = math.cos(ang), math.sin(ang)
    nx, ny = -uy, ux
    hl, hw = 13.0, 8.0
    box = [(x + ux * sx * hl + nx * sy * hw, y + uy * sx * hl + ny * sy * hw)
           for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    if acting:
        d.ellipse([x - 17, y - 17, x + 17, y + 17], outline=HIGHLIGHT, width=3)
    if not u.seen:
        d.polygon(box, outline=colour, width=2)
        d.text((x, y), "?", font=_font(10), anchor="mm", fill=colour)
        return
    out = "destroyed" in u.damage or "abandoned" in u.damage or not u.active
    fill = colour if not out else tuple(int(c * 0.4 + 140 * 0.6) for c in colour)
    d.polygon(box, fill=fill, outline=SIDE_DARK[u.side], width=2)
    if u.facing is not None:  # turret and gun towards the facing; track marks on the sides
        d.line([(x, y), (x + ux * (hl + 7), y + uy * (hl + 7))], fill=SIDE_DARK[u.side], width=3)
        d.ellipse([x - 5, y - 5, x + 5, y + 5], fill=SIDE_DARK[u.side])
        for s in (-1, 1):
            d.line([(x - ux * hl + nx * s * (hw - 1.5), y - uy * hl + ny * s * (hw - 1.5)),
                    (x + ux * hl + nx * s * (hw - 1.5), y + uy * hl + ny * s * (hw - 1.5))], fill=INK, width=2)
    if "destroyed" in u.damage:
        d.line([(x - 10, y - 10), (x + 10, y + 10)], fill=(0, 0, 0), width=3)
        d.line([(x - 10, y + 10), (x + 10, y - 10)], fill=(0, 0, 0), width=3)


def _card(d: ImageDraw.ImageDraw, x: float, y: float, card: int) -> None:
    name = card_to_str(card)
    d.rectangle([x, y, x + 26, y + 32], fill=(252, 252, 248), outline=(70, 70, 70))
    ink = (190, 30, 30) if name[-1] in "HD" else (20, 20, 20)
    d.text((x + 13, y + 16), name, font=_font(11), anchor="mm", fill=ink)


def _panel(d: ImageDraw.ImageDraw, sc: Scene, lay: Layout) -> None:
    x0 = lay.panel_x
    d.rectangle([x0, TITLE_H, lay.w, lay.h], fill=PANEL_BG)
    d.line([(x0, TITLE_H), (x0, lay.h)], fill=(170, 164, 148), width=1)
    x, y = x0 + 10, TITLE_H + 10
    f, fb = _font(11), _font(13)

    def line(text: str, font=f, fill=INK, step: int = 15) -> None:
        nonlocal y
        for part in textwrap.wrap(_ascii(text), 44) or [""]:
            d.text((x, y), part, font=font, anchor="la", fill=fill)
            y += step

    line(f"Sequence {sc.sequence}, stage {sc.stage}")
    if sc.sequence == "deck":
        line(f"Activation: {activation_name(sc, sc.activation)} ({sc.deck_left} left)")
    line(decision_line(sc), font=fb, fill=SIDE_DARK[sc.to_move] if sc.to_move is not None else INK, step=16)
    y += 6
    for side in (0, 1):
        d.rectangle([x, y + 1, x + 10, y + 11], fill=SIDE_RGB[side], outline=INK)
        d.text((x + 16, y), _ascii(sc.sides[side]), font=fb, anchor="la", fill=SIDE_DARK[side])
        y += 18
        line(f"pack {sc.pack_sizes[side]}, discards {sc.discard_sizes[side]}, casualty points inflicted "
             f"{sc.casualty_points[side]}")
        kings = sc.kings[side]
        line("Kings: " + (" ".join(card_to_str(c) for c in kings) or "none" if kings is not None
                          else f"{sc.king_counts[side]} held"))
        line("Drawn this turn:" + ("" if sc.drawn[side] else " none"))
        cards = sc.drawn[side]
        per_row, rows = 9, 2
        shown = cards if len(cards) <= per_row * rows else cards[:per_row * rows - 1]
        for i, c in enumerate(shown):
            _card(d, x + (i % per_row) * 30, y + (i // per_row) * 36, c)
        if len(shown) < len(cards):
            i = len(shown)
            d.text((x + (i % per_row) * 30 + 4, y + (i // per_row) * 36 + 16), f"+{len(cards) - len(shown)}",
                   font=f, anchor="lm", fill=INK)
        if cards:
            y += 36 * ((len(shown) + (len(shown) < len(cards)) - 1) // per_row + 1)
        y += 8
    objs = [f"{GRID.label(c)} {p}pt: " + ("nobody" if sc.objective_owner.get(c) is None
                                           else sc.sides[sc.objective_owner[c]])
            for c, p in sorted(sc.objectives.items())]
    line(f"Victory: {sc.victory}")
    if objs:
        line("Objectives: " + "; ".join(objs))
    y = max(y + 6, lay.h - 4 * 14 - 8)
    for text in LEGEND_LINES:
        d.text((x, y), text, font=_font(10), anchor="la", fill=(80, 80, 80))
        y += 14


def render_scene(sc: Scene) -> np.ndarray:
    lay, base, edges = _terrain(sc.board, sc.width, sc.height)
    img = base.copy()
    d = ImageDraw.Draw(img, "RGBA")
    for a, b, e in edges:
        if e == Edge.DOOR_CLOSED:
            e = sc.board.edge(a, b, sc.open_doors)
        _draw_edge(d, lay, a, b, e)
    for cell, pts in sorted(sc.objectives.items()):
        cx, cy = lay.centre(cell)
        owner = sc.objective_owner.get(cell)
        col = NOBODY if owner is None else SIDE_RGB[owner]
        d.ellipse([cx - 0.82 * R, cy - 0.82 * R, cx + 0.82 * R, cy + 0.82 * R], outline=(*col, 235), width=3)
        d.polygon(_star(cx - 0.55 * R, cy + 0.55 * R, 6), fill=col, outline=INK)
        d.text((cx - 0.55 * R + 7, cy + 0.55 * R), str(pts), font=_font(9), anchor="lm", fill=INK)
    for cell in sc.mines:
        cx, cy = lay.centre(cell)
        d.line([(cx + 6, cy + 4), (cx + 12, cy + 10)], fill=INK, width=2)
        d.line([(cx + 6, cy + 10), (cx + 12, cy + 4)], fill=INK, width=2)
    by_cell: dict[int, list[UnitView]] = {}
    for u in sc.units:
        if on_map(u):
            by_cell.setdefault(u.cell, []).append(u)
    for cell in sorted(by_cell):
        here = sorted(by_cell[cell], key=lambda u: (not u.vehicle, not u.seen, u.uid))
        cx, cy = lay.centre(cell)
        vehicles = [u for u in here if u.vehicle]
        figures = [u for u in here if not u.vehicle]
        for u in vehicles:
            _vehicle(d, u, cx, cy + 1, u.uid == sc.unit)
        fy = cy + (7 if vehicles else 2)
        n = len(figures)
        for i, u in enumerate(figures):
            _figure(d, u, cx + (i - (n - 1) / 2) * 15 - 1, fy, u.uid == sc.unit)
    d.rectangle([0, 0, lay.w, TITLE_H], fill=TITLE_BG)
    d.text((MARGIN, TITLE_H / 2), _ascii(sc.title), font=_font(16), anchor="lm", fill=(245, 245, 245))
    who = VIEWER_NAMES.get(sc.viewer) or f"{sc.sides[sc.viewer]}'s view"
    d.text((lay.w - MARGIN, TITLE_H / 2), _ascii(f"Turn {sc.turn}/{sc.turn_limit} - {who}"), font=_font(13),
           anchor="rm", fill=(200, 205, 215))
    _panel(d, sc, lay)
    return np.asarray(img, dtype=np.uint8)


def render_rgb(state: Any, viewer: Any = None) -> np.ndarray:
    """The table as an (H, W, 3) uint8 picture for a side (0/1), a spectator (None) or ``"omniscient"``."""
    return render_scene(scene(state, viewer))


def image_size(scenario: Any) -> tuple[int, int]:
    """(height, width) of every picture of ``scenario``."""
    lay = Layout(scenario.width, scenario.height)
    return lay.h, lay.w


__all__ = ["Layout", "image_size", "render_rgb", "render_scene"]
