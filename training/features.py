"""Feature extractors for the policies (SB3 ``features_extractor_class``).

``HexCNN`` reads the hex observation (planes x 10 rows x 12 columns, offset
coordinates): 3x3 convolutions with padding keep the grid, so a filter sees a
hex and its six neighbours (plus two cells that are not neighbours, which the
network learns to ignore); a linear layer then mixes the whole board. The same
network plays every scenario, as the observation's grid is fixed.
"""

from __future__ import annotations

import gymnasium
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn


class HexCNN(BaseFeaturesExtractor):
    """Convolutions over the hex planes, then one linear layer to ``features_dim``.

    ``features_dim=0`` keeps the full-resolution feature map (channels x cells, flattened)
    as the features, with no bottleneck: the heads then map every cell's features to the
    actions on that cell directly, as move and shoot actions are per cell.
    """

    def __init__(self, observation_space: gymnasium.spaces.Box, features_dim: int = 256,
                 channels: tuple[int, ...] = (64, 64, 64)) -> None:
        planes, rows, cols = observation_space.shape
        full = (channels[-1] if channels else planes) * rows * cols
        super().__init__(observation_space, features_dim or full)
        layers: list[nn.Module] = []
        c_in = planes
        for c_out in channels:
            layers += [nn.Conv2d(c_in, c_out, kernel_size=3, padding=1), nn.ReLU()]
            c_in = c_out
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(c_in * rows * cols, features_dim), nn.ReLU()) if features_dim \
            else nn.Identity()

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations))
