"""Procedural scenarios for the hex WW2 game: seeded maps, fair objectives, defenders at their posts.

``generate_scenario(seed, deal=d)`` draws the **public map** - everything a side sees at the start:
terrain, objectives, the kind of battle, the points, the visible units, how many units hide - from
``numpy.random.default_rng(seed)``, and the **hidden units** (their types and hexes, step 6) from
``numpy.random.default_rng(d)``. So a seed always gives the same public map (whatever the deal), and
different seeds give different battles; the same map dealt twice hides its units differently, and the
map's seed says nothing about them. The envs' ``random`` scenarios draw the seed (63 bits, even for
``random:train``, odd for ``random:test``) and the deal separately from the game's deal seed
(``envs/turn_based_env.py``), and a record keeps the scenario as played. ``generate_scenario(seed)``
without a deal draws the hidden units from ``seed`` as well (the generator of old, kept for tests and
the balance tables). The steps:

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
3. **Kind.** A third each: a **meeting engagement** (nobody holds the objectives),
   **blue defends** or **red defends** (the defender holds every objective at the
   start). The description says which, and who attacks.
4. **Forces.** A points target of 18-26 and random unit types bought until it is hit
   exactly (``STATS[type].points``; totals of 3-, 4- and 5-point units reach every
   number from 6 up, so a purchase is only allowed if the rest can still be spent
   exactly); sometimes an off-table artillery unit. Meeting engagement: the two
   targets are equal or one apart. Attack: the attacker gets ``ATTACKER_RATIO``
   times the defender's points (rounded), and the defender always has foot infantry.
5. **Deployment and objectives** (1-3 objectives, in the middle rows, at least 2
   hexes apart, worth 1 or 2, named after their terrain). Visible units are placed
   first, then the objectives (which never look at hidden units), then hidden units.
   - Meeting engagement: both sides deploy the units that cannot hide in their two edge
     rows (one infantry or gun too, if a side has nothing else on the table); then each
     objective goes where both sides' fastest units arrive after the same number of
     activations (``reach.fastest_moves``: movement rules on an empty map) - villages
     and central columns first, and hexes whose plain distances also balance. Where no
     hex ties, one objective each side reaches first by the least margin. So neither
     side reaches every objective first.
   - Attack: the objectives lie in the middle rows of the defender's half, villages and
     hills first. The defender posts a visible guard on or next to each objective (units
     that cannot hide first, in random order, then infantry or guns, always keeping one to
     hide), and deploys its other visible units within 2 hexes of the objectives (3 if
     crowded), at least 3 hexes from the attacker's edge rows; visible infantry and guns
     take cover hexes where free, tanks, SPGs, armoured cars and mortars (which gain no
     cover) other hexes. The attacker deploys in its two edge rows.
6. **Hidden units** (they start hidden only with the ``hidden_units`` rule option): a side's
   foot infantry and anti-tank guns not already placed (``HIDEABLE``, both 3-point types),
   in random order, in its *hiding area*: the defender's deployment hexes; in a meeting
   engagement, the side's edge rows less the hexes from which a unit moving one hex an
   activation would reach an objective sooner than the side's fastest visible unit (so
   hiding never changes who arrives first). The *hiding places* are the area's hexes with
   no unit - only those in cover when there are at least twice as many of them as units
   to hide. While there are fewer than twice as many hiding places as units to hide, one
   of them is placed visibly instead, in the area, in cover when it can (a defender keeps
   one hidden while any place is left). Everything so far is public and comes from the seed. Then
   the **deal**: each hidden unit's type (a defender's first one foot infantry, as its purchase always
   holds one; the others foot infantry or anti-tank gun, two to one, as the purchase weights them; both
   are 3-point types, so the points in the description are unchanged) and its hiding place, drawn
   uniformly without replacement (``_hide``). The places are a function of what the enemy sees (map,
   objectives, visible units, the number of hidden units), so every place is as likely as any other to
   hold each hidden unit, whatever its type: no rule places them that an enemy could invert
   (``tests/hexwar/test_generator_hidden.py`` runs a guessing attack), and no table from maps to seeds
   finds them (``tests/hexwar/test_generator_deal.py``). Without a deal the hidden units are the
   purchased ones and their places come from the seed.

The result is built with :func:`~cardwar.envs.hexwar.scenario.scenario_from_dict`, so it
passes the same validation as a scenario file. Balance over many seeds (who reaches the
objectives first, heuristic-vs-heuristic scores by side): ``docs/hexwar-balance.md``,
``python -m cardwar.cli.hexwar_balance``.
"""

from __future__ import annotations

import dataclasses
from collections import deque
from collections.abc import Iterable

import numpy as np

from cardwar.envs.hexwar.hexgrid import Hex, distance, from_offset, label, neighbours, to_offset
from cardwar.envs.hexwar.reach import fastest_moves, hexes_from
from cardwar.envs.hexwar.scenario import (
    MAX_HEIGHT, MAX_WIDTH, NUM_CELLS, SIDES, Scenario, cell_of, scenario_from_dict, victory_sentence,
)
from cardwar.envs.hexwar.terrain import CHAR_OF, COVER, IMPASSABLE, Terrain, stack_limit
from cardwar.envs.hexwar.units import STATS, UnitType, type_name

MIN_WIDTH, MIN_HEIGHT = 6, 6
"""Smallest map: two deployment rows each side plus room in the middle."""

POINTS_RANGE = (18, 26)
"""Inclusive range of a side's points target."""

RIVER_CHANCE = 0.4
WATER_CHANCE = 0.4
OFF_TABLE_CHANCE = 0.35
ATTACKER_RATIO = 1.5
"""An attacker's points against the defender's: the defender holds the objectives, deploys next to
them, in cover where it can, and hides its infantry and guns."""
HIDEABLE = frozenset({UnitType.FOOT, UnitType.AT_GUN})
"""Types that may start hidden: both are worth 3 points, so the points a description gives for each
force tell no more about hidden units than their number, which the face-up cards make public."""
COVERLESS = frozenset({UnitType.TANK, UnitType.SPG, UnitType.ARMOURED_CAR, UnitType.MORTAR})
"""Types that gain no cover from woods, buildings or broken ground (``cover_applies_to`` "infantry"):
a defender posts them elsewhere when it can, leaving those hexes to the infantry and guns that hide."""
MAX_ATTEMPTS = 50
MIN_ZONE_CAPACITY = 14
"""Start places (by stacking limit) each zone must offer; a force has at most 13 units (an
attacker's 39 points in 3-point units)."""

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
def buy_force(rng: np.random.Generator, target: int, off_table: bool, must_hide: bool = False) -> list[UnitType]:
    """Random unit types whose points add up to exactly ``target`` (>= 13), optionally with off-table
    artillery; ``must_hide``: at least one foot infantry (a defender always has a unit to hide)."""
    units = [UnitType.ARTILLERY] if off_table else []
    if must_hide:
        units.append(UnitType.FOOT)
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
class _Board:
    """The map being assembled: terrain per cell, hexes both zones reach, and movement distances."""

    def __init__(self, grid: Grid, width: int, height: int, both: set[Hex]) -> None:
        self.grid, self.width, self.height, self.both = grid, width, height, both
        terrain = [Terrain.LAKE] * NUM_CELLS
        for r in range(height):
            for c in range(width):
                terrain[r * MAX_WIDTH + c] = grid[r][c]
        on_map = [(c % MAX_WIDTH) < width and (c // MAX_WIDTH) < height for c in range(NUM_CELLS)]
        self.cells = (tuple(terrain), tuple(m and t not in IMPASSABLE for m, t in zip(on_map, terrain)))

    def moves(self, units: list[tuple[Hex, UnitType]]) -> list[int]:
        """Activations the fastest of ``units`` needs to reach each cell (``reach.fastest_moves``)."""
        return fastest_moves(self.cells, [(cell_of(h), STATS[t].move) for h, t in units])

    def hexes(self, units: list[tuple[Hex, UnitType]]) -> list[int]:
        return hexes_from(self.cells, [cell_of(h) for h, _ in units])


def _place(rng: np.random.Generator, force: list[UnitType], cells: list[Hex], grid: Grid,
           prefer_cover: frozenset[UnitType] = frozenset(), load: dict[Hex, int] | None = None,
           prefer_open: frozenset[UnitType] = frozenset()) -> list[tuple[Hex | None, UnitType]]:
    """Put each unit of ``force`` on one of ``cells`` (empty hexes first, stacking respected);
    types in ``prefer_cover`` take woods, buildings or broken ground when some is free, types in
    ``prefer_open`` other hexes when some are free."""
    load = {} if load is None else load
    out: list[tuple[Hex | None, UnitType]] = []
    for u in force:
        if u == UnitType.ARTILLERY:  # off-table
            out.append((None, u))
            continue
        free = [h for h in cells if load.get(h, 0) < stack_limit(_at(grid, h))]
        if not free:
            raise _Crowded
        empty = [h for h in free if load.get(h, 0) == 0] or free
        if u in prefer_cover:
            empty = [h for h in empty if _at(grid, h) in COVER] or empty
        elif u in prefer_open:
            empty = [h for h in empty if _at(grid, h) not in COVER] or empty
        h = empty[int(rng.integers(len(empty)))]
        load[h] = load.get(h, 0) + 1
        out.append((h, u))
    return out


class _Crowded(Exception):
    """No room left where a force must deploy."""


def _spaced(rng: np.random.Generator, pool: list[Hex], n: int, first: list[Hex]) -> list[Hex]:
    """Up to ``n`` hexes, ``first`` tried before a shuffle of ``pool``, each at least 2 from the others."""
    chosen: list[Hex] = []
    order = first + [pool[int(k)] for k in rng.permutation(len(pool))]
    for h in order:
        if len(chosen) >= n:
            break
        if h not in chosen and all(distance(h, o) >= 2 for o in chosen):
            chosen.append(h)
    return chosen


def _middle(board: _Board) -> list[Hex]:
    """Hexes of the middle rows (2 .. height-3) that both deployment zones reach."""
    rows = range(2, board.height - 2)
    return [from_offset(c, r) for r in rows for c in range(board.width) if from_offset(c, r) in board.both]


def _fair_objectives(rng: np.random.Generator, board: _Board, n: int, village: list[Hex],
                     blue: list[tuple[Hex | None, UnitType]], red: list[tuple[Hex | None, UnitType]]) -> list[Hex]:
    """Meeting engagement: objectives where both sides' fastest units arrive after the same number
    of activations (a tie), villages first, central columns preferred; if no hex ties, one hex
    each side reaches first by the least margin, so that neither reaches every objective first."""
    on_table = [[(h, t) for h, t in f if h is not None] for f in (blue, red)]
    mb, mr = board.moves(on_table[0]), board.moves(on_table[1])
    hb, hr = board.hexes(on_table[0]), board.hexes(on_table[1])
    middle = _middle(board)
    centre = (board.width - 1) / 2

    def gap(h: Hex) -> int:
        return mb[cell_of(h)] - mr[cell_of(h)]

    def hex_gap(h: Hex) -> int:
        return hb[cell_of(h)] - hr[cell_of(h)]

    ties = [h for h in middle if gap(h) == 0]
    if ties:
        # Among the ties, the hexes nearest to equal in plain distance too, central ones first; then
        # each further objective keeps the hex distances balanced (no side nearer to all of them).
        chosen: list[Hex] = []
        lean = 0
        for _ in range(n):
            pool = [h for h in ties if all(distance(h, o) >= 2 for o in chosen)]
            if not pool:
                break
            best = min(abs(lean + hex_gap(h)) for h in pool)
            pool = [h for h in pool if abs(lean + hex_gap(h)) == best]
            pool = [h for h in pool if abs(to_offset(h)[0] - centre) <= board.width / 4] or pool
            pool = [h for h in pool if h in village] or pool
            h = pool[int(rng.integers(len(pool)))]
            chosen.append(h)
            lean += hex_gap(h)
        return chosen
    out = []
    for sign in (-1, 1):  # one hex blue reaches first, one red does, each by the smallest margin
        side = [h for h in middle if gap(h) * sign > 0 and all(distance(h, o) >= 2 for o in out)]
        if side:
            least = min(abs(gap(h)) for h in side)
            near = [h for h in side if abs(gap(h)) == least]
            out.append(near[int(rng.integers(len(near)))])
    return out


def _defended_objectives(rng: np.random.Generator, board: _Board, n: int, village: list[Hex],
                         defender: int) -> list[Hex]:
    """Attack and defence: objectives in the middle rows on the defender's half, villages and
    hills first."""
    half = board.height // 2
    rows = range(half, board.height - 2) if defender == 1 else range(2, max(3, half))
    pool = [h for h in _middle(board) if to_offset(h)[1] in rows]
    if not pool:
        pool = _middle(board)
    strong = [h for h in pool if h in village or _at(board.grid, h) == Terrain.HILL]
    first = [strong[int(rng.integers(len(strong)))]] if strong else []
    return _spaced(rng, pool, n, first)


def _defence_cells(board: _Board, objectives: list[Hex], attacker: int) -> list[Hex]:
    """Where a defender deploys: within 2 hexes of an objective (3 if that is too crowded), at least
    3 hexes from the attacker's deployment rows, so the two sides do not start in contact."""
    att_zone = zone(board.width, deployment_rows(attacker, board.height))
    for radius in (2, 3):
        cells = [h for h in board.both if min(distance(h, o) for o in objectives) <= radius
                 and min(distance(h, a) for a in att_zone) >= 3]
        if sum(stack_limit(_at(board.grid, h)) for h in cells) >= 2 * MIN_ZONE_CAPACITY // 3:
            return sorted(cells, key=to_offset)
    own = zone(board.width, deployment_rows(1 - attacker, board.height))
    return sorted({h for h in board.both if h in own} | set(cells), key=to_offset)


def _hiding_places(grid: Grid, cells: list[Hex], load: dict[Hex, int], n: int) -> list[Hex]:
    """Where ``n`` hidden units may start: the ``cells`` that hold no unit - only those in cover (woods,
    buildings, broken ground) when there are at least ``2 n`` of them. A function of public facts
    only (the map, the objectives, the visible units, and how many units hide)."""
    empty = [h for h in cells if load.get(h, 0) == 0]
    cover = [h for h in empty if _at(grid, h) in COVER]
    return cover if len(cover) >= 2 * n else empty


def _hide(rng: np.random.Generator, units: list[UnitType], cells: list[Hex], grid: Grid, load: dict[Hex, int],
          keep: int = 0, deal: np.random.Generator | None = None, foot: int = 0,
          ) -> tuple[list[tuple[Hex | None, UnitType]], list[tuple[Hex | None, UnitType]]]:
    """Hide ``units`` (hideable types, in random order) in ``cells``, after every visible unit is placed.
    While there are fewer than twice as many hiding places (``_hiding_places``) as units to hide - for
    the last ``keep`` of them, while there are fewer places than units - the last unit is placed
    visibly instead (in cover when it can). Then each hidden unit takes a hiding place drawn
    uniformly without replacement. Returns (visible, hidden) placements.

    With a ``deal`` (the game's own stream, not the map's ``rng``) the hidden units are dealt from it:
    each one's type (``_hidden_types``, the first ``foot`` foot infantry) and its hiding place; ``rng``
    then decides only what the enemy sees (which units stay visible, and where), and draws as much as
    without a deal, so the public map is the same with any deal or none. Without one
    (``generate_scenario(seed)`` alone) the hidden units are the purchased ones and their places come
    from ``rng``, as before.

    So no rule an enemy could invert says where hidden units stand: given what it sees, every hiding
    place is as likely as any other to hold each hidden unit, whatever the unit's type, and no place
    holds one with probability above one half unless a defender keeps its one hidden unit where only
    one place is left."""
    units = list(units)
    shown: list[tuple[Hex | None, UnitType]] = []
    while units:
        k = len(units)
        places = len(_hiding_places(grid, cells, load, k))
        if places >= 2 * k or (k <= keep and places >= k):
            break
        shown += _place(rng, [units.pop()], cells, grid, prefer_cover=HIDEABLE, load=load)
    places = _hiding_places(grid, cells, load, len(units))
    order = rng.permutation(len(places))  # drawn with or without a deal: the map's stream goes on the same
    if deal is not None:
        units, order = _hidden_types(deal, len(units), foot), deal.permutation(len(places))
    hidden: list[tuple[Hex | None, UnitType]] = []
    for u, k in zip(units, order):
        h = places[int(k)]
        load[h] = load.get(h, 0) + 1
        hidden.append((h, u))
    return shown, hidden


def _hidden_types(deal: np.random.Generator, n: int, foot: int = 0) -> list[UnitType]:
    """The types of ``n`` hidden units, dealt: the first ``foot`` foot infantry (a defender's, as its purchase
    always holds one: ``buy_force(must_hide=True)``), the others foot infantry or anti-tank gun in the odds a
    purchase picks them (``_BUY_WEIGHTS``: two to one). Both are 3-point types, so the points of a force stay
    as its description says whatever the deal; only how many units hide is public (their cards, RULES.md 8.1)."""
    w = np.array([_BUY_WEIGHTS[_BUY_TYPES.index(t)] for t in _HIDDEN_TYPES])
    drawn = [_HIDDEN_TYPES[int(k)] for k in deal.choice(len(_HIDDEN_TYPES), size=max(0, n - foot), p=w / w.sum())]
    return [UnitType.FOOT] * min(n, foot) + drawn


_HIDDEN_TYPES = (UnitType.FOOT, UnitType.AT_GUN)
"""``HIDEABLE`` in a fixed order (the deal draws indices into it)."""


def _shuffled(rng: np.random.Generator, units: list[UnitType]) -> list[UnitType]:
    return [units[int(k)] for k in rng.permutation(len(units))]


def _garrison(rng: np.random.Generator, force: list[UnitType], objectives: list[Hex], cells: list[Hex],
              grid: Grid, deal: np.random.Generator | None = None,
              ) -> tuple[list[tuple[Hex | None, UnitType]], list[tuple[Hex | None, UnitType]]]:
    """A defender's deployment, as (visible, hidden) placements. First a visible guard on or next to
    each objective (units that cannot hide first, in random order, then infantry or guns, keeping
    one to hide), then the other visible units anywhere in ``cells``, infantry and guns in cover where
    they can; then the infantry and guns that hide (``_hide``, at least one; dealt from ``deal`` if given)."""
    load: dict[Hex, int] = {}
    out: list[tuple[Hex | None, UnitType]] = [(None, u) for u in force if u == UnitType.ARTILLERY]
    on_table = _shuffled(rng, [u for u in force if u != UnitType.ARTILLERY])
    hide = [u for u in on_table if u in HIDEABLE]
    show = [u for u in on_table if u not in HIDEABLE]
    guards = (show + hide[1:])[:len(objectives)]
    for g in guards:
        (show if g in show else hide).remove(g)
    for g, o in zip(guards, objectives):
        for radius in (1, 2):
            try:
                out += _place(rng, [g], [h for h in cells if distance(h, o) <= radius], grid,
                              prefer_cover=HIDEABLE, load=load, prefer_open=COVERLESS)
                break
            except _Crowded:
                continue
        else:
            out += _place(rng, [g], cells, grid, prefer_cover=HIDEABLE, load=load, prefer_open=COVERLESS)
    out += _place(rng, show, cells, grid, prefer_cover=HIDEABLE, load=load, prefer_open=COVERLESS)
    shown, hidden = _hide(rng, hide, cells, grid, load, keep=1, deal=deal, foot=1)
    return out + shown, hidden


def _meeting_hiding_area(board: _Board, side: int, cells: list[Hex], objectives: list[Hex],
                         visible: list[tuple[Hex | None, UnitType]]) -> list[Hex]:
    """A meeting engagement: the hexes of ``cells`` (the side's edge rows) from which a unit moving one
    hex an activation (foot infantry, anti-tank gun) reaches no objective sooner than the side's
    fastest visible unit, so hiding there never changes who arrives first."""
    fastest = board.moves([(h, t) for h, t in visible if h is not None])
    # One hex an activation is the plain hex distance, and it is symmetric: measure it from the objectives.
    near = [board.hexes([(o, UnitType.FOOT)]) for o in objectives]
    return [h for h in cells if all(d[cell_of(h)] >= fastest[cell_of(o)] for d, o in zip(near, objectives))]


def _central(board: _Board) -> list[Hex]:
    """The most central middle-row hex both zones reach: the objective when no other can be found."""
    centre = from_offset(board.width // 2, board.height // 2)
    return [min((h for h in board.both if 2 <= to_offset(h)[1] <= board.height - 3),
                key=lambda h: (distance(h, centre), to_offset(h)), default=centre)]


def _objective_name(t: Terrain) -> str:
    return {Terrain.BUILDINGS: "the village", Terrain.HILL: "the hill", Terrain.WOODS: "the wood",
            Terrain.BROKEN: "the hedgerows", Terrain.FORD: "the ford", Terrain.BRIDGE: "the bridge"}.get(
        t, "the crossroads")


def generate_scenario(seed: int, width: int = 12, height: int = 10, turns: int = 12, *,
                      deal: int | None = None) -> Scenario:
    """A random, validated scenario named ``random-{seed}``: a meeting engagement or an attack on a
    defended position (see the module docstring).

    ``seed`` makes the public map (terrain, objectives, the kind of battle, the points, the visible
    units, how many units hide); ``deal`` (any int, the envs pass a draw from the game's deal seed)
    makes the hidden units: their types and hiding places (step 6). Without ``deal`` the hidden units
    come from ``seed`` too, as before this split (tests, the balance tables): then the seed gives
    them away (the envs' ``random`` scenarios always pass a deal)."""
    if not (MIN_WIDTH <= width <= MAX_WIDTH and MIN_HEIGHT <= height <= MAX_HEIGHT):
        raise ValueError(f"map must be {MIN_WIDTH}..{MAX_WIDTH} x {MIN_HEIGHT}..{MAX_HEIGHT} hexes, "
                         f"got {width} x {height}")
    rng = np.random.default_rng(seed)
    for _ in range(MAX_ATTEMPTS):
        dealer = None if deal is None else np.random.default_rng(deal)  # the same deal on each try
        try:
            return _generate(rng, dealer, seed, width, height, turns)
        except _Crowded:  # no room left where a force must show a unit: the map again, from the same stream
            continue
    raise RuntimeError(f"generate_scenario({seed}): no map with room for both forces in {MAX_ATTEMPTS} tries")


def _generate(rng: np.random.Generator, dealer: np.random.Generator | None, seed: int, width: int, height: int,
              turns: int) -> Scenario:
    """One try of :func:`generate_scenario` from ``rng``'s state; :class:`_Crowded` when a force has no room (2
    seeds of the first 120,000, 95819 and 96423: a meeting engagement's hiding area full before every unit its
    side must show stands in it)."""
    zones = [zone(width, deployment_rows(s, height)) for s in (0, 1)]
    for _ in range(MAX_ATTEMPTS):
        grid, village = draw_terrain(rng, width, height)
        both = reachable(grid, zones[0]) & reachable(grid, zones[1])
        if all(sum(stack_limit(_at(grid, h)) for h in z if h in both) >= MIN_ZONE_CAPACITY for z in zones):
            break
    else:  # pragma: no cover - practically unreachable; fall back to an open map
        grid, village = [[Terrain.CLEAR] * width for _ in range(height)], []
        both = reachable(grid, zones[0])
    board = _Board(grid, width, height, both)
    village = [h for h in village if h in both]

    # Who defends: nobody (meeting engagement), blue or red.
    defender = int(rng.integers(-1, 2))
    n_obj = int(rng.integers(1, 4))
    base = int(rng.integers(POINTS_RANGE[0], POINTS_RANGE[1] + 1))
    if defender < 0:
        targets = [base, int(np.clip(base + rng.integers(-1, 2), *POINTS_RANGE))]
    else:
        targets = [base, base]
        targets[1 - defender] = int(round(base * ATTACKER_RATIO))
    forces = [buy_force(rng, targets[s], bool(rng.random() < OFF_TABLE_CHANCE), must_hide=s == defender)
              for s in (0, 1)]
    edge_cells = [[h for h in z if h in both] for z in zones]

    # Visible units first, then the objectives (which never look at hidden units), then hidden units.
    if defender < 0:
        loads: list[dict[Hex, int]] = [{}, {}]
        hide: list[list[UnitType]] = [[], []]
        visible: list[list[tuple[Hex | None, UnitType]]] = [[], []]
        for s in (0, 1):
            on_table = _shuffled(rng, [u for u in forces[s] if u != UnitType.ARTILLERY])
            hide[s] = [u for u in on_table if u in HIDEABLE]
            show = [u for u in forces[s] if u == UnitType.ARTILLERY] + [u for u in on_table if u not in HIDEABLE]
            if len(show) == sum(u == UnitType.ARTILLERY for u in show):  # no unit on the table to show
                show.append(hide[s].pop())
            visible[s] = _place(rng, show, edge_cells[s], grid, load=loads[s])
        chosen = _fair_objectives(rng, board, n_obj, village, visible[0], visible[1]) or _central(board)
        values = [int(rng.integers(1, 3)) for _ in chosen]
        placed: list[list[tuple[Hex | None, UnitType]]] = [[], []]
        hidden: list[list[tuple[Hex | None, UnitType]]] = [[], []]
        for s in (0, 1):
            area = _meeting_hiding_area(board, s, edge_cells[s], chosen, visible[s])
            shown, hidden[s] = _hide(rng, hide[s], area, grid, loads[s], deal=dealer)
            placed[s] = visible[s] + shown
    else:
        chosen = _defended_objectives(rng, board, n_obj, village, defender) or _central(board)
        values = [int(rng.integers(1, 3)) for _ in chosen]
        placed = [[], []]
        hidden = [[], []]
        attacker = 1 - defender
        placed[attacker] = _place(rng, forces[attacker], edge_cells[attacker], grid)
        cells = _defence_cells(board, chosen, attacker)
        placed[defender], hidden[defender] = _garrison(rng, forces[defender], chosen, cells, grid, dealer)
    objectives = [{"hex": label(h), "value": v, "name": _objective_name(_at(grid, h)),
                   "holder": "none" if defender < 0 else SIDES[defender]} for h, v in zip(chosen, values)]

    sides: dict[str, dict] = {}
    for s in (0, 1):
        units = []
        for (h, u), secret in [(p, False) for p in placed[s]] + [(p, True) for p in hidden[s]]:
            d: dict = {"type": type_name(u)}
            if h is not None:
                d["hex"] = label(h)
            if secret:
                d["hidden"] = True
            units.append(d)
        sides[SIDES[s]] = {"name": ("Blue battlegroup", "Red battlegroup")[s], "units": units}
    data = {
        "name": f"random-{seed}",
        "title": f"Random battle {seed}",
        "description": "",
        "turns": turns,
        "map": "\n".join(" ".join(CHAR_OF[t] for t in row) for row in grid) + "\n",
        "objectives": objectives,
        "sides": sides,
    }
    sc = scenario_from_dict(data, name=f"random-{seed}", source=f"<generate_scenario seed {seed}>")
    return dataclasses.replace(sc, description=_description(sc, defender, targets, grid))


def _description(sc: Scenario, defender: int, targets: list[int], grid: Grid) -> str:
    """Who attacks, the forces' points, hidden units, and the victory rule (``victory_sentence``)."""
    has_river = any(t == Terrain.RIVER for row in grid for t in row)
    where = f"a {sc.width} x {sc.height} map{' cut by a river' if has_river else ''}"
    if defender < 0:
        story = (f"A meeting engagement on {where}: both sides deploy along their own edge, and the "
                 "objectives lie where their fastest units arrive together.")
    else:
        att, dfn = SIDES[1 - defender].title(), SIDES[defender].title()
        story = (f"{att} attacks on {where}: {dfn} holds the objectives at the start and deploys around "
                 f"them; {att} deploys along its own edge.")
    forces = f" Blue fields {targets[0]} points of troops and Red {targets[1]}."
    hidden = [sum(1 for u in sc.units if u.side == s and u.hidden) for s in (0, 1)]
    if any(hidden):
        parts = [f"{n} {SIDES[s]}" for s, n in enumerate(hidden) if n]
        many = sum(hidden) > 1
        forces += (f" With the hidden-units rule, {' and '.join(parts)} infantry or anti-tank "
                   f"unit{'s start' if many else ' starts'} hidden.")
    return f"{story}{forces} {victory_sentence(sc.objectives, sc.turns)}"
