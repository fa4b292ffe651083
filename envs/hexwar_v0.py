# noqa: D212, D415
"""
# Hex WW2 card activation, PettingZoo AEC

| Import             | `from cardwar.envs import hexwar_v0`                           |
|--------------------|----------------------------------------------------------------|
| Registered id      | `cardwar/hexwar-v0` (`pettingzoo.make("aec", "cardwar/hexwar-v0")`) |
| Parallel API       | No                                                             |
| Manual control     | `cardwar play hexwar`                                          |
| Actions            | Discrete(843)                                                  |
| Agents             | `agents = ['blue', 'red']`                                     |
| Observation shape  | `observation`: (59, 10, 12) float32 in [0, 1]; `action_mask`: (843,) int8 |

A One-Hour-Wargames-style WW2 game on a hex grid: each turn a playing card is
dealt face up per unit, units act from King down to Ace, and a D3 decides
combat (rules: `envs/hexwar/RULES.md`). The agent to act is the side of the
unit whose card is up, or the side deciding on evasive action.

## Usage

```python
from cardwar.envs import hexwar_v0

env = hexwar_v0.env(scenario="river_crossing", render_mode="ansi", render_viewer="blue")
env.reset(seed=1)
{{AEC_LOOP}}
```

## Observation
`{"observation", "action_mask"}`. The observation is 59 planes over the fixed
12 x 10 grid (planes x rows x columns, odd-r layout; `cardwar/hexwar-v1` gives the
same tensor channels-last), built from the side's information view: hidden enemy
units never appear. Whole-board facts are constant planes. Every plane, in order
(built from the encoder's own names, `cardwar.envs.hexwar.observation.plane_table()`;
a hex holds at most two units):

{{PLANE_TABLE}}

## Actions
One flat Discrete space; cells are `row * 12 + col` (labels `A1`..`L10`), and a shot
names a unit of a hex by its slot `s` (0 the first unit, 1 the second: `/2`). Every id
range (built from the action decoder, `cardwar.envs.hexwar.actions.action_table()`):

{{ACTION_TABLE}}

`cardwar.envs.hexwar.action_to_string` and `string_to_action` convert ids to the
notation and back. Joint moves and shots need the `joint_activation` rule.

## Rewards
+1 / -1 at the end (objectives at the turn limit, or elimination), 0 for a draw.

## Arguments
`hexwar_v0.env(scenario="meeting_engagement", rules=None, render_mode=None,
render_viewer=None)`: `scenario` is a shipped name, a path to a YAML file, or
`"random"` (a new procedural scenario each reset, from the reset seed: a 63-bit
generator seed makes the public map, a separate deal its hidden units), or one
of its two disjoint halves `"random:train"` / `"random:test"` (even / odd
generator seeds: train on one, test on maps never seen);
`rules` is a dict of `cardwar.envs.hexwar.config.HexConfig` options; `render_viewer` is
`"blue"`, `"red"`, `None` (spectator) or `"omniscient"`.

## Version history
* v1 (`hexwar_v1`): the same, with the observation channels-last (10, 12, 59).
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from cardwar.envs.doc_pages import fill
from cardwar.envs.hexwar.actions import ACTION_TABLE, NUM_ACTIONS
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.observation import OBS_SHAPE, PLANE_TABLE, encode_observation
from cardwar.envs.hexwar.scenario import Scenario, load_scenario
from cardwar.envs.hexwar.state import HexIllegalActionError, HexState
from cardwar.envs.hexwar.text import render_state
from cardwar.envs.turn_based_env import AEC_LOOP, RANDOM_SPLITS, ScenarioEnv, standard_wrappers

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE, ACTION_TABLE=ACTION_TABLE, AEC_LOOP=AEC_LOOP)

AGENTS = ["blue", "red"]
DEFAULT_SCENARIO = "meeting_engagement"


def env(**kwargs: Any) -> AECEnv:
    """The hex env with PettingZoo's standard wrappers."""
    return standard_wrappers(raw_env(**kwargs))


class raw_env(ScenarioEnv, EzPickle):  # noqa: N801
    """The hex WW2 game as an AEC env; see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "hexwar_v0", "is_parallelizable": False,
                "render_fps": 2}
    AGENTS = AGENTS
    NUM_ACTIONS = NUM_ACTIONS
    OBS_SHAPE = OBS_SHAPE

    def __init__(self, scenario: str | Scenario = DEFAULT_SCENARIO, rules: dict | HexConfig | None = None,
                 render_mode: str | None = None, render_viewer: str | None = None) -> None:
        EzPickle.__init__(self, scenario=scenario, rules=rules, render_mode=render_mode, render_viewer=render_viewer)
        self.config = rules if isinstance(rules, HexConfig) else HexConfig.from_dict(rules)
        self._choose_scenario(scenario, Scenario, load_scenario)
        self._setup(render_mode, render_viewer)

    def _generate(self, seed: int, deal: int) -> Scenario:
        from cardwar.envs.hexwar.generator import generate_scenario

        return generate_scenario(seed, deal=deal)

    def _new_state(self, seeder: np.random.Generator) -> HexState:
        game_seed, scenario = self._draw_game(seeder)
        return HexState.new_game(scenario, self.config, game_seed)

    def _encode(self, seat: int) -> np.ndarray:
        return encode_observation(self.game.information_view(seat), self.game.scenario)

    def _render_text(self, viewer: int | str | None) -> str:
        return render_state(self.game, viewer)

    def _render_rgb(self, viewer: int | str | None) -> np.ndarray:
        from cardwar.envs.hexwar.picture import render_rgb

        return render_rgb(self.game, viewer)


__all__ = ["env", "raw_env", "HexIllegalActionError", "AGENTS", "RANDOM_SPLITS"]
