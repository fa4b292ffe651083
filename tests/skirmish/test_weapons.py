"""The weapon tables (Hit the Deck! v1.5, "Weapons", "Thrown", "Anti-Tank Weapons", "Anti-Personnel") in hexes.

Each figure is the seed's table line, quoted, at 1 hex = 2 inches (rounded down)."""

from __future__ import annotations

import pytest

from cardwar.envs.skirmish.cards import parse_card
from cardwar.envs.skirmish.vehicles import table_result
from cardwar.envs.skirmish.weapons import (
    ANTI_TANK_TABLE, FIREARMS, FULL_AUTO_PENALTY, FULL_AUTO_ROUNDS, HIGH_EXPLOSIVE, SEED_WEAPONS, THROWN, AT_WEAPONS,
    AntiTank, AntiTankResult, Armour, VehicleEffect, anti_tank_result, inches_to_hexes, vehicle_effect,
)

N, DM, DS = AntiTankResult.NO_EFFECT, AntiTankResult.DAMAGED, AntiTankResult.DISABLED


def test_inches_to_hexes_rounds_down():
    assert [inches_to_hexes(i) for i in (2, 3, 4, 5, 6, 7.5, 12.5, 36)] == [1, 1, 2, 2, 3, 3, 6, 18]


@pytest.mark.parametrize("key, rounds, hexes, deployed", [
    ("pistol", 4, 3, None),   # | Pistol | 4 | 12m (6 inches) |
    ("rifle", 5, 18, None),   # | Rifle | 5 | 72m (36 inches) |
    ("smg1", 6, 6, None),     # | SMG (Cat. 1) | 6 | 24m (12 inches) |
    ("smg2", 6, 9, None),     # | SMG (Cat. 2) | 6 | 36m (18 inches) |
    ("lmg", 6, 9, 18),        # | LMG | 6 | 36m (18 inches) |  | | | 72m (36 inches) on bipod |
])
def test_firearms_table(key, rounds, hexes, deployed):
    w = FIREARMS[key]
    assert (w.rounds_per_turn, w.range_hexes, w.deployed_range_hexes) == (rounds, hexes, deployed)
    assert w.range_for(deployed=False) == hexes
    assert w.range_for(deployed=True) == (deployed or hexes)


def test_the_mmg_reaches_as_far_as_it_sees_and_takes_four_cards_to_set_up():
    # | MMG | | Line of sight |
    # "assembling a belt-fed machine gun on a tripod ... would take 4 "cards" of work by one man"
    mmg = FIREARMS["mmg"]
    assert mmg.range_for() is None and mmg.range_for(deployed=True) is None
    assert mmg.setup_cards == 4 and mmg.full_auto


def test_only_automatic_weapons_fire_fully_automatic():
    # "This is not possible for any weapon in the previous category" (pistols and rifles)
    assert {k for k, w in FIREARMS.items() if w.full_auto} == {"smg1", "smg2", "lmg", "mmg"}
    # "Automatic fire expends three times the number of rounds"; "reduced by 1 for the second target,
    # and reduced by 2 for the third target"
    assert FULL_AUTO_ROUNDS == 3 and FULL_AUTO_PENALTY == (0, 1, 2)


@pytest.mark.parametrize("key, rng, radius, crawl_rng, effect", [
    ("grenade", 5, 2, 2, "wound"),         # | Grenade | 20m (10 inches) | 8m (4 inches) | Red card - wound
    ("petrol_bomb", 5, 1, 2, "on_fire"),   # | Petrol Bomb | 20m (10 inches) | 6m (3 inches) | Red card - on fire*
])
def test_thrown_table(key, rng, radius, crawl_rng, effect):
    t = THROWN[key]
    assert (t.range_hexes, t.radius_hexes, t.effect) == (rng, radius, effect)
    # Crawl: "Thrown weapons ranges halved" (5 inches, 2 hexes)
    assert t.range_for(crawling=True) == crawl_rng


@pytest.mark.parametrize("cat, radius", [
    (AntiTank.L, 2),  # | L | 10m (5 inches) | As grenade | Light Mortar |
    (AntiTank.M, 3),  # | M | 15m (7½ inches) | Ditto | Med. Mortar / Light Gun |
    (AntiTank.H, 5),  # | H | 20m (10 inches) | Ditto | Med. Gun |
])
def test_anti_personnel_blast_radii(cat, radius):
    assert HIGH_EXPLOSIVE[cat].radius_hexes == radius


# The seed's table, row by row: | Anti-Tank | Armour | Spade | Club | Diamond | Heart |
SEED_TABLE = """
L L Disabled Disabled Damaged Damaged
L M NoEffect Disabled Damaged Damaged
L H NoEffect NoEffect Damaged Damaged
L X NoEffect NoEffect NoEffect Damaged
M L Disabled Disabled Disabled Damaged
M M Disabled Disabled Damaged Damaged
M H NoEffect Disabled Damaged Damaged
M X NoEffect NoEffect Damaged Damaged
H L Disabled Disabled Disabled Damaged
H M Disabled Disabled Disabled Damaged
H H Disabled Disabled Damaged Damaged
H X NoEffect Disabled Damaged Damaged
"""
CELLS = [(AntiTank(row.split()[0]), Armour(row.split()[1]), suit, word)
         for row in SEED_TABLE.strip().splitlines() for suit, word in zip("SCDH", row.split()[2:])]
WORD = {"NoEffect": N, "Damaged": DM, "Disabled": DS}


@pytest.mark.parametrize("weapon, armour, suit, word", CELLS,
                         ids=[f"{w.value}-vs-{a.value}-{s}" for w, a, s, _ in CELLS])
def test_each_cell_of_the_anti_tank_table(weapon, armour, suit, word):
    # "drawing a card against the relevant skill number and, if successful, noting the card's suit and
    # consulting the table"; any rank of the suit gives the same cell
    for rank in ("A", "4", "7"):
        assert anti_tank_result(weapon, armour, parse_card(rank + suit)) is WORD[word]


def test_the_table_has_every_weapon_against_every_armour():
    assert len(CELLS) == 48 and len(ANTI_TANK_TABLE) == 12


def test_an_anti_tank_hit_on_an_unarmoured_vehicle_always_disables_it():
    # RULES.md §8.3: the table has no un-armoured row; "any anti-tank hit on an un-armoured vehicle is
    # disabled" (then the odd/even card), whatever the weapon and the suit. The game reads the table through
    # vehicles.table_result; weapons.anti_tank_result stays the seed's raw table for armoured vehicles.
    for w in AntiTank:
        for s in "SCDH":
            for rank in ("A", "6", "9"):
                assert table_result(Armour.U, w, parse_card(rank + s)) is DS


def test_armoured_vehicles_read_the_seeds_table_unchanged():
    for weapon, armour, suit, word in CELLS:
        card = parse_card("5" + suit)
        assert table_result(armour, weapon, card) is anti_tank_result(weapon, armour, card) is WORD[word]


@pytest.mark.parametrize("result, card, effect", [
    (DM, "3S", VehicleEffect.TRACKS),     # Damaged  Odd Card  Track damage - no further movement
    (DM, "AH", VehicleEffect.TRACKS),
    (DM, "4D", VehicleEffect.TURRET),     # Damaged  Even Card Turret damage - unable to traverse
    (DS, "5C", VehicleEffect.ABANDONED),  # Disabled Odd Card  Crew abandons vehicle
    (DS, "2S", VehicleEffect.DESTROYED),  # Disabled Even Card Vehicle destroyed
    (N, "2S", VehicleEffect.NONE),
])
def test_damaged_and_disabled_by_odd_or_even_card(result, card, effect):
    # ``card`` is the further card drawn after the hit (RULES.md §8.3), only its rank read
    assert vehicle_effect(result, parse_card(card)) is effect


def test_a_bazooka_hit_on_a_sherman():
    # A Medium anti-tank weapon (Bazooka) hits Medium armour (Sherman) with the 6 of Diamonds: Damaged (the
    # skill card's suit). Then a new card is drawn for odd or even (RULES.md §8.3): the 7 of Clubs, odd,
    # track damage; had it been the 4 of Spades, even, turret damage.
    hit = parse_card("6D")
    result = anti_tank_result(AT_WEAPONS[SEED_WEAPONS["Bazooka"]], Armour.M, hit)
    assert result is DM
    assert vehicle_effect(result, parse_card("7C")) is VehicleEffect.TRACKS
    assert vehicle_effect(result, parse_card("4S")) is VehicleEffect.TURRET


def test_every_weapon_the_ww2_seed_names_has_a_row():
    assert all(k in FIREARMS or k in AT_WEAPONS for k in SEED_WEAPONS.values())
