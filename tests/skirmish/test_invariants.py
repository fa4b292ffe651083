"""Invariants over many seeded random games (RULES.md throughout): actions drawn uniformly from ``state.legal()``,
every position checked. The default suite plays a couple of hundred games; the thousands are marked slow.

Scenarios: the shipped ones and the generator's (small and medium maps). Rule options: sampled from every
combination of RULES.md §12, so each option's code path is played to the end under many others.
"""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from cardwar.envs.skirmish.actions import N_ACTIONS, Step
from cardwar.envs.skirmish.cards import pack_cards
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.scenario import RULE_OPTIONS, Scenario
from cardwar.envs.skirmish.state import SkirmishState, new_state
from cardwar.envs.skirmish.units import Soldier, Tank
from cardwar.envs.skirmish.weapons import FIREARMS
from tests.skirmish.conftest import SHIPPED, shipped

FAST_GAMES = 200
SLOW_GAMES = 3000
STEP_LIMIT = 20_000
"""No game may take more steps than this (a random game of the largest scenario takes about 2000)."""


def scenario_for(g: int, fast: bool = False) -> Scenario:
    """Games cycle through the shipped scenarios and the generator's small and medium maps; ``fast`` plays mostly
    the small ones (the duel and small generated maps), each big scenario once in twenty games."""
    from cardwar.envs.skirmish.generator import generate

    if fast:
        k = g % 20
        if k < 10:
            return generate(g, size="small")
        if k < 15:
            return shipped("duel")
        if k < 17:
            return generate(g, size="medium")
        return shipped(SHIPPED[k - 16])
    k = g % 6
    if k < len(SHIPPED):
        return shipped(SHIPPED[k])
    return generate(g, size="small" if k == 4 else "medium")


def sample_rules(rng: np.random.Generator, **fixed) -> SkirmishRules:
    """A random combination of every rule option of RULES.md §12."""
    opts = {k: v[int(rng.integers(len(v)))] for k, v in RULE_OPTIONS.items()}
    opts.update(fixed)
    return SkirmishRules.from_dict(opts)


def pack_size(rules: SkirmishRules) -> int:
    return len(pack_cards(rules.knave_events, rules.lady_luck, rules.king_and_country))


# ------------------------------------------------------------------ the invariants of one position
def check(s: SkirmishState, where: str) -> None:
    sc = s.scenario
    board = sc.board
    # one unit per hex among the units that hold a hex (riders share their vehicle's); friends may share a hex only
    # for a tick, while passing through during a move (§4.3)
    holders: dict[int, list] = {}
    for u in s.units:
        holds = getattr(u, "holds_hex", u.on_table)
        if holds:
            assert board.on_map(u.cell), f"{where}: {u.name} off the map at {u.cell}"
            holders.setdefault(u.cell, []).append(u)
    for cell, us in holders.items():
        if len(us) > 1:
            assert s.stage == "moving" and len({u.side for u in us}) == 1 and not any(isinstance(u, Tank) for u in us), \
                f"{where}: {[u.name for u in us]} share hex {cell} in stage {s.stage}"
    for u in s.units:
        if isinstance(u, Soldier):
            f = u.fig
            assert 0 <= f.wounds <= 3, f"{where}: {u.name} has {f.wounds} wounds"
            assert f.active == (f.wounds < 2)
            assert (f.ammo or 0) >= 0 and u.reserve >= 0, f"{where}: {u.name} ammo {f.ammo} reserve {u.reserve}"
            arm = FIREARMS.get(f.weapon)
            if arm is not None:
                assert (f.ammo or 0) <= arm.magazine, f"{where}: {u.name} holds {f.ammo} rounds"
            assert f.grenades >= 0 and u.petrol_bombs >= 0 and u.knives >= 0 and u.at_ammo >= 0, where
            assert u.reserve <= max(u.starting_reserve, u.reserve) and u.burning >= 0
            if getattr(u, "aboard", None) is not None and u.on_table:
                assert u.cell == s.units[u.aboard].cell, f"{where}: {u.name} rides away from its vehicle"
        else:
            assert u.gun_ammo >= 0, f"{where}: {u.name} gun ammo {u.gun_ammo}"
            if u.v.damage_points is not None:
                assert u.v.damage_points >= 0
    # packs: every card of the side's pack in exactly one place; kept Kings are the retained cards (§3.1, §3.4)
    want = sorted(pack_cards(s.rules.knave_events, s.rules.lady_luck, s.rules.king_and_country))
    for side in (0, 1):
        p = s.packs[side]
        assert len(p.draw_pile) + len(p.discards) + len(p.retained) == len(want), \
            f"{where}: side {side}'s pack holds {len(p.draw_pile)} + {len(p.discards)} + {len(p.retained)}"
        assert sorted(p.draw_pile + p.discards + p.retained) == want, f"{where}: side {side}'s cards"
        assert all(c % 13 + 1 == 13 for c in p.retained), f"{where}: a card other than a King retained"
        # a King played on a courageous act stays out of the pack until the act ends (§3.4)
        in_play = [v[0] for uid, v in getattr(s, "courage", {}).items() if s.units[uid].side == side]
        assert Counter(s.kings[side] + in_play) == Counter(p.retained), \
            f"{where}: kings {s.kings[side]} and {in_play} on acts vs {p.retained} retained"
    assert min(s.casualty_points) >= 0
    assert 1 <= s.turn <= sc.turn_limit, f"{where}: turn {s.turn} of {sc.turn_limit}"
    # whose decision, and what may be answered
    if s.is_terminal():
        assert s.seat is None and s.legal() == []
        r = s.returns()
        assert sum(r) == 0 and r in ([0.0, 0.0], [1.0, -1.0], [-1.0, 1.0])
        assert (r == [0.0, 0.0]) == (s.winner is None)
        if s.winner is not None:
            assert r[s.winner] == 1.0
        return
    assert s.returns() == [0.0, 0.0] and s.winner is None
    assert s.seat in (0, 1) and s.decision is not None
    legal = s.legal()
    assert legal, f"{where}: no legal action in stage {s.stage}"
    assert legal == sorted(set(legal)) and 0 <= legal[0] and legal[-1] < N_ACTIONS
    assert set(legal) == set(s.decision.legal)
    d = s.decision
    if d.unit is not None and d.step != Step.TEAM:
        u = s.units[d.unit]
        assert u.side == d.seat, f"{where}: seat {d.seat} asked about {u.name}"
        assert u.active or d.step == Step.INTERRUPT, f"{where}: {u.name} is not active but is asked {d.step.name}"
    # every active side still has a unit: otherwise the game would be over (§10)
    assert all(s.active_units(side) for side in (0, 1)), f"{where}: a side without an active unit plays on"


def play_checked(g: int, rules: SkirmishRules, sc: Scenario | None = None, fast: bool = False) -> SkirmishState:
    sc = sc or scenario_for(g, fast)
    s = new_state(sc, rules, seed=g)
    rng = np.random.default_rng(10_000 + g)
    steps, last_turn = 0, s.turn
    check(s, f"game {g} start")
    while not s.is_terminal():
        legal = s.legal()
        s.apply(legal[int(rng.integers(len(legal)))])
        steps += 1
        assert s.turn >= last_turn, f"game {g}: the turn went back"
        last_turn = s.turn
        check(s, f"game {g} ({sc.name}, {rules}) step {steps}")
        assert steps < STEP_LIMIT, f"game {g}: no end after {steps} steps"
    assert s.turn <= sc.turn_limit
    return s


def play_many(games: range, seed: int, fast: bool = False) -> Counter:
    rng = np.random.default_rng(seed)
    outcomes: Counter = Counter()
    for g in games:
        s = play_checked(g, sample_rules(rng), fast=fast)
        outcomes[s.winner] += 1
    return outcomes


def test_random_games_keep_every_invariant():
    outcomes = play_many(range(FAST_GAMES), seed=1, fast=True)
    assert sum(outcomes.values()) == FAST_GAMES
    assert outcomes[0] and outcomes[1]  # both sides win some


@pytest.mark.slow
@pytest.mark.parametrize("chunk", range(6))
def test_thousands_of_random_games_keep_every_invariant(chunk):
    per = SLOW_GAMES // 6
    play_many(range(FAST_GAMES + chunk * per, FAST_GAMES + (chunk + 1) * per), seed=100 + chunk)


@pytest.mark.parametrize("sequence", ["phases", "deck"])
@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_scenario_plays_to_the_end_under_the_defaults(name, sequence):
    for g in range(2):
        play_checked(g, SkirmishRules(sequence=sequence), shipped(name))


@pytest.mark.parametrize("option", sorted(RULE_OPTIONS))
def test_every_value_of_every_option_plays_to_the_end(option):
    """RULES.md §12: each option's each value, under other options sampled at random."""
    rng = np.random.default_rng(sorted(RULE_OPTIONS).index(option))
    for value in RULE_OPTIONS[option]:
        for g in range(2):
            play_checked(7 * g + 1, sample_rules(rng, **{option: value}), fast=True)


def test_both_sequences_with_every_picture_card_option():
    """The packs with Jacks, Queens and Kings (§3.2-3.4) keep every card in one place, Kings held included."""
    for g in range(6):
        s = play_checked(g, SkirmishRules(sequence=("phases", "deck")[g % 2], knave_events=True, lady_luck=True,
                                          king_and_country=True), fast=True)
        assert len(s.packs[0]) + len(s.packs[0].discards) + len(s.packs[0].retained) == 52


@pytest.mark.slow
def test_every_option_pair_plays_to_the_end():
    """Every pair of option values (RULES.md §12), the other options sampled: a covering set of combinations."""
    rng = np.random.default_rng(77)
    names = sorted(RULE_OPTIONS)
    g = 0
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            for va in RULE_OPTIONS[a]:
                for vb in RULE_OPTIONS[b]:
                    play_checked(g, sample_rules(rng, **{a: va, b: vb}), fast=True)
                    g += 1


def test_the_same_seed_and_actions_replay_the_same_game():
    """A game is a function of its seed and its actions: replaying them gives the same events and result."""
    for g in range(6):
        rules = sample_rules(np.random.default_rng(g))
        a = new_state(scenario_for(g, fast=True), rules, seed=g)
        b = new_state(scenario_for(g, fast=True), rules, seed=g)
        rng = np.random.default_rng(g)
        while not a.is_terminal():
            assert a.legal() == b.legal()
            act = a.legal()[int(rng.integers(len(a.legal())))]
            a.apply(act)
            b.apply(act)
        assert b.is_terminal() and a.returns() == b.returns()
        assert [e.text for e in a.events] == [e.text for e in b.events]


def test_a_clone_is_independent_of_its_original():
    s = new_state(shipped("duel"), SkirmishRules(), seed=3)
    rng = np.random.default_rng(0)
    for _ in range(40):
        s.apply(s.legal()[int(rng.integers(len(s.legal())))])
    c = s.clone()
    before = ([e.text for e in s.events], [u.cell for u in s.units], list(s.packs[0].draw_pile))
    while not c.is_terminal():
        c.apply(c.legal()[0])
    assert ([e.text for e in s.events], [u.cell for u in s.units], list(s.packs[0].draw_pile)) == before
