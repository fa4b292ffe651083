"""Poker-hand ranking of Hit the Deck! (``compare_hands``, ``hand_category``, ``hand_key``).

The seed's section "Poker Hand Rankings" and the project's promise:

* aces are low except in straights: A-2-3 and A-K-Q are straights, K-A-2 is not;
* High Royal Flush (A-K-Q suited) > Low Royal Flush (K-Q-J suited) > straight flush
  > three of a kind > straight > flush > pair > high card; straights and flushes need 3 cards;
* a pair is judged by its rank alone (9-9 beats 7-7-4, A-A is the lowest pair); a high-card
  hand by its top card alone (a single K beats Q-7-3; A-7 is a 7-high hand);
* remaining ties go by suit, spades > hearts > diamonds > clubs: for a pair the highest suit
  in the pair, for high card the top card's suit, for straights the suit of the straight's
  highest card (the ace in A-K-Q) then the next, for flushes the ranks high to low (ace low)
  then the suit.

Hands that meet in play never share a card, so the independent reference comparator below
(``ref_compare``) is written for disjoint hands only and is checked against ``compare_hands``.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter

import pytest

from cardwar.envs.naval import HandCategory, compare_hands, hand_category, hand_key, parse_card

# ---------------------------------------------------------------------------------------------
# Cards, independently of envs.naval.cards (only parse_card is used, and checked here).
# ---------------------------------------------------------------------------------------------

RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]  # A=1 .. K=13
SUITS = ["C", "D", "H", "S"]  # tie-break order clubs < diamonds < hearts < spades
ALL_CARD_STRS = [r + s for s in SUITS for r in RANKS]
STR_TO_INT = {c: parse_card(c) for c in ALL_CARD_STRS}
INT_TO_STR = {v: k for k, v in STR_TO_INT.items()}
RANK_OF = {c: RANKS.index(c[:-1]) + 1 for c in ALL_CARD_STRS}  # ace low: A=1, K=13
SUIT_OF = {c: SUITS.index(c[-1]) for c in ALL_CARD_STRS}  # C=0 D=1 H=2 S=3

ALL_HANDS = [list(h) for n in (1, 2, 3) for h in itertools.combinations(ALL_CARD_STRS, n)]
N_HANDS = 52 + 1326 + 22100


def ints(hand):
    return [STR_TO_INT[c] for c in hand]


def h(text: str) -> list[str]:
    """``h("AS KS QS")`` -> ``["AS", "KS", "QS"]``."""
    return text.split()


# ---------------------------------------------------------------------------------------------
# Independent reference: category by counting, then explicit tie-break steps.
# Categories are plain ints with the same numbering as HandCategory's documented values.
# ---------------------------------------------------------------------------------------------

R_HIGH, R_PAIR, R_FLUSH, R_STRAIGHT, R_TRIPS, R_SF, R_LOW_ROYAL, R_HIGH_ROYAL = range(1, 9)
REF_NAMES = {
    R_HIGH: "HIGH_CARD", R_PAIR: "PAIR", R_FLUSH: "FLUSH", R_STRAIGHT: "STRAIGHT",
    R_TRIPS: "THREE_OF_A_KIND", R_SF: "STRAIGHT_FLUSH", R_LOW_ROYAL: "LOW_ROYAL_FLUSH",
    R_HIGH_ROYAL: "HIGH_ROYAL_FLUSH",
}


def _straight_ranks(hand):
    """The straight's ranks highest first (ace as 14 in A-K-Q, as 1 in A-2-3), or None."""
    if len(hand) != 3:
        return None
    rs = sorted(RANK_OF[c] for c in hand)
    if rs == [1, 12, 13]:
        return [14, 13, 12]
    if rs[1] == rs[0] + 1 and rs[2] == rs[1] + 1:  # no wrap: K-A-2 is [1, 2, 13] and fails
        return [rs[2], rs[1], rs[0]]
    return None


def ref_category(hand) -> int:
    counts = Counter(RANK_OF[c] for c in hand)
    most = max(counts.values())
    if most == 3:
        return R_TRIPS
    if most == 2:
        return R_PAIR
    flush = len(hand) == 3 and len({SUIT_OF[c] for c in hand}) == 1
    straight = _straight_ranks(hand)
    if flush and straight is not None:
        if straight == [14, 13, 12]:
            return R_HIGH_ROYAL
        if straight == [13, 12, 11]:
            return R_LOW_ROYAL
        return R_SF
    if straight is not None:
        return R_STRAIGHT
    if flush:
        return R_FLUSH
    return R_HIGH


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _straight_cards_high_first(hand):
    """(effective rank, suit) of each card of a straight, highest card first."""
    ace_high = sorted(RANK_OF[c] for c in hand) == [1, 12, 13]
    eff = [(14 if (ace_high and RANK_OF[c] == 1) else RANK_OF[c], SUIT_OF[c]) for c in hand]
    return sorted(eff, reverse=True)


def ref_compare(a, b) -> int:
    """1 if a beats b, -1 if b beats a; a and b must be disjoint (no shared card)."""
    assert not set(a) & set(b), "reference is for disjoint hands only"
    ca, cb = ref_category(a), ref_category(b)
    if ca != cb:
        return _sign(ca - cb)
    cat = ca
    if cat in (R_HIGH_ROYAL, R_LOW_ROYAL, R_SF, R_STRAIGHT):
        sa, sb = _straight_cards_high_first(a), _straight_cards_high_first(b)
        # Step 1: the height of the straight (top card, ace high only in A-K-Q).
        if sa[0][0] != sb[0][0]:
            return _sign(sa[0][0] - sb[0][0])
        # Step 2: suits of the straight's cards, highest card first.
        for (_, su_a), (_, su_b) in zip(sa, sb):
            if su_a != su_b:
                return _sign(su_a - su_b)
    elif cat == R_TRIPS:
        ra, rb = RANK_OF[a[0]], RANK_OF[b[0]]  # ace low
        if ra != rb:
            return _sign(ra - rb)
    elif cat == R_FLUSH:
        ra = sorted((RANK_OF[c] for c in a), reverse=True)  # ace low
        rb = sorted((RANK_OF[c] for c in b), reverse=True)
        for x, y in zip(ra, rb):
            if x != y:
                return _sign(x - y)
        if SUIT_OF[a[0]] != SUIT_OF[b[0]]:
            return _sign(SUIT_OF[a[0]] - SUIT_OF[b[0]])
    elif cat == R_PAIR:
        pa = next(r for r, n in Counter(RANK_OF[c] for c in a).items() if n == 2)
        pb = next(r for r, n in Counter(RANK_OF[c] for c in b).items() if n == 2)
        if pa != pb:
            return _sign(pa - pb)  # pair rank alone, ace low; kickers never count
        top_a = max(SUIT_OF[c] for c in a if RANK_OF[c] == pa)
        top_b = max(SUIT_OF[c] for c in b if RANK_OF[c] == pb)
        if top_a != top_b:
            return _sign(top_a - top_b)
    else:  # high card: the top card alone (ace low), then that card's suit
        ta = max(a, key=lambda c: RANK_OF[c])
        tb = max(b, key=lambda c: RANK_OF[c])
        if RANK_OF[ta] != RANK_OF[tb]:
            return _sign(RANK_OF[ta] - RANK_OF[tb])
        if SUIT_OF[ta] != SUIT_OF[tb]:
            return _sign(SUIT_OF[ta] - SUIT_OF[tb])
    raise AssertionError(f"reference found no winner between disjoint hands {a} and {b}")


def beats(a: str, b: str) -> None:
    """Assert hand a beats hand b, both ways round, and that the reference agrees."""
    ha, hb = h(a), h(b)
    assert ref_compare(ha, hb) == 1, f"reference: {a} should beat {b}"
    assert compare_hands(ha, hb) == 1, f"{a} should beat {b}"
    assert compare_hands(hb, ha) == -1, f"{b} should lose to {a}"


def category(text: str) -> HandCategory:
    return HandCategory(hand_category(ints(h(text))))


# ---------------------------------------------------------------------------------------------
# 0. The card encoding used below, and the HandCategory numbering.
# ---------------------------------------------------------------------------------------------


def test_parse_card_is_a_bijection_onto_0_51():
    assert sorted(STR_TO_INT.values()) == list(range(52))


def test_hand_category_numbering():
    assert [(m.name, int(m)) for m in sorted(HandCategory)] == [
        ("HIGH_CARD", 1), ("PAIR", 2), ("FLUSH", 3), ("STRAIGHT", 4), ("THREE_OF_A_KIND", 5),
        ("STRAIGHT_FLUSH", 6), ("LOW_ROYAL_FLUSH", 7), ("HIGH_ROYAL_FLUSH", 8),
    ]


# ---------------------------------------------------------------------------------------------
# 1. The seed's and the examples, each on its own.
# ---------------------------------------------------------------------------------------------


def test_three_threes_beat_three_aces():
    assert category("3C 3D 3H") == HandCategory.THREE_OF_A_KIND
    assert category("AC AD AS") == HandCategory.THREE_OF_A_KIND
    beats("3C 3D 3H", "AC AD AS")


def test_three_twos_beat_three_aces_aces_are_the_lowest_trips():
    beats("2C 2D 2H", "AC AD AH")


def test_pair_of_nines_beats_sevens_with_kicker():
    assert category("9C 9D") == HandCategory.PAIR
    assert category("7S 7H 4C") == HandCategory.PAIR
    beats("9C 9D", "7S 7H 4C")


def test_single_king_beats_queen_seven_three():
    assert category("KC") == HandCategory.HIGH_CARD
    assert category("QS 7H 3D") == HandCategory.HIGH_CARD
    beats("KC", "QS 7H 3D")


def test_ace_two_three_is_a_straight():
    assert category("AC 2D 3H") == HandCategory.STRAIGHT
    assert category("AS 2S 3S") == HandCategory.STRAIGHT_FLUSH


def test_ace_king_queen_is_a_straight():
    assert category("AC KD QH") == HandCategory.STRAIGHT
    assert category("AD KD QD") == HandCategory.HIGH_ROYAL_FLUSH


def test_king_ace_two_is_not_a_straight():
    assert category("KC AD 2H") == HandCategory.HIGH_CARD
    assert category("KS AS 2S") == HandCategory.FLUSH
    assert category("QC KD AH") == HandCategory.STRAIGHT  # Q-K-A, for contrast
    # K-A-2 offsuit is only a king-high hand: even the lowest pair beats it.
    beats("AS AH", "KC AD 2H")


def test_suit_breaks_straight_flush_tie():
    assert category("7H 6H 5H") == HandCategory.STRAIGHT_FLUSH
    beats("7H 6H 5H", "7D 6D 5D")


def test_seed_broadside_example_six_five_four_of_diamonds_beats_three_of_clubs():
    assert category("6D 5D 4D") == HandCategory.STRAIGHT_FLUSH
    beats("6D 5D 4D", "3C")


def test_high_royal_flush_is_ace_king_queen_suited():
    for s in SUITS:
        assert category(f"A{s} K{s} Q{s}") == HandCategory.HIGH_ROYAL_FLUSH


def test_low_royal_flush_is_king_queen_jack_suited():
    for s in SUITS:
        assert category(f"K{s} Q{s} J{s}") == HandCategory.LOW_ROYAL_FLUSH


def test_high_royal_beats_low_royal():
    beats("AC KC QC", "KS QS JS")


def test_low_royal_beats_best_straight_flush():
    beats("KC QC JC", "QS JS 10S")


CATEGORY_EXAMPLES = [  # highest first, all 24 cards distinct so every pair is a legal meeting
    ("HIGH_ROYAL_FLUSH", "AS KS QS"),
    ("LOW_ROYAL_FLUSH", "KH QH JH"),
    ("STRAIGHT_FLUSH", "7D 6D 5D"),
    ("THREE_OF_A_KIND", "2C 2H 2S"),
    ("STRAIGHT", "8C 9D 10S"),
    ("FLUSH", "3C 9C JC"),
    ("PAIR", "4D 4H KC"),
    ("HIGH_CARD", "QC 10H 8D"),
]


def test_category_examples_are_disjoint():
    cards = [c for _, t in CATEGORY_EXAMPLES for c in h(t)]
    assert len(cards) == len(set(cards)) == 24


@pytest.mark.parametrize("name,text", CATEGORY_EXAMPLES)
def test_category_example(name, text):
    assert category(text) == HandCategory[name]
    assert REF_NAMES[ref_category(h(text))] == name


def test_category_order_each_example_beats_every_lower_one():
    for i, (_, hi) in enumerate(CATEGORY_EXAMPLES):
        for _, lo in CATEGORY_EXAMPLES[i + 1:]:
            beats(hi, lo)


def test_weakest_of_each_category_beats_strongest_of_the_next_lower():
    # (weakest hand of a category, strongest hand of the category just below it)
    chain = [
        ("AC KC QC", "KS QS JS"),    # high royal (clubs) > low royal (spades)
        ("KC QC JC", "QS JS 10S"),   # low royal > best straight flush
        ("AC 2C 3C", "KC KD KS"),    # weakest straight flush > best trips
        ("AC AD AH", "AS KS QH"),    # weakest trips (aces low) > best straight (ace high, ace of spades)
        ("AD 2C 3C", "KS QS 10S"),   # weakest straight > best flush
        ("AC 2C 4C", "KS KH QS"),    # weakest flush (A-2-4, ace low) > best pair
        ("AC AD", "KS QH 10D"),      # weakest pair > best three-card high card
        ("AC AD", "KS QS"),          # ... and > K-Q of spades (two cards are never a flush)
    ]
    for hi, lo in chain:
        beats(hi, lo)


def test_ace_pair_is_the_lowest_pair():
    assert category("AC AD") == HandCategory.PAIR
    beats("2C 2D", "AS AH")
    beats("2C 2D", "AS AH KC")
    for r in RANKS[1:]:
        beats(f"{r}C {r}D", "AS AH")


def test_ace_pair_still_beats_any_high_card():
    beats("AC AD", "KS QH 10D")
    beats("AC AD", "KS")


def test_ace_seven_is_a_seven_high_hand_and_loses_to_eight_two():
    assert category("AS 7C") == HandCategory.HIGH_CARD
    beats("8C 2D", "AS 7C")


def test_single_ace_is_the_lowest_high_card():
    beats("2C", "AS")
    beats("3D", "AS 2H")


def test_pair_ignores_the_kicker_and_goes_to_the_pair_suit():
    # same pair rank: the highest suit in the pair decides, the kicker (K vs 2) does not
    beats("9H 9S 2C", "9C 9D KS")
    beats("9C 9S", "9D 9H KS")  # 9S in the pair beats 9H even against a 3-card hand


def test_two_card_pair_vs_three_card_pair_goes_by_rank():
    beats("9C 9D", "7S 7H KS")
    beats("10C 10D QS", "9S 9H")


def test_high_card_is_top_card_only_then_its_suit():
    beats("8D 2C", "8C 7H")              # 8D-2C vs 8C-7H: 8 high both, diamonds > clubs
    beats("8S", "8H 7C 5D")              # lone 8 of spades beats 8-7-5 with an 8 of hearts
    beats("9C", "8S 7S")                 # two cards are not a flush: 9 beats 8


def test_straight_height_a23_is_lowest_qka_is_highest():
    beats("2C 3D 4H", "AS 2S 3H")        # A-2-3 is the lowest straight
    beats("QC KD AH", "JS QS KH")        # Q-K-A is above J-Q-K


def test_straight_suit_tie_is_the_top_card_ace_high_in_ace_king_queen():
    beats("AS KC QC", "AH KS QS")        # ace of spades tops the straight
    beats("AC 2C 3D", "AH 2H 3C")        # in A-2-3 the top card is the 3 (diamonds > clubs)
    beats("7S 6C 5C", "7H 6S 5S")


def test_straight_flush_height_then_suit():
    beats("8C 7C 6C", "7S 6S 5S")
    beats("2C 3C 4C", "AS 2S 3S")        # A-2-3 is the lowest straight flush
    beats("QS JS 10S", "QH JH 10H")


def test_flush_ranks_high_to_low_with_ace_low_then_suit():
    beats("KC JC 2C", "KS JS AS")        # ace low in a flush: K-J-2 beats K-J-A
    beats("KC 9C 3C", "QS JS 9S")        # top card first
    beats("KC 9C 4C", "KS 9S 3S")        # third card decides
    beats("KS 9S 4S", "KH 9H 4H")        # identical ranks: suit


def test_two_suited_cards_are_not_a_flush_nor_two_in_a_row_a_straight():
    assert category("KS QS") == HandCategory.HIGH_CARD
    assert category("2H 3H") == HandCategory.HIGH_CARD


def test_royal_flush_tie_goes_by_suit():
    beats("AS KS QS", "AH KH QH")
    beats("KD QD JD", "KC QC JC")


# ---------------------------------------------------------------------------------------------
# 2. Category counts over every hand of 1..3 cards, and card-by-card agreement of categories.
# ---------------------------------------------------------------------------------------------

# Derivation (52 cards, 13 ranks x 4 suits):
#  1 card : 52 hands, all high card.
#  2 cards: C(52,2) = 1326; pairs 13 * C(4,2) = 78; the other 1248 are high card.
#  3 cards: C(52,3) = 22100.
#   trips            13 * C(4,3)              = 52
#   pairs            13 * C(4,2) * 48 kickers = 3744
#   rank sequences   A23, 234 .. JQK (11) + QKA = 12, each 4^3 = 64 suit patterns
#     suited (4 per sequence): QKA -> 4 high royal, JQK -> 4 low royal, other 10 -> 40 straight flush
#     offsuit                 12 * 60          = 720 straights
#   flushes          4 * C(13,3) - 48 suited sequences = 1144 - 48 = 1096
#   high card        (C(13,3) - 12) rank sets * (64 - 4) offsuit = 274 * 60 = 16440
#   check: 52 + 3744 + 48 + 720 + 1096 + 16440 = 22100
EXPECTED_COUNTS = {
    HandCategory.HIGH_ROYAL_FLUSH: 4,
    HandCategory.LOW_ROYAL_FLUSH: 4,
    HandCategory.STRAIGHT_FLUSH: 40,
    HandCategory.THREE_OF_A_KIND: 52,
    HandCategory.STRAIGHT: 720,
    HandCategory.FLUSH: 1096,
    HandCategory.PAIR: 78 + 3744,
    HandCategory.HIGH_CARD: 52 + 1248 + 16440,
}


def test_expected_counts_add_up():
    from math import comb

    assert comb(52, 1) + comb(52, 2) + comb(52, 3) == N_HANDS == len(ALL_HANDS) == 23478
    assert sum(EXPECTED_COUNTS.values()) == N_HANDS
    assert 4 * comb(13, 3) - 48 == 1096
    assert (comb(13, 3) - 12) * 60 == 16440


def test_reference_category_counts_match_combinatorics():
    got = Counter(ref_category(hand) for hand in ALL_HANDS)
    assert {REF_NAMES[k]: v for k, v in got.items()} == {k.name: v for k, v in EXPECTED_COUNTS.items()}


def test_hand_category_counts_over_all_hands():
    got = Counter(HandCategory(hand_category(ints(hand))) for hand in ALL_HANDS)
    assert dict(got) == EXPECTED_COUNTS


def test_hand_category_matches_reference_for_every_hand():
    bad = [
        (hand, HandCategory(hand_category(ints(hand))).name, REF_NAMES[ref_category(hand)])
        for hand in ALL_HANDS
        if int(hand_category(ints(hand))) != ref_category(hand)
    ]
    assert not bad, f"{len(bad)} hands differ, e.g. {bad[:5]} (hand, got, expected)"


# ---------------------------------------------------------------------------------------------
# 3. Strict total order.
# ---------------------------------------------------------------------------------------------


def test_hand_key_is_distinct_for_every_hand():
    keys = [hand_key(ints(hand)) for hand in ALL_HANDS]
    assert len(set(keys)) == N_HANDS
    # and sortable (comparable with each other), so sorting by it is a strict total order
    order = sorted(range(N_HANDS), key=keys.__getitem__)
    assert all(keys[i] < keys[j] for i, j in zip(order, order[1:]))


def test_hand_key_ignores_card_order():
    rng = random.Random(11)
    for hand in rng.sample(ALL_HANDS, 2000):
        perm = hand[:]
        rng.shuffle(perm)
        assert hand_key(ints(perm)) == hand_key(ints(hand))
        assert compare_hands(perm, hand) == 0


def test_hand_key_category_leads():
    # sorting by hand_key groups hands by category, lowest category first
    keyed = sorted(ALL_HANDS, key=lambda hand: hand_key(ints(hand)))
    cats = [ref_category(hand) for hand in keyed]
    assert cats == sorted(cats)


def test_compare_hands_zero_only_for_the_same_set():
    rng = random.Random(12)
    for hand in rng.sample(ALL_HANDS, 3000):
        assert compare_hands(hand, list(hand)) == 0
        assert compare_hands(hand, list(reversed(hand))) == 0
    for _ in range(20000):
        a, b = rng.choice(ALL_HANDS), rng.choice(ALL_HANDS)
        if set(a) == set(b):
            continue
        c = compare_hands(a, b)
        assert c in (1, -1), (a, b, c)
        assert compare_hands(b, a) == -c, (a, b)


def test_compare_hands_agrees_with_hand_key_including_overlapping_hands():
    rng = random.Random(13)
    for _ in range(20000):
        a, b = rng.choice(ALL_HANDS), rng.choice(ALL_HANDS)
        ka, kb = hand_key(ints(a)), hand_key(ints(b))
        expected = (ka > kb) - (ka < kb)
        assert compare_hands(a, b) == expected, (a, b)


def test_compare_hands_is_transitive_on_a_sample():
    rng = random.Random(14)
    for _ in range(5000):
        a, b, c = (rng.choice(ALL_HANDS) for _ in range(3))
        if compare_hands(a, b) == 1 and compare_hands(b, c) == 1:
            assert compare_hands(a, c) == 1, (a, b, c)


# ---------------------------------------------------------------------------------------------
# 4. Agreement with the reference on disjoint hands.
# ---------------------------------------------------------------------------------------------


def test_agrees_with_reference_on_200k_random_disjoint_pairs():
    rng = random.Random(2024)
    bad = []
    for _ in range(200_000):
        na, nb = rng.randint(1, 3), rng.randint(1, 3)
        cards = rng.sample(ALL_CARD_STRS, na + nb)
        a, b = cards[:na], cards[na:]
        want = ref_compare(a, b)
        got = compare_hands(a, b)
        if got != want:
            bad.append((a, b, want, got))
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:5]} (a, b, expected, got)"


def _hands_by_ref_category():
    by_cat: dict[int, list[list[str]]] = {}
    for hand in ALL_HANDS:
        by_cat.setdefault(ref_category(hand), []).append(hand)
    return by_cat


def test_agrees_with_reference_on_random_disjoint_pairs_of_every_category_pairing():
    # Uniform random pairs are mostly high card; this draws both hands from chosen categories
    # so every tie-break (royals, straight flushes, trips, straights, flushes, pairs) is hit often.
    rng = random.Random(7)
    by_cat = _hands_by_ref_category()
    bad = []
    n = 0
    for ca, cb in itertools.product(sorted(by_cat), repeat=2):
        tries = 0
        done = 0
        while done < 1000 and tries < 20000:
            tries += 1
            a, b = rng.choice(by_cat[ca]), rng.choice(by_cat[cb])
            if set(a) & set(b):
                continue
            done += 1
            n += 1
            want, got = ref_compare(a, b), compare_hands(a, b)
            if got != want:
                bad.append((a, b, want, got))
        assert done == 1000
    assert n == 64 * 1000
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:5]} (a, b, expected, got)"


def test_agrees_with_reference_on_every_same_category_disjoint_pair_of_the_rare_categories():
    # Exhaustive within the small categories (royals, straight flushes, trips): 100 hands.
    by_cat = _hands_by_ref_category()
    rare = by_cat[R_HIGH_ROYAL] + by_cat[R_LOW_ROYAL] + by_cat[R_SF] + by_cat[R_TRIPS]
    assert len(rare) == 100
    bad = []
    for a in rare:
        for b in rare:
            if set(a) & set(b):
                continue
            want, got = ref_compare(a, b), compare_hands(a, b)
            if got != want:
                bad.append((a, b, want, got))
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:5]} (a, b, expected, got)"


# royals of two suits, A-2-3 straight flush and straights, 2-3-4, trips, pairs, flushes, high cards
SUBSET = h("AS KS QS JS AH KH QH 10H 2D 2S 3D 3H 3S 4C")


def test_subset_covers_every_category():
    hands = [list(c) for n in (1, 2, 3) for c in itertools.combinations(SUBSET, n)]
    assert {ref_category(hand) for hand in hands} == set(range(1, 9))


def test_agrees_with_reference_on_every_disjoint_pair_from_a_14_card_subset():
    hands = [list(c) for n in (1, 2, 3) for c in itertools.combinations(SUBSET, n)]
    assert len(hands) == 14 + 91 + 364
    bad = []
    n = 0
    for a in hands:
        for b in hands:
            if set(a) & set(b):
                continue
            n += 1
            want, got = ref_compare(a, b), compare_hands(a, b)
            if got != want:
                bad.append((a, b, want, got))
    assert n > 100_000
    assert not bad, f"{len(bad)} disagreements, e.g. {bad[:5]} (a, b, expected, got)"


def test_the_hand_tables_are_built_once_and_whole_when_many_threads_ask_at_once(monkeypatch):
    """The server's request threads may meet their first battle together: none may read a half-built table."""
    import threading

    from cardwar.envs.naval import hands

    monkeypatch.setattr(hands, "_STRENGTH", {})
    monkeypatch.setattr(hands, "_CATEGORY", {})
    pairs = [(c, (c + 13) % 52) for c in range(52)]
    results, errors = [[] for _ in range(6)], []

    def rank(i: int) -> None:
        try:
            results[i] = [hands.hand_strength(p) for p in pairs]
        except Exception as err:  # noqa: BLE001 - collected and asserted below
            errors.append(err)

    import sys

    first = threading.Thread(target=rank, args=(0,))
    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        first.start()
        while not hands._STRENGTH and first.is_alive():  # the others arrive while the first fills the table
            pass
        others = [threading.Thread(target=rank, args=(i,)) for i in range(1, 6)]
        for t in others:
            t.start()
        for t in (first, *others):
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not errors and all(r == results[0] for r in results) and len(hands._STRENGTH) == 23_478
