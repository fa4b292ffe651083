"""Every end of a skirmish names its reason in the result (RULES.md §10; issue 28: the page said only "The bot
wins" when the Germans had won by holding the objectives). One cheap game per end condition, each reason
checked against the rule that ended it, and the record's ``detail`` carries it."""

from __future__ import annotations

from cardwar.envs.skirmish.flow import END_REASONS
from tests.skirmish.conftest import BLUE, RED, act, fig, finish_turn, scenario, stack, start, stay, stay_until_combat
from tests.skirmish.test_rules_examples import fire_at_tank


def test_objective_points_at_the_turn_limit():
    """§10 objectives: "at the turn limit the side holding more points wins"."""
    sc = scenario([fig("Taker", "A3")], [fig("Red 1", "J6", skills=3)], turns=1,
                  victory={"kind": "objectives", "objectives": [{"hex": "B3", "points": 2}, {"hex": "H5", "points": 1}]})
    s = start(sc)
    act(s, "walk", "B3", "standing")
    stay(s)
    finish_turn(s)
    assert s.over and s.winner == BLUE
    assert s.result["reason"] == END_REASONS["objectives"] == "objective points at the turn limit"
    assert s.result["objective_points"] == [2, 0]


def test_casualty_points_at_the_turn_limit():
    sc = scenario([fig("Blue 1", "A3")], [fig("Red 1", "J6", skills=3)], turns=1)  # casualties, none scored: a draw
    s = finish_turn(start(sc))
    assert s.over and s.winner is None and s.result["reason"] == "casualty points at the turn limit"
    assert "objective_points" not in s.result


def test_a_side_with_no_active_unit_loses_at_once():
    sc = scenario([fig("Blue 1", "A3", skills=6)], [fig("Red 1", "E3", skills=3)], turns=5)
    s = start(sc)
    s.units[1].fig.wounds = 1
    stay_until_combat(s)
    stack(s, BLUE, "2H")
    act(s, "fire", "E3", "nothing")
    assert s.over and s.turn == 1 and s.winner == BLUE and s.result["reason"] == "no active unit left"


EXIT_WEST = {"kind": "exit", "side": "Blue", "edge": "west", "count": 1}


def test_an_exit_made_wins_at_once():
    """§10 exit: "a side wins at once when the given number of its figures have left the table, by standing on the
    given edge when a movement ends"."""
    sc = scenario([fig("Runner", "B3")], [fig("Red 1", "J6", skills=3)], turns=3, victory=EXIT_WEST)
    s = start(sc)
    act(s, "walk", "A3", "standing")
    stay(s)
    finish_turn(s)
    assert s.over and s.winner == BLUE and s.turn == 1 and s.result["reason"] == "figures left the table"


def test_no_exit_by_the_turn_limit():
    sc = scenario([fig("Runner", "E3")], [fig("Red 1", "J6", skills=3)], turns=1, victory=EXIT_WEST)
    s = finish_turn(start(sc))
    assert s.over and s.winner == RED and s.result["reason"] == "no exit by the turn limit"


def destroy_scene(turns: int = 3):
    """An unarmoured vehicle, the Reds' target, in front of a gunner with a light anti-tank weapon."""
    return scenario([fig("Gunner", "A3", "pistol", 5, other_weapons=["at_light"])], [fig("Red 1", "J6", skills=3)],
                    turns=turns, victory={"kind": "destroy", "target": "Panzer"},
                    red_vehicles=[{"name": "Panzer", "kind": "tracked", "armour": "U", "hex": "E3", "facing": "W",
                                   "weapons": ["lmg"], "damage_points": 3}])


def test_the_target_destroyed_wins_at_once():
    """§10 destroy: "the other side wins at once when the named vehicle is abandoned or destroyed"."""
    s, v = fire_at_tank(destroy_scene(), "3S 8C")
    assert v.destroyed and s.over and s.winner == BLUE and s.result["reason"] == "target destroyed"


def test_the_target_surviving_the_turn_limit():
    s = finish_turn(start(destroy_scene(turns=1)))
    assert s.over and s.winner == RED and s.result["reason"] == "target survived the turn limit"


def test_every_reason_is_reached_by_a_test_above():
    """The table names the seven ends of §10, no more (a new end needs its reason and its test)."""
    assert len(END_REASONS) == 7 and len(set(END_REASONS.values())) == 7


def test_a_record_carries_the_reason_and_one_written_before_it_still_replays():
    """The record's ``result.detail`` holds the reason; a record from before (no ``reason``, no
    ``objective_points``) replays all the same (``cardwar.record.LATER_DETAIL``)."""
    from cardwar import agents
    from cardwar.arena.table import Table
    from cardwar.envs import make_raw_env
    from cardwar.record import GameRecord, final_state

    env = make_raw_env("skirmish", "duel", {})
    table = Table(env, "skirmish", 7, specs=("random", "random"), scenario="duel")
    bots = [agents.make("random", "skirmish", seed=i) for i in (1, 2)]
    while not table.over:
        seat = int(table.to_move)
        table.play(int(bots[seat].act(table.observation(seat))))
    record = table.record()
    assert record.result["detail"]["reason"] in END_REASONS.values()
    final_state(record)
    data = record.to_dict()
    for key in ("reason", "objective_points"):
        data["result"]["detail"].pop(key, None)
    final_state(GameRecord.from_dict(data))  # no RecordError
