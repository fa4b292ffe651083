"""Information-set Monte Carlo tree search (single-observer ISMCTS, Cowling et al. 2012).

Each iteration samples a *determinization*: a full game state consistent with
the searching seat's information view (unseen cards dealt at random, unknown
units left out, dice and draws from a fresh Generator). One tree keyed by
action sequences is shared by all determinizations; a child's UCB uses how
often it was *available*, as actions differ between determinizations. Leaves
are valued by a rollout (cut short after ``rollout_depth`` decisions and scored
by the game's evaluation), so search works within a time budget.

The engine is driven through its contract only: ``clone``, ``legal_actions``,
``apply_action(a, validate=False)``, ``is_terminal``, ``returns`` and
``current_player`` - no deep copies in the loop.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np


class _Node:
    __slots__ = ("children", "visits", "value", "avail", "priors")

    def __init__(self) -> None:
        self.children: dict[int, _Node] = {}
        self.visits = 0
        self.value = 0.0  # sum of returns of the player who chose the action leading here
        self.avail = 0
        self.priors: dict[int, float] | None = None  # a guided search's policy at this node


class ISMCTS:
    """The search; a game supplies ``determinize(view, rng)`` and ``evaluate(state, player)``."""

    def __init__(self, determinize: Callable[[Any, np.random.Generator], Any],
                 evaluate: Callable[[Any, int], float], rng: np.random.Generator, iterations: int | None = None,
                 seconds: float | None = 0.2, exploration: float = 0.8, rollout_depth: int = 40,
                 candidates: Callable[[Any, list[int]], list[int]] | None = None,
                 rollout_policy: Callable[[Any, list[int], np.random.Generator], int] | None = None,
                 guide: Callable[[Any, list[int]], tuple[np.ndarray, float]] | None = None) -> None:
        if iterations is None and seconds is None:
            raise ValueError("give mcts a budget: iterations=N or seconds=S")
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise ValueError(f"mcts iterations must be a positive integer, got {iterations!r}")
        if seconds is not None and (not isinstance(seconds, (int, float)) or seconds <= 0):
            raise ValueError(f"mcts seconds must be a positive number, got {seconds!r}")
        self.determinize, self.evaluate, self.rng = determinize, evaluate, rng
        self.iterations, self.seconds = iterations, seconds
        self.c, self.rollout_depth = exploration, rollout_depth
        self.candidates = candidates  # optional pruning of the actions searched at a node
        self.rollout_policy = rollout_policy  # optional cheap policy instead of uniform rollouts
        self.guide = guide  # optional network: priors (PUCT) and leaf values instead of play-outs
        self.last_iterations = 0
        self.last_visits: dict[int, int] = {}

    def search(self, view: Any, legal: list[int], default: int | None = None, margin: float = 0.0,
               min_visits: int = 10) -> int:
        """The most visited root action among ``legal`` after the budget is spent.

        With a ``default`` (a trusted policy's move), the search overrides it only with a
        move seen at least ``min_visits`` times whose mean value beats the default's by
        ``margin``: search then refines the policy rather than replacing it.
        """
        root = _Node()
        me = None
        deadline = None if self.seconds is None else time.perf_counter() + self.seconds
        n = 0
        while True:
            if self.iterations is not None and n >= self.iterations:
                break
            if deadline is not None and n > 0 and time.perf_counter() >= deadline:
                break
            state = self.determinize(view, self.rng)
            if me is None:
                me = state.current_player
            self._iterate(root, state)
            n += 1
        self.last_iterations = n
        self.last_visits = {a: root.children[a].visits for a in legal
                            if a in root.children and root.children[a].visits > 0}  # expert iteration's target
        visited = [(root.children[a].visits, a) for a in legal if a in root.children]
        if not visited:
            return int(legal[int(self.rng.integers(len(legal)))] if default is None else default)
        if default is None:
            return max(visited)[1]

        def mean(a: int) -> float:
            c = root.children.get(a)
            return c.value / c.visits if c is not None and c.visits else -2.0

        best = max((a for _, a in visited if root.children[a].visits >= min_visits), key=mean, default=default)
        return best if mean(best) > mean(default) + margin else default

    def _iterate(self, root: _Node, s: Any) -> None:
        if self.guide is not None:
            self._iterate_guided(root, s)
            return
        node, path = root, []
        while not s.is_terminal():
            legal = s.legal_actions()
            if self.candidates is not None and len(legal) > 1:
                legal = self.candidates(s, legal)
            player = s.current_player
            untried = [a for a in legal if a not in node.children]
            for a in legal:
                child = node.children.get(a)
                if child is not None:
                    child.avail += 1
            if untried:
                a = untried[int(self.rng.integers(len(untried)))]
                child = node.children[a] = _Node()
                child.avail = 1
                s.apply_action(a, validate=False)
                path.append((child, player))
                break
            log_avail = {a: math.log(node.children[a].avail) for a in legal}
            a = max(legal, key=lambda x: self._ucb(node.children[x], log_avail[x]))
            node = node.children[a]
            s.apply_action(a, validate=False)
            path.append((node, player))
        values = self._rollout(s)
        for child, player in path:
            child.visits += 1
            child.value += values[player]

    def _iterate_guided(self, root: _Node, s: Any) -> None:
        """PUCT (AlphaZero) over determinizations: a new node is valued by the network, not played out.

        A move's prior is the network's at the node's first visit (a move legal only in later
        determinizations gets the uniform prior); the exploration term uses how often the
        move was available, as UCB does in ISMCTS.
        """
        assert self.guide is not None
        node, path = root, []
        values: tuple[float, float]
        while True:
            if s.is_terminal():
                r = s.returns()
                values = (r[0], r[1])
                break
            legal = s.legal_actions()
            player = s.current_player
            if node.priors is None:  # a leaf: the network's prior for its moves, and its value
                priors, v = self.guide(s, legal)
                node.priors = dict(zip(legal, priors.tolist()))
                values = (v, -v) if player == 0 else (-v, v)
                break
            uniform = 1.0 / len(legal)
            best, best_score = legal[0], -math.inf
            for a in legal:
                child = node.children.get(a)
                if child is None:
                    child = node.children[a] = _Node()
                child.avail += 1
                q = child.value / child.visits if child.visits else 0.0
                score = q + self.c * node.priors.get(a, uniform) * math.sqrt(child.avail) / (1 + child.visits)
                if score > best_score:
                    best, best_score = a, score
            node = node.children[best]
            s.apply_action(best, validate=False)
            path.append((node, player))
        for child, player in path:
            child.visits += 1
            child.value += values[player]

    def _ucb(self, child: _Node, log_avail: float) -> float:
        return child.value / child.visits + self.c * math.sqrt(log_avail / child.visits)

    def _rollout(self, s: Any) -> tuple[float, float]:
        """Random play to the end, or to ``rollout_depth`` decisions and the evaluation."""
        for _ in range(self.rollout_depth):
            if s.is_terminal():
                r = s.returns()
                return r[0], r[1]
            legal = s.legal_actions()
            if self.rollout_policy is not None:
                a = self.rollout_policy(s, legal, self.rng)
            else:
                a = legal[int(self.rng.integers(len(legal)))]
            s.apply_action(a, validate=False)
        if s.is_terminal():
            r = s.returns()
            return r[0], r[1]
        v = self.evaluate(s, 0)
        return v, -v
