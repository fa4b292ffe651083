"""rgb_array pictures of the hex map (Pillow).

``render_rgb(state, viewer)`` draws the board as ``viewer`` may know it: a side
(0 blue, 1 red) sees its information view, ``None`` the spectator's view (no
hidden unit), ``"omniscient"`` every living unit. Units always come from a
:class:`~cardwar.envs.hexwar.view.HexView`, so a hidden enemy unit never reaches the
picture of a side or a spectator.

Layout (about 900 x 760 px for a 12 x 10 map; the map part scales with the
scenario's width and height):

* a title bar: scenario title, turn, whose move it is, whose view this is;
* the map: pointy-top hexes in odd-r layout (odd rows shifted right by half a
  hex) with thin outlines and a small label ("C4") at the top of each hex.
  Terrain: clear pale green; woods dark green with tree crowns; buildings grey
  with red roofs; broken ground light brown with hedgerows; hill ochre with
  contour rings; river blue with ripples; ford light blue with stripes; bridge
  blue with a brown plank deck across the river; marsh olive with dashes; lake
  deep blue. Objectives are a ring around the hex and a star with the value,
  coloured by holder (blue, red, white for nobody). Smoke is a translucent grey
  cloud. Units are counters (blue or red) with a NATO-style symbol, the type
  letter and the hits; two units in a hex stand side by side; an activated
  unit is dimmed; the viewer's own hidden units have a dashed outline; the
  unit to act has a yellow outline. A shot awaiting an evasion decision is an
  orange line from the shooters to the target.
* a card strip: the activation cards of the turn as the viewer may know them
  (seed: "deal a card face up for each unit ... starting with the highest value card
  (Kings)"), highest first. Each card shows its rank and suit over a band in its
  unit's colour with the unit's letter and hex; cards already played are faded, the
  card up has a yellow outline. An enemy hidden unit's card shows ``?`` for the unit.
  The undealt deck is never drawn (its order is secret);
* a bottom bar per side: the force's name, objective points held, units lost
  and its off-table artillery;
* a banner with the result when the game is over.

The terrain layer (with hex labels) is drawn once per scenario object at twice
the size and scaled down (smooth edges), then cached; a frame costs a copy of
it plus the counters and text (a few milliseconds).
"""

from __future__ import annotations

import math
from collections import OrderedDict

import numpy as np
from PIL import Image, ImageDraw

from cardwar.envs.hexmap.picture import HIGHLIGHT, INK, PAPER, SIDE_RGB, TITLE_BG, ascii_text
from cardwar.envs.hexmap.picture import font as _font
from cardwar.envs.hexmap.picture import hexagon as _hexagon
from cardwar.envs.hexmap.picture import hex_centre, map_size
from cardwar.envs.hexmap.picture import star as _star
from cardwar.envs.hexwar.hexgrid import label
from cardwar.envs.hexwar.scenario import MAX_WIDTH, SIDES, Scenario, cell_of, hex_of
from cardwar.envs.hexwar.state import HexPhase, HexState, card_order_key
from cardwar.envs.hexwar.terrain import Terrain
from cardwar.envs.hexwar.text import describe_result
from cardwar.envs.hexwar.units import STATS, UnitType
from cardwar.envs.hexwar.view import HexView, UnitView
from cardwar.envs.naval.cards import card_to_str

# ------------------------------------------------------------------ geometry and palette
R = 40.0
"""Hex radius (centre to corner) in pixels."""
HW = math.sqrt(3) * R
"""Hex width (flat side to flat side)."""
MARGIN = 14
TITLE_H = 50
BOTTOM_H = 46
CARDS_H = 50
"""Height of the card strip."""
MIN_IMAGE_W = 640
SS = 2
"""Supersampling factor of the cached terrain layer."""

OUTLINE = (96, 100, 84)
SIDE_TEXT = ((150, 190, 255), (255, 150, 140))
HOLDER_RGB = {0: SIDE_RGB[0], 1: SIDE_RGB[1], -1: (250, 250, 250)}
SHOT = (255, 140, 0)

BASE = {
    Terrain.CLEAR: (202, 222, 156),
    Terrain.WOODS: (92, 142, 74),
    Terrain.BUILDINGS: (198, 190, 176),
    Terrain.BROKEN: (216, 200, 150),
    Terrain.HILL: (224, 190, 118),
    Terrain.RIVER: (92, 146, 214),
    Terrain.FORD: (146, 194, 236),
    Terrain.BRIDGE: (92, 146, 214),
    Terrain.MARSH: (150, 158, 96),
    Terrain.LAKE: (54, 98, 176),
}
DARK_TERRAIN = frozenset({Terrain.WOODS, Terrain.RIVER, Terrain.BRIDGE, Terrain.LAKE})
"""Terrain whose hex label is written in a light colour."""
WATER = frozenset({Terrain.RIVER, Terrain.FORD, Terrain.BRIDGE, Terrain.LAKE})

_SPELL = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss", "–": "-", "—": "-",
          "‘": "'", "’": "'", "“": '"', "”": '"'}


def _ascii(text: str) -> str:
    """``text`` in ASCII: the default font draws a box for most other characters."""
    return ascii_text(text, _SPELL)


class _Layout:
    """Pixel geometry of one scenario's picture."""

    def __init__(self, sc: Scenario) -> None:
        self.map_w, self.map_h = map_size(sc.width, sc.height, R)
        self.w = int(max(MIN_IMAGE_W, math.ceil(self.map_w) + 2 * MARGIN))
        self.map_y = TITLE_H + MARGIN // 2
        self.h = int(self.map_y + math.ceil(self.map_h) + MARGIN // 2 + CARDS_H + BOTTOM_H)
        self.ox = (self.w - self.map_w) / 2

    def centre(self, cell: int) -> tuple[float, float]:
        return hex_centre(cell % MAX_WIDTH, cell // MAX_WIDTH, R, self.ox, self.map_y)


# ------------------------------------------------------------------ terrain layer (cached)
_CACHE: OrderedDict[int, tuple[Scenario, _Layout, Image.Image]] = OrderedDict()
_CACHE_SIZE = 16


def _terrain_layer(sc: Scenario) -> tuple[_Layout, Image.Image]:
    hit = _CACHE.get(id(sc))
    if hit is not None and hit[0] is sc:
        _CACHE.move_to_end(id(sc))
        return hit[1], hit[2]
    lay = _Layout(sc)
    img = _draw_terrain(sc, lay)
    _CACHE[id(sc)] = (sc, lay, img)  # holding ``sc`` keeps its id from being reused
    while len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return lay, img


def _cells(sc: Scenario) -> list[int]:
    return [r * MAX_WIDTH + c for r in range(sc.height) for c in range(sc.width)]


def _draw_terrain(sc: Scenario, lay: _Layout) -> Image.Image:
    k = SS
    big = Image.new("RGB", (lay.w * k, lay.h * k), PAPER)
    by_type: dict[Terrain, list[int]] = {}
    for c in _cells(sc):
        by_type.setdefault(sc.terrain[c], []).append(c)
    y0, y1 = int(lay.map_y * k) - 2 * k, int((lay.map_y + lay.map_h) * k) + 2 * k
    for t, cells in by_type.items():
        layer = Image.new("RGB", big.size, BASE[t])
        d = ImageDraw.Draw(layer)
        _pattern(d, t, big.size, y0, y1)
        for c in cells:
            cx, cy = lay.centre(c)
            _decorate(d, sc, t, c, cx * k, cy * k, R * k)
        mask = Image.new("L", big.size, 0)
        md = ImageDraw.Draw(mask)
        for c in cells:
            md.polygon(_hexagon(*lay.centre(c), R, k), fill=255)
        big.paste(layer, (0, 0), mask)
    d = ImageDraw.Draw(big)
    for c in _cells(sc):
        d.polygon(_hexagon(*lay.centre(c), R, k), outline=OUTLINE, width=k)
    img = big.reduce(k)
    d = ImageDraw.Draw(img, "RGBA")
    f = _font(10)
    for c in _cells(sc):
        cx, cy = lay.centre(c)
        light = sc.terrain[c] in DARK_TERRAIN
        d.text((cx, cy - 0.70 * R), label(hex_of(c)), font=f, anchor="mm",
               fill=(235, 240, 250, 230) if light else (40, 40, 30, 200))
    return img


def _pattern(d: ImageDraw.ImageDraw, t: Terrain, size: tuple[int, int], y0: int, y1: int) -> None:
    """Whole-map patterns, clipped to the hexes of ``t`` by the mask."""
    k = SS
    w = size[0]
    if t in (Terrain.RIVER, Terrain.BRIDGE, Terrain.LAKE):
        col = (140, 186, 236) if t != Terrain.LAKE else (96, 140, 206)
        step, amp, per = (11 * k, 2.2 * k, 22 * k) if t != Terrain.LAKE else (13 * k, 1.8 * k, 30 * k)
        for row, y in enumerate(range(y0, y1, step)):
            shift = (row % 2) * per / 2
            if t == Terrain.LAKE:  # short wavelets
                for x in np.arange(-per + shift, w + per, per):
                    pts = [(x + i * k, y + amp * math.sin(i * k / (4 * k) * math.pi)) for i in range(0, 9)]
                    d.line(pts, fill=col, width=k)
            else:
                pts = [(x, y + amp * math.sin((x + shift) / per * 2 * math.pi)) for x in range(0, w + 4 * k, 4 * k)]
                d.line(pts, fill=col, width=k)
    elif t == Terrain.FORD:
        span = y1 - y0
        for x in range(-span, w + span, 9 * k):
            d.line([(x, y1), (x + span, y0)], fill=(204, 228, 248), width=3 * k)
    elif t == Terrain.MARSH:
        for row, y in enumerate(range(y0, y1, 7 * k)):
            col = (98, 112, 56) if row % 2 == 0 else (112, 148, 168)
            off = (row % 4) * 4 * k
            for x in range(-20 * k + off, w, 16 * k):
                d.line([(x, y), (x + 8 * k, y)], fill=col, width=2 * k)


def _decorate(d: ImageDraw.ImageDraw, sc: Scenario, t: Terrain, cell: int, cx: float, cy: float, r: float) -> None:
    """Per-hex decorations (coordinates already scaled); the mask clips them to the hex."""
    rng = np.random.default_rng(cell * 7919 + int(t))
    if t == Terrain.WOODS:
        spots = [(0, 0), (-0.45, -0.3), (0.45, -0.3), (-0.45, 0.35), (0.45, 0.35), (0, -0.62), (0, 0.62),
                 (-0.82, 0.02), (0.82, 0.02)]
        for sx, sy in spots:
            x = cx + (sx + rng.uniform(-0.08, 0.08)) * r
            y = cy + (sy + rng.uniform(-0.08, 0.08)) * r
            rad = r * rng.uniform(0.2, 0.26)
            d.ellipse([x - rad, y - rad, x + rad, y + rad], fill=(56, 106, 50), outline=(34, 74, 32),
                      width=max(1, SS))
            h = rad * 0.45
            d.ellipse([x - rad * 0.45 - h, y - rad * 0.45 - h, x - rad * 0.45 + h, y - rad * 0.45 + h],
                      fill=(78, 130, 64))
    elif t == Terrain.BUILDINGS:
        d.line([(cx - r, cy + 0.05 * r), (cx + r, cy + 0.05 * r)], fill=(176, 168, 150), width=int(0.16 * r))
        for hx, hy, horiz in ((-0.42, -0.3, True), (0.34, -0.32, False), (-0.3, 0.42, False), (0.4, 0.4, True),
                              (-0.02, -0.02, True)):
            x, y = cx + hx * r, cy + hy * r
            a, b = (0.26 * r, 0.15 * r) if horiz else (0.15 * r, 0.24 * r)
            d.rectangle([x - a, y - b, x + a, y + b], fill=(176, 84, 60), outline=(104, 46, 36), width=SS)
            if horiz:
                d.line([(x - a, y), (x + a, y)], fill=(126, 56, 42), width=SS)
            else:
                d.line([(x, y - b), (x, y + b)], fill=(126, 56, 42), width=SS)
    elif t == Terrain.BROKEN:
        ang = math.radians((0, 60, 120)[cell % 3] + rng.uniform(-12, 12))
        ux, uy = math.cos(ang), math.sin(ang)
        nx, ny = -uy, ux
        for off in (-0.42, 0.1, 0.62):
            bx, by = cx + nx * off * r, cy + ny * off * r
            steps = np.arange(-1.1, 1.1, 0.13)
            pts = [(bx + ux * s * r, by + uy * s * r) for s in steps]
            d.line(pts, fill=(120, 104, 70), width=SS)
            for px, py in pts:
                rad = r * rng.uniform(0.06, 0.085)
                d.ellipse([px - rad, py - rad, px + rad, py + rad], fill=(72, 108, 52))
    elif t == Terrain.HILL:
        d.ellipse([cx - 0.74 * r, cy - 0.68 * r, cx + 0.74 * r, cy + 0.68 * r], fill=(230, 200, 136),
                  outline=(176, 134, 72), width=int(1.5 * SS))
        d.ellipse([cx - 0.42 * r, cy - 0.38 * r, cx + 0.42 * r, cy + 0.38 * r], fill=(238, 214, 158),
                  outline=(176, 134, 72), width=int(1.5 * SS))
    elif t == Terrain.FORD:
        for _ in range(5):
            x, y = cx + rng.uniform(-0.6, 0.6) * r, cy + rng.uniform(-0.5, 0.5) * r
            rad = r * rng.uniform(0.05, 0.08)
            d.ellipse([x - rad, y - rad, x + rad, y + rad], fill=(170, 156, 126))
    elif t == Terrain.BRIDGE:
        ang = _bridge_angle(sc, cell)
        ux, uy = math.cos(ang), math.sin(ang)
        nx, ny = -uy, ux
        half, wide = 1.2 * r, 0.26 * r
        deck = [(cx - ux * half - nx * wide, cy - uy * half - ny * wide),
                (cx + ux * half - nx * wide, cy + uy * half - ny * wide),
                (cx + ux * half + nx * wide, cy + uy * half + ny * wide),
                (cx - ux * half + nx * wide, cy - uy * half + ny * wide)]
        d.polygon(deck, fill=(164, 114, 64))
        for s in np.arange(-half, half, 0.16 * r):
            d.line([(cx + ux * s - nx * wide, cy + uy * s - ny * wide),
                    (cx + ux * s + nx * wide, cy + uy * s + ny * wide)], fill=(122, 82, 44), width=SS)
        for side in (-1, 1):
            d.line([(cx - ux * half + side * nx * wide, cy - uy * half + side * ny * wide),
                    (cx + ux * half + side * nx * wide, cy + uy * half + side * ny * wide)],
                   fill=(84, 56, 30), width=2 * SS)


def _bridge_angle(sc: Scenario, cell: int) -> float:
    """Direction of a bridge's deck: across the line its water neighbours make (vertical by default)."""
    x0, y0 = _centre_unscaled(cell)
    sx = sy = 0.0
    col, row = cell % MAX_WIDTH, cell // MAX_WIDTH
    for dc, dr in ((-1, 0), (1, 0), (0, -1), (0, 1), (-1 if row % 2 == 0 else 1, -1), (-1 if row % 2 == 0 else 1, 1)):
        c, r = col + dc, row + dr
        if 0 <= c < sc.width and 0 <= r < sc.height and sc.terrain[r * MAX_WIDTH + c] in WATER:
            x, y = _centre_unscaled(r * MAX_WIDTH + c)
            a = math.atan2(y - y0, x - x0)
            sx, sy = sx + math.cos(2 * a), sy + math.sin(2 * a)
    if abs(sx) < 1e-9 and abs(sy) < 1e-9:
        return math.pi / 2
    return 0.5 * math.atan2(sy, sx) + math.pi / 2


def _centre_unscaled(cell: int) -> tuple[float, float]:
    col, row = cell % MAX_WIDTH, cell // MAX_WIDTH
    return HW * (col + 0.5 * (row & 1)), 1.5 * R * row


# ------------------------------------------------------------------ counters
CW, CH = 32, 30
"""Counter size in pixels."""


def _mix(a: tuple[int, ...], b: tuple[int, ...], t: float) -> tuple[int, ...]:
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b))


def _symbol(d: ImageDraw.ImageDraw, utype: UnitType, box: tuple[float, float, float, float], ink) -> None:
    """A NATO-style symbol inside ``box``."""
    x0, y0, x1, y1 = box
    xm, ym = (x0 + x1) / 2, (y0 + y1) / 2
    w, h = x1 - x0, y1 - y0

    def cross() -> None:
        d.line([(x0, y0), (x1, y1)], fill=ink, width=1)
        d.line([(x0, y1), (x1, y0)], fill=ink, width=1)

    def oval() -> None:
        d.ellipse([x0 + w * 0.18, y0 + h * 0.2, x1 - w * 0.18, y1 - h * 0.2], outline=ink, width=1)

    def dot(rad: float) -> None:
        d.ellipse([xm - rad, ym - rad, xm + rad, ym + rad], fill=ink)

    def at() -> None:
        d.line([(x0, y1), (xm, y0), (x1, y1)], fill=ink, width=1)

    if utype == UnitType.FOOT:
        cross()
    elif utype == UnitType.MECHANISED:
        cross()
        oval()
    elif utype == UnitType.MOTORISED:
        cross()
        d.line([(xm, y0), (xm, y1)], fill=ink, width=1)
    elif utype == UnitType.AT_GUN:
        at()
    elif utype == UnitType.TANK:
        oval()
    elif utype == UnitType.SPG:
        oval()
        dot(1.5)
    elif utype == UnitType.MORTAR:
        d.ellipse([xm - 1.5, y1 - 3.5, xm + 1.5, y1 - 0.5], fill=ink)
        d.line([(xm, y1 - 2), (xm, y0 + 1)], fill=ink, width=1)
        d.line([(xm - 2.5, y0 + 3.5), (xm, y0 + 1), (xm + 2.5, y0 + 3.5)], fill=ink, width=1)
    elif utype == UnitType.ARTILLERY:
        dot(2.5)
    elif utype == UnitType.ARMOURED_CAR:
        oval()
        d.line([(x0, y1), (x1, y0)], fill=ink, width=1)


_COUNTERS: OrderedDict[tuple, Image.Image] = OrderedDict()
_PAD = 5
"""Room around a cached counter for its shadow and the outline of the unit to act."""


def _counter(img: Image.Image, u: UnitView, cx: float, cy: float, acting: bool) -> None:
    """Paste the counter of ``u`` centred on (cx, cy), drawn once per look and cached (its text is
    the costly part of a frame)."""
    key = (u.side, u.type, u.hits, u.activated, u.hidden, acting)
    chip = _COUNTERS.get(key)
    if chip is None:
        chip = Image.new("RGBA", (CW + 2 * _PAD + 1, CH + 2 * _PAD + 1), (0, 0, 0, 0))
        _draw_counter(ImageDraw.Draw(chip), u, _PAD + CW / 2, _PAD + CH / 2, acting)
        _COUNTERS[key] = chip
        while len(_COUNTERS) > 1024:
            _COUNTERS.popitem(last=False)
    else:
        _COUNTERS.move_to_end(key)
    img.paste(chip, (int(round(cx - CW / 2)) - _PAD, int(round(cy - CH / 2)) - _PAD), chip)


def _draw_counter(d: ImageDraw.ImageDraw, u: UnitView, cx: float, cy: float, acting: bool) -> None:
    x0, y0, x1, y1 = cx - CW / 2, cy - CH / 2, cx + CW / 2, cy + CH / 2
    fill = SIDE_RGB[u.side]
    ink = (255, 255, 255)
    if u.activated:
        fill = _mix(fill, (150, 150, 150), 0.6)
        ink = (226, 226, 226)
    if acting:
        d.rectangle([x0 - 3, y0 - 3, x1 + 3, y1 + 3], outline=HIGHLIGHT, width=3)
    d.rectangle([x0 + 2, y0 + 2, x1 + 2, y1 + 2], fill=(0, 0, 0, 70))  # shadow
    alpha = 175 if u.hidden else 255
    d.rectangle([x0, y0, x1, y1], fill=(*fill, alpha), outline=(20, 22, 30), width=1)
    box = (x0 + 5, y0 + 3, x1 - 5, y0 + 15)
    d.rectangle(box, outline=ink, width=1)
    _symbol(d, u.type, (box[0] + 1, box[1] + 1, box[2] - 1, box[3] - 1), ink)
    f = _font(12)
    d.text((x0 + 4, y1 - 1), STATS[u.type].code, font=f, anchor="ls", fill=ink)
    hits_ink = ink if u.hits == 0 else (255, 236, 110) if not u.activated else (236, 226, 170)
    d.text((x1 - 3, y1 - 1), str(u.hits), font=f, anchor="rs", fill=hits_ink)
    if u.hidden:  # dashed white outline: hidden from the enemy
        for x in np.arange(x0, x1, 4):
            d.line([(x, y0), (min(x + 2, x1), y0)], fill=(255, 255, 255), width=1)
            d.line([(x, y1), (min(x + 2, x1), y1)], fill=(255, 255, 255), width=1)
        for y in np.arange(y0, y1, 4):
            d.line([(x0, y), (x0, min(y + 2, y1))], fill=(255, 255, 255), width=1)
            d.line([(x1, y), (x1, min(y + 2, y1))], fill=(255, 255, 255), width=1)


# ------------------------------------------------------------------ the card strip
CARD_W, CARD_GAP = 40, 4
RED_SUITS = ("H", "D")


def _strip_entries(v: HexView) -> list[tuple[int, int, str, bool, bool, bool]]:
    """(card, side, unit text, played, up now, hidden) in activation order, highest card first.

    Known units give their letter and hex; the enemy's hidden units only their face-up card.
    """
    out = []
    for u in v.units:
        if u.card >= 0:
            where = label(hex_of(u.cell)) if u.cell >= 0 else "off"
            out.append((u.card, u.side, f"{STATS[u.type].code} {where}", u.activated, u.uid == v.acting, False))
    hidden_up = v.phase == HexPhase.ACT and v.acting < 0
    top = max((card_order_key(c) for _, c, played in v.hidden_cards if not played), default=None)
    for side, card, played in v.hidden_cards:
        out.append((card, side, "?", played, hidden_up and card_order_key(card) == top, True))
    out.sort(key=lambda e: card_order_key(e[0]), reverse=True)
    return out


STRIP_BG = (214, 208, 192)
_CHIPS: OrderedDict[tuple, Image.Image] = OrderedDict()
_CHIP_PAD = 4
"""Room around a card for the outline of the card up."""


def _chip(card: int, side: int, unit: str, played: bool, up: bool, hidden: bool) -> Image.Image:
    """One card of the strip (cached: the same few dozen cards recur frame after frame)."""
    key = (card, side, unit, played, up, hidden)
    img = _CHIPS.get(key)
    if img is not None:
        _CHIPS.move_to_end(key)
        return img
    p = _CHIP_PAD
    img = Image.new("RGB", (CARD_W + 2 * p + 1, CARDS_H - 10 + 2 * p + 1), STRIP_BG)
    d = ImageDraw.Draw(img)
    x, y0, y1 = p, p, p + CARDS_H - 10
    face, band = (250, 250, 246), SIDE_RGB[side]
    if played:
        face, band = _mix(face, (200, 200, 200), 0.6), _mix(band, (190, 190, 190), 0.65)
    if up:
        d.rectangle([x - 3, y0 - 3, x + CARD_W + 3, y1 + 3], outline=HIGHLIGHT, width=3)
    d.rectangle([x, y0, x + CARD_W, y1], fill=face, outline=(60, 60, 60), width=1)
    name = card_to_str(card)
    ink = (190, 30, 30) if name[-1] in RED_SUITS else (20, 20, 20)
    if played:
        ink = _mix(ink, (200, 200, 200), 0.5)
    d.text((x + CARD_W / 2, y0 + 10), name, font=_font(12), anchor="mm", fill=ink)
    d.rectangle([x + 1, y0 + 20, x + CARD_W - 1, y1 - 1], fill=band)
    if hidden:  # hatched band: a hidden unit; whose it is the viewer does not know
        for hx in range(x - 20, x + CARD_W, 6):
            d.line([(max(hx, x + 1), y1 - 1 - max(0, x + 1 - hx)), (min(hx + 19, x + CARD_W - 1), y0 + 20)],
                   fill=_mix(band, (255, 255, 255), 0.35), width=1)
    d.text((x + CARD_W / 2, (y0 + 20 + y1) / 2), unit, font=_font(10), anchor="mm", fill=(255, 255, 255))
    _CHIPS[key] = img
    while len(_CHIPS) > 512:
        _CHIPS.popitem(last=False)
    return img


def _card_strip(img: Image.Image, d: ImageDraw.ImageDraw, v: HexView, lay: _Layout) -> None:
    top = lay.h - BOTTOM_H - CARDS_H
    d.rectangle([0, top, lay.w, top + CARDS_H], fill=STRIP_BG)
    if v.phase == HexPhase.GAME_OVER:
        d.text((MARGIN, top + CARDS_H / 2), "Game over", font=_font(12), anchor="lm", fill=(60, 60, 60))
        return
    d.text((MARGIN, top + 12), f"Cards, turn {v.turn}", font=_font(11), anchor="lm", fill=(50, 50, 50))
    d.text((MARGIN, top + 30), "King first", font=_font(10), anchor="lm", fill=(90, 90, 90))
    entries = _strip_entries(v)
    x0 = MARGIN + 78
    room = int((lay.w - MARGIN - x0) // (CARD_W + CARD_GAP))
    more = 0
    if len(entries) > room:
        more = len(entries) - (room - 1)
        entries = entries[:room - 1]
    for i, entry in enumerate(entries):
        img.paste(_chip(*entry), (x0 + i * (CARD_W + CARD_GAP) - _CHIP_PAD, top + 5 - _CHIP_PAD))
    if more:
        x = x0 + len(entries) * (CARD_W + CARD_GAP)
        d.text((x + 4, top + CARDS_H / 2), f"+{more}", font=_font(12), anchor="lm", fill=(50, 50, 50))


# ------------------------------------------------------------------ the picture
def _view(state: HexState, viewer: int | None | str) -> HexView:
    if viewer == "omniscient":
        return HexView.of(state, None, everything=True)
    if viewer not in (None, 0, 1):
        raise ValueError(f"viewer must be 0, 1, None or 'omniscient', got {viewer!r}")
    return state.information_view(viewer)  # type: ignore[arg-type]


def _status(v: HexView, units: dict[int, UnitView]) -> str:
    if v.phase == HexPhase.GAME_OVER:
        return "Game over - " + describe_result(v.result, v.winner)
    side = SIDES[v.current].title()
    if v.phase == HexPhase.EVADE and v.pending is not None:
        t = units.get(v.pending.target)
        what = f" the shot at its {STATS[t.type].name} at {label(hex_of(t.cell))}" if t is not None and \
            t.cell >= 0 else " the shot"
        return f"{side} decides: evasive action against{what}?"
    a = units.get(v.acting)
    if a is None:
        return f"{side} to act: a hidden unit"
    where = label(hex_of(a.cell)) if a.cell >= 0 else "off-table"
    return f"{side} to act: {STATS[a.type].name} at {where}"


def render_rgb(state: HexState, viewer: int | None | str = None) -> np.ndarray:
    """The board as an HxWx3 uint8 picture for a side (0/1), a spectator (None) or ``"omniscient"``."""
    sc = state.scenario
    v = _view(state, viewer)
    lay, base = _terrain_layer(sc)
    img = base.copy()
    d = ImageDraw.Draw(img, "RGBA")
    units = {u.uid: u for u in v.units}

    # smoke
    for c in v.smoke:
        cx, cy = lay.centre(c)
        d.polygon(_hexagon(cx, cy, R - 1), fill=(150, 150, 155, 120))
        for px, py, pr in ((-0.35, -0.15, 0.3), (0.3, -0.25, 0.28), (0.05, 0.25, 0.34), (-0.4, 0.3, 0.22),
                           (0.45, 0.25, 0.22)):
            x, y, rr = cx + px * R, cy + py * R, pr * R
            d.ellipse([x - rr, y - rr, x + rr, y + rr], fill=(225, 225, 228, 110))

    # objectives
    f_obj = _font(13)
    for o, holder in zip(sc.objectives, v.holders):
        c = o.hex
        cx, cy = lay.centre(cell_of(c))
        col = HOLDER_RGB.get(holder, HOLDER_RGB[-1])
        rr = 0.80 * R
        d.ellipse([cx - rr - 2, cy - rr - 2, cx + rr + 2, cy + rr + 2], outline=(20, 20, 20, 150), width=1)
        d.ellipse([cx - rr - 1, cy - rr - 1, cx + rr + 1, cy + rr + 1], outline=(*col, 235), width=3)
        sx, sy = cx - 6, cy + 0.645 * R
        d.polygon(_star(sx, sy, 9), fill=col, outline=(20, 20, 20))
        d.text((sx + 10, sy + 1), str(o.value), font=f_obj, anchor="lm", fill=(20, 20, 20),
               stroke_width=2, stroke_fill=(255, 255, 255))
        d.text((cx, cy - 0.70 * R), label(c), font=_font(10), anchor="mm", fill=(20, 20, 20),
               stroke_width=2, stroke_fill=(255, 255, 255))

    # units on the map
    by_cell: dict[int, list[UnitView]] = {}
    for u in v.units:
        if u.cell >= 0:
            by_cell.setdefault(u.cell, []).append(u)
    spots: dict[int, tuple[float, float]] = {}
    for c, here in by_cell.items():
        cx, cy = lay.centre(c)
        n = len(here)
        for i, u in enumerate(here):  # the view's order: slot 1 left, slot 2 right
            spots[u.uid] = (cx + (i - (n - 1) / 2) * (CW + 2), cy - 1)
    if v.pending is not None and v.pending.target in spots:
        tx, ty = spots[v.pending.target]
        for s in v.pending.shooters:
            if s in spots:
                d.line([spots[s], (tx, ty)], fill=(*SHOT, 220), width=3)
    for uid, (x, y) in spots.items():
        _counter(img, units[uid], x, y, uid == v.acting)
    if v.pending is not None and v.pending.target in spots:
        tx, ty = spots[v.pending.target]
        d.ellipse([tx - 20, ty - 20, tx + 20, ty + 20], outline=SHOT, width=2)
        d.line([(tx - 24, ty), (tx - 14, ty)], fill=SHOT, width=2)
        d.line([(tx + 14, ty), (tx + 24, ty)], fill=SHOT, width=2)

    # title bar
    d.rectangle([0, 0, lay.w, TITLE_H], fill=TITLE_BG)
    title = sc.title if viewer == "omniscient" or v.map is None else v.map.title
    d.text((MARGIN, 15), _ascii(title), font=_font(18), anchor="lm", fill=(245, 245, 245))
    d.text((lay.w - MARGIN, 15), f"Turn {v.turn}/{v.turns}", font=_font(18), anchor="rm", fill=(245, 245, 245))
    status = _ascii(_status(v, units))
    scol = (255, 230, 120) if v.phase == HexPhase.GAME_OVER else SIDE_TEXT[v.current]
    d.text((MARGIN, 38), status, font=_font(13), anchor="lm", fill=scol)
    who = {None: "spectator view", "omniscient": "omniscient view", 0: "Blue's view", 1: "Red's view"}[viewer]
    d.text((lay.w - MARGIN, 38), who, font=_font(12), anchor="rm", fill=(175, 180, 192))

    _card_strip(img, d, v, lay)

    # bottom bar: force, objective points held, losses, off-table artillery
    top = lay.h - BOTTOM_H
    d.rectangle([0, top, lay.w, lay.h], fill=(226, 220, 204))
    d.line([(0, top), (lay.w, top)], fill=(170, 164, 148), width=1)
    held = [sum(o.value for o, h in zip(sc.objectives, v.holders) if h == s) for s in (0, 1)]
    half = lay.w / 2
    f = _font(12)
    for s in (0, 1):
        x = MARGIN + s * half
        ym = top + BOTTOM_H / 2
        d.rectangle([x, ym - 6, x + 12, ym + 6], fill=SIDE_RGB[s], outline=INK)
        name = _ascii(sc.side_names[s])
        d.text((x + 18, ym - 8), name, font=_font(13), anchor="lm", fill=_mix(SIDE_RGB[s], (0, 0, 0), 0.25))
        d.text((x + 18, ym + 9), f"objectives {held[s]} pts - lost {v.lost[s]}", font=f, anchor="lm",
               fill=(60, 60, 60))
        off = [u for u in v.units if u.cell < 0 and u.side == s]
        xr = x + half - 2 * MARGIN
        for u in reversed(off):
            _counter(img, u, xr - CW / 2, ym, u.uid == v.acting)
            xr -= CW + 8
        if off:
            d.text((xr + 2, ym), "off-table:", font=f, anchor="rm", fill=(60, 60, 60))

    # result banner
    if v.phase == HexPhase.GAME_OVER:
        ym = lay.map_y + lay.map_h / 2
        text = _ascii(describe_result(v.result, v.winner))
        f = _font(20)
        half_w = d.textlength(text, font=f) / 2 + 18
        d.rounded_rectangle([lay.w / 2 - half_w, ym - 24, lay.w / 2 + half_w, ym + 24], radius=8,
                            fill=(20, 20, 28, 205), outline=(255, 230, 120, 230), width=2)
        colour = (255, 230, 120) if v.winner is None else SIDE_TEXT[v.winner]
        d.text((lay.w / 2, ym), text, font=f, anchor="mm", fill=colour)

    return np.asarray(img, dtype=np.uint8)
