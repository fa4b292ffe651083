# noqa: D212, D415
"""
# Hit the Deck! (naval), PettingZoo AEC

| Import             | `from cardwar.envs import naval_v0`                           |
|--------------------|---------------------------------------------------------------|
| Registered id      | `cardwar/naval-v0` (`pettingzoo.make("aec", "cardwar/naval-v0")`) |
| Actions            | Discrete(3029)                                                |
| Parallel API       | No                                                            |
| Manual control     | `cardwar play naval`                                          |
| Agents             | `agents = ['captain_a', 'captain_b']`                         |
| Action shape       | (1,)                                                          |
| Observation shape  | `observation`: (587,) float32 in [0, 1]; `action_mask`: (3029,) int8 |

Two captains fight on a 3x3 Seemap with playing cards as ships; sea battles are
1- to 3-card poker hands (rules: `envs/naval/RULES.md`). Captain A's Seaports
are G H I (top), Captain B's A B C (bottom).

## Usage

```python
from cardwar.envs import naval_v0

env = naval_v0.env(render_mode="ansi")
env.reset(seed=42)
{{AEC_LOOP}}
```

## Observation
A dict `{"observation", "action_mask"}` as in PettingZoo's classic envs. The
observation is encoded from the captain's information view only (own hand,
board, discards, mulligan-shown cards, counts, turn and phase, the public part
of a pending attack). The mask is exact: 1 for every legal action and only those.
Every feature of the float32 vector, in order (card `c` is `suit * 13 + rank - 1`,
Ace = 1 .. King = 13, suits C D H S; Seazones A..I are 0..8; this table is built from
the encoder's own names, `cardwar.envs.naval.observation.feature_table()`):

{{FEATURE_TABLE}}

## Actions
One flat Discrete space, every id range (built from the action decoder,
`cardwar.envs.naval.actions.action_table()`; `e` indexes the 24 directed lines
`cardwar.envs.naval.seemap.EDGES`, style `s` is 0 for a Normal Attack and 1 for the
attack the line allows, Broadside along a Row or Ramming along a Sealane):

{{ACTION_TABLE}}

`cardwar.envs.naval.action_to_string` and `string_to_action` convert ids to the
notation and back (`deploy 7H D`, `attack E>F broadside 4D`, `defend 9S`, `nodefend`, `pass`).

## Rewards
+1 to the winner and -1 to the loser when the game ends, 0 each for a draw and
at every other step.

## Arguments
`naval_v0.env(render_mode=None, rules=None, render_viewer=None)`: `rules` is a
dict of rule options (`cardwar.envs.naval.NavalConfig`); `render_viewer` is
`"captain_a"`, `"captain_b"`, `None` (a spectator who sees no hand) or
`"omniscient"` (both hands, for debugging).

In `raw_env` an illegal action raises `cardwar.envs.naval.IllegalActionError`; `env()`
adds PettingZoo's standard wrappers, so an illegal action ends the game with
-1 for the offender, as in the classic envs.

## Version history
* v0: first release.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from cardwar.envs.doc_pages import fill
from cardwar.envs.naval import NUM_ACTIONS, IllegalActionError, NavalConfig, NavalState
from cardwar.envs.naval.actions import ACTION_TABLE
from cardwar.envs.naval.observation import FEATURE_TABLE, OBS_SIZE, encode_observation
from cardwar.envs.naval.render import render_state
from cardwar.envs.turn_based_env import AEC_LOOP, TurnBasedEnv, standard_wrappers

__doc__ = fill(__doc__, FEATURE_TABLE=FEATURE_TABLE, ACTION_TABLE=ACTION_TABLE, AEC_LOOP=AEC_LOOP)

AGENTS = ["captain_a", "captain_b"]


def env(**kwargs: Any) -> AECEnv:
    """The naval env with PettingZoo's standard wrappers (illegal move: -1 and the game ends)."""
    return standard_wrappers(raw_env(**kwargs))


class raw_env(TurnBasedEnv, EzPickle):  # noqa: N801 (PettingZoo naming)
    """Hit the Deck! as an AEC env; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "naval_v0", "is_parallelizable": False,
                "render_fps": 1}
    AGENTS = AGENTS
    NUM_ACTIONS = NUM_ACTIONS
    OBS_SHAPE = (OBS_SIZE,)

    def __init__(self, render_mode: str | None = None, rules: dict | NavalConfig | None = None,
                 render_viewer: str | None = None) -> None:
        EzPickle.__init__(self, render_mode=render_mode, rules=rules, render_viewer=render_viewer)
        self.config = rules if isinstance(rules, NavalConfig) else NavalConfig.from_dict(rules)
        self._setup(render_mode, render_viewer)

    def _new_state(self, seeder: np.random.Generator) -> NavalState:
        return NavalState.new_game(self.config, int(seeder.integers(2**63)))

    def _encode(self, seat: int) -> np.ndarray:
        return encode_observation(self.game.information_view(seat))

    def _render_text(self, viewer: int | str | None) -> str:
        return render_state(self.game, viewer)


__all__ = ["env", "raw_env", "IllegalActionError", "AGENTS"]
