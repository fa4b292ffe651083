"""The seed's set-up procedure as a generator of public maps and armies (RULES.md 5 and 20.1).

``generate_scenario(seed)`` draws everything from ``numpy.random.default_rng(seed)``: the two army
templates (step 2), the trench lines and wire by battalion frontage (step 3), terrain placed in turn
with the seed's limits (step 4), the Command Bunker (step 5) and the scripted deployment (step 6). The
whole scenario is public (RULES.md 18), so one seed is all it needs; the dice of play come from the
game's own generator (``TankState.new_game(..., seed=)``), never from this one.

Readings this module adds to 20.1, where the text leaves a choice (each also in the function that
applies it):

- "the deployment zones' edge rows" are the zones' forward rows, 6 and 19: the town edge must touch the
  defender's own edge (row 24), so the map's edge rows cannot be meant.
- A ruin is placed on a front-line cell only for the ``line`` defender, only once, and only in a frontage
  one of its two battalions will hold: the map format writes a trench ruin as ``S``, a Strongpoint,
  ``line`` is the template that pays for one, and the battalion's MG then holds it.
- The road may cross trench and wire cells (they stay trench and wire) and the river only at its bridge;
  it is exempt from the forward-row rule (a road crosses the whole map).
- Repair places a feature where it touches a quarter that has none, while fewer than 3 quarters hold one.
- A map that cannot be repaired is drawn again from the same generator (so it is still a function of
  the seed).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from cardwar.envs.tankattack.board import STRIDE, Ground, cell_at, col_row, gap, going_of, legend_char
from cardwar.envs.tankattack.elements import NAMES, NO_TRENCH, RESERVE_ONLY, STATS, EType, allowance
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER, ElementSpec, Scenario

WIDTH, HEIGHT = 16, 24
FORWARD_ROWS = (5, 18)
"""Rows 6 and 19 (0-based 5 and 18): the deployment zones' forward rows, kept clear of terrain (20.1 step 4)."""
HIGH_GAP = 400
"""No high terrain within 400p of a trench line's forward face (RULES.md 5 step 4, seed L79)."""
BUNKER_GAP = 400
"""The Bunker within 400p of the centre of the defender's edge (RULES.md 5 step 5, seed L97)."""
MAX_FEATURES = 8
"""The cap on features placed in turn (20.1 step 4, a reading)."""
SPLITS: dict[str, int | None] = {"random": None, "random:train": 0, "random:test": 1}
"""Even generator seeds train, odd ones test (20.1), as hexwar's ``envs/turn_based_env.RANDOM_SPLITS``."""

# --------------------------------------------------------------------------- armies (20.1 step 2)
BATTALION = ("rifles", "rifles", "rifles", "rifles", "mg")
"""Core Infantry Battalion: 4 Rifles + 1 MG = 11 AP (RULES.md 4)."""
CAVALRY_REGIMENT = ("cavalry", "cavalry", "cavalry", "cavalry", "mg")
"""Cavalry Regiment: 4 Cavalry + 1 MG = 11 AP (RULES.md 4)."""

DEFENDER_TEMPLATES: dict[str, dict[str, tuple]] = {
    "line": {"battalions": 2, "regiments": 0,
             "others": ("field_artillery", "forward_observer", "barrage", "sniper", "minefield", "gas")},
    "deep": {"battalions": 1, "regiments": 0,
             "others": ("rifles", "mg", "heavy_artillery", "forward_observer", "barrage", "fighter", "minefield",
                        "minefield", "sniper", "balloon", "gas")},
    "mobile": {"battalions": 1, "regiments": 1,
               "others": ("field_artillery", "forward_observer", "barrage", "sniper", "minefield", "gas",
                          "balloon")},
}
"""RULES.md 20.1 step 2, defender. ``line`` adds a Strongpoint if a ruin lies on the front line, otherwise a
second Minefield: 36 AP either way."""
ATTACKER_TEMPLATES: dict[str, dict[str, tuple]] = {
    "tanks": {"battalions": 1, "regiments": 0,
              "others": ("tank", "tank", "tank", "sturmtruppe", "sturmtruppe", "barrage", "balloon")},
    "storm": {"battalions": 1, "regiments": 0,
              "others": ("sturmtruppe", "sturmtruppe", "sturmtruppe", "light_mortar", "gas", "gas", "barrage",
                         "forward_observer", "balloon", "bomber")},
    "combined": {"battalions": 1, "regiments": 1,
                 "others": ("armoured_car", "armoured_car", "field_artillery", "barrage", "forward_observer")},
    "air": {"battalions": 1, "regiments": 0,
            "others": ("tank", "tank", "fighter", "scout", "bomber", "sturmtruppe", "gas", "balloon",
                       "forward_observer")},
}
"""RULES.md 20.1 step 2, attacker."""

# --------------------------------------------------------------------------- terrain (20.1 step 4)
FEATURE_WEIGHTS: dict[str, int] = {"hill": 3, "wood": 3, "crater": 3, "ruin": 2, "town": 1, "road": 1,
                                   "river": 1, "lake": 1}
ONCE = frozenset({"town", "road", "river", "lake"})
"""At most one of each (20.1 step 4)."""
BAD_FEATURES = ("wood", "crater", "ruin", "town")
"""Features of bad going (RULES.md 2.1)."""
GROUND_OF = {"hill": Ground.HILL, "wood": Ground.WOOD, "crater": Ground.CRATER, "ruin": Ground.RUIN,
             "town": Ground.TOWN, "road": Ground.ROAD, "lake": Ground.LAKE, "river": Ground.RIVER}
HIGH_FEATURES = frozenset({"hill", "wood", "ruin", "town"})
"""High terrain (RULES.md 2.1: the features that block sight)."""


@dataclass
class Layout:
    """The map while it is built: ground per cell, trench lines, wire, features, the Bunker."""

    ground: list[Ground]
    front: list[int]
    """Front-line cells, west to east."""
    front_row: int
    trench: set[int]
    wire: set[int]
    frontages: list[list[int]]
    support: list[int]
    features: list[tuple[str, frozenset[int]]]
    strongpoints: set[int]
    bunker: int | None = None


def split_seed(seed: int, split: int | None) -> int:
    """The generator seed of a split: even seeds train, odd seeds test (RULES.md 20.1)."""
    return seed if split is None else (seed & ~1) | split


def quarter(cell: int, width: int = WIDTH, height: int = HEIGHT) -> int:
    """The battlefield quarter of a cell: columns A-H / I-P crossed with rows 1-12 / 13-24 (RULES.md 1.4)."""
    c, r = col_row(cell)
    return (0 if c < width // 2 else 1) + (0 if r < height // 2 else 2)


def edge_centre_gap(cell: int, width: int = WIDTH, height: int = HEIGHT) -> int:
    """Paces from a cell to the centre of the defender's edge, the point between the two middle columns on
    the last row's outer edge (RULES.md 1.4): whole columns and rows between, 150p a diagonal step."""
    c, r = col_row(cell)
    left, right = width // 2 - 1, width // 2
    x = left - c if c <= left else c - right
    y = height - 1 - r
    return 100 * max(x, y) + 50 * min(x, y)


def high_allowed(cell: int, trench: set[int] | frozenset[int]) -> bool:
    """RULES.md 5 step 4: a high-terrain cell may not lie on or in front of (north of) a trench cell's row
    within 400p of it; cells behind every nearby trench cell are free."""
    _, r = col_row(cell)
    return not any(col_row(t)[1] >= r and gap(cell, t) <= HIGH_GAP for t in trench)


def _draw(rng: np.random.Generator, options: list) -> object:
    return options[int(rng.integers(len(options)))]


def _d6(rng: np.random.Generator) -> int:
    return int(rng.integers(1, 7))


# --------------------------------------------------------------------------- step 3
def _trenches(rng: np.random.Generator) -> Layout:
    """Front line on row 16-18 from column A-C to N-P, cut into 5-cell frontages, a d6 of wire for each,
    and a d6 for a support line with its communication trench (RULES.md 20.1 step 3)."""
    row = int(rng.integers(15, 18))
    west, east = int(rng.integers(0, 3)), int(rng.integers(13, 16))
    front = [cell_at(c, row) for c in range(west, east + 1)]
    frontages = [front[i:i + 5] for i in range(0, len(front), 5)]
    wire: set[int] = set()
    for fr in frontages:
        roll = _d6(rng)
        if roll == 1:
            continue
        belt = [cell_at(col_row(c)[0], row - 2) for c in fr]
        if roll <= 4:
            belt.pop(int(rng.integers(len(belt))))
        wire.update(belt)
    trench = set(front)
    support: list[int] = []
    if _d6(rng) >= 4:
        support = [cell_at(c, row + 3) for c in range(5, 11)]
        trench.update(support)
        trench.update({cell_at(7, row + 1), cell_at(7, row + 2)})
    return Layout([Ground.OPEN] * (STRIDE * HEIGHT), front, row, trench, wire, frontages, support, [], set())


# --------------------------------------------------------------------------- step 4
def _used(lay: Layout) -> set[int]:
    return {c for _, cells in lay.features for c in cells}


def _placements(lay: Layout, kind: str, defender: str) -> list[frozenset[int]]:
    """Every legal position of a feature (RULES.md 20.1 step 4): on the map, no overlap with features,
    trenches, wire or the forward rows; high terrain clear of the trenches' forward faces; a ruin may sit
    on a front-line cell (the ``line`` defender's Strongpoint, once)."""
    used = _used(lay)
    blocked = used | lay.trench | lay.wire
    out: list[frozenset[int]] = []

    free = {c for c in range(STRIDE * HEIGHT)
            if c % STRIDE < WIDTH and c not in blocked and col_row(c)[1] not in FORWARD_ROWS
            and (kind not in HIGH_FEATURES or high_allowed(c, lay.trench))}

    def ok(cells: list[int]) -> bool:
        return all(c in free for c in cells)

    def rects(ws: tuple[int, ...], hs: tuple[int, ...], rows: range | None = None) -> None:
        for w in ws:
            for h in hs:
                for r in rows if rows is not None else range(HEIGHT - h + 1):
                    for c in range(WIDTH - w + 1):
                        cells = [cell_at(c + i, r + j) for i in range(w) for j in range(h)]
                        if ok(cells):
                            out.append(frozenset(cells))

    if kind in ("hill", "wood"):
        rects((2, 3), (2, 3))
    elif kind == "crater":
        rects((2, 3), (2,))
    elif kind == "lake":
        rects((2,), (2,))
    elif kind == "town":
        rects((4,), (2,), range(HEIGHT - 2, HEIGHT - 1))
    elif kind == "ruin":
        rects((1,), (1,))
        if defender == "line" and not lay.strongpoints:
            held = lay.frontages[:DEFENDER_TEMPLATES["line"]["battalions"]]
            out.extend(frozenset({c}) for fr in held for c in fr)
    elif kind == "road":
        river = next((cells for k, cells in lay.features if k == "river"), frozenset())
        bridge = [c for c in river if lay.ground[c] is Ground.BRIDGE]
        for col in range(WIDTH):
            cells = [cell_at(col, r) for r in range(HEIGHT)]
            if all(c not in used or c in bridge for c in cells):
                out.append(frozenset(c for c in cells if c not in lay.trench and c not in lay.wire
                                     and c not in bridge))
    elif kind == "river":
        road = next((cells for k, cells in lay.features if k == "road"), frozenset())
        for r in range(7, 11):
            cells = [cell_at(c, r) for c in range(WIDTH)]
            if all((c not in blocked or c in road) for c in cells):
                out.append(frozenset(cells))
    return out


def _place(lay: Layout, rng: np.random.Generator, kind: str, defender: str,
           need_quarters: set[int] | None = None) -> bool:
    """Place one feature of ``kind`` uniformly among its legal positions (those touching a quarter in
    ``need_quarters`` if given); ``False`` if it has none (the feature is skipped)."""
    options = _placements(lay, kind, defender)
    if need_quarters:
        options = [o for o in options if any(quarter(c) in need_quarters for c in o)]
    if not options:
        return False
    cells = options[int(rng.integers(len(options)))]
    if kind == "river":
        road = next((cs for k, cs in lay.features if k == "road"), frozenset())
        row = sorted(cells)
        crossing = [c for c in row if c in road]
        bridge = crossing[0] if crossing else row[int(rng.integers(len(row)))]
        ford = _draw(rng, [c for c in row if c != bridge])
        for c in row:
            if c not in road:
                lay.ground[c] = Ground.RIVER
        lay.ground[bridge], lay.ground[ford] = Ground.BRIDGE, Ground.FORD
        cells = frozenset(c for c in row if c not in road or c == bridge)
    else:
        for c in cells:
            lay.ground[c] = GROUND_OF[kind]
        if kind == "ruin" and next(iter(cells)) in lay.trench:
            lay.strongpoints.update(cells)
    lay.features.append((kind, cells))
    return True


def _draw_kind(lay: Layout, rng: np.random.Generator, kinds: tuple[str, ...] | None = None) -> str:
    """A feature type by the weights of 20.1 step 4, leaving out the once-only types already placed."""
    placed = {k for k, _ in lay.features}
    kinds = tuple(k for k in (kinds or tuple(FEATURE_WEIGHTS)) if not (k in ONCE and k in placed))
    w = np.array([FEATURE_WEIGHTS[k] for k in kinds], dtype=float)
    return kinds[int(rng.choice(len(kinds), p=w / w.sum()))]


def _terrain(lay: Layout, rng: np.random.Generator, defender: str) -> bool:
    """Features in turn: attacker, defender, attacker, defender, then high roller of two d6 (ties re-rolled)
    places another with probability 1/2 or ends it; at most 8; then repair (20.1 step 4). ``False``: the
    repair failed (the caller draws the map again)."""
    # Both sides place by the same fixed random policy, so who places (attacker, defender, attacker,
    # defender, then the high roller) changes no draw; the dice are still rolled, as at the table.
    count = 0
    for _ in range(4):
        _place(lay, rng, _draw_kind(lay, rng), defender)
        count += 1
    while count < MAX_FEATURES:
        a, d = _d6(rng), _d6(rng)
        while a == d:
            a, d = _d6(rng), _d6(rng)
        if rng.random() < 0.5:
            break
        _place(lay, rng, _draw_kind(lay, rng), defender)
        count += 1
    for _ in range(12):
        quarters = {quarter(c) for _, cells in lay.features for c in cells}
        bad = any(k in BAD_FEATURES for k, _ in lay.features)
        if len(quarters) >= 3 and bad:
            return True
        kind = _draw_kind(lay, rng, None if bad else BAD_FEATURES)
        need = set(range(4)) - quarters if len(quarters) < 3 else None
        _place(lay, rng, kind, defender, need)
    return False


# --------------------------------------------------------------------------- step 5
def passable_from_north(lay: Layout) -> set[int]:
    """Cells reachable by ground movement from the attacker's edge through cells that are not impassable
    (a lake) nor the Bunker (RULES.md 5 step 5: wire and trenches only slow)."""
    seen = {cell_at(c, 0) for c in range(WIDTH) if lay.ground[cell_at(c, 0)] is not Ground.LAKE}
    todo = list(seen)
    while todo:
        cell = todo.pop()
        c, r = col_row(cell)
        for dc, dr in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            nc, nr = c + dc, r + dr
            if 0 <= nc < WIDTH and 0 <= nr < HEIGHT:
                n = cell_at(nc, nr)
                if n not in seen and lay.ground[n] is not Ground.LAKE and n != lay.bunker:
                    seen.add(n)
                    todo.append(n)
    return seen


def bunker_cells(lay: Layout) -> list[int]:
    """Legal Bunker cells (RULES.md 5 step 5): within 400p of the edge centre; not trench, wire, river, ford,
    bridge, lake or ruin; some orthogonal neighbour reachable from the attacker's edge."""
    out = []
    bad = {Ground.RIVER, Ground.FORD, Ground.BRIDGE, Ground.LAKE, Ground.RUIN}
    for r in range(HEIGHT):
        for c in range(WIDTH):
            cell = cell_at(c, r)
            if (edge_centre_gap(cell) > BUNKER_GAP or cell in lay.trench or cell in lay.wire
                    or lay.ground[cell] in bad):
                continue
            lay.bunker = cell
            reach = passable_from_north(lay)
            lay.bunker = None
            nbrs = [cell_at(c + dc, r + dr) for dc, dr in ((0, 1), (1, 0), (0, -1), (-1, 0))
                    if 0 <= c + dc < WIDTH and 0 <= r + dr < HEIGHT]
            if any(n in reach for n in nbrs):
                out.append(cell)
    return out


# --------------------------------------------------------------------------- step 6
def _army(template: dict[str, tuple], strongpoint: bool, side: int) -> list[str]:
    """The template's type names: General, battalions, regiments, the rest (``line`` gets a second Minefield
    when it has no Strongpoint)."""
    out = ["general"] + list(BATTALION) * template["battalions"] + list(CAVALRY_REGIMENT) * template["regiments"]
    out += list(template["others"])
    if side == DEFENDER and template is DEFENDER_TEMPLATES["line"] and not strongpoint:
        out.append("minefield")
    return out


class _Deployer:
    """Scripted placement with the nearest-free-legal-cell rule (RULES.md 20.1 step 6)."""

    def __init__(self, lay: Layout) -> None:
        self.lay = lay
        self.taken: set[int] = set()
        self.placed: list[ElementSpec] = []

    def legal(self, cell: int, side: int, t: EType) -> bool:
        lay = self.lay
        c, r = col_row(cell)
        zone = (r >= HEIGHT - 6 or cell in lay.trench) if side == DEFENDER else r < 6
        if not zone or cell in self.taken or cell == lay.bunker or cell in lay.wire:
            return False
        if t in NO_TRENCH and cell in lay.trench:
            return False
        going = going_of(lay.ground[cell])
        if going is None:
            return False
        return STATS[t].move is None or allowance(t, going) is not None

    def put(self, target: tuple[int, int], side: int, tname: str, general: bool = False) -> int:
        t = NAMES[tname]
        c0, r0 = max(0, min(WIDTH - 1, target[0])), max(0, min(HEIGHT - 1, target[1]))
        want = cell_at(c0, r0)
        if not self.legal(want, side, t):
            own_edge = (lambda r: -r) if side == DEFENDER else (lambda r: r)
            cands = [cell_at(c, r) for r in range(HEIGHT) for c in range(WIDTH)]
            cands = [x for x in cands if self.legal(x, side, t)]
            if not cands:
                raise RuntimeError(f"no legal cell for {tname}")

            def key(x: int) -> tuple[int, int, int]:
                c, r = col_row(x)
                dx, dy = abs(c - c0), abs(r - r0)
                return (100 * max(dx, dy) + 50 * min(dx, dy), own_edge(r), c)
            want = min(cands, key=key)
        self.taken.add(want)
        self.placed.append(ElementSpec(side, t, want, 0 if side == DEFENDER else 2, general))
        return want


def _deploy_defender(dep: _Deployer, lay: Layout, names: list[str], rng: np.random.Generator) -> None:
    """RULES.md 20.1 step 6, defender: battalions hold the frontages, the rest behind, all facing N."""
    rest = names[1:]
    battalions = []
    while rest[:5] == list(BATTALION):
        battalions.append(rest[:5])
        rest = rest[5:]
    regiments = []
    while rest[:5] == list(CAVALRY_REGIMENT):
        regiments.append(rest[:5])
        rest = rest[5:]
    behind: list[str] = []
    for i, bn in enumerate(battalions):
        if i >= len(lay.frontages):
            behind += bn
            continue
        fr = lay.frontages[i]
        sp = [c for c in fr if c in lay.strongpoints]
        mg = sp[0] if sp else fr[len(fr) // 2]
        dep.put(col_row(mg), DEFENDER, "mg")
        cells = [c for c in fr if c != mg]
        for k in range(4):
            if k < len(cells):
                dep.put(col_row(cells[k]), DEFENDER, "rifles")
            else:
                behind.append("rifles")
    behind += [n for n in rest if n in ("rifles", "mg")]
    rest = [n for n in rest if n not in ("rifles", "mg")]
    support = [c for c in lay.support if c not in dep.taken]
    centre = (7, HEIGHT - 5)
    general_at = col_row(lay.support[len(lay.support) // 2]) if lay.support else centre
    dep.put(general_at, DEFENDER, "rifles", general=True)
    for n in behind:
        free = [c for c in support if c not in dep.taken]
        dep.put(col_row(free[0]) if free else centre, DEFENDER, n)
    for n in rest:
        if n == "forward_observer":
            free = [c for c in lay.front if c not in dep.taken]
            mid = (col_row(lay.front[0])[0] + col_row(lay.front[-1])[0]) / 2
            spot = min(free, key=lambda c: (abs(col_row(c)[0] - mid), col_row(c)[0])) if free else lay.front[0]
            dep.put(col_row(spot), DEFENDER, n)
        elif n in ("field_artillery", "heavy_artillery"):
            _gun(dep, lay, n)
    if regiments:
        bc = col_row(lay.bunker)[0] if lay.bunker is not None else 7
        col = 1 if bc >= WIDTH // 2 else WIDTH - 2
        for reg in regiments:
            for k, n in enumerate(reg):
                dep.put((col + (k % 2) * (1 if col < 8 else -1), HEIGHT - 5 + k // 2), DEFENDER, n)


def _gun(dep: _Deployer, lay: Layout, n: str) -> None:
    """Artillery in rows 21-23, in the free cell nearest columns H-I not beside the Bunker (20.1 step 6)."""
    t = NAMES[n]
    bc, br = col_row(lay.bunker) if lay.bunker is not None else (-9, -9)
    cands = [cell_at(c, r) for r in range(HEIGHT - 4, HEIGHT - 1) for c in range(WIDTH)
             if max(abs(c - bc), abs(r - br)) > 1]
    cands = [c for c in cands if dep.legal(c, DEFENDER, t)]
    if cands:
        best = min(cands, key=lambda x: (min(abs(col_row(x)[0] - 7), abs(col_row(x)[0] - 8)),
                                         -col_row(x)[1], col_row(x)[0]))
        dep.put(col_row(best), DEFENDER, n)
    else:
        dep.put((7, HEIGHT - 3), DEFENDER, n)


def _deploy_attacker(dep: _Deployer, names: list[str], rng: np.random.Generator) -> None:
    """RULES.md 20.1 step 6, attacker: Tanks and Sturmtruppe in row 6, the battalion in row 5, the General
    at row 4, guns at the centre of rows 2-3, mounted troops at one flank drawn; all facing S."""
    rest = names[1:]
    battalion = rest[:5] if rest[:5] == list(BATTALION) else []
    rest = rest[len(battalion):]
    regiment = rest[:5] if rest[:5] == list(CAVALRY_REGIMENT) else []
    rest = rest[len(regiment):]
    if not battalion and rest[:5] == list(BATTALION):
        battalion, rest = rest[:5], rest[5:]
    tanks = [n for n in rest if n == "tank"]
    storm = [n for n in rest if n == "sturmtruppe"]
    tank_cols = [2 + int((k + 0.5) * 12 / len(tanks)) for k in range(len(tanks))]
    for col in tank_cols:
        dep.put((col, 5), ATTACKER, "tank")
    if tank_cols:
        spots = [(a + b) // 2 for a, b in zip(tank_cols, tank_cols[1:])] + [tank_cols[0] - 1, tank_cols[-1] + 1]
    else:
        spots = [2 + int((k + 0.5) * 12 / max(1, len(storm))) for k in range(len(storm))]
    for k, _ in enumerate(storm):
        dep.put((spots[k % len(spots)], 5), ATTACKER, "sturmtruppe")
    for k, n in enumerate(("rifles", "rifles", "mg", "rifles", "rifles") if battalion else ()):
        dep.put((5 + k, 4), ATTACKER, n)
    dep.put((7 + int(rng.integers(2)), 3), ATTACKER, "rifles", general=True)
    flank = int(rng.integers(2))
    mounted = list(regiment) + [n for n in rest if n == "armoured_car"]
    for k, n in enumerate(mounted):
        col = k % 3 if flank == 0 else WIDTH - 1 - k % 3
        dep.put((col, 3 + k // 3), ATTACKER, n)
    for n in rest:
        if n in ("field_artillery", "light_mortar", "heavy_artillery"):
            dep.put((7, 1), ATTACKER, n)
        elif n == "forward_observer":
            dep.put((8, 5), ATTACKER, n)


# --------------------------------------------------------------------------- the whole
def _rows(lay: Layout) -> tuple[str, ...]:
    """The map in the RULES.md 20.2 legend."""
    return tuple("".join(legend_char(cell_at(c, r), lay.ground, lay.bunker, lay.strongpoints, lay.trench, lay.wire)
                         for c in range(WIDTH)) for r in range(HEIGHT))


def generate_scenario(seed: int, name: str | None = None, turn_limit: int = 20) -> Scenario:
    """The scenario of generator seed ``seed`` (RULES.md 20.1): a function of the seed alone."""
    rng = np.random.default_rng(seed)
    dname, aname = _templates(rng)
    for _ in range(50):
        lay = _trenches(rng)
        if not _terrain(lay, rng, dname):
            continue
        cells = bunker_cells(lay)
        if not cells:
            continue
        lay.bunker = cells[int(rng.integers(len(cells)))]
        break
    else:  # pragma: no cover - never seen over 10,000 seeds
        raise RuntimeError(f"generator seed {seed}: no legal map in 50 draws")
    strong = bool(lay.strongpoints)
    dep = _Deployer(lay)
    dnames = _army(DEFENDER_TEMPLATES[dname], strong, DEFENDER)
    anames = _army(ATTACKER_TEMPLATES[aname], False, ATTACKER)
    _deploy_defender(dep, lay, dnames, rng)
    _deploy_attacker(dep, anames, rng)
    reserve = [ElementSpec(side, NAMES[n], None, 0 if side == DEFENDER else 2)
               for side, ns in ((DEFENDER, dnames), (ATTACKER, anames)) for n in ns if NAMES[n] in RESERVE_ONLY]
    elements = tuple(sorted(dep.placed + reserve, key=lambda e: e.side))
    article = "an" if aname[0] in "aeiou" else "a"
    title = f"Generated map {seed}: {dname} defence against {article} {aname} attack"
    return Scenario(name or f"random:{seed}", title, _rows(lay), elements, turn_limit)


def _templates(rng: np.random.Generator) -> tuple[str, str]:
    """Step 2: each side's template, drawn uniformly (the generator's first two draws)."""
    return str(_draw(rng, sorted(DEFENDER_TEMPLATES))), str(_draw(rng, sorted(ATTACKER_TEMPLATES)))


def templates_of(seed: int) -> tuple[str, str]:
    """The (defender, attacker) templates of generator seed ``seed``."""
    return _templates(np.random.default_rng(seed))


def resolve_random(name: str, rng: np.random.Generator | None = None) -> Scenario | None:
    """``random``, ``random:train``, ``random:test`` (a seed drawn from ``rng``, else fresh entropy) and
    ``random:SEED``, ``random:train:SEED``, ``random:test:SEED`` (the split forces the seed's parity);
    ``None`` if ``name`` is none of these. The scenario's name records its generator seed."""
    parts = name.split(":")
    if parts[0] != "random" or len(parts) > 3:
        return None
    split_name = "random" if len(parts) == 1 or parts[1].isdigit() else f"random:{parts[1]}"
    if split_name not in SPLITS:
        return None
    tail = parts[-1] if parts[-1].isdigit() else None
    if len(parts) == 3 and tail is None:
        return None
    if tail is None:
        seed = int((rng or np.random.default_rng()).integers(0, 2 ** 63 - 1))
    else:
        seed = int(tail)
    seed = split_seed(seed, SPLITS[split_name])
    prefix = "random" if SPLITS[split_name] is None else split_name
    return generate_scenario(seed, name=f"{prefix}:{seed}")


__all__ = ["ATTACKER_TEMPLATES", "DEFENDER_TEMPLATES", "SPLITS", "bunker_cells", "edge_centre_gap",
           "generate_scenario", "high_allowed", "quarter", "resolve_random", "split_seed", "templates_of"]
