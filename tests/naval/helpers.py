"""Shared helpers for the naval tests."""

from __future__ import annotations

import numpy as np

from cardwar.envs.naval import NavalState
from cardwar.envs.naval.cards import NUM_CARDS


def all_cards_accounted(s: NavalState) -> list[int]:
    """Every card's place, collected from the containers (deck, hands, board, discards, face-down)."""
    places = list(s.deck) + s.hands[0] + s.hands[1] + [c for c in s.ship if c >= 0] + list(s.discards)
    if s.pending is not None:
        places.append(s.pending.attack_card)
        if s.pending.deck_card >= 0:
            places.append(s.pending.deck_card)
    return places


def hidden_from(s: NavalState, seat: int) -> set[int]:
    """Cards ``seat`` may not know the place of: the other hand, the deck, face-down cards of others."""
    hidden = set(s.hands[1 - seat]) | set(s.deck)
    if s.pending is not None:
        if s.pending.attacker != seat:
            hidden.add(s.pending.attack_card)
        if s.pending.deck_card >= 0:
            hidden.add(s.pending.deck_card)
    return hidden


def random_playout(seed: int, config=None, stop_at: int | None = None) -> NavalState:
    """Play uniformly random legal moves from a fresh seeded game (optionally stopping early)."""
    rng = np.random.default_rng(seed + 10_000)
    s = NavalState.new_game(config, seed=seed)
    n = 0
    while not s.is_terminal() and (stop_at is None or n < stop_at):
        legal = s.legal_actions()
        s.apply_action(legal[int(rng.integers(len(legal)))])
        n += 1
    return s


__all__ = ["NUM_CARDS", "all_cards_accounted", "hidden_from", "random_playout"]
