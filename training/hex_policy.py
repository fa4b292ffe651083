"""A fully convolutional, hex-aware MaskablePPO policy for the hex game (:class:`HexConvPolicy`).

What it implements:

- **Hex convolutions** (:class:`HexConv2d`). The observation is the 12 x 10 grid in the
  odd-r offset layout (odd rows shoved right), where a hex's six neighbours lie in the
  3 x 3 square around it, but which six depends on the row's parity: an even row reaches
  ``(-1,-1), (-1,0), (1,-1), (1,0)``, an odd row ``(-1,0), (-1,1), (1,0), (1,1)``; both
  reach ``(0,-1), (0,1)``. So the 3 x 3 kernel is masked to those seven taps by the parity
  of the *output* row. The weight holds one tap per hex direction (plus the centre), placed
  in the square by the row's parity: the up-right neighbour is ``(-1,0)`` on an even row and
  ``(-1,1)`` on an odd one, and both use the same weight. (A single 3 x 3 weight under two
  masks would make ``(-1,0)`` mean north-east on even rows and north-west on odd rows: the
  layer would then only commute with shifts by an even number of rows.) As in hex CNNs on
  offset grids (Steppa & Holch, "HexagDLy", 2019). Each parity's convolution runs with row
  stride 2 on the rows of its parity, so the pair costs one ordinary convolution.
- **A residual trunk with global pooling bias** (:class:`HexTrunk`), after KataGo (Wu,
  "Accelerating Self-Play Learning in Go", 2019): in every residual block the hidden
  features are pooled over the on-map cells (mean, mean scaled by the map's size as KataGo
  does, max) and a linear layer adds the result to every cell as a per-channel bias, so
  that the far side of the map informs a cell within one block.
- **One network for every map size.** Off-map cells (plane ``off_map``) are zeroed in the
  input and after every layer, and an on-map plane is added to the input, so off-map cells
  inside the grid look exactly like the zero padding beyond it: the outputs at a small
  map's cells do not depend on where in the 12 x 10 grid it lies (any translation of the
  hex grid moves the cell logits with it and leaves pass/evade and the value alone), and the
  pooling counts on-map cells only.
- **Fully convolutional heads** (:class:`HexHeads`), as AlphaZero's and KataGo's policy
  heads: the per-cell actions (move, shoot slot 1/2, smoke, joint move, joint shoot slot
  1/2) are the 7 channels of 1 x 1 convolutions over the cell features (after a 1 x 1 conv
  with its own pooling bias), scattered into the 843-id layout of
  ``cardwar.envs.hexwar.actions`` (:func:`scatter_logits`); pass, evade and no evade, and the
  value, come from the pooled features through small linear layers. No layer is as wide as
  the board: 62k parameters at 32 channels x 2 blocks, 278k at 64 x 3.
- **Distance fields** (``fields=True``, :class:`HexDistanceFields`, issue 22). A hex kernel sees one
  hex further each layer, so 2 blocks see about 5 hexes, but an objective may lie 10 hexes off and
  the heuristic that the policy first imitates rates a move by how much nearer it brings the unit to
  the nearest objective it does not hold. With ``fields`` the trunk's input also gets each cell's
  distance (RULES.md's hex distance) to the nearest objective not held by the seat (all objectives
  when it holds them all, as the heuristic does), to the nearest objective, to the nearest seen enemy
  and to the acting unit, and the progress a move there makes (the acting unit's goal distance minus
  the cell's): all from the seat's own planes (no hidden unit), exact.

Wiring into SB3 (``MaskableActorCriticPolicy``'s own forward, evaluate_actions,
get_distribution, predict_values, save/load are used as they are): the features extractor
is the trunk and returns the flattened feature map with the on-map plane last; the
``mlp_extractor`` is the heads and returns ``(logits [B, 843], value latent [B, 64])``;
``action_net`` is the identity and ``value_net`` SB3's linear layer. The masks and the action
layout are non-persistent buffers, so a saved model holds weights only, and ``half()`` /
``float()`` leave them exact.

Speed on CPU, forward + backward of the logits and value for a batch of 512 observations,
best of 3 after a warm-up (``python -m cardwar.training.hex_policy``; torch 2.13, one thread
on a shared 2-core machine, so figures vary by about 30 %):

| channels x blocks | parameters | forward + backward, 512 |
|-------------------|-----------:|------------------------:|
| 32 x 2            |    62,347  |  1.0 - 1.4 s            |
| 64 x 3            |   278,347  |  3.7 - 4.1 s            |
| (HexCNN 64,64,64 + linear 256, for comparison) | 2,074,240 | 1.3 s |

Suggested default: 32 x 2 for training on CPU (the cost of the current HexCNN, with 3 % of
its parameters); 64 x 3 (the constructor's default) where a GPU trains. Use::

    MaskablePPO(HexConvPolicy, env, policy_kwargs={"channels": 32, "blocks": 2})
"""

from __future__ import annotations

import math
import time
from typing import Any

import gymnasium
import torch
import torch.nn.functional as F
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from cardwar.envs.hexwar.actions import DECODED, NUM_ACTIONS, Kind
from cardwar.envs.hexwar.geometry import DIST
from cardwar.envs.hexwar.observation import OBS_SHAPE, P, PLANES
from cardwar.envs.hexwar.scenario import NUM_CELLS

# (dr, dc) of the six neighbours of a cell in the odd-r layout, by the cell's row parity, in the order of
# hexgrid.DIRECTIONS (east, north-east, north-west, west, south-west, south-east).
EVEN_ROW_NEIGHBOURS = ((0, 1), (-1, 0), (-1, -1), (0, -1), (1, -1), (1, 0))
ODD_ROW_NEIGHBOURS = ((0, 1), (-1, 1), (-1, 0), (0, -1), (1, 0), (1, 1))
TAPS = 7
"""A hex kernel's taps: the centre, then the six directions."""

CELL_CHANNELS = ((Kind.MOVE, 0), (Kind.SHOOT, 0), (Kind.SHOOT, 1), (Kind.SMOKE, 0),
                 (Kind.JOINT_MOVE, 0), (Kind.JOINT_SHOOT, 0), (Kind.JOINT_SHOOT, 1))
"""The channels of the per-cell logits: (kind, slot)."""
GLOBAL_ACTIONS = (Kind.PASS, Kind.EVADE, Kind.NO_EVADE)
"""The outputs of the global logit layer, in order."""

POOLED_STATS = 3
"""Pooled statistics per channel: mean, mean scaled by the map's size, max."""


def tap_placement(odd: bool) -> torch.Tensor:
    """[7, 3, 3]: where each tap (centre, then the six directions) sits in the 3 x 3 square of an even or odd row."""
    place = torch.zeros(TAPS, 3, 3)
    for t, (dr, dc) in enumerate(((0, 0),) + (ODD_ROW_NEIGHBOURS if odd else EVEN_ROW_NEIGHBOURS)):
        place[t, 1 + dr, 1 + dc] = 1.0
    return place


def hex_kernel_mask(odd: bool) -> torch.Tensor:
    """The 3 x 3 mask (1 = tap used) of a hex convolution at an even or odd output row."""
    return tap_placement(odd).sum(dim=0)


class HexConv2d(nn.Module):
    """A convolution over a hex and its six neighbours, on the odd-r offset grid (zero padding).

    The weight is ``[out, in, 7]``: the centre and one tap per hex direction (east, north-east,
    ... as ``hexgrid.DIRECTIONS``). At an output cell of even row the taps sit in the 3 x 3
    square as :data:`EVEN_ROW_NEIGHBOURS`, at an odd row as :data:`ODD_ROW_NEIGHBOURS`: two
    fixed placements (buffers) of the one weight, so the kernel is the 3 x 3 kernel masked to
    :func:`hex_kernel_mask` by the output row's parity, and a weight means the same direction on
    every row (the layer commutes with every translation of the hex grid, not only with shifts
    by an even number of rows).
    """

    def __init__(self, in_channels: int, out_channels: int, bias: bool = True) -> None:
        super().__init__()
        self.in_channels, self.out_channels = in_channels, out_channels
        self.weight = nn.Parameter(torch.empty(out_channels, in_channels, TAPS))
        self.bias = nn.Parameter(torch.zeros(out_channels)) if bias else None
        self.register_buffer("even_place", tap_placement(odd=False), persistent=False)
        self.register_buffer("odd_place", tap_placement(odd=True), persistent=False)
        self.reset_parameters()

    def reset_parameters(self, gain: float = math.sqrt(2.0)) -> None:
        """He-normal over the seven taps; zero bias."""
        nn.init.normal_(self.weight, std=gain / math.sqrt(self.in_channels * TAPS))
        if self.bias is not None:
            nn.init.zeros_(self.bias)

    def kernels(self) -> tuple[torch.Tensor, torch.Tensor]:
        """The 3 x 3 kernels ``[out, in, 3, 3]`` of even and of odd output rows."""
        return (torch.einsum("oit,tkl->oikl", self.weight, self.even_place),
                torch.einsum("oit,tkl->oikl", self.weight, self.odd_place))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, _, rows, cols = x.shape
        even_kernel, odd_kernel = self.kernels()
        xp = F.pad(x, (1, 1, 1, 1))
        # Output row r reads padded rows r..r+2: even rows from xp, odd rows from xp[1:], both with row stride 2,
        # so the two convolutions together cost one.
        even = F.conv2d(xp, even_kernel, self.bias, stride=(2, 1))
        odd = F.conv2d(xp[..., 1:, :], odd_kernel, self.bias, stride=(2, 1))
        if rows % 2 == 0:
            return torch.stack([even, odd], dim=3).view(batch, self.out_channels, rows, cols)
        out = x.new_empty(batch, self.out_channels, rows, cols)
        out[..., 0::2, :] = even
        out[..., 1::2, :] = odd
        return out

    def extra_repr(self) -> str:
        return f"{self.in_channels}, {self.out_channels}, hex kernel (odd-r), bias={self.bias is not None}"


# ---------------------------------------------------------------- pooling
def masked_pool(h: torch.Tensor, on_map: torch.Tensor) -> torch.Tensor:
    """Mean, size-scaled mean and max of ``h`` [B, C, H, W] over on-map cells -> [B, 3C].

    ``on_map`` is [B, 1, H, W] of 0/1. The scaled mean (KataGo's) is the mean times
    ``(sqrt(cells) - 9) / 3``, which tells the network how big the map is. A board with no
    on-map cell pools to zeros.
    """
    count = on_map.sum(dim=(2, 3))  # [B, 1]
    mean = (h * on_map).sum(dim=(2, 3)) / count.clamp(min=1.0)
    scaled = mean * (count.sqrt() - 9.0) / 3.0
    low = torch.finfo(h.dtype).min
    peak = h.masked_fill(on_map == 0, low).amax(dim=(2, 3))
    peak = torch.where(count > 0, peak, torch.zeros_like(peak))
    return torch.cat([mean, scaled, peak], dim=1)


class GlobalPoolBias(nn.Module):
    """KataGo's global pooling bias: pooled features -> linear -> added to every cell's channels."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.linear = nn.Linear(POOLED_STATS * channels, channels)

    def forward(self, h: torch.Tensor, on_map: torch.Tensor) -> torch.Tensor:
        return h + self.linear(masked_pool(h, on_map))[:, :, None, None]


class HexResBlock(nn.Module):
    """conv - ReLU - global pooling bias - ReLU - conv, added to the input, ReLU; off-map cells kept at 0."""

    def __init__(self, channels: int, conv: Any = None) -> None:
        """``conv(in, out)`` builds each of the two convolutions (default :class:`HexConv2d`; the square grid's
        policy passes a 3 x 3 one)."""
        super().__init__()
        conv = conv or HexConv2d
        self.conv1 = conv(channels, channels)
        self.pool_bias = GlobalPoolBias(channels)
        self.conv2 = conv(channels, channels)

    def forward(self, x: torch.Tensor, on_map: torch.Tensor) -> torch.Tensor:
        h = F.relu(self.conv1(x)) * on_map
        h = F.relu(self.pool_bias(h, on_map)) * on_map
        return F.relu(x + self.conv2(h)) * on_map


# ---------------------------------------------------------------- trunk (the features extractor)
def on_map_plane(obs: torch.Tensor) -> torch.Tensor:
    """[B, 1, H, W]: 1 on the cells of the map, from the observation's ``off_map`` plane."""
    return 1.0 - obs[:, P["off_map"]:P["off_map"] + 1]


FIELD_SCALE = 10.0
"""Distance fields are in units of 10 hexes (the grid is 12 across), capped at 2."""
ENEMY_PLANES = tuple(P[name] for name in PLANES if name.startswith("enemy_") and name not in
                     ("enemy_hits", "enemy_activated", "enemy_order", "enemy_offtable_artillery"))
N_FIELDS = 9
"""Goal, objective and enemy distances each with a "there is one" plane; the acting unit's distance,
its plane, and a move's progress towards the goal."""


class HexDistanceFields(nn.Module):
    """[B, N_FIELDS, H, W] distance planes from the seat's observation (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        distances = torch.tensor(DIST, dtype=torch.float32)
        self.register_buffer("distances", distances, persistent=False)

    def nearest(self, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Distance of each cell to the nearest target cell (``targets`` [B, cells] of 0/1), exact (a masked
        minimum over the 120 x 120 distances), and whether there is any target."""
        there = (targets.sum(dim=1, keepdim=True) > 0).float()
        dist = (self.distances[None] + (1.0 - targets)[:, :, None] * 1e3).amin(dim=1)
        return (dist / FIELD_SCALE).clamp(0.0, 2.0) * there + 2.0 * (1 - there), there.expand_as(targets)

    def forward(self, obs: torch.Tensor, on_map: torch.Tensor) -> torch.Tensor:
        batch = obs.shape[0]
        flat = obs.reshape(batch, obs.shape[1], NUM_CELLS)
        inside = on_map.reshape(batch, NUM_CELLS)
        every = (flat[:, P["objective_mine"]] + flat[:, P["objective_enemy"]] + flat[:, P["objective_neutral"]]).gt(0)
        not_mine = (flat[:, P["objective_enemy"]] + flat[:, P["objective_neutral"]]).gt(0)
        goal = torch.where(not_mine.any(dim=1, keepdim=True), not_mine, every).float() * inside
        enemy = flat[:, list(ENEMY_PLANES)].sum(dim=1).gt(0).float() * inside
        planes: list[torch.Tensor] = []
        for targets in (goal, every.float() * inside, enemy):
            planes += list(self.nearest(targets))
        acting = flat[:, P["acting_unit"]] * inside
        has_unit = (acting.sum(dim=1, keepdim=True) > 0).float()
        from_unit = (acting @ self.distances) / FIELD_SCALE
        unit_goal = (planes[0] * acting).sum(dim=1, keepdim=True)
        progress = (unit_goal - planes[0]) * has_unit
        planes += [from_unit * has_unit + 2.0 * (1 - has_unit), has_unit.expand_as(acting), progress]
        return torch.stack(planes, dim=1).view(batch, N_FIELDS, *obs.shape[2:])


class HexTrunk(BaseFeaturesExtractor):
    """Hex convolutions with residual blocks over the observation planes (and, with ``fields``, the
    :class:`HexDistanceFields`).

    Returns the flattened ``[B, (channels + 1) * H * W]`` map: ``channels`` feature planes
    (zero off the map) and the on-map plane last, which the heads pool with.
    """

    def __init__(self, observation_space: gymnasium.spaces.Box, channels: int = 64, blocks: int = 3,
                 fields: bool = False) -> None:
        planes, rows, cols = observation_space.shape
        super().__init__(observation_space, (channels + 1) * rows * cols)
        self.channels, self.blocks, self.grid = channels, blocks, (rows, cols)
        self.fields = HexDistanceFields() if fields else None
        self.stem = HexConv2d(planes + 1 + (N_FIELDS if fields else 0), channels)
        self.res = nn.ModuleList(HexResBlock(channels) for _ in range(blocks))

    def feature_map(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(features [B, C, H, W], on-map [B, 1, H, W])."""
        on_map = on_map_plane(obs)
        parts = [obs * on_map, on_map]
        if self.fields is not None:
            parts.append(self.fields(obs, on_map) * on_map)
        h = F.relu(self.stem(torch.cat(parts, dim=1))) * on_map
        for block in self.res:
            h = block(h, on_map)
        return h, on_map

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        h, on_map = self.feature_map(observations)
        return torch.cat([h, on_map], dim=1).flatten(1)


# ---------------------------------------------------------------- heads
def action_layout() -> torch.Tensor:
    """For each action id, its index in ``cat(cell_logits.flatten(1), global_logits)``.

    ``cell_logits`` is [B, 7, cells] (channels :data:`CELL_CHANNELS`), ``global_logits``
    [B, 3] (:data:`GLOBAL_ACTIONS`).
    """
    channel = {kind_slot: i for i, kind_slot in enumerate(CELL_CHANNELS)}
    index = []
    for a in DECODED:
        if a.cell >= 0:
            index.append(channel[(a.kind, a.slot)] * NUM_CELLS + a.cell)
        else:
            index.append(len(CELL_CHANNELS) * NUM_CELLS + GLOBAL_ACTIONS.index(a.kind))
    return torch.tensor(index, dtype=torch.long)


def scatter_logits(cell_logits: torch.Tensor, global_logits: torch.Tensor,
                   layout: torch.Tensor | None = None) -> torch.Tensor:
    """[B, 7, H, W] cell logits and [B, 3] global logits -> [B, 843] in the action-id layout."""
    layout = action_layout().to(cell_logits.device) if layout is None else layout
    return torch.cat([cell_logits.flatten(1), global_logits], dim=1).index_select(1, layout)


class HexHeads(nn.Module):
    """Policy logits and value latent from the trunk's flattened map (SB3's ``mlp_extractor``).

    ``latent_dim_pi`` is the number of actions (the logits themselves), ``latent_dim_vf`` the
    width of the value's hidden layer.
    """

    def __init__(self, channels: int, grid: tuple[int, int], value_hidden: int = 64) -> None:
        super().__init__()
        self.channels, self.grid = channels, grid
        self.latent_dim_pi, self.latent_dim_vf = NUM_ACTIONS, value_hidden
        self.policy_conv = nn.Conv2d(channels, channels, 1)
        self.policy_pool_bias = GlobalPoolBias(channels)
        self.cell_logits = nn.Conv2d(channels, len(CELL_CHANNELS), 1)
        self.global_hidden = nn.Linear(POOLED_STATS * channels, channels)
        self.global_logits = nn.Linear(channels, len(GLOBAL_ACTIONS))
        self.value_hidden = nn.Linear(POOLED_STATS * channels, value_hidden)
        self.register_buffer("layout", action_layout(), persistent=False)

    def logit_layers(self) -> tuple[nn.Module, ...]:
        """The layers whose outputs are logits (initialised small)."""
        return self.cell_logits, self.global_logits

    def unpack(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """The trunk's flattened output -> (features [B, C, H, W], on-map [B, 1, H, W])."""
        full = features.view(features.shape[0], self.channels + 1, *self.grid)
        return full[:, :-1], full[:, -1:]

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        h, on_map = self.unpack(features)
        p = F.relu(self.policy_pool_bias(F.relu(self.policy_conv(h)) * on_map, on_map)) * on_map
        g = F.relu(self.global_hidden(masked_pool(h, on_map)))
        return scatter_logits(self.cell_logits(p), self.global_logits(g), self.layout)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        h, on_map = self.unpack(features)
        return F.relu(self.value_hidden(masked_pool(h, on_map)))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


# ---------------------------------------------------------------- the policy
class HexConvPolicy(MaskableActorCriticPolicy):
    """MaskablePPO policy: :class:`HexTrunk` features, :class:`HexHeads` logits and value.

    ``channels`` and ``blocks`` size the trunk; the other keyword arguments are
    ``MaskableActorCriticPolicy``'s (``net_arch`` and ``activation_fn`` are not used; a
    ``features_extractor_class`` other than :class:`HexTrunk` is refused).
    """

    trunk_class: type = HexTrunk
    heads_class: type = HexHeads
    """The trunk and the heads (a subclass for another hex game swaps them: the skirmish's policy)."""

    def __init__(self, observation_space: gymnasium.spaces.Space, action_space: gymnasium.spaces.Space,
                 lr_schedule: Any, channels: int = 64, blocks: int = 3, fields: bool = False, **kwargs: Any) -> None:
        trunk = self.trunk_class
        extractor = kwargs.pop("features_extractor_class", trunk)
        if extractor is not trunk:
            raise ValueError(f"{type(self).__name__}'s features extractor is {trunk.__name__}, not "
                             f"{extractor.__name__}")
        kwargs["features_extractor_kwargs"] = {"channels": channels, "blocks": blocks}
        if fields:
            kwargs["features_extractor_kwargs"]["fields"] = True
        kwargs.setdefault("net_arch", [])
        self.channels, self.blocks, self.fields = channels, blocks, fields
        super().__init__(observation_space, action_space, lr_schedule, features_extractor_class=trunk, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        data.update(channels=self.channels, blocks=self.blocks)
        if self.fields:
            data.update(fields=True)
        data.pop("features_extractor_kwargs", None)
        return data

    def _build_mlp_extractor(self) -> None:
        trunk = self.pi_features_extractor
        self.mlp_extractor = self.heads_class(trunk.channels, trunk.grid)

    def _build(self, lr_schedule: Any) -> None:
        super()._build(lr_schedule)
        self.action_net = nn.Identity()  # the heads give the logits
        self._init_hex_weights()
        self.optimizer = self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs)

    def _init_hex_weights(self) -> None:
        """He init in the trunk, each residual branch's last conv at zero (the block starts as the identity),
        logit layers at gain 0.01 (as SB3 does for ``action_net``)."""
        for module in self.modules():
            if isinstance(module, HexConv2d):
                module.reset_parameters()
            if isinstance(module, HexResBlock):
                nn.init.zeros_(module.conv2.weight)
        for layer in self.mlp_extractor.logit_layers():
            nn.init.orthogonal_(layer.weight, gain=0.01)
            nn.init.zeros_(layer.bias)


# ---------------------------------------------------------------- speed
def _standalone(channels: int, blocks: int) -> HexConvPolicy:
    space = gymnasium.spaces.Box(0.0, 1.0, OBS_SHAPE, dtype="float32")
    return HexConvPolicy(space, gymnasium.spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4,
                         channels=channels, blocks=blocks)


def time_forward_backward(channels: int, blocks: int, batch: int = 512, repeats: int = 3) -> float:
    """Best seconds of ``repeats`` forward + backward passes (logits and value) on ``batch`` observations."""
    policy = _standalone(channels, blocks)
    obs = torch.rand(batch, *OBS_SHAPE)
    obs[:, P["off_map"]] = 0.0
    return best_pass_seconds(policy, obs, repeats)


def best_pass_seconds(policy: HexConvPolicy, obs: torch.Tensor, repeats: int = 3) -> float:
    """Best seconds of ``repeats`` forward + backward passes (logits and value) of ``policy`` on ``obs``, after
    one warm-up (shared by each hex game's policy speed table)."""
    best = math.inf
    for _ in range(repeats + 1):  # the first is a warm-up
        start = time.perf_counter()
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(obs))
        (latent_pi.logsumexp(dim=1).mean() + policy.value_net(latent_vf).mean()).backward()
        best = min(best, time.perf_counter() - start)
    return best


def main(threads: int = 1) -> None:
    """Print the speed table of the module docstring."""
    torch.set_num_threads(threads)
    for channels, blocks in ((32, 2), (64, 3)):
        params = sum(p.numel() for p in _standalone(channels, blocks).parameters())
        print(f"channels {channels} blocks {blocks}: {params:,} parameters, {threads} thread(s): "
              f"{time_forward_backward(channels, blocks):.3f} s per batch of 512 (forward + backward)")


if __name__ == "__main__":
    main()
