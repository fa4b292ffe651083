"""The spatial observation of one side: float32 planes over the fixed 16 x 24 grid, channels-last.

Built from the side's :class:`~cardwar.envs.skirmish.view.SkirmishView` only (RULES.md §9.2): unseen
enemies appear only where they were last seen, the enemy's undeclared or unrevealed orders never. The
tensor is ``[row, col, plane]`` (:data:`OBS_SHAPE`, ``(16, 24, planes)``), PettingZoo classic's
image layout (chess, go; hexwar-v1): the map in the odd-r layout (``cell = row * 24 + col``), so
``obs.reshape(384, planes)[cell]`` is one hex's features and :func:`planes_of` gives the planes one by
one. Whole-board facts (turn, stage, the decision's step, cards drawn, pack sizes, the activation card)
are constant planes, so the tensor suits a CNN as it is. Edge planes are per direction (``E, NE, NW, W, SW, SE``, the board's
direction order): ``edge_wall_low_NE`` is 1 on a hex whose north-east edge is a low wall. Every plane,
in order (built by :func:`plane_table` from :data:`PLANES`; "constant" planes hold one value over the
whole grid):

{{PLANE_TABLE}}
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar.envs.doc_pages import fill, markdown_table
from cardwar.envs.skirmish.pending import Stage
from cardwar.envs.skirmish.actions import COMBAT_ACTIONS, GRID, HEIGHT, N_CELLS, STANCES, WIDTH, Step
from cardwar.envs.skirmish.board import Edge, Ground
from cardwar.envs.skirmish.cards import NUM_RANKS, RANK_NAMES, is_red
from cardwar.envs.skirmish.moving import TICKS
from cardwar.envs.skirmish.scenario import DIRECTION_NAMES, Scenario
from cardwar.envs.skirmish.weapons import FIREARMS
from cardwar.envs.skirmish.view import SkirmishView, _copy_json

GROUNDS = tuple(g.name.lower() for g in Ground)
EDGE_KINDS = ("wall_low", "wall_high", "hedge_low", "hedge_high", "door", "window", "building_wall", "embrasure")
_EDGE_KIND = {Edge.WALL_LOW: 0, Edge.WALL_HIGH: 1, Edge.HEDGE_LOW: 2, Edge.HEDGE_HIGH: 3, Edge.DOOR_OPEN: 4,
              Edge.DOOR_CLOSED: 4, Edge.WINDOW: 5, Edge.BUILDING_WALL: 6, Edge.EMBRASURE: 7}
WEAPON_CLASSES = ("pistol", "rifle", "smg", "lmg", "mmg", "anti_tank")
_WEAPON_CLASS = {"pistol": 0, "rifle": 1, "smg1": 2, "smg2": 2, "lmg": 3, "mmg": 4,
                 "at_light": 5, "at_medium": 5, "at_heavy": 5}
MODE_NAMES = ("stay", "crawl", "search", "walk", "run", "move", "all_out_run")
STAGES = tuple(st.value for st in Stage if st is not Stage.SETUP)
"""The stage planes, read off :class:`pending.Stage` (a new stage gets its plane; setup is never a decision)."""
VICTORY_KINDS = ("objectives", "casualties", "exit", "destroy")
CARD_KINDS = ("team", "free", "figure", "vehicle")
ARMOURS = ("U", "L", "M", "H", "X")
DRAWN_RANKS = RANK_NAMES[:12]  # Kings are kept, never among the cards drawn (§3.4)
MAX_TEAMS = 4

PLANES: list[str] = (
    # static: built once per scenario
    [f"ground_{g}" for g in GROUNDS]
    + [f"edge_{k}_{d}" for k in EDGE_KINDS for d in DIRECTION_NAMES]
    + ["objective_points", "exit_zone"]
    + [f"victory_{k}" for k in VICTORY_KINDS] + ["i_exit"]
    # the board now
    + [f"door_open_{d}" for d in DIRECTION_NAMES]
    + ["objective_mine", "objective_enemy", "own_mines"]
    # my figures
    + ["own_figure", "own_prone", "own_kneeling", "own_standing", "own_wounds"]
    + [f"own_{w}" for w in WEAPON_CLASSES]
    + ["own_ammo", "own_reserve", "own_grenades", "own_petrol_bombs", "own_at_ammo", "own_jammed", "own_burning",
       "own_watching", "own_moved", "own_ran", "own_deployed", "own_shoot", "own_throw", "own_melee",
       "own_field_craft", "own_team", "own_declared", "own_destination", "own_target"]
    # enemy figures
    + ["enemy_figure", "enemy_last_seen", "enemy_prone", "enemy_kneeling", "enemy_standing", "enemy_wounds"]
    + [f"enemy_{w}" for w in WEAPON_CLASSES]
    + ["enemy_burning", "enemy_watching", "enemy_moved", "enemy_destination", "enemy_target"]
    # vehicles
    + ["own_vehicle", "enemy_vehicle", "enemy_vehicle_last_seen", "vehicle_armour", "vehicle_facing",
       "vehicle_immobilised", "vehicle_turret_jammed", "vehicle_abandoned", "vehicle_destroyed", "vehicle_moved",
       "own_vehicle_gun_ammo"]
    # the decision
    + ["my_decision", "acting_unit", "chosen_destination", "chosen_targets"]
    + [f"step_{s.name.lower()}" for s in Step]
    + [f"chosen_mode_{m}" for m in MODE_NAMES] + ["chosen_speed"]
    + [f"chosen_stance_{s}" for s in STANCES]
    + [f"chosen_action_{a}" for a in COMBAT_ACTIONS]
    # the game
    + ["i_am_player_0", "sequence_deck"] + [f"stage_{s}" for s in STAGES]
    + ["turn_fraction", "tick_fraction", "own_casualty_points", "enemy_casualty_points"]
    + ["own_pack", "enemy_pack", "own_discards", "enemy_discards", "own_kings", "enemy_kings"]
    + [f"own_drawn_{r}" for r in DRAWN_RANKS] + ["own_drawn_red", "own_drawn_black"]
    + [f"enemy_drawn_{r}" for r in DRAWN_RANKS] + ["enemy_drawn_red", "enemy_drawn_black"]
    + [f"card_{k}" for k in CARD_KINDS] + ["card_mine", "card_units", "deck_left"]
)
P = {name: i for i, name in enumerate(PLANES)}
NUM_PLANES = len(PLANES)
OBS_SHAPE = (HEIGHT, WIDTH, NUM_PLANES)
"""Channels-last, as PettingZoo classic's image-like observations; :data:`PLANES_FIRST_SHAPE` is skirmish-v0's
first layout (issue 20 to 28), which models trained then still read (see :mod:`cardwar.training.skirmish_policy`)."""
PLANES_FIRST_SHAPE = (NUM_PLANES, HEIGHT, WIDTH)
N_STATIC = P["i_exit"] + 1
"""Planes [0, N_STATIC) depend on the scenario and the seat only (cached)."""


def planes_of(obs: np.ndarray) -> np.ndarray:
    """``[planes, cells]``: the observation ``obs`` (``OBS_SHAPE``, or the same values flat) plane by plane, a view
    (``planes_of(obs)[P["own_figure"]]`` is that plane over the 384 cells)."""
    return np.asarray(obs, dtype=np.float32).reshape(N_CELLS, NUM_PLANES).T

_STATIC: dict[tuple[int, int], tuple[Scenario, np.ndarray]] = {}
_DIRECTIONS = tuple(tuple(GRID.steps(c)) for c in range(N_CELLS))


def _edge_cells(edge: str, width: int, height: int) -> list[int]:
    """The hexes on the scenario map's own ``edge`` (the map as drawn, not the padded grid), RULES.md §10."""
    test = {"east": lambda col, row: col == width - 1, "west": lambda col, row: col == 0,
            "north": lambda col, row: row == 0, "south": lambda col, row: row == height - 1}[edge]
    return [c for c in range(N_CELLS) if c % WIDTH < width and c // WIDTH < height and test(c % WIDTH, c // WIDTH)]


def _static_planes(sc: Scenario, seat: int) -> np.ndarray:
    """Ground, edges, objectives and the victory kind of a scenario for ``seat``, built once: ``[cells,
    N_STATIC]`` (channels-last, as the observation)."""
    hit = _STATIC.get((id(sc), seat))
    if hit is not None and hit[0] is sc:
        return hit[1]
    planes = np.zeros((N_STATIC, N_CELLS), dtype=np.float32)
    board = sc.board
    for c in range(N_CELLS):
        planes[P["ground_clear"] + int(board.ground[c]), c] = 1.0
        for d, n in enumerate(_DIRECTIONS[c]):
            if not 0 <= n < N_CELLS:
                continue
            kind = _EDGE_KIND.get(board.edge(c, n))
            if kind is not None:
                planes[P["edge_wall_low_E"] + kind * 6 + d, c] = 1.0
    v = sc.victory
    for c, points in (v.objectives or {}).items():
        planes[P["objective_points"], c] = min(points / 10.0, 1.0)
    if v.kind == "exit" and v.exit_edge:
        planes[P["exit_zone"], _edge_cells(v.exit_edge, sc.width, sc.height)] = 1.0
        if v.exit_side == seat:
            planes[P["i_exit"]] = 1.0
    planes[P["victory_objectives"] + VICTORY_KINDS.index(v.kind)] = 1.0
    planes = np.ascontiguousarray(planes.T)
    if len(_STATIC) > 512:
        _STATIC.clear()
    _STATIC[(id(sc), seat)] = (sc, planes)
    return planes


_OWN, _ENEMY = P["own_figure"], P["enemy_figure"]
_OWN_STANCE, _ENEMY_STANCE = P["own_prone"], P["enemy_prone"]
_OWN_WEAPON, _ENEMY_WEAPON = P["own_pistol"], P["enemy_pistol"]
_STEP0, _MODE0, _STANCE0, _ACTION0, _STAGE0 = (P["step_mode"], P["chosen_mode_stay"], P["chosen_stance_prone"],
                                               P["chosen_action_nothing"], P["stage_declare_move"])
_CARD0, _OWN_RANK0, _ENEMY_RANK0 = P["card_team"], P["own_drawn_A"], P["enemy_drawn_A"]
_DOOR0 = P["door_open_E"]
_ARMOUR = {a: (k + 1) / len(ARMOURS) for k, a in enumerate(ARMOURS)}
_DAMAGE = {"tracks": P["vehicle_immobilised"], "turret": P["vehicle_turret_jammed"],
           "abandoned": P["vehicle_abandoned"], "destroyed": P["vehicle_destroyed"]}
_SKILLS = tuple((k, P[f"own_{k}"] * N_CELLS) for k in ("shoot", "throw", "melee", "field_craft"))
_O = {name: k * N_CELLS for k, name in enumerate(PLANES)}
"""Offset of each plane in the observation planes first (``plane * cells + cell``); the entries are moved to
their channels-last place (``cell * planes + plane``) in one numpy call at the end."""
_OWN_N, _ENEMY_N, _OWN_STANCE_N, _ENEMY_STANCE_N = (_OWN * N_CELLS, _ENEMY * N_CELLS, _OWN_STANCE * N_CELLS,
                                                    _ENEMY_STANCE * N_CELLS)
_OWN_WEAPON_N, _ENEMY_WEAPON_N = _OWN_WEAPON * N_CELLS, _ENEMY_WEAPON * N_CELLS
_MAGAZINE = {k: f.magazine for k, f in FIREARMS.items()}


def _board_planes(v: SkirmishView, scenario: Scenario) -> tuple[np.ndarray, dict[int, int]]:
    """The planes that depend on the map and the units only (static, the board now, my figures, enemy figures,
    vehicles): ``[cells, planes]`` with every decision and game plane 0, and each unit's cell by uid (the
    units on the table). Reads ``v.seat``, ``v.units``, ``v.open_doors``, ``v.objective_owner``, ``v.mines``
    and ``scenario`` only: :func:`_board_key` lists exactly these, so the cache below is exact."""
    me = v.seat
    obs = np.zeros((N_CELLS, NUM_PLANES), dtype=np.float32)
    obs[:, :N_STATIC] = _static_planes(scenario, me)
    acc: dict[int, float] = {}  # plane * cells + cell -> value (one numpy call at the end)
    N = N_CELLS
    cell_of: dict[int, int] = {}
    for u in v.units:
        c = u.cell
        if not 0 <= c < N or not (u.vehicle or u.wounds == 2 or (u.active and u.wounds < 2)):
            continue  # dead, or gone off the table
        cell_of[u.uid] = c
        mine = u.side == me
        order = u.order
        if u.vehicle:
            if mine:
                acc[_O["own_vehicle"] + c] = 1.0
                if u.at_ammo is not None:
                    acc[_O["own_vehicle_gun_ammo"] + c] = min(u.at_ammo / 6.0, 1.0)
            elif u.seen:
                acc[_O["enemy_vehicle"] + c] = 1.0
            else:
                acc[_O["enemy_vehicle_last_seen"] + c] = 1.0
                continue
            acc[_O["vehicle_armour"] + c] = _ARMOUR.get(u.armour, 0.0)
            if u.facing is not None:
                acc[_O["vehicle_facing"] + c] = (u.facing + 1) / 6.0
            for d in u.damage:
                acc[_DAMAGE[d] * N + c] = 1.0
            if u.moved:
                acc[_O["vehicle_moved"] + c] = 1.0
        elif mine:
            acc[_OWN_N + c] = 1.0
            acc[_OWN_STANCE_N + u.stance * N + c] = 1.0
            if u.wounds:
                acc[_O["own_wounds"] + c] = u.wounds * 0.5
            w = _WEAPON_CLASS.get(u.weapon)
            if w is not None:
                acc[_OWN_WEAPON_N + w * N + c] = 1.0
            if u.at_weapon and w != 5:
                acc[_OWN_WEAPON_N + 5 * N + c] = 1.0
            mag = _MAGAZINE.get(u.weapon)
            if mag:
                acc[_O["own_ammo"] + c] = min((u.ammo or 0) / mag, 1.0)
                if u.reserve:
                    acc[_O["own_reserve"] + c] = min(u.reserve / (4.0 * mag), 1.0)
            if u.grenades:
                acc[_O["own_grenades"] + c] = min(u.grenades * 0.25, 1.0)
            if u.petrol_bombs:
                acc[_O["own_petrol_bombs"] + c] = min(u.petrol_bombs * 0.25, 1.0)
            if u.at_ammo:
                acc[_O["own_at_ammo"] + c] = min(u.at_ammo / 6.0, 1.0)
            if u.jammed or u.at_jammed:
                acc[_O["own_jammed"] + c] = 1.0
            if u.burning:
                acc[_O["own_burning"] + c] = 1.0
            if u.watching:
                acc[_O["own_watching"] + c] = 1.0
            if u.moved:
                acc[_O["own_moved"] + c] = 1.0
            if u.ran:
                acc[_O["own_ran"] + c] = 1.0
            if u.deployed:
                acc[_O["own_deployed"] + c] = 1.0
            sk = u.skills
            if sk:
                for name, off in _SKILLS:
                    x = sk.get(name, 0)
                    if x:
                        acc[off + c] = x * 0.1 if x < 10 else 1.0
            acc[_O["own_team"] + c] = min((u.team + 1) / MAX_TEAMS, 1.0)
            if order is not None:
                acc[_O["own_declared"] + c] = 1.0
        elif u.seen:
            acc[_ENEMY_N + c] = 1.0
            acc[_ENEMY_STANCE_N + u.stance * N + c] = 1.0
            if u.wounds:
                acc[_O["enemy_wounds"] + c] = u.wounds * 0.5
            w = _WEAPON_CLASS.get(u.weapon)
            if w is not None:
                acc[_ENEMY_WEAPON_N + w * N + c] = 1.0
            if u.burning:
                acc[_O["enemy_burning"] + c] = 1.0
            if u.watching:
                acc[_O["enemy_watching"] + c] = 1.0
            if u.moved:
                acc[_O["enemy_moved"] + c] = 1.0
        else:
            acc[_O["enemy_last_seen"] + c] = 1.0
            continue
        if order:
            dest = order.get("destination")
            if dest is not None and 0 <= dest < N and order.get("mode", "stay") != "stay":
                acc[_O["own_destination" if mine else "enemy_destination"] + dest] = 1.0
            for t in order.get("targets") or ():
                if t is not None and 0 <= t < N:
                    acc[_O["own_target" if mine else "enemy_target"] + t] = 1.0
    for (a, b) in v.open_doors:
        for c, n in ((a, b), (b, a)):
            d = _DIRECTIONS[c].index(n) if n in _DIRECTIONS[c] else -1
            if d >= 0:
                acc[(_DOOR0 + d) * N + c] = 1.0
    for c, side in v.objective_owner.items():
        if side is not None and side >= 0 and 0 <= c < N:
            acc[P["objective_mine" if side == me else "objective_enemy"] * N + c] = 1.0
    for c in v.mines:
        acc[P["own_mines"] * N + c] = 1.0
    if acc:
        n = len(acc)
        plane, cell = np.divmod(np.fromiter(acc, np.intp, n), N_CELLS)
        obs.reshape(-1)[cell * NUM_PLANES + plane] = np.fromiter(acc.values(), np.float32, n)
    return obs, cell_of


def _frozen_units(units: tuple) -> tuple:
    """``units`` with their mutable parts (orders, skills) copied, so that a caller who edits a view after
    encoding it cannot change the cache's key behind its back."""
    return tuple(u if u.order is None and u.skills is None else
                 u._replace(order=_copy_json(u.order), skills=None if u.skills is None else dict(u.skills))
                 for u in units)


_BOARD: dict[tuple[int, int], tuple[Scenario, tuple, Any, Any, Any, np.ndarray, dict[int, int]]] = {}
"""(id(scenario), seat) -> the last board planes built for them, with the inputs they were built from."""


def _cached_board(v: SkirmishView, scenario: Scenario) -> tuple[np.ndarray, dict[int, int]]:
    """:func:`_board_planes`, kept from the last call for the same scenario and seat while its inputs are
    equal (most steps change only the decision and game planes, issue 31): the same array, bit for bit,
    as building it again, since it is a function of exactly the inputs compared."""
    key = (id(scenario), v.seat)
    hit = _BOARD.get(key)
    if (hit is not None and hit[0] is scenario and hit[1] == v.units and hit[2] == v.open_doors
            and hit[3] == v.objective_owner and hit[4] == v.mines):
        return hit[5], hit[6]
    board, cell_of = _board_planes(v, scenario)
    board.flags.writeable = False  # shared between calls: only ever copied
    if len(_BOARD) > 256:
        _BOARD.clear()
    _BOARD[key] = (scenario, _frozen_units(v.units), frozenset(v.open_doors), dict(v.objective_owner),
                   tuple(v.mines), board, cell_of)
    return board, cell_of


def encode_observation(v: SkirmishView, scenario: Scenario, *, incremental: bool = True) -> np.ndarray:
    """The ``(16, 24, planes)`` float32 observation of ``v.seat`` (:data:`OBS_SHAPE`).

    ``incremental``: keep the unit and map planes from the last call whose inputs were equal (the default;
    the result is the same bit for bit, tests/skirmish/test_observation_incremental.py); ``False`` builds
    every plane from scratch."""
    me = v.seat
    board, cell_of = _cached_board(v, scenario) if incremental else _board_planes(v, scenario)
    obs = board.copy()
    acc: dict[int, float] = {}  # plane * cells + cell -> value (one numpy call at the end)
    const: dict[int, float] = {}  # plane -> value over the whole grid
    N = N_CELLS
    # the decision
    if v.step is not None:
        const[P["my_decision"]] = 1.0
        const[_STEP0 + int(v.step)] = 1.0
        if v.unit is not None and v.unit in cell_of:
            acc[P["acting_unit"] * N + cell_of[v.unit]] = 1.0
        part = v.partial
        if part:
            dest = part.get("destination")
            if dest is not None and 0 <= dest < N:
                acc[P["chosen_destination"] * N + dest] = 1.0
            for t in part.get("targets") or ():
                if t is not None and 0 <= t < N:
                    acc[P["chosen_targets"] * N + t] = 1.0
            mode = part.get("mode")
            if mode in MODE_NAMES:
                const[_MODE0 + MODE_NAMES.index(mode)] = 1.0
            elif isinstance(mode, str) and mode.startswith("speed_"):
                const[P["chosen_speed"]] = (int(mode[6:]) + 1) / 4.0
            stance = part.get("stance")
            if stance is not None:
                const[_STANCE0 + int(stance)] = 1.0
            action = part.get("action")
            if action in COMBAT_ACTIONS:
                const[_ACTION0 + COMBAT_ACTIONS.index(action)] = 1.0
    # the game
    if me == 0:
        const[P["i_am_player_0"]] = 1.0
    if v.sequence == "deck":
        const[P["sequence_deck"]] = 1.0
    if v.stage in STAGES:
        const[_STAGE0 + STAGES.index(v.stage)] = 1.0
    const[P["turn_fraction"]] = min(v.turn / max(v.turn_limit, 1), 1.0)
    if v.tick:
        const[P["tick_fraction"]] = min(v.tick / TICKS, 1.0)
    cp_me, cp_enemy = v.casualty_points[me], v.casualty_points[1 - me]
    const[P["own_casualty_points"]] = min(cp_me / 20.0, 1.0)
    const[P["enemy_casualty_points"]] = min(cp_enemy / 20.0, 1.0)
    const[P["own_pack"]] = min(v.pack_sizes[me] / 52.0, 1.0)
    const[P["enemy_pack"]] = min(v.pack_sizes[1 - me] / 52.0, 1.0)
    const[P["own_discards"]] = min(v.discard_sizes[me] / 52.0, 1.0)
    const[P["enemy_discards"]] = min(v.discard_sizes[1 - me] / 52.0, 1.0)
    if v.kings:
        const[P["own_kings"]] = min(len(v.kings) / 4.0, 1.0)
    if v.enemy_kings:
        const[P["enemy_kings"]] = min(v.enemy_kings / 4.0, 1.0)
    for cards, rank0, red_plane in ((v.drawn[me], _OWN_RANK0, P["own_drawn_red"]),
                                    (v.drawn[1 - me], _ENEMY_RANK0, P["enemy_drawn_red"])):
        if not cards:
            continue
        red = 0
        for card in cards:
            r = card % NUM_RANKS
            if r < len(DRAWN_RANKS):
                const[rank0 + r] = const.get(rank0 + r, 0.0) + 0.25
            red += is_red(card)
        const[red_plane] = min(red / 20.0, 1.0)
        const[red_plane + 1] = min((len(cards) - red) / 20.0, 1.0)
    card = v.activation
    if card:
        kind = card[0]
        if kind in CARD_KINDS:
            const[_CARD0 + CARD_KINDS.index(kind)] = 1.0
        units = ()
        if kind in ("team", "free"):
            owner = card[1]
            if kind == "team":
                units = tuple(u for u in v.units if not u.vehicle and u.side == owner and u.team == card[2]
                              and u.uid in cell_of and (u.side == me or u.seen))
        else:
            owner = next((u.side for u in v.units if u.uid == card[1]), -1)
            units = tuple(u for u in v.units if u.uid == card[1] and u.uid in cell_of and (u.side == me or u.seen))
        if owner == me:
            const[P["card_mine"]] = 1.0
        for u in units:
            acc[P["card_units"] * N + cell_of[u.uid]] = 1.0
    if v.deck_left:
        const[P["deck_left"]] = min(v.deck_left / 40.0, 1.0)
    for k in list(const):
        if const[k] > 1.0:
            const[k] = 1.0
    if acc:
        n = len(acc)
        plane, cell = np.divmod(np.fromiter(acc, np.intp, n), N_CELLS)
        obs.reshape(-1)[cell * NUM_PLANES + plane] = np.fromiter(acc.values(), np.float32, n)
    if const:  # each constant plane: one value in every cell's row
        obs[:, np.fromiter(const, np.intp, len(const))] = np.fromiter(const.values(), np.float32, len(const))
    return obs.reshape(OBS_SHAPE)


_PLANE_MEANINGS = {
    "objective_points": ("[0, 1]", "on an objective hex: its points / 10"),
    "exit_zone": ("0/1", "the hexes of the edge an exit scenario's side must leave by (§10)"),
    "i_exit": ("constant 0/1", "I am the side that must exit"),
    "objective_mine": ("0/1", "1 on an objective I hold"),
    "objective_enemy": ("0/1", "1 on an objective the enemy holds"),
    "own_mines": ("0/1", "1 on hexes my side has mined (the enemy's mines are never shown)"),
    "own_figure": ("0/1", "1 on a hex with a figure of mine (incapacitated ones included)"),
    "own_wounds": ("0, 0.5, 1", "wounds / 2 (1: incapacitated)"),
    "own_ammo": ("[0, 1]", "rounds in the firearm / its magazine"),
    "own_reserve": ("[0, 1]", "reserve rounds / (4 magazines), at most 1"),
    "own_grenades": ("[0, 1]", "grenades / 4, at most 1"),
    "own_petrol_bombs": ("[0, 1]", "petrol bombs / 4, at most 1"),
    "own_at_ammo": ("[0, 1]", "anti-tank rounds / 6, at most 1"),
    "own_jammed": ("0/1", "its firearm or anti-tank weapon is jammed"),
    "own_burning": ("0/1", "it is on fire"),
    "own_watching": ("0/1", "it declared opportunity fire this turn"),
    "own_moved": ("0/1", "it moved this turn"),
    "own_ran": ("0/1", "it ran this turn"),
    "own_deployed": ("0/1", "its MMG is set up"),
    "own_team": ("[0, 1]", f"(fire team + 1) / {MAX_TEAMS}"),
    "own_declared": ("0/1", "it has declared its order this turn"),
    "own_destination": ("0/1", "1 on the destinations of my declared moves"),
    "own_target": ("0/1", "1 on the targets of my declared combat actions"),
    "enemy_figure": ("0/1", "1 on a hex with an enemy figure I see now"),
    "enemy_last_seen": ("0/1", "1 where an enemy figure I do not see now was last seen"),
    "enemy_wounds": ("0, 0.5, 1", "wounds / 2 of an enemy figure I see"),
    "enemy_burning": ("0/1", "an enemy figure I see is on fire"),
    "enemy_watching": ("0/1", "an enemy figure I see has a revealed opportunity-fire watch"),
    "enemy_moved": ("0/1", "an enemy figure I see moved this turn"),
    "enemy_destination": ("0/1", "1 on the enemy's revealed destinations (only with reveal_destinations, §9.1)"),
    "enemy_target": ("0/1", "1 on the targets of the enemy's revealed combat actions"),
    "own_vehicle": ("0/1", "1 on a hex with a vehicle of mine"),
    "enemy_vehicle": ("0/1", "1 on a hex with an enemy vehicle I see now"),
    "enemy_vehicle_last_seen": ("0/1", "1 where an enemy vehicle I do not see now was last seen"),
    "vehicle_armour": ("[0, 1]", "a vehicle I see: its armour, U L M H X as 0.2 .. 1"),
    "vehicle_facing": ("[0, 1]", "a vehicle I see: (facing + 1) / 6, facing 0 E .. 5 SE"),
    "vehicle_immobilised": ("0/1", "a vehicle I see has lost its tracks or wheels"),
    "vehicle_turret_jammed": ("0/1", "a vehicle I see has a jammed turret"),
    "vehicle_abandoned": ("0/1", "a vehicle I see was abandoned"),
    "vehicle_destroyed": ("0/1", "a vehicle I see is destroyed"),
    "vehicle_moved": ("0/1", "a vehicle I see moved this turn"),
    "own_vehicle_gun_ammo": ("[0, 1]", "main-gun rounds of my vehicle / 6"),
    "my_decision": ("constant 0/1", "I am to decide now"),
    "acting_unit": ("0/1", "1 on the hex of the unit my current decision is about"),
    "chosen_destination": ("0/1", "the destination chosen so far in my current decision"),
    "chosen_targets": ("0/1", "the targets chosen so far in my current decision (a burst's earlier ones)"),
    "chosen_speed": ("constant [0, 1]", "a vehicle's speed chosen so far: (speed + 1) / 4"),
    "i_am_player_0": ("constant 0/1", "I am player_0 (the scenario's first side)"),
    "sequence_deck": ("constant 0/1", "the activation deck sequence (otherwise the phases)"),
    "turn_fraction": ("constant [0, 1]", "turn / the scenario's turn limit"),
    "tick_fraction": ("constant [0, 1]", f"the movement tick / {TICKS}"),
    "own_casualty_points": ("constant [0, 1]", "casualty points I have inflicted / 20, at most 1"),
    "enemy_casualty_points": ("constant [0, 1]", "casualty points the enemy has inflicted / 20, at most 1"),
    "own_pack": ("constant [0, 1]", "cards left in my pack's draw pile / 52"),
    "enemy_pack": ("constant [0, 1]", "cards left in the enemy's draw pile / 52"),
    "own_discards": ("constant [0, 1]", "my discard pile / 52"),
    "enemy_discards": ("constant [0, 1]", "the enemy's discard pile / 52"),
    "own_kings": ("constant [0, 1]", "Kings I hold / 4"),
    "enemy_kings": ("constant [0, 1]", "Kings the enemy holds / 4"),
    "own_drawn_red": ("constant [0, 1]", "red cards I drew this turn / 20, at most 1"),
    "own_drawn_black": ("constant [0, 1]", "black cards I drew this turn / 20, at most 1"),
    "enemy_drawn_red": ("constant [0, 1]", "red cards the enemy drew this turn / 20, at most 1"),
    "enemy_drawn_black": ("constant [0, 1]", "black cards the enemy drew this turn / 20, at most 1"),
    "card_mine": ("constant 0/1", "the activation card up is mine (deck sequence)"),
    "card_units": ("0/1", "1 on the hexes of the units the card up activates (those I see)"),
    "deck_left": ("constant [0, 1]", "activation cards left this turn / 40, at most 1"),
}


_GROUND_WORDS = {"light": "light cover", "shell_hole": "a shell hole", "building": "a building hex",
                 "bunker": "a bunker", "off": "off the map"}
_EDGE_WORDS = {"wall_low": "a low wall", "wall_high": "a high wall", "hedge_low": "a low hedge",
               "hedge_high": "a high hedge", "door": "a door (open or closed)", "window": "a window",
               "building_wall": "a building wall", "embrasure": "a bunker embrasure"}


def plane_meaning(name: str) -> tuple[str, str]:
    """(values, meaning) of the plane ``name``; KeyError for a plane nobody described."""
    if name in _PLANE_MEANINGS:
        return _PLANE_MEANINGS[name]
    kind, _, what = name.partition("_")
    if kind == "ground":
        return "0/1", f"1 where the hex is {_GROUND_WORDS.get(what, what)}"
    if kind == "edge":
        obstacle, _, d = what.rpartition("_")
        return "0/1", f"1 on a hex with {_EDGE_WORDS[obstacle]} on its {d} edge"
    if kind == "victory":
        return "constant 0/1", f"the scenario is won by {what} (one-hot)"
    if kind == "door" and what.startswith("open_"):
        return "0/1", f"1 on a hex whose {what[5:]} edge is a door standing open"
    if name.endswith(("_prone", "_kneeling", "_standing")) and kind in ("own", "enemy"):
        who = "a figure of mine" if kind == "own" else "an enemy figure I see"
        return "0/1", f"{who} is {what}"
    if kind in ("own", "enemy") and what in WEAPON_CLASSES:
        who = "a figure of mine" if kind == "own" else "an enemy figure I see"
        return "0/1", f"{who} carries a {what.replace('_', '-')} weapon"
    if kind == "own" and what in ("shoot", "throw", "melee", "field_craft"):
        return "[0, 1]", f"a figure of mine: its {what.replace('_', ' ')} skill / 10 (unwounded)"
    if kind == "step":
        return "constant 0/1", f"my decision's step is {what} (one-hot)"
    if name.startswith("chosen_mode_"):
        return "constant 0/1", f"movement mode {name[12:]} chosen so far (one-hot)"
    if name.startswith("chosen_stance_"):
        return "constant 0/1", f"stance {name[14:]} chosen so far (one-hot)"
    if name.startswith("chosen_action_"):
        return "constant 0/1", f"action {name[14:]} chosen so far (one-hot)"
    if kind == "stage":
        return "constant 0/1", f"the game's stage is {what} (one-hot)"
    if name.startswith(("own_drawn_", "enemy_drawn_")):
        who = "I" if kind == "own" else "the enemy"
        return "constant [0, 1]", f"cards of rank {name.rsplit('_', 1)[1]} {who} drew this turn / 4, at most 1"
    if kind == "card" and what in CARD_KINDS:
        return "constant 0/1", f"the activation card up is a {what} card (one-hot, deck sequence)"
    raise KeyError(f"plane {name!r} has no meaning in the observation's table")


def plane_table() -> list[tuple[int, str, str, str]]:
    """Every plane of the observation: (index, name, values, meaning), in order."""
    return [(k, name, *plane_meaning(name)) for k, name in enumerate(PLANES)]


PLANE_TABLE = markdown_table(("plane", "name", "values", "meaning"), plane_table())
"""The table of :func:`plane_table` in Markdown (what the env pages show)."""

__doc__ = fill(__doc__, PLANE_TABLE=PLANE_TABLE)
