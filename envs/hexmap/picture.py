"""Drawing helpers shared by the hex games' rgb_array pictures (Pillow): palette, font, hexagon, star, ASCII text.

Both pictures are drawn on the same paper with the same ink, side colours and highlight; their
hexes are pointy-top (corners at -30 + 60 k degrees) in odd-r rows, objectives a five-pointed star. Each game keeps
its own sizes, layout and terrain colours.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Mapping
from typing import Any

from PIL import ImageFont

PAPER = (238, 233, 220)
INK = (30, 30, 36)
TITLE_BG = (38, 42, 52)
SIDE_RGB = ((46, 96, 204), (206, 56, 46))
"""Side 0 blue, side 1 red."""
HIGHLIGHT = (255, 214, 0)
"""The outline of the unit (or card) the current decision is about."""

_FONTS: dict[int, Any] = {}


def font(size: int) -> Any:
    """Pillow's default font at ``size`` (the bitmap default where sizes are not supported), cached."""
    f = _FONTS.get(size)
    if f is None:
        try:
            f = ImageFont.load_default(size=size)
        except TypeError:  # pragma: no cover - Pillow < 10.1
            f = ImageFont.load_default()
        _FONTS[size] = f
    return f


def ascii_text(text: str, spell: Mapping[str, str] | None = None) -> str:
    """``text`` in ASCII (the default font draws a box for most other characters): a character in
    ``spell`` as spelled there, any other without its accents (NFKD), or ``?``."""
    if text.isascii():
        return text
    spell = spell or {}
    out = []
    for ch in text:
        if ch.isascii():
            out.append(ch)
        elif ch in spell:
            out.append(spell[ch])
        else:
            plain = unicodedata.normalize("NFKD", ch).encode("ascii", "ignore").decode()
            out.append(plain or "?")
    return "".join(out)


def map_size(width: int, height: int, r: float) -> tuple[float, float]:
    """Pixel width and height of a ``width`` x ``height`` odd-r map of pointy-top hexes of radius ``r``."""
    hw = math.sqrt(3) * r
    return hw * (width + (0.5 if height > 1 else 0.0)), 1.5 * r * (height - 1) + 2 * r


def hex_centre(col: int, row: int, r: float, x0: float, y0: float) -> tuple[float, float]:
    """Pixel centre of the hex at ``col``, ``row`` of an odd-r map of radius ``r`` whose top left is ``x0``, ``y0``."""
    hw = math.sqrt(3) * r
    return x0 + hw * (col + 0.5 * (row & 1)) + hw / 2, y0 + r + 1.5 * r * row


def hexagon(cx: float, cy: float, r: float, k: float = 1.0) -> list[tuple[float, float]]:
    """Corners of a pointy-top hexagon of radius ``r`` around (``cx``, ``cy``), all scaled by ``k``."""
    return [((cx + r * math.cos(math.radians(60 * i - 30))) * k, (cy + r * math.sin(math.radians(60 * i - 30))) * k)
            for i in range(6)]


def star(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    """The ten corners of a five-pointed star of outer radius ``r`` (inner 0.45 ``r``), a point up."""
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        a = math.radians(-90 + 36 * i)
        pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
    return pts


__all__ = ["HIGHLIGHT", "INK", "PAPER", "SIDE_RGB", "TITLE_BG", "ascii_text", "font", "hex_centre", "hexagon", "map_size",
           "star"]
