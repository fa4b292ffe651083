"""ISMCTS for Hit the Deck!: determinizations from the captain's view, a cheap evaluation.

A determinization deals the unseen cards (the other hand, the deck, face-down
cards of the other side) at random, in the numbers the view shows; everything
else is copied from the view. Mulligan decisions are left to the heuristic.
"""

from __future__ import annotations

import math

import numpy as np

from cardwar.agents.mcts import ISMCTS
from cardwar.agents.naval_heuristic import NavalHeuristic
from cardwar.envs.naval.config import NavalConfig
from cardwar.envs.naval.scoring import sealanes_occupied
from cardwar.envs.naval.seemap import depth
from cardwar.envs.naval.state import NavalState, PendingAttack, Phase
from cardwar.envs.naval.view import NavalView


def determinize(v: NavalView, rng: np.random.Generator) -> NavalState:
    """A full state consistent with ``v`` (hidden cards dealt at random)."""
    me, opp = v.seat, 1 - v.seat
    unseen = v.unseen_cards()
    rng.shuffle(unseen)
    s = NavalState.__new__(NavalState)
    s.config = v.config or NavalConfig()
    s.rng = np.random.default_rng(int(rng.integers(2**63)))
    hands: list[list[int]] = [[], []]
    hands[me] = list(v.hand)
    n_opp = v.hand_counts[opp]
    hands[opp], rest = unseen[:n_opp], unseen[n_opp:]
    s.pending = None
    if v.pending is not None:
        p = v.pending
        own = p.own_card if p.own_card >= 0 else rest.pop()
        deck_card = rest.pop() if p.deck_card_drawn else -1
        s.pending = PendingAttack(p.attacker, p.src, p.dst, p.style, own, deck_card)
    s.deck, s.hands = rest, hands
    s.owner, s.ship, s.discards = list(v.board_owner), list(v.board_card), list(v.discards)
    s.phase, s.active, s.current, s.first_player = v.phase, v.active, v.current, v.first_player
    s.turn, s.actions_taken, s.deployed, s.attacked = v.turn, v.actions_taken, v.deployed, v.attacked
    s.mulligan_choices = list(v.mulligan_choices)
    s.mulligan_shown = list(v.mulligan_shown)
    s.rf_candidates = list(v.royal_flush_candidates)
    s.rf_picks_left, s.rf_cut, s.rf_loser, s.rf_winner_zone = v.royal_flush_state
    s.last_battle, s.winner, s.result, s.move_number = v.last_battle, None, None, 0
    return s


def evaluate(s: NavalState, player: int) -> float:
    """Value in [-1, 1] for ``player`` of an unfinished game: the deck-exhaustion criteria
    (enemy Sealanes, then cards in hand) plus progress of the ships towards the enemy."""
    rule = s.config.sealane_control
    lanes = sealanes_occupied(s.owner, 0, rule) - sealanes_occupied(s.owner, 1, rule)
    progress = sum((1 if o == 0 else -1) * (1 + depth(o, z)) for z, o in enumerate(s.owner) if o >= 0)
    cards = len(s.hands[0]) - len(s.hands[1])
    v = math.tanh(0.9 * lanes + 0.12 * progress + 0.12 * cards)
    return v if player == 0 else -v


class NavalSearch:
    """``mcts`` for the naval game: ISMCTS within ``seconds`` (default 0.2) or ``iterations``."""

    def __init__(self, seed: int | None = None, iterations: int | None = None, seconds: float | None = 0.2,
                 exploration: float = 0.8, rollout_depth: int = 16, model: str | None = None) -> None:
        self.name = "mcts"
        rng = np.random.default_rng(seed)
        if iterations is not None and seconds == 0.2:
            seconds = None  # an iteration budget alone makes the agent reproducible
        guide = None
        if model is not None:
            from cardwar.agents.network_guide import NetworkGuide

            guide = NetworkGuide("naval", model)
        self.search = ISMCTS(determinize, evaluate, rng, iterations, seconds, exploration, rollout_depth,
                             guide=guide)
        self.fallback = NavalHeuristic(seed=seed)

    def act(self, observation: dict[str, np.ndarray], view: NavalView) -> int:
        self.last_visits: dict[int, int] | None = None  # the root's visit counts when this move was searched
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        if view.phase == Phase.MULLIGAN:
            return self.fallback.act(observation, view)
        move = self.search.search(view, legal)
        self.last_visits = dict(self.search.last_visits)
        return move


# ---------------------------------------------------------------- hooks for searches outside cardwar's agents
def state_from_view(observation: object, view: NavalView, rng: np.random.Generator) -> NavalState:
    """The registry's ``state_from_view`` (the OpenSpiel bridge's bots): :func:`determinize`, plus the one thing it
    leaves open: during the mulligans the second captain cannot see the first one's choice, which was made
    (RULES.md, the mulligan): a fair coin stands in for it."""
    s = determinize(view, rng)
    if s.phase == Phase.MULLIGAN and view.seat == 1 and s.mulligan_choices[0] is None:
        s.mulligan_choices[0] = bool(rng.integers(2))
    return s


def max_game_length(state: NavalState) -> int:
    """The registry's ``max_game_length``: ``max_game_steps`` of the rules in force (deck size, turns and decisions
    a turn)."""
    from cardwar.envs.naval.state import max_game_steps

    return int(max_game_steps(state.config))
