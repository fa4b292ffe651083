"""``mcts`` for Tank Attack: Monte Carlo tree search with explicit chance nodes (expectimax-style UCT).

Nothing is hidden in Tank Attack but the future dice (RULES.md 18), so the search does not determinise a
hidden state: it rebuilds the exact position from the seat's view and treats every die as a chance node
(:mod:`cardwar.envs.tankattack.chance`). A decision node chooses by UCT from its player's side; a chance
node draws one face, 1/6 each, and keeps a child per face met, so the values below it average over the
dice as they fall. Leaves are valued by :func:`evaluate` (the game's end when it has one), which the
OpenSpiel bridge can use too.
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from cardwar.agents.spec import Option
from cardwar.envs.tankattack.board import gap
from cardwar.envs.tankattack.chance import FACES, Step, chance_free
from cardwar.envs.tankattack.elements import is_aerial
from cardwar.envs.tankattack import infostate
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER
from cardwar.envs.tankattack.state import TankState
from cardwar.envs.tankattack.view import TankView

OPTIONS: tuple[Option, ...] = (
    Option("seconds", float, 0.2, "thinking time per decision", minimum=0, min_exclusive=True, maximum=3600,
           nullable=True),
    Option("iterations", int, None, "search iterations per decision (alone: reproducible)", minimum=1,
           maximum=10**7, nullable=True),
    Option("exploration", float, 0.8, "UCT exploration constant", minimum=0, maximum=100),
    Option("max_depth", int, 60, "most decisions below the root before the evaluation", minimum=1, maximum=10_000),
)

NEAR_BUNKER = 1200
"""Paces from the Bunker beyond which an attacker counts as not yet threatening it (the progress term)."""


def evaluate(state: TankState, seat: int) -> float:
    """The search's value of a position for ``seat``, in [-1, 1]: the result when the game is over, else
    losses against the break point (17.2, half the army's AP), the attacker's nearest approach to the
    Bunker (16.4) and the time left before the turn limit gives the game to the defender (17.3)."""
    if state.is_terminal():
        return float(state.returns()[seat])
    loss = [state.lost_ap(sd) / max(1.0, state.army_ap(sd) / 2) for sd in (DEFENDER, ATTACKER)]
    bunker = state.board.bunker
    near = NEAR_BUNKER
    if bunker is not None and state.bunker_alive:
        for e, c in enumerate(state.cell):
            if c >= 0 and state.side[e] == ATTACKER and not is_aerial(state.etype[e]):
                near = min(near, gap(c, bunker))
    threat = 1.0 - near / NEAR_BUNKER
    time_left = max(0.0, 1.0 - state.bound / max(1, 2 * state.scenario.turn_limit))
    for_defender = 0.6 * (loss[ATTACKER] - loss[DEFENDER]) - 0.5 * threat * (0.5 + 0.5 * time_left) + \
        0.2 * (1.0 - time_left)
    v = math.tanh(for_defender)
    return v if seat == DEFENDER else -v


class _Decision:
    __slots__ = ("state", "player", "actions", "children", "n", "w", "visits")

    def __init__(self, state: TankState) -> None:
        self.state = state
        self.player = state.current_player
        self.actions: list[int] = [] if state.is_terminal() else list(state.legal_actions())
        self.children: dict[int, Any] = {}
        self.n = np.zeros(len(self.actions))
        self.w = np.zeros(len(self.actions))  # sum of values for self.player
        self.visits = 0


class _Chance:
    __slots__ = ("step", "children")

    def __init__(self, step: Step) -> None:
        self.step = step
        self.children: dict[int, Any] = {}


def _node(step: Step) -> _Decision | _Chance:
    return _Chance(step) if step.needs_die else _Decision(step.after)


class ChanceMCTS:
    """UCT over decisions with chance nodes for the dice; values are the defender's, in [-1, 1]."""

    def __init__(self, rng: np.random.Generator, iterations: int | None = None, seconds: float | None = 0.2,
                 exploration: float = 0.8, max_depth: int = 60) -> None:
        if iterations is None and seconds is None:
            raise ValueError("give mcts a budget: iterations=N or seconds=S")
        self.rng, self.iterations, self.seconds = rng, iterations, seconds
        self.c, self.max_depth = exploration, max_depth
        self.last_iterations = 0
        self.last_visits: dict[int, int] = {}

    def search(self, state: TankState) -> int:
        """The most visited action at ``state`` (a chance-free state: see :func:`chance_free`)."""
        root = _Decision(state)
        if len(root.actions) == 1:
            return root.actions[0]
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        done = 0
        while (self.iterations is None or done < self.iterations) and \
                (deadline is None or time.perf_counter() < deadline or done == 0):
            self._simulate(root, 0)
            done += 1
        self.last_iterations = done
        self.last_visits = {a: int(n) for a, n in zip(root.actions, root.n)}
        best = np.flatnonzero(root.n == root.n.max())
        return root.actions[int(best[self.rng.integers(best.size)])]

    def _simulate(self, node: _Decision | _Chance, depth: int) -> float:
        while isinstance(node, _Chance):  # the dice fall as they fall
            face = FACES[int(self.rng.integers(len(FACES)))]
            child = node.children.get(face)
            if child is None:
                child = node.children[face] = _node(node.step.with_die(face))
            node = child
        s = node.state
        if not node.actions:
            return float(s.returns()[DEFENDER])
        if node.visits == 0 or depth >= self.max_depth:
            node.visits += 1
            return evaluate(s, DEFENDER)
        node.visits += 1
        i = self._select(node)
        a = node.actions[i]
        child = node.children.get(a)
        if child is None:
            child = node.children[a] = _node(Step(s, a))
        v = self._simulate(child, depth + 1)
        node.n[i] += 1
        node.w[i] += v if node.player == DEFENDER else -v
        return v

    def _select(self, node: _Decision) -> int:
        untried = np.flatnonzero(node.n == 0)
        if untried.size:
            return int(untried[self.rng.integers(untried.size)])
        log_n = math.log(node.visits)
        ucb = node.w / node.n + self.c * np.sqrt(log_n / node.n)
        best = np.flatnonzero(ucb == ucb.max())
        return int(best[self.rng.integers(best.size)])


class TankSearch:
    """``mcts`` for Tank Attack within ``seconds`` (default 0.2) or ``iterations`` (alone: reproducible)."""

    def __init__(self, seed: int | None = None, iterations: int | None = None, seconds: float | None = 0.2,
                 exploration: float = 0.8, max_depth: int = 60) -> None:
        self.name = "mcts"
        self.rng = np.random.default_rng(seed)
        if iterations is not None and seconds == 0.2:
            seconds = None
        self.search = ChanceMCTS(self.rng, iterations, seconds, exploration, max_depth)

    def act(self, observation: dict[str, np.ndarray], view: TankView) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        state = chance_free(infostate.state_from_view(view, self.rng))
        return self.search.search(state)


# ---------------------------------------------------------------- hooks for searches outside cardwar's agents
def state_from_view(observation: object, view: TankView, rng: np.random.Generator) -> TankState:
    """The registry's ``state_from_view``: the exact position (nothing is hidden), its dice from ``rng``."""
    return infostate.state_from_view(view, rng)
