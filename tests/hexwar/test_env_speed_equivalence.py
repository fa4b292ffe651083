"""Issue 22, env speed: hexwar's fast paths give exactly what the straightforward code gave.

The view (one pass over the units, the public-id order sorted once a game), the observation encoder
(a scenario's cached first planes, float32 values written at once, zero constant planes left alone)
and the occupants remembered for a position are compared, over random games on shipped and
procedural maps, with references written here the plain way (the code before issue 22).
Observations are compared bit for bit.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cardwar.envs import hexwar_v0
from cardwar.envs.hexwar.observation import NUM_CELLS, NUM_PLANES, OBS_SHAPE, P, encode_observation
from cardwar.envs.hexwar.scenario import MAX_OBJECTIVE_VALUE, cell_of
from cardwar.envs.hexwar.state import ELIMINATED, HexState, PendingShot, card_order_key
from cardwar.envs.hexwar.terrain import Terrain
from cardwar.envs.hexwar.view import HexView, UnitView, public_map


def reference_view(s: HexState, side: int | None, everything: bool = False) -> HexView:
    """The view as it was built before issue 22 (a ``known`` test per unit, ids sorted each time)."""
    def known(u: int) -> bool:
        return everything or s.side[u] == side or not s.hidden[u]

    pid = s.public_id
    units = tuple(UnitView(pid[u], s.side[u], s.utype[u], s.cell[u], s.hits[u], s.activated[u],
                           s.hidden[u] and (everything or s.side[u] == side), s.card[u])
                  for u in sorted(range(len(s.cell)), key=pid.__getitem__)
                  if s.cell[u] != ELIMINATED and known(u))
    unknown = sorted(((s.side[u], s.card[u], s.activated[u]) for u in range(len(s.cell))
                      if s.cell[u] != ELIMINATED and not known(u) and s.card[u] >= 0),
                     key=lambda x: card_order_key(x[1]), reverse=True)
    act = s.acting_unit()
    order = tuple(pid[u] for u in s.order[s.ptr:] if s.alive(u) and not s.activated[u] and known(u))
    lost = tuple(sum(1 for u in range(len(s.cell)) if s.side[u] == p and s.cell[u] == ELIMINATED) for p in (0, 1))
    pending = None if s.pending is None else PendingShot(tuple(pid[u] for u in s.pending.shooters),
                                                         pid[s.pending.target])
    shots = tuple(r._replace(shooter=pid[r.shooter], target=pid[r.target]) for r in s.last_shots)
    return HexView(side, s.phase, s.turn, s.scenario.turns, s.current_player,
                   pid[act] if act >= 0 and known(act) else -1, units, order, tuple(s.smoke), tuple(s.holders),
                   pending, shots, lost, s.winner, copy.deepcopy(s.result) if s.result is not None else None,
                   s.scenario.terrain, s.scenario.objectives, public_map(s.scenario), s.config, tuple(unknown))


def reference_encode(v: HexView, scenario) -> np.ndarray:
    """The observation plane by plane, as it was encoded before issue 22."""
    obs = np.zeros((NUM_PLANES, NUM_CELLS), dtype=np.float32)
    for c in range(NUM_CELLS):
        obs[int(scenario.terrain[c]) if scenario.on_map[c] else len(Terrain), c] = 1.0
    flat = obs.reshape(-1)
    me = v.side
    n_order = max(len(v.order), 1)
    pos = {u: i for i, u in enumerate(v.order)}
    acc: dict[int, float] = {}
    own_off = own_off_ready = enemy_off = 0
    order_best: dict[int, float] = {}
    for u in v.units:
        mine = u.side == me
        if u.cell < 0:
            if mine:
                own_off += 1
                own_off_ready += not u.activated
            else:
                enemy_off += 1
            continue
        c = u.cell
        k = ((P["own_foot"] if mine else P["enemy_foot"]) + u.type) * NUM_CELLS + c
        acc[k] = acc.get(k, 0.0) + 0.5
        if u.hits:
            k = (P["own_hits"] if mine else P["enemy_hits"]) * NUM_CELLS + c
            acc[k] = acc.get(k, 0.0) + u.hits / 18.0
        if u.activated:
            k = (P["own_activated"] if mine else P["enemy_activated"]) * NUM_CELLS + c
            acc[k] = acc.get(k, 0.0) + 0.5
        if u.uid in pos:
            k = (P["own_order"] if mine else P["enemy_order"]) * NUM_CELLS + c
            order_best[k] = max(order_best.get(k, 0.0), 1.0 - pos[u.uid] / n_order)
        if mine and u.hidden:
            acc[P["own_hidden"] * NUM_CELLS + c] = 1.0
    acc.update(order_best)
    cells = {u.uid: u for u in v.units}
    if v.acting >= 0:
        a = cells[v.acting]
        if a.cell >= 0:
            acc[P["acting_unit"] * NUM_CELLS + a.cell] = 1.0
        else:
            obs[P["acting_offtable"]] = 1.0
        obs[P["acting_foot"] + int(a.type)] = 1.0
    for c in v.smoke:
        acc[P["smoke"] * NUM_CELLS + c] = 1.0
    for o, h in zip(scenario.objectives, v.holders):
        key = "objective_neutral" if h < 0 else ("objective_mine" if h == me else "objective_enemy")
        acc[P[key] * NUM_CELLS + cell_of(o.hex)] = o.value / MAX_OBJECTIVE_VALUE
    if v.pending is not None:
        t = cells.get(v.pending.target)
        if t is not None and t.cell >= 0:
            acc[P["shot_target"] * NUM_CELLS + t.cell] = 1.0
        for s in v.pending.shooters:
            if s in cells and cells[s].cell >= 0:
                acc[P["shot_shooter"] * NUM_CELLS + cells[s].cell] = 1.0
        obs[P["evade_decision"]] = 1.0
    if acc:
        flat[list(acc)] = list(acc.values())
    obs[P["turn_fraction"]] = v.turn / max(v.turns, 1)
    if me == 0:
        obs[P["i_am_blue"]] = 1.0
    obs[P["own_offtable_artillery"]] = min(own_off / 2.0, 1.0)
    obs[P["own_offtable_ready"]] = min(own_off_ready / 2.0, 1.0)
    obs[P["enemy_offtable_artillery"]] = min(enemy_off / 2.0, 1.0)
    return obs.reshape(OBS_SHAPE)


@pytest.mark.parametrize("scenario, games", [("meeting_engagement", 6), ("random", 12)])
def test_views_observations_masks_and_legal_moves_match_the_references(scenario, games):
    env = hexwar_v0.raw_env(scenario=scenario)
    rng = np.random.default_rng(7)
    checked = 0
    for g in range(games):
        env.reset(seed=g)
        while True:
            s = env.game
            for side in (0, 1, None):
                v = s.information_view(side)
                ref = reference_view(s, side)
                assert v == ref and type(v) is HexView
                got, want = encode_observation(v, s.scenario), reference_encode(ref, s.scenario)
                assert got.dtype == np.float32 and got.shape == want.shape == OBS_SHAPE
                assert np.array_equal(got.view(np.uint32), want.view(np.uint32))  # bit for bit
                checked += 1
            omniscient = HexView.of(s, None, everything=True)
            assert omniscient == reference_view(s, None, everything=True)
            if s.is_terminal():
                break
            agent = env.agent_selection
            obs = env.observe(agent)
            fresh = s.clone()  # no remembered occupants or moves: the rules from scratch
            assert np.flatnonzero(obs["action_mask"]).tolist() == fresh.legal_actions()
            assert s.legal_actions() == fresh.legal_actions()  # twice on the same position: the same
            legal = np.flatnonzero(obs["action_mask"])
            action = int(legal[rng.integers(len(legal))])
            fresh.apply_action(action)
            env.step(action)
            assert env.game.to_dict() == fresh.to_dict()  # the remembered occupants changed nothing
    assert checked > 300


def test_remembered_occupants_follow_the_units_not_only_the_move_number():
    """A state edited by hand (the move number unchanged) is read afresh."""
    env = hexwar_v0.raw_env()
    env.reset(seed=3)
    s = env.game
    s.legal_actions()
    side = s.side[s.acting_unit()]
    mover = next(u for u in range(len(s.cell)) if s.side[u] == side and s.cell[u] >= 0 and u != s.acting_unit())
    free = next(c for c in range(NUM_CELLS) if s.scenario.passable[c] and c not in s.cell)
    s.cell[mover] = free
    assert s._occupants(side) == s.known_occupants(side)
    assert free in s._occupants(side)
