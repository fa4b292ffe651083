"""The spatial observation of one side: float32 planes over the fixed 12 x 10 grid.

Built from the side's :class:`HexView` only (hidden enemies never appear). Each
plane is ``[row, col]`` in the odd-r layout of the map; whole-board facts
(turn, phase, off-table artillery, the acting unit's type) are constant planes,
so the tensor suits a CNN as it is. Every plane, in order (built by :func:`plane_table`
from :data:`PLANES`; "constant" planes hold one value over the whole grid; a hex holds
at most two units):

{{PLANE_TABLE}}
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.doc_pages import fill, markdown_table
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

_STATIC: dict[int, tuple[Scenario, np.ndarray, tuple[tuple[int, float], ...]]] = {}


def _static_planes(sc: Scenario) -> tuple[np.ndarray, tuple[tuple[int, float], ...]]:
    """A whole observation holding only the scenario's terrain one-hot and off-map plane (every
    observation starts as its copy), and each objective's (cell, value / MAX_OBJECTIVE_VALUE); built
    once a scenario."""
    hit = _STATIC.get(id(sc))
    if hit is not None and hit[0] is sc:
        return hit[1], hit[2]
    planes = np.zeros((NUM_PLANES, NUM_CELLS), dtype=np.float32)
    for c in range(NUM_CELLS):
        if sc.on_map[c]:
            planes[int(sc.terrain[c]), c] = 1.0
        else:
            planes[len(Terrain), c] = 1.0
    objectives = tuple((cell_of(o.hex), o.value / MAX_OBJECTIVE_VALUE) for o in sc.objectives)
    if len(_STATIC) > 256:
        _STATIC.clear()
    _STATIC[id(sc)] = (sc, planes, objectives)
    return planes, objectives


def encode_observation(v: HexView, scenario: Scenario) -> np.ndarray:
    """The (planes, 10, 12) float32 observation of ``v.side``.

    Values are summed per hex in Python floats and written by one index assignment (the terrain planes
    come from the scenario's cached copy); tests/hexwar/test_env_speed_equivalence.py checks it bit for
    bit against a plane-by-plane encoder.
    """
    static, objectives = _static_planes(scenario)
    obs = static.copy()
    flat = obs.reshape(-1)
    me = v.side
    n_order = max(len(v.order), 1)
    pos = {u: i for i, u in enumerate(v.order)}
    acc: dict[int, float] = {}  # flat index -> value, summed in Python (one numpy call at the end)
    get = acc.get
    own_off = own_off_ready = enemy_off = 0
    order_best: dict[int, float] = {}
    for u in v.units:
        c = u.cell
        mine = u.side == me
        if c < 0:
            if mine:
                own_off += 1
                own_off_ready += not u.activated
            else:
                enemy_off += 1
            continue
        k = ((_OWN if mine else _ENEMY) + u.type) * NUM_CELLS + c
        acc[k] = get(k, 0.0) + 0.5
        if u.hits:
            k = (_OWN_HITS if mine else _ENEMY_HITS) * NUM_CELLS + c
            acc[k] = get(k, 0.0) + u.hits / 18.0
        if u.activated:
            k = (_OWN_ACT if mine else _ENEMY_ACT) * NUM_CELLS + c
            acc[k] = get(k, 0.0) + 0.5
        place = pos.get(u.uid)
        if place is not None:
            k = (_OWN_ORDER if mine else _ENEMY_ORDER) * NUM_CELLS + c
            order_best[k] = max(order_best.get(k, 0.0), 1.0 - place / n_order)
        if mine and u.hidden:
            acc[_OWN_HIDDEN * NUM_CELLS + c] = 1.0
    acc.update(order_best)
    if v.acting >= 0:
        a = {u.uid: u for u in v.units}[v.acting]
        if a.cell >= 0:
            acc[_ACTING_UNIT * NUM_CELLS + a.cell] = 1.0
        else:
            obs[_ACTING_OFFTABLE] = 1.0
        obs[_ACTING_FOOT + int(a.type)] = 1.0
    for c in v.smoke:
        acc[_SMOKE * NUM_CELLS + c] = 1.0
    for (cell, value), h in zip(objectives, v.holders):
        plane = _OBJ_NEUTRAL if h < 0 else (_OBJ_MINE if h == me else _OBJ_ENEMY)
        acc[plane * NUM_CELLS + cell] = value
    if v.pending is not None:
        cells = {u.uid: u.cell for u in v.units}
        t = cells.get(v.pending.target)
        if t is not None and t >= 0:
            acc[_SHOT_TARGET * NUM_CELLS + t] = 1.0
        for sh in v.pending.shooters:
            if cells.get(sh, -1) >= 0:
                acc[_SHOT_SHOOTER * NUM_CELLS + cells[sh]] = 1.0
        obs[_EVADE] = 1.0
    if acc:
        # float32 values straight from the Python floats (the same rounding as a cast, without numpy's
        # slower casting assignment)
        flat[np.fromiter(acc, np.intp, len(acc))] = np.fromiter(acc.values(), np.float32, len(acc))
    obs[_TURN_FRACTION] = v.turn / max(v.turns, 1)
    if me == 0:
        obs[_I_AM_BLUE] = 1.0
    if own_off:  # constant planes written only when not zero: the copy starts them at zero
        obs[_OWN_OFF] = min(own_off / 2.0, 1.0)
        if own_off_ready:
            obs[_OWN_OFF_READY] = min(own_off_ready / 2.0, 1.0)
    if enemy_off:
        obs[_ENEMY_OFF] = min(enemy_off / 2.0, 1.0)
    return obs.reshape(OBS_SHAPE)


_ACTING_UNIT, _ACTING_OFFTABLE, _ACTING_FOOT = P["acting_unit"], P["acting_offtable"], P["acting_foot"]
_SMOKE, _SHOT_TARGET, _SHOT_SHOOTER, _EVADE = P["smoke"], P["shot_target"], P["shot_shooter"], P["evade_decision"]
_OBJ_NEUTRAL, _OBJ_MINE, _OBJ_ENEMY = P["objective_neutral"], P["objective_mine"], P["objective_enemy"]
_TURN_FRACTION, _I_AM_BLUE = P["turn_fraction"], P["i_am_blue"]
_OWN_OFF, _OWN_OFF_READY, _ENEMY_OFF = (P["own_offtable_artillery"], P["own_offtable_ready"],
                                        P["enemy_offtable_artillery"])
_OWN, _ENEMY = P["own_foot"], P["enemy_foot"]
_OWN_HITS, _ENEMY_HITS, _OWN_ACT, _ENEMY_ACT = P["own_hits"], P["enemy_hits"], P["own_activated"], P["enemy_activated"]
_OWN_ORDER, _ENEMY_ORDER, _OWN_HIDDEN = P["own_order"], P["enemy_order"], P["own_hidden"]


_PLANE_MEANINGS = {
    "off_map": ("0/1", "1 on cells outside this scenario's map (maps smaller than the grid)"),
    "own_hits": ("[0, 1]", "hits of my units in the hex, summed, / 18 (a unit is eliminated after 8)"),
    "enemy_hits": ("[0, 1]", "hits of the enemy units I see in the hex, summed, / 18"),
    "own_activated": ("0, 0.5, 1", "0.5 per unit of mine in the hex that has acted this turn"),
    "enemy_activated": ("0, 0.5, 1", "0.5 per enemy unit I see in the hex that has acted this turn"),
    "acting_unit": ("0/1", "1 on the hex of the unit to act"),
    "smoke": ("0/1", "1 on hexes under smoke"),
    "objective_mine": ("[0, 1]", f"on an objective I hold: its value / {MAX_OBJECTIVE_VALUE}"),
    "objective_enemy": ("[0, 1]", f"on an objective the enemy holds: its value / {MAX_OBJECTIVE_VALUE}"),
    "objective_neutral": ("[0, 1]", f"on an objective nobody holds: its value / {MAX_OBJECTIVE_VALUE}"),
    "own_order": ("[0, 1]", "for my units still to act this turn: 1 - (place in the activation order) / "
                            "(units in it), the hex's soonest"),
    "enemy_order": ("[0, 1]", "the same for the enemy units I see"),
    "shot_target": ("0/1", "1 on the hex of the unit a pending shot aims at"),
    "shot_shooter": ("0/1", "1 on the hexes of the pending shot's shooters"),
    "own_hidden": ("0/1", "1 on hexes where a unit of mine is hidden"),
    "turn_fraction": ("constant [0, 1]", "turn / the scenario's turns"),
    "evade_decision": ("constant 0/1", "a shot is pending: the decision is whether to evade"),
    "i_am_blue": ("constant 0/1", "I am blue"),
    "own_offtable_artillery": ("constant [0, 1]", "my off-table artillery units / 2, at most 1"),
    "own_offtable_ready": ("constant [0, 1]", "those of them that have not acted this turn / 2, at most 1"),
    "enemy_offtable_artillery": ("constant [0, 1]", "the enemy's off-table artillery units / 2, at most 1"),
    "acting_offtable": ("constant 0/1", "the unit to act is off-table artillery"),
}


def plane_meaning(name: str) -> tuple[str, str]:
    """(values, meaning) of the plane ``name``; KeyError for a plane nobody described."""
    if name in _PLANE_MEANINGS:
        return _PLANE_MEANINGS[name]
    kind, _, what = name.partition("_")
    if kind == "terrain":
        return "0/1", f"1 where the hex is {what}"
    if kind == "own" and what.upper() in UnitType.__members__:
        return "0, 0.5, 1", f"0.5 per unit of mine of type {what} in the hex"
    if kind == "enemy" and what.upper() in UnitType.__members__:
        return "0, 0.5, 1", f"0.5 per enemy unit of type {what} I see in the hex"
    if kind == "acting" and what.upper() in UnitType.__members__:
        return "constant 0/1", f"the unit to act is of type {what} (one-hot)"
    raise KeyError(f"plane {name!r} has no meaning in the observation's table")


def plane_table() -> list[tuple[int, str, str, str]]:
    """Every plane of the observation: (index, name, values, meaning), in order."""
    return [(k, name, *plane_meaning(name)) for k, name in enumerate(PLANES)]


PLANE_TABLE = markdown_table(("plane", "name", "values", "meaning"), plane_table())
"""The table of :func:`plane_table` in Markdown (what the env pages show)."""

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE)
