"""The rulebook's examples played through the engine (``state.apply`` with action ids), one test each.

Every test builds a tiny scenario in code (every skill fixed), forces the cards it needs with a stacked pack
and answers the engine's steps by name, citing the section of ``envs/skirmish/RULES.md`` it plays.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.skirmish import flow
from cardwar.envs.skirmish.actions import CHOICE, GRID, Step
from cardwar.envs.skirmish.pending import Stage, declaring
from cardwar.envs.skirmish.cards import CORE_SKILLS, SKILL_RANGE, Pack, Quality, draw_core_skills, make_card
from tests.skirmish.conftest import (
    BLUE, RED, act, at, fig, finish_turn, legal, scenario, shipped, stack, start, stay, stay_until_combat, unit,
)


def distance(a: str, b: str) -> int:
    return GRID.distance(GRID.parse(a), GRID.parse(b))


def texts(s) -> list[str]:
    return [e.text for e in s.events]


def top(s, side: int) -> int:
    return s.packs[side].draw_pile[0]


def card(text: str) -> int:
    return Pack.stacked([text]).draw_pile[0]


# ============================================================================ §2.1 the skill draw at setup
def test_skill_draw_replays_the_seeds_procedure_card_by_card():
    """HtD "Determining Skills": "draw a card. If the card is in the appropriate range for the troop quality then
    that is the skill number. If not, then draw another card and continue to do so" (RULES.md §2.1)."""
    # Regular: 3 - 6. Shoot: 9 and 2 are out, 5 is in. Throw: 10 out, 6 in. Melee: 3. Field craft: 8, 7, A out, 4.
    pack = Pack.stacked("9H 2C 5S 10D 6C 3H 8S 7D AC 4H 2D".split())
    skills = draw_core_skills(Quality.REGULAR, np.random.default_rng(0), pack=pack)
    assert skills == {"shoot": 5, "throw": 6, "melee": 3, "field_craft": 4}
    assert pack.draw_pile == [card("2D")]  # the draws stop at the fourth skill; every card drawn is discarded
    assert pack.discards == Pack.stacked("9H 2C 5S 10D 6C 3H 8S 7D AC 4H".split()).draw_pile


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_setup_draws_each_figures_skills_from_a_fresh_pack_and_leaves_the_play_packs_alone(seed):
    """RULES.md §2.1: "at setup, for each figure and each skill, a freshly shuffled 40-card pack (the play packs are
    untouched) is drawn from until a card lies in the range"; fixed skills are used as given. Replayed here with the
    state's own seeded generator, card by card."""
    sc = shipped("ww2_squads")
    s = start(sc, seed=seed)
    rng = np.random.default_rng(seed)
    for spec, u in zip(sc.figures, s.units):
        cards = [make_card(r, suit) for suit in range(4) for r in range(1, 11)]
        rng.shuffle(cards)
        low, high = SKILL_RANGE[Quality(spec.quality)]
        drawn, i = {}, 0
        for name in CORE_SKILLS:
            while not low <= cards[i] % 13 + 1 <= high:
                i += 1
            drawn[name] = cards[i] % 13 + 1
            i += 1
        drawn.update(spec.skills)
        assert {k: getattr(u.fig.skills, k) for k in CORE_SKILLS} == drawn, spec.name
    for spec in sc.vehicles:  # a closed-down crew draws its four skills too; Shoot is kept
        cards = [make_card(r, suit) for suit in range(4) for r in range(1, 11)]
        rng.shuffle(cards)
    for side in (BLUE, RED):  # then the two play packs, shuffled after every skill draw
        cards = [make_card(r, suit) for suit in range(4) for r in range(1, 11)]
        rng.shuffle(cards)
        assert s.packs[side].draw_pile == cards and s.packs[side].discards == []


def test_drawn_skills_are_uniform_over_the_range():
    """RULES.md §2.1: "Every value in a range has four cards, so the result is uniform over the range"."""
    rng = np.random.default_rng(5)
    counts = np.zeros(11)
    for _ in range(2000):
        counts[draw_core_skills(Quality.VETERAN, rng)["shoot"]] += 1
    assert counts[:4].sum() == counts[8:].sum() == 0
    assert all(abs(c / 2000 - 0.25) < 0.04 for c in counts[4:8])


def test_generic_skills_are_the_upper_middle_of_the_range():
    """RULES.md §2.1, ``skills="generic"``: poor 4, regular 5, veteran 6, elite 7; fixed skills as given."""
    sc = shipped("panzer_road")
    s = start(sc, skills="generic")
    for spec, u in zip(sc.figures, s.units):
        want = {"regular": 5, "veteran": 6}[Quality(spec.quality).name.lower()]
        for k in CORE_SKILLS:
            assert getattr(u.fig.skills, k) == spec.skills.get(k, want)


# ============================================================================ §5.4 full-automatic fire
def burst_scene(**cover):
    """A gunner with an SMG (Cat. 2, 9 hexes) on A3, three riflemen in a line E2, E3, E4."""
    ground = {"E2": ".", "E3": ".", "E4": "."} | cover
    rows = [list(r.split()) for r in """
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .
        . . . . . . . . . .""".strip().splitlines()]
    for label, g in ground.items():
        c = GRID.parse(label)
        rows[c // 24][c % 24] = g
    text = "\n".join(" ".join(r) for r in rows)
    return scenario([fig("Gunner", "A3", "smg2", 6)],
                    [fig("Red 1", "E2", skills=3), fig("Red 2", "E3", skills=3), fig("Red 3", "E4", skills=3)],
                    map=text)


def test_burst_at_three_adjacent_targets_at_minus_one_and_minus_two():
    """HtD: "Up to three targets may be engaged but they must be adjacent ... The Fire skill number is as normal
    for the first target, but is reduced by 1 for the second target, and reduced by 2 for the third target";
    "Automatic fire expends three times the number of rounds" (RULES.md §5.4)."""
    s = stay_until_combat(start(burst_scene()))
    assert legal(s) == {"nothing", "fire", "burst"}
    act(s, "burst")
    assert legal(s) == {"E2", "E3", "E4"}
    act(s, "E2")
    assert legal(s) == {"E3", "E4"}  # adjacent E3, or E4 two hexes on with a phantom between
    act(s, "E3")
    assert legal(s) == {"E4", "done"}  # a third target adjacent to the second, or stop at two
    act(s, "E4")
    # skill 6: 6 hits at 6; 6 misses at 5; 4 hits at 4
    stack(s, BLUE, "6H 6C 4S 9D")
    finish_turn(s)
    assert [unit(s, n).fig.wounds for n in ("Red 1", "Red 2", "Red 3")] == [1, 0, 1]
    assert {"Gunner burst: 6H against 6", "Gunner burst: 6C against 5", "Gunner burst: 4S against 4"} <= set(texts(s))
    assert unit(s, "Gunner").fig.ammo == 30 - 3 * 6
    assert top(s, BLUE) == card("9D")


def test_each_burst_target_deducts_its_own_cover():
    """RULES.md §5.4: "One card per target, in order, at skill, skill - 1, skill - 2, each less that target's own
    cover" (§5.2: light cover 1)."""
    s = stay_until_combat(start(burst_scene(E4=",")))
    act(s, "burst", "E2", "E3", "E4")
    stack(s, BLUE, "AH AC 4S")
    finish_turn(s)
    assert "Gunner burst: 4S against 3" in texts(s)  # 6 - 2 - 1
    assert unit(s, "Red 3").fig.wounds == 0


def test_two_targets_two_hexes_apart_take_a_phantom_middle_that_draws_nothing():
    """HtD: "Two targets within 8m may be engaged, this is achieved by carrying out the procedure as if there were
    another target between them (those shots are used but miss!)": the far target is third, at -2 (RULES.md §5.4)."""
    sc = scenario([fig("Gunner", "A3", "smg2", 6)], [fig("Red 1", "E2", skills=3), fig("Red 3", "E4", skills=3)])
    s = stay_until_combat(start(sc))
    act(s, "burst", "E2")
    assert legal(s) == {"E4"}
    act(s, "E4")  # two slots and a phantom: the burst is complete
    stack(s, BLUE, "6H 4S 9D")
    finish_turn(s)
    assert unit(s, "Red 1").fig.wounds == 1 and unit(s, "Red 3").fig.wounds == 1
    assert "Gunner burst: 4S against 4" in texts(s)
    assert top(s, BLUE) == card("9D")  # two cards: the phantom's draw is not made
    assert unit(s, "Gunner").fig.ammo == 12  # still three times the rounds


def test_a_lone_target_gets_single_shots_unless_auto_one_target():
    """RULES.md §5.4 "One target": full auto needs two targets; ``auto_one_target=true`` fires three draws at
    0, -1, -2 at the one target."""
    sc = scenario([fig("Gunner", "A3", "smg2", 6)], [fig("Red 1", "E3", skills=3)])
    s = stay_until_combat(start(sc))
    assert legal(s) == {"nothing", "fire"}
    s = stay_until_combat(start(sc, auto_one_target=True))
    act(s, "burst", "E3")
    assert "done" in legal(s)
    act(s, "done")
    stack(s, BLUE, "7H 5C 4S 9D")
    finish_turn(s)
    assert {"Gunner burst: 7H against 6", "Gunner burst: 5C against 5", "Gunner burst: 4S against 4"} <= set(texts(s))
    assert unit(s, "Red 1").fig.wounds == 2


# ============================================================================ §6 grenades: scatter and blast
def test_a_missed_grenade_scatters_by_a_direction_then_a_distance_card_and_blasts():
    """HtD: "Where one of these weapons misses an additional two cards are drawn. The first card indicates the
    direction (from the target) and the second the distance." RULES.md §6.2: 7-10 redrawn for the direction, 1 east;
    the distance in metres to the nearest hex (6 m -> 2). §6.3: every figure within 2 hexes of the landing and in
    its sight draws a colour, friends too: red wounds, black no effect."""
    sc = scenario([fig("Thrower", "A3", grenades=1), fig("Friend", "G4")],
                  [fig("Red 1", "E3", skills=3), fig("Red 2", "H3", skills=3), fig("Red 3", "J3", skills=3)])
    s = stay_until_combat(start(sc))
    act(s, "grenade")
    assert "E3" in legal(s) and "G3" not in legal(s)  # 20 m = 5 hexes: E3 is 4 away, G3 6
    act(s, "E3")
    # throw 5: 7C misses; direction 8C again, AD east; distance 6S = 2 hexes: G3. Blast: Friend 2H, Red 1 5H, Red 2 3S
    stack(s, BLUE, "7C 8C AD 6S 2H 5H 3S 9D")
    red_before = list(s.packs[RED].draw_pile)
    finish_turn(s)
    assert "Thrower grenade: 7C against 5" in texts(s)
    assert "it scatters to G3" in texts(s)
    assert [unit(s, n).fig.wounds for n in ("Friend", "Red 1", "Red 2", "Red 3")] == [1, 1, 0, 0]
    assert top(s, BLUE) == card("9D")  # Red 3 on J3 is 3 hexes from G3: no draw
    assert s.packs[RED].draw_pile == red_before  # every draw of the action from the thrower's pack (§3.1)
    assert unit(s, "Thrower").fig.grenades == 0


def test_a_grenade_on_target_deducts_the_hex_cover_and_blasts_there():
    """RULES.md §6.1 ``thrown_cover="hex"``: the target hex's cover is deducted; success lands on it."""
    rows = OPEN_WITH(E3=",")
    sc = scenario([fig("Thrower", "A3", skills=(5, 5, 5, 5), grenades=1)], [fig("Red 1", "E3", skills=3)], map=rows)
    s = stay_until_combat(start(sc))
    act(s, "grenade", "E3")
    stack(s, BLUE, "4C 9H 9D")  # 4 against 5 - 1 = 4 lands; Red 1 draws 9H: wounded
    finish_turn(s)
    assert "Thrower grenade: 4C against 4" in texts(s)
    assert unit(s, "Red 1").fig.wounds == 1 and top(s, BLUE) == card("9D")


def OPEN_WITH(**cells: str) -> str:
    rows = [["."] * 10 for _ in range(6)]
    for label, g in cells.items():
        c = GRID.parse(label)
        rows[c // 24][c % 24] = g
    return "\n".join((" " if r % 2 else "") + " ".join(row) for r, row in enumerate(rows))


# ============================================================================ §8.3 the anti-tank table
SEED_TABLE = """
L L Disabled  Disabled  Damaged   Damaged
L M No_effect Disabled  Damaged   Damaged
L H No_effect No_effect Damaged   Damaged
L X No_effect No_effect No_effect Damaged
M L Disabled  Disabled  Disabled  Damaged
M M Disabled  Disabled  Damaged   Damaged
M H No_effect Disabled  Damaged   Damaged
M X No_effect No_effect Damaged   Damaged
H L Disabled  Disabled  Disabled  Damaged
H M Disabled  Disabled  Disabled  Damaged
H H Disabled  Disabled  Damaged   Damaged
H X No_effect Disabled  Damaged   Damaged
"""
"""The seed's table as printed (| Anti-Tank | Armour | Spade | Club | Diamond | Heart |), copied by hand."""
SUIT_LETTER = {"Spade": "S", "Club": "C", "Diamond": "D", "Heart": "H"}
CELLS = [(w, a, suit, result) for line in SEED_TABLE.strip().splitlines()
         for w, a, *results in [line.split()] for suit, result in zip(SUIT_LETTER, results)]
AT_KEY = {"L": "at_light", "M": "at_medium", "H": "at_heavy"}


def tank_scene(weapon: str, armour: str, **vehicle):
    return scenario([fig("Gunner", "A3", "pistol", 5, other_weapons=[AT_KEY[weapon]])], [fig("Red 1", "J6", skills=3)],
                    red_vehicles=[{"name": "Panzer", "kind": "tracked", "armour": armour, "hex": "E3", "facing": "W",
                                   "weapons": ["lmg"], **vehicle}])


def fire_at_tank(sc, cards: str):
    s = stay_until_combat(start(sc))
    act(s, "anti_tank", "E3")
    stack(s, BLUE, cards)
    finish_turn(s)
    return s, unit(s, "Panzer").v


@pytest.mark.parametrize("parity", ["odd", "even"])
@pytest.mark.parametrize("weapon, armour, suit, result", CELLS, ids=[f"{w}-vs-{a}-{s}" for w, a, s, _ in CELLS])
def test_every_cell_of_the_anti_tank_table(weapon, armour, suit, result, parity):
    """HtD: "drawing a card against the relevant skill number and, if successful, noting the card's suit and
    consulting the table"; then "Damaged: Odd Card Track damage - no further movement, Even Card Turret damage -
    unable to traverse; Disabled: Odd Card Crew abandons vehicle, Even Card Vehicle destroyed" (RULES.md §8.3:
    the suit of the successful skill card, then a new card for odd or even)."""
    follow = "7C" if parity == "odd" else "8C"
    s, v = fire_at_tank(tank_scene(weapon, armour), f"3{SUIT_LETTER[suit]} {follow} 9D")
    assert f"Gunner anti_tank: 3{SUIT_LETTER[suit]} against 5" in texts(s)
    state = (v.immobilised, v.turret_jammed, v.abandoned, v.destroyed)
    if result == "No_effect":
        assert state == (False, False, False, False)
        assert top(s, BLUE) == card(follow)  # no odd/even card is drawn
        return
    want = {("Damaged", "odd"): (True, False, False, False), ("Damaged", "even"): (False, True, False, False),
            ("Disabled", "odd"): (False, False, True, False), ("Disabled", "even"): (False, False, False, True)}
    assert state == want[(result, parity)]
    assert top(s, BLUE) == card("9D")
    assert unit(s, "Panzer").active == (result == "Damaged")


def test_a_missed_anti_tank_shot_does_nothing_and_spends_the_round():
    s, v = fire_at_tank(tank_scene("M", "L"), "6S 8C")
    assert not (v.immobilised or v.turret_jammed or v.abandoned or v.destroyed)
    assert unit(s, "Gunner").at_ammo == 5 and top(s, BLUE) == card("8C")


def test_any_anti_tank_hit_disables_an_unarmoured_vehicle():
    """RULES.md §8.3 "Unarmoured target": "any anti-tank hit on an un-armoured vehicle is disabled"."""
    s, v = fire_at_tank(tank_scene("L", "U", damage_points=3), "3S 8C")
    assert v.destroyed and not unit(s, "Panzer").active


# ============================================================================ §2.4 wounds
def test_a_wound_halves_every_skill_rounding_up():
    """HtD: "One wound - all skills halved (rounding up)"; "in all cases, it should be rounded up" (RULES.md §2.4):
    shoot 5 -> 3."""
    sc = scenario([fig("Shooter", "A3", skills=5)], [fig("Red 1", "E3", skills=3)])
    s = start(sc)
    unit(s, "Shooter").fig.wounds = 1
    stay_until_combat(s)
    act(s, "fire", "E3")
    stack(s, BLUE, "4H 9D")
    finish_turn(s)
    assert "Shooter fire: 4H against 3" in texts(s) and unit(s, "Red 1").fig.wounds == 0


@pytest.mark.parametrize("mode, fit, wounded", [("crawl", 1, 1), ("search", 2, 1), ("walk", 4, 2), ("run", 6, 3)])
def test_a_wound_halves_movement_rounding_up(mode, fit, wounded):
    """HtD: "all movement halved"; RULES.md §2.4 "also rounding up": walk 4 -> 2, run 6 -> 3, search 2 -> 1, crawl 1."""
    sc = scenario([fig("Mover", "E3"), fig("Other", "A6")], [fig("Red 1", "J6", skills=3)])
    for wounds, allowance in ((0, fit), (1, wounded)):
        s = start(sc)
        unit(s, "Mover").fig.wounds = wounds
        act(s, mode)
        far = max(distance("E3", d) for d in legal(s))
        assert far == allowance
        assert {d for d in legal(s) if distance("E3", d) <= allowance} == \
            {GRID.label(c) for c in range(384) if 1 <= GRID.distance(c, GRID.parse("E3")) <= allowance
             and c % 24 < 10 and c // 24 < 6} - {"A6", "J6"}  # not onto a friend, nor an enemy


def test_an_incapacitated_figure_is_never_asked_and_never_targeted():
    """HtD: "Two wounds - incapacitated - plays no further part in the game"; RULES.md §2.4: "cannot be targeted on
    purpose"."""
    sc = scenario([fig("Down", "A3"), fig("Up", "A5")], [fig("Red 1", "E3", skills=3)])
    s = start(sc)
    unit(s, "Down").fig.wounds = 2
    finish_turn(s)  # the turn under way had queued it already; from the next turn on it is out
    asked = set()
    while s.turn == 2 and not s.over:
        asked.add(s.decision.unit)
        if s.decision.seat == RED and s.decision.step == Step.ACTION:
            act(s, "fire")
            assert legal(s) == {"A5"}  # only the active figure is a target
            stack(s, RED, "9S")
            act(s, "A5")
        elif s.decision.step == Step.MODE:
            stay(s)
        else:
            act(s, "nothing" if CHOICE["nothing"] in s.decision.legal else "done")
    assert unit(s, "Down").uid not in asked and unit(s, "Up").uid in asked


def test_three_wounds_kill_and_free_the_hex():
    """HtD: "Three wounds mean a character is dead. All wounds are cumulative." RULES.md §2.4: a blast that covers an
    incapacitated figure's hex still draws for it; dead, it is removed from play but counted for victory."""
    sc = scenario([fig("Down", "E3"), fig("Up", "A6")], [fig("Thrower", "H3", grenades=1, skills=5)])
    s = start(sc)
    unit(s, "Down").fig.wounds = 2
    stay_until_combat(s)
    act(s, "nothing")  # Up
    stack(s, RED, "AC 5H 9D")  # lands on E3; Down draws 5H: the third wound
    points = list(s.casualty_points)
    act(s, "grenade", "E3")
    finish_turn(s)
    down = unit(s, "Down")
    assert down.fig.wounds == 3 and not down.on_table and s.unit_at(GRID.parse("E3")) is None
    assert "Down is dead" in texts(s)
    assert s.casualty_points[RED] == points[RED] + 1


# ============================================================================ §5.5 opportunity fire
def watch_scene():
    return scenario([fig("Runner", "A2", skills=5)], [fig("Watcher", "E6", skills=6)], turns=2)


def run_into_the_watchers_sight(s):
    act(s, "run", "G2", "standing")  # six hexes along row 2, one every 2 ticks (§4.3)
    stay(s, watch=True)
    return s


def test_opportunity_fire_meets_a_runner_mid_move():
    """HtD: "Characters not moving may declare Opportunity Fire on those moving. This allows them to resolve their
    fire (as in the Combat Phase) at the optimum point"; RULES.md §5.5 "interrupt": each time a moving enemy enters
    a hex where the watcher could fire at it, the watcher's side decides: fire now or hold."""
    s = run_into_the_watchers_sight(start(watch_scene()))
    assert s.stage == "moving" and s.tick == 2 and at(s, "Runner") == "B2"
    assert s.decision.seat == RED and s.decision.step == Step.INTERRUPT and legal(s) == {"B2", "hold"}
    act(s, "hold")  # the next hex: C2 at tick 4
    assert s.tick == 4 and at(s, "Runner") == "C2" and legal(s) == {"C2", "hold"}
    stack(s, RED, "2H 9D")
    act(s, "C2")
    assert unit(s, "Runner").fig.wounds == 1 and "Watcher opens opportunity fire" in texts(s)
    assert s.stage == "declare_combat"  # the watcher fired once: no more interrupts this turn
    assert at(s, "Runner") not in ("F2", "G2")  # the wound slowed it (§5.5)
    assert s.decision.unit == unit(s, "Runner").uid
    act(s, "nothing")  # Runner; the Watcher carried out opportunity fire: no combat action (HtD, §5.5)
    assert s.turn == 2


def test_a_wound_halves_the_rest_of_the_move_rounding_up():
    """RULES.md §5.5: "A wound halves the mover's remaining movement (rounded up)"; §2.4 "all movement halved ...
    also rounding up". Wounded on B2 with five hexes of its run left, the runner goes on ceil(5 / 2) = 3: E2."""
    s = run_into_the_watchers_sight(start(watch_scene()))
    stack(s, RED, "2H 9D")
    act(s, "B2")
    assert unit(s, "Runner").fig.wounds == 1
    assert at(s, "Runner") == "E2"


def test_incapacitation_stops_a_mover_where_it_is_hit():
    """RULES.md §5.5: "incapacitation stops it there"."""
    s = start(watch_scene())
    unit(s, "Runner").fig.wounds = 1  # wounded already: run 3 hexes
    act(s, "run", "D2", "standing")
    stay(s, watch=True)
    stack(s, RED, "2H 9D")
    act(s, "B2")
    assert unit(s, "Runner").fig.wounds == 2 and at(s, "Runner") == "B2"


def test_a_watcher_that_holds_fire_may_still_act_in_combat():
    """RULES.md §5.5: "a figure that declared opportunity fire but did not fire may act in the combat phase"."""
    s = run_into_the_watchers_sight(start(watch_scene()))
    while s.stage == "moving":
        act(s, "hold")
    act(s, "nothing")  # Runner
    assert s.decision.unit == unit(s, "Watcher").uid and "fire" in legal(s)


def test_opportunity_fire_after_the_move_picks_a_hex_of_the_path():
    """RULES.md §5.5 ``opportunity_fire="after_move"``: all moves finish, then the watcher picks any hex of a mover's
    path it could have fired at; the move is not cut short."""
    s = run_into_the_watchers_sight(start(watch_scene(), opportunity_fire="after_move"))
    assert s.stage == "after_move_fire" and at(s, "Runner") == "G2"
    assert legal(s) == {"hold"} | {f"{c}2" for c in "BCDEFG"}
    stack(s, RED, "2H 9D")
    act(s, "C2")
    assert unit(s, "Runner").fig.wounds == 1 and at(s, "Runner") == "G2"


# ============================================================================ §4.3 moves
def test_a_mover_passes_through_a_friends_hex():
    """RULES.md §4.3: "a mover may pass through a hex holding a friend (sharing it for a tick) but may not end its
    move there". The cheapest path from A3 to D3 runs through B3, where a friend stays."""
    sc = scenario([fig("Walker", "A3"), fig("Friend", "B3")], [fig("Red 1", "J6", skills=3)])
    s = start(sc)
    act(s, "walk")
    assert "B3" not in legal(s) and "D3" in legal(s)
    assert s.cursor.paths[GRID.parse("D3")][0] == GRID.parse("B3")
    act(s, "D3", "standing")
    stay(s)
    stay(s)
    assert at(s, "Walker") == "D3"


def test_a_mover_stops_before_an_enemy_it_did_not_know_of():
    """RULES.md §4.3: "A mover whose next hex holds an enemy it did not know of (hidden by 1.4) stops before it".
    Woods on D2, D3 and D4 hide the enemy on E3 from the walker on C3 (§1.4)."""
    sc = scenario([fig("Walker", "C3")], [fig("Hidden", "E3", skills=3)], map=OPEN_WITH(D2="W", D3="W", D4="W"))
    s = start(sc)
    assert unit(s, "Hidden").uid not in s.seen[BLUE]
    act(s, "walk")
    hidden = GRID.parse("E3")
    dest, path = next((d, p) for d, p in sorted(s.cursor.paths.items()) if hidden in p[:-1])
    act(s, dest, "standing")
    stay(s)
    before = path[path.index(hidden) - 1] if path.index(hidden) else GRID.parse("C3")
    assert unit(s, "Walker").cell == before and unit(s, "Hidden").cell == hidden


# ============================================================================ §1.2 mines
def mine_scene():
    return scenario([fig("Walker", "A3", skills=(5, 5, 5, 6))], [fig("Red 1", "J6", skills=3)],
                    mines=[{"hex": "C3", "side": "Red"}])


@pytest.mark.parametrize("mode, card, spotted", [("walk", "3S", True), ("walk", "4S", False), ("search", "6S", True),
                                                 ("run", "AS", False)])
def test_a_mine_is_spotted_by_field_craft_or_goes_off(mode, card, spotted):
    """HtD Walk note: "Chance of spotting mines, booby traps etc. Halved"; RULES.md §1.2: a figure entering a mined
    hex draws against Field Craft (halved when walking; not possible when running); success: the mine is seen and
    the figure stops in the hex before; failure: the mine goes off as a grenade burst on the hex. Field craft 6:
    walking 3, searching 6, running 0."""
    s = start(mine_scene())
    act(s, mode, "C3" if mode == "search" else "E3", "standing")
    stack(s, BLUE, f"{card} 9D")
    stack(s, RED, "5H 9C")
    stay(s)
    assert GRID.parse("C3") not in s.mines
    if spotted:
        assert at(s, "Walker") == "B3" and "Walker spots a mine" in texts(s)
        assert unit(s, "Walker").fig.wounds == 0 and top(s, RED) == card_of("5H")
    else:
        assert "a mine goes off under Walker" in texts(s)
        assert unit(s, "Walker").fig.wounds == 1  # the burst's colour card, from the layer's pack: 5H, red
        assert top(s, RED) == card_of("9C")


def card_of(text: str) -> int:
    return card(text)


# ============================================================================ §8 vehicles with riders
def riders_scene():
    return scenario([fig("Gunner", "A3", "pistol", 5, other_weapons=["at_medium"])],
                    [fig("Rider", "E3", skills=3, crew_of="Panzer"), fig("Red 2", "J6", skills=3)],
                    red_vehicles=[{"name": "Panzer", "kind": "tracked", "armour": "L", "hex": "E3", "facing": "W",
                                   "weapons": ["lmg"]}])


def test_an_anti_tank_hit_on_a_vehicle_carrying_riders_hits_the_vehicle():
    """RULES.md §8.1-8.3: riders on a tank deck are exposed crew; an anti-tank weapon is fired at the vehicle.
    Medium against Light, a spade: Disabled; an even card: destroyed."""
    s = stay_until_combat(start(riders_scene()))
    act(s, "anti_tank", "E3")
    stack(s, BLUE, "3S 8C 9D")
    finish_turn(s)
    assert unit(s, "Panzer").v.destroyed


def test_riders_move_with_their_vehicle():
    """RULES.md §8.1: "Riders move with the vehicle"."""
    s = start(riders_scene())
    stay(s)  # Gunner
    stay(s)  # Rider
    stay(s)  # Red 2
    act(s, "speed_1")
    dest = max(s.decision.legal, key=lambda c: GRID.distance(c, GRID.parse("E3")))
    s.apply(dest)
    finish_turn(s)
    assert unit(s, "Panzer").cell == dest and unit(s, "Rider").cell == dest


# ============================================================================ §5.7 the combat order
def duel(blue_card, red_card, blue_skill=10, red_skill=10, blue_wounds=1, red_wounds=1, **kw):
    """Able on A3 and Baker on E3 fire at each other in the combat phase, with these cards on top of their packs
    (each card is drawn once both sides have declared, §5.7)."""
    sc = scenario([fig("Able", "A3", skills=blue_skill)], [fig("Baker", "E3", skills=red_skill)], turns=3)
    s = start(sc, **kw)
    unit(s, "Able").fig.wounds, unit(s, "Baker").fig.wounds = blue_wounds, red_wounds
    stay_until_combat(s)
    stack(s, BLUE, blue_card)
    stack(s, RED, red_card)
    act(s, "fire", "E3", "fire", "A3")
    return s


@pytest.mark.parametrize("blue_card, red_card, first", [("4H", "3H", "Baker"), ("3H", "4H", "Able")])
def test_equal_skills_fire_lower_card_first_and_a_fallen_figure_loses_its_action(blue_card, red_card, first):
    """HtD: "Where order of firing is significant this is determined by Skill number - highest first. In the event
    of tied Skill numbers the lowest card drawn occurs first." RULES.md §5.7: "An action whose turn comes after its
    figure is incapacitated is lost." Both wounded: skill 10 -> 5, so one hit incapacitates."""
    s = finish_turn(duel(blue_card, red_card))
    second = {"Able": "Baker", "Baker": "Able"}[first]
    assert unit(s, second).fig.wounds == 2 and unit(s, first).fig.wounds == 1
    assert s.over and s.winner == unit(s, first).side  # the loser has no active figure left (§10)


def test_the_higher_skill_fires_first_even_against_a_lower_card():
    """RULES.md §5.7: order by effective skill (after wounds), highest first; ties only then by the card."""
    s = finish_turn(duel("6H", "AH", blue_skill=6, blue_wounds=0))  # Able 6, Baker 10 wounded -> 5
    assert unit(s, "Baker").fig.wounds == 2 and unit(s, "Able").fig.wounds == 0


def test_same_skill_and_same_card_resolve_at_the_same_instant():
    """RULES.md §5.7: "same skill and same card: at the same instant (both results apply even if each disables the
    other)"; §10: with no active figure on either side the game ends, a draw."""
    s = finish_turn(duel("3H", "3S"))
    assert unit(s, "Able").fig.wounds == 2 and unit(s, "Baker").fig.wounds == 2
    assert s.over and s.winner is None and s.returns() == [0.0, 0.0]


# ============================================================================ §7.2 the activation deck
def deck_scene(**kw):
    sc = scenario([fig("Pitts", "A2", team="One"), fig("Lee", "A4", team="One"), fig("Estes", "A6", team="Two")],
                  [fig("Red 1", "J6", skills=3)], turns=2)
    return start(sc, sequence="deck", **kw)


def deal(s, *cards):
    """Stack the activation deck: these cards come next, in this order (RULES.md §7.2)."""
    s.stage, s.decision, s.cursor = Stage.DECK, None, None
    s.deck = list(reversed(cards))
    flow.advance(s)
    return s


def test_the_default_deck_is_the_seeds_example():
    """WW2: "AMERICAN FIRE TEAM ONE" three times, "AMERICAN FREE MOVE", the same for fire team two and for the
    Germans; "The cards of each side are shuffled together into one mixed deck" (RULES.md §7.2)."""
    s = start(shipped("ww2_squads"), sequence="deck")
    cards = sorted(s.deck + [s.card])
    want = sorted([("team", side, t) for side in (0, 1) for t in (0, 1) for _ in range(3)]
                  + [("free", side) for side in (0, 1) for _ in range(2)])
    assert cards == want
    orders = {tuple(start(shipped("ww2_squads"), seed=k, sequence="deck").deck) for k in range(5)}
    assert len(orders) > 1  # shuffled


def test_a_team_card_activates_each_figure_of_the_team_once():
    """WW2: "As each card is drawn, the figures listed can perform an activity"; RULES.md §7.2: each active figure of
    the team performs one activity, in the order its side chooses; any may pass."""
    s = deal(deck_scene(), ("team", BLUE, 0), ("team", RED, 0))
    assert s.decision.step == Step.ACTIVATE and legal(s) == {"A2", "A4", "done"}
    act(s, "A4", "nothing")
    assert legal(s) == {"A2", "done"}  # Lee has had his activity
    act(s, "A2", "nothing")
    assert s.card == ("team", RED, 0) and s.decision.seat == RED


def test_free_move_team_lets_the_side_choose_a_fire_team():
    """WW2: "an American "Free move" card might let the members, of whichever fire team the American commander
    favored at that moment, perform an activity"; RULES.md §7.2 ``free_move="team"``."""
    s = deal(deck_scene(), ("free", BLUE), ("team", RED, 0))
    assert s.decision.step == Step.TEAM and legal(s) == {"team_0", "team_1"}
    act(s, "team_1")
    assert legal(s) == {"A6", "done"}
    act(s, "A6", "nothing")
    assert s.card == ("team", RED, 0)


def test_free_move_figure_activates_any_one_figure():
    """Issue 20: a Free Move "lets its side activate any one figure"; RULES.md §7.2 ``free_move="figure"``."""
    s = deal(deck_scene(free_move="figure"), ("free", BLUE), ("team", RED, 0))
    assert s.decision.step == Step.ACTIVATE and legal(s) == {"A2", "A4", "A6", "done"}
    act(s, "A4", "nothing")
    assert s.card == ("team", RED, 0)  # one figure only


def test_a_deck_move_uses_the_ww2_stance_rates():
    """WW2 "MOVEMENT RATES": standing "Normal - 6"" = 3 hexes, "All out run - 8"" = 4 in a straight line, prone 2" =
    1 (RULES.md §4.2)."""
    s = deal(deck_scene(), ("team", BLUE, 1), ("team", RED, 0))
    act(s, "A6", "move")
    assert max(distance("A6", d) for d in legal(s)) == 3
    s = deal(deck_scene(), ("team", BLUE, 1), ("team", RED, 0))
    act(s, "A6", "all_out_run")
    assert max(distance("A6", d) for d in legal(s)) == 4
    assert all(distance("A6", d) == len(declaring(s.cursor).paths[GRID.parse(d)]) for d in legal(s))
    s = deal(deck_scene(), ("team", BLUE, 1), ("team", RED, 0))
    unit(s, "Estes").fig.stance = 0  # prone
    act(s, "A6")
    assert "all_out_run" not in legal(s)  # "Standing only"
    act(s, "move")
    assert max(distance("A6", d) for d in legal(s)) == 1


# ============================================================================ §10 victory
def test_objectives_are_held_by_the_last_side_on_them_and_score_at_the_turn_limit():
    """RULES.md §10 objectives: "held by the side that last had an active figure on one; at the end the side with more
    points wins". Blue walks onto C3 in turn 1 and walks off in turn 2: it still holds it at the limit."""
    sc = scenario([fig("Taker", "A3")], [fig("Red 1", "J6", skills=3)], turns=2,
                  victory={"kind": "objectives", "objectives": [{"hex": "C3", "points": 1}]})
    s = start(sc)
    act(s, "walk", "C3", "standing")
    stay(s)
    finish_turn(s)
    assert s.objective_owner == {GRID.parse("C3"): BLUE} and not s.over
    act(s, "walk", "C1", "standing")
    stay(s)
    finish_turn(s)
    assert s.over and s.winner == BLUE and s.returns() == [1.0, -1.0] and s.turn == 2


def test_no_objective_held_is_a_draw_at_the_turn_limit():
    sc = scenario([fig("Blue 1", "A3")], [fig("Red 1", "J6", skills=3)], turns=1,
                  victory={"kind": "objectives", "objectives": [{"hex": "E3", "points": 1}]})
    s = finish_turn(start(sc))
    assert s.over and s.winner is None and s.returns() == [0.0, 0.0]


def test_a_side_with_no_active_figure_loses_at_once():
    """RULES.md §10: "A side with no active figure (all incapacitated or dead, vehicles out of action) loses at
    once": in turn 1 of 5."""
    sc = scenario([fig("Blue 1", "A3", skills=6)], [fig("Red 1", "E3", skills=3)], turns=5)
    s = start(sc)
    unit(s, "Red 1").fig.wounds = 1
    stay_until_combat(s)
    stack(s, BLUE, "2H")
    act(s, "fire", "E3", "nothing")
    assert s.over and s.turn == 1 and s.winner == BLUE and s.returns() == [1.0, -1.0]
    assert s.seat is None and s.legal() == []


def test_a_side_with_no_active_figure_loses_in_the_deck_sequence_too():
    sc = scenario([fig("Blue 1", "A3", skills=6)], [fig("Red 1", "E3", skills=3)], turns=5)
    s = start(sc, sequence="deck")
    unit(s, "Red 1").fig.wounds = 1
    s = deal(s, ("team", BLUE, 0), ("team", RED, 0))
    act(s, "A3", "fire")
    stack(s, BLUE, "2H")
    act(s, "E3")
    assert s.over and s.winner == BLUE and s.turn == 1
