# noqa: D212, D415
"""
# Squad-level WW2 skirmish, PettingZoo Parallel: one agent per figure

| Import             | `from cardwar.envs import skirmish_parallel` (`skirmish_parallel.parallel_env()`) |
|--------------------|-----------------------------------------------------------------------------------|
| Parallel API       | Yes (this page); the AEC env with one agent per side is `cardwar/skirmish-v0`      |
| Actions            | Discrete({{N_SPACE}}): the skirmish's {{N_ACTIONS}} ids plus a no-op, {{NOOP}}      |
| Agents             | one per figure and vehicle of both sides: `"{side}_{index}"`, e.g. `american_0`    |
| Observation        | `observation`: ({{OBS_SIZE}},) float32 in [0, 1]; `action_mask`: ({{N_SPACE}},) int8 |
| State              | `state()`: ({{STATE_FORMULA}},) float32, omniscient, for centralized critics        |

The skirmish (Hit the Deck! v1.5 with the WW2 fire-team deck; rules: `envs/skirmish/RULES.md`)
with **one agent per figure (and vehicle)**, as RULES.md §9.1 describes the Parallel env: each
phase's declarations are made at once by every live figure of both sides; in the deck sequence
only the activated figures have a choice; every agent plays to the end (a figure out of action only no-ops).

## Usage

```python
from cardwar.envs import skirmish_parallel

env = skirmish_parallel.parallel_env(scenario="ww2_squads", rules={"sequence": "phases"})
observations, infos = env.reset(seed=1)
while env.agents:
    actions = {a: env.action_space(a).sample(observations[a]["action_mask"]) for a in env.agents}
    observations, rewards, terminations, truncations, infos = env.step(actions)
```

## Agents
`"{side}_{index}"`: `side` is the scenario's side name, lowercased, every run of characters other
than `a-z0-9` made one `_` (`"American"` -> `american`; `side0` / `side1` when a name is empty or
both sides would read the same); `index` counts that side's units from 0 in the scenario's order,
figures first, then vehicles. `env.unit_of(agent)` gives the engine's unit id,
`env.agent_of(uid)` the reverse. Every agent stays in `env.agents` until the game ends, also when its
unit is out of action (incapacitated, dead, off the table, a vehicle disabled, destroyed or abandoned):
its mask then offers only the no-op, and its own side reads the loss in its observation. *Why:* the
agent list and the termination dict are one object given to both sides, so they may hold only what both
may know (RULES.md §9.2); an agent leaving when an unseen figure went down told the enemy of the loss
(issue 27). Version 0 removed such agents at once.

## Actions: simultaneous decisions over the engine's sequential steps
The engine (`SkirmishState`) asks one small step at a time, for one unit, as OpenSpiel turns
simultaneous moves into sequential ones (RULES.md §9.1). An agent's action is one id of the
engine's flat space (hexes `0..383`, then the named choices: `cardwar.envs.skirmish.actions`)
answering **its own unit's current step**, or the extra id {{NOOP}} ("no-op"), which is legal
exactly when the agent has nothing to decide. At every parallel step:

1. each agent with a question answers it; its answer is queued for its unit;
2. the env runs the engine, feeding it each unit's queued answers in the engine's own order,
   and stops when the engine asks about a unit with no queued answer (or the game ends);
3. every live agent gets its next question:
   - **Declaration stages** (phases: movement declaration - mode, destination, stance, watch;
     vehicles' speed and destination; combat declaration - action, targets): *every* unit still
     to declare is asked its next step at once, so a side's figures declare in parallel, one small
     step per parallel step (a walk: mode, then destination, then end stance). The questions of
     the units the engine has not reached yet are read from a copy of the engine in which that unit
     declares next; declarations are hidden and independent (§9.1), so they are the questions the
     engine asks later. Should the engine's question differ after all (two figures both playing
     the side's one King), the queued answers are dropped and the agent is asked again.
   - **Reactive decisions** (opportunity fire during moves, §5.5, and after moves) and the **deck
     sequence** (§7.2): only the unit the engine asks now has a question; the others no-op.
4. **Side-level decisions** (deck sequence: which fire team a Free Move activates, which figure of
   the activated team acts next) are not any figure's: the env takes them by a fixed rule, so in
   the Parallel form **the activation order is automatic**: a Free Move picks the fire team with the
   most active figures that have not acted this turn (ties: the lower team); the figures of an
   activated team act in the scenario's order, those that have not acted this turn first. Every
   activated figure then chooses its own activity (`nothing` is always legal).

An illegal action (the no-op while asked, an id outside the mask) is replaced by the **first legal
id** of the agent's mask (the lowest) and reported as `infos[agent]["illegal"] = True`; an action
other than the no-op from an agent with nothing to decide is ignored and reported the same way. A
live agent missing from `actions` counts as the no-op. `env.question(agent)` gives the agent's
current step and legal ids (`None`: nothing to decide), `env.view(agent)` its side's information
view, `env.reasked` how often an agent was asked again because the engine asked otherwise than
foreseen (only a contested King does that). What leaks between the sides: only what
the table shows - the engine reveals both sides' declarations together, and a side notices that
the stage goes on while enemy figures are still declaring.

## Observation
`{"observation", "action_mask"}`; the vector is built from the agent's **side's information view**
(RULES.md §9.2: enemies appear only where seen now, or where last seen) plus its own unit and its
own answers so far (`cardwar.envs.skirmish.figure_obs`): {{N_PLANES}} planes over the 24 x 16 grid
(plane-major, `cell = row * 24 + col`), then {{N_SCALARS}} scalars. An edge plane reads *low* for a low
wall or hedge, a window or an open door, *high* for a high wall or hedge, a closed door, a building
wall or an embrasure (RULES.md §1.3):

{{OBS_TABLE}}

`state()` (the omniscient vector, `state_space`) holds the terrain, both sides' units, hidden
orders and mines, the packs and a table of {{UNIT_FEATURES}} features per unit; actors must not
see it.

## Rewards
Team rewards, at the end only: every agent of the winning side +1, of the losing side -1, 0 in a
draw or at truncation, to every agent, since all are present at the end.
`env.team_returns` holds every possible agent's team result (+1/-1/0) once the game is over, for
learners that credit fallen figures too (as SMAC's shared team reward does).

## Episode end
The game's end (RULES.md §10) terminates every agent still present. `max_cycles` (default
{{MAX_CYCLES}}) parallel steps truncate the game: every agent gets `truncation=True`. For scale, with
random masked play: a phases game of `ww2_squads` (15 figures, 10 turns) takes about 60 parallel
steps with some 11 agents asked at each; its deck game about 900 steps with one agent asked at each.

## Arguments
`parallel_env(scenario="ww2_squads", rules=None, render_mode=None, max_cycles={{MAX_CYCLES}})`:
`scenario` is a shipped name (`cardwar.envs.skirmish.scenario.scenario_names()`), a YAML path or a
`Scenario` (a generated map: pass `cardwar.envs.skirmish.generator.generate(seed, deal=d)`, the deal
`d` a secret of yours: without one the forces are mirrored and the map's seed rebuilds them; the agents are
fixed per env, so there is no `"random"` scenario here); `rules` a dict of the options of RULES.md
§12 laid over the scenario's own suggestions, as `skirmish_v0` does (or a `SkirmishRules`, taken as
it is), e.g. `{"sequence": "deck"}`; `render_mode` `"ansi"` or `"human"` (the spectator's board and
every agent's question). `reset(seed=...)` is deterministic: the same seed gives the same game
for the same actions.

## Version history
* v0: first release (issue 20).
"""

from __future__ import annotations

import copy
import re
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import ParallelEnv

from cardwar.envs.doc_pages import fill
from cardwar.envs.skirmish import flow
from cardwar.envs.skirmish.actions import CHOICE, N_ACTIONS, Step, action_name
from cardwar.envs.skirmish.figure_obs import (
    N_PLANES, N_SCALARS, NOOP, OBS_SIZE, UNIT_FEATURES, encode_figure, encode_state, plane_table, state_size)
from cardwar.envs.skirmish.pending import DECLARATION_STAGES, Stage, pending_unit
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.scenario import Scenario, ScenarioError, load_scenario
from cardwar.envs.skirmish.state import Decision, SkirmishState, new_state
from cardwar.envs.skirmish_v0 import effective_rules
from cardwar.envs.turn_based_env import render_frame

N_SPACE = N_ACTIONS + 1
DEFAULT_SCENARIO = "ww2_squads"
MAX_CYCLES = 10_000
PASSIVE = tuple(CHOICE[c] for c in ("hold", "nothing", "done", "no_watch", "stay"))
"""Answers for a unit whose agent has left (the engine should never ask one; a guard)."""

__doc__ = fill(__doc__, N_SPACE=str(N_SPACE), N_ACTIONS=str(N_ACTIONS), NOOP=str(NOOP), OBS_SIZE=str(OBS_SIZE),
               STATE_FORMULA=f"{state_size(0)} + {len(UNIT_FEATURES)} x units", N_PLANES=str(N_PLANES),
               N_SCALARS=str(N_SCALARS), OBS_TABLE=plane_table(), UNIT_FEATURES=str(len(UNIT_FEATURES)),
               MAX_CYCLES=str(MAX_CYCLES))


def side_names(scenario: Scenario) -> tuple[str, str]:
    """The agents' side prefixes: lowercased, sanitized scenario side names (``side0``/``side1`` if unusable)."""
    names = [re.sub(r"[^a-z0-9]+", "_", str(n).lower()).strip("_") for n in scenario.sides]
    if not names[0] or not names[1] or names[0] == names[1]:
        return ("side0", "side1")
    return (names[0], names[1])


def parallel_env(**kwargs: Any) -> SkirmishParallelEnv:
    """The skirmish with one agent per figure; see the module docstring."""
    return SkirmishParallelEnv(**kwargs)


raw_env = parallel_env


class SkirmishParallelEnv(ParallelEnv, EzPickle):
    """One agent per figure and vehicle over the skirmish engine; see the module docstring."""

    metadata = {"render_modes": ["ansi", "human"], "name": "skirmish_parallel_v0", "is_parallelizable": True,
                "render_fps": 2}

    def __init__(self, scenario: str | Scenario = DEFAULT_SCENARIO, rules: dict | SkirmishRules | None = None,
                 render_mode: str | None = None, max_cycles: int = MAX_CYCLES) -> None:
        EzPickle.__init__(self, scenario=scenario, rules=rules, render_mode=render_mode, max_cycles=max_cycles)
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r} is not one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.max_cycles = int(max_cycles)
        if isinstance(scenario, str) and scenario.startswith("random"):
            raise ScenarioError(f"the Parallel env plays one scenario (its agents are that scenario's figures), so "
                                f"not {scenario!r}: pass a procedural map as "
                                "scenario=cardwar.envs.skirmish.generator.generate(seed, deal=d)")
        self.scenario = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
        self.rules = effective_rules(self.scenario, rules)
        sc = self.scenario
        sides = [f.side for f in sc.figures] + [v.side for v in sc.vehicles]
        prefix = side_names(sc)
        counts = [0, 0]
        self._uid_of: dict[str, int] = {}
        self._agent_of: dict[int, str] = {}
        for uid, side in enumerate(sides):
            name = f"{prefix[side]}_{counts[side]}"
            counts[side] += 1
            self._uid_of[name] = uid
            self._agent_of[uid] = name
        self._side_of = {name: sides[uid] for name, uid in self._uid_of.items()}
        self.possible_agents = list(self._uid_of)
        self.agents: list[str] = []
        box = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                           "action_mask": spaces.Box(0, 1, (N_SPACE,), np.int8)})
        self.observation_spaces = {a: box for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_SPACE) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, 1.0, (state_size(len(sides)),), np.float32)
        self._seeder = np.random.default_rng()
        self.game: SkirmishState | None = None
        self.team_returns: dict[str, float] = {}
        self._reset_bookkeeping()

    # ------------------------------------------------------------------ names and spaces
    def unit_of(self, agent: str) -> int:
        """The engine's unit id of ``agent``."""
        return self._uid_of[agent]

    def agent_of(self, uid: int) -> str:
        """The agent that plays unit ``uid``."""
        return self._agent_of[uid]

    def side_of(self, agent: str) -> int:
        return self._side_of[agent]

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ the Parallel API
    def _reset_bookkeeping(self) -> None:
        self._buffer: dict[int, list[int]] = {}
        """Answers given by an agent and not yet fed to the engine, per unit."""
        self._consumed: dict[int, list[int]] = {}
        """Answers of the unit's current decision the engine has taken."""
        self._questions: dict[int, tuple[Step, list[int]]] = {}
        self._shadows: dict[int, tuple[tuple, SkirmishState, int]] = {}
        """Per unit still to declare: (turn, stage), the engine copy where it declares next, answers fed."""
        self._cycles = 0
        self.reasked = 0
        """How often the engine asked a unit otherwise than foreseen, so that its agent was asked again."""

    def reset(self, seed: int | None = None, options: dict | None = None) -> tuple[dict, dict]:
        """A new game; the same ``seed`` gives the same game. Unseeded resets go on with the last seed's stream."""
        if seed is not None:
            self._seeder = np.random.default_rng(seed)
        self.game = new_state(self.scenario, self.rules, int(self._seeder.integers(2**63)))
        self._reset_bookkeeping()
        self.team_returns = {}
        self.agents = [a for a in self.possible_agents if self.game.units[self._uid_of[a]].active]
        self._drive()
        self._ask()
        infos = {a: {"illegal": False} for a in self.agents}
        return self._observe_all(self.agents), infos

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        if self.game is None:
            raise RuntimeError("call reset() before step()")
        if not self.agents:
            return {}, {}, {}, {}, {}
        s = self.game
        unknown = sorted(set(actions) - set(self.agents))
        if unknown:
            raise ValueError(f"no agent {', '.join(map(repr, unknown))} in play; agents: {', '.join(self.agents)}")
        infos: dict[str, dict[str, Any]] = {a: {"illegal": False} for a in self.agents}
        for agent in self.agents:
            uid = self._uid_of[agent]
            raw = actions.get(agent, NOOP)
            action = int(raw) if raw is not None else NOOP
            question = self._questions.get(uid)
            if question is None:
                if action != NOOP:
                    infos[agent]["illegal"] = True
                continue
            legal = question[1]
            if action not in legal:
                infos[agent]["illegal"] = True
                action = legal[0]
            self._buffer.setdefault(uid, []).append(action)
        self._drive()
        self._cycles += 1
        over = s.is_terminal()
        present = list(self.agents)
        rewards = {a: 0.0 for a in present}
        terminations = {a: over for a in present}  # a loss is not public: every agent stays to the end (§9.2)
        truncated = not over and self._cycles >= self.max_cycles
        truncations = {a: truncated for a in present}
        if over:
            returns = s.returns()
            self.team_returns = {a: returns[self._side_of[a]] for a in self.possible_agents}
            for a in present:
                rewards[a] = returns[self._side_of[a]]
                infos[a]["result"] = copy.deepcopy(s.result)
        self.agents = [a for a in present if not (terminations[a] or truncations[a])]
        self._ask()
        observations = self._observe_all(present)
        if self.render_mode == "human":
            self.render()
        return observations, rewards, terminations, truncations, infos

    def state(self) -> np.ndarray:
        """The omniscient global state (for a centralized critic only)."""
        if self.game is None:
            raise RuntimeError("call reset() before state()")
        return encode_state(self.game, asked=tuple(self._questions))

    def render(self) -> str | None:
        return render_frame(self.render_mode, self._render_text)

    def close(self) -> None:
        pass

    # ------------------------------------------------------------------ observations
    def question(self, agent: str) -> tuple[Step, list[int]] | None:
        """The step ``agent`` is asked now and its legal ids, or ``None`` (it may only no-op)."""
        return self._questions.get(self._uid_of[agent])

    def view(self, agent: str) -> Any:
        """The information view of ``agent``'s side (RULES.md §9.2)."""
        return self.game.information_view(self._side_of[agent])

    def _observe_all(self, agents: list[str]) -> dict[str, dict[str, np.ndarray]]:
        views: dict[int, Any] = {}
        for agent in agents:
            side = self._side_of[agent]
            if side not in views:
                views[side] = self.game.information_view(side)
        return {a: self._observe(a, views[self._side_of[a]]) for a in agents}

    def _observe(self, agent: str, view: Any = None) -> dict[str, np.ndarray]:
        uid = self._uid_of[agent]
        question = self._questions.get(uid)
        mask = np.zeros(N_SPACE, np.int8)
        if question is None:
            mask[NOOP] = 1
        else:
            mask[question[1]] = 1
        chosen = self._consumed.get(uid, []) + self._buffer.get(uid, [])
        view = view if view is not None else self.view(agent)
        obs = encode_figure(view, self.scenario, uid, step=question[0] if question else None,
                            chosen=chosen)
        return {"observation": obs, "action_mask": mask}

    # ------------------------------------------------------------------ driving the engine
    def _live(self, uid: int) -> bool:
        return self._agent_of[uid] in self.agents

    def _drive(self) -> None:
        """Feed the engine the queued answers in its own order until it asks a unit with none queued."""
        s = self.game
        while not s.is_terminal():
            d = s.decision
            if d.unit is None:
                s.apply(self._commander(d))
                continue
            uid = d.unit
            if not self._live(uid):
                s.apply(next((a for a in PASSIVE if a in d.legal), min(d.legal)))
                continue
            buf = self._buffer.get(uid)
            if not buf:
                return
            action = buf.pop(0)
            if action not in d.legal:  # the engine asks otherwise than foreseen: ask the agent again
                buf.clear()
                self.reasked += 1
                return
            s.apply(action)
            self._consumed.setdefault(uid, []).append(action)
            if not self._same_decision(uid):
                self._consumed[uid] = []
                if buf and s.stage not in DECLARATION_STAGES:
                    buf.clear()

    def _same_decision(self, uid: int) -> bool:
        """Whether the engine's next question is still part of ``uid``'s current declaration or activity."""
        s = self.game
        return (not s.is_terminal() and s.decision is not None and s.decision.unit == uid
                and s.stage in (*DECLARATION_STAGES, Stage.ACTIVATE) and pending_unit(s.cursor) == uid)

    def _commander(self, d: Decision) -> int:
        """Side-level decisions (deck): the fire team for a Free Move, the next figure of an activated team."""
        s = self.game
        if d.step == Step.TEAM:
            def fresh(team: int) -> int:
                return sum(1 for u in s.active_units(d.seat) if u.team == team and not u.acted)

            return min(d.legal, key=lambda a: (-fresh(d.legal[a]), d.legal[a]))
        if d.step == Step.ACTIVATE:
            figures = [a for a, uid in d.legal.items() if uid is not None]
            if figures:
                return min(figures, key=lambda a: (s.units[d.legal[a]].acted, d.legal[a]))
        return min(d.legal)

    def _ask(self) -> None:
        """Every live agent's next question (RULES.md §9.1: declarations at once, the rest as asked)."""
        s = self.game
        self._questions = {}
        if s.is_terminal():
            self._buffer.clear()
            self._shadows.clear()
            return
        d = s.decision
        if d.unit is not None and self._live(d.unit):
            self._questions[d.unit] = (d.step, sorted(d.legal))
        if s.stage in DECLARATION_STAGES:
            for uid in [u for u in self._shadows if u not in s.queue]:
                del self._shadows[uid]
            for uid in s.queue:
                if uid not in self._questions and self._live(uid):
                    question = self._predict(uid)
                    if question is not None:
                        self._questions[uid] = question
        else:
            self._shadows.clear()
        for uid in list(self._buffer):
            if self._buffer[uid] and not (s.stage in DECLARATION_STAGES and uid in s.queue):
                self._buffer[uid] = []
        for uid in list(self._consumed):
            if uid not in self._questions and not self._buffer.get(uid):
                if not (s.stage in DECLARATION_STAGES and uid in s.queue):
                    self._consumed[uid] = []

    def _predict(self, uid: int) -> tuple[Step, list[int]] | None:
        """The question the engine will ask unit ``uid`` once it declares, after its queued answers; ``None``
        once its declaration is complete. Read from a copy of the engine in which ``uid`` declares next (kept
        for the rest of the stage and fed each new answer)."""
        s = self.game
        key = (s.turn, s.stage)
        buf = self._buffer.setdefault(uid, [])
        shadow = self._shadows.get(uid)
        if shadow is None or shadow[0] != key or shadow[2] > len(buf):
            c = self._copy_game()
            c.queue, c.cursor, c.decision = [uid], None, None
            flow.advance(c)
            fed = 0
        else:
            _, c, fed = shadow
        for i in range(fed, len(buf)):
            d = c.decision
            if c.over or d is None or d.unit != uid or buf[i] not in d.legal:
                del buf[i:]
                self._shadows.pop(uid, None)
                return self._predict(uid)
            c.moves_made += 1  # as SkirmishState.apply does (its caches are keyed by it)
            flow.answer(c, d, buf[i])
            if c.cursor is not None:
                flow.advance(c)
        self._shadows[uid] = (key, c, len(buf))
        d = c.decision
        if c.over or d is None or d.unit != uid or c.cursor is None:
            return None
        return (d.step, sorted(d.legal))

    def _copy_game(self) -> SkirmishState:
        """A copy of the engine for looking ahead: the scenario and rules shared, the event record and path
        cache copied one level deep (their items are never changed in place)."""
        s = self.game
        memo = {id(s.scenario): s.scenario, id(s.rules): s.rules, id(s.events): list(s.events)}
        cache = getattr(s, "path_cache", None)
        if isinstance(cache, dict):
            memo[id(cache)] = dict(cache)
        return copy.deepcopy(s, memo)

    # ------------------------------------------------------------------ text
    def _render_text(self) -> str:
        """The spectator's board (``cardwar.envs.skirmish.text``), then each agent, its unit and its question."""
        from cardwar.envs.skirmish.text import render_text

        s = self.game
        if s is None:
            return "(not reset)"
        board = self.scenario.board
        lines = [render_text(s, None), f"cycle {self._cycles} of {self.max_cycles}"]
        for agent in self.possible_agents:
            u = s.units[self._uid_of[agent]]
            q = self._questions.get(self._uid_of[agent])
            status = "active" if u.active else "out of action"
            ask = "" if q is None else f"  asked {q[0].name.lower()}: " + " ".join(action_name(a) for a in q[1][:8]) \
                + (" ..." if len(q[1]) > 8 else "")
            lines.append(f"{agent:>14} {u.name:<22} {board.label(u.cell) if u.on_table else '--':>4} {status}{ask}")
        return "\n".join(lines)


__all__ = ["DEFAULT_SCENARIO", "MAX_CYCLES", "NOOP", "N_SPACE", "SkirmishParallelEnv", "parallel_env", "raw_env",
           "side_names"]
