"""Scenarios as data: the map and both armies (RULES.md section 20.2).

A scenario is written as the RULES.md legend map plus, per side, ``"cell type"`` entries (``"E8 general"``)
and a reserve of type names. Seat 0 is the defender (moves first, faces N), seat 1 the attacker (faces S)
(RULES.md 5). ``to_dict``/``scenario_from_dict`` round-trip it, so a saved game carries its scenario.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from cardwar.envs.tankattack.board import FACING_NAMES, Board, label, parse_label, parse_map
from cardwar.envs.tankattack.elements import NAMES, RESERVE_ONLY, STATS, EType

DEFENDER, ATTACKER = 0, 1
SIDE_NAMES = ("defender", "attacker")


class ScenarioError(ValueError):
    """A scenario that breaks the format or the set-up rules."""


@dataclass(frozen=True)
class ElementSpec:
    """One element of an army: where it starts (``None``: in reserve) and facing (0 N .. 3 W)."""

    side: int
    type: EType
    cell: int | None
    facing: int
    general: bool = False


@dataclass(frozen=True)
class Scenario:
    """A map, two armies and a turn limit (bounds per side)."""

    name: str
    title: str
    map_rows: tuple[str, ...]
    elements: tuple[ElementSpec, ...]
    turn_limit: int = 20
    board: Board = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "board", parse_map(self.map_rows, wire_owner=DEFENDER))
        _check(self)

    def army_ap(self, side: int) -> int:
        """AP of a side's list, reserve included, Strongpoints of the defender added (RULES.md 4)."""
        ap = sum(STATS[e.type].ap for e in self.elements if e.side == side)
        if side == DEFENDER:
            ap += len(self.board.strongpoints)
        return ap

    def to_dict(self) -> dict[str, Any]:
        armies: dict[str, Any] = {}
        for side, name in enumerate(SIDE_NAMES):
            placed, reserve = [], []
            for e in self.elements:
                if e.side != side:
                    continue
                tname = "general" if e.general else _type_name(e.type)
                if e.cell is None:
                    reserve.append(tname)
                else:
                    default = 0 if side == DEFENDER else 2
                    face = "" if e.facing == default else f" {FACING_NAMES[e.facing]}"
                    placed.append(f"{label(e.cell)} {tname}{face}")
            armies[name] = {"placed": placed, "reserve": reserve}
        return {"name": self.name, "title": self.title, "map": list(self.map_rows), "turn_limit": self.turn_limit,
                **armies}


def _type_name(t: EType) -> str:
    return STATS[t].name.lower().replace(" ", "_")


def _check(s: Scenario) -> None:
    b = s.board
    seen: set[int] = set()
    generals = [0, 0]
    for e in s.elements:
        if e.general:
            generals[e.side] += 1
            if e.type is not EType.RIFLES:
                raise ScenarioError(f"{s.name}: the General is a Rifles element")
        if e.cell is None:
            continue
        if e.type in RESERVE_ONLY:
            raise ScenarioError(f"{s.name}: {STATS[e.type].name} is never deployed at the start (RULES.md 5)")
        if not b.on_map(e.cell) or e.cell in seen or e.cell == b.bunker:
            raise ScenarioError(f"{s.name}: {label(e.cell)} is off the map, taken, or the Bunker")
        seen.add(e.cell)
    if generals != [1, 1]:
        raise ScenarioError(f"{s.name}: each side has exactly one General (RULES.md 4), not {generals}")
    if b.bunker is None:
        raise ScenarioError(f"{s.name}: the map has no Command Bunker (K)")


def scenario_from_dict(d: dict[str, Any]) -> Scenario:
    """Build a scenario from its dict form (the shipped ones and saved games)."""
    elements: list[ElementSpec] = []
    for side, name in enumerate(SIDE_NAMES):
        army = d.get(name, {})
        default = 0 if side == DEFENDER else 2
        for entry in army.get("placed", []):
            parts = entry.split()
            if len(parts) not in (2, 3):
                raise ScenarioError(f"placed element {entry!r}: write 'CELL TYPE [FACING]'")
            etype, general = _parse_type(parts[1])
            facing = FACING_NAMES.index(parts[2].upper()) if len(parts) == 3 else default
            try:
                cell = parse_label(parts[0])
            except (ValueError, IndexError) as exc:
                raise ScenarioError(f"placed element {entry!r}: {exc}") from None
            elements.append(ElementSpec(side, etype, cell, facing, general))
        for tname in army.get("reserve", []):
            etype, general = _parse_type(tname)
            elements.append(ElementSpec(side, etype, None, default, general))
    return Scenario(d["name"], d.get("title", d["name"]), tuple(d["map"]), tuple(elements),
                    int(d.get("turn_limit", 20)))


def _parse_type(name: str) -> tuple[EType, bool]:
    key = name.lower()
    if key not in NAMES:
        raise ScenarioError(f"unknown element type {name!r}; known: {', '.join(sorted(NAMES))}")
    return NAMES[key], key == "general"


TRENCH_RAID = {
    "name": "trench_raid", "title": "Trench raid (the small, fast scenario)", "turn_limit": 10,
    "map": ["HH......",
            "HH......",
            "........",
            "......xx",
            "......xx",
            ".www.ww.",
            "........",
            ".######.",
            "........",
            "........",
            "......R.",
            "...K...."],
    "defender": {"placed": ["E8 general", "C8 rifles", "F8 rifles", "G8 rifles", "D8 mg"],
                 "reserve": ["minefield", "gas"]},
    "attacker": {"placed": ["D2 general", "E3 tank", "C3 sturmtruppe", "B3 rifles", "D3 rifles"], "reserve": []},
}
"""RULES.md 20.2 ``trench_raid``: 8 x 12, 13 AP a side, turn limit 10."""

CAMBRAI = {
    "name": "cambrai", "title": "Cambrai: tanks against a wired trench line, 20 November 1917", "turn_limit": 20,
    "map": ["................",
            "................",
            "............HHH.",
            ".WW.........HHH.",
            ".WW.........HHH.",
            ".WW.............",
            "................",
            "................",
            ".....xxx........",
            ".....xxx........",
            "................",
            "................",
            "................",
            ".wwwwwww.wwwwww.",
            "................",
            ".############S#.",
            ".......#........",
            ".......#........",
            ".....######.....",
            "................",
            "................",
            "................",
            ".......K........",
            "................"],
    "defender": {"placed": ["H19 general", "C16 rifles", "D16 rifles", "F16 rifles", "G16 rifles", "E16 mg",
                            "J16 rifles", "K16 rifles", "L16 rifles", "M16 rifles", "N16 mg",
                            "I16 forward_observer", "J21 field_artillery"],
                 "reserve": ["barrage", "gas", "sniper", "minefield"]},
    "attacker": {"placed": ["H3 general", "E6 tank", "H6 tank", "K6 tank", "F5 rifles", "G5 rifles", "I5 rifles",
                            "J5 rifles", "H5 mg", "D6 sturmtruppe", "M6 sturmtruppe"],
                 "reserve": ["barrage", "balloon"]},
}
"""RULES.md 20.2 ``cambrai``."""

KAISERSCHLACHT = {
    "name": "kaiserschlacht", "title": "Kaiserschlacht: Sturmtruppe infiltration, 21 March 1918", "turn_limit": 20,
    "map": ["................",
            "............HH..",
            "............HH..",
            "............HH..",
            "................",
            "................",
            "..WW............",
            "..WW............",
            "..WW............",
            ".....xx...xx....",
            ".....xx...xx....",
            ".....xx.........",
            "................",
            "................",
            "..wwwww..wwwww..",
            "................",
            "..#S########S#..",
            "................",
            "................",
            "................",
            ".......R........",
            "................",
            "......TTKT......",
            "......TTTT......"],
    "defender": {"placed": ["H20 general", "C17 rifles", "E17 rifles", "F17 rifles", "G17 rifles", "D17 mg",
                            "J17 rifles", "K17 rifles", "L17 rifles", "H21 rifles", "M17 mg",
                            "K22 heavy_artillery"],
                 "reserve": ["fighter", "minefield", "sniper"]},
    "attacker": {"placed": ["H3 general", "F4 rifles", "G4 rifles", "I4 rifles", "J4 rifles", "H4 mg",
                            "E6 sturmtruppe", "H6 sturmtruppe", "L6 sturmtruppe", "H5 light_mortar",
                            "G6 forward_observer"],
                 "reserve": ["barrage", "gas", "gas", "balloon", "bomber"]},
}
"""RULES.md 20.2 ``kaiserschlacht``: two Strongpoints in the line, a two-cell gap in the wire at H15-I15."""

VILLERS_BRETONNEUX = {
    "name": "villers_bretonneux", "title": "Villers-Bretonneux: tank against tank, 24 April 1918", "turn_limit": 20,
    "map": [".......=........",
            ".......=........",
            ".......=...HHH..",
            ".......=...HHH..",
            ".......=...HHH..",
            ".......=........",
            ".......=........",
            ".......=........",
            "...xx..=........",
            "...xx..=........",
            ".......=........",
            ".......=........",
            ".......=........",
            ".......=........",
            "......wwwww.....",
            "................",
            ".....#######....",
            ".......=........",
            ".......=.....WWW",
            ".......=.....WWW",
            ".......=.....WWW",
            ".TTTT===.....WWW",
            ".TTTK...........",
            ".TTTT..........."],
    "defender": {"placed": ["H20 general", "F17 forward_observer", "G17 rifles", "H17 rifles", "J17 rifles",
                            "K17 rifles", "I17 mg", "L17 mg", "I20 tank", "K20 tank", "L22 whippet",
                            "M22 whippet", "G21 field_artillery"],
                 "reserve": ["barrage"]},
    "attacker": {"placed": ["I4 general", "F6 tank", "H6 tank", "K6 tank", "G6 sturmtruppe", "J6 sturmtruppe",
                            "F5 rifles", "G5 rifles", "J5 rifles", "K5 rifles", "H5 mg"],
                 "reserve": ["barrage", "gas"]},
}
"""RULES.md 20.2 ``villers_bretonneux``: the Whippets are Armoured Cars (``whippet`` names that type)."""

_SHIPPED = {d["name"]: d for d in (TRENCH_RAID, CAMBRAI, KAISERSCHLACHT, VILLERS_BRETONNEUX)}


def available_scenarios() -> list[str]:
    """The shipped (named) scenarios; ``random``, ``random:train`` and ``random:test`` are generated."""
    return sorted(_SHIPPED)


def load_scenario(name: str) -> Scenario:
    """A shipped scenario by name, or a generated one (RULES.md 20.1): ``random``, ``random:train``,
    ``random:test`` (a fresh generator seed) or ``random:SEED``, ``random:train:SEED``, ``random:test:SEED``
    (the split sets the seed's parity: even train, odd test). A generated scenario's name records its seed."""
    if name in _SHIPPED:
        return scenario_from_dict(_SHIPPED[name])
    if name.startswith("random"):
        from cardwar.envs.tankattack.generator import resolve_random

        sc = resolve_random(name)
        if sc is not None:
            return sc
    raise ScenarioError(f"unknown tankattack scenario {name!r}; known: {', '.join(available_scenarios())}, "
                        "random, random:train, random:test (each optionally :SEED)")
