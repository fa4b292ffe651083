"""Each side's pack of playing cards, the skill test and the skill draw (Hit the Deck! v1.5, "The Card System").

A card is an ``int`` in ``0..51``: ``suit * 13 + (rank - 1)``, rank Ace=1 .. King=13, suits
clubs < diamonds < hearts < spades (the naval game's encoding, so views and observations agree).
Card strings are rank then suit: ``"AS"``, ``"10H"``, ``"KD"`` (``"T"`` for ten is accepted).

The seed: "each side ... has their own pack of cards"; "if you are not using the optional rules the
picture cards should be removed. Aces are low and low is good!"; "Cards which have been drawn should
be placed in a discard pile (unless allowed to be retained ...) and when all cards have been drawn the
pack should be reshuffled."

Every random choice takes the caller's ``random.Random`` or ``numpy.random.Generator`` (anything with
``shuffle``); there is no global RNG.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, Protocol

NUM_RANKS = 13
SUITS = "CDHS"
RANK_NAMES = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
_SUIT_ALIASES = {"C": 0, "D": 1, "H": 2, "S": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3}
_RANK_ALIASES = {name: i + 1 for i, name in enumerate(RANK_NAMES)} | {"T": 10, "1": 1}

JACK, QUEEN, KING = 11, 12, 13
ALWAYS_FAILS = 10
"""The seed: "In any event, drawing 10 is always a failure."."""


class Suit(IntEnum):
    """The four suits; the anti-tank table keys on them."""

    CLUBS = 0
    DIAMONDS = 1
    HEARTS = 2
    SPADES = 3


class Quality(IntEnum):
    """Troop quality (seed, "Troop Quality")."""

    POOR = 0
    REGULAR = 1
    VETERAN = 2
    ELITE = 3


SKILL_RANGE: dict[Quality, tuple[int, int]] = {
    # | Poor | 2 - 5 |  | Regular | 3 - 6 |  | Veteran | 4 - 7 |  | Elite | 5 - 8 |
    Quality.POOR: (2, 5),
    Quality.REGULAR: (3, 6),
    Quality.VETERAN: (4, 7),
    Quality.ELITE: (5, 8),
}
"""Inclusive "permissible range for skill target numbers" of each troop quality."""


class CardError(ValueError):
    """A card string that names no card, or a draw from a pack with no cards left anywhere."""


class Shuffler(Protocol):
    """``random.Random`` or ``numpy.random.Generator``: both shuffle a list in place."""

    def shuffle(self, x: Any) -> Any: ...


def make_card(rank: int, suit: int) -> int:
    """The card of ``rank`` (1..13) and ``suit`` (0..3)."""
    return suit * NUM_RANKS + rank - 1


def card_rank(card: int) -> int:
    """Rank 1 (Ace, "Aces are low") .. 13 (King)."""
    return card % NUM_RANKS + 1


def card_suit(card: int) -> Suit:
    """The card's suit."""
    return Suit(card // NUM_RANKS)


def is_red(card: int) -> bool:
    """Hearts and diamonds: a grenade wounds on a red card ("Red card - wound")."""
    return card_suit(card) in (Suit.HEARTS, Suit.DIAMONDS)


def is_picture(card: int) -> bool:
    """Jack, Queen or King."""
    return card_rank(card) >= JACK


def card_to_str(card: int) -> str:
    """``"10H"``-style name of a card."""
    return RANK_NAMES[card % NUM_RANKS] + SUITS[card // NUM_RANKS]


def parse_card(text: str) -> int:
    """Parse ``"AS"``, ``"10h"``, ``"T♥"`` ... into a card; :class:`CardError` otherwise."""
    t = text.strip().upper()
    if len(t) < 2 or t[-1] not in _SUIT_ALIASES or t[:-1] not in _RANK_ALIASES:
        raise CardError(f"not a card: {text!r} (write rank then suit, e.g. AS, 10H, KD, 7C)")
    return make_card(_RANK_ALIASES[t[:-1]], _SUIT_ALIASES[t[-1]])


def parse_cards(cards: Iterable[str | int]) -> list[int]:
    """Parse card strings (ints in 0..51 pass through)."""
    out = []
    for c in cards:
        if isinstance(c, str):
            out.append(parse_card(c))
        elif isinstance(c, int) and 0 <= c < 4 * NUM_RANKS:
            out.append(c)
        else:
            raise CardError(f"not a card: {c!r}")
    return out


def pack_cards(knave: bool = False, lady_luck: bool = False, king_and_country: bool = False) -> list[int]:
    """The cards of one side's pack, in suit then rank order.

    Ace to 10 of each suit (40 cards); each optional rule puts back the picture cards it needs: "These
    rules require that the specified picture cards are included within the deck" (The Knave: Jacks,
    Lady Luck: Queens, For King and Country!: Kings)."""
    ranks = list(range(1, 11)) + [r for r, on in ((JACK, knave), (QUEEN, lady_luck), (KING, king_and_country)) if on]
    return [make_card(r, s) for s in Suit for r in ranks]


def test_skill(skill: int, card: int) -> bool:
    """Whether ``card`` passes a test against ``skill``.

    "A card is then drawn, if it is equal or below the target number then the desired action is
    performed"; "drawing 10 is always a failure". A picture card is read as a failure too (its
    meaning, if any, comes from its optional rule)."""
    rank = card_rank(card)
    return rank < ALWAYS_FAILS and rank <= skill


test_skill.__test__ = False  # type: ignore[attr-defined]  # not a pytest test despite its name


@dataclass
class Pack:
    """One side's pack: a face-down draw pile (top first), a discard pile and retained cards.

    A drawn card goes to the discard pile; :meth:`retain` keeps one out of it instead ("unless allowed
    to be retained", e.g. a King for "For King and Country!"). The reshuffle happens at the next draw
    after the last card has been drawn: the discard pile is shuffled into a new draw pile; retained
    cards stay out."""

    draw_pile: list[int]
    discards: list[int] = field(default_factory=list)
    retained: list[int] = field(default_factory=list)
    reshuffles: int = 0

    @classmethod
    def new(cls, rng: Shuffler, knave: bool = False, lady_luck: bool = False,
            king_and_country: bool = False) -> Pack:
        """A shuffled pack: "All packs should be shuffled before play"."""
        cards = pack_cards(knave, lady_luck, king_and_country)
        rng.shuffle(cards)
        return cls(draw_pile=cards)

    @classmethod
    def stacked(cls, top_first: Iterable[str | int], discards: Iterable[str | int] = ()) -> Pack:
        """A pack in a known order (for examples and tests): ``Pack.stacked(["7H", "10S", "3C"])``."""
        return cls(draw_pile=parse_cards(top_first), discards=parse_cards(discards))

    def __len__(self) -> int:
        return len(self.draw_pile)

    def draw(self, rng: Shuffler) -> int:
        """The top card, placed on the discard pile; reshuffles the discards first if the pile is empty."""
        if not self.draw_pile:
            self.reshuffle(rng)
        card = self.draw_pile.pop(0)
        self.discards.append(card)
        return card

    def reshuffle(self, rng: Shuffler) -> None:
        """The discard pile, shuffled, becomes the draw pile: "when all cards have been drawn the pack
        should be reshuffled"."""
        if not self.discards:
            raise CardError("no cards left to reshuffle: every card is retained")
        cards = self.draw_pile + self.discards
        rng.shuffle(cards)
        self.draw_pile, self.discards = cards, []
        self.reshuffles += 1

    def retain(self, card: int) -> None:
        """Keep a just-drawn card out of the discard pile (For King and Country!)."""
        self.discards.remove(card)
        self.retained.append(card)

    def play_retained(self, card: int) -> None:
        """Play a retained card: it goes to the discard pile."""
        self.retained.remove(card)
        self.discards.append(card)


def draw_skill(quality: Quality, pack: Pack, rng: Shuffler) -> int:
    """One skill number by the seed's procedure ("Determining Skills").

    "draw a card. If the card is in the appropriate range for the troop quality then that is the skill
    number. If not, then draw another card and continue to do so until a card in the correct range is
    drawn." Every card drawn goes to ``pack``'s discard pile."""
    low, high = SKILL_RANGE[Quality(quality)]
    while True:
        rank = card_rank(pack.draw(rng))
        if low <= rank <= high:
            return rank


CORE_SKILLS = ("shoot", "throw", "melee", "field_craft")
"""The seed's core skills: Shoot, Throw, Melee, Field Craft."""


def draw_core_skills(quality: Quality, rng: Shuffler, pack: Pack | None = None) -> dict[str, int]:
    """The four core skills, drawn in :data:`CORE_SKILLS` order.

    "Simply shuffle the deck, select the skill and draw a card": without ``pack`` a freshly shuffled
    pack is used, so that generating forces does not disturb the packs used in play."""
    if pack is None:
        pack = Pack.new(rng)
    return {name: draw_skill(quality, pack, rng) for name in CORE_SKILLS}
