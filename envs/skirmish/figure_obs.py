"""One figure's observation in the skirmish's Parallel env (RULES.md §9.1, §9.2), and the omniscient
global state for centralized critics.

:func:`encode_figure` builds an agent's vector from **its side's information view**
(:func:`cardwar.envs.skirmish.view.information_view`) and the scenario's fixed map only, plus what the
agent itself has answered in the current declaration: enemy units appear only where the side sees them
now or last saw them, never their hidden orders, skills or Kings. :func:`encode_state` reads the engine
state itself (everything, both sides) and is meant for a centralized critic only, never for an actor.

Edges: *low* is a low wall or hedge, a window or an open door; *high* a high wall or hedge, a closed
door, a building wall or an embrasure (RULES.md §1.3).

Both are flat ``float32`` vectors in ``[0, 1]``: ``N_PLANES`` planes over the fixed 24 x 16 grid
(plane-major, ``cell = row * 24 + col``) followed by scalar features. The tables :data:`PLANES`,
:data:`SCALARS` and :data:`STATE_PLANES` / :data:`STATE_SCALARS` name every entry; :func:`plane_table`
renders them for the env's doc page.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from cardwar.envs.doc_pages import markdown_table
from cardwar.envs.skirmish.pending import Stage
from cardwar.envs.skirmish.actions import CHOICES, N_ACTIONS, N_CELLS, WIDTH, Step
from cardwar.envs.skirmish.board import Edge, Ground

if TYPE_CHECKING:
    from cardwar.envs.skirmish.scenario import Scenario
    from cardwar.envs.skirmish.state import SkirmishState
    from cardwar.envs.skirmish.view import SkirmishView, UnitView

NOOP = N_ACTIONS
"""The Parallel env's extra action id: "nothing to decide now" (legal only then)."""

WEAPONS = ("pistol", "rifle", "smg1", "smg2", "lmg", "mmg", "at_light", "at_medium", "at_heavy")
STAGES = tuple(st.value for st in (Stage.SETUP, Stage.DECLARE_MOVE, Stage.MOVING, Stage.AFTER_MOVE_FIRE,
                                   Stage.DECLARE_COMBAT, Stage.END_TURN, Stage.DECK, Stage.ACTIVATE))
"""The stage one-hot's order (the shipped models' layout); every :class:`pending.Stage` is in it."""
assert set(STAGES) == {st.value for st in Stage}, "a new Stage needs its place in figure_obs.STAGES"
CARD_KINDS = ("team", "free", "figure", "vehicle")
MAX_TEAMS = 4
LOW_EDGES = frozenset({Edge.WALL_LOW, Edge.HEDGE_LOW, Edge.WINDOW, Edge.DOOR_OPEN})
HIGH_EDGES = frozenset({Edge.WALL_HIGH, Edge.HEDGE_HIGH, Edge.DOOR_CLOSED, Edge.BUILDING_WALL, Edge.EMBRASURE})

# --------------------------------------------------------------------------- the agent's planes
PLANES: tuple[tuple[str, str], ...] = (
    *((f"ground_{g.name.lower()}", f"the hex's ground is {g.name.lower()} (RULES.md §1.2)") for g in Ground),
    *((f"edge_dir{d}", f"the edge toward direction {d} ({'E NE NW W SW SE'.split()[d]}): 0 open, 0.5 low, 1 high")
      for d in range(6)),
    ("objective", "objective hex: its points / the most points of any objective"),
    ("objective_ours", "objective held by the agent's side"),
    ("objective_theirs", "objective held by the enemy"),
    ("self", "the agent's own unit"),
    ("teammate", "an active soldier of the agent's fire team (the agent excluded)"),
    ("friend", "an active friendly soldier: 1 - wounds / 3"),
    ("friend_vehicle", "an active friendly vehicle"),
    ("friend_down", "a friendly unit out of action (incapacitated, or a knocked-out vehicle)"),
    ("enemy_seen", "an active enemy soldier seen now: 1 - wounds / 3"),
    ("enemy_vehicle_seen", "an active enemy vehicle seen now"),
    ("enemy_last_seen", "an enemy unit not seen now, where it was last seen"),
    ("enemy_down", "an enemy unit out of action, seen now"),
    ("enemy_watching", "an enemy unit known to be on opportunity fire (deck, or once revealed)"),
    ("burning", "a unit seen burning"),
    ("friend_destination", "a destination declared or moved to by a friendly unit this turn"),
    ("enemy_destination", "a revealed enemy destination this turn (only with reveal_destinations, RULES.md §9.1)"),
    ("own_answer", "a hex the agent has chosen in its current decision (destination, targets)"),
    ("own_mine", "a mine laid by the agent's side"),
)
N_PLANES = len(PLANES)
PLANE_INDEX = {name: i for i, (name, _) in enumerate(PLANES)}

SCALARS: tuple[tuple[str, str], ...] = (
    ("vehicle", "the agent's unit is a vehicle"),
    *((f"stance_{s}", f"its stance is {s}") for s in ("prone", "kneeling", "standing")),
    ("wounds", "its wounds / 3"),
    ("active", "it is active"),
    *((f"skill_{k}", f"its {k} skill / 10") for k in ("shoot", "throw", "melee", "field_craft")),
    *((f"weapon_{w}", f"its main weapon is {w}") for w in WEAPONS),
    ("ammo", "rounds in the magazine / 30 (capped at 1)"),
    ("reserve", "reserve rounds / 150 (capped at 1)"),
    ("grenades", "grenades / 4"),
    ("petrol_bombs", "petrol bombs / 4"),
    ("knives", "knives / 4"),
    ("at_ammo", "anti-tank (or a vehicle's gun) rounds / 6"),
    ("jammed", "its weapon is jammed"),
    ("deployed", "its MMG is set up"),
    ("moved", "it moved this turn"),
    ("ran", "it ran this turn"),
    ("watching", "it is on opportunity fire"),
    ("burning", "it is burning"),
    *((f"team_{t}", f"it belongs to fire team {t}") for t in range(MAX_TEAMS)),
    *((f"damage_{d}", f"vehicle damage: {d}") for d in ("tracks", "turret", "abandoned", "destroyed")),
    ("asked", "the agent has a decision to make now (its action mask has more than the no-op)"),
    *((f"step_{s.name.lower()}", f"the step it is asked (RULES.md §9.1): {s.name.lower()}") for s in Step),
    *((f"chose_{c}", f"chosen so far in its current decision: {c}") for c in CHOICES),
    ("side", "the agent's side is the second (1) or the first (0)"),
    ("turn", "turn / turn limit"),
    ("deck_sequence", "the rules' sequence is the deck (RULES.md §7.2)"),
    *((f"stage_{st}", f"the engine's stage is {st}") for st in STAGES),
    ("tick", "movement tick / 12"),
    ("pack_ours", "cards left in the side's pack / 54"),
    ("pack_theirs", "cards left in the enemy's pack / 54"),
    ("kings_ours", "Kings the side holds / 4"),
    ("kings_theirs", "Kings the enemy holds / 4"),
    ("deck_left", "activation cards left this turn / 24 (capped at 1)"),
    *((f"card_{k}", f"the activation card up is a {k} card") for k in CARD_KINDS),
    ("card_ours", "the activation card up is the agent's side's"),
    ("card_mine", "the activation card up names the agent's fire team or its unit"),
    ("casualties_ours", "casualty points the side has inflicted / 30 (capped at 1)"),
    ("casualties_theirs", "casualty points the enemy has inflicted / 30 (capped at 1)"),
)
N_SCALARS = len(SCALARS)
SCALAR_INDEX = {name: i for i, (name, _) in enumerate(SCALARS)}
OBS_SIZE = N_PLANES * N_CELLS + N_SCALARS

# --------------------------------------------------------------------------- the global state
STATE_PLANES: tuple[tuple[str, str], ...] = (
    *PLANES[:len(Ground) + 6 + 3],
    *((f"side{k}_{what}", f"side {k}: {desc}") for k in (0, 1) for what, desc in (
        ("soldier", "an active soldier, 1 - wounds / 3"), ("vehicle", "an active vehicle"),
        ("down", "a unit out of action on the table"), ("watching", "a unit on opportunity fire"),
        ("destination", "a declared destination this turn (hidden or not)"), ("mine", "a hidden mine"),
        ("seen", "a unit the other side sees now"))),
)
N_STATE_PLANES = len(STATE_PLANES)
UNIT_FEATURES = ("active", "on_table", "side", "vehicle", "row", "col", "stance", "wounds", "ammo", "acted",
                 "moved", "watching", "asked")
STATE_SCALARS: tuple[tuple[str, str], ...] = (
    ("turn", "turn / turn limit"),
    ("deck_sequence", "the deck sequence"),
    *((f"stage_{st}", f"the engine's stage is {st}") for st in STAGES),
    ("tick", "movement tick / 12"),
    ("pack_0", "side 0's pack / 54"), ("pack_1", "side 1's pack / 54"),
    ("kings_0", "side 0's Kings / 4"), ("kings_1", "side 1's Kings / 4"),
    ("deck_left", "activation cards left / 24"),
    ("casualties_0", "side 0's points / 30"), ("casualties_1", "side 1's points / 30"),
    ("to_move", "the engine's seat to decide (0 or 1)"),
)


def state_size(n_units: int) -> int:
    """Length of :func:`encode_state`'s vector for a scenario of ``n_units`` units."""
    return N_STATE_PLANES * N_CELLS + len(STATE_SCALARS) + n_units * len(UNIT_FEATURES)


def plane_table() -> str:
    """The agent observation's layout as a Markdown table (for the doc page)."""
    rows = [(f"plane {i}", name, desc) for i, (name, desc) in enumerate(PLANES)]
    base = N_PLANES * N_CELLS
    rows += [(f"{base + i}", name, desc) for i, (name, desc) in enumerate(SCALARS)]
    return markdown_table(("index", "name", "meaning"), rows)


# --------------------------------------------------------------------------- helpers
_TERRAIN_CACHE: dict[int, tuple[Any, np.ndarray]] = {}


def terrain_planes(scenario: Scenario, open_doors: frozenset = frozenset()) -> np.ndarray:
    """Ground one-hot, edges by direction and objective points: ``(len(Ground) + 9, N_CELLS)``."""
    key = id(scenario.board)
    cached = _TERRAIN_CACHE.get(key)
    if cached is None or cached[0] is not scenario.board:
        board = scenario.board
        out = np.zeros((len(Ground) + 6, N_CELLS), np.float32)
        for cell in range(N_CELLS):
            out[int(board.ground[cell]), cell] = 1.0
            if board.ground[cell] == Ground.OFF:
                continue
            for d in range(6):
                other = board.step(cell, d)
                if other is None:
                    continue
                e = board.edge(cell, other)
                out[len(Ground) + d, cell] = 1.0 if e in HIGH_EDGES else 0.5 if e in LOW_EDGES else 0.0
        if len(_TERRAIN_CACHE) > 64:
            _TERRAIN_CACHE.clear()
        _TERRAIN_CACHE[key] = cached = (board, out)
    planes = cached[1]
    if open_doors:
        planes = planes.copy()
        board = scenario.board
        for a, b in open_doors:
            for x, y in ((a, b), (b, a)):
                for d in range(6):
                    if board.step(x, d) == y:
                        planes[len(Ground) + d, x] = 0.5
    objectives = np.zeros((3, N_CELLS), np.float32)
    return np.concatenate([planes, objectives])


def _objective_planes(planes: np.ndarray, objectives: dict[int, int], owner: dict[int, int], seat: int,
                      first: int) -> None:
    if not objectives:
        return
    top = max(objectives.values()) or 1
    for cell, points in objectives.items():
        planes[first, cell] = points / top
        who = owner.get(cell)
        if who is not None:
            planes[first + 1 + (who != seat), cell] = 1.0


def _cap(x: float) -> float:
    return float(min(1.0, max(0.0, x)))


def _one_hot(vec: np.ndarray, names: dict[str, int], key: str) -> None:
    i = names.get(key)
    if i is not None:
        vec[i] = 1.0


# --------------------------------------------------------------------------- the agent's observation
def encode_figure(view: SkirmishView, scenario: Scenario, uid: int, *, step: Step | None = None,
                  chosen: Sequence[int] = ()) -> np.ndarray:
    """The observation of the agent that plays unit ``uid``, from its side's ``view``.

    ``step``: the step the agent is asked now (``None``: nothing to decide); ``chosen``: the action ids it
    has answered so far in its current decision (hexes and choices)."""
    seat = view.seat
    planes = np.zeros((N_PLANES, N_CELLS), np.float32)
    planes[:len(Ground) + 9] = terrain_planes(scenario, view.open_doors)
    _objective_planes(planes, view.objectives, view.objective_owner, seat, PLANE_INDEX["objective"])
    me: UnitView | None = None
    for u in view.units:
        if u.uid == uid:
            me = u
    my_team = me.team if me is not None and not me.vehicle else None
    p = PLANE_INDEX
    for u in view.units:
        c = u.cell
        if not 0 <= c < N_CELLS:
            continue
        if u.side == seat:
            if u.uid == uid:
                planes[p["self"], c] = 1.0
            if not u.active:
                planes[p["friend_down"], c] = 1.0
            elif u.vehicle:
                planes[p["friend_vehicle"], c] = 1.0
            else:
                planes[p["friend"], c] = 1.0 - u.wounds / 3.0
                if u.team == my_team and u.uid != uid:
                    planes[p["teammate"], c] = 1.0
            dest = (u.order or {}).get("destination")
            if dest is not None and 0 <= dest < N_CELLS:
                planes[p["friend_destination"], dest] = 1.0
        elif u.seen:
            if not u.active:
                planes[p["enemy_down"], c] = 1.0
            elif u.vehicle:
                planes[p["enemy_vehicle_seen"], c] = 1.0
            else:
                planes[p["enemy_seen"], c] = 1.0 - u.wounds / 3.0
            if u.watching:
                planes[p["enemy_watching"], c] = 1.0
            dest = (u.order or {}).get("destination")
            if dest is not None and 0 <= dest < N_CELLS:
                planes[p["enemy_destination"], dest] = 1.0
        else:
            planes[p["enemy_last_seen"], c] = 1.0
        if u.burning and (u.seen or u.side == seat):
            planes[p["burning"], c] = 1.0
    for a in chosen:
        if 0 <= a < N_CELLS:
            planes[p["own_answer"], a] = 1.0
    for c in view.mines:
        planes[p["own_mine"], c] = 1.0

    sc = np.zeros(N_SCALARS, np.float32)
    s = SCALAR_INDEX
    if me is not None:
        sc[s["vehicle"]] = float(me.vehicle)
        if not me.vehicle:
            sc[s["stance_" + ("prone", "kneeling", "standing")[me.stance]]] = 1.0
        sc[s["wounds"]] = _cap(me.wounds / 3.0)
        sc[s["active"]] = float(me.active)
        for k, v in (me.skills or {}).items():
            if f"skill_{k}" in s:
                sc[s[f"skill_{k}"]] = _cap(v / 10.0)
        for w in str(me.weapon).split(","):
            _one_hot(sc, s, f"weapon_{w}")
        if me.at_weapon:
            _one_hot(sc, s, f"weapon_{me.at_weapon}")
        sc[s["ammo"]] = _cap((me.ammo or 0) / 30.0)
        sc[s["reserve"]] = _cap((me.reserve or 0) / 150.0)
        sc[s["grenades"]] = _cap((me.grenades or 0) / 4.0)
        sc[s["petrol_bombs"]] = _cap((me.petrol_bombs or 0) / 4.0)
        sc[s["knives"]] = _cap((me.knives or 0) / 4.0)
        sc[s["at_ammo"]] = _cap((me.at_ammo or 0) / 6.0)
        sc[s["jammed"]] = float(bool(me.jammed))
        sc[s["deployed"]] = float(me.deployed)
        sc[s["moved"]] = float(me.moved)
        sc[s["ran"]] = float(me.ran)
        sc[s["watching"]] = float(bool(me.watching))
        sc[s["burning"]] = float(me.burning)
        if 0 <= me.team < MAX_TEAMS and not me.vehicle:
            sc[s[f"team_{me.team}"]] = 1.0
        for d in me.damage:
            _one_hot(sc, s, f"damage_{d}")
    if step is not None:
        sc[s["asked"]] = 1.0
        sc[s[f"step_{Step(step).name.lower()}"]] = 1.0
    for a in chosen:
        if N_CELLS <= a < N_ACTIONS:
            sc[s[f"chose_{CHOICES[a - N_CELLS]}"]] = 1.0
    sc[s["side"]] = float(seat)
    sc[s["turn"]] = _cap(view.turn / max(1, view.turn_limit))
    sc[s["deck_sequence"]] = float(view.sequence == "deck")
    _one_hot(sc, s, f"stage_{view.stage}")
    sc[s["tick"]] = _cap(view.tick / 12.0)
    sc[s["pack_ours"]] = _cap(view.pack_sizes[seat] / 54.0)
    sc[s["pack_theirs"]] = _cap(view.pack_sizes[1 - seat] / 54.0)
    sc[s["kings_ours"]] = _cap(len(view.kings) / 4.0)
    sc[s["kings_theirs"]] = _cap(view.enemy_kings / 4.0)
    sc[s["deck_left"]] = _cap(view.deck_left / 24.0)
    card = view.activation
    if card:
        _one_hot(sc, s, f"card_{card[0]}")
        if card[0] in ("team", "free"):
            card_side = card[1]
            mine = card[0] == "team" and my_team is not None and card[2] == my_team and card_side == seat
        else:
            owner = next((u for u in view.units if u.uid == card[1]), None)
            card_side = owner.side if owner is not None else None  # an unseen enemy's card names no side
            mine = card[1] == uid
        sc[s["card_ours"]] = float(card_side == seat)
        sc[s["card_mine"]] = float(mine)
    sc[s["casualties_ours"]] = _cap(view.casualty_points[seat] / 30.0)
    sc[s["casualties_theirs"]] = _cap(view.casualty_points[1 - seat] / 30.0)
    return np.concatenate([planes.reshape(-1), sc])


# --------------------------------------------------------------------------- the omniscient state
def encode_state(state: SkirmishState, asked: Sequence[int] = ()) -> np.ndarray:
    """Everything, both sides (for a centralized critic; never give it to an actor).

    ``asked``: the units with a decision to make now."""
    from cardwar.envs.skirmish.units import Soldier

    s = state
    planes = np.zeros((N_STATE_PLANES, N_CELLS), np.float32)
    base = len(Ground) + 9
    planes[:base] = terrain_planes(s.scenario, s.open_doors)
    _objective_planes(planes, dict(s.scenario.victory.objectives or {}), s.objective_owner, 0, len(Ground) + 6)
    per_side = 7
    asked_set = set(asked)
    table = np.zeros((len(s.units), len(UNIT_FEATURES)), np.float32)
    for u in s.units:
        first = base + per_side * u.side
        soldier = isinstance(u, Soldier)
        order = s.orders.get(u.uid)
        watching = bool(order and order.watch and not getattr(u, "watch_fired", False))
        if u.on_table and 0 <= u.cell < N_CELLS:
            c = u.cell
            if not u.active:
                planes[first + 2, c] = 1.0
            elif soldier:
                planes[first, c] = 1.0 - u.fig.wounds / 3.0
            else:
                planes[first + 1, c] = 1.0
            if watching:
                planes[first + 3, c] = 1.0
            if u.uid in s.seen[1 - u.side]:
                planes[first + 6, c] = 1.0
        if order is not None and order.destination is not None and 0 <= order.destination < N_CELLS:
            planes[first + 4, order.destination] = 1.0
        row = table[u.uid]
        row[:] = (float(u.active), float(u.on_table), float(u.side), float(not soldier),
                  (u.cell // WIDTH) / 15.0 if 0 <= u.cell < N_CELLS else 0.0,
                  (u.cell % WIDTH) / 23.0 if 0 <= u.cell < N_CELLS else 0.0,
                  (int(u.fig.stance) / 2.0) if soldier else 1.0,
                  _cap(u.fig.wounds / 3.0) if soldier else 0.0,
                  _cap((u.fig.ammo or 0) / 30.0) if soldier else _cap(u.gun_ammo / 6.0),
                  float(u.acted), float(u.moved), float(watching), float(u.uid in asked_set))
    for cell, side in s.mines.items():
        if 0 <= cell < N_CELLS:
            planes[base + per_side * side + 5, cell] = 1.0
    sc = np.zeros(len(STATE_SCALARS), np.float32)
    names = {n: i for i, (n, _) in enumerate(STATE_SCALARS)}
    sc[names["turn"]] = _cap(s.turn / max(1, s.scenario.turn_limit))
    sc[names["deck_sequence"]] = float(s.rules.sequence == "deck")
    _one_hot(sc, names, f"stage_{s.stage}")
    sc[names["tick"]] = _cap(s.tick / 12.0)
    for k in (0, 1):
        sc[names[f"pack_{k}"]] = _cap(len(s.packs[k].draw_pile) / 54.0)
        sc[names[f"kings_{k}"]] = _cap(len(s.kings[k]) / 4.0)
        sc[names[f"casualties_{k}"]] = _cap(s.casualty_points[k] / 30.0)
    sc[names["deck_left"]] = _cap(len(s.deck) / 24.0)
    sc[names["to_move"]] = float(s.seat or 0)
    return np.concatenate([planes.reshape(-1), sc, table.reshape(-1)])


__all__ = ["NOOP", "N_PLANES", "N_SCALARS", "OBS_SIZE", "PLANES", "PLANE_INDEX", "SCALARS", "SCALAR_INDEX",
           "STATE_PLANES", "STATE_SCALARS", "UNIT_FEATURES", "encode_figure", "encode_state", "plane_table",
           "state_size", "terrain_planes"]
