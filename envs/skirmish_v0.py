# noqa: D212, D415
"""
# Squad-level WW2 skirmish, PettingZoo AEC

| Import             | `from cardwar.envs import skirmish_v0`                              |
|--------------------|---------------------------------------------------------------------|
| Registered id      | `cardwar/skirmish-v0` (`pettingzoo.make("aec", "cardwar/skirmish-v0")`) |
| Parallel API       | Yes: `skirmish_v0.parallel_env()`, one agent per figure (`cardwar.envs.skirmish_parallel`) |
| Actions            | Discrete({{N_ACTIONS}})                                                   |
| Agents             | `agents = ['player_0', 'player_1']`                                  |
| Observation shape  | `observation`: {{OBS_SHAPE}} float32 in [0, 1]; `action_mask`: ({{N_ACTIONS}},) int8 |

Hit the Deck! v1.5 with the WW2 fire-team card deck: two squads of figures (and vehicles) on a
24 x 16 hex map with walls, hedges, buildings and doors; every test of skill is a card drawn from the
side's own pack (rules: `envs/skirmish/RULES.md`). `player_0` commands the scenario's first side,
`player_1` the second. The agent to act is the side the engine asks (RULES.md §9.1): each decision
is factored into small steps (a figure's movement mode, then its destination, then its stance; a
combat action, then its targets one by one), each with its own action mask.

**Hidden orders.** In the phases sequence the declarations are simultaneous in the rules; here they
are sequential steps, as OpenSpiel turns simultaneous moves into sequential ones: `player_0` declares
for each of its figures, then `player_1`, and neither observes the other's declarations (nor which
figures declared what) until the engine reveals them all at once. Opportunity-fire interrupts go to
the side concerned as they arise; every draw is the engine's.

## Usage

```python
from cardwar.envs import skirmish_v0

env = skirmish_v0.env(scenario="duel", render_mode="ansi", render_viewer="player_0")
env.reset(seed=1)
{{AEC_LOOP}}
```

## Observation
`{"observation", "action_mask"}`. The observation is {{NUM_PLANES}} planes over the fixed 16 x 24 grid,
channels-last (rows x columns x planes: `observation[row, col, p]`, odd-r layout, `cell = row * 24 + col`),
as PettingZoo classic's image-like observations (chess, go) and hexwar-v1's are: networks that expect
height x width x channels (RLlib's CNN encoders) take it as it is, and
`cardwar.envs.skirmish.observation.planes_of(obs)` gives it plane by plane. It is built from the side's
information view
(`env.unwrapped.view(agent)`, RULES.md §9.2): an unseen enemy appears only where it was last seen; the
enemy's skills, its Kings (only how many it holds), mines and unrevealed orders never. Whole-board facts
(the decision's step, the stage, cards drawn this turn, pack sizes, the activation card) are constant
planes. Every plane, in
order (built from the encoder's own names, `cardwar.envs.skirmish.observation.plane_table()`):

{{PLANE_TABLE}}

## Actions
One flat Discrete space: ids `0..383` name a hex (`row * 24 + col`, labels `A1`..`X16`: column letter,
row number), the ids after them a named choice. A step's mask says which are legal: a destination or
target step offers hexes, a mode step movement modes, and so on. Every id range (built from the action
decoder, `cardwar.envs.skirmish.notation.action_table()`):

{{ACTION_TABLE}}

`cardwar.envs.skirmish.notation.action_to_string` and `string_to_action` convert ids to the notation
(a hex label or the choice's name) and back.

## Rewards
+1 / -1 at the end (the scenario's victory, RULES.md §10: objectives held at the turn limit, casualty
points, an exit or a vehicle destroyed; a side with no active figure loses at once), 0 for a draw.

## Arguments
`skirmish_v0.env(scenario="ww2_squads", rules=None, render_mode=None, render_viewer=None)`:
`scenario` is a shipped name (`cardwar.envs.skirmish.scenario.scenario_names()`), a path to a YAML
file, a `Scenario`, or `"random"` (a new mirror-fair procedural map each reset, from the reset seed:
`cardwar.envs.skirmish.generator.generate`; a 63-bit generator seed makes the map, a separate deal the
forces), or one of its two disjoint halves `"random:train"` /
`"random:test"` (even / odd generator seeds: train on one, test on maps never seen); `rules` is a dict of the options of
`cardwar.envs.skirmish.rules.SkirmishRules` (RULES.md §12) laid over the options the scenario suggests
(its `rules:`; `ww2_squads` suggests `sequence: deck`), or a `SkirmishRules` used as it is; a bad
option is a `SkirmishRulesError` naming the known ones. `render_mode` is `"ansi"`, `"rgb_array"` or
`"human"`; `render_viewer` is `"player_0"`, `"player_1"`, `None` (a spectator) or `"omniscient"`.

## Version history
* v0: first release (issue 20). Issue 28: the observation is channels-last, {{OBS_SHAPE}}, where it was
  planes first, (planes, 16, 24): `new[row, col, p] == old[p, row, col]`, nothing else changed. Models
  trained on the planes-first form still load and play as before: `cardwar.training.skirmish_policy`'s
  trunk reads either layout, and `ppo:PATH` loads such a model to read the channels-last one with the
  same weights.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv

from cardwar.envs.doc_pages import fill
from cardwar.envs.skirmish.actions import N_ACTIONS
from cardwar.envs.skirmish.notation import ACTION_TABLE
from cardwar.envs.skirmish.observation import NUM_PLANES, OBS_SHAPE, PLANE_TABLE, encode_observation
from cardwar.envs.skirmish.rules import SkirmishRules, SkirmishRulesError
from cardwar.envs.skirmish.scenario import Scenario, load_scenario
from cardwar.envs.skirmish.state import SkirmishIllegalActionError, SkirmishState, new_state
from cardwar.envs.turn_based_env import AEC_LOOP, RANDOM_SPLITS, ScenarioEnv, standard_wrappers

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE, ACTION_TABLE=ACTION_TABLE, N_ACTIONS=str(N_ACTIONS),
               OBS_SHAPE=str(OBS_SHAPE), NUM_PLANES=str(NUM_PLANES), AEC_LOOP=AEC_LOOP)

AGENTS = ["player_0", "player_1"]
DEFAULT_SCENARIO = "ww2_squads"


def env(**kwargs: Any) -> AECEnv:
    """The skirmish env with PettingZoo's standard wrappers."""
    return standard_wrappers(raw_env(**kwargs))


def parallel_env(**kwargs: Any):
    """The skirmish with one agent per figure (PettingZoo Parallel API): :mod:`cardwar.envs.skirmish_parallel`."""
    from cardwar.envs.skirmish_parallel import parallel_env as make

    return make(**kwargs)


def effective_rules(scenario: Scenario, rules: dict | SkirmishRules | None) -> SkirmishRules:
    """The options a game plays: a ``SkirmishRules`` as it is, a dict laid over the scenario's suggestions."""
    if isinstance(rules, SkirmishRules):
        return rules
    if rules is not None and not isinstance(rules, dict):
        raise SkirmishRulesError(f"rules must be a dict of skirmish options or a SkirmishRules, not {rules!r}")
    return SkirmishRules.from_dict({**(scenario.rules or {}), **(rules or {})})


class _NoSuggestions:
    """A stand-in scenario that suggests no options (random scenarios' rules, checked at construction)."""

    rules: dict = {}


_NO_SUGGESTIONS: Any = _NoSuggestions()


class raw_env(ScenarioEnv, EzPickle):  # noqa: N801
    """The skirmish as an AEC env, one agent a side; see the module docstring."""

    # not parallelizable by PettingZoo's aec_to_parallel (a side answers several steps in a row); the Parallel API
    # is the per-figure env, parallel_env()
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "name": "skirmish_v0", "is_parallelizable": False,
                "render_fps": 2}
    AGENTS = AGENTS
    NUM_ACTIONS = N_ACTIONS
    OBS_SHAPE = OBS_SHAPE

    def __init__(self, scenario: str | Scenario = DEFAULT_SCENARIO, rules: dict | SkirmishRules | None = None,
                 render_mode: str | None = None, render_viewer: str | None = None) -> None:
        EzPickle.__init__(self, scenario=scenario, rules=rules, render_mode=render_mode, render_viewer=render_viewer)
        self.rules = rules
        self._choose_scenario(scenario, Scenario, load_scenario)
        # random scenarios: check the options once now, so that a bad one is an error at construction, not at reset
        self.config = effective_rules(_NO_SUGGESTIONS if self.fixed_scenario is None else self.fixed_scenario, rules)
        self._setup(render_mode, render_viewer)

    def _generate(self, seed: int, deal: int) -> Scenario:
        from cardwar.envs.skirmish.generator import generate

        return generate(seed, deal=deal)

    def _new_state(self, seeder: np.random.Generator) -> SkirmishState:
        game_seed, scenario = self._draw_game(seeder)
        if self.random_scenarios:
            self.config = effective_rules(scenario, self.rules)
        return new_state(scenario, self.config, game_seed)

    def _encode(self, seat: int) -> np.ndarray:
        return encode_observation(self.game.information_view(seat), self.game.scenario)

    def _render_text(self, viewer: int | str | None) -> str:
        from cardwar.envs.skirmish.text import render_text

        return render_text(self.game, viewer)

    def _render_rgb(self, viewer: int | str | None) -> np.ndarray:
        from cardwar.envs.skirmish.picture import render_rgb

        return render_rgb(self.game, viewer)


__all__ = ["AGENTS", "DEFAULT_SCENARIO", "RANDOM_SPLITS", "SkirmishIllegalActionError", "SkirmishRulesError",
           "effective_rules", "env", "parallel_env", "raw_env"]
