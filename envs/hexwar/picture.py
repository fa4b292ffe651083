"""rgb_array pictures of the hex map (placeholder until the full renderer lands)."""

from __future__ import annotations

import numpy as np


def render_rgb(state, viewer=None) -> np.ndarray:
    return np.zeros((10, 10, 3), dtype=np.uint8)
