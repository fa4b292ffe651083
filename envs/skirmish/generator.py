"""Procedural skirmish scenarios, fair by construction (see ``SCENARIOS.md``, "The generator").

``generate(seed, size=..., deal=d)`` draws the **public map** (ground, edges, objectives; what
:func:`public_map.public_map` shows) from ``numpy.random.default_rng(seed)`` and the **forces** (each figure's
starting hex, quality, skills, grenades and stance) from the deal: each side's from its own stream,
``numpy.random.SeedSequence(d).spawn(2)[side]``. So a seed always gives the same map, the same map dealt twice
deploys different forces (the map's seed says nothing about them), and neither side's forces say anything about
the other's. The envs' ``random`` scenarios draw the seed (63 bits, even for ``random:train``, odd for
``random:test``) and the deal separately from the game's deal seed (``envs/turn_based_env.py``); the scenario
keeps its deal (``Scenario.deal``) so that a record rebuilds it. ``generate(seed, size=...)`` without a deal
draws side 0's forces from the seed's stream after the map and gives side 1 their mirror image, exactly as
before the deal (old records replay as played; tests; the old balance table). That form tells each side the
enemy's forces; the envs' ``random`` scenarios never use it.

**The symmetry.** The map is a ``w x h`` rectangle at the top left of the 24 x 16 odd-r grid (the rest
off-map, as in a scenario file) with ``h`` even. The mirror (:meth:`Geometry.mirror`) sends hex
``(col, row)`` to ``(w - 1 - col, h - 1 - row)``.
In the plane a hex's centre is ``x = col + (row odd) / 2, y = row``; with ``h`` even, ``row`` and
``h - 1 - row`` have opposite parity, so ``x' = w - 1 - col + (row even) / 2 = (w - 1/2) - x`` and
``y' = (h - 1) - y``: the mirror is the point reflection through ``((w - 1/2) / 2, (h - 1) / 2)``. A point
reflection is an isometry that sends the lattice of hex centres onto itself, so it maps neighbours to
neighbours (direction ``d`` to ``d + 3``), distances to distances and straight lines to straight lines: an
automorphism of the board. (With ``h`` odd it is not: odd rows would lose a column.) It has no fixed hex
(the centre lies between rows ``h/2 - 1`` and ``h/2``), and it is an involution.

**Construction.** Every ground, edge and objective is placed together with its mirror image (objectives in
mirror pairs of equal points), and side 1's deployment zone is the mirror of side 0's. The forces are fair in
distribution, not copies: both sides have the size's roster (the same number of figures, figure ``i`` with the
same weapon, team and role on both sides: public, RULES.md §10.1), and each side's starting hexes (distinct, in
its own zone, every choice equally likely) and each figure's quality, skills (drawn by RULES.md §2.1), grenades
and stance are drawn by the same procedure from that side's own stream of the deal. Had side 1 been side 0's
mirror image, as before, a seat would have known the enemy's starting hexes and skills from its own, which
RULES.md §9.2 hides. So whatever one side may be dealt, the other may be dealt the same way from the mirror
position, with the same odds; only who moves first, the cards and the deal differ.

Validity (every ground and edge kind present on medium and large maps, every building and bunker with a
way in, every on-map hex reachable on foot from both deployment zones) is checked, and a map that fails is
redrawn from the same generator. The result is built by :func:`scenario.scenario_from_dict`, so it passes
the same validation as a shipped file.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable

import numpy as np

from cardwar.envs.skirmish.cards import Quality, draw_core_skills
from cardwar.envs.skirmish.scenario import (
    EDGE_KINDS, GROUND_CHARS, HEIGHT, OFF, WIDTH, Scenario, ScenarioError, edge_key, grid_neighbours, label,
    reachable, scenario_from_dict, step,
)

SIZES: dict[str, dict] = {
    # map w x h (h even), figures a side, teams, turn limit, objective pairs, buildings a side
    "small": {"w": 12, "h": 8, "figures": 3, "teams": 1, "turns": 6, "pairs": 1, "buildings": 1, "bunker": False,
              "blobs": 3, "runs": 2},
    "medium": {"w": 18, "h": 12, "figures": 6, "teams": 2, "turns": 8, "pairs": 1, "buildings": 2, "bunker": True,
               "blobs": 5, "runs": 4},
    "large": {"w": 24, "h": 16, "figures": 8, "teams": 2, "turns": 10, "pairs": 2, "buildings": 3, "bunker": True,
              "blobs": 8, "runs": 6},
}
SIDE_NAMES = ("West", "East")
ZONE_COLS = 3
"""Deployment: side 0 in the map's three west columns, side 1 in the three east ones (their mirror)."""
MAX_ATTEMPTS = 200
QUALITY_WEIGHTS = ((Quality.POOR, 1), (Quality.REGULAR, 4), (Quality.VETERAN, 2), (Quality.ELITE, 1))
OUTDOOR_GROUNDS = ",Wro"
EDGE_OBSTACLES = ("wall_low", "wall_high", "hedge_low", "hedge_high")
ALL_GROUNDS = GROUND_CHARS.replace(OFF, "")


class Geometry:
    """The map rectangle of one size, at the grid's top left (as a scenario file's map), and its mirror."""

    def __init__(self, w: int, h: int) -> None:
        if h % 2:
            raise ValueError("the mirror is a point reflection only when the map has an even number of rows")
        self.w, self.h = w, h
        self.cells = [self.cell(c, r) for r in range(h) for c in range(w)]
        self.on_map = set(self.cells)

    def cell(self, col: int, row: int) -> int:
        return row * WIDTH + col

    def local(self, cell: int) -> tuple[int, int]:
        row, col = divmod(cell, WIDTH)
        return col, row

    def mirror(self, cell: int) -> int:
        col, row = self.local(cell)
        return self.cell(self.w - 1 - col, self.h - 1 - row)

    def neighbours(self, cell: int) -> list[int]:
        return [n for n in grid_neighbours(cell) if n in self.on_map]


def mirror_function(scenario: Scenario) -> Callable[[int], int]:
    """The point reflection of a scenario's map (drawn at the grid's top left, with an even number of rows):
    a generated scenario's, or a shipped mirror-fair one's such as ``duel``."""
    return Geometry(scenario.width, scenario.height).mirror


def _weighted(rng: np.random.Generator, pairs) -> object:
    items, weights = zip(*pairs)
    p = np.array(weights, dtype=float)
    return items[int(rng.choice(len(items), p=p / p.sum()))]


class _Draft:
    """A map being drawn: ground by cell, edges by key, both always set with their mirror images."""

    def __init__(self, geo: Geometry) -> None:
        self.geo = geo
        self.ground = [OFF] * (WIDTH * HEIGHT)
        for c in geo.cells:
            self.ground[c] = "."
        self.edges: dict[tuple[int, int], str] = {}

    def set_ground(self, cell: int, ch: str) -> None:
        self.ground[cell] = ch
        self.ground[self.geo.mirror(cell)] = ch

    def edge_free(self, a: int, b: int) -> bool:
        m = self.geo.mirror
        return edge_key(a, b) not in self.edges and edge_key(m(a), m(b)) not in self.edges

    def set_edge(self, a: int, b: int, kind: str) -> None:
        m = self.geo.mirror
        self.edges[edge_key(a, b)] = kind
        self.edges[edge_key(m(a), m(b))] = kind

    def text(self) -> str:
        return "".join(self.ground)


def _in_zone(geo: Geometry, cell: int) -> bool:
    col, _ = geo.local(cell)
    return col < ZONE_COLS or col >= geo.w - ZONE_COLS


def _place_building(rng: np.random.Generator, d: _Draft, ch: str, size: int, west_half: bool) -> bool:
    """A building (``B``) of ``size`` hexes or a one-hex bunker (``K``) on clear ground away from the zones and
    other buildings, with a way in; and its mirror. False when no room was found."""
    geo = d.geo
    for _ in range(40):
        col = int(rng.integers(ZONE_COLS + 1, geo.w - ZONE_COLS - 1))
        if west_half and col >= geo.w // 2:
            col = geo.w - 1 - col
        row = int(rng.integers(1, geo.h - 1))
        start = geo.cell(col, row)
        cells = [start]
        while len(cells) < size:
            n = geo.neighbours(cells[int(rng.integers(len(cells)))])
            pick = n[int(rng.integers(len(n)))]
            if pick not in cells:
                cells.append(pick)
        mirrored = {geo.mirror(c) for c in cells}
        ring = {n for c in cells for n in geo.neighbours(c)} | set(cells)
        if mirrored & ring:
            continue  # the building would touch its own mirror image
        ring |= {geo.mirror(c) for c in ring}
        if any(_in_zone(geo, c) or d.ground[c] != "." for c in ring):
            continue
        if any(len(geo.neighbours(c)) < 6 for c in cells):
            continue
        for c in cells:
            d.set_ground(c, ch)
        outer = [(c, n) for c in cells for n in geo.neighbours(c) if n not in cells]
        order = [outer[i] for i in rng.permutation(len(outer))]
        if ch == "K":
            # one door (towards its own side's zone when it can), embrasures on two other faces
            order.sort(key=lambda e: geo.local(e[1])[0] if west_half else -geo.local(e[1])[0])
            d.set_edge(*order[0], "door_closed")
            for a, b in order[1:3]:
                d.set_edge(a, b, "embrasure")
        else:
            d.set_edge(*order[0], "door_closed" if rng.random() < 0.5 else "door_open")
            for a, b in order[1:1 + int(rng.integers(1, 4))]:
                d.set_edge(a, b, "window")
            inner = [(a, b) for i, a in enumerate(cells) for b in cells[i + 1:] if b in geo.neighbours(a)]
            if inner and rng.random() < 0.7:
                a, b = inner[int(rng.integers(len(inner)))]
                # an inner wall: the far room gets its own door so it has a way in
                d.set_edge(a, b, "building_wall" if rng.random() < 0.5 else "door_closed")
                if d.edges[edge_key(a, b)] == "building_wall":
                    for c in cells:
                        ways = [e for e in outer if e[0] == c and d.edges.get(edge_key(*e)) in
                                ("door_open", "door_closed", "window")]
                        if not ways:
                            free = [e for e in outer if e[0] == c and edge_key(*e) not in d.edges]
                            if free:
                                d.set_edge(*free[0], "door_open")
        return True
    return False


def _blob(rng: np.random.Generator, d: _Draft, ch: str, n: int) -> None:
    geo = d.geo
    cell = geo.cells[int(rng.integers(len(geo.cells)))]
    for _ in range(n):
        if d.ground[cell] == "." and d.ground[geo.mirror(cell)] == ".":
            d.set_ground(cell, ch)
        nb = geo.neighbours(cell)
        cell = nb[int(rng.integers(len(nb)))]


def _run(rng: np.random.Generator, d: _Draft, kind: str, length: int) -> int:
    """A line of ``kind`` edges along a row or a diagonal, with gaps; returns edges placed (with mirrors)."""
    geo = d.geo
    cell = geo.cells[int(rng.integers(len(geo.cells)))]
    along = int(rng.integers(6))
    side = (along + (1 if rng.random() < 0.5 else 2)) % 6
    placed = 0
    for _ in range(length):
        other = step(cell, side)
        if (other is not None and other in geo.on_map and rng.random() < 0.85
                and d.ground[cell] not in "BK" and d.ground[other] not in "BK"
                and d.edge_free(cell, other)):
            d.set_edge(cell, other, kind)
            placed += 1
        nxt = step(cell, along)
        if nxt is None or nxt not in geo.on_map:
            break
        cell = nxt
    return placed


def _draw_map(rng: np.random.Generator, size: str) -> tuple[_Draft, Geometry]:
    spec = SIZES[size]
    geo = Geometry(spec["w"], spec["h"])
    d = _Draft(geo)
    if spec["bunker"]:
        _place_building(rng, d, "K", 1, west_half=True)
    for _ in range(spec["buildings"]):
        _place_building(rng, d, "B", int(rng.integers(1, 4)), west_half=bool(rng.random() < 0.5))
    # every outdoor ground at least once, then random blobs
    scale = {"small": 3, "medium": 4, "large": 5}[size]
    for ch in OUTDOOR_GROUNDS:
        _blob(rng, d, ch, 1 if ch == "o" else scale)
    for _ in range(spec["blobs"]):
        ch = OUTDOOR_GROUNDS[int(rng.integers(len(OUTDOOR_GROUNDS)))]
        _blob(rng, d, ch, 1 if ch == "o" else int(rng.integers(2, scale + 2)))
    kinds = list(EDGE_OBSTACLES)
    rng.shuffle(kinds)
    kinds += [EDGE_OBSTACLES[int(rng.integers(4))] for _ in range(max(0, spec["runs"] - 4))]
    for kind in kinds:
        _run(rng, d, kind, int(rng.integers(3, max(4, spec["w"] // 3))))
    return d, geo


def _draw_side(rng: np.random.Generator, zone: list[int], n: int) -> list[dict]:
    """One side's hidden forces: ``n`` distinct starting hexes of its deployment ``zone`` and, for each figure,
    a quality, the core skills it draws (RULES.md §2.1), 0-2 grenades and a stance. (This order of draws is the
    one before the deal, which ``generate`` without a deal still follows.)"""
    cells = [zone[i] for i in rng.permutation(len(zone))[:n]]
    skill_rng = random.Random(int(rng.integers(2**32)))
    drawn = []
    for i in range(n):
        quality = _weighted(rng, QUALITY_WEIGHTS)
        drawn.append({
            "cell": cells[i], "quality": quality.name.lower(), "skills": draw_core_skills(quality, skill_rng),
            "grenades": int(rng.integers(0, 3)),
            "stance": ("standing", "kneeling", "prone")[int(rng.choice(3, p=[0.6, 0.3, 0.1]))],
        })
    return drawn


def _valid(d: _Draft, geo: Geometry, size: str) -> bool:
    spec = SIZES[size]
    ground = d.text()
    zone0 = [c for c in geo.cells if geo.local(c)[0] < ZONE_COLS and ground[c] not in "BK"]
    if len(zone0) < spec["figures"] + 2:
        return False
    if reachable(ground, d.edges, zone0[:1]) != {c for c in geo.cells}:
        return False
    if size != "small":
        if set(ALL_GROUNDS) - set(ground) or set(EDGE_KINDS) - set(d.edges.values()) - {"building_wall"}:
            return False
        if "building_wall" not in d.edges.values():
            return False
    return True


def generate(seed: int, *, size: str = "medium", deal: int | None = None) -> Scenario:
    """A procedural scenario, fair by construction (see the module's docstring), deterministic per seed and
    deal: ``seed`` makes the map and its objectives, ``deal`` each side's forces from its own stream (without
    one, ``seed`` makes side 0's and side 1 gets their mirror image, as before the deal)."""
    if size not in SIZES:
        raise ValueError(f"unknown size {size!r}; one of {', '.join(SIZES)}")
    spec = SIZES[size]
    rng = np.random.default_rng(seed)
    for _ in range(MAX_ATTEMPTS):
        d, geo = _draw_map(rng, size)
        if _valid(d, geo, size):
            break
    else:  # pragma: no cover - never seen in the tests' seeds
        raise RuntimeError(f"no valid {size} map for seed {seed} in {MAX_ATTEMPTS} attempts")
    ground = d.text()
    # objectives: mirror pairs in the middle third, buildings and cover first
    mid = [c for c in geo.cells if geo.w // 3 <= geo.local(c)[0] < geo.w - geo.w // 3]
    weights = np.array([4.0 if ground[c] in "BK" else 2.0 if ground[c] in ",Wo" else 1.0 for c in mid])
    objectives: dict[int, int] = {}
    while len(objectives) < 2 * spec["pairs"]:
        c = mid[int(rng.choice(len(mid), p=weights / weights.sum()))]
        if c in objectives or geo.mirror(c) in objectives:
            continue
        points = int(rng.integers(1, 3))
        objectives[c] = objectives[geo.mirror(c)] = points
    # forces: the public roster (names, weapons, teams, the sergeant) is the size's; the hidden part is drawn
    n = spec["figures"]
    weapons = ["smg2"] + (["lmg"] if n >= 5 else []) + (["smg1"] if n >= 7 else [])
    weapons += ["rifle"] * (n - len(weapons))
    teams = [f"Team {i + 1}" for i in range(spec["teams"])]
    zone0 = [c for c in geo.cells if geo.local(c)[0] < ZONE_COLS and ground[c] not in "BK"]
    zones = (zone0, [geo.mirror(c) for c in zone0])  # side 1's zone is the mirror of side 0's, hex for hex
    if deal is None:
        # before the deal (old records, tests): side 0 from the seed's stream after the map, side 1 its mirror
        drawn = _draw_side(rng, zones[0], n)
        hidden = (drawn, [{**f, "cell": geo.mirror(f["cell"])} for f in drawn])
    else:
        # each side from its own stream of the deal: neither side's draw says anything of the other's
        streams = np.random.SeedSequence(deal).spawn(len(SIDE_NAMES))
        hidden = tuple(_draw_side(np.random.default_rng(streams[si]), zones[si], n) for si in range(len(SIDE_NAMES)))
    sides: dict[str, dict] = {}
    for si, side in enumerate(SIDE_NAMES):
        figs = []
        for i, f in enumerate(hidden[si]):
            figs.append({"name": f"{side} {i + 1}", "team": teams[i * spec["teams"] // n], "quality": f["quality"],
                         "weapon": weapons[i], "hex": label(f["cell"]), "stance": f["stance"], "skills": f["skills"],
                         "grenades": f["grenades"], **({"role": "sergeant"} if i == 0 else {})})
        sides[side] = {"teams": teams, "figures": figs}
    rows = [ground[r * WIDTH:r * WIDTH + geo.w] for r in range(geo.h)]
    edges = [[label(a), label(b), k] for (a, b), k in sorted(d.edges.items())]
    obj_list = [{"hex": label(c), "points": p} for c, p in sorted(objectives.items())]
    obj_text = ", ".join(f"{o['hex']} ({o['points']})" for o in obj_list)
    total = sum(objectives.values())
    if deal is None:  # the text as it was (the forces are mirror images here)
        fair = ("a point reflection through its centre maps each side's ground, edges, objectives and figures onto "
                "the other's; mirrored figures have the same quality, weapons and skills")
    else:  # the same text for every deal: it is public
        fair = ("a point reflection through its centre maps each side's ground, edges, objectives and deployment "
                "zone onto the other's; the two sides' figures carry the same weapons, and each side's starting "
                "hexes, qualities, skills, grenades and stances are drawn for it alone, by the same odds")
    description = (
        f"Generated {size} skirmish (seed {seed}): {n} figures a side on a {geo.w} x {geo.h} map that is the same "
        f"seen from either side ({fair}). "
        f"Victory: objectives - {obj_text}, {total} points in "
        f"all; each is held by the side that last had an active figure on it, and at the end of the turn limit "
        f"the side holding more points wins (equal points: a draw). A side with no active figure left loses at "
        f"once. Turn limit: {spec['turns']} turns.")
    data = {
        "title": f"Generated skirmish {seed} ({size})", "description": description, "turns": spec["turns"],
        "map": "\n".join(rows), "edges": edges, "sides": sides,
        "victory": {"kind": "objectives", "objectives": obj_list},
    }
    try:
        scenario = scenario_from_dict(data, name=f"generated_{size}_{seed}", source=f"<generate({seed})>")
    except ScenarioError as err:  # pragma: no cover - a generator bug
        raise RuntimeError(f"generate({seed}, size={size!r}) built an invalid scenario: {err}") from None
    if deal is not None:
        object.__setattr__(scenario, "deal", int(deal))  # for records (codec.scenario_to_record); not an init field
    return scenario


# ------------------------------------------------------------------ balance
def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval of a proportion (``successes`` may be fractional: draws count half)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def balance(seeds: Iterable[int], play: Callable[[Scenario, int], int | None], *, size: str = "medium",
            mirrored: bool = False) -> dict:
    """Who wins the generated scenarios: ``play(scenario, seed) -> 0, 1 or None (draw)`` for each seed.

    Each seed's scenario is ``generate(seed, size=size, deal=seed)``: the forces dealt as the envs deal them,
    each side's drawn independently (the deal's per-side streams are not the map's stream, so ``deal=seed`` is
    as good as any). ``mirrored=True`` plays ``generate(seed, size=size)`` instead, side 1 side 0's mirror image
    as before the deal.

    Returns ``games``, ``wins`` (side 0, side 1), ``draws``, each side's win share and draw share with a 95%
    Wilson interval (``share``, ``interval``), and side 0's score (a win 1, a draw 1/2) with its interval. A
    fair generator has side 0's score interval around 0.5; a departure measures the move-order advantage."""
    wins = [0, 0]
    draws = games = 0
    for seed in seeds:
        winner = play(generate(seed, size=size) if mirrored else generate(seed, size=size, deal=seed), seed)
        if winner not in (0, 1, None):
            raise ValueError(f"play returned {winner!r} for seed {seed}; expected 0, 1 or None")
        games += 1
        if winner is None:
            draws += 1
        else:
            wins[winner] += 1
    score0 = wins[0] + draws / 2
    share = (lambda k: k / games if games else 0.0)
    return {
        "games": games, "wins": tuple(wins), "draws": draws,
        "side0": {"share": share(wins[0]), "interval": wilson(wins[0], games)},
        "side1": {"share": share(wins[1]), "interval": wilson(wins[1], games)},
        "draw": {"share": share(draws), "interval": wilson(draws, games)},
        "score0": {"share": share(score0), "interval": wilson(score0, games)},
    }
