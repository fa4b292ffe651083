"""The skirmish's words for a person: why an answer is refused (RULES.md cited), and the question in front.

Every reason is worked out from the seat's view (and the public map); the engine's mask decides what is legal.
Checked here against the engine: a reason of the "wrong kind of answer" sort is never given to an answer the
mask allows, the allowances the reasons quote bound every destination the engine offers, the reasons for
set-up positions say what RULES.md says, and no reason names an enemy the seat has not seen.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardwar import explain, games
from cardwar.envs import skirmish_v0
from cardwar.envs.skirmish import explain as sk
from cardwar.envs.skirmish.actions import CHOICE, GRID, N_ACTIONS, N_CELLS, Step
from cardwar.envs.skirmish.notation import string_to_action
from cardwar.envs.skirmish.scenario import scenario_names
from cardwar.envs.skirmish.state import new_state

RULE = re.compile(r"RULES\.md §\d+(\.\d+)?")


def _answer(s, text: str) -> None:
    s.apply(string_to_action(text))


def _why(s, text: str) -> str | None:
    """The reason from the seat's view alone (it carries the public map and the rules)."""
    return sk.why_illegal(s.information_view(s.seat), string_to_action(text))


def _duel():
    """Duel, turn 1, the phases sequence: the American corporal (A3) is asked his movement mode."""
    s = new_state("duel", None, 3)
    v = s.information_view(s.seat)
    assert v.step == Step.MODE and s.units[v.unit].name == "Cpl. Grant" and GRID.label(s.units[v.unit].cell) == "A3"
    return s


def _random_games(per_scenario: int = 1):
    """(state, seat view, legal set) at every decision of random games of every shipped scenario."""
    for name in scenario_names():
        for seed in range(per_scenario):
            env = skirmish_v0.raw_env(scenario=name)
            env.reset(seed=seed)
            rng = np.random.default_rng(seed)
            for _ in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                s = env.game
                legal = set(np.flatnonzero(obs["action_mask"]).tolist())
                yield s, s.information_view(s.seat), legal
                env.step(int(rng.choice(sorted(legal))))


# ------------------------------------------------------------------ against the engine, over whole games
def test_kind_and_allowance_reasons_never_contradict_the_mask():
    """Over random games of every scenario (phases, deck, vehicles): every legal answer is of the kind the step
    asks (so "answers another question" is never said of a legal one), and every offered destination lies
    within the allowance the reasons quote (RULES.md §4.1, §4.2, §2.4)."""
    steps, moves = set(), 0
    for s, v, legal in _random_games():
        u = sk._unit(v, v.unit)
        assert legal <= sk._expected(v, u), (v.step, sorted(legal - sk._expected(v, u)))
        steps.add(v.step)
        mode = sk._mode(v)
        if v.step == Step.DESTINATION and mode and u is not None and not u.vehicle and not sk._riding(v, u):
            allowance = max(sk._allowance(u, mode), 1)
            assert max(GRID.distance(u.cell, c) for c in legal) <= allowance, (mode, u)
            moves += 1
    assert {Step.MODE, Step.DESTINATION, Step.STANCE, Step.ACTION, Step.TARGET, Step.ACTIVATE} <= steps
    assert moves > 50


def test_every_refused_answer_gets_a_reason_that_names_no_unseen_enemy():
    """Refused answers of the right kind (the hard ones) and of the wrong kind all get a reason citing RULES.md,
    and a reason never names an enemy unit the seat has not seen (RULES.md §9.2)."""
    rng = np.random.default_rng(5)
    asked = 0
    for k, (s, v, legal) in enumerate(_random_games()):
        if k % 3:
            continue
        hidden = [u.name for u in s.units if u.side != v.seat and u.uid not in s.seen[v.seat]
                  and u.uid not in s.last_seen[v.seat]]
        pool = sorted(sk._expected(v, sk._unit(v, v.unit)) - legal)
        wrong = sorted(set(range(N_ACTIONS)) - sk._expected(v, sk._unit(v, v.unit)))
        for a in [int(x) for x in rng.choice(pool, min(6, len(pool)), replace=False)] + wrong[:2]:
            why = sk.why_illegal(v, a, board=s.scenario.board)
            assert why and RULE.search(why), (v.step, a, why)
            assert not any(name in why for name in hidden), why
            asked += 1
    assert asked > 1000


# ------------------------------------------------------------------ set-up positions, against RULES.md
def test_the_mode_step_names_its_answers_and_the_kings_rule():
    s = _duel()
    v = s.information_view(s.seat)
    assert v.kings == () and v.rules.king_and_country is False
    assert _why(s, "king") == ("For King and Country is an optional rule, off in this game (king_and_country=true "
                               "turns it on, RULES.md §3.4)")
    on = new_state("duel", {"king_and_country": True}, 3)
    assert on.information_view(on.seat).kings == () and CHOICE["king"] not in on.legal()
    assert _why(on, "king") == ("you hold no King: a King is kept when drawn, and played for King and Country "
                                "(RULES.md §3.4)")
    why = _why(s, "C5")
    assert why.startswith("the mode step for Cpl. Grant at A3 asks its movement mode") and "§4.1" in why
    assert "a hex answers another question" in why
    assert "speeds are for vehicles (RULES.md §8.1)" in _why(s, "speed_1")
    assert "deck activity (RULES.md §4.2)" in _why(s, "all_out_run")


def test_a_walk_beyond_its_four_hexes_is_refused_with_the_distance():
    s = _duel()
    _answer(s, "walk")
    v = s.information_view(s.seat)
    me = s.units[v.unit]
    far = next(c for c in range(N_CELLS) if s.scenario.board.on_map(c) and GRID.distance(me.cell, c) == 7)
    assert far not in s.legal()
    assert _why(s, GRID.label(far)) == (f"{GRID.label(far)} is 7 hexes from Cpl. Grant at A3; a walk takes it at "
                                        "most 4 (RULES.md §4.1)")
    assert _why(s, "X16") == "X16 is off the map (RULES.md §1.1)"  # the duel's field is 10 x 8
    friend = next(u for u in s.units if u.side == me.side and u is not me and GRID.distance(me.cell, u.cell) <= 4)
    assert friend.cell not in s.legal()
    assert f"is held by your figure {friend.name}" in _why(s, GRID.label(friend.cell))
    assert _why(s, "A3") == "Cpl. Grant at A3 is already at A3; to stay there, declare stay (RULES.md §4.1)"
    note = sk.decision_note(v)
    assert note.startswith("Decide for Cpl. Grant at A3 (standing, SMG (Cat. 2) 30 rounds, range 9 hexes")
    assert note.endswith("the hex it moves to, a walk of at most 4 hexes (RULES.md §4.1, §4.3)")


def test_stances_after_a_crawl_and_a_run_follow_section_4_1():
    s = _duel()
    _answer(s, "crawl")
    _answer(s, GRID.label(next(c for c in s.legal() if c < N_CELLS)))
    assert s.legal() == [CHOICE["prone"]]
    assert _why(s, "standing") == "a crawl ends prone (RULES.md §4.1)"
    s = _duel()  # HtD: "Going to a prone position from Search, Walk or Run modes reduces forward movement by
    _answer(s, "run")  # one quarter": the farthest run leaves no quarter for it
    far = max((c for c in s.legal() if c < N_CELLS), key=lambda c: GRID.distance(s.units[s.decision.unit].cell, c))
    _answer(s, GRID.label(far))
    assert CHOICE["standing"] in s.legal() and CHOICE["prone"] not in s.legal()
    assert _why(s, "prone").startswith("going prone costs a quarter of the move (RULES.md §4.1)")


def test_combat_actions_refused_for_what_the_figure_carries():
    s = _duel()
    while s.information_view(s.seat).step != Step.ACTION:  # everyone stays: the combat declarations come
        legal = s.legal()
        s.apply(next(a for a in (CHOICE["stay"], CHOICE["standing"], CHOICE["no_watch"], CHOICE["hold"])
                     if a in legal))
    v = s.information_view(s.seat)
    me = next(u for u in v.units if u.uid == v.unit)
    assert me.ammo == 30 and me.jammed is False and me.knives == 0
    assert _why(s, "reload") == f"{me.name} at {GRID.label(me.cell)}'s magazine is full (30 rounds) (RULES.md §2.2)"
    assert _why(s, "clear_jam") == f"nothing of {me.name} at {GRID.label(me.cell)}'s is jammed (RULES.md §3.3)"
    assert _why(s, "knife") == f"{me.name} at {GRID.label(me.cell)} has no knives (RULES.md §5.3)"
    assert _why(s, "anti_tank") == f"{me.name} at {GRID.label(me.cell)} carries no anti-tank weapon (RULES.md §8.3)"
    assert "the one task of work is setting up an MMG" in _why(s, "work")
    assert "in the phases sequence a figure moves at its movement declaration" in _why(s, "move")


def test_a_deck_card_is_named_with_the_team_it_activates():
    """ww2_squads plays the deck sequence (RULES.md §7.2): at a team card's ACTIVATE step the note names the
    team and its active figures, as the engine's state has them."""
    env = skirmish_v0.raw_env(scenario="ww2_squads")
    env.reset(seed=1)
    s, rng, checked = env.game, np.random.default_rng(0), 0
    while not s.over and checked < 5:
        v = s.information_view(s.seat)
        if v.step == Step.ACTIVATE and v.activation and v.activation[0] == "team":
            side, team = v.activation[1], v.activation[2]
            names = [f"{u.name} at {GRID.label(u.cell)}" for u in s.soldiers(side) if u.team == team and u.active]
            assert side == v.seat and sk.decision_note(v).endswith(
                f"the card is your fire team {team} (team_{team}): {', '.join(names)}")
            checked += 1
        s.apply(int(rng.choice(s.legal())))
    assert checked == 5


def test_not_your_decision_and_game_over():
    s = _duel()
    other = s.information_view(1 - s.seat)
    assert other.step is None and sk.decision_note(other) is None
    assert "not your decision" in sk.why_illegal(other, CHOICE["stay"])


# ------------------------------------------------------------------ the registry
def test_the_registry_hooks_are_these_functions():
    g = games.get("skirmish")
    assert g.hook("why_illegal") is sk.why_illegal and g.hook("decision_note") is sk.decision_note
    s = _duel()
    v = s.information_view(s.seat)
    assert explain.why_illegal("skirmish", v, CHOICE["king"]) == sk.why_illegal(v, CHOICE["king"])
    assert explain.decision_note("skirmish", v) == sk.decision_note(v)


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_the_older_games_hooks_are_beside_their_searches(game):
    import importlib

    module = importlib.import_module(f"cardwar.agents.{game}_explain")
    assert games.get(game).hook("why_illegal") is module.why_illegal
    assert games.get(game).hook("decision_note") is module.decision_note
