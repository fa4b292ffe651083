"""Draws about a unit its enemy does not see are the umpire's, in secret (RULES.md §1.2, §6.3, §9.2; issue 27).

A face-up card from a side's pack is public (§3.1), so a blast that drew one card per figure in its radius
told the thrower how many unseen figures stood there, and a mine-layer read from its shrinking mine list and
"an unseen figure spots a mine" that someone was next to its mine. Now such a draw comes from the umpire and
its lines go to the unit's own side only; a seen unit's draws are as before.
"""

from __future__ import annotations

from cardwar.envs.skirmish import moving, resolve
from cardwar.envs.skirmish.actions import GRID
from cardwar.envs.skirmish.state import TERMINAL
from tests.skirmish.conftest import BLUE, RED, act, fig, legal, scenario, stack, start, stay, unit


def view_lines(s, seat):
    return [e.text for e in s.events if e.seat in (None, seat)]


def blast_scene():
    return scenario([fig("Thrower", "A3", "rifle", 5)], [fig("Red 1", "E3", skills=3), fig("Red 2", "J6")])


def test_a_blast_on_a_figure_the_thrower_does_not_see_is_drawn_by_the_umpire():
    """§6.3 with §9.2: no card leaves the thrower's pack, and only Red reads the line."""
    s = start(blast_scene())
    red1 = unit(s, "Red 1")
    s.seen[BLUE].discard(red1.uid)  # Red 1 is out of Blue's sight (as behind a wall)
    pile = len(s.packs[BLUE])
    resolve.blast(s, BLUE, red1.cell, 0, "wound")
    assert len(s.packs[BLUE]) == pile and not s.drawn[BLUE]
    assert not any("blast" in line for line in view_lines(s, BLUE))
    assert any(line.startswith("blast on Red 1") for line in view_lines(s, RED))


def test_a_blast_on_a_seen_figure_draws_from_the_throwers_pack_face_up():
    """§6.3: "one effect draw from the acting side's pack"."""
    s = start(blast_scene())
    stack(s, BLUE, "5H")
    resolve.blast(s, BLUE, unit(s, "Red 1").cell, 0, "wound")
    assert "blast on Red 1: 5H" in view_lines(s, BLUE) and unit(s, "Red 1").fig.wounds == 1


def test_a_mine_spotted_by_a_figure_its_layer_does_not_see_stays_in_the_layers_view():
    """§1.2 with §9.2: the layer saw nothing, so it still believes its mine is there, and no card of the
    walker's pack is shown."""
    sc = scenario([fig("Walker", "A3", skills=(5, 5, 5, 9))], [fig("Red 1", "J6", skills=3)],
                  mines=[{"hex": "C3", "side": "Red"}])
    for seed in range(20):
        s = start(sc, seed=seed)
        walker, mine = unit(s, "Walker"), GRID.parse("C3")
        s.seen[RED].discard(walker.uid)
        pile = len(s.packs[BLUE])
        if moving._mine_check(s, walker, mine):
            continue  # the umpire's 10: it goes off (a public blast)
        assert len(s.packs[BLUE]) == pile and not s.drawn[BLUE]
        assert mine not in s.mines and mine in s.information_view(RED).mines
        assert "Walker spots a mine" in view_lines(s, BLUE)
        assert not any("spots a mine" in line for line in view_lines(s, RED))
        return
    raise AssertionError("Field Craft 9 never spotted the mine in 20 games")


def test_an_exit_ends_the_game_at_once():
    """§10: "an exit ... goal met ends the game" at once: no combat declaration is asked after the move."""
    sc = scenario([fig("Runner", "B3")], [fig("Red 1", "J6")],
                  victory={"kind": "exit", "side": "Blue", "edge": "west", "count": 1})
    s = start(sc)
    act(s, "walk", "A3", "standing")
    stay(s)
    assert s.over and s.winner == BLUE and s.current_player == TERMINAL


def test_a_tie_card_only_between_equal_field_craft():
    """§4.3: two movers for one hex, "the higher Field Craft ... goes in, ties by a card from each mover's own
    side's pack": with Field Craft 7 against 3 no card is drawn."""
    sc = scenario([fig("Blue 1", "C3", skills=(5, 5, 5, 7))], [fig("Red 1", "E3", skills=(5, 5, 5, 3))])
    s = start(sc)
    act(s, "walk", "D3", "standing")
    act(s, "walk", "D3", "standing")
    assert unit(s, "Blue 1").cell == GRID.parse("D3") and unit(s, "Red 1").cell == GRID.parse("E3")
    assert s.drawn == [[], []]


def test_a_runner_may_end_prone_for_a_quarter_of_its_move():
    """HtD: "Going to a prone position from Search, Walk or Run modes reduces forward movement by one quarter";
    only WW2's all-out run ("Standing only") must stay standing."""
    s = start(scenario([fig("Runner", "A3")], [fig("Red 1", "J6")]))
    act(s, "run", "C3")
    assert "prone" in legal(s)


def test_casualty_points_for_a_wound_the_scorer_did_not_see_count_when_it_sees_the_figure():
    """§10 with §9.2: the points of a wound on a figure Blue does not see are not in Blue's view (they would
    tell it that the blast found someone) until Blue sees the figure again; Red knows them at once."""
    s = start(blast_scene())
    red1 = unit(s, "Red 1")
    s.seen[BLUE].discard(red1.uid)
    for _ in range(30):  # the umpire's card: red (a wound) half the time
        resolve.blast(s, BLUE, red1.cell, 0, "wound")
        if red1.fig.wounds:
            break
    assert red1.fig.wounds == 1 and s.casualty_points[BLUE] == 1
    assert s.information_view(BLUE).casualty_points == (0, 0)
    assert s.information_view(RED).casualty_points == (1, 0)
    from cardwar.envs.skirmish.sight import update_sight

    update_sight(s)  # Red 1 stands in the open: Blue sees it, wounded
    assert red1.uid in s.seen[BLUE] and s.information_view(BLUE).casualty_points == (1, 0)
