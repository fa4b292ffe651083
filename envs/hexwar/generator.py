"""Procedural scenarios for the hex WW2 game: seeded maps and points-balanced forces.

``generate_scenario(seed)`` draws everything from ``numpy.random.default_rng(seed)``,
so a seed always gives the same :class:`~cardwar.envs.hexwar.scenario.Scenario` and
different seeds give different battles. The steps:

1. **Terrain.** Sometimes (about 40 %) a river meanders across the middle rows
   from the left edge to the right edge, as a chain of adjacent hexes (which on a
   hex grid cuts the map in two), and one or two of its hexes become a bridge or a
   ford. Sometimes a small marsh or lake sits in the middle rows. Then clumps of
   woods, a village of buildings near the centre, hills and straight hedgerow lines
   of broken terrain are grown on clear hexes.
2. **Connectivity.** A breadth-first search over passable on-map hexes runs from
   each deployment zone (blue: the top two rows, red: the bottom two). The map is
   kept only if each zone reaches the other; otherwise it is redrawn (the draws
   come from the same generator, so the result is still a function of the seed).
   Objectives and start hexes are taken only from hexes both searches reach.
3. **Objectives.** One to three hexes near the middle rows, villages preferred,
   worth 1 or 2; each is held by nobody or by the defender (if the draw names one).
4. **Forces.** Each side gets a points target of 18-26 (the two targets equal or
   one apart) and buys random unit types until it hits its target exactly, using
   ``STATS[type].points``; as totals of 3-, 4- and 5-point units reach every number
   from 6 up, a purchase is only allowed if the rest can still be spent exactly.
   A side sometimes starts with an off-table artillery unit (no hex).
5. **Deployment.** Blue's units go to the top two rows, red's to the bottom two,
   onto passable hexes reachable from both zones, at most two friendly units in a
   clear hex and one elsewhere. The defender's infantry and AT guns in cover may
   start hidden.

The result is built with :func:`~cardwar.envs.hexwar.scenario.scenario_from_dict`, so it
passes the same validation as a scenario file.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

import numpy as np

from cardwar.envs.hexwar.hexgrid import Hex, distance, from_offset, label, neighbours, to_offset
from cardwar.envs.hexwar.scenario import MAX_HEIGHT, MAX_WIDTH, SIDES, Scenario, scenario_from_dict
from cardwar.envs.hexwar.terrain import CHAR_OF, COVER, IMPASSABLE, Terrain, stack_limit
from cardwar.envs.hexwar.units import STATS, UnitType, type_name

MIN_WIDTH, MIN_HEIGHT = 6, 6
"""Smallest map: two deployment rows each side plus room in the middle."""

POINTS_RANGE = (18, 26)
"""Inclusive range of a side's points target."""

RIVER_CHANCE = 0.4
WATER_CHANCE = 0.4
OFF_TABLE_CHANCE = 0.35
HIDDEN_CHANCE = 0.5
MAX_ATTEMPTS = 50
MIN_ZONE_CAPACITY = 14
"""Start places (by stacking limit) each zone must offer; a force has at most 9 units."""

# Random purchases (off-table artillery is added separately); weights favour infantry and tanks.
_BUY_TYPES: tuple[UnitType, ...] = (
    UnitType.FOOT, UnitType.MECHANISED, UnitType.MOTORISED, UnitType.AT_GUN, UnitType.TANK, UnitType.SPG,
    UnitType.MORTAR, UnitType.ARMOURED_CAR,
)
_BUY_WEIGHTS = np.array([3.0, 2.0, 2.0, 1.5, 2.5, 1.5, 1.0, 1.0])

Grid = list[list[Terrain]]
"""Terrain as ``grid[row][col]`` while the map is being drawn."""


# ------------------------------------------------------------------ geometry
def _on_map(h: Hex, width: int, height: int) -> bool:
    col, row = to_offset(h)
    return 0 <= col < width and 0 <= row < height


def _at(grid: Grid, h: Hex) -> Terrain:
    col, row = to_offset(h)
    return grid[row][col]


def _set(grid: Grid, h: Hex, t: Terrain) -> None:
    col, row = to_offset(h)
    grid[row][col] = t


def reachable(grid: Grid, starts: Iterable[Hex]) -> set[Hex]:
    """Passable on-map hexes reachable by land from any of ``starts`` (BFS over hex neighbours)."""
    height, width = len(grid), len(grid[0])

    def ok(h: Hex) -> bool:
        return _on_map(h, width, height) and _at(grid, h) not in IMPASSABLE

    seen = {h for h in starts if ok(h)}
    queue = deque(seen)
    while queue:
        h = queue.popleft()
        for n in neighbours(h):
            if n not in seen and ok(n):
                seen.add(n)
                queue.append(n)
    return seen


def zone(width: int, rows: Iterable[int]) -> list[Hex]:
    """Every hex of the given rows."""
    return [from_offset(c, r) for r in rows for c in range(width)]


def deployment_rows(side: int, height: int) -> tuple[int, int]:
    """Blue (0) deploys in the top two rows, red (1) in the bottom two."""
    return (0, 1) if side == 0 else (height - 2, height - 1)


# ------------------------------------------------------------------ terrain
def _river(grid: Grid, rng: np.random.Generator) -> None:
    """A river from the left edge to the right edge across the middle rows, with 1-2 crossings."""
    height, width = len(grid), len(grid[0])
    lo, hi = 2, height - 3  # keep deployment rows (and the rows beside them) dry
    row = int(rng.integers(lo + (hi - lo) // 3, hi - (hi - lo) // 3 + 1))
    lo, hi = max(lo, row - 1), min(hi, row + 1)  # meander at most one row either way
    course: list[Hex] = []
    for col in range(width):
        if col > 0 and rng.random() < 0.35:
            new_row = int(np.clip(row + rng.choice((-1, 1)), lo, hi))
            if new_row != row:
                course.append(from_offset(col, row))  # step down/up in one column keeps the chain unbroken
                row = new_row
        course.append(from_offset(col, row))
    for h in course:
        _set(grid, h, Terrain.RIVER)
    # Crossings: a river hex whose own column has dry land above and below it.
    candidates = []
    for h in course:
        col, row = to_offset(h)
        if 0 < row < height - 1 and grid[row - 1][col] != Terrain.RIVER and grid[row + 1][col] != Terrain.RIVER:
            candidates.append(h)
    if not candidates:  # the river zigzags in every column: no place for a crossing, so no river
        for h in course:
            _set(grid, h, Terrain.CLEAR)
        return
    n = 1 if rng.random() < 0.5 or len(candidates) < 2 else 2
    for i, k in enumerate(rng.choice(len(candidates), size=n, replace=False)):
        kind = (Terrain.BRIDGE, Terrain.FORD)[int(rng.integers(2))] if i == 0 else Terrain.FORD
        _set(grid, candidates[int(k)], kind)


def _grow(grid: Grid, rng: np.random.Generator, t: Terrain, size: int, rows: tuple[int, int],
          cols: tuple[int, int] | None = None) -> None:
    """A clump of ``size`` hexes of ``t`` grown on clear hexes from a random seed hex in ``rows``/``cols``."""
    height, width = len(grid), len(grid[0])
    c0, c1 = cols if cols is not None else (0, width - 1)
    start = from_offset(int(rng.integers(c0, c1 + 1)), int(rng.integers(rows[0], rows[1] + 1)))
    if _at(grid, start) != Terrain.CLEAR:
        return
    clump = [start]
    _set(grid, start, t)
    for _ in range(size - 1):
        base = clump[int(rng.integers(len(clump)))]
        n = neighbours(base)[int(rng.integers(6))]
        col, row = to_offset(n)
        if _on_map(n, width, height) and rows[0] <= row <= rows[1] and _at(grid, n) == Terrain.CLEAR:
            _set(grid, n, t)
            clump.append(n)


def _hedgerow(grid: Grid, rng: np.random.Generator, rows: tuple[int, int]) -> None:
    """A straight line of 2-4 broken-terrain hexes in one of the six directions."""
    height, width = len(grid), len(grid[0])
    h = from_offset(int(rng.integers(width)), int(rng.integers(rows[0], rows[1] + 1)))
    step = neighbours(Hex(0, 0))[int(rng.integers(6))]
    for _ in range(int(rng.integers(2, 5))):
        if not _on_map(h, width, height) or _at(grid, h) != Terrain.CLEAR:
            break
        _set(grid, h, Terrain.BROKEN)
        h = h + step


def draw_terrain(rng: np.random.Generator, width: int, height: int) -> tuple[Grid, list[Hex]]:
    """A random map and its village hexes (possibly empty)."""
    grid: Grid = [[Terrain.CLEAR] * width for _ in range(height)]
    middle = (2, height - 3)
    if rng.random() < RIVER_CHANCE:
        _river(grid, rng)
    if rng.random() < WATER_CHANCE:
        water = (Terrain.MARSH, Terrain.LAKE)[int(rng.integers(2))]
        _grow(grid, rng, water, int(rng.integers(1, 4)), middle)
    # A village of 2-4 buildings near the centre.
    cx = (width // 2 - 2, width // 2 + 1)
    cy = (max(middle[0], height // 2 - 2), min(middle[1], height // 2 + 1))
    _grow(grid, rng, Terrain.BUILDINGS, int(rng.integers(2, 5)), cy, cx)
    village = [from_offset(c, r) for r in range(height) for c in range(width) if grid[r][c] == Terrain.BUILDINGS]
    for _ in range(int(rng.integers(2, 5))):
        _grow(grid, rng, Terrain.WOODS, int(rng.integers(2, 5)), (0, height - 1))
    for _ in range(int(rng.integers(1, 4))):
        _grow(grid, rng, Terrain.HILL, int(rng.integers(1, 4)), (1, height - 2))
    for _ in range(int(rng.integers(1, 4))):
        _hedgerow(grid, rng, (1, height - 2))
    return grid, village


# ------------------------------------------------------------------ forces
def buy_force(rng: np.random.Generator, target: int, off_table: bool) -> list[UnitType]:
    """Random unit types whose points add up to exactly ``target`` (>= 6), optionally with off-table artillery."""
    units = [UnitType.ARTILLERY] if off_table else []
    left = target - sum(STATS[u].points for u in units)
    while left > 0:
        # Spend p only if what remains is 0 or still payable in 3/4/5-point units (1 and 2 are not).
        ok = [i for i, u in enumerate(_BUY_TYPES) if STATS[u].points <= left and left - STATS[u].points not in (1, 2)]
        w = _BUY_WEIGHTS[ok] / _BUY_WEIGHTS[ok].sum()
        u = _BUY_TYPES[ok[int(rng.choice(len(ok), p=w))]]
        units.append(u)
        left -= STATS[u].points
    return units


def force_points(units: Iterable[UnitType]) -> int:
    """Total ``STATS[type].points`` of a force."""
    return sum(STATS[u].points for u in units)


# ------------------------------------------------------------------ assembly
def generate_scenario(seed: int, width: int = 12, height: int = 10, turns: int = 12) -> Scenario:
    """A random, validated, points-balanced scenario named ``random-{seed}``."""
    if not (MIN_WIDTH <= width <= MAX_WIDTH and MIN_HEIGHT <= height <= MAX_HEIGHT):
        raise ValueError(f"map must be {MIN_WIDTH}..{MAX_WIDTH} x {MIN_HEIGHT}..{MAX_HEIGHT} hexes, "
                         f"got {width} x {height}")
    rng = np.random.default_rng(seed)
    zones = [zone(width, deployment_rows(s, height)) for s in (0, 1)]
    for _ in range(MAX_ATTEMPTS):
        grid, village = draw_terrain(rng, width, height)
        from_blue, from_red = reachable(grid, zones[0]), reachable(grid, zones[1])
        both = from_blue & from_red
        if all(sum(stack_limit(_at(grid, h)) for h in z if h in both) >= MIN_ZONE_CAPACITY for z in zones):
            break
    else:  # pragma: no cover - practically unreachable; fall back to an open map
        grid, village = [[Terrain.CLEAR] * width for _ in range(height)], []
        both = reachable(grid, zones[0])

    # Who defends: nobody (meeting engagement), blue or red.
    defender = int(rng.integers(-1, 2))

    # Objectives: 1-3 hexes in the central rows and columns, at least 2 apart, a village hex first.
    mid_rows = range(max(2, height // 2 - 2), min(height - 2, height // 2 + 2))
    middle = [from_offset(c, r) for r in mid_rows for c in range(width // 4, width - width // 4)]
    middle = [h for h in middle if h in both]
    preferred = [h for h in village if h in both and h in middle]
    n_obj = int(rng.integers(1, 4))
    chosen: list[Hex] = []
    if preferred:
        chosen.append(preferred[int(rng.integers(len(preferred)))])
    rest = [h for h in middle if h not in chosen]
    order = rng.permutation(len(rest))
    for k in order:
        if len(chosen) >= n_obj:
            break
        h = rest[int(k)]
        if all(distance(h, o) >= 2 for o in chosen):
            chosen.append(h)
    if not chosen:  # no usable central hex (tiny or crowded map): the most central reachable hex
        centre = from_offset(width // 2, height // 2)
        chosen.append(min((h for h in both if h.r not in (0, 1, height - 2, height - 1)),
                          key=lambda h: (distance(h, centre), to_offset(h)), default=centre))
    objectives = [{"hex": label(h), "value": int(rng.integers(1, 3)),
                   "holder": "none" if defender < 0 or rng.random() < 0.3 else SIDES[defender]} for h in chosen]

    # Forces: targets equal or one apart.
    base = int(rng.integers(POINTS_RANGE[0], POINTS_RANGE[1] + 1))
    targets = [base, int(np.clip(base + rng.integers(-1, 2), *POINTS_RANGE))]
    sides: dict[str, dict] = {}
    for s in (0, 1):
        force = buy_force(rng, targets[s], bool(rng.random() < OFF_TABLE_CHANCE))
        rows = deployment_rows(s, height)
        cells = [h for h in zone(width, rows) if h in both]
        load: dict[Hex, int] = {}
        units = []
        hide = s == defender and rng.random() < HIDDEN_CHANCE
        for u in force:
            d: dict = {"type": type_name(u)}
            if u == UnitType.ARTILLERY:
                units.append(d)
                continue
            free = [h for h in cells if load.get(h, 0) < stack_limit(_at(grid, h))]
            empty = [h for h in free if load.get(h, 0) == 0] or free
            h = empty[int(rng.integers(len(empty)))]
            load[h] = load.get(h, 0) + 1
            d["hex"] = label(h)
            if hide and u in (UnitType.FOOT, UnitType.AT_GUN) and _at(grid, h) in COVER:
                d["hidden"] = True
            units.append(d)
        sides[SIDES[s]] = {"name": ("Blue battlegroup", "Red battlegroup")[s], "units": units}

    kind = ("meeting engagement", "Blue defends", "Red defends")[defender + 1]
    has_river = any(t == Terrain.RIVER for row in grid for t in row)
    desc = (f"A randomly generated battle ({kind}) on a {width} x {height} map"
            f"{' cut by a river' if has_river else ''}. Blue fields {targets[0]} points of troops and Red "
            f"{targets[1]}; both want the objectives when turn {turns} ends.")
    data = {
        "name": f"random-{seed}",
        "title": f"Random battle {seed}",
        "description": desc,
        "turns": turns,
        "map": "\n".join(" ".join(CHAR_OF[t] for t in row) for row in grid) + "\n",
        "objectives": objectives,
        "sides": sides,
    }
    return scenario_from_dict(data, name=f"random-{seed}", source=f"<generate_scenario seed {seed}>")
