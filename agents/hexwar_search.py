"""MCTS for the hex game from one side's view: known units only, shuffled cards, fresh dice.

A determinization rebuilds a state from the information view: the units the side
knows of (hidden enemies are unknown to it and so left out), the activation order
still to come, smoke, holders and the pending shot; the deck is the cards not in
view, shuffled, and every die is rolled anew by the search's Generator. Leaves
are scored by objectives held and the forces' remaining strength.
"""

from __future__ import annotations

import math

import numpy as np

from cardwar.agents.hexwar_heuristic import HexHeuristic
from cardwar.agents.mcts import ISMCTS
from cardwar.envs.hexwar.actions import EVADE, PASS
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.state import HexPhase, HexState, PendingShot
from cardwar.envs.hexwar.units import ELIMINATED_AFTER, STATS
from cardwar.envs.hexwar.view import HexView


def determinize(v: HexView, rng: np.random.Generator) -> HexState:
    """A playable state consistent with ``v``."""
    index = {u.uid: i for i, u in enumerate(v.units)}
    s = HexState.__new__(HexState)
    s.scenario, s.config = v.map, v.config or HexConfig()
    s.rng = np.random.default_rng(int(rng.integers(2**63)))
    s.side = [u.side for u in v.units]
    s.utype = [u.type for u in v.units]
    s.cell = [u.cell for u in v.units]
    s.hits = [u.hits for u in v.units]
    s.activated = [u.activated for u in v.units]
    s.hidden = [u.hidden for u in v.units]
    s.card = [u.card for u in v.units]
    known = {c for c in s.card if c >= 0}
    s.deck = [c for c in range(52) if c not in known]
    rng.shuffle(s.deck)
    s.discards = []
    s.order, s.ptr = [index[u] for u in v.order if u in index], 0
    if v.phase == HexPhase.EVADE and v.acting in index:
        s.order.insert(0, index[v.acting])  # the shooter's card is still the one in play
    s.phase, s.turn = v.phase, v.turn
    s.smoke, s.holders = list(v.smoke), list(v.holders)
    s.pending = None
    if v.pending is not None:
        s.pending = PendingShot(tuple(index[u] for u in v.pending.shooters if u in index), index[v.pending.target])
    s.last_shots, s.winner, s.result, s.move_number = (), None, None, 0
    s.public_id = list(range(len(s.cell)))
    s._moves_memo = s._occ_memo = None
    return s


def evaluate(s: HexState, player: int) -> float:
    """Value in [-1, 1] for ``player``: objective points held, then remaining strength."""
    points = [0, 0]
    for o, h in zip(s.scenario.objectives, s.holders):
        if h >= 0:
            points[h] += o.value
    strength = [0.0, 0.0]
    for u, c in enumerate(s.cell):
        if c != -2:
            strength[s.side[u]] += STATS[s.utype[u]].points * (1 - s.hits[u] / (ELIMINATED_AFTER + 1))
    total = max(strength[0] + strength[1], 1.0)
    v = math.tanh(0.8 * (points[0] - points[1]) + 3.0 * (strength[0] - strength[1]) / total)
    return v if player == 0 else -v


def rollout_policy(s: HexState, legal: list[int], rng: np.random.Generator) -> int:
    """Play-outs by the heuristic's ratings (with a little noise): close to how sides really fight."""
    if EVADE in legal:
        return EVADE
    if len(legal) == 1 or rng.random() < 0.1:
        return legal[int(rng.integers(len(legal)))]
    scores = _PRUNER.scores(s.information_view(s.current_player), legal)
    return max(scores, key=scores.get) if scores else legal[int(rng.integers(len(legal)))]


_PRUNER = HexHeuristic(seed=0)


def candidates(s: HexState, legal: list[int], keep: int = 6) -> list[int]:
    """The ``keep`` actions the heuristic rates best (always including pass), to narrow the tree."""
    if len(legal) <= keep:
        return legal
    view = s.information_view(s.current_player)
    scores = _PRUNER.scores(view, legal)
    ranked = sorted(legal, key=lambda a: -scores.get(a, 0.0))
    top = ranked[:keep]
    if PASS in legal and PASS not in top:
        top[-1] = PASS
    return top


class HexSearch:
    """``mcts`` for the hex game within ``seconds`` (default 0.2) or ``iterations``."""

    def __init__(self, seed: int | None = None, iterations: int | None = None, seconds: float | None = 0.2,
                 exploration: float = 0.8, rollout_depth: int = 8, margin: float = 0.05,
                 model: str | None = None) -> None:
        self.name = "mcts"
        rng = np.random.default_rng(seed)
        if iterations is not None and seconds == 0.2:
            seconds = None
        guide = None
        if model is not None:
            from cardwar.agents.network_guide import NetworkGuide

            guide = NetworkGuide("hexwar", model)
        self.search = ISMCTS(determinize, evaluate, rng, iterations, seconds, exploration, rollout_depth,
                             candidates=candidates, rollout_policy=rollout_policy, guide=guide)
        self.fallback = HexHeuristic(seed=seed)
        self.margin = margin

    def act(self, observation: dict[str, np.ndarray], view: HexView) -> int:
        self.last_visits: dict[int, int] | None = None  # the root's visit counts when this move was searched
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        guess = self.fallback.act(observation, view)
        if view.acting < 0 and view.pending is None:
            return guess
        # Search refines the heuristic: it overrides the heuristic's move only with a clearly better one.
        move = self.search.search(view, legal, default=guess, margin=self.margin)
        self.last_visits = dict(self.search.last_visits)
        return move


# ---------------------------------------------------------------- hooks for searches outside cardwar's agents
def state_from_view(observation: object, view: HexView, rng: np.random.Generator) -> HexState:
    """The registry's ``state_from_view`` (the OpenSpiel bridge's bots): :func:`determinize` (hidden enemy units
    left out), keeping the view's public unit ids, so the sample's view names its units as the seat's view did."""
    s = determinize(view, rng)
    s.public_id = [u.uid for u in view.units]
    return s


def max_game_length(state: HexState) -> int:
    """The registry's ``max_game_length``: a turn deals one card per unit, and an activation is one decision plus
    perhaps the target's evasion (RULES.md 4, 7): two decisions per unit per turn."""
    return 2 * len(state.scenario.units) * int(state.scenario.turns)
