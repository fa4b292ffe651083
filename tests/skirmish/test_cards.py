"""The Card System and Determining Skills (Hit the Deck! v1.5), as the seed tells them."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest

import cardwar.envs.skirmish.cards as cards
from cardwar.envs.skirmish.cards import (
    SKILL_RANGE, CardError, Pack, Quality, card_rank, card_to_str, draw_core_skills, draw_skill, pack_cards, parse_card,
)


def ranks(cs) -> list[int]:
    return [card_rank(c) for c in cs]


# ------------------------------------------------------------------ the pack
def test_picture_cards_are_removed_without_the_optional_rules():
    # "if you are not using the optional rules the picture cards should be removed"
    pack = Pack.new(random.Random(0))
    assert len(pack) == 40
    assert Counter(ranks(pack.draw_pile)) == {r: 4 for r in range(1, 11)}


@pytest.mark.parametrize("option, rank", [("knave", 11), ("lady_luck", 12), ("king_and_country", 13)])
def test_each_optional_rule_puts_back_its_picture_cards(option, rank):
    # "These rules require that the specified picture cards are included within the deck."
    cs = pack_cards(**{option: True})
    assert len(cs) == 44 and ranks(cs).count(rank) == 4
    assert set(ranks(cs)) == set(range(1, 11)) | {rank}
    assert len(pack_cards(True, True, True)) == 52


def test_aces_are_low():
    # "Aces are low and low is good!"
    assert card_rank(parse_card("AS")) == 1
    assert cards.test_skill(2, parse_card("AH"))


def test_a_card_at_or_below_the_skill_succeeds():
    # "if it is equal or below the target number then the desired action is performed"
    assert cards.test_skill(5, parse_card("5C"))
    assert cards.test_skill(5, parse_card("4D"))
    assert not cards.test_skill(5, parse_card("6H"))


@pytest.mark.parametrize("skill", [1, 5, 8, 10, 12, 20])
def test_a_ten_always_fails(skill):
    # "In any event, drawing 10 is always a failure."
    for suit in "CDHS":
        assert not cards.test_skill(skill, parse_card("10" + suit))


def test_picture_cards_never_pass_a_skill_test():
    assert not any(cards.test_skill(20, parse_card(r + "S")) for r in "JQK")


def test_a_drawn_card_goes_to_the_discard_pile():
    # "Cards which have been drawn should be placed in a discard pile"
    pack = Pack.stacked(["7H", "3C", "10S"])
    assert card_to_str(pack.draw(random.Random(0))) == "7H"
    assert [card_to_str(c) for c in pack.discards] == ["7H"]
    assert len(pack) == 2


def test_the_pack_is_reshuffled_when_all_cards_have_been_drawn():
    # "when all cards have been drawn the pack should be reshuffled"
    rng = random.Random(3)
    pack = Pack.new(rng)
    first = [pack.draw(rng) for _ in range(40)]
    assert len(pack) == 0 and sorted(first) == sorted(pack_cards())
    nxt = pack.draw(rng)  # the 41st draw reshuffles the 40 discards
    assert pack.reshuffles == 1
    assert len(pack) == 39 and pack.discards == [nxt]
    assert sorted(pack.draw_pile + pack.discards) == sorted(pack_cards())


def test_a_retained_king_stays_out_of_the_reshuffle():
    # "(unless allowed to be retained - see optional rules)": For King and Country!
    rng = random.Random(0)
    pack = Pack.stacked(["KH", "4S"], discards=["2C", "3C"])
    king = pack.draw(rng)
    pack.retain(king)
    pack.draw(rng)
    pack.draw(rng)  # reshuffles 2C, 3C and 4S, not the King
    assert ranks(pack.retained) == [13] and parse_card("KH") not in pack.draw_pile + pack.discards
    pack.play_retained(king)
    assert king in pack.discards and not pack.retained


def test_a_pack_with_every_card_retained_cannot_draw():
    pack = Pack.stacked([])
    with pytest.raises(CardError):
        pack.draw(random.Random(0))


@pytest.mark.parametrize("make_rng", [random.Random, np.random.default_rng])
def test_shuffles_are_deterministic_given_the_rng(make_rng):
    a, b = Pack.new(make_rng(11)), Pack.new(make_rng(11))
    assert a.draw_pile == b.draw_pile
    assert [a.draw(make_rng(1)) for _ in range(60)] == [b.draw(make_rng(1)) for _ in range(60)]


def test_card_strings():
    assert [card_to_str(parse_card(t)) for t in ("as", "T♥", "10d", "KC")] == ["AS", "10H", "10D", "KC"]
    with pytest.raises(CardError):
        parse_card("11S")


# ------------------------------------------------------------------ determining skills
def test_a_regular_soldiers_skill_draw():
    # "draw a card. If the card is in the appropriate range for the troop quality then that is the skill
    # number. If not, then draw another card and continue to do so until a card in the correct range is
    # drawn." A Regular's range is 3 - 6: the 10, the Ace and the 8 are passed over, the 5 is his skill.
    pack = Pack.stacked(["10H", "AS", "8C", "5D", "2H"])
    assert draw_skill(Quality.REGULAR, pack, random.Random(0)) == 5
    assert [card_to_str(c) for c in pack.discards] == ["10H", "AS", "8C", "5D"]
    assert [card_to_str(c) for c in pack.draw_pile] == ["2H"]


def test_the_same_cards_give_each_quality_its_own_skill():
    # 9, 8, 7, 4, 2: Poor (2-5) takes the 4, Regular (3-6) the 4, Veteran (4-7) the 7, Elite (5-8) the 8.
    order = ["9S", "8S", "7S", "4S", "2S"]
    got = {q: draw_skill(q, Pack.stacked(order), random.Random(0)) for q in Quality}
    assert got == {Quality.POOR: 4, Quality.REGULAR: 4, Quality.VETERAN: 7, Quality.ELITE: 8}


@pytest.mark.parametrize("quality, low, high", [(Quality.POOR, 2, 5), (Quality.REGULAR, 3, 6),
                                                (Quality.VETERAN, 4, 7), (Quality.ELITE, 5, 8)])
def test_every_skill_drawn_lies_in_the_qualitys_range(quality, low, high):
    # | Poor | 2 - 5 |  | Regular | 3 - 6 |  | Veteran | 4 - 7 |  | Elite | 5 - 8 |
    assert SKILL_RANGE[quality] == (low, high)
    rng = random.Random(quality)
    seen = Counter()
    for _ in range(400):
        skills = draw_core_skills(quality, rng)
        assert set(skills) == {"shoot", "throw", "melee", "field_craft"}
        seen.update(skills.values())
    assert set(seen) == set(range(low, high + 1))  # each number of the range occurs, nothing else


def test_a_skill_draw_through_the_end_of_the_pack_reshuffles():
    rng = np.random.default_rng(5)
    pack = Pack.stacked(["9C", "10C"], discards=["AC", "6C"])
    assert draw_skill(Quality.REGULAR, pack, rng) == 6 and pack.reshuffles == 1
