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
    """Convolutions over the hex planes, then one linear layer to ``features_dim``."""

    def __init__(self, observation_space: gymnasium.spaces.Box, features_dim: int = 256,
                 channels: tuple[int, ...] = (64, 64, 64)) -> None:
        super().__init__(observation_space, features_dim)
        planes, rows, cols = observation_space.shape
        layers: list[nn.Module] = []
        c_in = planes
        for c_out in channels:
            layers += [nn.Conv2d(c_in, c_out, kernel_size=3, padding=1), nn.ReLU()]
            c_in = c_out
        self.cnn = nn.Sequential(*layers, nn.Flatten())
        self.linear = nn.Sequential(nn.Linear(c_in * rows * cols, features_dim), nn.ReLU())

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return self.linear(self.cnn(observations))
