"""Skirmish scenarios: map, edges, forces, activation deck, victory and turn limit, read from YAML
(RULES.md §10). Shipped files: ``configs/scenarios/skirmish/*.yaml``; what each one is: ``SCENARIOS.md``.

A file with a mistake gets a :class:`ScenarioError` of one line naming the file and the field.

File format::

    title: Village fight
    description: >-            # states the victory condition and the turn limit
      ... Victory: ... Turn limit: 10.
    turns: 10                  # the turn limit (phases: turns; deck: passes through the deck)
    map: |                     # one ground character per hex, rows top to bottom (spaces ignored);
      . . , , W W              # . clear  , light cover  W woods  r rough  o shell hole
       . B B . o .             # B building  K bunker  # off-map.  At most 24 x 16; padded with #.
    edges:                     # walls, hedges, doors, windows on hex edges (RULES.md §1.3)
      - wall_low C5-C6 D5-D6   # a kind, then hex pairs
      - [B2, C2, door_closed]  # or one edge as [hex, hex, kind]
    sides:                     # exactly two, in seat order
      American:
        teams: [Fire team one, Fire team two]     # optional: else the order teams first appear in
        figures:
          - {name: Lt. Pitts, team: Fire team one, quality: regular, weapon: M1 carbine, hex: B3,
             stance: kneeling, role: officer, skills: {shoot: 6}, grenades: 1}
        vehicles:
          - {name: Panzer 38(t), kind: tracked, armour: L, hex: K4, facing: W, turret: true,
             weapons: [at_medium, lmg], quality: regular}
    victory: {kind: objectives, objectives: [{hex: F5, points: 2}]}
        # or {kind: casualties, vehicle_points: 3}
        # or {kind: exit, side: German, edge: west, count: 3}
        # or {kind: destroy, target: Panzer 38(t)}
    deck:                      # optional activation deck for sequence="deck" (RULES.md §7.2)
      - {card: team, side: American, team: Fire team one, count: 3}
      - {card: free, side: American, count: 2}
      - {card: figure, figure: Lt. Pitts, count: 3}
      - {card: vehicle, vehicle: Panzer 38(t), count: 3}
    mines: [{hex: H7, side: German}]              # mined hexes and the side that laid them (§1.2)
    rules: {sequence: deck}    # rule options the scenario suggests (RULES.md §12)

A figure's ``weapon`` is a key of :data:`weapons.FIREARMS` (``rifle``, ``smg1`` ...) or a weapon the WW2
seed names (``M1 Rifle``, ``Thompson Sub Machine gun``, ``machine pistol`` ...), read through
:data:`weapons.SEED_WEAPONS`; ``other_weapons`` may also name anti-tank weapons (``Bazooka``, ``at_light``).
Cells are ``row * 24 + col`` on the fixed 24 x 16 odd-r grid; hexes are labelled column letter + row number.
"""

from __future__ import annotations

import pathlib
import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cardwar.configs import CONFIG_DIR
from cardwar.envs.skirmish.cards import Quality
from cardwar.envs.skirmish.figures import Stance
from cardwar.envs.scenario_files import FieldReader, load_yaml, resolve_path, shipped_names
from cardwar.envs.skirmish.weapons import AT_WEAPONS, FIREARMS, SEED_WEAPONS, Armour

SKIRMISH_SCENARIO_DIR = CONFIG_DIR / "scenarios" / "skirmish"
WIDTH, HEIGHT = 24, 16
N_CELLS = WIDTH * HEIGHT
MAX_TURNS = 60
MAX_TEAMS = 4
"""A Free Move card names a team as ``team_0`` .. ``team_3`` (actions.py)."""

GROUND_CHARS = ".,WroBK#"
"""Ground characters: clear, light cover, woods, rough, shell hole, building, bunker, off-map (board.Ground order)."""
OFF = "#"
BUILT = "BK"
EDGE_KINDS = ("wall_low", "wall_high", "hedge_low", "hedge_high", "door_open", "door_closed", "window",
              "building_wall", "embrasure")
"""Edge names (board.Edge without OPEN, lowercase)."""
OBSTACLE_EDGES = ("wall_low", "wall_high", "hedge_low", "hedge_high")
"""Edges between two hexes that are not both of a building."""
IMPASSABLE_EDGES = ("building_wall", "embrasure")
VEHICLE_GROUND = ".,ro"
"""Ground a vehicle may stand on (RULES.md §8.1: not buildings, bunkers or woods)."""
QUALITIES = {q.name.lower(): q for q in Quality}
STANCES = {s.name.lower(): s for s in Stance}
ROLES = ("", "sergeant", "officer")
VICTORY_KINDS = ("objectives", "casualties", "exit", "destroy")
EXIT_EDGES = ("east", "west", "north", "south")
DIRECTION_NAMES = ("E", "NE", "NW", "W", "SW", "SE")
"""Facings 0..5 counter-clockwise from east (hexwar's DIRECTIONS order)."""
VEHICLE_KINDS = ("tracked", "wheeled")
DEFAULT_DAMAGE_POINTS = {Armour.U: 3}
"""Un-armoured vehicles' damage points when a scenario gives none (HtD: "Jeep = 2 points, Truck = 3 points")."""
RULE_OPTIONS: dict[str, tuple[Any, ...]] = {
    "sequence": ("phases", "deck"),
    "opportunity_fire": ("interrupt", "after_move"),
    "rounds": ("ammunition", "draws"),
    "ammunition": ("tracked", "unlimited"),
    "auto_one_target": (False, True),
    "melee": ("strike", "opposed"),
    "thrown_cover": ("hex", "none"),
    "prone_cover": (False, True),
    "skills": ("drawn", "generic"),
    "visibility": ("line_of_sight", "open"),
    "edge_sight": ("either_side", "both_sides"),
    "reveal_destinations": (False, True),
    "free_move": ("team", "figure"),
    "deck_cards": ("teams", "figures"),
    "deck_opportunity_fire": (False, True),
    "knave_events": (False, True),
    "lady_luck": (False, True),
    "king_and_country": (False, True),
}
"""RULES.md §12: every option and its values, default first."""
SEED_WEAPON_KEYS = {name.lower(): key for name, key in SEED_WEAPONS.items()}


class ScenarioError(ValueError):
    """A scenario file or mapping that cannot be played; the one-line message names file and field."""


# ------------------------------------------------------------------ grid (odd-r, as hexwar)
_COLS = "ABCDEFGHIJKLMNOPQRSTUVWX"
_EVEN_STEPS = ((1, 0), (0, -1), (-1, -1), (-1, 0), (-1, 1), (0, 1))
_ODD_STEPS = ((1, 0), (1, -1), (0, -1), (-1, 0), (0, 1), (1, 1))


def label(cell: int) -> str:
    """``C5`` for column 2, row 4: column letter + row number, ``A1`` top left."""
    return f"{_COLS[cell % WIDTH]}{cell // WIDTH + 1}"


def parse_label(text: str) -> int:
    """The cell of a label such as ``C5``; ValueError when it is not one on the 24 x 16 grid."""
    m = re.fullmatch(r"([A-Xa-x])(\d{1,2})", str(text).strip())
    if not m or not 1 <= int(m.group(2)) <= HEIGHT:
        raise ValueError(f"{text!r} is not a hex label (column A-X, row 1-{HEIGHT}, e.g. C5)")
    return (int(m.group(2)) - 1) * WIDTH + _COLS.index(m.group(1).upper())


def step(cell: int, direction: int) -> int | None:
    """The neighbour of ``cell`` in ``direction`` (0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE), None off the grid."""
    row, col = divmod(cell, WIDTH)
    dc, dr = (_ODD_STEPS if row % 2 else _EVEN_STEPS)[direction]
    c, r = col + dc, row + dr
    return r * WIDTH + c if 0 <= c < WIDTH and 0 <= r < HEIGHT else None


def grid_neighbours(cell: int) -> tuple[int, ...]:
    """Every neighbour on the 24 x 16 grid (off-map ground included)."""
    return tuple(n for d in range(6) if (n := step(cell, d)) is not None)


def adjacent(a: int, b: int) -> bool:
    return b in grid_neighbours(a)


def edge_key(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)


# ------------------------------------------------------------------ the scenario
@dataclass(frozen=True)
class FigureSpec:
    """A figure at the start: its side (0 or 1), team (index into ``Scenario.teams[side]``), fixed skills only."""

    side: int
    team: int
    name: str
    quality: Quality
    weapon: str
    """A key of :data:`weapons.FIREARMS`."""
    cell: int
    stance: Stance = Stance.STANDING
    skills: dict[str, int] = field(default_factory=dict)
    """Skills the scenario fixes (core or special); the others are drawn (RULES.md §2.1)."""
    grenades: int = 0
    petrol_bombs: int = 0
    knives: int = 0
    other_weapons: tuple[str, ...] = ()
    """Keys of :data:`weapons.FIREARMS` or :data:`weapons.AT_WEAPONS` carried besides ``weapon``."""
    ammo: int | None = None
    """Rounds in ``weapon``'s magazine at the start; None: a full magazine."""
    reserve: int | None = None
    """Rounds carried for ``weapon``; None: RULES.md §2.2's default."""
    role: str = ""
    """``""``, ``"sergeant"`` or ``"officer"`` (three cards each with ``deck_cards="figures"``)."""
    crew_of: str | None = None
    """The vehicle this figure rides as exposed crew (RULES.md §8.2); it starts on the vehicle's hex."""
    weapon_name: str = ""
    """The weapon as the file names it (``M1 carbine``), for views; ``weapon`` is its table row."""
    at_ammo: int | None = None
    """Rounds for its anti-tank weapon; None: RULES.md §8.3's default (6; a Panzerfaust 1)."""


@dataclass(frozen=True)
class VehicleSpec:
    """A vehicle at the start (RULES.md §8); its crew is closed down unless figures name it in ``crew_of``."""

    side: int
    name: str
    kind: str
    """``tracked`` or ``wheeled``."""
    armour: Armour
    damage_points: int
    """Small-arms damage points of an un-armoured vehicle (0 for armoured ones)."""
    cell: int
    facing: int
    turret: bool
    weapons: tuple[str, ...]
    """Keys of :data:`weapons.AT_WEAPONS` (its gun) and :data:`weapons.FIREARMS` (its machine guns)."""
    quality: Quality = Quality.REGULAR
    """The crew's quality (its skills for the vehicle's weapons)."""
    skills: dict[str, int] = field(default_factory=dict)
    gun_ammo: int | None = None
    """Main-gun rounds; None: 6 (RULES.md §8.3)."""


@dataclass(frozen=True)
class Victory:
    """How the scenario is won (RULES.md §10)."""

    kind: str
    """``objectives``, ``casualties``, ``exit`` or ``destroy``."""
    objectives: dict[int, int] = field(default_factory=dict)
    """objectives: cell -> points."""
    exit_side: int | None = None
    """exit: the side that must leave the map."""
    exit_edge: str | None = None
    """exit: ``east``, ``west``, ``north`` or ``south`` (the map's edge, not the padded grid's)."""
    exit_count: int = 0
    """exit: figures that must leave by the limit, else the other side wins."""
    target: str | None = None
    """destroy: the vehicle's name; the other side wins once it is disabled, destroyed or abandoned, its
    own side at the turn limit."""
    vehicle_points: int = 0
    """casualties: points for a vehicle disabled, destroyed or abandoned ("as the scenario says")."""
    objective_names: dict[int, str] = field(default_factory=dict)
    """objectives: what a hex is in the story ("the farmhouse"), where the file names it."""


@dataclass(frozen=True)
class Scenario:
    """A playable scenario (immutable; shared by every game that plays it)."""

    name: str
    description: str
    sides: tuple[str, str]
    rows: tuple[str, ...]
    """16 rows of 24 ground characters (padded with ``#``)."""
    edges: tuple[tuple[int, int, str], ...]
    """Listed edges as ``(cell, cell, kind)``, the smaller cell first; building walls not listed are implied."""
    figures: tuple[FigureSpec, ...]
    vehicles: tuple[VehicleSpec, ...]
    victory: Victory
    turn_limit: int
    teams: dict[int, list[str]]
    """side -> team names, in team-index order."""
    deck: tuple[tuple, ...] | None = None
    """Activation cards: ``("team", side, team)``, ``("free", side)``, ``("figure", name)``,
    ``("vehicle", name)``; None: the default deck of the ``deck_cards`` option. It replaces the default
    ``deck_cards="teams"`` deck only: ``deck_cards="figures"`` replaces it (RULES.md §7.2)."""
    mines: tuple[tuple[int, int], ...] = ()
    """(cell, side that laid it)."""
    rules: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    width: int = WIDTH
    """Columns of the map as drawn (the rest of the 24 x 16 grid is off-map)."""
    height: int = HEIGHT
    deal: int | None = field(default=None, init=False, compare=False, repr=False)
    """A generated scenario's deal: the seed its forces were drawn from (``generator.generate(seed, deal=...)``),
    kept so that a record can rebuild it; None otherwise. Not an init field, so ``dataclasses.replace`` (the
    public map of ``view.public_scenario``) drops it: a seat never sees it."""

    @property
    def ground(self) -> str:
        """The ground character of every cell, ``cell = row * 24 + col``."""
        return "".join(self.rows)

    def edge_labels(self) -> list[tuple[str, str, str]]:
        """The listed edges as :meth:`board.Board.from_rows` takes them."""
        return [(label(a), label(b), kind) for a, b, kind in self.edges]

    @cached_property
    def board(self):  # -> board.Board (imported lazily)
        from cardwar.envs.skirmish.board import Board

        return Board.from_rows(list(self.rows), self.edge_labels())

    def edge_kind(self, a: int, b: int) -> str:
        """The kind of the edge between adjacent ``a`` and ``b`` as listed, or implied: ``building_wall`` on
        a building's or bunker's outer edge, ``open`` otherwise."""
        return _edge_kind(self.ground, self._edge_map, a, b)

    @cached_property
    def _edge_map(self) -> dict[tuple[int, int], str]:
        return {(a, b): k for a, b, k in self.edges}

    def side_figures(self, side: int) -> tuple[FigureSpec, ...]:
        return tuple(f for f in self.figures if f.side == side)

    def team_name(self, side: int, team: int) -> str:
        return self.teams[side][team]


def _edge_kind(ground: str, edges: dict[tuple[int, int], str], a: int, b: int) -> str:
    kind = edges.get(edge_key(a, b))
    if kind is not None:
        return kind
    ga, gb = ground[a], ground[b]
    if (ga in BUILT or gb in BUILT) and ga != gb:
        return "building_wall"
    return "open"


def passable_step(ground: str, edges: dict[tuple[int, int], str], a: int, b: int) -> bool:
    """Whether a figure on foot can ever step from ``a`` to ``b`` (whatever it costs): not off-map, not
    through a building or bunker wall or an embrasure (RULES.md §1.3)."""
    return ground[b] != OFF and _edge_kind(ground, edges, a, b) not in IMPASSABLE_EDGES


def reachable(ground: str, edges: dict[tuple[int, int], str], starts) -> set[int]:
    """Cells a figure on foot could reach from ``starts`` (breadth first, ignoring costs and figures)."""
    seen = {c for c in starts if ground[c] != OFF}
    todo = list(seen)
    while todo:
        c = todo.pop()
        for n in grid_neighbours(c):
            if n not in seen and passable_step(ground, edges, c, n):
                seen.add(n)
                todo.append(n)
    return seen


# ------------------------------------------------------------------ reading
class _Reader(FieldReader):
    """Field access that reports the file and the field path on any mistake (a one-line :class:`ScenarioError`)."""

    error = ScenarioError
    one_line = True

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value.strip() or "\n" in value.strip():
            raise self.fail(where, f"expected one line of text, got {value!r}")
        return value.strip()

    def boolean(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"expected true or false, got {value!r}")
        return value

    def choice(self, value: Any, where: str, options, what: str):
        key = value.lower() if isinstance(value, str) and value not in options else value
        if key not in options:
            raise self.fail(where, f"unknown {what} {value!r}; one of {', '.join(map(str, options))}")
        return options[key] if isinstance(options, dict) else key

    def items(self, value: Any, where: str, allow_empty: bool = True) -> list:
        if value is None and allow_empty:
            return []
        if not isinstance(value, list) or (not value and not allow_empty):
            raise self.fail(where, "expected a list" + ("" if allow_empty else " (not empty)"))
        return value


def _parse_map(rd: _Reader, text: Any) -> tuple[str, int, int]:
    if not isinstance(text, str) or not text.strip():
        raise rd.fail("map", "expected rows of ground characters")
    rows = ["".join(r.split()) for r in text.strip("\n").splitlines() if r.strip()]
    height, width = len(rows), len(rows[0])
    if height > HEIGHT or width > WIDTH:
        raise rd.fail("map", f"{width} x {height} hexes; the most is {WIDTH} x {HEIGHT}")
    for r, row in enumerate(rows):
        if len(row) != width:
            raise rd.fail(f"map row {r + 1}", f"has {len(row)} hexes, the first row has {width}")
        bad = [ch for ch in row if ch not in GROUND_CHARS]
        if bad:
            raise rd.fail(f"map row {r + 1}", f"unknown ground {bad[0]!r}; use one of {' '.join(GROUND_CHARS)}")
    padded = [row + OFF * (WIDTH - width) for row in rows] + [OFF * WIDTH] * (HEIGHT - height)
    ground = "".join(padded)
    if all(ch == OFF for ch in ground):
        raise rd.fail("map", "every hex is off-map")
    return ground, width, height


def _parse_edges(rd: _Reader, value: Any, ground: str) -> dict[tuple[int, int], str]:
    edges: dict[tuple[int, int], str] = {}

    def cell(text: Any, where: str) -> int:
        try:
            c = parse_label(str(text))
        except ValueError as err:
            raise rd.fail(where, str(err)) from None
        if ground[c] == OFF:
            raise rd.fail(where, f"{label(c)} is off the map")
        return c

    def add(a_text: Any, b_text: Any, kind: Any, where: str) -> None:
        if kind not in EDGE_KINDS:
            raise rd.fail(where, f"unknown edge kind {kind!r}; one of {', '.join(EDGE_KINDS)}")
        a, b = cell(a_text, where), cell(b_text, where)
        if not adjacent(a, b):
            raise rd.fail(where, f"{label(a)} and {label(b)} are not neighbours, so share no edge")
        key = edge_key(a, b)
        if key in edges:
            raise rd.fail(where, f"the edge {label(a)}-{label(b)} is listed twice ({edges[key]}, {kind})")
        ga, gb = ground[a], ground[b]
        built = [g for g in (ga, gb) if g in BUILT]
        if not built and kind not in OBSTACLE_EDGES:
            raise rd.fail(where, f"{kind} at {label(a)}-{label(b)} needs a building or bunker hex on one side")
        if built and ga == gb and kind not in ("building_wall", "door_open", "door_closed"):
            raise rd.fail(where, f"{kind} inside a building at {label(a)}-{label(b)}: an inner edge is open, "
                                 "building_wall or a door")
        if built and ga != gb:
            if kind in OBSTACLE_EDGES:
                raise rd.fail(where, f"{kind} on the outer wall of a building at {label(a)}-{label(b)}: use a "
                                     "door, window, embrasure or building_wall")
            if kind == "embrasure" and "K" not in built:
                raise rd.fail(where, f"embrasure at {label(a)}-{label(b)}: only a bunker has embrasures")
            if kind == "window" and "K" in built:
                raise rd.fail(where, f"window at {label(a)}-{label(b)}: a bunker has a door and embrasures")
        edges[key] = kind

    for i, e in enumerate(rd.items(value, "edges")):
        where = f"edges[{i}]"
        if isinstance(e, list):
            if len(e) != 3:
                raise rd.fail(where, f"expected [hex, hex, kind], got {e!r}")
            add(e[0], e[1], e[2], where)
        elif isinstance(e, str):
            parts = e.split()
            if len(parts) < 2:
                raise rd.fail(where, f"expected 'kind HEX-HEX ...', got {e!r}")
            for pair in parts[1:]:
                ends = pair.split("-")
                if len(ends) != 2:
                    raise rd.fail(where, f"expected a hex pair like C5-C6, got {pair!r}")
                add(ends[0], ends[1], parts[0], where)
        else:
            raise rd.fail(where, f"expected 'kind HEX-HEX ...' or [hex, hex, kind], got {e!r}")
    return edges


def _check_buildings(rd: _Reader, ground: str, edges: dict[tuple[int, int], str]) -> None:
    """Every room of a building or bunker (hexes joined by open inner edges) has a door (or window)."""
    seen: set[int] = set()
    for start in range(N_CELLS):
        if ground[start] not in BUILT or start in seen:
            continue
        room, todo, ways_in = {start}, [start], 0
        while todo:
            c = todo.pop()
            for n in grid_neighbours(c):
                kind = _edge_kind(ground, edges, c, n)
                if ground[n] == ground[c]:
                    if kind not in IMPASSABLE_EDGES and n not in room:
                        room.add(n)
                        todo.append(n)
                elif ground[n] != OFF and kind in ("door_open", "door_closed", "window"):
                    ways_in += 1
        seen |= room
        if not ways_in:
            what = "bunker" if ground[start] == "K" else "building"
            raise rd.fail("edges", f"the {what} at {', '.join(label(c) for c in sorted(room))} has no door"
                                   f"{'' if what == 'bunker' else ' or window'}: no one could get in or out")


def _weapon_key(rd: _Reader, value: Any, where: str, allow_at: bool) -> tuple[str, str]:
    """(table key, the name as given)."""
    if not isinstance(value, str) or not value.strip():
        raise rd.fail(where, f"expected a weapon name, got {value!r}")
    name = value.strip()
    key = SEED_WEAPON_KEYS.get(name.lower(), name.lower())
    if key in FIREARMS or (allow_at and key in AT_WEAPONS):
        return key, name
    known = list(FIREARMS) + (list(AT_WEAPONS) if allow_at else []) + list(SEED_WEAPONS)
    raise rd.fail(where, f"unknown weapon {value!r}; one of {', '.join(known)}")


def _skills(rd: _Reader, value: Any, where: str) -> dict[str, int]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise rd.fail(where, "expected a mapping of skill: number")
    out = {}
    for k, v in value.items():
        if not isinstance(k, str) or not re.fullmatch(r"[a-z][a-z_]*", k):
            raise rd.fail(f"{where}.{k}", "a skill name is lowercase letters and _ (shoot, throw, melee, "
                                          "field_craft or a special skill)")
        out[k] = rd.integer(v, f"{where}.{k}", 1, 10)
    return out


def scenario_from_dict(data: Any, name: str = "scenario", source: str = "<scenario>") -> Scenario:
    """Validate and build a scenario from its mapping; errors name ``source`` and the field."""
    rd = _Reader(source)
    d = rd.mapping(data, "(top level)", {"map", "sides", "turns", "victory"},
                   {"name", "title", "description", "edges", "deck", "mines", "rules"})
    turns = rd.integer(d["turns"], "turns", 1, MAX_TURNS)
    ground, width, height = _parse_map(rd, d["map"])
    edges = _parse_edges(rd, d.get("edges"), ground)
    _check_buildings(rd, ground, edges)

    def cell_at(value: Any, where: str) -> int:
        try:
            c = parse_label(str(value))
        except ValueError as err:
            raise rd.fail(where, str(err)) from None
        if ground[c] == OFF:
            raise rd.fail(where, f"{label(c)} is off the map")
        return c

    sides_map = rd.mapping(d["sides"], "sides", set(), set(d["sides"]) if isinstance(d["sides"], dict) else set())
    if len(sides_map) != 2:
        raise rd.fail("sides", f"expected exactly two sides, got {len(sides_map)}")
    side_names = tuple(str(s) for s in sides_map)
    by_name = {s.lower(): i for i, s in enumerate(side_names)}
    if len(by_name) != 2:
        raise rd.fail("sides", "the two sides need different names")

    def side_of(value: Any, where: str) -> int:
        if isinstance(value, str) and value.lower() in by_name:
            return by_name[value.lower()]
        raise rd.fail(where, f"unknown side {value!r}; one of {', '.join(side_names)}")

    figures: list[FigureSpec] = []
    vehicles: list[VehicleSpec] = []
    teams: dict[int, list[str]] = {}
    taken: dict[int, str] = {}
    names: set[str] = set()
    crews: list[tuple[str, str, int | None]] = []  # (figure name, vehicle name, its hex or None)
    for si, side in enumerate(side_names):
        w = f"sides.{side}"
        s = rd.mapping(sides_map[side], w, {"figures"}, {"teams", "vehicles"})
        team_names = [rd.text(t, f"{w}.teams[{i}]") for i, t in enumerate(rd.items(s.get("teams"), f"{w}.teams"))]
        if len(set(team_names)) != len(team_names):
            raise rd.fail(f"{w}.teams", "a team is named twice")
        # vehicles first, so crews can name them
        for i, v in enumerate(rd.items(s.get("vehicles"), f"{w}.vehicles")):
            vw = f"{w}.vehicles[{i}]"
            v = rd.mapping(v, vw, {"name", "kind", "armour", "hex", "facing", "weapons"},
                           {"damage_points", "turret", "quality", "skills", "gun_ammo"})
            vname = rd.text(v["name"], f"{vw}.name")
            if vname in names:
                raise rd.fail(f"{vw}.name", f"{vname!r} is used twice")
            names.add(vname)
            kind = rd.choice(v["kind"], f"{vw}.kind", VEHICLE_KINDS, "vehicle kind")
            armour = rd.choice(str(v["armour"]).upper(), f"{vw}.armour", {a.value: a for a in Armour}, "armour")
            c = cell_at(v["hex"], f"{vw}.hex")
            if ground[c] not in VEHICLE_GROUND:
                raise rd.fail(f"{vw}.hex", f"{label(c)} is {_GROUND_NAME[ground[c]]}: a vehicle cannot stand there")
            if c in taken:
                raise rd.fail(f"{vw}.hex", f"{label(c)} already holds {taken[c]}")
            taken[c] = vname
            facing = v["facing"]
            if isinstance(facing, str):
                if facing.upper() not in DIRECTION_NAMES:
                    raise rd.fail(f"{vw}.facing", f"unknown facing {facing!r}; one of {', '.join(DIRECTION_NAMES)}"
                                                  " or 0..5")
                facing = DIRECTION_NAMES.index(facing.upper())
            facing = rd.integer(facing, f"{vw}.facing", 0, 5)
            weapons = []
            for j, x in enumerate(rd.items(v["weapons"], f"{vw}.weapons")):
                weapons.append(_weapon_key(rd, x, f"{vw}.weapons[{j}]", allow_at=True)[0])
            dp_default = DEFAULT_DAMAGE_POINTS.get(armour, 0)
            dp = rd.integer(v.get("damage_points", dp_default), f"{vw}.damage_points", 0, 20)
            if armour is Armour.U and dp == 0:
                raise rd.fail(f"{vw}.damage_points", "an un-armoured vehicle needs damage points (RULES.md §8.2)")
            vehicles.append(VehicleSpec(
                side=si, name=vname, kind=kind, armour=armour, damage_points=dp, cell=c, facing=facing,
                turret=rd.boolean(v.get("turret", True), f"{vw}.turret"), weapons=tuple(weapons),
                quality=rd.choice(v.get("quality", "regular"), f"{vw}.quality", QUALITIES, "quality"),
                skills=_skills(rd, v.get("skills"), f"{vw}.skills"),
                gun_ammo=None if v.get("gun_ammo") is None else rd.integer(v["gun_ammo"], f"{vw}.gun_ammo", 0, 99)))
        side_vehicles = {v.name: v for v in vehicles if v.side == si}
        for i, f in enumerate(rd.items(s["figures"], f"{w}.figures", allow_empty=False)):
            fw = f"{w}.figures[{i}]"
            f = rd.mapping(f, fw, {"name", "quality", "weapon"},
                           {"team", "hex", "stance", "skills", "grenades", "petrol_bombs", "knives", "other_weapons",
                            "ammo", "reserve", "role", "crew_of", "at_ammo"})
            fname = rd.text(f["name"], f"{fw}.name")
            if fname in names:
                raise rd.fail(f"{fw}.name", f"{fname!r} is used twice")
            names.add(fname)
            team_text = rd.text(f.get("team", team_names[0] if team_names else "Team one"), f"{fw}.team")
            if team_text not in team_names:
                if s.get("teams") is not None:
                    raise rd.fail(f"{fw}.team", f"unknown team {team_text!r}; one of {', '.join(team_names)}")
                team_names.append(team_text)
            if len(team_names) > MAX_TEAMS:
                raise rd.fail(f"{fw}.team", f"more than {MAX_TEAMS} teams on one side")
            crew_of = f.get("crew_of")
            if crew_of is not None:
                crew_of = rd.text(crew_of, f"{fw}.crew_of")
                if crew_of not in side_vehicles:
                    raise rd.fail(f"{fw}.crew_of", f"no vehicle {crew_of!r} on this side")
                c = side_vehicles[crew_of].cell
                if "hex" in f and cell_at(f["hex"], f"{fw}.hex") != c:
                    raise rd.fail(f"{fw}.hex", f"exposed crew starts on its vehicle's hex {label(c)}")
            else:
                if "hex" not in f:
                    raise rd.fail(fw, "missing field(s) hex")
                c = cell_at(f["hex"], f"{fw}.hex")
                if c in taken:
                    raise rd.fail(f"{fw}.hex", f"{label(c)} already holds {taken[c]}")
                taken[c] = fname
            weapon, weapon_name = _weapon_key(rd, f["weapon"], f"{fw}.weapon", allow_at=False)
            others = tuple(_weapon_key(rd, x, f"{fw}.other_weapons[{j}]", allow_at=True)[0]
                           for j, x in enumerate(rd.items(f.get("other_weapons"), f"{fw}.other_weapons")))
            magazine = FIREARMS[weapon].magazine
            ammo = None if f.get("ammo") is None else rd.integer(f["ammo"], f"{fw}.ammo", 0, magazine)
            reserve = None if f.get("reserve") is None else rd.integer(f["reserve"], f"{fw}.reserve", 0, 1000)
            at_ammo = None
            if f.get("at_ammo") is not None:
                if not any(o in AT_WEAPONS for o in others):
                    raise rd.fail(f"{fw}.at_ammo", "the figure carries no anti-tank weapon")
                at_ammo = rd.integer(f["at_ammo"], f"{fw}.at_ammo", 0, 99)
            figures.append(FigureSpec(
                side=si, team=team_names.index(team_text), name=fname,
                quality=rd.choice(f["quality"], f"{fw}.quality", QUALITIES, "quality"),
                weapon=weapon, cell=c,
                stance=rd.choice(f.get("stance", "standing"), f"{fw}.stance", STANCES, "stance"),
                skills=_skills(rd, f.get("skills"), f"{fw}.skills"),
                grenades=rd.integer(f.get("grenades", 0), f"{fw}.grenades", 0, 20),
                petrol_bombs=rd.integer(f.get("petrol_bombs", 0), f"{fw}.petrol_bombs", 0, 20),
                knives=rd.integer(f.get("knives", 0), f"{fw}.knives", 0, 20),
                other_weapons=others, ammo=ammo, reserve=reserve,
                role=rd.choice(f.get("role", ""), f"{fw}.role", ROLES, "role"),
                crew_of=crew_of, weapon_name=weapon_name, at_ammo=at_ammo))
        if not any(x.side == si for x in figures):
            raise rd.fail(f"{w}.figures", "needs at least one figure")
        teams[si] = team_names
    # the victory condition
    v = d["victory"]
    if not isinstance(v, dict) or "kind" not in v:
        raise rd.fail("victory", "expected a mapping with a kind (objectives, casualties, exit or destroy)")
    kind = rd.choice(v["kind"], "victory.kind", VICTORY_KINDS, "victory kind")
    if kind == "objectives":
        v = rd.mapping(v, "victory", {"kind", "objectives"}, set())
        objectives: dict[int, int] = {}
        objective_names: dict[int, str] = {}
        for i, o in enumerate(rd.items(v["objectives"], "victory.objectives", allow_empty=False)):
            ow = f"victory.objectives[{i}]"
            o = rd.mapping(o, ow, {"hex"}, {"points", "name"})
            c = cell_at(o["hex"], f"{ow}.hex")
            if c in objectives:
                raise rd.fail(f"{ow}.hex", f"{label(c)} is an objective twice")
            objectives[c] = rd.integer(o.get("points", 1), f"{ow}.points", 1, 10)
            if "name" in o:
                objective_names[c] = rd.text(o["name"], f"{ow}.name")
        victory = Victory("objectives", objectives=objectives, objective_names=objective_names)
    elif kind == "casualties":
        v = rd.mapping(v, "victory", {"kind"}, {"vehicle_points"})
        victory = Victory("casualties", vehicle_points=rd.integer(v.get("vehicle_points", 0),
                                                                  "victory.vehicle_points", 0, 20))
    elif kind == "exit":
        v = rd.mapping(v, "victory", {"kind", "side", "edge", "count"}, set())
        es = side_of(v["side"], "victory.side")
        edge = rd.choice(v["edge"], "victory.edge", EXIT_EDGES, "map edge")
        n_figs = sum(1 for f in figures if f.side == es)
        victory = Victory("exit", exit_side=es, exit_edge=edge,
                          exit_count=rd.integer(v["count"], "victory.count", 1, n_figs))
    else:
        v = rd.mapping(v, "victory", {"kind", "target"}, set())
        target = rd.text(v["target"], "victory.target")
        if target not in {x.name for x in vehicles}:
            raise rd.fail("victory.target", f"no vehicle named {target!r}")
        victory = Victory("destroy", target=target)
    # the activation deck
    deck = None
    if d.get("deck") is not None:
        cards: list[tuple] = []
        fig_names = {f.name for f in figures}
        veh_names = {x.name for x in vehicles}
        for i, c in enumerate(rd.items(d["deck"], "deck", allow_empty=False)):
            cw = f"deck[{i}]"
            if not isinstance(c, dict) or "card" not in c:
                raise rd.fail(cw, "expected a mapping with card: team, free, figure or vehicle")
            what = rd.choice(c["card"], f"{cw}.card", ("team", "free", "figure", "vehicle"), "card")
            need = {"team": {"side", "team"}, "free": {"side"}, "figure": {"figure"}, "vehicle": {"vehicle"}}[what]
            c = rd.mapping(c, cw, {"card"} | need, {"count"})
            count = rd.integer(c.get("count", 1), f"{cw}.count", 1, 10)
            if what == "team":
                si = side_of(c["side"], f"{cw}.side")
                if c["team"] not in teams[si]:
                    raise rd.fail(f"{cw}.team", f"unknown team {c['team']!r}; one of {', '.join(teams[si])}")
                card: tuple = ("team", si, teams[si].index(c["team"]))
            elif what == "free":
                card = ("free", side_of(c["side"], f"{cw}.side"))
            elif what == "figure":
                if c["figure"] not in fig_names:
                    raise rd.fail(f"{cw}.figure", f"no figure named {c['figure']!r}")
                card = ("figure", c["figure"])
            else:
                if c["vehicle"] not in veh_names:
                    raise rd.fail(f"{cw}.vehicle", f"no vehicle named {c['vehicle']!r}")
                card = ("vehicle", c["vehicle"])
            cards.extend([card] * count)
        for si in (0, 1):
            if not any((k[0] in ("team", "free") and k[1] == si) or
                       (k[0] == "figure" and any(f.name == k[1] and f.side == si for f in figures)) or
                       (k[0] == "vehicle" and any(x.name == k[1] and x.side == si for x in vehicles))
                       for k in cards):
                raise rd.fail("deck", f"no card activates {side_names[si]}")
        deck = tuple(cards)
    mines = []
    for i, m in enumerate(rd.items(d.get("mines"), "mines")):
        mw = f"mines[{i}]"
        m = rd.mapping(m, mw, {"hex", "side"}, set())
        c = cell_at(m["hex"], f"{mw}.hex")
        if c in taken:
            raise rd.fail(f"{mw}.hex", f"{label(c)} holds {taken[c]} at the start")
        if ground[c] in BUILT:
            raise rd.fail(f"{mw}.hex", f"{label(c)} is inside a building")
        mines.append((c, side_of(m["side"], f"{mw}.side")))
    rules: dict[str, Any] = {}
    raw_rules = d.get("rules") or {}
    if not isinstance(raw_rules, dict):
        raise rd.fail("rules", "expected a mapping of option: value")
    for k, val in raw_rules.items():
        if k not in RULE_OPTIONS:
            raise rd.fail(f"rules.{k}", f"unknown rule option; one of {', '.join(RULE_OPTIONS)}")
        if val not in RULE_OPTIONS[k] or isinstance(val, bool) != isinstance(RULE_OPTIONS[k][0], bool):
            raise rd.fail(f"rules.{k}", f"expected one of {', '.join(map(str, RULE_OPTIONS[k]))}, got {val!r}")
        rules[k] = val
    description = d.get("description", "")
    if not isinstance(description, str):
        raise rd.fail("description", "expected text")
    return Scenario(
        name=str(d.get("name", name)), description=" ".join(description.split()), sides=side_names,
        rows=tuple(ground[r * WIDTH:(r + 1) * WIDTH] for r in range(HEIGHT)),
        edges=tuple((a, b, k) for (a, b), k in sorted(edges.items())),
        figures=tuple(figures), vehicles=tuple(vehicles), victory=victory, turn_limit=turns, teams=teams,
        deck=deck, mines=tuple(mines), rules=rules, title=str(d.get("title", name)), width=width, height=height)


_GROUND_NAME = {".": "clear", ",": "light cover", "W": "woods", "r": "rough", "o": "a shell hole",
                "B": "a building", "K": "a bunker", "#": "off-map"}


# ------------------------------------------------------------------ files
def scenario_names() -> list[str]:
    """Names of the shipped skirmish scenarios."""
    return shipped_names(SKIRMISH_SCENARIO_DIR)


def _unknown(name: str) -> str:
    return (f"unknown skirmish scenario {name!r}; scenarios: {', '.join(scenario_names())}, "
            "random, random:train, random:test (the envs' procedural maps), or a path to a .yaml file")


def load_scenario(name_or_path: str | pathlib.Path) -> Scenario:
    """A shipped scenario by name, or a YAML file by path; every failure is a one-line :class:`ScenarioError`."""
    path = resolve_path(str(name_or_path), SKIRMISH_SCENARIO_DIR, ScenarioError, _unknown)
    data = load_yaml(path, ScenarioError)
    return scenario_from_dict(data, name=path.stem, source=str(path))
