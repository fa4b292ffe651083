"""Scenarios: map, forces, objectives and turn limit, read from YAML files.

The seed has no victory conditions; scenarios supply them in the spirit of
One-Hour Wargames (RULES.md, "Scenarios and victory"). Every map fits the fixed
maximum of 12 columns x 10 rows, so one policy can play every scenario. A file
with a mistake gets a :class:`ScenarioError` naming the file and the field.

File format (``configs/scenarios/hexwar/*.yaml``)::

    title: River crossing
    description: Blue must seize the far bank.
    turns: 12
    map: |            # one character per hex, rows top to bottom (see terrain.py)
      . . W . .
      ~ = ~ F ~
      . . . H .
    objectives:                 # name: optional, what the hex is ("the village")
      - {hex: B1, value: 2, holder: red, name: the farm}     # holder: blue, red or none
    sides:
      blue:
        name: US 2nd Armored
        units:
          - {type: tank, hex: B3}
          - {type: artillery}                 # no hex: off-table artillery
      red:
        name: Kampfgruppe
        units:
          - {type: foot, hex: C1, hidden: true}
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardwar.envs.hexwar.hexgrid import Hex, from_offset, label, parse_label, to_offset
from cardwar.envs.hexwar.terrain import CHARS, IMPASSABLE, Terrain, stack_limit
from cardwar.envs.hexwar.units import TYPE_NAMES, UnitType
from cardwar.envs.scenario_files import FieldReader, load_yaml, resolve_path, shipped_names

MAX_WIDTH, MAX_HEIGHT = 12, 10
MAX_OBJECTIVE_VALUE = 10
NUM_CELLS = MAX_WIDTH * MAX_HEIGHT
SIDES = ("blue", "red")
from cardwar.configs import SCENARIO_DIR  # noqa: E402  (packaged data: found from anywhere)


class ScenarioError(ValueError):
    """A scenario file or mapping that cannot be played; the message names file and field."""


@dataclass(frozen=True)
class UnitSpec:
    """A unit at the start of a scenario; ``hex`` None means off-table artillery."""

    side: int
    type: UnitType
    hex: Hex | None
    hidden: bool = False


@dataclass(frozen=True)
class Objective:
    """An objective hex worth ``value`` points to the side holding it at the end."""

    hex: Hex
    value: int
    holder: int  # 0 blue, 1 red, -1 nobody
    name: str = ""
    """What the hex is in the story ("the village"); shown with the hex label."""

    @property
    def title(self) -> str:
        """``the village (F8)``, or the bare hex label when the objective has no name."""
        return f"{self.name} ({label(self.hex)})" if self.name else label(self.hex)


@dataclass(frozen=True)
class Scenario:
    """A playable scenario (immutable; shared by every state of a game)."""

    name: str
    title: str
    description: str
    width: int
    height: int
    turns: int
    terrain: tuple[Terrain, ...]
    """Terrain by cell (``row * MAX_WIDTH + col``); cells off the map are LAKE."""
    objectives: tuple[Objective, ...]
    units: tuple[UnitSpec, ...]
    side_names: tuple[str, str] = ("Blue", "Red")
    on_map: tuple[bool, ...] = field(default=(), repr=False, compare=False)
    passable: tuple[bool, ...] = field(default=(), repr=False, compare=False)
    """Derived: on the map and not impassable terrain."""
    stack: tuple[int, ...] = field(default=(), repr=False, compare=False)
    """Derived: the stacking limit of each cell under the default reading of open terrain
    (clear hexes hold two). Files are checked against it, the strictest reading, so a
    scenario is valid under every reading; games use :meth:`stacking`."""
    _stack_by_reading: dict = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        on_map = tuple((c % MAX_WIDTH) < self.width and (c // MAX_WIDTH) < self.height for c in range(NUM_CELLS))
        object.__setattr__(self, "on_map", on_map)
        object.__setattr__(self, "passable", tuple(m and t not in IMPASSABLE for m, t in zip(on_map, self.terrain)))
        object.__setattr__(self, "stack", tuple(stack_limit(t) for t in self.terrain))
        self._stack_by_reading["clear"] = self.stack

    def stacking(self, reading: str = "clear") -> tuple[int, ...]:
        """Stacking limit of each cell when open terrain is read as ``reading`` (HexConfig.open_terrain)."""
        table = self._stack_by_reading.get(reading)
        if table is None:
            table = self._stack_by_reading[reading] = tuple(stack_limit(t, reading) for t in self.terrain)
        return table

    def to_dict(self) -> dict[str, Any]:
        """The scenario in the YAML file's form."""
        rows = []
        for r in range(self.height):
            rows.append(" ".join(_CHAR_OF[self.terrain[r * MAX_WIDTH + c]] for c in range(self.width)))
        sides: dict[str, Any] = {}
        for i, s in enumerate(SIDES):
            units = []
            for u in self.units:
                if u.side == i:
                    d: dict[str, Any] = {"type": _TYPE_NAME[u.type]}
                    if u.hex is not None:
                        d["hex"] = label(u.hex)
                    if u.hidden:
                        d["hidden"] = True
                    units.append(d)
            sides[s] = {"name": self.side_names[i], "units": units}
        return {"name": self.name, "title": self.title, "description": self.description, "turns": self.turns,
                "map": "\n".join(rows) + "\n",
                "objectives": [_objective_dict(o) for o in self.objectives],
                "sides": sides}


def _objective_dict(o: Objective) -> dict[str, Any]:
    d: dict[str, Any] = {"hex": label(o.hex), "value": o.value, "holder": "none" if o.holder < 0 else SIDES[o.holder]}
    if o.name:
        d["name"] = o.name
    return d


def decisive_objective(objectives: tuple[Objective, ...] | list[Objective]) -> int:
    """Index of the objective worth more than all the others together (-1 if none): whoever
    holds it at the turn limit has more points, so wins (RULES.md section 9)."""
    total = sum(o.value for o in objectives)
    return next((i for i, o in enumerate(objectives) if 2 * o.value > total), -1)


def victory_sentence(objectives: tuple[Objective, ...] | list[Objective], turns: int) -> str:
    """The victory rule of RULES.md section 9 in words, for a scenario's description.

    Names every objective with its points and, where one objective outweighs the rest,
    says that its holder wins (and what decides while nobody holds it).
    """
    def pts(v: int) -> str:
        return f"{v} point{'s' if v != 1 else ''}"

    if not objectives:
        return (f"There are no objectives: at the end of turn {turns} the game is a draw, unless a side has "
                "lost every unit on the table before (it loses at once).")
    listed = [f"{o.title}, {pts(o.value)}" for o in objectives]
    names = listed[0] if len(listed) == 1 else ", ".join(listed[:-1]) + ", and " + listed[-1]
    text = (f"Victory: the objective{'s are' if len(listed) > 1 else ' is'} {names}. At the end of turn "
            f"{turns} the side holding more objective points wins (equal points: a draw); a side with no unit "
            "left on the table loses at once.")
    k = decisive_objective(objectives)
    if k >= 0:
        o = objectives[k]
        text += f" So whoever holds {o.title} at the end wins"
        if o.holder < 0:
            text += ("; while nobody holds it, it is a draw" if len(objectives) == 1
                     else "; while nobody holds it, the other objectives decide")
        text += "."
    return text


_CHAR_OF = {v: k for k, v in CHARS.items()}
_TYPE_NAME = {v: k for k, v in TYPE_NAMES.items() if k != "infantry"}


def cell_of(h: Hex) -> int:
    """Cell index of a hex (its odd-r offset position on the fixed 12 x 10 grid)."""
    col, row = to_offset(h)
    return row * MAX_WIDTH + col


def hex_of(cell: int) -> Hex:
    """Inverse of :func:`cell_of`."""
    return from_offset(cell % MAX_WIDTH, cell // MAX_WIDTH)


class _Reader(FieldReader):
    """Field access that reports the file and the field path on any mistake (as a :class:`ScenarioError`)."""

    error = ScenarioError


def scenario_from_dict(data: Any, name: str = "scenario", source: str = "<scenario>") -> Scenario:
    """Validate and build a scenario from its mapping; errors name ``source`` and the field."""
    rd = _Reader(source)
    d = rd.mapping(data, "(top level)", {"map", "sides", "turns"}, {"name", "title", "description", "objectives"})
    turns = rd.integer(d["turns"], "turns", 1, 60)
    if not isinstance(d["map"], str) or not d["map"].strip():
        raise rd.fail("map", "expected rows of terrain characters")
    rows = [r.split() for r in d["map"].strip().splitlines()]
    height, width = len(rows), len(rows[0])
    if not 1 <= height <= MAX_HEIGHT or not 1 <= width <= MAX_WIDTH:
        raise rd.fail("map", f"{width} x {height} hexes; the most is {MAX_WIDTH} x {MAX_HEIGHT}")
    terrain = [Terrain.LAKE] * NUM_CELLS
    for r, row in enumerate(rows):
        if len(row) != width:
            raise rd.fail(f"map row {r + 1}", f"has {len(row)} hexes, the first row has {width}")
        for c, ch in enumerate(row):
            if ch not in CHARS:
                raise rd.fail(f"map row {r + 1}", f"unknown terrain {ch!r}; use one of {' '.join(CHARS)}")
            terrain[r * MAX_WIDTH + c] = CHARS[ch]

    def on_map_hex(value: Any, where: str) -> Hex:
        try:
            h = parse_label(str(value))
        except ValueError as err:
            raise rd.fail(where, str(err)) from None
        col, row = to_offset(h)
        if not (0 <= col < width and 0 <= row < height):
            raise rd.fail(where, f"{value} is off the {width} x {height} map")
        if terrain[cell_of(h)] in IMPASSABLE:
            raise rd.fail(where, f"{value} is impassable ({terrain[cell_of(h)].name.lower()})")
        return h

    def side_index(value: Any, where: str) -> int:
        if value in ("none", None):
            return -1
        if value not in SIDES:
            raise rd.fail(where, f"expected blue, red or none, got {value!r}")
        return SIDES.index(value)

    objectives = []
    objs = d.get("objectives") or []
    if not isinstance(objs, list):
        raise rd.fail("objectives", "expected a list")
    for i, o in enumerate(objs):
        w = f"objectives[{i}]"
        o = rd.mapping(o, w, {"hex"}, {"value", "holder", "name"})
        oname = o.get("name", "")
        if not isinstance(oname, str) or "\n" in oname:
            raise rd.fail(f"{w}.name", f"expected one line of text, got {oname!r}")
        objectives.append(Objective(on_map_hex(o["hex"], f"{w}.hex"),
                                    rd.integer(o.get("value", 1), f"{w}.value", 1, MAX_OBJECTIVE_VALUE),
                                    side_index(o.get("holder", "none"), f"{w}.holder"), oname.strip()))
    sides = rd.mapping(d["sides"], "sides", set(SIDES), set())
    units: list[UnitSpec] = []
    names = []
    occupancy: dict[Hex, list[int]] = {}
    for si, side in enumerate(SIDES):
        s = rd.mapping(sides[side], f"sides.{side}", {"units"}, {"name"})
        names.append(str(s.get("name", side.title())))
        if not isinstance(s["units"], list) or not s["units"]:
            raise rd.fail(f"sides.{side}.units", "expected a non-empty list of units")
        for i, u in enumerate(s["units"]):
            w = f"sides.{side}.units[{i}]"
            u = rd.mapping(u, w, {"type"}, {"hex", "hidden"})
            if u["type"] not in TYPE_NAMES:
                raise rd.fail(f"{w}.type", f"unknown unit type {u['type']!r}; types: {', '.join(sorted(TYPE_NAMES))}")
            utype = TYPE_NAMES[u["type"]]
            h = None
            if "hex" in u:
                h = on_map_hex(u["hex"], f"{w}.hex")
                occupancy.setdefault(h, []).append(si)
                here = occupancy[h]
                if len(set(here)) > 1:
                    raise rd.fail(f"{w}.hex", f"{u['hex']} already holds an enemy unit")
                if len(here) > stack_limit(terrain[cell_of(h)]):
                    raise rd.fail(f"{w}.hex", f"{u['hex']} holds more units than its terrain allows")
            elif utype != UnitType.ARTILLERY:
                raise rd.fail(f"{w}.hex", "only artillery may be off-table (no hex)")
            hidden = u.get("hidden", False)
            if not isinstance(hidden, bool):
                raise rd.fail(f"{w}.hidden", f"expected true or false, got {hidden!r}")
            units.append(UnitSpec(si, utype, h, hidden))
        if not any(x.hex is not None for x in units if x.side == si):
            raise rd.fail(f"sides.{side}.units", "needs at least one unit on the table")
    if len(units) > 52:
        raise rd.fail("sides", f"{len(units)} units: each needs a card from the 52-card deck every turn")
    return Scenario(name=str(d.get("name", name)), title=str(d.get("title", name)),
                    description=str(d.get("description", "")).strip(), width=width, height=height, turns=turns,
                    terrain=tuple(terrain), objectives=tuple(objectives), units=tuple(units),
                    side_names=(names[0], names[1]))


def available_scenarios() -> list[str]:
    """Names of the shipped scenarios."""
    return shipped_names(SCENARIO_DIR)


def _unknown(name: str) -> str:
    return (f"unknown scenario {name!r}; scenarios: {', '.join(available_scenarios())}, "
            "random, or a path to a .yaml file")


def load_scenario(name_or_path: str) -> Scenario:
    """A shipped scenario by name, or a YAML file by path.

    Every failure is a :class:`ScenarioError` of one line naming the file: no such file, a
    folder, a file that is not text, YAML that does not parse, or a field that is wrong.
    """
    path = resolve_path(str(name_or_path), SCENARIO_DIR, ScenarioError, _unknown)
    data = load_yaml(path, ScenarioError)
    return scenario_from_dict(data, name=path.stem, source=str(path))
