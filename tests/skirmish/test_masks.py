"""The action mask is exact (RULES.md §9.1: "Each decision is factored into small steps, each with its action mask").

At random positions of random games every id of the flat action space is tried: an id is accepted iff it is in
``state.legal()`` (an illegal one raises ValueError and changes nothing), and every accepted id leads to a
position that keeps the invariants of ``test_invariants.check``.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardwar.envs.skirmish.actions import CHOICE, N_ACTIONS, N_CELLS, Step, action_name
from cardwar.envs.skirmish.pending import declaring
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.state import SkirmishIllegalActionError, SkirmishState, new_state
from tests.skirmish.conftest import shipped
from tests.skirmish.test_invariants import check, sample_rules, scenario_for


def fingerprint(s: SkirmishState) -> tuple:
    return (s.moves_made, s.stage, s.turn, s.tick, repr(s.decision), len(s.events), str(s.rng.bit_generator.state),
            tuple((u.cell, getattr(getattr(u, "fig", None), "wounds", 0)) for u in s.units),
            tuple(tuple(p.draw_pile) for p in s.packs), repr(s.cursor), repr(s.orders))


def brute_force(s: SkirmishState, where: str, *, clone_every_id: bool = False) -> set[int]:
    """Try every action id; returns the accepted ones. ``clone_every_id``: each id on its own clone (slower; the
    default tries an illegal id on the position itself and checks that nothing changed)."""
    legal = set(s.legal())
    assert np.array_equal(np.flatnonzero(s.mask()), sorted(legal)), f"{where}: mask() and legal() differ"
    before = fingerprint(s)
    accepted = set()
    for a in range(N_ACTIONS):
        if a in legal:
            c = s.clone()
            c.apply(a)
            accepted.add(a)
            check(c, f"{where} after {action_name(a)}")
            continue
        target = s.clone() if clone_every_id else s
        with pytest.raises(ValueError):
            target.apply(a)
        with pytest.raises(SkirmishIllegalActionError):
            target.apply_action(a)
    assert fingerprint(s) == before, f"{where}: trying the actions changed the position"
    for bad in (-1, N_ACTIONS, N_ACTIONS + 7):
        with pytest.raises(ValueError):
            s.apply(bad)
    assert accepted == legal, f"{where}: accepted {sorted(accepted - legal)}, refused {sorted(legal - accepted)}"
    return accepted


def legal_meaning_matches_the_step(s: SkirmishState, where: str) -> None:
    """The ids a step allows are of the kind it asks for: hexes for destinations and targets, choices otherwise."""
    d = s.decision
    hexes = {a for a in d.legal if a < N_CELLS}
    choices = {action_name(a) for a in d.legal if a >= N_CELLS}
    if d.step == Step.MODE:
        assert not hexes and choices <= {"stay", "crawl", "search", "walk", "run", "king", "speed_0", "speed_1",
                                         "speed_2", "speed_3"}, where  # "king": play a kept King (§3.4)
    elif d.step == Step.DESTINATION:
        assert hexes and not choices, where
        u = s.units[d.unit]
        in_place = s.stage == "activate" and getattr(declaring(s.cursor), "action", None) == "move"  # a stance change in place (§7.2)
        assert in_place or u.cell not in hexes, f"{where}: a move to the hex it stands on"
        assert all(s.scenario.board.on_map(c) for c in hexes)
    elif d.step == Step.STANCE:
        assert not hexes and choices <= {"prone", "kneeling", "standing"} and choices, where
    elif d.step == Step.WATCH:
        assert choices == {"watch", "no_watch"} and not hexes, where
    elif d.step == Step.ACTION:
        assert not hexes and "nothing" in choices, where
    elif d.step == Step.TARGET:
        assert hexes or choices == {"done"}, where
        assert choices <= {"done"}, where
    elif d.step == Step.INTERRUPT:
        assert "hold" in choices and choices == {"hold"} and hexes, where
    elif d.step == Step.ACTIVATE:
        assert choices <= {"done"} and hexes, where
        for c in hexes:
            u = s.unit_at(c)
            assert u is not None and u.side == d.seat and u.active, f"{where}: activating {action_name(c)}"
    elif d.step == Step.TEAM:
        assert not hexes and all(c.startswith("team_") for c in choices) and choices, where


def positions(games: range, every: int, seed: int, fast: bool):
    """Yield (state, where) at random positions: every step kind the first time a game meets it, and otherwise about
    one position in ``every``."""
    rng = np.random.default_rng(seed)
    for g in games:
        rules = sample_rules(rng, deck_opportunity_fire=bool(g % 3 == 0))
        if g % 4 == 1:
            rules = SkirmishRules(sequence="deck", free_move="team")
        s = new_state(scenario_for(g, fast=fast), rules, seed=g)
        met: set[Step] = set()
        while not s.is_terminal():
            step = s.decision.step
            if step not in met or rng.random() < 1 / every:
                met.add(step)
                yield s, f"game {g} ({s.scenario.name}) move {s.moves_made} {s.stage}/{step.name}"
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])


def scan(games: range, every: int, seed: int, fast: bool, clone_every: int = 0) -> Counter:
    steps: Counter = Counter()
    for k, (s, where) in enumerate(positions(games, every, seed, fast)):
        legal_meaning_matches_the_step(s, where)
        brute_force(s, where, clone_every_id=bool(clone_every) and k % clone_every == 0)
        steps[s.decision.step] += 1
    return steps


def test_masks_are_exact_at_random_positions():
    steps = scan(range(12), every=60, seed=3, fast=True, clone_every=25)
    assert {Step.MODE, Step.DESTINATION, Step.STANCE, Step.WATCH, Step.ACTION, Step.TARGET, Step.ACTIVATE,
            Step.TEAM} <= set(steps), steps


def test_an_interrupt_mask_is_exact():
    """Opportunity fire's interrupt (§5.5): the watcher's mask holds the movers it could fire at now, and hold."""
    for g in range(40):
        s = new_state(shipped("duel"), SkirmishRules(), seed=g)
        rng = np.random.default_rng(g)
        while not s.is_terminal():
            if s.decision.step == Step.INTERRUPT:
                legal_meaning_matches_the_step(s, f"game {g}")
                brute_force(s, f"game {g} interrupt", clone_every_id=True)
                for c in (a for a in s.legal() if a < N_CELLS):
                    t = s.unit_at(c)
                    assert t is not None and t.side != s.decision.seat and t.active
                return
            legal = s.legal()
            # watch whenever asked, to make interrupts likely
            a = CHOICE["watch"] if CHOICE["watch"] in legal else legal[int(rng.integers(len(legal)))]
            s.apply(a)
    pytest.fail("no interrupt in 40 games")


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(4))
def test_masks_are_exact_at_thousands_of_positions(chunk):
    steps = scan(range(100 + chunk * 40, 100 + (chunk + 1) * 40), every=15, seed=chunk, fast=False, clone_every=10)
    assert sum(steps.values()) > 500
