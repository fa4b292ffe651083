"""Unseen obstacles and the masks (RULES.md §4.3, §8.1, §9.2, issue 27).

A mask offers what the seat may believe legal; where an enemy it cannot see stands in the way, the engine
resolves the surprise as the rules say (the mover stops short). And the deck sequence's vehicle moves a third
of the 10 mph turn, 10 hexes (RULES.md §8.1).
"""

from __future__ import annotations

from cardwar.envs.skirmish.actions import GRID, Step
from cardwar.envs.skirmish.pending import Stage
from tests.skirmish.conftest import act, at, fig, legal, scenario, start, unit

OPEN_24x16 = "\n".join(("" if r % 2 == 0 else " ") + " ".join(["."] * 24) for r in range(16))
WALLED = OPEN_24x16


def distance(a: str, b: str) -> int:
    return GRID.distance(GRID.parse(a), GRID.parse(b))


def tank(hex: str, facing: str = "W", **more) -> dict:
    return {"name": "Panzer", "kind": "tracked", "armour": "L", "hex": hex, "facing": facing,
            "weapons": ["lmg"], **more}


def test_a_deck_activation_moves_a_vehicle_ten_hexes():
    """§8.1: "Its `move` activity is a third of the 10 mph turn, 10 hexes". Tank at X8 on an open 24 x 16 map:
    the farthest destination offered is 10 hexes away, and the tank gets there."""
    sc = scenario([fig("Able", "A1")], [fig("Red 1", "A16")], map=OPEN_24x16, blue_vehicles=[tank("X8")])
    s = start(sc, sequence="deck")
    s.stage, s.decision, s.cursor = Stage.DECK, None, None
    s.deck = [("vehicle", unit(s, "Panzer").uid)]
    from cardwar.envs.skirmish import flow

    flow.advance(s)
    act(s, "X8", "move")
    assert s.decision.step == Step.DESTINATION
    far = max(legal(s), key=lambda d: distance("X8", d))
    assert distance("X8", far) == 10
    act(s, far)
    assert at(s, "Panzer") == far


def test_a_vehicle_may_plan_through_an_unseen_figure_and_stops_short():
    """§8.1 and §9.2: the destinations are those the side may believe free. A house hides the hexes behind it;
    a red figure stands there. Its hex is offered, and in the moves the tank stops in the hex before it (§4.3: "every other occupied hex stops a mover - an enemy it did not know of")."""
    rows = [". . . . . . . . . .", " . . . W W . . . . .", ". . . W W . . . . .", " . . . W W . . . . .",
            ". . . . . . . . . .", " . . . . . . . . . ."]
    sc = scenario([fig("Able", "A3")], [fig("Hidden", "G3"), fig("Red 2", "J6")], map="\n".join(rows),
                  blue_vehicles=[tank("B3", facing="E")])
    s = start(sc)
    panzer, hidden = unit(s, "Panzer"), unit(s, "Hidden")
    assert hidden.uid not in s.seen[0]
    from cardwar.envs.skirmish import flow

    while s.decision.unit != panzer.uid:
        act(s, "stay", "standing", "no_watch")
    act(s, "speed_1")
    paths = flow._vehicle_paths(s, panzer, 1)
    assert "G3" in legal(s)  # the unseen figure's hex is offered
    path = paths[hidden.cell]
    act(s, "G3")
    while s.stage == "declare_move":
        act(s, "stay", "standing")
        if s.decision is not None and s.decision.step == Step.WATCH:
            act(s, "no_watch")
    before = path[-2]
    assert panzer.cell == before, (GRID.label(panzer.cell), GRID.label(before))
    assert at(s, "Hidden") == "G3"


def test_a_figure_may_plan_through_an_unseen_vehicle():
    """§4.3 and §9.2: a figure's destinations leave out only the enemies its side sees; a vehicle it does not see
    is not known (before issue 27 every enemy vehicle was left out, seen or not)."""
    rows = [". . . . . . . . . .", " . . . W W . . . . .", ". . . W W . . . . .", " . . . W W . . . . .",
            ". . . . . . . . . .", " . . . . . . . . . ."]
    sc = scenario([fig("Able", "B3")], [fig("Red 2", "J6")], map="\n".join(rows),
                  red_vehicles=[tank("F4", facing="W")])
    s = start(sc)
    assert unit(s, "Panzer").uid not in s.seen[0]
    act(s, "run")
    assert "F4" in legal(s)


def test_a_vehicle_the_side_does_not_see_does_not_hide_a_target_in_its_masks():
    """§1.4 with §9.2: a vehicle between blocks sight; a mask is built from what the side knows, so a vehicle it
    does not see (as behind the edge of a line) cannot take a target out of the mask (issue 27: the HE target
    mask named the hexes an unseen vehicle shadowed)."""
    from cardwar.envs.skirmish import options

    sc = scenario([fig("Able", "A3")], [fig("Red 1", "E3")], red_vehicles=[tank("C3", facing="W")])
    s = start(sc)
    able, red1, panzer = unit(s, "Able"), unit(s, "Red 1"), unit(s, "Panzer")
    s.seen[0] = {red1.uid}  # Blue knows of Red 1 (another of its figures sees it) but not of the Panzer
    assert red1.cell in options.targets_for(s, able, "fire", [])
    s.seen[0] = {red1.uid, panzer.uid}  # the Panzer seen: it hides Red 1 from Able
    assert red1.cell not in options.targets_for(s, able, "fire", [])


def _declare(s, answers: dict) -> None:
    """Answer every movement declaration: ``answers[name]`` lists that unit's answers in order."""
    left = {k: list(v) for k, v in answers.items()}
    while s.stage == "declare_move" and s.decision is not None:
        act(s, left[s.units[s.decision.unit].name].pop(0))


def test_opportunity_fire_after_the_move_is_offered_only_where_the_mover_went():
    """§5.5 ``opportunity_fire="after_move"``: "any hex an enemy mover entered". The Walker declared I3-H3-G3-F3,
    but Blue's Blocker took G3 first, so it stopped in H3 (§4.3): G3 and F3, where it never was, are not offered
    (before issue 27 they were, which showed its hidden route and could hit it where it never stood)."""
    sc = scenario([fig("Watcher", "C1"), fig("Blocker", "G1")], [fig("Walker", "J3")])
    s = start(sc, opportunity_fire="after_move")
    _declare(s, {"Watcher": ["stay", "standing", "watch"], "Blocker": ["walk", "G3", "standing"],
                 "Walker": ["walk", "F3", "standing"]})
    assert at(s, "Walker") == "H3" and at(s, "Blocker") == "G3"
    assert s.decision.step == Step.INTERRUPT and legal(s) == {"H3", "I3", "hold"}


def test_a_fast_vehicle_is_met_at_every_hex_it_enters():
    """§5.5 and §8.1: at 30 mph a vehicle enters about 8 hexes a tick; a watcher that sees only a gap in a wood
    (K7-M7) is asked about those hexes, though at the end of the tick the vehicle stands out of its sight."""
    rows = []
    for r in range(16):
        row = ["W" if r == 10 and c != 11 else "." for c in range(24)]  # a wood along row 11, a gap at L11
        rows.append(("" if r % 2 == 0 else " ") + " ".join(row))
    sc = scenario([fig("Watcher", "L13")], [fig("Red 1", "A1")], map="\n".join(rows),
                  red_vehicles=[tank("A7", facing="E")])
    s = start(sc)
    panzer = unit(s, "Panzer")
    panzer.v.last_speed = 2  # it moved at 20 mph last turn: it may go up to 30 (§8.1)
    _declare(s, {"Watcher": ["stay", "standing", "watch"], "Red 1": ["stay", "standing", "no_watch"],
                 "Panzer": ["speed_3", "X7"]})
    assert s.decision.step == Step.INTERRUPT and s.tick == 2
    assert {"K7", "L7", "M7"} <= legal(s) and at(s, "Panzer") == "Q7" and panzer.uid not in s.seen[0]
    act(s, "L7")
    assert any("opens opportunity fire" in e.text for e in s.events)


def test_apply_action_without_validation_takes_a_legal_move_and_still_refuses_an_illegal_one():
    """The engine contract (envs/turn_based_env.py): ``validate=False`` when the caller vouches for the move."""
    import pytest

    from cardwar.envs.skirmish.state import SkirmishIllegalActionError

    s = start(scenario([fig("Able", "A3")], [fig("Red 1", "J6")]))
    s.apply_action(s.legal_actions()[0], validate=False)
    assert s.moves_made == 1
    with pytest.raises(SkirmishIllegalActionError):
        s.apply_action(10**6, validate=False)
