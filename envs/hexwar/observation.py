"""The spatial observation of one side: float32 planes over the fixed 12 x 10 grid.

Built from the side's :class:`HexView` only (hidden enemies never appear). Each
plane is ``[row, col]`` in the odd-r layout of the map; whole-board facts
(turn, phase, off-table artillery, the acting unit's type) are constant planes,
so the tensor suits a CNN as it is.
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.hexwar.scenario import MAX_HEIGHT, MAX_OBJECTIVE_VALUE, MAX_WIDTH, NUM_CELLS, Scenario, cell_of
from cardwar.envs.hexwar.terrain import Terrain
from cardwar.envs.hexwar.units import UnitType
from cardwar.envs.hexwar.view import HexView

PLANES = (
    [f"terrain_{t.name.lower()}" for t in Terrain] + ["off_map"]
    + [f"own_{t.name.lower()}" for t in UnitType] + [f"enemy_{t.name.lower()}" for t in UnitType]
    + ["own_hits", "enemy_hits", "own_activated", "enemy_activated", "acting_unit", "smoke",
       "objective_mine", "objective_enemy", "objective_neutral", "own_order", "enemy_order",
       "shot_target", "shot_shooter", "own_hidden",
       "turn_fraction", "evade_decision", "i_am_blue", "own_offtable_artillery", "own_offtable_ready",
       "enemy_offtable_artillery", "acting_offtable"]
    + [f"acting_{t.name.lower()}" for t in UnitType]
)
P = {name: i for i, name in enumerate(PLANES)}
NUM_PLANES = len(PLANES)
OBS_SHAPE = (NUM_PLANES, MAX_HEIGHT, MAX_WIDTH)

_STATIC: dict[int, tuple[Scenario, np.ndarray]] = {}


def _static_planes(sc: Scenario) -> np.ndarray:
    """Terrain one-hot and the off-map plane of a scenario, built once."""
    hit = _STATIC.get(id(sc))
    if hit is not None and hit[0] is sc:
        return hit[1]
    planes = np.zeros((len(Terrain) + 1, NUM_CELLS), dtype=np.float32)
    for c in range(NUM_CELLS):
        if sc.on_map[c]:
            planes[int(sc.terrain[c]), c] = 1.0
        else:
            planes[len(Terrain), c] = 1.0
    if len(_STATIC) > 256:
        _STATIC.clear()
    _STATIC[id(sc)] = (sc, planes)
    return planes


def encode_observation(v: HexView, scenario: Scenario) -> np.ndarray:
    """The (planes, 10, 12) float32 observation of ``v.side``."""
    obs = np.zeros((NUM_PLANES, NUM_CELLS), dtype=np.float32)
    obs[:len(Terrain) + 1] = _static_planes(scenario)
    flat = obs.reshape(-1)
    me = v.side
    n_order = max(len(v.order), 1)
    pos = {u: i for i, u in enumerate(v.order)}
    acc: dict[int, float] = {}  # flat index -> value, summed in Python (one numpy call at the end)
    get = acc.get
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
        k = ((_OWN if mine else _ENEMY) + u.type) * NUM_CELLS + c
        acc[k] = get(k, 0.0) + 0.5
        if u.hits:
            k = (_OWN_HITS if mine else _ENEMY_HITS) * NUM_CELLS + c
            acc[k] = get(k, 0.0) + u.hits / 18.0
        if u.activated:
            k = (_OWN_ACT if mine else _ENEMY_ACT) * NUM_CELLS + c
            acc[k] = get(k, 0.0) + 0.5
        if u.uid in pos:
            k = (_OWN_ORDER if mine else _ENEMY_ORDER) * NUM_CELLS + c
            order_best[k] = max(order_best.get(k, 0.0), 1.0 - pos[u.uid] / n_order)
        if mine and u.hidden:
            acc[_OWN_HIDDEN * NUM_CELLS + c] = 1.0
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


_OWN, _ENEMY = P["own_foot"], P["enemy_foot"]
_OWN_HITS, _ENEMY_HITS, _OWN_ACT, _ENEMY_ACT = P["own_hits"], P["enemy_hits"], P["own_activated"], P["enemy_activated"]
_OWN_ORDER, _ENEMY_ORDER, _OWN_HIDDEN = P["own_order"], P["enemy_order"], P["own_hidden"]
