# noqa: D212, D415
"""
# Hex WW2 card activation, PettingZoo AEC, channels-last observation

| Import             | `from cardwar.envs import hexwar_v1`                            |
|--------------------|-----------------------------------------------------------------|
| Registered id      | `cardwar/hexwar-v1` (`pettingzoo.make("aec", "cardwar/hexwar-v1")`) |
| Actions            | Discrete(843)                                                   |
| Parallel API       | No                                                              |
| Manual control     | `cardwar play hexwar`                                           |
| Agents             | `agents = ['blue', 'red']`                                      |
| Observation shape  | `observation`: (10, 12, 59) float32 in [0, 1]; `action_mask`: (843,) int8 |

The same game as `hexwar_v0` (the same engine, rules, actions, rewards and arguments), with
the observation laid out channels-last, (rows, columns, planes), as PettingZoo classic's
image-like observations (chess, go, connect four) are: `v1["observation"][r, c, p] ==
v0["observation"][p, r, c]`. Networks that expect height x width x channels take it as it
is, where their kernels fit a 10 x 12 grid: RLlib's CNN encoders (their default filters are
made for larger square images: give `conv_filters` for this grid) and SB3's `CnnPolicy`
(which transposes such images itself; its default NatureCNN, an 8 x 8 kernel of stride 4
then 4 x 4 of stride 2, does not fit, so give it a smaller `features_extractor_class`, and
`normalize_images=False`: the planes are already in [0, 1]).

```python
from cardwar.envs import hexwar_v1

env = hexwar_v1.env(scenario="river_crossing")
env.reset(seed=1)
obs, reward, termination, truncation, info = env.last()
assert obs["observation"].shape == (10, 12, 59)
```

## Observation
`{"observation", "action_mask"}`; `observation[row, col, p]` is plane `p` over the fixed
12 x 10 grid (odd-r layout), built from the side's information view: hidden enemy units
never appear. Whole-board facts are constant planes. Every channel, in order (built
from the encoder's own names, `cardwar.envs.hexwar.observation.plane_table()`; a hex
holds at most two units):

{{PLANE_TABLE}}

## Actions
As hexwar-v0: cells are `row * 12 + col` (labels `A1`..`L10`), and a shot names a unit
of a hex by its slot `s` (`/2` for the second). Every id range (built from the action
decoder, `cardwar.envs.hexwar.actions.action_table()`):

{{ACTION_TABLE}}

## Rewards and arguments
As hexwar-v0: +1 / -1 at the end, 0 for a draw; `hexwar_v1.env(scenario="meeting_engagement",
rules=None, render_mode=None, render_viewer=None)`, render modes `ansi`, `rgb_array`, `human`.

## Version history
* v1: channels-last observation (10, 12, 59); everything else as v0.
* v0: first release; planes first (59, 10, 12).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from cardwar.envs import hexwar_v0
from cardwar.envs.doc_pages import fill
from cardwar.envs.hexwar.actions import ACTION_TABLE
from cardwar.envs.hexwar.observation import NUM_PLANES, PLANE_TABLE
from cardwar.envs.hexwar.scenario import MAX_HEIGHT, MAX_WIDTH
from cardwar.envs.hexwar.state import HexIllegalActionError
from cardwar.envs.turn_based_env import standard_wrappers

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE, ACTION_TABLE=ACTION_TABLE)

AGENTS = hexwar_v0.AGENTS
DEFAULT_SCENARIO = hexwar_v0.DEFAULT_SCENARIO
OBS_SHAPE = (MAX_HEIGHT, MAX_WIDTH, NUM_PLANES)


def env(**kwargs: Any) -> AECEnv:
    """The hexwar-v1 env with PettingZoo's standard wrappers (illegal move: -1 and the game ends)."""
    return standard_wrappers(raw_env(**kwargs))


class raw_env(hexwar_v0.raw_env):  # noqa: N801 (PettingZoo naming)
    """The hex WW2 game with a channels-last observation; see the module docstring."""

    metadata = {**hexwar_v0.raw_env.metadata, "name": "hexwar_v1"}
    OBS_SHAPE = OBS_SHAPE

    def _encode(self, seat: int) -> np.ndarray:
        return np.ascontiguousarray(super()._encode(seat).transpose(1, 2, 0))


__all__ = ["env", "raw_env", "HexIllegalActionError", "AGENTS", "OBS_SHAPE"]
