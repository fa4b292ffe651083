"""The skirmish table: hex terrain, obstacles on hex edges, sight, cover, movement costs, paths, blasts
(RULES.md §1, §4.3, §5.2, §6.2, §6.3).

Every map fits the fixed 24 x 16 grid of pointy-top hexes in odd-r offset rows (RULES.md §1.1); a cell is
``row * 24 + col``, labelled column letter + row number (``"A1"`` top left); smaller maps are padded with
``Ground.OFF``. Directions 0..5 run counter-clockwise from east (0 E, 1 NE, 2 NW, 3 W, 4 SW, 5 SE).

A :class:`Board` is immutable; what changes in play (doors opened, vehicles standing in the way) is passed
in as ``open_doors`` (edge keys ``(min, max)``) and ``blockers`` (cells). Its tables (lines of sight, step
costs) are built on first use and kept on the board, so a scenario's board is best built once and shared.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum
from typing import Any, Final

from cardwar.envs.hexmap.cells import OFF as OFF_GRID
from cardwar.envs.hexmap.cells import cell_grid
from cardwar.envs.skirmish.figures import Stance

W: Final = 24
H: Final = 16
N_CELLS: Final = W * H
GRID: Final = cell_grid(W, H)
"""The shared cell tables of the 24 x 16 grid (neighbours, distances, lines, labels)."""

EdgeKey = tuple[int, int]
NO_DOORS: frozenset[EdgeKey] = frozenset()
NO_CELLS: frozenset[int] = frozenset()


class BoardError(ValueError):
    """A map that cannot be built: a bad ground character, label or edge (one-line message)."""


class Ground(IntEnum):
    """One terrain per hex (RULES.md §1.2)."""

    CLEAR = 0
    LIGHT = 1
    WOODS = 2
    ROUGH = 3
    SHELL_HOLE = 4
    BUILDING = 5
    BUNKER = 6
    OFF = 7


GROUND_CHARS: Final = ".,WroBK#"
"""The map character of each ``Ground``, in value order."""
CHAR_GROUND: Final = {ch: Ground(i) for i, ch in enumerate(GROUND_CHARS)}


class Edge(IntEnum):
    """What lies on the edge between two hexes (RULES.md §1.3)."""

    OPEN = 0
    WALL_LOW = 1
    WALL_HIGH = 2
    HEDGE_LOW = 3
    HEDGE_HIGH = 4
    DOOR_OPEN = 5
    DOOR_CLOSED = 6
    WINDOW = 7
    BUILDING_WALL = 8
    EMBRASURE = 9


class _Entire(int):
    """The cost of a crossing that takes the entire move (RULES.md §1.5): one singleton, ``ENTIRE``.

    An ``int`` larger than any allowance, so that ``cost is ENTIRE``, ``cost == ENTIRE`` and
    ``cost > allowance`` all read right; it prints as ``ENTIRE``."""

    _made = False

    def __new__(cls) -> _Entire:
        if cls._made:
            raise TypeError("ENTIRE is a singleton")
        cls._made = True
        return super().__new__(cls, 1_000_000)

    def __repr__(self) -> str:
        return "ENTIRE"

    __str__ = __repr__

    def __reduce__(self) -> str:
        return "ENTIRE"

    def __copy__(self) -> _Entire:
        return self

    def __deepcopy__(self, memo: Any) -> _Entire:
        return self


ENTIRE: Final = _Entire()
"""Cost of a crossing that is the figure's whole move (RULES.md §1.5)."""

# ----------------------------------------------------------------------------- tables (RULES.md §1.2, §1.3)

HEX_COVER: Final = {Ground.CLEAR: 0, Ground.LIGHT: 1, Ground.WOODS: 1, Ground.ROUGH: 0, Ground.SHELL_HOLE: 1,
                    Ground.BUILDING: 2, Ground.BUNKER: 3, Ground.OFF: 0}
"""§1.2: "1 - light cover, 2 - buildings, 3 - bunkers"; woods and shell holes are light cover."""

ENTER_COST: Final = {Ground.CLEAR: 1, Ground.LIGHT: 1, Ground.WOODS: 2, Ground.ROUGH: 2, Ground.SHELL_HOLE: 1,
                     Ground.BUILDING: 1, Ground.BUNKER: 1, Ground.OFF: None}
"""§1.2: rough "Try half movement" (2 a hex), woods move as rough, going down into a shell hole is free."""

NO_RUNNING: Final = frozenset({Ground.ROUGH, Ground.WOODS})
"""§1.2: "a man can not run in rough terrain": no runner enters or leaves such a hex."""

EDGE_COVER: Final = {Edge.WALL_LOW: 1, Edge.HEDGE_LOW: 1, Edge.WINDOW: 2, Edge.EMBRASURE: 3}
"""§1.3 / §5.2: a waist-high wall or hedge (or log) is light cover 1; a window the building's 2; a bunker's
embrasure the bunker's 3. Other edges give no cover (they block sight or are open)."""

SIGHT_BLOCKING_EDGES: Final = frozenset({Edge.WALL_HIGH, Edge.HEDGE_HIGH, Edge.BUILDING_WALL, Edge.DOOR_CLOSED})
"""§1.4: head-high walls and hedges, building and bunker walls and closed doors block sight."""

SCATTER_STOPS: Final = frozenset({Edge.WALL_HIGH, Edge.HEDGE_HIGH, Edge.BUILDING_WALL, Edge.DOOR_CLOSED})
"""§6.2: a scattering grenade stops before a head-high wall (or hedge), building wall or closed door."""

SIGHT_BLOCKING_GROUND: Final = frozenset({Ground.WOODS, Ground.BUILDING, Ground.BUNKER, Ground.OFF})
"""§1.4: a building, bunker or woods hex strictly between blocks sight (a building hex of the same room as
one end does not: see :meth:`Board.sees`); so does the map edge."""

PRONE, UPRIGHT, RUNNING = 0, 1, 2
"""Movement classes of §1.3's table: prone; standing or kneeling; running (HtD Run, WW2 all out run)."""

_X = None  # not allowed
EDGE_COST: Final[dict[Edge, tuple[int | None, int | None, int | None]]] = {
    # edge:               (prone,  standing/kneeling, running)
    Edge.OPEN:            (0,      0,      0),
    Edge.WALL_LOW:        (ENTIRE, 1,      _X),   # "vault over a waist-high wall: Lose 2"", prone "entire turn"
    Edge.WALL_HIGH:       (_X,     ENTIRE, _X),   # "climb over a head-high wall: Takes entire turn"
    Edge.HEDGE_LOW:       (ENTIRE, 1,      _X),   # "go through a waist-high hedge: lose 2""
    Edge.HEDGE_HIGH:      (ENTIRE, ENTIRE, _X),   # head-high hedge "takes entire turn"; prone "any type of hedge"
    Edge.DOOR_OPEN:       (0,      0,      0),    # "go though an open door: no penalty"
    Edge.DOOR_CLOSED:     (_X,     ENTIRE, _X),   # "open a closed door and pass through it"
    Edge.WINDOW:          (_X,     ENTIRE, _X),   # climb through a ground-level window
    Edge.BUILDING_WALL:   (_X,     _X,     _X),
    Edge.EMBRASURE:       (_X,     _X,     _X),   # "windows no one climbs through"
}
"""§1.3's crossing table: the extra cost of crossing each edge ("lose 2"" is +1 hex), ENTIRE for "takes
entire turn" (§1.5), None where the seed says the man cannot."""


def move_class(stance: Stance, running: bool) -> int:
    """Which column of §1.3's table applies: RUNNING for a runner, else PRONE or UPRIGHT by stance."""
    if running:
        return RUNNING
    return PRONE if stance == Stance.PRONE else UPRIGHT


def _combine(enter: int | None, leave: int | None, edge: int | None) -> int | None:
    """One step's cost from its parts: None if any part forbids it, ENTIRE if any part takes the move
    (RULES.md §1.5), else the hex entered plus the edge crossed (§1.2, §1.3)."""
    if enter is None or leave is None or edge is None:
        return None
    if leave is ENTIRE or edge is ENTIRE:
        return ENTIRE
    return enter + leave + edge


def edge_key(a: int, b: int) -> EdgeKey:
    """The key of the edge between cells ``a`` and ``b``: ``(min, max)`` (RULES.md §1.3)."""
    return (a, b) if a < b else (b, a)


def label(cell: int) -> str:
    """Printed name of a cell, e.g. ``"C5"`` (RULES.md §1.1)."""
    return GRID.label(cell)


def parse_cell(text: str) -> int:
    """The cell named ``text`` (``"C5"``, RULES.md §1.1); BoardError for a bad or off-grid label."""
    try:
        return GRID.parse(text)
    except ValueError as e:
        raise BoardError(str(e)) from None


# ----------------------------------------------------------------------------- the board

_SideInfo = tuple[tuple[int, ...], tuple[EdgeKey, ...], bool]  # (cells strictly between, closed doors, blocked)
_Step = tuple[int, int, Any, Any, Any]  # (direction, neighbour, cost with doors as built, door key, cost if open)


@dataclass(frozen=True, eq=True)
class Board:
    """A skirmish map: ground of each of the 384 cells and the obstacles on hex edges (RULES.md §1).

    ``edges`` maps ``(min, max)`` cell pairs to :class:`Edge`; every outer edge of a building or bunker hex
    not listed is a ``BUILDING_WALL`` (§1.3: "The outer edges of a building hex are building walls unless
    the scenario makes them doors or windows"); edges between two hexes of the same building are open
    unless listed. ``edges`` keeps only what was given; :meth:`edge` reads the defaults too.
    """

    ground: tuple[Ground, ...]
    edges: Mapping[EdgeKey, Edge]

    def __post_init__(self) -> None:
        ground = tuple(Ground(g) for g in self.ground)
        if len(ground) != N_CELLS:
            raise BoardError(f"a board has {N_CELLS} cells ({W} x {H}), not {len(ground)}")
        edges: dict[EdgeKey, Edge] = {}
        for (a, b), e in self.edges.items():
            if not (0 <= a < N_CELLS and 0 <= b < N_CELLS) or GRID.distance(a, b) != 1:
                raise BoardError(f"an edge lies between two adjacent hexes: {a} and {b} are not adjacent")
            edges[edge_key(a, b)] = Edge(e)
        object.__setattr__(self, "ground", ground)
        object.__setattr__(self, "edges", edges)
        self._init_tables()

    def _init_tables(self) -> None:
        ground, edges = self.ground, self.edges
        full = dict(edges)
        for c, g in enumerate(ground):  # §1.3: building and bunker outer edges are walls unless listed
            if g in (Ground.BUILDING, Ground.BUNKER):
                for n in GRID.neighbours(c):
                    if ground[n] != g:
                        full.setdefault(edge_key(c, n), Edge.BUILDING_WALL)
        on_map = tuple(g != Ground.OFF for g in ground)
        set_ = object.__setattr__
        set_(self, "_all_edges", full)
        set_(self, "_on_map", on_map)
        set_(self, "_neighbours", tuple(tuple(n for n in GRID.neighbours(c) if on_map[n]) for c in range(N_CELLS)))
        set_(self, "_rooms", None)
        set_(self, "_sight", {})
        set_(self, "_moves", {})

    def __repr__(self) -> str:
        rows, edges = self.to_rows()
        return f"Board.from_rows({rows!r}, {edges!r})"

    def __hash__(self) -> int:
        return hash((self.ground, frozenset(self.edges.items())))

    def __copy__(self) -> Board:
        return self

    def __deepcopy__(self, memo: Any) -> Board:
        return self  # immutable: a copied game state shares its board (and its tables)

    def __getstate__(self) -> dict[str, Any]:
        return {"ground": self.ground, "edges": self.edges}

    def __setstate__(self, state: dict[str, Any]) -> None:
        object.__setattr__(self, "ground", state["ground"])
        object.__setattr__(self, "edges", state["edges"])
        self._init_tables()

    # ------------------------------------------------------------------------- geometry (§1.1)
    def on_map(self, cell: int) -> bool:
        """Whether ``cell`` is a playing hex (not ``Ground.OFF``), RULES.md §1.1."""
        return self._on_map[cell]  # type: ignore[attr-defined]

    def neighbours(self, cell: int) -> tuple[int, ...]:
        """The on-map neighbours of ``cell``, in direction order (RULES.md §1.1)."""
        return self._neighbours[cell]  # type: ignore[attr-defined]

    def distance(self, a: int, b: int) -> int:
        """Hex distance between two cells (RULES.md §1.1)."""
        return GRID.distance(a, b)

    def step(self, cell: int, direction: int) -> int | None:
        """The hex one step from ``cell`` in ``direction`` (0 E .. 5 SE), or None off the map (RULES.md §1.1)."""
        n = GRID.steps(cell)[direction]
        return n if n != OFF_GRID and self._on_map[n] else None  # type: ignore[attr-defined]

    def label(self, cell: int) -> str:
        """Printed name of a cell, e.g. ``"C5"`` (RULES.md §1.1)."""
        return GRID.label(cell)

    def parse(self, text: str) -> int:
        """The cell named ``text``; BoardError for a bad or off-grid label (RULES.md §1.1)."""
        return parse_cell(text)

    # ------------------------------------------------------------------------- terrain and edges (§1.2, §1.3)
    def edge(self, a: int, b: int, open_doors: frozenset[EdgeKey] = NO_DOORS) -> Edge:
        """What lies between adjacent cells ``a`` and ``b`` (RULES.md §1.3), building walls included; a closed
        door whose key is in ``open_doors`` reads ``DOOR_OPEN``. ValueError if they are not adjacent."""
        if GRID.distance(a, b) != 1:
            raise ValueError(f"{GRID.label(a)} and {GRID.label(b)} are not adjacent: no edge between them")
        key = (a, b) if a < b else (b, a)
        e = self._all_edges.get(key, Edge.OPEN)  # type: ignore[attr-defined]
        if e == Edge.DOOR_CLOSED and key in open_doors:
            return Edge.DOOR_OPEN
        return e

    def doors(self) -> tuple[EdgeKey, ...]:
        """Every door's edge key (open or closed as built), in key order (RULES.md §1.3)."""
        return tuple(sorted(k for k, e in self.edges.items() if e in (Edge.DOOR_OPEN, Edge.DOOR_CLOSED)))

    def hex_cover(self, cell: int) -> int:
        """The cover of the hex itself: 0 clear or rough, 1 light cover, woods, shell hole, 2 building,
        3 bunker (RULES.md §1.2)."""
        return HEX_COVER[self.ground[cell]]

    # ------------------------------------------------------------------------- line of sight (§1.4)
    def _room_ids(self) -> tuple[int, ...]:
        """Room number of each building or bunker hex (-1 elsewhere): hexes of one kind joined by open
        edges. A building hex of the room of one end of a line of sight does not block it (RULES.md §1.4)."""
        rooms = self._rooms  # type: ignore[attr-defined]
        if rooms is None:
            ids = [-1] * N_CELLS
            ground, full = self.ground, self._all_edges  # type: ignore[attr-defined]
            room = 0
            for c in range(N_CELLS):
                if ids[c] != -1 or ground[c] not in (Ground.BUILDING, Ground.BUNKER):
                    continue
                ids[c] = room
                todo = [c]
                while todo:
                    x = todo.pop()
                    for n in GRID.neighbours(x):
                        if (ids[n] == -1 and ground[n] == ground[c]
                                and full.get(edge_key(x, n), Edge.OPEN) == Edge.OPEN):
                            ids[n] = room
                            todo.append(n)
                room += 1
            rooms = tuple(ids)
            object.__setattr__(self, "_rooms", rooms)
        return rooms

    def _sight_sides(self, lo: int, hi: int) -> tuple[_SideInfo, ...]:
        """Static sight facts of the line ``lo`` -> ``hi`` (lo < hi), one entry per nudged side (one when both
        sides agree): the cells strictly between, the closed doors it crosses, and whether ground or a
        permanent edge blocks it (RULES.md §1.4)."""
        key = (lo, hi)
        sides = self._sight.get(key)  # type: ignore[attr-defined]
        if sides is not None:
            return sides
        left, right = GRID.line(lo, hi)
        rooms = self._room_ids()
        ground, full = self.ground, self._all_edges  # type: ignore[attr-defined]
        ends = (rooms[lo], rooms[hi])
        out = []
        for side in ((left,) if left == right else (left, right)):
            blocked = False
            doors: list[EdgeKey] = []
            for c in side:
                if c == OFF_GRID:
                    blocked = True
                    break
                g = ground[c]
                if g in SIGHT_BLOCKING_GROUND and not (g != Ground.WOODS and g != Ground.OFF and rooms[c] in ends):
                    blocked = True
                    break
            if not blocked:
                walk = (lo, *side, hi)
                for x, y in zip(walk, walk[1:]):
                    k = (x, y) if x < y else (y, x)
                    e = full.get(k, Edge.OPEN)
                    if e == Edge.DOOR_CLOSED:
                        doors.append(k)
                    elif e in SIGHT_BLOCKING_EDGES:
                        blocked = True
                        break
            out.append((side, tuple(doors), blocked))
        sides = tuple(out)
        self._sight[key] = sides  # type: ignore[attr-defined]
        return sides

    @staticmethod
    def _side_clear(side: _SideInfo, blockers: frozenset[int], open_doors: frozenset[EdgeKey]) -> bool:
        """Whether one side of a line is clear now: no permanent block, its closed doors opened, no vehicle
        between (RULES.md §1.4)."""
        cells, doors, blocked = side
        if blocked:
            return False
        if doors and not all(k in open_doors for k in doors):
            return False
        return not (blockers and not blockers.isdisjoint(cells))

    def sees(self, a: int, b: int, *, blockers: frozenset[int] = NO_CELLS, open_doors: frozenset[EdgeKey] = NO_DOORS,
             edge_sight: str = "either_side") -> bool:
        """Whether hexes ``a`` and ``b`` are in line of sight (RULES.md §1.4); symmetric.

        Centre to centre on the hex line. Blocked by a woods, building or bunker hex strictly between (a
        building or bunker hex in the same room as either end does not block: a man sees across the room
        he is in, and into the room he looks into), by a head-high wall or hedge, building or bunker wall
        or closed door (not in ``open_doors``) on any edge the line crosses, by a vehicle (``blockers``) in a
        hex strictly between, and by the map edge. A line along hex edges is clear if either side is
        (``edge_sight="either_side"``) or only if both are (``"both_sides"``). Figures never block.
        """
        if edge_sight != "either_side" and edge_sight != "both_sides":
            raise ValueError(f"edge_sight is 'either_side' or 'both_sides', not {edge_sight!r}")
        on_map = self._on_map  # type: ignore[attr-defined]
        if not (on_map[a] and on_map[b]):
            return False
        if a == b:
            return True
        sides = self._sight_sides(a, b) if a < b else self._sight_sides(b, a)
        if edge_sight == "either_side":
            return any(self._side_clear(s, blockers, open_doors) for s in sides)
        return all(self._side_clear(s, blockers, open_doors) for s in sides)

    # ------------------------------------------------------------------------- cover (§5.2)
    def cover(self, target: int, firer: int, *, open_doors: frozenset[EdgeKey] = NO_DOORS) -> int:
        """The target's cover against this firer (RULES.md §5.2): the highest of its hex's cover and the cover
        of an obstacle on an edge of the target's hex that the line of fire crosses (a waist-high wall or
        hedge 1, a window 2, an embrasure 3). An edge covers only against fire crossing it, so a man behind a
        wall is covered from the far side only. A line along hex edges whose two sides cross different
        edges: of the sides the firer sees along, the one with less cover (the firer aims along the better
        line)."""
        best = HEX_COVER[self.ground[target]]
        if target == firer:
            return best
        if GRID.distance(target, firer) == 1:
            return max(best, EDGE_COVER.get(self.edge(target, firer, open_doors), 0))
        lo, hi = (target, firer) if target < firer else (firer, target)
        sides = self._sight_sides(lo, hi)
        clear = [s for s in sides if self._side_clear(s, NO_CELLS, open_doors)] or list(sides)
        edge_cover = []
        for cells, _, _ in clear:
            before = cells[-1] if target == hi else cells[0]
            if before == OFF_GRID:
                edge_cover.append(0)
            else:
                edge_cover.append(EDGE_COVER.get(self.edge(before, target, open_doors), 0))
        return max(best, min(edge_cover))

    # ------------------------------------------------------------------------- movement (§1.2, §1.3, §1.5, §4)
    def _step_cost(self, a: int, b: int, cls: int, e: Edge) -> int | None:
        """Cost of the step ``a`` -> ``b`` across edge ``e`` for a movement class (RULES.md §1.2, §1.3, §1.5)."""
        ground = self.ground
        ga, gb = ground[a], ground[b]
        enter = ENTER_COST[gb]
        if cls == RUNNING and (ga in NO_RUNNING or gb in NO_RUNNING):
            return None
        leave: int | None = 0
        if ga == Ground.SHELL_HOLE:  # "to climb out of a shell hole: takes entire turn"; a runner cannot
            leave = None if cls == RUNNING else ENTIRE
        return _combine(enter, leave, EDGE_COST[e][cls])

    def crossing(self, a: int, b: int, *, stance: Stance, running: bool,
                 open_doors: frozenset[EdgeKey] = NO_DOORS) -> int | None:
        """The cost of stepping from ``a`` to the adjacent ``b`` (RULES.md §1.2, §1.3, §1.5): the ground
        entered (1, or 2 for rough and woods) plus the edge crossed (+1 for a waist-high wall or hedge when
        standing or kneeling), ``ENTIRE`` for a crossing that is the whole move (climbing out of a shell hole,
        a head-high wall, a window, a closed door, a prone man over a low wall or through any hedge), None
        where not allowed (off the map, not adjacent, a building wall, a runner over any obstacle or into or
        out of rough ground or woods, a prone man over a head-high wall, through a door or window).
        ``stance`` is the stance while crossing (§1.5); ``running`` overrides it."""
        if GRID.distance(a, b) != 1 or not self._on_map[b]:  # type: ignore[attr-defined]
            return None
        return self._step_cost(a, b, move_class(stance, running), self.edge(a, b, open_doors))

    def _move_table(self, cls: int) -> tuple[tuple[_Step, ...], ...]:
        """Per cell, the steps out of it for one movement class, with a closed door's cost both shut and
        opened (RULES.md §1.2, §1.3; built once per board and class)."""
        table = self._moves.get(cls)  # type: ignore[attr-defined]
        if table is None:
            rows = []
            full = self._all_edges  # type: ignore[attr-defined]
            on_map = self._on_map  # type: ignore[attr-defined]
            for a in range(N_CELLS):
                row = []
                for d, b in enumerate(GRID.steps(a)):
                    if b == OFF_GRID or not on_map[b] or not on_map[a]:
                        continue
                    k = (a, b) if a < b else (b, a)
                    e = full.get(k, Edge.OPEN)
                    cost = self._step_cost(a, b, cls, e)
                    if e == Edge.DOOR_CLOSED:
                        row.append((d, b, cost, k, self._step_cost(a, b, cls, Edge.DOOR_OPEN)))
                    elif cost is not None:
                        row.append((d, b, cost, None, cost))
                rows.append(tuple(row))
            table = tuple(rows)
            self._moves[cls] = table  # type: ignore[attr-defined]
        return table

    def reach(self, start: int, allowance: int, *, stance: Stance, running: bool, enemy: Iterable[int] = (),
              friends: Iterable[int] = (), open_doors: frozenset[EdgeKey] = NO_DOORS,
              exposed: Iterable[int] = (), at_least_one: bool = True,
              straight: bool = False) -> dict[int, tuple[int, tuple[int, ...]]]:
        """Every legal destination of a move -> (its cost, the cheapest path to it) (RULES.md §4.1, §4.3).

        The path lists the cells after ``start``, destination last. Paths cost at most ``allowance``; the
        cheapest wins, then the one through the fewest ``exposed`` hexes (those seen by known enemies), then
        the fewest hexes, then the lowest directions in order (0 E first). A crossing that takes the entire
        move (cost ``ENTIRE``, §1.5) is a destination only as the single step of a move. With
        ``at_least_one`` (§4.1: "A figure may always move at least one hex ... if it pays nothing else that
        turn") a single step dearer than the allowance is a destination too, at its own cost. A move may
        pass through ``friends`` but not end there, and never enters an ``enemy`` hex (§4.3). Nothing when
        ``allowance`` < 1. ``straight``: only moves along one hex direction, every step within the allowance
        (WW2's all out run, "he must run in a straight line over smooth terrain", §4.2).
        """
        if allowance < 1 or not self._on_map[start]:  # type: ignore[attr-defined]
            return {}
        enemy = enemy if isinstance(enemy, (set, frozenset)) else frozenset(enemy)
        friends = friends if isinstance(friends, (set, frozenset)) else frozenset(friends)
        exposed = exposed if isinstance(exposed, (set, frozenset)) else frozenset(exposed)
        table = self._move_table(move_class(stance, running))
        if straight:
            return self._straight(table, start, allowance, enemy, friends, open_doors)
        best: dict[int, tuple] = {start: (0, 0, 0, ())}
        paths: dict[int, tuple[int, ...]] = {start: ()}
        heap: list[tuple] = [(0, 0, 0, (), start)]
        while heap:
            cost, exp, n, dirs, cell = heapq.heappop(heap)
            if best[cell] != (cost, exp, n, dirs):
                continue
            path = paths[cell]
            for d, nb, c, door, c_open in table[cell]:
                if door is not None and door in open_doors:
                    c = c_open
                if c is None or c is ENTIRE or nb in enemy or nb == start:
                    continue
                nc = cost + c
                if nc > allowance:
                    continue
                label_ = (nc, exp + (nb in exposed), n + 1, dirs + (d,))
                old = best.get(nb)
                if old is None or label_ < old:
                    best[nb] = label_
                    paths[nb] = path + (nb,)
                    heapq.heappush(heap, (*label_, nb))
        out = {c: (best[c][0], p) for c, p in paths.items() if c != start and c not in friends}
        for d, nb, c, door, c_open in table[start]:
            if door is not None and door in open_doors:
                c = c_open
            if c is None or nb in out or nb in enemy or nb in friends:
                continue
            if c is ENTIRE or (at_least_one and c > allowance):
                out[nb] = (c, (nb,))
        return out

    def has_move(self, start: int, allowance: int, *, stance: Stance, running: bool, enemy: frozenset[int],
                 friends: frozenset[int], open_doors: frozenset[EdgeKey] = NO_DOORS) -> bool:
        """Whether :meth:`reach` would find any destination, cheaply: a free neighbour that may be entered is
        one (a step within the allowance, a whole-move crossing, or the at-least-one-hex step); only when
        every neighbour is closed or held does it search."""
        if allowance < 1 or not self._on_map[start]:  # type: ignore[attr-defined]
            return False
        for d, nb, c, door, c_open in self._move_table(move_class(stance, running))[start]:
            if door is not None and door in open_doors:
                c = c_open
            if c is not None and nb not in enemy and nb not in friends:
                return True
        return bool(self.reach(start, allowance, stance=stance, running=running, enemy=enemy, friends=friends,
                               open_doors=open_doors))

    @staticmethod
    def _straight(table: tuple[tuple[_Step, ...], ...], start: int, allowance: int, enemy: frozenset[int] | set[int],
                  friends: frozenset[int] | set[int],
                  open_doors: frozenset[EdgeKey]) -> dict[int, tuple[int, tuple[int, ...]]]:
        """Destinations along the six straight hex lines from ``start`` (RULES.md §4.2, all out run)."""
        out: dict[int, tuple[int, tuple[int, ...]]] = {}
        for direction in range(6):
            here, spent, path = start, 0, ()
            while True:
                step = next((s for s in table[here] if s[0] == direction), None)
                if step is None:
                    break
                _, nb, c, door, c_open = step
                if door is not None and door in open_doors:
                    c = c_open
                if c is None or c is ENTIRE or nb in enemy or spent + c > allowance:
                    break
                spent, path, here = spent + c, path + (nb,), nb
                if nb not in friends:
                    out[nb] = (spent, path)
        return out

    def paths(self, start: int, allowance: int, *, stance: Stance, running: bool, enemy: Iterable[int] = (),
              friends: Iterable[int] = (), open_doors: frozenset[EdgeKey] = NO_DOORS,
              exposed: Iterable[int] = (), at_least_one: bool = True,
              straight: bool = False) -> dict[int, tuple[int, ...]]:
        """Every legal destination of a move -> the cheapest path to it (cells after ``start``, destination
        last), RULES.md §4.3 and §4.1; :meth:`reach` with the costs left out."""
        return {c: p for c, (_, p) in self.reach(start, allowance, stance=stance, running=running, enemy=enemy,
                                                  friends=friends, open_doors=open_doors, exposed=exposed,
                                                  at_least_one=at_least_one, straight=straight).items()}

    # ------------------------------------------------------------------------- scatter and blast (§6.2, §6.3)
    def blast(self, landing: int, radius: int, *, open_doors: frozenset[EdgeKey] = NO_DOORS,
              blockers: frozenset[int] = NO_CELLS, edge_sight: str = "either_side") -> tuple[int, ...]:
        """The hexes a burst on ``landing`` reaches (RULES.md §6.3): every on-map hex within ``radius`` in line
        of sight of it (§1.4: walls and buildings shield; a burst inside a building reaches its room and what
        its openings see), the landing hex included; in cell order."""
        if not self._on_map[landing]:  # type: ignore[attr-defined]
            return ()
        return tuple(c for c in GRID.within(landing, radius)
                     if self.sees(landing, c, blockers=blockers, open_doors=open_doors, edge_sight=edge_sight))

    def scatter_landing(self, target: int, direction: int, hexes: int, *,
                        open_doors: frozenset[EdgeKey] = NO_DOORS) -> int | None:
        """Where a scattering throw lands (RULES.md §6.2): ``hexes`` steps from ``target`` in ``direction``
        (0 E .. 5 SE). A step across a head-high wall or hedge, a building or bunker wall or a closed door
        is not taken: it lands in the last hex before it. A step off the map loses it: None."""
        here = target
        for _ in range(hexes):
            nxt = GRID.steps(here)[direction]
            if nxt == OFF_GRID:
                return None
            if self.edge(here, nxt, open_doors) in SCATTER_STOPS:
                return here
            if not self._on_map[nxt]:  # type: ignore[attr-defined]
                return None
            here = nxt
        return here

    # ------------------------------------------------------------------------- text form
    def to_rows(self) -> tuple[list[str], list[tuple[str, str, str]]]:
        """The ground rows (trailing off-map columns and rows left out) and the listed edges as
        ``(label, label, name)``: what :meth:`from_rows` reads back (RULES.md §1.2, §1.3)."""
        rows = ["".join(GROUND_CHARS[self.ground[r * W + c]] for c in range(W)).rstrip("#") for r in range(H)]
        while rows and not rows[-1]:
            rows.pop()
        edges = [(GRID.label(a), GRID.label(b), self.edges[(a, b)].name.lower()) for a, b in sorted(self.edges)]
        return rows, edges

    def to_text(self) -> str:
        """The map as text: one line of ground characters per row (``. , W r o B K #``), then one line per
        listed edge, ``C5 C6 wall_low``. :meth:`from_text` reads it back."""
        rows, edges = self.to_rows()
        lines = [r if r else "#" for r in rows]
        return "\n".join(lines + [f"{a} {b} {name}" for a, b, name in edges]) + "\n"

    @classmethod
    def from_text(cls, text: str) -> Board:
        """Inverse of :meth:`to_text`: ground rows, then edge lines of three words."""
        rows, edges = [], []
        for line in text.splitlines():
            words = line.split()
            if not words:
                continue
            if len(words) == 3:
                edges.append((words[0], words[1], words[2]))
            elif len(words) == 1 and not edges:
                rows.append(words[0])
            else:
                raise BoardError(f"a map line is a row of ground characters or 'label label edge': {line!r}")
        return cls.from_rows(rows, edges)

    @classmethod
    def from_rows(cls, rows: Iterable[str], edges: Iterable[tuple[str, str, str]] = ()) -> Board:
        """A board from rows of ground characters (``. , W r o B K #``, RULES.md §1.2; short rows and missing
        rows are off the map; whitespace around a row is ignored, so odd rows may be indented to look like
        hexes) and edges ``(label, label, name)``, e.g. ``("C5", "C6", "wall_low")`` (§1.3).
        BoardError for a bad character, a map bigger than 24 x 16, a bad label, hexes that are not adjacent
        or an unknown edge name."""
        rows = list(rows)
        if len(rows) > H:
            raise BoardError(f"a map has at most {H} rows, not {len(rows)}")
        ground = [Ground.OFF] * N_CELLS
        for r, row in enumerate(rows):
            row = row.strip()
            if len(row) > W:
                raise BoardError(f"row {r + 1} has {len(row)} hexes; a map has at most {W} columns")
            for c, ch in enumerate(row):
                g = CHAR_GROUND.get(ch)
                if g is None:
                    raise BoardError(f"row {r + 1}, column {c + 1}: {ch!r} is not a ground character "
                                     f"(one of {' '.join(GROUND_CHARS)})")
                ground[r * W + c] = g
        listed: dict[EdgeKey, Edge] = {}
        for item in edges:
            try:
                la, lb, name = item
            except (TypeError, ValueError):
                raise BoardError(f"an edge is (label, label, name), not {item!r}") from None
            a, b = parse_cell(la), parse_cell(lb)
            if GRID.distance(a, b) != 1:
                raise BoardError(f"edge {la}-{lb}: the two hexes are not adjacent")
            try:
                e = Edge[str(name).strip().upper()]
            except KeyError:
                names = ", ".join(x.name.lower() for x in Edge)
                raise BoardError(f"edge {la}-{lb}: unknown edge {name!r} (one of {names})") from None
            k = edge_key(a, b)
            if listed.get(k, e) != e:
                raise BoardError(f"edge {la}-{lb} is listed twice, as {listed[k].name.lower()} and {e.name.lower()}")
            listed[k] = e
        return cls(tuple(ground), listed)
