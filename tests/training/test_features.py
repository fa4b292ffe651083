"""The hex CNN keeps the grid: a change on one cell changes the features of that cell and its neighbours only."""

from __future__ import annotations

import torch
from gymnasium import spaces

from cardwar.training.features import HexCNN


def test_full_resolution_features_are_local_to_the_cell_and_its_neighbourhood():
    space = spaces.Box(0.0, 1.0, (59, 10, 12))
    net = HexCNN(space, features_dim=0, channels=(4,))
    assert net.features_dim == 4 * 10 * 12
    x = torch.zeros(1, 59, 10, 12)
    y = x.clone()
    y[0, 3, 5, 6] = 1.0  # one plane, one cell (row 5, column 6)
    with torch.no_grad():
        diff = (net(x) - net(y)).abs().reshape(4, 10, 12).sum(dim=0)
    changed = {(r, c) for r in range(10) for c in range(12) if diff[r, c] > 0}
    assert (5, 6) in changed
    assert changed <= {(r, c) for r in (4, 5, 6) for c in (5, 6, 7)}  # a 3x3 filter: the hex's neighbours


def test_a_bottleneck_gives_the_asked_width():
    net = HexCNN(spaces.Box(0.0, 1.0, (59, 10, 12)), features_dim=32, channels=(8, 8))
    assert net(torch.zeros(2, 59, 10, 12)).shape == (2, 32)
