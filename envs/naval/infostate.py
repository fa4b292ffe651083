"""Resampling a captain's information state: another full game the captain cannot tell from this one.

:func:`resample_hidden` is the naval game's ``resample_hidden`` registry hook (``cardwar.games``), used by the
information-state harness (``tests/hidden/test_infostate.py``): everything a seat is given must be the same in
the resampled state as in the true one.

What a captain does not know (``NavalView``, RULES.md 2, 5): the other captain's hand, the order and content of
the deck, the other captain's face-down attack card of a pending attack, a Broadside's face-down deck card, the
other captain's mulligan choice until both have chosen, and the future chance (the Generator: the mulligan
reshuffle and the first captain). All of it is redrawn; nothing public moves (the board, the discards, the last
battle, the counts, the mulligan-shown cards' names, the own hand and own face-down card).

Consistency with the whole game, not only with the view. The cards a captain has never seen are
interchangeable: relabelling them in the true history gives a history that shows the captain exactly the same
things, so any permutation of them over the hidden places (the other hand, its face-down attack card, the deck,
the Broadside card) is a state the captain cannot tell apart, whatever it remembers. The one kind of card a
captain has seen and may not see now is a **mulligan-shown** card: shown, then reshuffled into the deck (RULES 2).
The other captain's new hand was drawn before that reshuffle, so a shown card can be in its hand only if it drew
the card later; how many it drew since is not in the state. So, conservatively, a shown card that is still
unseen keeps its *region* - the other captain's hand and face-down card, or the deck and the Broadside card -
and only its place inside the region is redrawn. (A resample is then never impossible; it is a subset of the
possible ones.)
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.naval.state import NavalState, PendingAttack, Phase


def _regions(s: NavalState, unknown: list[int]) -> list[list[int]]:
    """The hidden places, grouped by region: each unknown hand (with that captain's face-down attack card
    last), then the deck (with the Broadside card last)."""
    out = []
    pa = s.pending
    for p in unknown:
        region = list(s.hands[p])
        if pa is not None and pa.attacker == p:
            region.append(pa.attack_card)
        out.append(region)
    deck = list(s.deck)
    if pa is not None and pa.deck_card >= 0:
        deck.append(pa.deck_card)
    out.append(deck)
    return out


def resample_hidden(state: NavalState, seat: int | None, rng: np.random.Generator) -> NavalState:
    """Another full state that ``seat`` (0, 1, or None for a spectator, who sees no hand) cannot tell from
    ``state``: its information view is the same, and everything it may not know is redrawn from ``rng``
    (see the module's docstring). ``state`` is not changed."""
    s = state.clone()
    s.rng = np.random.default_rng(int(rng.integers(2**63)))  # the future chance (clone may share the Generator)
    unknown = [p for p in (0, 1) if p != seat]
    if s.phase == Phase.GAME_OVER and s.result is not None and "best_hands" in s.result:
        unknown = []  # the deck-out tie-breaker showed both hands
    shown = set(s.mulligan_shown)
    regions = _regions(s, unknown)
    free = [c for region in regions for c in region if c not in shown]
    pool = [free[i] for i in rng.permutation(len(free))]
    k = 0
    new_regions = []
    for region in regions:
        keep = [c for c in region if c in shown]
        n = len(region) - len(keep)
        cards = keep + pool[k:k + n]
        k += n
        new_regions.append([cards[i] for i in rng.permutation(len(cards))])
    pa = s.pending
    attack_card, deck_card = (pa.attack_card, pa.deck_card) if pa is not None else (-1, -1)
    for p, region in zip(unknown, new_regions):
        if pa is not None and pa.attacker == p:
            attack_card = region.pop()
        s.hands[p] = region
    deck = new_regions[-1]
    if pa is not None and pa.deck_card >= 0:
        deck_card = deck.pop()
    s.deck = deck
    if pa is not None:
        s.pending = PendingAttack(pa.attacker, pa.src, pa.dst, pa.style, attack_card, deck_card)
    if s.phase == Phase.MULLIGAN:  # a choice made and not yet shown: keep or mulligan, either way
        for p in unknown:
            if s.mulligan_choices[p] is not None:
                s.mulligan_choices[p] = bool(rng.integers(2))
    return s
