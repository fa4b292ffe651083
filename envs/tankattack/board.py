"""The board: a square grid of base-width cells with ground, trenches, wire and the Bunker (RULES.md 1-2, 16).

Cells are numbered ``row * STRIDE + col`` on a 16 x 24 frame (``STRIDE`` 16); a smaller map uses its top-left
part and the rest is off the map (1.1). Row 0 is the north (attacker's) edge, the last row the defender's.
Facings are 0 N, 1 E, 2 S, 3 W.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from functools import lru_cache

from cardwar.envs.tankattack.elements import Going

STRIDE = 16
MAX_ROWS = 24
NUM_CELLS = STRIDE * MAX_ROWS
DIRS: tuple[tuple[int, int], ...] = ((0, -1), (1, 0), (0, 1), (-1, 0))
"""(dcol, drow) of the facings N, E, S, W."""
FACING_NAMES = "NESW"


class Ground(IntEnum):
    """Ground types (RULES.md 2.1)."""

    OPEN = 0
    ROAD = 1
    HILL = 2
    WOOD = 3
    CRATER = 4
    RUIN = 5
    TOWN = 6
    RIVER = 7
    FORD = 8
    BRIDGE = 9
    LAKE = 10


CHARS: dict[str, Ground] = {".": Ground.OPEN, "=": Ground.ROAD, "H": Ground.HILL, "W": Ground.WOOD,
                            "x": Ground.CRATER, "R": Ground.RUIN, "T": Ground.TOWN, "~": Ground.RIVER,
                            "F": Ground.FORD, "b": Ground.BRIDGE, "L": Ground.LAKE}
GROUND_CHAR = {g: c for c, g in CHARS.items()}
BAD = frozenset({Ground.WOOD, Ground.CRATER, Ground.RUIN, Ground.TOWN})
"""Bad going for every rule (2.1); a Strongpoint is a ruin."""
BUA = frozenset({Ground.RUIN, Ground.TOWN})
HIGH = frozenset({Ground.HILL, Ground.WOOD, Ground.RUIN, Ground.TOWN})
"""High terrain (L79): the features that block sight (2.1)."""
COVER = frozenset({Ground.WOOD, Ground.RUIN, Ground.TOWN})
"""+2 when shot at (13.1); also the "deep within" features of 1.6."""


def going_of(g: Ground) -> Going | None:
    """Movement going of a ground type; ``None``: impassable (2.1)."""
    if g is Ground.LAKE:
        return None
    if g in (Ground.ROAD, Ground.BRIDGE):
        return Going.ROAD
    if g in BAD:
        return Going.BAD
    if g is Ground.RIVER:
        return Going.RIVER
    return Going.GOOD


def cell_at(col: int, row: int) -> int:
    return row * STRIDE + col


def col_row(cell: int) -> tuple[int, int]:
    return cell % STRIDE, cell // STRIDE


def label(cell: int) -> str:
    """``H23`` style: column letter, then row from 1 (1.1)."""
    c, r = col_row(cell)
    return f"{chr(ord('A') + c)}{r + 1}"


def parse_label(text: str) -> int:
    text = text.strip().upper()
    col, row = ord(text[0]) - ord("A"), int(text[1:]) - 1
    if not (0 <= col < STRIDE and 0 <= row < MAX_ROWS):
        raise ValueError(f"cell {text!r} is outside the 16 x 24 frame")
    return cell_at(col, row)


def gap(a: int, b: int) -> int:
    """Paces between the nearest edges of two cells' bases, 150p a diagonal step (RULES.md 1.4)."""
    ac, ar = a % STRIDE, a // STRIDE
    bc, br = b % STRIDE, b // STRIDE
    x = abs(ac - bc) - 1
    y = abs(ar - br) - 1
    x = x if x > 0 else 0
    y = y if y > 0 else 0
    return 100 * max(x, y) + 50 * min(x, y)


def direction(a: int, b: int) -> int | None:
    """The facing that points from ``a`` to an orthogonal neighbour ``b`` (``None`` if not one)."""
    ac, ar = col_row(a)
    bc, br = col_row(b)
    try:
        return DIRS.index((bc - ac, br - ar))
    except ValueError:
        return None


@lru_cache(maxsize=200_000)
def line_cells(a: int, b: int) -> tuple[tuple[int, ...], tuple[tuple[int, int], ...]]:
    """The cells a centre-to-centre line from ``a`` to ``b`` passes strictly between its ends (1.6): the
    cells it crosses, and the pairs of cells at a corner it runs exactly through (either one clear suffices)."""
    (c0, r0), (c1, r1) = col_row(a), col_row(b)
    dx, dy = c1 - c0, r1 - r0
    nx, ny = abs(dx), abs(dy)
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    # Event k on x at t = (2k+1) / (2 nx); on y at t = (2k+1) / (2 ny); compare on a common denominator.
    big = 2 * max(nx, 1) * max(ny, 1)
    events: dict[int, list[str]] = {}
    for k in range(nx):
        events.setdefault((2 * k + 1) * big // (2 * nx), []).append("x")
    for k in range(ny):
        events.setdefault((2 * k + 1) * big // (2 * ny), []).append("y")
    cells: list[int] = []
    corners: list[tuple[int, int]] = []
    x, y = c0, r0
    for t in sorted(events):
        kinds = events[t]
        if len(kinds) == 2:
            corners.append((cell_at(x + sx, y), cell_at(x, y + sy)))
            x, y = x + sx, y + sy
        elif kinds[0] == "x":
            x += sx
        else:
            y += sy
        here = cell_at(x, y)
        if here != b:
            cells.append(here)
    return tuple(cells), tuple(corners)


@dataclass(frozen=True)
class Board:
    """The map: ground per cell, trench cells (and their kinds), wire cells with owners, Strongpoints and the
    Bunker (RULES.md 1.2). Immutable; a game's destroyed wire is kept in the state."""

    width: int
    height: int
    ground: tuple[Ground, ...]
    """Per cell of the 16 x 24 frame (off-map cells OPEN and never used)."""
    trench: frozenset[int] = frozenset()
    wire: tuple[tuple[int, int], ...] = ()
    """(cell, owner side) at the start."""
    strongpoints: frozenset[int] = frozenset()
    bunker: int | None = None
    mine_areas: frozenset[int] = frozenset()
    _cache: dict = field(default_factory=dict, compare=False, repr=False, hash=False)

    def __post_init__(self) -> None:
        if not (1 <= self.width <= STRIDE and 1 <= self.height <= MAX_ROWS):
            raise ValueError(f"a map is at most {STRIDE} x {MAX_ROWS}, not {self.width} x {self.height}")
        # Static tables, built once a board (speed: the move search and contact tests read them per step).
        w, h = self.width, self.height
        steps, near8 = [], []
        for cell in range(NUM_CELLS):
            c, r = cell % STRIDE, cell // STRIDE
            steps.append(tuple(cell_at(c + dc, r + dr) if 0 <= c + dc < w and 0 <= r + dr < h else None
                               for dc, dr in DIRS))
            near8.append(tuple((cell_at(c + dc, r + dr), 150 if dc and dr else 100,
                                cell_at(c + dc, r) if dc and dr else -1, cell_at(c, r + dr) if dc and dr else -1)
                               for dc in (-1, 0, 1) for dr in (-1, 0, 1)
                               if (dc or dr) and 0 <= c + dc < w and 0 <= r + dr < h))
        # steps[cell][facing]: the orthogonal neighbour (None off the map), :meth:`step` as a table.
        object.__setattr__(self, "steps", tuple(steps))
        # near8[cell]: its 8 neighbours on the map as (cell, paces, corner cell 1, corner cell 2); the corner
        # cells (a diagonal step may not cut a corner, 8.2) are -1 for an orthogonal step.
        object.__setattr__(self, "near8", tuple(near8))
        # going[cell]: the going of its ground (:func:`going_of`).
        object.__setattr__(self, "going", tuple(going_of(g) for g in self.ground))

    def on_map(self, cell: int) -> bool:
        return 0 <= cell < NUM_CELLS and cell % STRIDE < self.width and cell // STRIDE < self.height

    def step(self, cell: int, facing: int) -> int | None:
        """The orthogonal neighbour in ``facing``, or ``None`` off the map."""
        if 0 <= cell < NUM_CELLS:
            return self.steps[cell][facing]
        c, r = col_row(cell)
        dc, dr = DIRS[facing]
        c, r = c + dc, r + dr
        if 0 <= c < self.width and 0 <= r < self.height:
            return cell_at(c, r)
        return None

    def neighbours8(self, cell: int) -> list[int]:
        c, r = col_row(cell)
        return [cell_at(c + dc, r + dr) for dr in (-1, 0, 1) for dc in (-1, 0, 1)
                if (dc or dr) and 0 <= c + dc < self.width and 0 <= r + dr < self.height]

    def cells(self) -> range:
        return range(NUM_CELLS)

    def map_cells(self) -> list[int]:
        key = "map_cells"
        if key not in self._cache:
            self._cache[key] = [cell_at(c, r) for r in range(self.height) for c in range(self.width)]
        return self._cache[key]

    def is_bad(self, cell: int) -> bool:
        """Bad going for the combat rules (2.1); the trench's "from outside" reading is the state's."""
        return self.ground[cell] in BAD

    def trench_component(self, cell: int) -> int:
        """Which connected trench system a trench cell is in (orthogonal connection, 16.1); -1 if none."""
        key = "trench_comp"
        comp = self._cache.get(key)
        if comp is None:
            comp = {}
            n = 0
            for start in sorted(self.trench):
                if start in comp:
                    continue
                stack = [start]
                comp[start] = n
                while stack:
                    x = stack.pop()
                    for f in range(4):
                        y = self.step(x, f)
                        if y is not None and y in self.trench and y not in comp:
                            comp[y] = n
                            stack.append(y)
                n += 1
            self._cache[key] = comp
        return comp.get(cell, -1)

    def deep_in(self, cell: int) -> bool:
        """An interior cell of a wood or BUA: all four orthogonal neighbours of the same feature (1.6)."""
        g = self.ground[cell]
        if g not in COVER:
            return False
        same = BUA if g in BUA else {g}
        for f in range(4):
            y = self.step(cell, f)
            if y is None or self.ground[y] not in same:
                return False
        return True

    def terrain_sight(self, a: int, b: int) -> bool:
        """Whether terrain alone lets ``a`` and ``b`` see each other (1.6): woods and BUA block, hills block
        unless an end stands on a hill, and an element deep in a wood or BUA sees only the cells it touches."""
        key = (a, b) if a <= b else (b, a)
        cache = self._cache.setdefault("tsight", {})
        hit = cache.get(key)
        if hit is not None:
            return hit
        ok = True
        if (self.deep_in(a) or self.deep_in(b)) and gap(a, b) > 0:
            ok = False
        else:
            on_hill = self.ground[a] is Ground.HILL or self.ground[b] is Ground.HILL
            cells, corners = line_cells(a, b)

            def blocks(c: int) -> bool:
                g = self.ground[c]
                return g in COVER or (g is Ground.HILL and not on_hill)

            if any(blocks(c) for c in cells if c not in (a, b)):
                ok = False
            elif any(blocks(p) and blocks(q) for p, q in corners):
                ok = False
        cache[key] = ok
        return ok

    def row_text(self, row: int) -> str:
        wire = {c for c, _ in self.wire}
        return "".join(legend_char(cell_at(col, row), self.ground, self.bunker, self.strongpoints, self.trench, wire)
                       for col in range(self.width))


def legend_char(cell: int, ground: list[Ground], bunker: int | None, strongpoints: set[int], trench: set[int],
                wire: set[int]) -> str:
    """A cell's letter in the RULES.md 20.2 map legend: the Bunker, a Strongpoint, trench and wire before the
    ground."""
    if cell == bunker:
        return "K"
    if cell in strongpoints:
        return "S"
    if cell in trench:
        return "#"
    if cell in wire:
        return "w"
    return GROUND_CHAR[ground[cell]]


def parse_map(rows: list[str] | tuple[str, ...], wire_owner: int = 0) -> Board:
    """A board from the RULES.md 20.2 legend (``#`` trench, ``S`` Strongpoint, ``w`` wire, ``K`` Bunker,
    ``M`` a designated minefield cell of open ground)."""
    rows = [r for r in rows]
    height, width = len(rows), len(rows[0])
    ground = [Ground.OPEN] * NUM_CELLS
    trench, strong, wire, mines = set(), set(), [], set()
    bunker = None
    for r, line in enumerate(rows):
        if len(line) != width:
            raise ValueError(f"map row {r + 1} has {len(line)} cells, not {width}")
        for c, ch in enumerate(line):
            cell = cell_at(c, r)
            if ch == "#":
                trench.add(cell)
            elif ch == "S":
                ground[cell] = Ground.RUIN
                trench.add(cell)
                strong.add(cell)
            elif ch == "w":
                wire.append((cell, wire_owner))
            elif ch == "K":
                bunker = cell
            elif ch == "M":
                mines.add(cell)
            elif ch in CHARS:
                ground[cell] = CHARS[ch]
            else:
                raise ValueError(f"unknown map character {ch!r} at {label(cell)}")
    return Board(width, height, tuple(ground), frozenset(trench), tuple(wire), frozenset(strong), bunker,
                 frozenset(mines))
