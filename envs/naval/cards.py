"""Playing cards of the standard 52-card deck, as small integers.

A card is an ``int`` in ``0..51``: ``suit * 13 + (rank - 1)`` where rank runs
Ace=1 .. King=13 and suits are ordered clubs < diamonds < hearts < spades, the
seed's tie-break order ("suits are ranked Spade>Heart>Diamond>Club").

Card strings are rank then suit: ``"AS"``, ``"10H"``, ``"KD"``. ``"T"`` is
accepted for ten, lower case and the suit symbols ``♠♥♦♣`` are accepted too.
"""

from __future__ import annotations

from collections.abc import Iterable

NUM_CARDS = 52
NUM_RANKS = 13
SUITS = "CDHS"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
SHIP_NAMES = {
    # The seed's names of the Card Ships ("A, Aircraft Carrier is Ace" ...).
    1: "Aircraft Carrier", 2: "Skiff", 3: "Dinghy", 4: "Corvette", 5: "Schooner",
    6: "Keel", 7: "Barge", 9: "Gunboat", 10: "Frigate", 11: "Destroyer",
    12: "Cruiser", 13: "Battleship",
}
_SUIT_ALIASES = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
_RANK_ALIASES = {name: i + 1 for i, name in enumerate(RANK_NAMES)} | {"T": 10, "1": 1}


class CardError(ValueError):
    """A card string that names no card."""


def card_rank(card: int) -> int:
    """Rank 1 (Ace) .. 13 (King)."""
    return card % NUM_RANKS + 1


def card_suit(card: int) -> int:
    """Suit 0 (clubs) .. 3 (spades): the seed's tie-break order."""
    return card // NUM_RANKS


def make_card(rank: int, suit: int) -> int:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return suit * NUM_RANKS + rank - 1


def card_to_str(card: int) -> str:
    """``"10H"``-style name of a card."""
    return RANK_NAMES[card % NUM_RANKS] + SUITS[card // NUM_RANKS]


def parse_card(text: str) -> int:
    """Parse ``"AS"``, ``"10h"``, ``"T♥"`` ... into a card; :class:`CardError` otherwise."""
    t = text.strip().upper()
    if len(t) < 2 or t[-1] not in _SUIT_ALIASES or t[:-1] not in _RANK_ALIASES:
        raise CardError(
            f"not a card: {text!r} (write rank then suit, e.g. AS, 10H, KD, 7C)"
        )
    return make_card(_RANK_ALIASES[t[:-1]], _SUIT_ALIASES[t[-1]])


def parse_cards(cards: Iterable[str | int]) -> list[int]:
    """Parse a list of card strings (ints pass through unchanged)."""
    out = []
    for c in cards:
        if isinstance(c, str):
            out.append(parse_card(c))
        elif isinstance(c, int) and 0 <= c < NUM_CARDS:
            out.append(c)
        else:
            raise CardError(f"not a card: {c!r}")
    return out


def cards_to_str(cards: Iterable[int]) -> str:
    """Space-separated card names."""
    return " ".join(card_to_str(c) for c in cards)
