"""Combat resolution (RULES.md §2.4, §5, §6, §8.4), read like the seed's examples.

The pure functions of ``combat.py`` (the skill test, scatter, opposed melee) are tested on a small fake board; every
other rule is tested on the function the engine runs (``resolve.effective``, ``resolve.rounds_needed``,
``Soldier.throw_range``) or played through the engine (bursts, blasts, melee, burning, fire-fighting, HE, the combat
order), so each rule has one function and its test checks that function. More examples of the same rules, played
through the engine, are in ``test_rules_examples.py`` (§5.4 bursts, §6 grenades, §5.7 the combat order).
"""

from __future__ import annotations

import random

import pytest

from cardwar.envs.skirmish import resolve
from cardwar.envs.skirmish.actions import GRID
from cardwar.envs.skirmish.cards import Pack, parse_card
from cardwar.envs.skirmish.combat import melee_opposed, scatter, scatter_direction, scatter_hexes, succeeds
from cardwar.envs.skirmish.figures import Stance
from tests.skirmish.conftest import (
    BLUE, RED, act, fig, finish_turn, legal, scenario, stack, start, stay_until_combat, unit,
)

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
    no blast reaches, ``stops`` edges a scatter does not cross. The map of these scatter tests and of
    ``test_vehicles.py``."""

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


def texts(s) -> list[str]:
    return [e.text for e in s.events]


def top(s, side: int) -> int:
    return s.packs[side].draw_pile[0]


def field(**cells: str) -> str:
    """The 10 x 6 field of clear ground with some hexes changed (``E3=","``: light cover on E3)."""
    rows = [["."] * 10 for _ in range(6)]
    for label, g in cells.items():
        cell = GRID.parse(label)
        rows[cell // 24][cell % 24] = g
    return "\n".join((" " if r % 2 else "") + " ".join(row) for r, row in enumerate(rows))


# ---------------------------------------------------------------- effective skill (§2.4): resolve.effective

def shot(base: int, *, wounded: bool = False, ran: bool = False, ground: str = ".") -> int:
    """``resolve.effective`` of a fire by Shooter (Shoot ``base``) on A3 at Red 1 on E3, whose hex is ``ground``."""
    door = ["door_open E3-F3"] if ground in "BK" else None  # a building or bunker needs a way in (§1.3)
    s = start(scenario([fig("Shooter", "A3", skills=base)], [fig("Red 1", "E3", skills=3)], map=field(E3=ground),
                       edges=door))
    shooter = unit(s, "Shooter")
    shooter.fig.wounds, shooter.ran = int(wounded), ran
    return resolve.effective(s, shooter, "fire", [GRID.parse("E3")])


def test_a_wounded_runner_with_shoot_7_fires_at_2():
    # "A wounded runner with shoot 7 fires at 7 -> 4 -> 2."
    assert shot(7, wounded=True, ran=True) == 2


@pytest.mark.parametrize("base, wounded, ran, ground, expected", [
    (5, False, False, ".", 5),
    (5, True, False, ".", 3),    # "One wound - all skills halved (rounding up)"
    (5, False, True, ".", 3),    # Run: "Fire skill halved"
    (6, True, False, ",", 2),    # halve first: 6 -> 3, then light cover: 2 (not (6 - 1) / 2 = 3)
    (7, False, False, "B", 5),   # building cover 2
    (3, True, True, "K", -2),    # 3 -> 2 -> 1, bunker: -2
])
def test_halvings_first_then_subtractions(base, wounded, ran, ground, expected):
    assert shot(base, wounded=wounded, ran=ran, ground=ground) == expected


def test_a_card_at_or_below_the_effective_skill_succeeds_and_a_ten_never_does():
    assert succeeds(4, parse_card("4H")) and not succeeds(4, parse_card("5H"))
    assert not succeeds(12, parse_card("10S"))  # "drawing 10 is always a failure"
    # An effective skill of 0 or less cannot succeed, not even with an Ace.
    assert not succeeds(0, parse_card("AS")) and not succeeds(-1, parse_card("AS"))
    assert succeeds(1, parse_card("AS"))


# ---------------------------------------------------------------- full automatic (§5.4): played through the engine

def burst_field(*reds: str, gunner_skill: int = 6, **ground: str):
    """A gunner with an SMG (Cat. 2, 9 hexes) on A3 and Regular riflemen (skill 3) on ``reds``."""
    blue = [fig("Gunner", "A3", "smg2", gunner_skill)]
    return stay_until_combat(start(scenario(blue, [fig(f"Red {i + 1}", h, skills=3) for i, h in enumerate(reds)],
                                            map=field(**ground))))


def test_a_burst_at_three_adjacent_targets():
    # A German with an MP40 (shoot 6) on A3 sprays three Americans in a line, E2 E3 E4, "adjacent" (1 hex)
    # each to the one before: "as normal for the first target, but is reduced by 1 for the second target, and
    # reduced by 2 for the third target". The second man is behind light cover (1).
    s = burst_field("E2", "E3", "E4", E3=",")
    act(s, "burst", "E2", "E3", "E4")
    stack(s, BLUE, "6H 4S 5C 9D")
    finish_turn(s)
    # 6H at 6: hit; 4S at 6 - 1 - 1 = 4: hit; 5C at 6 - 2 = 4: miss.
    assert {"Gunner burst: 6H against 6", "Gunner burst: 4S against 4", "Gunner burst: 5C against 4"} <= set(texts(s))
    assert [unit(s, n).fig.wounds for n in ("Red 1", "Red 2", "Red 3")] == [1, 1, 0]
    assert top(s, BLUE) == parse_card("9D")  # three cards


def test_a_wounded_gunner_halves_first_then_takes_the_burst_penalty_and_the_cover():
    # RULES.md §2.4 "halvings first ..., then the subtractions (cover, full-auto penalty)": shoot 7 wounded -> 4,
    # the third target in light cover: 4 - 2 - 1 = 1 (not (7 - 2 - 1) / 2 = 2).
    s = burst_field("E2", "E3", "E4", gunner_skill=7, E4=",")
    unit(s, "Gunner").fig.wounds = 1
    act(s, "burst", "E2", "E3", "E4")
    stack(s, BLUE, "9H 9C AS 9D")
    finish_turn(s)
    assert "Gunner burst: AS against 1" in texts(s) and unit(s, "Red 3").fig.wounds == 1


def test_two_targets_two_hexes_apart_take_a_phantom_middle_target():
    # "Two targets within 8m may be engaged, this is achieved by carrying out the procedure as if there were
    # another target between them (those shots are used but miss!)": the far man is third, at -2.
    s = burst_field("E2", "E4")
    act(s, "burst", "E2")
    assert legal(s) == {"E4"}
    act(s, "E4")
    stack(s, BLUE, "5H 4D 9S")
    finish_turn(s)
    assert {"Gunner burst: 5H against 6", "Gunner burst: 4D against 4"} <= set(texts(s))
    assert unit(s, "Red 1").fig.wounds == 1 and unit(s, "Red 2").fig.wounds == 1
    assert top(s, BLUE) == parse_card("9S")  # two cards drawn, not three


def test_two_adjacent_targets_are_first_and_second():
    s = burst_field("E2", "E3")
    act(s, "burst", "E2")
    assert legal(s) == {"E3"}
    act(s, "E3")  # two adjacent targets and nothing adjacent to the second: the burst is complete
    stack(s, BLUE, "AH AC 9S")
    finish_turn(s)
    assert {"Gunner burst: AH against 6", "Gunner burst: AC against 5"} <= set(texts(s))


def test_bursts_that_are_not_allowed():
    # Red 1 E2, Red 2 E3, Red 3 E4 in a line, Red 4 on H3, 3 hexes from E3 and from E4, with no partner.
    s = burst_field("E2", "E3", "E4", "H3")
    act(s, "burst")
    assert legal(s) == {"E2", "E3", "E4"}  # not H3 (one target: single shots), nor the firer's own hex
    act(s, "E3")
    assert "H3" not in legal(s)  # 3 hexes apart: beyond "within 8m"
    assert "E3" not in legal(s)  # the same target twice
    act(s, "E2")
    assert legal(s) == {"done"}  # the third must be adjacent to the second: none is
    s = burst_field("E2", "E3", "E4", "F4")
    act(s, "burst", "E2", "E3", "E4")  # "Up to three targets": the third ends the burst
    assert s.decision.unit != unit(s, "Gunner").uid
    s = burst_field("E3")
    assert legal(s) == {"nothing", "fire"}  # no second target: no burst at all


def test_one_target_engaged_three_times_with_the_option():
    s = stay_until_combat(start(scenario([fig("Gunner", "A3", "smg2", 6)], [fig("Red 1", "E3", skills=3)]),
                                auto_one_target=True))
    act(s, "burst", "E3", "done")
    stack(s, BLUE, "7H 6C 4S 9D")
    finish_turn(s)
    # the burst penalties 0, 1, 2 at the one target: two misses, then a hit at 4
    assert {"Gunner burst: 7H against 6", "Gunner burst: 6C against 5", "Gunner burst: 4S against 4"} <= set(texts(s))
    assert unit(s, "Red 1").fig.wounds == 1


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


# ---------------------------------------------------------------- blast (§6.3): resolve.blast, through the engine

def test_a_grenade_blast_draws_one_colour_card_per_figure_in_unit_order():
    # Thrower (Blue, A3) lands a grenade on E3 (radius 2). In the blast: his friend on F3, Red 1 on E3, Red 2 on
    # E5 (2 hexes), in unit order; not Red 3 on H3 (3 hexes), nor Red 4 inside the building on D4 (its walls
    # shield it). "Red card - wound", "Black card - no effect"; the thrower's own side is not spared.
    sc = scenario([fig("Thrower", "A3", grenades=1), fig("Friend", "F3")],
                  [fig("Red 1", "E3", skills=3), fig("Red 2", "E5", skills=3), fig("Red 3", "H3", skills=3),
                   fig("Red 4", "D4", skills=3)],
                  map=field(D4="B"), edges=["door_open D4-C4"])
    s = stay_until_combat(start(sc))
    act(s, "grenade", "E3")
    stack(s, BLUE, "2C 7H 2S 5D 9C")  # 2C lands (throw 5); Friend 7H, Red 1 2S, Red 2 5D
    finish_turn(s)
    assert [line for line in texts(s) if line.startswith("blast on")] == \
        ["blast on Friend: 7H", "blast on Red 1: 2S", "blast on Red 2: 5D"]
    assert [unit(s, n).fig.wounds for n in ("Friend", "Red 1", "Red 2", "Red 3", "Red 4")] == [1, 0, 1, 0, 0]
    assert top(s, BLUE) == parse_card("9C")


def test_a_blast_lost_off_the_map_touches_no_one():
    # Aimed at A1, the grenade misses (9C against 5): west (4C), 10 m = 3 hexes: off the table, lost.
    sc = scenario([fig("Thrower", "C2", grenades=1)], [fig("Red 1", "A1", skills=3), fig("Red 2", "B1", skills=3)])
    s = stay_until_combat(start(sc))
    act(s, "grenade", "A1")
    stack(s, BLUE, "9C 4C 10H 7H")
    finish_turn(s)
    assert "it scatters to off the table" in texts(s) and not any(t.startswith("blast on") for t in texts(s))
    assert unit(s, "Red 1").fig.wounds == 0 and top(s, BLUE) == parse_card("7H")


def test_a_grenade_is_stopped_by_a_house_and_its_wall_shields_the_man_inside():
    # A house on F3-G3 (its outer edges are walls; a door on its north-west side). Aimed at I3, the grenade
    # misses: west (4) 10 m = 3 hexes, but the house wall stops it on H3. Red 1 inside on G3 is shielded by the
    # wall; Red 2 on I3 draws.
    sc = scenario([fig("Thrower", "J6", grenades=1)], [fig("Red 1", "G3", skills=3), fig("Red 2", "I3", skills=3)],
                  map=field(F3="B", G3="B"), edges=["door_open F3-F2"])
    s = stay_until_combat(start(sc))
    act(s, "grenade", "I3")
    stack(s, BLUE, "9D 4S 10C 2H 3S")
    finish_turn(s)
    assert "it scatters to H3" in texts(s)
    assert [line for line in texts(s) if line.startswith("blast on")] == ["blast on Red 2: 2H"]
    assert unit(s, "Red 2").fig.wounds == 1 and unit(s, "Red 1").fig.wounds == 0


# ---------------------------------------------------------------- melee (§5.6)

@pytest.mark.parametrize("card, wounded", [("4C", 1), ("5C", 0)])
def test_a_melee_strike_wounds_on_success(card, wounded):
    # melee="strike": one draw against the attacker's Melee 4; success wounds.
    s = stay_until_combat(start(scenario([fig("Able", "A3", skills=4)], [fig("Baker", "B3", skills=3)])))
    act(s, "melee", "B3")
    stack(s, BLUE, card)
    finish_turn(s)
    assert unit(s, "Baker").fig.wounds == wounded and unit(s, "Able").fig.wounds == 0


@pytest.mark.parametrize("att, dfn, expected", [
    ("3H", "7S", (False, True)),   # only the attacker succeeds
    ("7H", "2S", (True, False)),   # only the defender succeeds
    ("2H", "4S", (False, True)),   # both: the lower card wounds the other
    ("4H", "2S", (True, False)),
    ("3H", "3S", (True, True)),    # equal cards: both wounded
    ("8H", "9S", (False, False)),  # both fail: nothing
    ("QH", "9S", (False, True)),   # Lady Luck: the attacker's red Queen succeeds (§3.3) ...
    ("QD", "2S", (False, True)),   # ... as an Ace
    ("2H", "QH", (False, True)),   # the defender's Queen is a failed card
])
def test_opposed_melee(att, dfn, expected):
    assert melee_opposed(5, 5, parse_card(att), parse_card(dfn)) == expected


# ---------------------------------------------------------------- fire (§6.4): flow._end_turn, resolve.do_extinguish

def test_a_burning_figure_takes_a_wound_every_second_end_of_turn():
    # "1 wound / 2 rounds if not extinguished": the second end of turn after it caught fire, then the fourth.
    sc = scenario([fig("Torch", "A3"), fig("Other", "A5")], [fig("Red 1", "J6", skills=3)], turns=5)
    s = start(sc)
    unit(s, "Torch").burning = 1  # caught fire this turn
    wounds = []
    for _ in range(4):
        finish_turn(s)
        wounds.append(unit(s, "Torch").fig.wounds)
    assert wounds == [0, 1, 1, 2]


@pytest.mark.parametrize("card, out", [("7S", True), ("10C", True), ("AH", False), ("10D", False)])
def test_black_puts_the_fire_out(card, out):
    # "To extinguish draw a card for each attempt (1 per round per character attempting) - if black fire is put out."
    sc = scenario([fig("Torch", "A3"), fig("Helper", "B3")], [fig("Red 1", "J6", skills=3)])
    s = start(sc)
    unit(s, "Torch").burning = 1
    stay_until_combat(s)
    act(s, "nothing", "extinguish", "A3")
    stack(s, BLUE, card)
    finish_turn(s)
    assert (unit(s, "Torch").burning == 0) == out


# ---------------------------------------------------------------- HE (§8.4): resolve.do_he

@pytest.mark.parametrize("weapon, radius", [
    ("at_light", 2),   # Panzerfaust: | L | 10m |
    ("at_medium", 3),  # Bazooka, Panzerschreck, 37mm PAK: | M | 15m |
    ("at_heavy", 5),   # 75mm PAK: | H | 20m |
])
def test_an_anti_tank_weapon_fires_he_of_its_own_category(weapon, radius):
    # "the weapons (including mortars) will be loaded with high explosive ammunition": RULES.md §8.4 reads the
    # anti-tank weapons (mortars are not in this version, §11). Aimed at A1 and on target: Red 1 on the edge of
    # the blast draws, Red 2 one hex further does not.
    rows = "\n".join((" " if r % 2 else "") + " ".join(["."] * 12) for r in range(8))
    near, far = GRID.label(radius), GRID.label(radius + 1)  # on row 1, radius and radius + 1 hexes from A1
    sc = scenario([fig("Gunner", "A8", "pistol", 5, other_weapons=[weapon])],
                  [fig("Red 1", near, skills=3), fig("Red 2", far, skills=3)], map=rows)
    s = stay_until_combat(start(sc))
    act(s, "he", "A1")
    stack(s, BLUE, "2C 7H 9D")
    finish_turn(s)
    assert [line for line in texts(s) if line.startswith("blast on")] == ["blast on Red 1: 7H"]
    assert top(s, BLUE) == parse_card("9D")


def test_a_rifle_fires_no_he():
    s = stay_until_combat(start(scenario([fig("Rifleman", "A3")], [fig("Red 1", "E3", skills=3)])))
    assert "he" not in legal(s) and "fire" in legal(s)


# ---------------------------------------------------------------- rounds, knives, combat order (§2.2, §5.3, §5.7)

def test_rounds_used_by_a_fire_and_a_burst():
    # "Automatic fire expends three times the number of rounds as normal fire": resolve.rounds_needed.
    s = start(scenario([fig("Rifleman", "A3"), fig("Gunner", "A5", "smg1")], [fig("Red 1", "J6", skills=3)]))
    rifleman, gunner = unit(s, "Rifleman"), unit(s, "Gunner")
    assert resolve.rounds_needed(s, rifleman, False) == 5
    assert resolve.rounds_needed(s, gunner, False) == 6 and resolve.rounds_needed(s, gunner, True) == 18


def test_a_knife_reaches_two_hexes_one_when_prone():
    # RULES.md §5.3: 2 hexes, 1 when prone or crawling ("Thrown weapons ranges halved"): Soldier.throw_range.
    s = start(scenario([fig("Knifer", "A3", knives=1)], [fig("Red 1", "J6", skills=3)]))
    knifer = unit(s, "Knifer")
    assert knifer.throw_range("knife") == 2
    knifer.fig.stance = Stance.PRONE
    assert knifer.throw_range("knife") == 1
    knifer.fig.stance, knifer.crawled = Stance.STANDING, True
    assert knifer.throw_range("knife") == 1


def test_the_combat_order_highest_skill_first_then_lowest_card():
    # "Where order of firing is significant this is determined by Skill number - highest first. In the event of
    # tied Skill numbers the lowest card drawn occurs first." Each fires at his own target; the Runner's target
    # is in light cover (shoot 1 - 1 = 0); the Medic reloads (no draw: last).
    blue = [fig("Rifleman", "A1", skills=4), fig("Sergeant", "A2", skills=6), fig("Gunner", "A3", skills=4),
            fig("Loader", "A4", skills=4), fig("Medic", "A5"), fig("Runner", "A6", skills=1)]
    red = [fig(f"Red {i}", f"F{i}", skills=3) for i in range(1, 7)]
    s = start(scenario(blue, red, map=field(F6=",")))
    unit(s, "Medic").fig.ammo = 0
    stay_until_combat(s)
    act(s, "fire", "F1", "fire", "F2", "fire", "F3", "fire", "F4", "reload", "fire", "F6")
    stack(s, BLUE, "3H 9S 2C 3D AS")  # drawn in declaration order: Rifleman, Sergeant, Gunner, Loader, Runner
    finish_turn(s)
    order = [line.split(" ")[0] for line in texts(s) if line.split(" ")[0] in {u["name"] for u in blue}
             and (" fire: " in line or line.endswith("reloads"))]
    # Sergeant 6; then the 4s by card: Gunner 2C, Rifleman 3H and Loader 3D (the same instant, in unit order);
    # the Runner at 0; the Medic, no draw, last.
    assert order == ["Sergeant", "Gunner", "Rifleman", "Loader", "Runner", "Medic"]
    assert "Runner fire: AS against 0" in texts(s)
