# noqa: D212, D415
"""
# Hit the Deck! (naval), PettingZoo AEC, factored actions

| Import             | `from cardwar.envs import naval_v1`                           |
|--------------------|---------------------------------------------------------------|
| Registered id      | `cardwar/naval-v1` (`pettingzoo.make("aec", "cardwar/naval-v1")`) |
| Actions            | Discrete(113): steps of a move                                |
| Parallel API       | No                                                            |
| Agents             | `agents = ['captain_a', 'captain_b']`                         |
| Observation shape  | `observation`: (690,) float32 in [0, 1]; `action_mask`: (113,) int8 |

The same game as `naval_v0` (the same engine: `envs/naval/RULES.md`), with each move
made in one or two small decisions, as pgx does for composite moves, so that a
network chooses among about a hundred outputs instead of 3029:

- deploy: a card, then a Seazone (`deploy 7H D` = `card 7H`, `zone D`);
- attack: the line and the kind (`attack E>F broadside`), then the face-down card
  (`card 4D`);
- defend: a card; sink (High Royal Flush): a Seazone; nodefend, pass, keep, mulligan: one step.

`move_to_steps("attack E>F broadside 4D")` gives a whole move's steps. The same captain
takes every step of a move, so the agent to act does not change until the move is made.

## Usage

```python
from cardwar.envs import naval_v1
from cardwar.envs.naval.steps import move_to_steps, step_to_string

env = naval_v1.env()
env.reset(seed=3)
obs, reward, termination, truncation, info = env.last()
print([step_to_string(s) for s in obs["action_mask"].nonzero()[0]])   # the legal first steps
print(move_to_steps("attack E>F broadside 4D"))                        # (the line's step, the card's step)
```

## Actions
Every id range of the step space (built from `cardwar.envs.naval.steps.step_table()`;
`e` indexes the 24 directed lines `cardwar.envs.naval.seemap.EDGES`, style `s` is 0 for a
Normal Attack and 1 for Broadside along a Row or Ramming along a Sealane):

{{STEP_TABLE}}

## Observation
naval_v0's 587 features (from the captain's information view only), then which
step is pending - 103 more. The pending part is the mover's own unfinished choice: it
is zero in every other seat's observation. The mask is exact (1 for every legal step
and only those). Every feature, in order (built from the encoders,
`cardwar.envs.naval.observation.feature_table()` and `naval_v1.pending_table()`; card `c`
is `suit * 13 + rank - 1`, Ace = 1 .. King = 13, suits C D H S; Seazones A..I are 0..8):

{{FEATURE_TABLE}}

## Rewards and arguments
As naval_v0: +1/-1 at the end, 0 at every other step (including a move's first
steps); `naval_v1.env(render_mode=None, rules=None, render_viewer=None)`.

## Version history
* v1: factored actions (113 steps); observation with the pending step (690).
* v0: first release; one flat Discrete(3029) action a move.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from pettingzoo import AECEnv

from cardwar.envs import naval_v0
from cardwar.envs.doc_pages import fill, markdown_table
from cardwar.envs.naval import IllegalActionError, NavalConfig, NavalState
from cardwar.envs.naval.actions import NUM_ACTIONS as NUM_MOVES
from cardwar.envs.naval.cards import NUM_CARDS
from cardwar.envs.naval.observation import OBS_SIZE as V0_OBS_SIZE
from cardwar.envs.naval.observation import encode_observation, feature_table
from cardwar.envs.naval.render import render_state
from cardwar.envs.naval.steps import CARD_BASE, LINE_BASE, NUM_LINES, NUM_STEPS, STEP_TABLE, STEPS_OF, StepState
from cardwar.envs.turn_based_env import standard_wrappers

AGENTS = ["captain_a", "captain_b"]
PENDING_OFFSET = V0_OBS_SIZE  # 587
OBS_SIZE = PENDING_OFFSET + 3 + NUM_CARDS + NUM_LINES  # 690
PENDING_STEPS = ("first", "deploy_zone", "attack_card")


def pending_table() -> list[tuple[str, int, str, str, str]]:
    """The pending-step features after naval_v0's: (offset, size, name, values, meaning), as :func:`write_pending`."""
    what = {"first": "the step to take is a move's first", "deploy_zone": "the step to take is a deploy's zone",
            "attack_card": "the step to take is an attack's face-down card"}
    rows = [(str(PENDING_OFFSET + k), 1, f"pending_{name}", "0/1", what[name]) for k, name in enumerate(PENDING_STEPS)]
    rows.append((str(PENDING_OFFSET + 3), NUM_CARDS, "pending_card[c]", "0/1", "the card c chosen for a deploy"))
    rows.append((str(PENDING_OFFSET + 3 + NUM_CARDS), NUM_LINES, "pending_line[e*2 + s]", "0/1",
                 "the line e and style s declared for an attack"))
    return rows


__doc__ = fill(__doc__, STEP_TABLE=STEP_TABLE,
               FEATURE_TABLE=markdown_table(("offset", "size", "feature", "values", "meaning"),
                                            feature_table() + pending_table()))


def env(**kwargs: Any) -> AECEnv:
    """The naval-v1 env with PettingZoo's standard wrappers (illegal step: -1 and the game ends)."""
    return standard_wrappers(raw_env(**kwargs))


def encode_pending(state: StepState, seat: int, out: np.ndarray) -> None:
    """Write which step is pending for ``seat`` into ``out[PENDING_OFFSET:]`` (zeros for the other seat)."""
    if seat != state.current_player or state.is_terminal():
        return
    write_pending(state.pending, out)


def write_pending(pending: tuple[int, ...], out: np.ndarray) -> None:
    """Write the mover's pending steps into ``out[PENDING_OFFSET:]`` (the table in the module docstring)."""
    if not pending:
        out[PENDING_OFFSET] = 1.0
    elif pending[0] < LINE_BASE:  # a deploy's card: the zone is next
        out[PENDING_OFFSET + 1] = 1.0
        out[PENDING_OFFSET + 3 + pending[0] - CARD_BASE] = 1.0
    else:  # an attack's line: the card is next
        out[PENDING_OFFSET + 2] = 1.0
        out[PENDING_OFFSET + 3 + NUM_CARDS + pending[0] - LINE_BASE] = 1.0


class raw_env(naval_v0.raw_env):  # noqa: N801 (PettingZoo naming)
    """Hit the Deck! with factored actions; see the module docstring. naval_v0's env, in steps."""

    metadata = {**naval_v0.raw_env.metadata, "name": "naval_v1"}
    NUM_ACTIONS = NUM_STEPS
    OBS_SHAPE = (OBS_SIZE,)

    def __init__(self, render_mode: str | None = None, rules: dict | NavalConfig | None = None,
                 render_viewer: str | None = None) -> None:
        self._base: tuple[tuple[int, int, int], np.ndarray] | None = None  # (position, seat) -> its features
        super().__init__(render_mode=render_mode, rules=rules, render_viewer=render_viewer)

    def _new_state(self, seeder: np.random.Generator) -> StepState:
        self._base = None
        return StepState(NavalState.new_game(self.config, int(seeder.integers(2**63))))

    def _encode(self, seat: int) -> np.ndarray:
        state = self.game
        engine = state.engine
        key = (id(engine), engine.move_number, seat)
        base = self._base
        if base is None or base[0] != key:  # a move's second step: the position has not changed
            base = self._base = (key, encode_observation(engine.information_view(seat), OBS_SIZE))  # copied each step
        obs = base[1].copy()
        if seat == engine.current and not engine.is_terminal():  # encode_pending, inlined
            write_pending(state.pending, obs)
        return obs

    def _render_text(self, viewer: int | str | None) -> str:
        return render_state(self.game.engine, viewer)

    # whole moves, for agents that play naval-v0's moves (heuristic, mcts, v0 models) inside a v1 game
    def observe_move(self, agent: str) -> dict[str, np.ndarray]:
        """naval_v0's observation of ``agent``: the 587 features and the mask over whole moves (3029)."""
        seat = self.AGENTS.index(agent)
        s = self.game
        mask = np.zeros(NUM_MOVES, dtype=np.int8)
        if seat == s.current_player and not s.is_terminal() and not s.pending:
            mask[s.engine.legal_actions()] = 1
        return {"observation": self._encode(seat)[:PENDING_OFFSET], "action_mask": mask}

    def step_move(self, move: int) -> None:
        """Play a whole move (a naval_v0 action id) as its steps."""
        for step in STEPS_OF[int(move)]:
            self.step(step)


__all__ = ["env", "raw_env", "IllegalActionError", "AGENTS", "OBS_SIZE"]
