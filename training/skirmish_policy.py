"""A hex-aware MaskablePPO policy for the squad skirmish whose heads read the figure being ordered
(:class:`SkirmishPolicy`).

The skirmish observation (:mod:`cardwar.envs.skirmish.observation`) is 221 planes over the fixed
16 x 24 grid in the odd-r layout, channels-last (``[16, 24, 221]``), and every decision is a factored *step* (RULES.md §9.1,
:mod:`cardwar.envs.skirmish.actions`): a figure's movement mode, then its destination hex, its stance;
a combat action, then its targets; an interrupt's mover; the deck's figure to activate, its fire team.
Ids ``0..383`` are hexes (``row * 24 + col``), ids ``384..419`` the named choices. So:

- **Layout.** The trunk turns the channels-last observation into planes first (a permute, its first
  step: a view; the concatenation before the 1 x 1 mixing is the one copy, as before) and works on
  ``[B, planes, 16, 24]`` from there, as convolutions in torch do. A model trained before issue 28, on
  skirmish-v0's planes-first observation ``[221, 16, 24]``, has the same weights: built with that
  observation space, the trunk takes planes-first input as it is, and ``ppo:PATH`` turns it to today's
  layout on loading (:meth:`SkirmishPolicy.adopt_current_layout`), so that it reads today's observation
  and plays exactly as before.
- **Distance fields** (:class:`DistanceFields`): a hex kernel sees one hex further each layer, but a
  figure's goal may lie 20 hexes off. So the trunk's input gets, besides the planes, each hex's distance
  (RULES.md §1.1, the grid's own ``distance``, walls ignored) to the nearest objective, exit-zone hex and
  known enemy, to the figure being ordered, and how much nearer the objective a hex is than that figure:
  a soft minimum over a fixed distance matrix, one matrix product per field.
- **Trunk** (:class:`SkirmishTrunk`): a 1 x 1 convolution mixes the 221 planes and the fields (most are constant or
  per-scenario, and a hex kernel over all of them would cost 7 times as much), then hex convolutions
  and residual blocks with KataGo's global pooling bias, exactly those of the hex game's policy
  (:class:`~cardwar.training.hex_policy.HexConv2d`, :class:`~cardwar.training.hex_policy.HexResBlock`:
  a kernel reaches a hex and its six neighbours on even and odd rows alike). Off-map hexes (plane
  ``ground_off``: a random map smaller than the grid) are zeroed after every layer and left out of
  the pooling, so a map's logits move with it on the grid.
- **The figure's context.** The plane ``acting_unit`` marks the hex of the figure (or vehicle) the step
  is about; its feature vector is gathered from the trunk's map (zero when no figure is being
  ordered), and joined with the pooled board and the step's one-hot (planes ``step_*``) into a context.
- **Per-step heads.** Hex ids get logits from 1 x 1 convolutions over each hex's features plus the
  context, one output channel per step kind (a destination, a target, an interrupt's mover and an
  activation are different questions about the same hex); the step's one-hot selects the channel.
  The 36 named choices get one linear layer per step kind on the context (a mode for *this* figure,
  a stance, an action, a speed...). The value reads the pooled board and the context.
  The logits land on the action ids in their own order (hex cells flattened, then the choices), so no
  scatter is needed; masking is MaskablePPO's (illegal ids at ``-1e8``).

Wiring into SB3 is as :class:`~cardwar.training.hex_policy.HexConvPolicy`'s: the features extractor is
the trunk (its flattened map, then the on-map and acting-figure planes, then the step one-hot), the
``mlp_extractor`` the heads (``(logits [B, 420], value latent)``), ``action_net`` the identity.

Speed on CPU (forward + backward of a batch of 512, ``python -m cardwar.training.skirmish_policy``,
one thread on the shared 2-core machine): see docs/training.md (skirmish).
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
import torch
import torch.nn.functional as F
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from cardwar.envs.skirmish.actions import CHOICES, GRID, HEIGHT, N_ACTIONS, N_CELLS, WIDTH, Step
from cardwar.envs.skirmish.observation import OBS_SHAPE, P, PLANES_FIRST_SHAPE
from cardwar.training.hex_policy import (POOLED_STATS, GlobalPoolBias, HexConv2d, HexConvPolicy, HexResBlock,
                                         best_pass_seconds, masked_pool)

N_STEPS = len(Step)
N_CHOICES = len(CHOICES)
STEP0 = P["step_mode"]
"""The first of the step one-hot planes (constant over the grid), in :class:`Step` order."""


LAYOUTS = {tuple(OBS_SHAPE): True, tuple(PLANES_FIRST_SHAPE): False}
"""The observation shapes the policy reads: channels-last (today's skirmish-v0) -> True, planes first (the form
models were trained on before issue 28) -> False."""


def channels_last_space(space: gymnasium.spaces.Box) -> gymnasium.spaces.Box:
    """``space`` (a planes-first skirmish observation space, as a model saved before issue 28 holds) laid out
    channels-last, as the env gives it now; any other space as it is."""
    if tuple(space.shape) != tuple(PLANES_FIRST_SHAPE):
        return space
    return gymnasium.spaces.Box(np.moveaxis(space.low, 0, -1), np.moveaxis(space.high, 0, -1), dtype=space.dtype)


def on_map_plane(obs: torch.Tensor) -> torch.Tensor:
    """[B, 1, H, W]: 1 on the hexes of the map (plane ``ground_off`` is 1 off it)."""
    return 1.0 - obs[:, P["ground_off"]:P["ground_off"] + 1]


def hex_distances() -> torch.Tensor:
    """[cells, cells]: hex distance between every two hexes of the grid (RULES.md §1.1)."""
    return torch.tensor([[GRID.distance(a, b) for b in range(N_CELLS)] for a in range(N_CELLS)],
                        dtype=torch.float32)


FIELD_SCALE = 20.0
"""Distances are given in units of 20 hexes (the grid is 24 across), capped at 2."""
TARGET_PLANES = {"objective": ("objective_points",), "exit": ("exit_zone",),
                 "enemy": ("enemy_figure", "enemy_last_seen", "enemy_vehicle", "enemy_vehicle_last_seen")}
N_FIELDS = 2 * len(TARGET_PLANES) + 3
"""Per target kind a distance and a "there is one" plane; the ordered figure's distance, its "there is
one" plane, and the objective progress of a hex over the figure's own."""


class DistanceFields(nn.Module):
    """[B, N_FIELDS, H, W] distance planes from the observation (see the module docstring)."""

    def __init__(self) -> None:
        super().__init__()
        distances = hex_distances()
        self.register_buffer("distances", distances, persistent=False)
        self.register_buffer("near", torch.exp(-distances), persistent=False)

    def soft_min(self, targets: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Distance of each hex to the nearest target hex (``targets`` [B, cells] of 0/1) and whether any is."""
        total = targets @ self.near  # sum over targets of exp(-distance): symmetric matrix
        there = (targets.sum(dim=1, keepdim=True) > 0).float()
        dist = -torch.log(total.clamp(min=1e-30))
        return (dist / FIELD_SCALE).clamp(0.0, 2.0) * there + 2.0 * (1 - there), there.expand_as(total)

    def forward(self, obs: torch.Tensor, on_map: torch.Tensor) -> torch.Tensor:
        """The fields of ``obs`` [B, planes, H, W] (a channels-last tensor permuted will do: only the planes read
        are gathered); targets count on the map only (``on_map`` [B, 1, H, W])."""
        batch = obs.shape[0]

        def plane(name: str) -> torch.Tensor:
            return obs[:, P[name]].reshape(batch, N_CELLS)

        inside = on_map.reshape(batch, N_CELLS)
        planes = []
        for names in TARGET_PLANES.values():
            targets = sum(plane(n) for n in names).gt(0).float() * inside
            planes += list(self.soft_min(targets))
        acting = plane("acting_unit") * inside
        has_figure = (acting.sum(dim=1, keepdim=True) > 0).float()
        from_figure = (acting @ self.distances) / FIELD_SCALE  # exact: one hex
        objective = planes[0]
        figure_objective = (objective * acting).sum(dim=1, keepdim=True)
        progress = (figure_objective - objective) * has_figure  # > 0: nearer the objective than the figure
        planes += [from_figure * has_figure + 2.0 * (1 - has_figure), has_figure.expand_as(acting), progress]
        return torch.stack(planes, dim=1).view(batch, N_FIELDS, *obs.shape[2:])


def step_one_hot(obs: torch.Tensor) -> torch.Tensor:
    """[B, 9]: the decision's step (all zero when the seat has no decision)."""
    return obs[:, STEP0:STEP0 + N_STEPS, 0, 0]


class SkirmishTrunk(BaseFeaturesExtractor):
    """1 x 1 plane mixing, a hex convolution and residual hex blocks over the observation.

    The observation is channels-last ``[B, 16, 24, planes]``, or planes first for a model whose space says so
    (:data:`LAYOUTS`). Returns ``[B, (channels + 2) * H * W + 9]``: the feature planes (zero off the map), the
    on-map plane, the acting figure's plane, then the step one-hot.
    """

    def __init__(self, observation_space: gymnasium.spaces.Box, channels: int = 32, blocks: int = 2) -> None:
        shape = tuple(observation_space.shape)
        if shape not in LAYOUTS:
            raise ValueError(f"SkirmishTrunk reads the skirmish observation {OBS_SHAPE} (or {PLANES_FIRST_SHAPE}, "
                             f"planes first), not {shape}")
        planes, rows, cols = PLANES_FIRST_SHAPE
        super().__init__(observation_space, (channels + 2) * rows * cols + N_STEPS)
        self.channels_last = LAYOUTS[shape]
        self.channels, self.blocks, self.grid = channels, blocks, (rows, cols)
        self.fields = DistanceFields()
        self.mix = nn.Conv2d(planes + 1 + N_FIELDS, channels, 1)
        self.stem = HexConv2d(channels, channels)
        self.res = nn.ModuleList(HexResBlock(channels) for _ in range(blocks))

    def feature_map(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(features [B, C, H, W], on-map [B, 1, H, W]) of ``obs`` [B, planes, H, W], planes first or a channels-last
        tensor permuted: the concatenation before the 1 x 1 mixing is the one copy into planes-first order."""
        on_map = on_map_plane(obs).contiguous()
        x = torch.cat([obs * on_map, on_map, self.fields(obs, on_map)], dim=1).contiguous()
        h = F.relu(self.mix(x)) * on_map
        h = F.relu(self.stem(h)) * on_map
        for block in self.res:
            h = block(h, on_map)
        return h, on_map

    def planes_first(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, planes, H, W]``: the channels-last observation permuted, a view (no copy: :meth:`feature_map`'s
        concatenation makes the one planes-first copy); planes-first input as it is."""
        return observations.permute(0, 3, 1, 2) if self.channels_last else observations

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        obs = self.planes_first(observations)
        h, on_map = self.feature_map(obs)
        acting = obs[:, P["acting_unit"]:P["acting_unit"] + 1] * on_map
        return torch.cat([torch.cat([h, on_map, acting], dim=1).flatten(1), step_one_hot(obs)], dim=1)


class SkirmishHeads(nn.Module):
    """Logits over the 420 ids and the value latent, from the trunk's output (SB3's ``mlp_extractor``)."""

    def __init__(self, channels: int, grid: tuple[int, int], value_hidden: int = 64) -> None:
        super().__init__()
        self.channels, self.grid = channels, grid
        self.latent_dim_pi, self.latent_dim_vf = N_ACTIONS, value_hidden
        context_in = POOLED_STATS * channels + channels + N_STEPS
        self.context = nn.Linear(context_in, channels)
        self.cell_conv = nn.Conv2d(channels, channels, 1)
        self.cell_context = nn.Linear(channels, channels)
        self.cell_pool_bias = GlobalPoolBias(channels)
        self.cell_logits = nn.Conv2d(channels, N_STEPS, 1)
        self.choice_logits = nn.Linear(channels, N_STEPS * N_CHOICES)
        self.value_hidden = nn.Linear(context_in, value_hidden)

    def logit_layers(self) -> tuple[nn.Module, ...]:
        """The layers whose outputs are logits (initialised small)."""
        return self.cell_logits, self.choice_logits

    def unpack(self, features: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """(features [B, C, H, W], on-map [B, 1, H, W], acting figure [B, 1, H, W], step [B, 9])."""
        batch = features.shape[0]
        maps = features[:, :-N_STEPS].reshape(batch, self.channels + 2, *self.grid)
        return maps[:, :-2], maps[:, -2:-1], maps[:, -1:], features[:, -N_STEPS:]

    def _context_in(self, h: torch.Tensor, on_map: torch.Tensor, acting: torch.Tensor,
                    step: torch.Tensor) -> torch.Tensor:
        figure = (h * acting).sum(dim=(2, 3))  # the ordered figure's features; zero when there is none
        return torch.cat([masked_pool(h, on_map), figure, step], dim=1)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        h, on_map, acting, step = self.unpack(features)
        ctx = F.relu(self.context(self._context_in(h, on_map, acting, step)))
        p = F.relu(self.cell_conv(h) + self.cell_context(ctx)[:, :, None, None]) * on_map
        p = F.relu(self.cell_pool_bias(p, on_map)) * on_map
        cells = (self.cell_logits(p) * step[:, :, None, None]).sum(dim=1).flatten(1)  # [B, H * W]
        choices = (self.choice_logits(ctx).view(-1, N_STEPS, N_CHOICES) * step[:, :, None]).sum(dim=1)
        return torch.cat([cells, choices], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        h, on_map, acting, step = self.unpack(features)
        return F.relu(self.value_hidden(self._context_in(h, on_map, acting, step)))

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)


class SkirmishPolicy(HexConvPolicy):
    """MaskablePPO policy: :class:`SkirmishTrunk` features, :class:`SkirmishHeads` logits and value (the hex
    game's :class:`HexConvPolicy` with the skirmish's trunk and heads).

    ``channels`` and ``blocks`` size the trunk; the other keyword arguments are
    ``MaskableActorCriticPolicy``'s (``net_arch`` and ``activation_fn`` are not used).
    """

    trunk_class = SkirmishTrunk
    heads_class = SkirmishHeads
    trace_actor = True
    """The actor's forward has no branch on the data (only on the fixed grid's shape and the layout flag), so
    ``torch.jit.trace`` records it whole: a decision's fast path (:mod:`cardwar.training.fast_inference`)."""

    def __init__(self, observation_space: gymnasium.spaces.Space, action_space: gymnasium.spaces.Space,
                 lr_schedule: Any, channels: int = 32, blocks: int = 2, **kwargs: Any) -> None:
        if tuple(observation_space.shape) not in LAYOUTS or getattr(action_space, "n", None) != N_ACTIONS:
            raise ValueError(f"SkirmishPolicy plays the skirmish's {OBS_SHAPE} observation (or {PLANES_FIRST_SHAPE}, "
                             f"planes first) and Discrete({N_ACTIONS}) actions, not {observation_space.shape} and "
                             f"{action_space}")
        super().__init__(observation_space, action_space, lr_schedule, channels=channels, blocks=blocks, **kwargs)

    def adopt_current_layout(self) -> bool:
        """Make a policy built for the planes-first observation (a model saved before issue 28) read the
        channels-last one the env gives now: the same weights, its trunk permutes its input first, so it plays
        exactly as before. True if it changed (``ppo:PATH`` calls it on every model it loads)."""
        trunks = [m for m in self.modules() if isinstance(m, SkirmishTrunk)]
        if all(t.channels_last for t in trunks):
            return False
        space = channels_last_space(self.observation_space)
        for trunk in trunks:
            trunk.channels_last, trunk._observation_space = True, space
        self.observation_space = space
        return True


# ---------------------------------------------------------------- speed
def standalone(channels: int = 32, blocks: int = 2, shape: tuple[int, ...] = OBS_SHAPE) -> SkirmishPolicy:
    """A policy outside any model (tests, timing); ``shape`` :data:`PLANES_FIRST_SHAPE` for the old layout."""
    space = gymnasium.spaces.Box(0.0, 1.0, shape, dtype="float32")
    return SkirmishPolicy(space, gymnasium.spaces.Discrete(N_ACTIONS), lambda _: 3e-4, channels=channels,
                          blocks=blocks)


def time_forward_backward(channels: int, blocks: int, batch: int = 512, repeats: int = 3) -> float:
    """Best seconds of ``repeats`` forward + backward passes (logits and value) on ``batch`` observations."""
    policy = standalone(channels, blocks)
    obs = (torch.rand(batch, *OBS_SHAPE) < 0.07).float()
    obs[..., P["ground_off"]] = 0.0
    return best_pass_seconds(policy, obs, repeats)


def main(threads: int = 1) -> None:
    """Print the parameters and the speed of two sizes."""
    torch.set_num_threads(threads)
    for channels, blocks in ((32, 2), (64, 3)):
        params = sum(p.numel() for p in standalone(channels, blocks).parameters())
        print(f"channels {channels} blocks {blocks}: {params:,} parameters, {threads} thread(s): "
              f"{time_forward_backward(channels, blocks):.3f} s per batch of 512 (forward + backward)")


assert (HEIGHT, WIDTH) == tuple(OBS_SHAPE[:2]) == tuple(PLANES_FIRST_SHAPE[1:]) and HEIGHT * WIDTH == N_CELLS

if __name__ == "__main__":
    main()
