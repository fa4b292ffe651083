"""A fully convolutional MaskablePPO policy for Tank Attack's square grid (:class:`GridPolicy`, ``grid_fcn``).

Tank Attack (``envs/tankattack``) observes ``float32[24, 16, P]`` planes, channels-last, over the fixed 24 x 16
frame (a smaller map uses its top-left part, plane ``off_map`` marks the rest), and acts in small steps
(``envs/tankattack/actions.py``, RULES.md 19): ids 0-383 are cells (``row * 16 + col``: the element to move,
its destination, the shooter, the target, the combat...), ids 384-415 the 32 other choices (a facing, end,
shoot back, a reserve type, counter-battery...). What a cell id means depends on the stage (planes
``stage_*``, constant over the grid). The network is the hex game's (:mod:`cardwar.training.hex_policy`) on
a square grid:

- *Trunk*: a 1 x 1 convolution mixes the planes (most are constant or per-scenario), a 3 x 3 convolution,
  then residual blocks of 3 x 3 convolutions with KataGo's global pooling bias (``HexResBlock`` with square
  kernels: the far side of the map informs a cell within one block). Off-map cells are zeroed after every
  layer and left out of the pooling, so a small map's outputs do not depend on the frame around it.
- *Distance fields* (``policy.distance_fields``, :class:`GridDistanceFields`): each cell's steps to the
  Command Bunker (8 neighbours, lakes and the frame around the map impassable: the heuristic's own measure,
  ``bunker_distance``), the progress a move of the pending element to it makes, and its steps to the nearest
  enemy and own element, computed from the observation's planes and joined to the trunk's input (three 3 x 3
  blocks see 5 cells of a 24-row map; the heuristic steers by the first).
- *The decision's context*: the features at the cells of the decision under way (the pending element,
  shooter or combat; the pending destination, target or aids: planes ``pending_*``) are gathered and joined
  with the pooled board and the stage's one-hot.
- *Per-stage heads*: cell ids get logits from 1 x 1 convolutions over each cell's features plus the context,
  one output channel per stage (the element to move and its destination are different questions about the
  same cell), the stage one-hot selecting the channel; the 32 other ids get one linear layer per stage on the
  context. The value reads the pooled board and the context. The logits land on the action ids in their own
  order (cells flattened row by row, then the others), so no scatter is needed; masking is MaskablePPO's.

Wiring into SB3 is :class:`~cardwar.training.hex_policy.HexConvPolicy`'s (its ``trunk_class`` and
``heads_class`` swapped, as the skirmish's policy does). ``python -m cardwar.training.grid_policy`` prints its
parameters and its speed on this CPU.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import torch
import torch.nn.functional as F
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from cardwar.envs.tankattack.actions import NUM_ACTIONS
from cardwar.envs.tankattack.board import NUM_CELLS
from cardwar.envs.tankattack.elements import EType
from cardwar.envs.tankattack.observation import OBS_SHAPE, P, STAGES
from cardwar.training.hex_policy import (POOLED_STATS, GlobalPoolBias, HexConvPolicy, HexResBlock, best_pass_seconds,
                                         masked_pool)

N_STAGES = len(STAGES)
N_OTHERS = NUM_ACTIONS - NUM_CELLS
"""The ids after the cells (facings, end, yes, suppress, the reserve types, counter-battery, rally, raid)."""
STAGE0 = P[f"stage_{STAGES[0]}"]
ACTOR_PLANES = tuple(P[n] for n in ("pending_element", "pending_shooter", "pending_combat"))
"""Cells of the element the decision is about."""
OBJECT_PLANES = tuple(P[n] for n in ("pending_dest", "pending_target", "pending_aid"))
"""Cells the decision has already named for it (a destination, a target, aids)."""
N_MARKS = 2


def square_conv(in_channels: int, out_channels: int) -> nn.Conv2d:
    """A 3 x 3 convolution with zero padding (a cell and its eight neighbours)."""
    return nn.Conv2d(in_channels, out_channels, 3, padding=1)


FIELD_SCALE = 24.0
"""Distances are given in steps / 24 (the frame's rows), capped at 2 (no path, no target)."""
FIELDS = ("bunker_steps", "bunker_reachable", "bunker_progress", "enemy_steps", "own_steps")
"""The distance planes of :class:`GridDistanceFields`, in order."""
N_FIELDS = len(FIELDS)
ENEMY_PLANES = tuple(k for name, k in P.items() if name.startswith("enemy_") and name[6:].upper() in
                     {t.name for t in EType})
OWN_PLANES = tuple(k for name, k in P.items() if name.startswith("own_") and name[4:].upper() in
                   {t.name for t in EType})
_EDGE = torch.tensor([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]]).view(1, 1, 3, 3)


def spread(dist: torch.Tensor, passable: torch.Tensor) -> torch.Tensor:
    """Breadth-first steps over the 8 neighbours: ``dist`` [B, 1, H, W] (inf where not yet reached) relaxed
    by ``min(d, min of the 3 x 3 neighbourhood + 1)`` on ``passable`` cells until nothing changes (exact)."""
    inf = torch.full_like(dist, float("inf"))
    for _ in range(dist.shape[2] * dist.shape[3]):
        step = -F.max_pool2d(-dist, 3, stride=1, padding=1) + 1.0
        new = torch.where(passable > 0, torch.minimum(dist, step), inf)
        if torch.equal(new, dist):
            break
        dist = new
    return dist


def nearest_steps(targets: torch.Tensor) -> torch.Tensor:
    """[B, 1, H, W]: king's-move steps (Chebyshev distance) of every cell to the nearest target cell (0/1
    ``targets`` [B, 1, H, W]); inf where there is none."""
    inf = torch.full_like(targets, float("inf"))
    return spread(torch.where(targets > 0, torch.zeros_like(targets), inf), torch.ones_like(targets))


class GridDistanceFields(nn.Module):
    """[B, N_FIELDS, H, W] distance planes (:data:`FIELDS`) from planes-first observations.

    ``bunker_steps`` is the heuristic's ``bunker_distance`` (``agents/tankattack_heuristic.py``): 0 on the
    Bunker, 1 on the passable cells touching it by an edge (contact is edge to edge, RULES.md 1.3), then
    steps over the 8 neighbours through passable cells (on the map and not lake, 2.1), the Bunker's own cell
    not passed through. ``bunker_progress`` is the pending element's ``bunker_steps`` less the cell's (how
    much nearer a move there brings it; 0 with no element pending). Only public planes are read (the
    ground, the Bunker while it stands, the elements the seat sees), so the fields add nothing to what the
    seat knows.
    """

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("edge", _EDGE.clone(), persistent=False)

    def forward(self, obs: torch.Tensor, on_map: torch.Tensor) -> torch.Tensor:
        lake = obs[:, P["ground_lake"]:P["ground_lake"] + 1]
        passable = on_map * (1.0 - lake)
        bunker = obs[:, P["bunker"]:P["bunker"] + 1] * on_map
        inf = torch.full_like(bunker, float("inf"))
        touching = (F.conv2d(bunker, self.edge, padding=1) > 0).float() * passable * (1.0 - bunker)
        dist = spread(torch.where(touching > 0, torch.ones_like(bunker), inf), passable * (1.0 - bunker))
        dist = torch.where(bunker > 0, torch.zeros_like(dist), dist)
        reach = torch.isfinite(dist).float()
        steps = torch.where(reach > 0, dist / FIELD_SCALE, torch.full_like(dist, 2.0)).clamp(max=2.0)
        element = obs[:, P["pending_element"]:P["pending_element"] + 1] * on_map
        has_element = (element.sum(dim=(2, 3), keepdim=True) > 0).float()
        at_element = (steps * element).sum(dim=(2, 3), keepdim=True) / element.sum(dim=(2, 3), keepdim=True).clamp(min=1.0)
        progress = (at_element - steps) * has_element
        planes = [steps, reach, progress]
        for group in (ENEMY_PLANES, OWN_PLANES):
            there = (obs[:, list(group)].sum(dim=1, keepdim=True) * on_map > 0).float()
            near = nearest_steps(there)
            planes.append(torch.where(torch.isfinite(near), near / FIELD_SCALE, torch.full_like(near, 2.0))
                          .clamp(max=2.0))
        return torch.cat(planes, dim=1)


def on_map_plane(obs: torch.Tensor) -> torch.Tensor:
    """[B, 1, H, W]: 1 on the map's cells (plane ``off_map`` is 1 off it), from planes-first ``obs``."""
    return 1.0 - obs[:, P["off_map"]:P["off_map"] + 1]


def stage_one_hot(obs: torch.Tensor) -> torch.Tensor:
    """[B, stages]: the stage the decision is in (a constant plane, so read at cell 0), from planes-first ``obs``."""
    return obs[:, STAGE0:STAGE0 + N_STAGES, 0, 0]


class GridTrunk(BaseFeaturesExtractor):
    """1 x 1 plane mixing, a 3 x 3 convolution and residual blocks over the channels-last observation.

    Returns ``[B, (channels + 1 + N_MARKS) * H * W + stages]``: the feature planes (zero off the map), the
    on-map plane, the decision's two mark planes (:data:`ACTOR_PLANES`, :data:`OBJECT_PLANES`), the stage one-hot.
    With ``fields``, the :class:`GridDistanceFields` join the observation at the input.
    """

    def __init__(self, observation_space: gymnasium.spaces.Box, channels: int = 32, blocks: int = 2,
                 fields: bool = False) -> None:
        shape = tuple(observation_space.shape)
        if shape != tuple(OBS_SHAPE):
            raise ValueError(f"GridTrunk reads Tank Attack's observation {tuple(OBS_SHAPE)}, not {shape}")
        rows, cols, planes = OBS_SHAPE
        super().__init__(observation_space, (channels + 1 + N_MARKS) * rows * cols + N_STAGES)
        self.channels, self.blocks, self.grid = channels, blocks, (rows, cols)
        self.fields = GridDistanceFields() if fields else None
        self.mix = nn.Conv2d(planes + 1 + (N_FIELDS if fields else 0), channels, 1)
        self.stem = square_conv(channels, channels)
        self.res = nn.ModuleList(HexResBlock(channels, conv=square_conv) for _ in range(blocks))

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = observations.permute(0, 3, 1, 2)
        on_map = on_map_plane(obs).contiguous()
        parts = [obs * on_map, on_map]
        if self.fields is not None:
            parts.append(self.fields(obs, on_map) * on_map)
        h = F.relu(self.mix(torch.cat(parts, dim=1).contiguous())) * on_map
        h = F.relu(self.stem(h)) * on_map
        for block in self.res:
            h = block(h, on_map)
        marks = [obs[:, list(planes)].sum(dim=1, keepdim=True).clamp(max=1.0) * on_map
                 for planes in (ACTOR_PLANES, OBJECT_PLANES)]
        return torch.cat([torch.cat([h, on_map, *marks], dim=1).flatten(1), stage_one_hot(obs)], dim=1)


class GridHeads(nn.Module):
    """Logits over the 416 ids and the value latent, from the trunk's output (SB3's ``mlp_extractor``)."""

    def __init__(self, channels: int, grid: tuple[int, int], value_hidden: int = 64) -> None:
        super().__init__()
        self.channels, self.grid = channels, grid
        self.latent_dim_pi, self.latent_dim_vf = NUM_ACTIONS, value_hidden
        context_in = POOLED_STATS * channels + N_MARKS * channels + N_STAGES
        self.context = nn.Linear(context_in, channels)
        self.cell_conv = nn.Conv2d(channels, channels, 1)
        self.cell_context = nn.Linear(channels, channels)
        self.cell_pool_bias = GlobalPoolBias(channels)
        self.cell_logits = nn.Conv2d(channels, N_STAGES, 1)
        self.other_logits = nn.Linear(channels, N_STAGES * N_OTHERS)
        self.value_hidden = nn.Linear(context_in, value_hidden)

    def logit_layers(self) -> tuple[nn.Module, ...]:
        """The layers whose outputs are logits (initialised small)."""
        return self.cell_logits, self.other_logits

    def unpack(self, features: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """(features [B, C, H, W], on-map [B, 1, H, W], marks [B, 2, H, W], stage [B, stages])."""
        batch = features.shape[0]
        maps = features[:, :-N_STAGES].reshape(batch, self.channels + 1 + N_MARKS, *self.grid)
        return maps[:, :self.channels], maps[:, self.channels:self.channels + 1], maps[:, self.channels + 1:], \
            features[:, -N_STAGES:]

    @staticmethod
    def _context_in(h: torch.Tensor, on_map: torch.Tensor, marks: torch.Tensor, stage: torch.Tensor) -> torch.Tensor:
        counts = marks.sum(dim=(2, 3)).clamp(min=1.0)  # [B, 2]
        marked = torch.einsum("bchw,bmhw->bmc", h, marks) / counts[:, :, None]  # mean features at each mark
        return torch.cat([masked_pool(h, on_map), marked.flatten(1), stage], dim=1)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        h, on_map, marks, stage = self.unpack(features)
        ctx = F.relu(self.context(self._context_in(h, on_map, marks, stage)))
        p = F.relu(self.cell_conv(h) + self.cell_context(ctx)[:, :, None, None]) * on_map
        p = F.relu(self.cell_pool_bias(p, on_map)) * on_map
        cells = (self.cell_logits(p) * stage[:, :, None, None]).sum(dim=1).flatten(1)  # [B, H * W]: row * 16 + col
        others = (self.other_logits(ctx).view(-1, N_STAGES, N_OTHERS) * stage[:, :, None]).sum(dim=1)
        return torch.cat([cells, others], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        h, on_map, marks, stage = self.unpack(features)
        return F.relu(self.value_hidden(self._context_in(h, on_map, marks, stage)))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class GridPolicy(HexConvPolicy):
    """MaskablePPO policy for Tank Attack: :class:`GridTrunk` features, :class:`GridHeads` logits and value.

    ``channels`` and ``blocks`` size the trunk, ``fields`` adds the :class:`GridDistanceFields`; the other keyword
    arguments are ``MaskableActorCriticPolicy``'s (``net_arch`` and ``activation_fn`` are not used).
    """

    trunk_class = GridTrunk
    heads_class = GridHeads

    def __init__(self, observation_space: gymnasium.spaces.Space, action_space: gymnasium.spaces.Space,
                 lr_schedule: Any, channels: int = 32, blocks: int = 2, fields: bool = False, **kwargs: Any) -> None:
        if tuple(observation_space.shape) != tuple(OBS_SHAPE) or getattr(action_space, "n", None) != NUM_ACTIONS:
            raise ValueError(f"GridPolicy plays Tank Attack's {tuple(OBS_SHAPE)} observation and "
                             f"Discrete({NUM_ACTIONS}) actions, not {observation_space.shape} and {action_space}")
        super().__init__(observation_space, action_space, lr_schedule, channels=channels, blocks=blocks,
                         fields=fields, **kwargs)


# ---------------------------------------------------------------- speed
def standalone(channels: int = 32, blocks: int = 2, fields: bool = False) -> GridPolicy:
    """A policy outside any model (tests, timing)."""
    space = gymnasium.spaces.Box(0.0, 1.0, OBS_SHAPE, dtype="float32")
    return GridPolicy(space, gymnasium.spaces.Discrete(NUM_ACTIONS), lambda _: 3e-4, channels=channels, blocks=blocks,
                      fields=fields)


def main(threads: int = 1) -> None:
    """Print the parameters and the speed (forward + backward of 512 observations) of three networks."""
    torch.set_num_threads(threads)
    for channels, blocks, fields in ((32, 2, False), (32, 2, True), (64, 3, True)):
        policy = standalone(channels, blocks, fields)
        obs = (torch.rand(512, *OBS_SHAPE) < 0.07).float()
        obs[..., P["off_map"]] = 0.0
        params = sum(p.numel() for p in policy.parameters())
        print(f"channels {channels} blocks {blocks} distance fields {fields}: {params:,} parameters, {threads} thread(s): "
              f"{best_pass_seconds(policy, obs):.3f} s per batch of 512 (forward + backward)")


assert OBS_SHAPE[0] * OBS_SHAPE[1] == NUM_CELLS

if __name__ == "__main__":
    main()
