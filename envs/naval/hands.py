"""Sea-battle hands: 1- to 3-card poker hands ranked as the seed says.

Seed, "Poker Hand Rankings": aces are low except in straights (A-2-3 and A-K-Q
are straights, K-A-2 is not); from highest to lowest High Royal Flush (A-K-Q
suited), Low Royal Flush (K-Q-J suited), Straight Flush, 3 of a Kind, 3-Card
Straight, 3-Card Flush, Pair "regardless of the number of Cards", High Card
"regardless of the number of Cards"; ties broken by suit, spades > hearts >
diamonds > clubs.

:func:`hand_key` gives every hand a sort key; distinct hands get distinct keys,
so the ranking is a strict total order (RULES.md lists the last tie-breaks,
which only separate hands that share cards and so never meet in play).
:func:`hand_strength` maps a hand to its place in that order (0 = weakest),
from a table built once, for fast comparisons in search.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from enum import IntEnum
from itertools import combinations

from cardwar.envs.naval.cards import NUM_CARDS, card_rank, card_suit, parse_cards


class HandCategory(IntEnum):
    """The seed's hand categories, weakest first."""

    HIGH_CARD = 1
    PAIR = 2
    FLUSH = 3
    STRAIGHT = 4
    THREE_OF_A_KIND = 5
    STRAIGHT_FLUSH = 6
    LOW_ROYAL_FLUSH = 7
    HIGH_ROYAL_FLUSH = 8


_NO_CARD = (0, -1)  # pads a missing kicker: below every real (rank, suit)


def _straight_top(ranks: Sequence[int]) -> int:
    """Top rank of a 3-card straight (A-K-Q tops at 14), or 0 if not a straight."""
    r = sorted(ranks)
    if r == [1, 12, 13]:  # "A-K-Q" is a straight: the ace plays high
        return 14
    if r[0] + 1 == r[1] and r[1] + 1 == r[2]:  # includes A-2-3 with the ace low
        return r[2]
    return 0  # K-A-2 is "not a valid Straight"


def hand_category(cards: Sequence[int]) -> HandCategory:
    """The category of a 1- to 3-card hand."""
    return HandCategory(hand_key(cards)[0])


def hand_key(cards: Sequence[int]) -> tuple:
    """Sort key of a hand of 1 to 3 distinct cards: a larger key is a better hand."""
    n = len(cards)
    if not 1 <= n <= 3 or len(set(cards)) != n:
        raise ValueError(f"a sea-battle hand has 1 to 3 distinct cards, got {list(cards)}")
    ranks = [card_rank(c) for c in cards]
    suits = [card_suit(c) for c in cards]
    if n == 3:
        top = _straight_top(ranks)
        flush = suits[0] == suits[1] == suits[2]
        if top and flush:
            cat = {14: HandCategory.HIGH_ROYAL_FLUSH, 13: HandCategory.LOW_ROYAL_FLUSH}
            return (cat.get(top, HandCategory.STRAIGHT_FLUSH), top, suits[0])
        if ranks[0] == ranks[1] == ranks[2]:
            return (HandCategory.THREE_OF_A_KIND, ranks[0], *sorted(suits, reverse=True))
        if top:
            # Suits compared from the top card of the straight down.
            ace = 14 if top == 14 else 1
            order = sorted(zip(ranks, suits), key=lambda rs: ace if rs[0] == 1 else rs[0], reverse=True)
            return (HandCategory.STRAIGHT, top, *(s for _, s in order))
        if flush:
            return (HandCategory.FLUSH, *sorted(ranks, reverse=True), suits[0])
    by_rank: dict[int, list[int]] = {}
    for r, s in zip(ranks, suits):
        by_rank.setdefault(r, []).append(s)
    pairs = [r for r, ss in by_rank.items() if len(ss) == 2]
    if pairs:
        # "Pair, regardless of the number of Cards": judged by the pair alone.
        pr = pairs[0]
        kick = [(r, s) for r, s in zip(ranks, suits) if r != pr] or [_NO_CARD]
        return (HandCategory.PAIR, pr, *sorted(by_rank[pr], reverse=True), *kick[0])
    # "High Card, regardless of the number of Cards": the top card decides.
    ordered = sorted(zip(ranks, suits), reverse=True)
    ordered += [_NO_CARD] * (3 - n)
    return (HandCategory.HIGH_CARD, *(x for rs in ordered for x in rs))


def _mask(cards: Iterable[int]) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


_STRENGTH: dict[int, int] = {}
_CATEGORY: dict[int, HandCategory] = {}


_TABLES_LOCK = threading.Lock()


def _build_tables() -> None:
    """Rank all 23,478 hands of 1 to 3 cards once (about a second and a half on these machines).

    Thread-safe: one thread builds while the others wait, and each table appears whole (one
    ``dict.update``, atomic under the GIL), so no reader sees it half-filled."""
    with _TABLES_LOCK:
        if _STRENGTH and _CATEGORY:
            return
        keyed = sorted((hand_key(h), _mask(h)) for n in (1, 2, 3) for h in combinations(range(NUM_CARDS), n))
        _CATEGORY.update({m: HandCategory(key[0]) for key, m in keyed})
        _STRENGTH.update({m: i for i, (_, m) in enumerate(keyed)})


def prepare_tables() -> None:
    """Build the hand tables now (agents call it when they are made, so no move's clock pays for it)."""
    if not _STRENGTH:
        _build_tables()


def hand_strength(cards: Iterable[int]) -> int:
    """Place of a hand in the total order of all 23,478 hands (0 = weakest)."""
    if not _STRENGTH:
        _build_tables()
    return _STRENGTH[_mask(cards)]


def fast_category(cards: Iterable[int]) -> HandCategory:
    """:func:`hand_category` from the precomputed table."""
    if not _CATEGORY:
        _build_tables()
    return _CATEGORY[_mask(cards)]


def compare_hands(a: Sequence[str | int], b: Sequence[str | int]) -> int:
    """1 when hand ``a`` beats hand ``b``, -1 when ``b`` beats ``a``, 0 for the same hand.

    Hands are lists of card strings such as ``["AS", "10H", "KD"]`` (or card ints).
    """
    ka, kb = hand_key(parse_cards(a)), hand_key(parse_cards(b))
    return (ka > kb) - (ka < kb)


def best_hand(cards: Sequence[int]) -> tuple[int, ...]:
    """The best 1- to 3-card poker hand that can be formed from ``cards`` (empty if none)."""
    combos = [c for n in (1, 2, 3) for c in combinations(cards, n)]
    return max(combos, key=hand_strength, default=())
