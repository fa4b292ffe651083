"""Combat resolution (RULES.md §2.4, §5, §6, §8.4), read like the seed's examples, on a small fake board."""

from __future__ import annotations

import random

import pytest

from cardwar.envs.skirmish.cards import Pack, parse_card
from cardwar.envs.skirmish.combat import (
    HE_WEAPONS, AreaResult, Burning, area_attack, blast, blast_wounds, burst_penalty, burst_slots, combat_order,
    effective_skill, extinguished, fire_wound_due, he_radius, he_round, is_mortar, knife_range, melee_opposed,
    melee_strike, rounds_used, scatter, scatter_direction, scatter_hexes, succeeds,
)
from cardwar.envs.skirmish.weapons import AntiTank

# ---------------------------------------------------------------- a fake board (odd-r, 24 x 16, as the contract)

W, H = 24, 16
DIRS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))  # 0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE


def axial(cell: int) -> tuple[int, int]:
    row, col = divmod(cell, W)
    return col - (row - (row & 1)) // 2, row


def from_axial(q: int, r: int) -> int | None:
    col = q + (r - (r & 1)) // 2
    return r * W + col if 0 <= col < W and 0 <= r < H else None


def c(label: str) -> int:
    """``"C4"`` -> cell."""
    return (int(label[1:]) - 1) * W + "ABCDEFGHIJKLMNOPQRSTUVWX".index(label[0].upper())


class FakeBoard:
    """Open ground, except: ``ground`` names by cell, ``edges`` names by (min, max) cell pair, ``shielded`` cells
    no blast reaches, ``stops`` edges a scatter does not cross."""

    def __init__(self, ground: dict[int, str] | None = None, edges: dict[tuple[int, int], str] | None = None,
                 shielded: frozenset[int] = frozenset(), stops: frozenset[tuple[int, int]] = frozenset()):
        g = ground or {}
        self.ground = tuple(g.get(i, "CLEAR") for i in range(W * H))
        self.edges = edges or {}
        self.shielded, self.stops = shielded, stops

    def step(self, cell: int, direction: int) -> int | None:
        q, r = axial(cell)
        dq, dr = DIRS[direction]
        return from_axial(q + dq, r + dr)

    def neighbours(self, cell: int) -> tuple[int, ...]:
        return tuple(n for d in range(6) if (n := self.step(cell, d)) is not None)

    def distance(self, a: int, b: int) -> int:
        (q1, r1), (q2, r2) = axial(a), axial(b)
        return (abs(q1 - q2) + abs(r1 - r2) + abs(q1 + r1 - q2 - r2)) // 2

    def edge(self, a: int, b: int, open_doors=frozenset()) -> str:
        return self.edges.get((min(a, b), max(a, b)), "OPEN")

    def sees(self, a, b, *, blockers=frozenset(), open_doors=frozenset(), edge_sight="either_side") -> bool:
        return True

    def hex_cover(self, cell: int) -> int:
        return 0

    def cover(self, target, firer, *, open_doors=frozenset()) -> int:
        return 0

    def blast(self, landing, radius, *, open_doors=frozenset()) -> tuple[int, ...]:
        return tuple(i for i in range(W * H) if self.distance(landing, i) <= radius and i not in self.shielded)

    def scatter_landing(self, target, direction, hexes, *, open_doors=frozenset()) -> int | None:
        cell = target
        for _ in range(hexes):
            nxt = self.step(cell, direction)
            if nxt is None:
                return None
            if (min(cell, nxt), max(cell, nxt)) in self.stops:
                break
            cell = nxt
        return cell


def stacked(*cards: str):
    """A draw function over a stacked pack, and the pack."""
    pack, rng = Pack.stacked(list(cards)), random.Random(0)
    return (lambda: pack.draw(rng)), pack


# ---------------------------------------------------------------- effective skill (§2.4)

def test_a_wounded_runner_with_shoot_7_fires_at_2():
    # "A wounded runner with shoot 7 fires at 7 -> 4 -> 2."
    assert effective_skill(7, wounded=True, ran=True) == 2


@pytest.mark.parametrize("base, wounded, ran, cover, penalty, expected", [
    (5, False, False, 0, 0, 5),
    (5, True, False, 0, 0, 3),    # "One wound - all skills halved (rounding up)"
    (5, False, True, 0, 0, 3),    # Run: "Fire skill halved"
    (6, True, False, 1, 0, 2),    # halve first: 6 -> 3, then light cover: 2 (not (6 - 1) / 2 = 3)
    (7, False, False, 2, 2, 3),   # building cover 2, third target of a burst -2
    (3, True, True, 3, 0, -2),    # 3 -> 2 -> 1, bunker: -2
])
def test_halvings_first_then_subtractions(base, wounded, ran, cover, penalty, expected):
    assert effective_skill(base, wounded=wounded, ran=ran, cover=cover, penalty=penalty) == expected


def test_a_card_at_or_below_the_effective_skill_succeeds_and_a_ten_never_does():
    assert succeeds(4, parse_card("4H")) and not succeeds(4, parse_card("5H"))
    assert not succeeds(12, parse_card("10S"))  # "drawing 10 is always a failure"
    # An effective skill of 0 or less cannot succeed, not even with an Ace.
    assert not succeeds(0, parse_card("AS")) and not succeeds(-1, parse_card("AS"))
    assert succeeds(1, parse_card("AS"))


# ---------------------------------------------------------------- full automatic (§5.4)

def test_a_burst_at_three_adjacent_targets():
    # A German with an MP40 (shoot 6) in A1 sprays three Americans in a line, E5 F5 G5, "adjacent" (1 hex)
    # each to the one before: "as normal for the first target, but is reduced by 1 for the second target, and
    # reduced by 2 for the third target". The second man is behind a waist-high wall (cover 1).
    board = FakeBoard()
    slots = burst_slots(board, c("A1"), [c("E5"), c("F5"), c("G5")])
    assert slots == [c("E5"), c("F5"), c("G5")]
    covers = {c("E5"): 0, c("F5"): 1, c("G5"): 0}
    draw, pack = stacked("6H", "4S", "5C")
    hits = []
    for i, target in enumerate(slots):
        card = draw()
        hits.append(succeeds(effective_skill(6, wounded=False, cover=covers[target], penalty=burst_penalty(i)), card))
    # 6H at 6: hit; 4S at 6 - 1 - 1 = 4: hit; 5C at 6 - 2 = 4: miss.
    assert hits == [True, True, False]
    assert len(pack.discards) == 3


def test_two_targets_two_hexes_apart_take_a_phantom_middle_target():
    # "Two targets within 8m may be engaged, this is achieved by carrying out the procedure as if there were
    # another target between them (those shots are used but miss!)": the far man is third, at -2.
    board = FakeBoard()
    slots = burst_slots(board, c("A1"), [c("E5"), c("G5")])
    assert slots == [c("E5"), None, c("G5")]
    draw, pack = stacked("5H", "4D", "KS")
    results = []
    for i, target in enumerate(slots):
        if target is None:
            continue  # no draw for the phantom
        results.append((target, succeeds(effective_skill(6, wounded=False, penalty=burst_penalty(i)), draw())))
    assert results == [(c("E5"), True), (c("G5"), True)]  # 4D at 6 - 2 = 4
    assert pack.draw_pile == [parse_card("KS")]  # two cards drawn, not three


def test_two_adjacent_targets_are_first_and_second():
    assert burst_slots(FakeBoard(), c("A1"), [c("E5"), c("E6")]) == [c("E5"), c("E6")]


@pytest.mark.parametrize("targets", [
    ["E5", "H5"],              # 3 hexes apart: beyond "within 8m"
    ["E5", "F5", "H5"],        # the third is not adjacent to the second
    ["E5", "F5", "G5", "H5"],  # "Up to three targets"
    ["E5", "E5"],              # the same target twice
    ["A1", "B1"],              # the firer's own hex
    ["E5"],                    # one target: single shots (auto_one_target=false)
    [],
])
def test_bursts_that_are_not_allowed(targets):
    assert burst_slots(FakeBoard(), c("A1"), [c(t) for t in targets]) is None


def test_one_target_engaged_three_times_with_the_option():
    assert burst_slots(FakeBoard(), c("A1"), [c("E5")], one_target=True) == [c("E5")] * 3
    assert [burst_penalty(i) for i in range(3)] == [0, 1, 2]


# ---------------------------------------------------------------- scatter (§6.2)

def test_a_missed_grenade_scatters_by_two_cards():
    # A grenade thrown at H8 misses. "The first card indicates the direction (from the target) and the second
    # the distance": 8H is no direction (7-10 drawn again), the King of Spades (with For King and Country! in
    # the pack) is drawn again too, 3D is north-west; 6C is 6 metres, 2 hexes (nearest, halves up).
    board = FakeBoard()
    draw, pack = stacked("8H", "KS", "3D", "6C", "2H")
    result = scatter(board, c("H8"), draw)
    assert result.direction_cards == tuple(map(parse_card, ("8H", "KS", "3D")))
    assert result.distance_card == parse_card("6C")
    assert (result.direction, result.hexes) == (2, 2)
    assert result.landing == board.step(board.step(c("H8"), 2), 2) == c("G6")
    assert pack.draw_pile == [parse_card("2H")]


@pytest.mark.parametrize("metres, hexes", [(1, 0), (2, 1), (3, 1), (4, 1), (5, 1), (6, 2), (7, 2), (8, 2), (9, 2),
                                           (10, 3)])
def test_scatter_distance_in_metres_to_the_nearest_hex(metres, hexes):
    assert scatter_hexes(metres) == hexes


@pytest.mark.parametrize("rank, direction", [(1, 0), (2, 1), (3, 2), (4, 3), (5, 4), (6, 5), (7, None), (10, None)])
def test_scatter_direction_cards(rank, direction):
    assert scatter_direction(parse_card(f"{rank}S")) == direction


def test_an_ace_of_distance_lands_on_the_target_after_all():
    draw, _ = stacked("4C", "AH")
    assert scatter(FakeBoard(), c("H8"), draw).landing == c("H8")


def test_a_scatter_off_the_map_is_lost_and_a_wall_stops_it():
    draw, _ = stacked("4C", "10H")  # west, 3 hexes from B2: off the map
    assert scatter(FakeBoard(), c("B2"), draw).landing is None
    board = FakeBoard(stops=frozenset({(c("F8"), c("G8"))}))  # a head-high wall west of G8... from H8
    draw, _ = stacked("4C", "10H")
    assert scatter(board, c("H8"), draw).landing == c("G8")


# ---------------------------------------------------------------- blast (§6.3)

def test_a_grenade_blast_draws_one_colour_card_per_figure_in_id_order():
    # Figures 1..5; the grenade bursts on H8 (radius 2). Figure 4 is 3 hexes away, figure 5 is within 2 but
    # behind a building (shielded). The thrower's own side is not spared.
    board = FakeBoard(shielded=frozenset({c("J8")}))
    figures = {3: c("H8"), 1: c("I8"), 2: c("H10"), 4: c("K8"), 5: c("J8")}
    draw, pack = stacked("7H", "2S", "QD", "9C")
    effects = blast(board, c("H8"), 2, figures, draw)
    assert effects == {1: parse_card("7H"), 2: parse_card("2S"), 3: parse_card("QD")}
    assert [fid for fid, card in effects.items() if blast_wounds(card)] == [1, 3]  # "Red card - wound"
    assert pack.draw_pile == [parse_card("9C")]


def test_a_blast_lost_off_the_map_touches_no_one():
    draw, pack = stacked("7H")
    assert blast(FakeBoard(), None, 2, {1: c("A1")}, draw) == {}
    assert len(pack.draw_pile) == 1


def test_a_thrown_grenade_that_misses_scatters_then_bursts():
    # Throw 5, target hex H8 in the open: 7S misses; 1 (east) and 4 m (1 hex): it lands on I8, where the
    # thrower's friend (figure 2) stands; figure 1 at H8 is 1 hex from the burst: both draw.
    board = FakeBoard()
    draw, _ = stacked("AC", "4H", "5D", "8S")
    result = area_attack(board, c("H8"), 5, parse_card("7S"), 2, {1: c("H8"), 2: c("I8"), 9: c("A1")}, draw)
    assert isinstance(result, AreaResult) and not result.hit
    assert result.landing == c("I8") and result.scatter.direction_cards == (parse_card("AC"),)
    assert result.effects == {1: parse_card("5D"), 2: parse_card("8S")}


def test_a_grenade_that_hits_bursts_on_the_target():
    draw, _ = stacked("5D")
    result = area_attack(FakeBoard(), c("H8"), 5, parse_card("2S"), 2, {1: c("H9")}, draw)
    assert result.hit and result.landing == c("H8") and result.scatter is None
    assert result.effects == {1: parse_card("5D")}


# ---------------------------------------------------------------- melee (§5.6)

def test_a_melee_strike_wounds_on_success():
    assert melee_strike(4, parse_card("4C")) and not melee_strike(4, parse_card("5C"))
    assert not melee_strike(3, parse_card("10C"))


@pytest.mark.parametrize("att, dfn, expected", [
    ("3H", "7S", (False, True)),   # only the attacker succeeds
    ("7H", "2S", (True, False)),   # only the defender succeeds
    ("2H", "4S", (False, True)),   # both: the lower card wounds the other
    ("4H", "2S", (True, False)),
    ("3H", "3S", (True, True)),    # equal cards: both wounded
    ("8H", "9S", (False, False)),  # both fail: nothing
])
def test_opposed_melee(att, dfn, expected):
    assert melee_opposed(5, 5, parse_card(att), parse_card(dfn)) == expected


# ---------------------------------------------------------------- fire (§6.4)

def test_a_burning_figure_takes_a_wound_every_second_end_of_turn():
    # "1 wound / 2 rounds if not extinguished": the second end of turn after it caught fire, then the fourth.
    burning = Burning()
    assert [burning.end_turn() for _ in range(5)] == [False, True, False, True, False]
    assert [fire_wound_due(n) for n in range(5)] == [False, False, True, False, True]


def test_black_puts_the_fire_out():
    # "To extinguish draw a card for each attempt ... - if black fire is put out."
    assert extinguished(parse_card("7S")) and extinguished(parse_card("KC"))
    assert not extinguished(parse_card("AH")) and not extinguished(parse_card("10D"))


# ---------------------------------------------------------------- HE (§8.4)

@pytest.mark.parametrize("weapon, category, radius", [
    ("at_light", AntiTank.L, 2),       # Panzerfaust: | L | 10m |
    ("at_medium", AntiTank.M, 3),      # Bazooka, Panzerschreck, 37mm PAK: | M | 15m |
    ("at_heavy", AntiTank.H, 5),       # 75mm PAK: | H | 20m |
    ("light_mortar", AntiTank.L, 2),   # "Light Mortar"
    ("medium_mortar", AntiTank.M, 3),  # "Med. Mortar / Light Gun"
])
def test_which_weapons_fire_he_and_how_big_the_blast(weapon, category, radius):
    assert HE_WEAPONS[weapon] is category
    assert he_round(weapon).category is category and he_radius(weapon) == radius


def test_rifles_fire_no_he_and_only_mortars_need_no_sight():
    assert he_round("rifle") is None
    with pytest.raises(KeyError):
        he_radius("rifle")
    assert is_mortar("light_mortar") and not is_mortar("at_heavy")


def test_a_grenade_on_the_real_board_is_stopped_by_a_house_and_shielded_from_it():
    from cardwar.envs.skirmish.board import Board

    rows = ["." * 24] * 16
    rows[7] = "......BB................"  # a house at G8-H8; its outer edges are walls
    board = Board.from_rows(rows)
    # Aimed at J8, it misses: west (4) 10 m = 3 hexes, but the house wall stops it in I8.
    draw, _ = stacked("4S", "10C", "2H", "3S")
    result = area_attack(board, c("J8"), 3, parse_card("9D"), 2, {1: c("H8"), 2: c("K8")}, draw)
    assert result.landing == c("I8")
    assert result.effects == {2: parse_card("2H")}  # the man inside the house is shielded by its wall


# ---------------------------------------------------------------- rounds, knives, combat order (§2.2, §5.3, §5.7)

def test_rounds_used_by_a_fire_and_a_burst():
    # "Automatic fire expends three times the number of rounds as normal fire"
    assert rounds_used("rifle") == 5 and rounds_used("smg1") == 6 and rounds_used("smg1", full_auto=True) == 18


def test_a_knife_reaches_two_hexes_one_when_prone():
    assert knife_range(False) == 2 and knife_range(True) == 1


def test_the_combat_order_highest_skill_first_then_lowest_card():
    # "Where order of firing is significant this is determined by Skill number - highest first. In the event of
    # tied Skill numbers the lowest card drawn occurs first."
    actions = {
        "rifleman": (4, parse_card("3H")),
        "sergeant": (6, parse_card("9S")),
        "gunner": (4, parse_card("2C")),
        "loader": (4, parse_card("3D")),   # same skill and card as the rifleman: the same instant
        "medic": (5, None),                # reloading: no draw, last
        "runner": (0, parse_card("AS")),
    }
    assert combat_order(actions) == [["sergeant"], ["gunner"], ["rifleman", "loader"], ["runner"], ["medic"]]
