"""The skirmish search's determinizations with never-seen enemies sampled in (``never_seen``, issue 31).

RULES.md §9.2: a seat never knows where an unseen figure stands, nor anything of a figure it has never seen;
§10: on a procedural map the roster (figure i of each side: weapon, team) is public and mirrored. So a
determinization may put a never-seen enemy anywhere the seat does not see now, with a weapon from its own
roster, and must give the same sample for any two true states the seat cannot tell apart.
"""

from __future__ import annotations

import copy

import numpy as np

from cardwar.agents.skirmish_heuristic import SkirmishHeuristic, field_of_view
from cardwar.agents.skirmish_search import SkirmishSearch, determinize, never_seen_roster, public_scenario
from cardwar.envs.skirmish.actions import Step
from cardwar.envs.skirmish.generator import generate
from cardwar.envs.skirmish.observation import encode_observation
from cardwar.envs.skirmish.state import new_state

from tests.agents.test_skirmish_agents import _Recorder, fig, observe, scenario

# a high wall between columns E and F: Blue on B3 sees nothing beyond it
WALL = [["E" + str(r), "F" + str(r), "wall_high"] for r in range(1, 7)]
WALL += [["E2", "F1", "wall_high"], ["E4", "F3", "wall_high"], ["E6", "F5", "wall_high"]]


def _hidden_pair():
    """Blue (a rifle and an SMG) west of the wall; two Reds east of it, never seen."""
    sc = scenario([fig("Blue", "B3"), fig("Blue2", "A3", weapon="smg1")],
                  [fig("Red", "H3"), fig("Red2", "I5", weapon="smg1")], edges=WALL)
    return new_state(sc, None, 0)


def _watched(view, board) -> set[int]:
    cells: set[int] = set()
    blockers = frozenset(u.cell for u in view.units if u.vehicle)
    for u in view.units:
        if u.side == view.seat and u.active:
            cells |= field_of_view(board, u.cell, blockers, view.open_doors)
    return cells


def test_the_roster_guess_is_the_seats_own_less_the_enemies_it_knows() -> None:
    """Two own figures (rifle, SMG), no enemy in view: two never-seen enemies, a rifle and an SMG."""
    s = _hidden_pair()
    v = s.information_view(0)
    assert not [u for u in v.units if u.side == 1]
    assert sorted(w for w, _ in never_seen_roster(v)) == ["rifle", "smg1"]


def test_a_sampled_enemy_never_stands_where_the_seat_sees_an_empty_hex() -> None:
    """Every never-seen enemy is placed on a hex none of the seat's men sees, so the determinization's own
    view of the seat is the real one: no enemy in sight."""
    s = _hidden_pair()
    v = s.information_view(0)
    watched = _watched(v, s.scenario.board)
    for seed in range(30):
        d = determinize(v, s.scenario, np.random.default_rng(seed), never_seen=True)
        assert d is not None
        ghosts = [u for u in d.units if u.side == 1]
        assert len(ghosts) == 2
        for g in ghosts:
            assert d.scenario.board.on_map(g.cell) and g.cell not in watched
            assert g.uid not in d.seen[0]
        assert len({u.cell for u in d.units}) == len(d.units)  # no two figures on a hex
        assert [u for u in d.information_view(0).units if u.side == 1] == []
        assert sorted(d.legal()) == sorted(s.legal())


def test_never_seen_samples_read_only_the_view() -> None:
    """Two true states that differ only in where the never-seen Reds stand and in their skills give the same
    view, so the same sampled enemies from the same seed."""
    a = _hidden_pair()
    b = copy.deepcopy(a)
    for u in b.units:
        if u.side == 1:
            u.cell = b.scenario.board.parse("J6" if u.name == "Red" else "G1")
            u.fig.skills = type(u.fig.skills)(9, 9, 9, 9)
    va, vb = a.information_view(0), b.information_view(0)
    assert va == vb
    for seed in range(5):
        da = determinize(va, a.scenario, np.random.default_rng(seed), never_seen=True)
        db = determinize(vb, b.scenario, np.random.default_rng(seed), never_seen=True)
        assert [(u.name, u.cell, u.fig.skills, u.fig.weapon) for u in da.units] == \
               [(u.name, u.cell, u.fig.skills, u.fig.weapon) for u in db.units]


def test_on_a_procedural_map_the_sampled_force_has_the_true_size_and_weapons() -> None:
    """On a procedural map the roster is mirrored (§10), so at every searched decision the determinization
    holds as many enemy figures as the game, with the same weapons; the decision in hand is the same."""
    rng = np.random.default_rng(0)
    checked = 0
    for g in range(2):
        s = new_state(generate(2 * g + 1, deal=g), None, g)
        players = [_Recorder(seed=1), _Recorder(seed=2)]
        while not s.over and checked < 30 * (g + 1):
            obs, v = observe(s)
            me = players[s.seat]
            if v.step in (Step.MODE, Step.ACTION):
                from cardwar.agents.skirmish_search import stage_key

                memory = me.memory if me.memory.key == stage_key(v) else None
                d = determinize(v, public_scenario(obs, v), rng, memory, never_seen=True)
                assert d is not None
                real = sorted(u.fig.weapon for u in s.units if u.side != v.seat)
                assert sorted(u.fig.weapon for u in d.units if u.side != v.seat) == real
                assert sorted(d.legal()) == sorted(s.legal())
                checked += 1
            s.apply(me.act(obs, v))
    assert checked >= 20


def test_the_option_is_taken_and_the_search_plays_legal_moves() -> None:
    s = new_state(generate(3, deal=1), None, 1)
    agents = [SkirmishSearch(seed=1, iterations=10, rollout_depth=20, never_seen=True), SkirmishHeuristic(seed=2)]
    assert agents[0].never_seen
    for _ in range(120):
        if s.over:
            break
        v = s.information_view(s.seat)
        obs = {"observation": encode_observation(v, s.scenario), "action_mask": s.mask()}
        a = agents[s.seat].act(obs, v)
        assert a in s.legal()
        s.apply(a)


def test_two_workers_make_the_serial_searchs_choices() -> None:
    """Root parallelism (``workers=2``) with a fixed iteration count plays the serial search's rows (the same
    determinizations, split between the processes), so every decision is the serial one; ``close`` ends the
    helper process."""
    serial = SkirmishSearch(seed=5, iterations=20, rollout_depth=30, never_seen=True)
    parallel = SkirmishSearch(seed=5, iterations=20, rollout_depth=30, never_seen=True, workers=2)
    other = SkirmishHeuristic(seed=3)
    s = new_state(generate(5, deal=2), None, 2)
    searched = 0
    try:
        for _ in range(90):
            if s.over:
                break
            v = s.information_view(s.seat)
            obs = {"observation": encode_observation(v, s.scenario), "action_mask": s.mask()}
            if s.seat == 0:
                a = serial.act(obs, v)
                b = parallel.act(obs, v)
                assert a == b
                assert serial.last_iterations == parallel.last_iterations
                searched += serial.last_iterations > 0
                serial.last_iterations = parallel.last_iterations = 0
            else:
                a = other.act(obs, v)
            s.apply(a)
        assert searched >= 5
        pool = parallel._rows._pool
        assert pool is not None
        procs = list(pool._processes.values())
        assert procs and all(p.is_alive() for p in procs)
    finally:
        parallel.close()
    assert all(not p.is_alive() for p in procs)
