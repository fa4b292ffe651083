# noqa: D212, D415
"""
# WW1 trench warfare (HitT "Tank Attack" v5.0), PettingZoo AEC, channels-last observation

| Import             | `from cardwar.envs import tankattack_v0`                                |
|--------------------|-------------------------------------------------------------------------|
| Registered id      | `cardwar/tankattack-v0` (`pettingzoo.make("aec", "cardwar/tankattack-v0")`) |
| Actions            | Discrete({{N_ACTIONS}})                                                       |
| Parallel API       | No                                                                      |
| Agents             | `agents = ['defender', 'attacker']`                                     |
| Observation shape  | `observation`: {{OBS_SHAPE}} float32 in [0, 1]; `action_mask`: ({{N_ACTIONS}},) int8 |

A WW1 variant of Hordes of the Things: tanks, Sturmtruppe, trenches, barbed wire, barrages and a
Command Bunker whose loss ends the game, on a square grid of base-width cells (rules:
`envs/tankattack/RULES.md`). `defender` (seat 0) holds the trench line and moves first; `attacker`
(seat 1) must take the Bunker or break the defender before the turn limit. Each bound the active side
rolls a die for PIPs, moves, then both sides shoot and the active side fights its close combats.

**One step, one small decision** (RULES.md 19), as the skirmish's factored steps: choose an element,
then its destination, then its facing; bring on a reserve element (its type, then its cell and facing),
lift an enemy Barrage by counter-battery, rally a Suppressed element or send a Bomber on a raid (each
a choice, then its cell); choose a shooter, its target, its aids, whether to shoot back;
choose a combat, its enemy; a recoil's direction. The agent to act is the seat the rules name: the
active side, or the owner of a contacted, shot-at or recoiling element. Every die is the engine's,
drawn from the game's seeded stream when it is rolled.

**Nothing is hidden** (RULES.md 18): army lists, reserves, terrain, wire and every element are open, so
each seat's view is the whole state less the future dice, and `render_viewer` changes only the title.

## Usage

```python
from cardwar.envs import tankattack_v0

env = tankattack_v0.env(scenario="trench_raid", render_mode="ansi", render_viewer="defender")
env.reset(seed=1)
{{AEC_LOOP}}
```

## Observation
`{"observation", "action_mask"}`. The observation is {{NUM_PLANES}} planes over the fixed 24 x 16
frame, channels-last (`observation[row, col, p]`, cell `row * 16 + col`, row 0 the attacker's
edge), as PettingZoo classic's image-like observations and hexwar-v1's are. It is built from the
seat's information view alone (`env.unwrapped.view(agent)`): two states with the same view give the
same observation. Whole-board facts (the stage, PIPs, the bound, reserves, AP Lost, who decides) are
constant planes. Every plane, in order (built from the encoder's own names,
`cardwar.envs.tankattack.observation.plane_table()`):

{{PLANE_TABLE}}

## Actions
One flat Discrete space; a step's mask says which ids are legal now. Cells are `row * 16 + col`
(labels `A1`..`P24`: column letter, row number). Every id range (built here from the engine's action
decoder, `cardwar.envs.tankattack.action_to_string`; `string_to_action` is its inverse):

{{ACTION_TABLE}}

## Rewards
+1 / -1 at the end (the Bunker taken, a break point, or the turn limit, RULES.md 17), 0 for a draw.

## Arguments
`tankattack_v0.env(scenario="{{DEFAULT_SCENARIO}}", rules=None, render_mode=None, render_viewer=None)`:
`scenario` is a shipped name (`cardwar.envs.tankattack.available_scenarios()`), a `Scenario`, or
`"random"` (a new map and armies each reset from the seed's set-up procedure, RULES.md 20.1: a 63-bit
generator seed drawn from the reset seed; nothing is hidden, so there is no separate deal), or one of its
two disjoint halves `"random:train"` / `"random:test"` (even / odd generator seeds: train on one, test
on maps never seen), or one generated map, `"random:SEED"`;
`rules` is a dict of the options of `cardwar.envs.tankattack.TankAttackRules` (RULES.md 22) or a
`TankAttackRules`, a bad option a `TankAttackRulesError` naming the known ones; `render_mode` is
`"ansi"`, `"rgb_array"` or `"human"`; `render_viewer` is `"defender"`, `"attacker"`, `None` (a
spectator) or `"omniscient"` (all the same picture: nothing is hidden).

## Version history
* v0: first release (issue 29).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from cardwar.envs.doc_pages import fill, id_range, markdown_table
from cardwar.envs.tankattack import (
    NUM_ACTIONS, Scenario, TankAttackRules, TankIllegalActionError, TankState, action_to_string, load_scenario,
)
from cardwar.envs.tankattack.observation import NUM_PLANES, OBS_SHAPE, PLANE_TABLE, encode_state
from cardwar.envs.tankattack.text import render_state
from cardwar.envs.turn_based_env import AEC_LOOP, ScenarioEnv, standard_wrappers

AGENTS = ["defender", "attacker"]
DEFAULT_SCENARIO = "cambrai"


def _kind(a: int) -> str:
    """The kind of action ``a`` for the page's table: ``cell`` for a cell label, else its notation's first word."""
    text = action_to_string(a)
    return "cell" if text[0].isupper() and text[1:].isdigit() else text.split()[0]


def action_table() -> list[tuple[str, str, str]]:
    """Every id range of the action space: (ids, kind, notation of the first .. last id), consecutive ids
    of one kind grouped; read off :func:`~cardwar.envs.tankattack.action_to_string`."""
    rows: list[tuple[str, str, str]] = []
    start = 0
    for a in range(1, NUM_ACTIONS + 1):
        if a == NUM_ACTIONS or _kind(a) != _kind(start):
            first, last = action_to_string(start), action_to_string(a - 1)
            rows.append((id_range(start, a - 1), _kind(start), first if a - 1 == start else f"{first} .. {last}"))
            start = a
    return rows


ACTION_TABLE = markdown_table(("ids", "kind", "notation (first .. last id)"), action_table())

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE, ACTION_TABLE=ACTION_TABLE, AEC_LOOP=AEC_LOOP,
               N_ACTIONS=str(NUM_ACTIONS), OBS_SHAPE=str(OBS_SHAPE), NUM_PLANES=str(NUM_PLANES),
               DEFAULT_SCENARIO=DEFAULT_SCENARIO)


def env(**kwargs: Any) -> AECEnv:
    """The Tank Attack env with PettingZoo's standard wrappers (illegal move: -1 and the game ends)."""
    return standard_wrappers(raw_env(**kwargs))


class raw_env(ScenarioEnv, EzPickle):  # noqa: N801 (PettingZoo naming)
    """The WW1 trench game as an AEC env; see the module docstring."""

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "tankattack_v0",
                "is_parallelizable": False, "render_fps": 2}
    AGENTS = AGENTS
    NUM_ACTIONS = NUM_ACTIONS
    OBS_SHAPE = OBS_SHAPE

    def __init__(self, scenario: str | Scenario = DEFAULT_SCENARIO, rules: dict | TankAttackRules | None = None,
                 render_mode: str | None = None, render_viewer: str | None = None) -> None:
        EzPickle.__init__(self, scenario=scenario, rules=rules, render_mode=render_mode, render_viewer=render_viewer)
        self.config = rules if isinstance(rules, TankAttackRules) else TankAttackRules.from_dict(rules)
        self._choose_scenario(scenario, Scenario, load_scenario)
        self._setup(render_mode, render_viewer)

    def _generate(self, seed: int, deal: int) -> Scenario:
        """The generated scenario of generator seed ``seed`` (RULES.md 20.1); nothing is hidden, so there is
        no deal to draw from ``deal``."""
        from cardwar.envs.tankattack.generator import generate_scenario

        return generate_scenario(seed)

    def _new_state(self, seeder: np.random.Generator) -> TankState:
        game_seed, scenario = self._draw_game(seeder)
        return TankState.new_game(scenario, self.config, game_seed)

    def _encode(self, seat: int) -> np.ndarray:
        """The seat's observation: ``encode_observation(self.game.information_view(seat))``, read without
        copying the view (the same public fields; tests/tankattack/test_view_copy.py compares them)."""
        return encode_state(self.game, seat)

    def _render_text(self, viewer: int | str | None) -> str:
        return render_state(self.game, viewer)

    def _render_rgb(self, viewer: int | str | None) -> np.ndarray:
        from cardwar.envs.tankattack.picture import render_rgb

        return render_rgb(self.game, viewer)


__all__ = ["env", "raw_env", "TankIllegalActionError", "AGENTS", "OBS_SHAPE", "DEFAULT_SCENARIO", "action_table"]
