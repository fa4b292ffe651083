"""The spatial observation of one seat: float32 planes over the fixed 24 x 16 frame, channels-last.

Built from the seat's :class:`~cardwar.envs.tankattack.view.TankView` only (its ``data``: the whole state
less the random Generator, RULES.md 18), so two states with the same view give the same observation.
``observation[row, col, p]`` is plane ``p`` at cell ``row * 16 + col`` (row 0 the attacker's, north edge);
a smaller map uses the frame's top-left part and ``off_map`` marks the rest. Whole-board facts (the
stage, PIPs, the bound, reserves, AP Lost, who I am) are constant planes. Every plane, in order (built
by :func:`plane_table` from :data:`PLANES`; "own" and "enemy" are from the seat's side):

{{PLANE_TABLE}}
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.doc_pages import fill, markdown_table
from cardwar.envs.tankattack.board import MAX_ROWS, NUM_CELLS, STRIDE, Board, Ground, label, parse_map
from cardwar.envs.tankattack.elements import RESERVE_ONLY, STATS, EType
from cardwar.envs.tankattack.fight import LOST
from cardwar.envs.tankattack.state import RESERVE, Stage, TankState
from cardwar.envs.tankattack.view import PublicState, TankView

FACINGS = ("n", "e", "s", "w")
FLAGS = ("moved", "shot", "targeted", "fought", "suppressed", "wire_contact", "observed", "initiated")
"""Per-element flags of the view (RULES.md 18: moved, shot, targeted, fought, Suppressed, held at wire,
observer used, initiated contact this bound)."""
PENDING = ("pending_element", "pending_dest", "pending_shooter", "pending_target", "pending_aid",
           "pending_combat", "combat_pair")
STAGES = tuple(s.value for s in Stage)
MAX_RESERVE = 4
"""A reserve count is shown / 4, at most 1."""
MAX_TIMER = 7
"""A Gas's timer (its duration die + 1, RULES.md 9.4) is shown / 7."""

RESERVE_TYPES = tuple(t for t in EType if t in RESERVE_ONLY)
"""The types that enter from reserve (RULES.md 9); an element of another type listed in a reserve never
enters, and counts only in its army's AP (the ``lost_ap`` planes' denominators)."""

PLANES: tuple[str, ...] = (
    tuple(f"ground_{g.name.lower()}" for g in Ground) + ("off_map",)
    + ("trench", "strongpoint", "bunker", "mine_area", "wire_own", "wire_enemy")
    + tuple(f"own_{t.name.lower()}" for t in EType) + tuple(f"enemy_{t.name.lower()}" for t in EType)
    + tuple(f"own_facing_{f}" for f in FACINGS) + tuple(f"enemy_facing_{f}" for f in FACINGS)
    + ("own_general", "enemy_general", "own_gas_timer", "enemy_gas_timer", "own_lurker_home", "enemy_lurker_home")
    + tuple(f"own_{f}" for f in FLAGS) + tuple(f"enemy_{f}" for f in FLAGS)
    + PENDING
    + tuple(f"stage_{s}" for s in STAGES)
    + ("pips_left", "pips_rolled", "bound_fraction", "i_am_defender", "i_am_active", "to_decide",
       "own_lost_ap", "enemy_lost_ap", "bunker_alive")
    + tuple(f"own_reserve_{t.name.lower()}" for t in RESERVE_TYPES)
    + tuple(f"enemy_reserve_{t.name.lower()}" for t in RESERVE_TYPES)
)
P = {name: i for i, name in enumerate(PLANES)}
NUM_PLANES = len(PLANES)
OBS_SHAPE = (MAX_ROWS, STRIDE, NUM_PLANES)

_CELL_OF = {label(c): c for c in range(NUM_CELLS)}
_TYPE_OF = {t.name.lower(): t for t in EType}
_RESERVE_INDEX = {t: k for k, t in enumerate(RESERVE_TYPES)}
_STATIC: dict[tuple[str, ...], tuple[Board, np.ndarray]] = {}


def _static(rows: tuple[str, ...]) -> tuple[Board, np.ndarray]:
    """The board of a map and an observation holding only its fixed planes (ground, off-map, trench,
    Strongpoints, designated minefield areas); built once a map."""
    hit = _STATIC.get(rows)
    if hit is not None:
        return hit
    board = parse_map(rows)
    obs = np.zeros((NUM_CELLS, NUM_PLANES), dtype=np.float32)
    on = set(board.map_cells())
    for c in range(NUM_CELLS):
        if c in on:
            obs[c, int(board.ground[c])] = 1.0
        else:
            obs[c, P["off_map"]] = 1.0
    for c in board.trench:
        obs[c, P["trench"]] = 1.0
    for c in board.strongpoints:
        obs[c, P["strongpoint"]] = 1.0
    for c in board.mine_areas:
        obs[c, P["mine_area"]] = 1.0
    if len(_STATIC) > 256:
        _STATIC.clear()
    _STATIC[rows] = (board, obs)
    return board, obs


def _side_to_decide(d: dict) -> int:
    """The seat to decide, read from the view's data exactly as ``TankState.current_player`` reads the state."""
    st, p, els = d["stage"], d["pending"], d["elements"]
    if st in ("face_choice", "recoil_choice"):
        return els[p["element"]]["side"]
    if st in ("shoot_target", "shoot_aid"):
        return els[p["shooter"]]["side"]
    if st == "shoot_return":
        return els[p["target"]]["side"]
    return d["active"]


def encode_observation(v: TankView, seat: int | None = None) -> np.ndarray:
    """The (24, 16, planes) float32 observation of ``seat`` (default ``v.seat``; a spectator's, ``None``,
    is the defender's) from its view alone."""
    me = (v.seat if seat is None else seat) or 0
    if v.public is not None:
        return _encode_public(v.public, me)
    d = v.data
    board, static = _static(tuple(d["scenario"]["map"]))
    obs = static.copy()
    els = d["elements"]
    cells = [_CELL_OF.get(e["cell"], -1) for e in els]
    side_ap = [0, 0]
    lost_ap = [0, 0]
    reserve = [[0] * len(RESERVE_TYPES), [0] * len(RESERVE_TYPES)]
    for e, c in zip(els, cells):
        t = _TYPE_OF[e["type"]]
        sd = e["side"]
        ap = STATS[t].ap
        side_ap[sd] += ap
        if e["cell"] == "lost":
            lost_ap[sd] += ap
        if c < 0:
            k = _RESERVE_INDEX.get(t)
            if k is not None and e["cell"] == "reserve":
                reserve[sd][k] += 1
            continue
        mine = sd == me
        row = obs[c]
        row[(_OWN if mine else _ENEMY) + t] = 1.0
        row[(_OWN_FACE if mine else _ENEMY_FACE) + e["facing"]] = 1.0
        if e["general"]:
            row[_OWN_GEN if mine else _ENEMY_GEN] = 1.0
        if e.get("timer") and e["type"] == "gas":  # a remounted Cavalry's timer (8.8) is not shown here
            row[_OWN_TIMER if mine else _ENEMY_TIMER] = min(e["timer"] / MAX_TIMER, 1.0)
        if e.get("home"):
            obs[_CELL_OF[e["home"]], _OWN_HOME if mine else _ENEMY_HOME] = 1.0
        base = _OWN_FLAG if mine else _ENEMY_FLAG
        for k, f in enumerate(FLAGS):
            if e[f]:
                row[base + k] = 1.0
    for c_label, owner in d["wire"].items():
        obs[_CELL_OF[c_label], _WIRE_OWN if owner == me else _WIRE_ENEMY] = 1.0
    if d["bunker_alive"] and board.bunker is not None:
        obs[board.bunker, _BUNKER] = 1.0
    p = d["pending"]

    def mark(plane: int, e: int) -> None:
        if e == -1:  # the Bunker (BUNKER_ID) in combat
            if board.bunker is not None:
                obs[board.bunker, plane] = 1.0
        elif cells[e] >= 0:
            obs[cells[e], plane] = 1.0

    if "element" in p:
        mark(P["pending_element"], p["element"])
    if "dest" in p:
        obs[p["dest"], P["pending_dest"]] = 1.0
    if "shooter" in p:
        mark(P["pending_shooter"], p["shooter"])
    if "target" in p:
        mark(P["pending_target"], p["target"])
    for a in p.get("aids", ()):
        mark(P["pending_aid"], a)
    if "x" in p:
        mark(P["pending_combat"], p["x"])
    for pair in d["pairs"]:
        for e in pair:
            mark(P["combat_pair"], e)
    flat = obs.reshape(NUM_CELLS, NUM_PLANES)
    consts = {_STAGE + STAGES.index(d["stage"]): 1.0,
              P["pips_left"]: min(d["pips"], 6) / 6.0, P["pips_rolled"]: min(d["pip_roll"], 6) / 6.0,
              P["bound_fraction"]: min(d["bound"] / max(2 * d["scenario"]["turn_limit"], 1), 1.0),
              P["i_am_defender"]: float(me == 0), P["i_am_active"]: float(d["active"] == me),
              P["own_lost_ap"]: lost_ap[me] / side_ap[me] if side_ap[me] else 0.0,
              P["enemy_lost_ap"]: lost_ap[1 - me] / side_ap[1 - me] if side_ap[1 - me] else 0.0,
              P["bunker_alive"]: float(d["bunker_alive"])}
    if d["stage"] != "game_over":
        consts[P["to_decide"]] = float(_side_to_decide(d) == me)
    for sd, base in ((me, _OWN_RES), (1 - me, _ENEMY_RES)):
        for t, n in enumerate(reserve[sd]):
            if n:
                consts[base + t] = min(n / MAX_RESERVE, 1.0)
    for k, val in consts.items():
        if val:
            flat[:, k] = val
    return obs.reshape(OBS_SHAPE)


def encode_state(s: TankState, seat: int | None) -> np.ndarray:
    """``encode_observation(s.information_view(seat))`` without taking the view's copy (speed, the env's
    observation): it reads the same public fields, which the state and its :class:`PublicState` name alike,
    and never the Generator, the one thing the view leaves out (RULES.md 18). What the elements, wire and
    Bunker put in (:func:`_board_pieces`) is kept in the state's memo, which every action that changes them
    clears: choosing an element or its destination changes only the decision's marks and constants."""
    me = seat or 0
    memo = s._memo
    if memo is None:
        memo = s._memo = {}
    key = ("obs", me)
    pieces = memo.get(key)
    if pieces is None:
        pieces = memo[key] = _board_pieces(s, me)
    return _encode_public(s, me, pieces)


def _board_pieces(ps: PublicState, me: int) -> tuple:
    """What the elements, the wire and the Bunker put in ``me``'s observation: the flat indices of its 1.0
    planes, its timers as (flat index, value), each side's AP and Lost AP, and each side's reserve counts by
    :data:`RESERVE_TYPES`. The decision's marks (pending, pairs) and the constant planes are not here."""
    etype, side, cell, facing, general, timer, home = ps.etype, ps.side, ps.cell, ps.facing, ps.general, ps.timer, \
        ps.home
    flags = (ps.moved, ps.shot, ps.targeted, ps.fought, ps.suppressed, ps.wire_contact, ps.observed, ps.initiated)
    side_ap = [0, 0]
    lost_ap = [0, 0]
    reserve = [[0] * len(RESERVE_TYPES), [0] * len(RESERVE_TYPES)]
    timers: list[tuple[int, float]] = []
    ones: list[int] = []  # flat indices (cell x planes + plane) of the planes set to 1.0
    put = ones.append
    for e in range(len(cell)):
        t = etype[e]
        sd = side[e]
        ap = _AP[t]
        side_ap[sd] += ap
        c = cell[e]
        if c < 0:
            if c == LOST:
                lost_ap[sd] += ap
            elif c == RESERVE:
                k = _RESERVE_INDEX.get(t)
                if k is not None:
                    reserve[sd][k] += 1
            continue
        mine = sd == me
        at = c * NUM_PLANES
        put(at + (_OWN if mine else _ENEMY) + t)
        put(at + (_OWN_FACE if mine else _ENEMY_FACE) + facing[e])
        if general[e]:
            put(at + (_OWN_GEN if mine else _ENEMY_GEN))
        if timer[e] and t is EType.GAS:  # a remounted Cavalry's timer (8.8) is not shown here
            timers.append((at + (_OWN_TIMER if mine else _ENEMY_TIMER), min(timer[e] / MAX_TIMER, 1.0)))
        if home[e] >= 0:
            put(home[e] * NUM_PLANES + (_OWN_HOME if mine else _ENEMY_HOME))
        at += _OWN_FLAG if mine else _ENEMY_FLAG
        for k, f in enumerate(flags):
            if f[e]:
                put(at + k)
    for c, owner in ps.wire.items():
        put(c * NUM_PLANES + (_WIRE_OWN if owner == me else _WIRE_ENEMY))
    bunker = _static(ps.scenario.map_rows)[0].bunker
    if ps.bunker_alive and bunker is not None:
        put(bunker * NUM_PLANES + _BUNKER)
    return ones, timers, side_ap, lost_ap, reserve


def _encode_public(ps: PublicState, me: int, pieces: tuple | None = None) -> np.ndarray:
    """:func:`encode_observation` read straight from the view's copy of the state rather than its JSON-ready
    ``data`` (speed: every 1.0 is written in one indexed store); the same planes, value for value
    (tests/tankattack/test_view_copy.py compares the two). ``pieces``: :func:`_board_pieces` of ``ps`` and
    ``me`` if the caller has them."""
    board, static = _static(ps.scenario.map_rows)
    obs = static.copy()
    flat = obs.reshape(-1)
    ones, timers, side_ap, lost_ap, reserve = _board_pieces(ps, me) if pieces is None else pieces
    ones = ones[:]  # the decision's marks are added to a copy: ``pieces`` may be kept
    put = ones.append
    for at, val in timers:
        flat[at] = val
    cell, side = ps.cell, ps.side
    bunker = board.bunker
    p = ps.pending

    def mark(plane: int, e: int) -> None:
        if e == -1:  # the Bunker (BUNKER_ID) in combat
            if bunker is not None:
                put(bunker * NUM_PLANES + plane)
        elif cell[e] >= 0:
            put(cell[e] * NUM_PLANES + plane)

    if p:
        if "element" in p:
            mark(_PENDING_ELEMENT, p["element"])
        if "dest" in p:
            put(p["dest"] * NUM_PLANES + _PENDING_DEST)
        if "shooter" in p:
            mark(_PENDING_SHOOTER, p["shooter"])
        if "target" in p:
            mark(_PENDING_TARGET, p["target"])
        for a in p.get("aids", ()):
            mark(_PENDING_AID, a)
        if "x" in p:
            mark(_PENDING_COMBAT, p["x"])
    for pair in ps.pairs:
        for e in pair:
            mark(_COMBAT_PAIR, e)
    flat[np.fromiter(ones, np.intp, len(ones))] = 1.0  # an index array: cheaper than numpy reading a list
    st = ps.stage
    consts = {_STAGE + _STAGE_INDEX[st]: 1.0,
              _PIPS_LEFT: min(ps.pips, 6) / 6.0, _PIPS_ROLLED: min(ps.pip_roll, 6) / 6.0,
              _BOUND_FRACTION: min(ps.bound / max(2 * ps.scenario.turn_limit, 1), 1.0),
              _I_AM_DEFENDER: float(me == 0), _I_AM_ACTIVE: float(ps.active == me),
              _OWN_LOST: lost_ap[me] / side_ap[me] if side_ap[me] else 0.0,
              _ENEMY_LOST: lost_ap[1 - me] / side_ap[1 - me] if side_ap[1 - me] else 0.0,
              _BUNKER_ALIVE: float(ps.bunker_alive)}
    if st is not Stage.GAME_OVER:
        if st is Stage.FACE_CHOICE or st is Stage.RECOIL_CHOICE:
            decider = side[p["element"]]
        elif st is Stage.SHOOT_TARGET or st is Stage.SHOOT_AID:
            decider = side[p["shooter"]]
        elif st is Stage.SHOOT_RETURN:
            decider = side[p["target"]]
        else:
            decider = ps.active
        consts[_TO_DECIDE] = float(decider == me)
    for sd, base in ((me, _OWN_RES), (1 - me, _ENEMY_RES)):
        for t, n in enumerate(reserve[sd]):
            if n:
                consts[base + t] = min(n / MAX_RESERVE, 1.0)
    planes = [k for k, val in consts.items() if val]
    obs[:, planes] = [consts[k] for k in planes]
    return obs.reshape(OBS_SHAPE)


_AP = {t: STATS[t].ap for t in EType}
_STAGE_INDEX = {s: k for k, s in enumerate(Stage)}
(_PENDING_ELEMENT, _PENDING_DEST, _PENDING_SHOOTER, _PENDING_TARGET, _PENDING_AID, _PENDING_COMBAT,
 _COMBAT_PAIR) = (P[name] for name in PENDING)
_PIPS_LEFT, _PIPS_ROLLED, _BOUND_FRACTION = P["pips_left"], P["pips_rolled"], P["bound_fraction"]
_I_AM_DEFENDER, _I_AM_ACTIVE, _TO_DECIDE = P["i_am_defender"], P["i_am_active"], P["to_decide"]
_OWN_LOST, _ENEMY_LOST, _BUNKER_ALIVE = P["own_lost_ap"], P["enemy_lost_ap"], P["bunker_alive"]
_OWN, _ENEMY = P["own_rifles"], P["enemy_rifles"]
_OWN_FACE, _ENEMY_FACE = P["own_facing_n"], P["enemy_facing_n"]
_OWN_GEN, _ENEMY_GEN = P["own_general"], P["enemy_general"]
_OWN_TIMER, _ENEMY_TIMER = P["own_gas_timer"], P["enemy_gas_timer"]
_OWN_HOME, _ENEMY_HOME = P["own_lurker_home"], P["enemy_lurker_home"]
_OWN_FLAG, _ENEMY_FLAG = P["own_moved"], P["enemy_moved"]
_WIRE_OWN, _WIRE_ENEMY, _BUNKER = P["wire_own"], P["wire_enemy"], P["bunker"]
_STAGE = P[f"stage_{STAGES[0]}"]
_OWN_RES = P[f"own_reserve_{RESERVE_TYPES[0].name.lower()}"]
_ENEMY_RES = P[f"enemy_reserve_{RESERVE_TYPES[0].name.lower()}"]

_FLAG_MEANINGS = {
    "moved": "made a tactical move this bound", "shot": "has shot (or aided a shot) this step",
    "targeted": "has been a target this shooting step", "fought": "has fought in close combat this bound",
    "suppressed": "is Suppressed (16.3)", "wire_contact": "is held at enemy wire (16.2)",
    "observed": "a Forward Observer or Balloon has been used for it this bound",
    "initiated": "moved into contact this bound (14: the outcome rows read who initiated)",
}
_PENDING_MEANINGS = {
    "pending_element": "the element a move, face choice or recoil choice is about",
    "pending_dest": "the destination chosen for the pending move (its facing is next)",
    "pending_shooter": "the shooter of the pending shot",
    "pending_target": "the target of the pending shot",
    "pending_aid": "the elements aiding the pending shot",
    "pending_combat": "the element (or the Bunker) chosen for the next close combat; its enemy is next",
    "combat_pair": "the elements (and the Bunker) in this bound's close-combat pairs",
}
_PLANE_MEANINGS = {
    "off_map": ("0/1", "1 on cells of the 24 x 16 frame outside this scenario's map"),
    "trench": ("0/1", "a trench cell (16.1; a Strongpoint is one too)"),
    "strongpoint": ("0/1", "a Strongpoint (2.2)"),
    "bunker": ("0/1", "the Command Bunker, while it stands (16.4)"),
    "mine_area": ("0/1", "a designated minefield area (9.7)"),
    "wire_own": ("0/1", "barbed wire of my side still standing (16.2)"),
    "wire_enemy": ("0/1", "the enemy's barbed wire still standing"),
    "own_general": ("0/1", "my General's cell"),
    "own_gas_timer": ("[0, 1]", f"on my Gas: the bounds of mine it still lasts (its timer) / {MAX_TIMER} (9.4)"),
    "enemy_gas_timer": ("[0, 1]", f"on the enemy's Gas: its timer / {MAX_TIMER}"),
    "own_lurker_home": ("0/1", "the cell where my Sniper or Minefield entered: it is bound to that feature "
                               "(9.6-9.7)"),
    "enemy_lurker_home": ("0/1", "the same for the enemy's Lurkers"),
    "enemy_general": ("0/1", "the enemy General's cell"),
    "pips_left": ("constant [0, 1]", "the active side's PIPs left / 6"),
    "pips_rolled": ("constant [0, 1]", "the PIP die rolled this bound / 6"),
    "bound_fraction": ("constant [0, 1]", "bound / (2 x the scenario's turn limit), at most 1"),
    "i_am_defender": ("constant 0/1", "I am the defender (seat 0)"),
    "i_am_active": ("constant 0/1", "this is my bound"),
    "to_decide": ("constant 0/1", "the decision now is mine (RULES.md 19: not always the active side's)"),
    "own_lost_ap": ("constant [0, 1]", "AP of my Lost elements / my army's AP (0.5 breaks it, 17.2)"),
    "enemy_lost_ap": ("constant [0, 1]", "the same for the enemy"),
    "bunker_alive": ("constant 0/1", "the Command Bunker stands"),
}


def plane_meaning(name: str) -> tuple[str, str]:
    """(values, meaning) of the plane ``name``; KeyError for a plane nobody described."""
    if name in _PLANE_MEANINGS:
        return _PLANE_MEANINGS[name]
    if name in _PENDING_MEANINGS:
        return "0/1", _PENDING_MEANINGS[name]
    kind, _, what = name.partition("_")
    if kind == "ground":
        return "0/1", f"1 where the ground is {what}"
    if kind == "stage":
        return "constant 0/1", f"the game waits in stage {what} (one-hot)"
    if kind in ("own", "enemy"):
        who = "mine" if kind == "own" else "the enemy's"
        if what.startswith("facing_"):
            return "0/1", f"an element of {who} faces {what[-1].upper()}"
        if what.startswith("reserve_"):
            t = what[len("reserve_"):]
            return "constant [0, 1]", f"{who} {t} elements in reserve / {MAX_RESERVE}, at most 1"
        if what in FLAGS:
            return "0/1", f"an element of {who} that {_FLAG_MEANINGS[what]}"
        if what in _TYPE_OF:
            return "0/1", f"an element of {who} of type {what}"
    raise KeyError(f"plane {name!r} has no meaning in the observation's table")


def plane_table() -> list[tuple[int, str, str, str]]:
    """Every plane of the observation: (index, name, values, meaning), in order."""
    return [(k, name, *plane_meaning(name)) for k, name in enumerate(PLANES)]


PLANE_TABLE = markdown_table(("plane", "name", "values", "meaning"), plane_table())
"""The table of :func:`plane_table` in Markdown (what the env page shows)."""

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE)
