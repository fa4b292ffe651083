"""The procedural generator does not give hidden units away (RULES.md 8.1 and 9.1).

A guessing attack: a seat that sees only what the rules let it see at the start of a game
(its information view: the map, the objectives, its own units and the enemy's visible ones,
and how many enemy units are hidden) names one hex per map where it expects a hidden enemy
unit, by the simple rules an attacker would try ("next to the first objective", "next to an
objective with no visible defender", ...). Over 600 generated maps its hits must be no more
than a chance guesser's: one that picks uniformly among the hiding places RULES.md 9.1 names,
which this file computes again from the rules text and the view alone. A guesser that
beats chance by more than three standard deviations fails the test. The same attack on a
deliberately leaky variant of the maps (a hidden foot infantry moved next to the first
objective: the earlier generator's rule) is shown to fail, so the test can bite.
"""

from __future__ import annotations

import dataclasses
import math
from collections import deque
from collections.abc import Callable, Iterable

import numpy as np
import pytest

from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.hexgrid import Hex, distance, from_offset, label, neighbours, to_offset
from cardwar.envs.hexwar.scenario import Scenario, cell_of, hex_of
from cardwar.envs.hexwar.state import HexState
from cardwar.envs.hexwar.terrain import COVER, IMPASSABLE, stack_limit
from cardwar.envs.hexwar.units import STATS, UnitType
from cardwar.envs.hexwar.view import HexView
from tests.hexwar.test_scenarios import first_there, one_activation

HIDDEN = HexConfig(hidden_units=True)
SEEDS = range(600)
Z = 3.0
"""One-sided tolerance, in standard deviations of the chance guesser's hit count."""


@dataclasses.dataclass(frozen=True)
class Case:
    """One seat at the start of a game facing hidden enemy units."""

    view: HexView
    """All the guesser may use."""
    secret: tuple[tuple[Hex, UnitType], ...]
    """The enemy's hidden units (hex, type): for scoring only."""


def cases(scenarios: Iterable[Scenario]) -> list[Case]:
    """Each seat of each scenario that has hidden enemy units, with its view at the start."""
    out = []
    for sc in scenarios:
        s = HexState.new_game(sc, HIDDEN, seed=0)
        for side in (0, 1):
            secret = tuple((hex_of(s.cell[u]), s.utype[u]) for u in range(len(s.cell))
                           if s.side[u] != side and s.hidden[u])
            if secret:
                out.append(Case(s.information_view(side), secret))
    return out


# ------------------------------------------------------------------ public facts, from the view alone
def enemy_of(v: HexView) -> int:
    return 1 - v.side


def n_hidden(v: HexView) -> int:
    """How many enemy units are hidden: their cards are face up (RULES 8.1)."""
    return sum(1 for side, _, _ in v.hidden_cards if side == enemy_of(v))


def passable(m: Scenario, h: Hex) -> bool:
    col, row = to_offset(h)
    return 0 <= col < m.width and 0 <= row < m.height and m.terrain[cell_of(h)] not in IMPASSABLE


def edge_rows(m: Scenario, side: int) -> tuple[int, int]:
    return (0, 1) if side == 0 else (m.height - 2, m.height - 1)


def bfs(m: Scenario, starts: Iterable[Hex]) -> dict[Hex, int]:
    """Hex distance over passable hexes from the nearest of ``starts``."""
    dist = {h: 0 for h in starts if passable(m, h)}
    queue = deque(dist)
    while queue:
        h = queue.popleft()
        for n in neighbours(h):
            if n not in dist and passable(m, n):
                dist[n] = dist[h] + 1
                queue.append(n)
    return dist


def rows_of(m: Scenario, rr: Iterable[int]) -> list[Hex]:
    return [from_offset(c, r) for r in rr for c in range(m.width)]


def both_zones(m: Scenario) -> set[Hex]:
    return set(bfs(m, rows_of(m, edge_rows(m, 0)))) & set(bfs(m, rows_of(m, edge_rows(m, 1))))


def activation_counts(m: Scenario, start: Hex, move: int, memo: dict | None = None) -> dict[Hex, int]:
    """Activations a unit with allowance ``move`` needs from ``start`` to every hex it can reach on the
    empty map (test_scenarios' one-activation step, from the movement rules; ``memo`` caches steps)."""
    memo = {} if memo is None else memo

    def step(h: Hex) -> set[Hex]:
        if (h, move) not in memo:
            memo[h, move] = one_activation(m, h, move)
        return memo[h, move]

    dist, frontier, k = {start: 0}, {start}, 0
    while frontier:
        k += 1
        frontier = {n for h in frontier for n in step(h)} - dist.keys()
        dist.update(dict.fromkeys(frontier, k))
    return dist


def enemy_area(v: HexView) -> list[Hex]:
    """Where RULES 9.1 lets the enemy's hidden units start, from public facts only."""
    m, enemy = v.map, enemy_of(v)
    both = both_zones(m)
    objectives = [o.hex for o in m.objectives]
    if all(o.holder == enemy for o in m.objectives):
        # The defender's ground: within 2 hexes of an objective (3 if those hexes hold fewer than 9
        # units), at least 3 hexes from the attacker's edge rows.
        attacker_rows = rows_of(m, edge_rows(m, v.side))
        for radius in (2, 3):
            cells = [h for h in both if min(distance(h, o) for o in objectives) <= radius
                     and min(distance(h, a) for a in attacker_rows) >= 3]
            if sum(stack_limit(m.terrain[cell_of(h)]) for h in cells) >= 9:
                return cells
        return list(set(cells) | {h for h in both if to_offset(h)[1] in edge_rows(m, enemy)})
    # A meeting engagement: the enemy's edge rows, where a foot unit or gun (1 hex an activation)
    # arrives at no objective sooner than the enemy's fastest visible unit.
    visible = [(u.cell, STATS[u.type].move) for u in v.units if u.side == enemy and u.cell >= 0]
    memo: dict = {}
    counts = [activation_counts(m, hex_of(c), mv, memo) for c, mv in visible]
    fastest = {o: min(d.get(o, 10**6) for d in counts) for o in objectives}
    foot = {o: bfs(m, [o]) for o in objectives}
    return [h for h in rows_of(m, edge_rows(m, enemy)) if h in both
            and all(foot[o].get(h, 10**6) >= fastest[o] for o in objectives)]


_PLACES: dict[int, tuple[HexView, list[Hex]]] = {}


def hiding_places(v: HexView) -> list[Hex]:
    """RULES 9.1: the hexes of the area that hold no unit; only those in cover when there are at least
    twice as many of them as hidden units (memoised per view)."""
    hit = _PLACES.get(id(v))
    if hit is None or hit[0] is not v:
        hit = _PLACES[id(v)] = (v, _hiding_places(v))
    return hit[1]


def _hiding_places(v: HexView) -> list[Hex]:
    taken = {hex_of(u.cell) for u in v.units if u.cell >= 0}
    empty = [h for h in enemy_area(v) if h not in taken]
    cover = [h for h in empty if v.map.terrain[cell_of(h)] in COVER]
    return sorted(cover if len(cover) >= 2 * n_hidden(v) else empty, key=to_offset)


# ------------------------------------------------------------------ guessers: one hex each, from the view
Guesser = Callable[[HexView], "Hex | None"]


def _best_near(v: HexView, centre: Hex, radius: int = 1) -> Hex | None:
    """An empty passable hex within ``radius`` of ``centre``: cover first, then nearest, then by label."""
    taken = {hex_of(u.cell) for u in v.units if u.cell >= 0}
    near = [from_offset(c, r) for r in range(v.map.height) for c in range(v.map.width)
            if distance(from_offset(c, r), centre) <= radius]
    near = [h for h in near if passable(v.map, h) and h not in taken]
    near.sort(key=lambda h: (v.map.terrain[cell_of(h)] not in COVER, distance(h, centre), to_offset(h)))
    return near[0] if near else None


def next_to_first_objective(v: HexView) -> Hex | None:
    """The old generator's rule: a hidden unit guards the first objective."""
    return _best_near(v, v.map.objectives[0].hex)


def next_to_unguarded_objective(v: HexView) -> Hex | None:
    """An objective with no visible enemy within 1 hex must have a hidden guard; else the first one."""
    enemy = [hex_of(u.cell) for u in v.units if u.side == enemy_of(v) and u.cell >= 0]
    bare = [o.hex for o in v.map.objectives if all(distance(o.hex, e) > 1 for e in enemy)]
    return _best_near(v, (bare or [v.map.objectives[0].hex])[0])


def place_nearest_objective(v: HexView) -> Hex | None:
    """The hiding place nearest an objective (hidden units may be posted close to what they hold)."""
    places = hiding_places(v)
    objectives = [o.hex for o in v.map.objectives]
    return min(places, key=lambda h: (min(distance(h, o) for o in objectives), to_offset(h)), default=None)


def place_farthest_from_own(v: HexView) -> Hex | None:
    """The hiding place farthest from the seat's own units (nobody hides under the enemy's nose)."""
    mine = [hex_of(u.cell) for u in v.units if u.side == v.side and u.cell >= 0]
    return max(hiding_places(v), key=lambda h: (min(distance(h, m) for m in mine), to_offset(h)), default=None)


GUESSERS: dict[str, Guesser] = {
    "next to the first objective": next_to_first_objective,
    "next to an objective with no visible defender": next_to_unguarded_objective,
    "hiding place nearest an objective": place_nearest_objective,
    "hiding place farthest from own units": place_farthest_from_own,
}


# ------------------------------------------------------------------ scoring
@dataclasses.dataclass
class Score:
    """Hits of a guesser against the chance guesser's expected hits and their variance."""

    cases: int = 0
    hits: int = 0
    chance: float = 0.0
    variance: float = 0.0

    @property
    def excess(self) -> float:
        """Hits above chance, in standard deviations."""
        return (self.hits - self.chance) / math.sqrt(self.variance) if self.variance else 0.0

    def __str__(self) -> str:
        return (f"{self.hits} hits in {self.cases} guesses ({self.hits / self.cases:.3f}), chance "
                f"{self.chance:.1f} ({self.chance / self.cases:.3f}), {self.excess:+.1f} sd")


def hex_score(all_cases: list[Case], guess: Guesser) -> Score:
    """A hit: a hidden enemy unit stands on the guessed hex. Chance: a guess drawn uniformly among the
    hiding places hits with probability (hidden units among them) / (number of places)."""
    s = Score()
    for case in all_cases:
        places = hiding_places(case.view)
        p = sum(1 for h, _ in case.secret if h in places) / len(places) if places else 0.0
        g = guess(case.view)
        s.cases += 1
        s.hits += any(h == g for h, _ in case.secret)
        s.chance += p
        s.variance += p * (1 - p)
    return s


def type_score(all_cases: list[Case]) -> Score:
    """Guess "foot infantry" for the hidden unit nearest the first objective (the old generator's
    guard). Chance: the share of foot infantry among that map's hidden units (the base rate)."""
    s = Score()
    for case in all_cases:
        first = case.view.map.objectives[0].hex
        d = min(distance(h, first) for h, _ in case.secret)
        nearest = [t for h, t in case.secret if distance(h, first) == d]
        p = sum(t == UnitType.FOOT for _, t in case.secret) / len(case.secret)
        s.cases += 1
        s.hits += sum(t == UnitType.FOOT for t in nearest) / len(nearest)  # ties: the expected hit
        s.chance += p
        s.variance += p * (1 - p)
    return s


def leaky(sc: Scenario, seed: int) -> Scenario:
    """The map with a hidden defending foot infantry moved by the old generator's rule: to a random
    empty hex on or next to the first objective, in cover when one is free. For showing that the
    attack catches such a rule."""
    rng = np.random.default_rng(seed)
    objective = sc.objectives[0]
    units = list(sc.units)
    hidden = [k for k, u in enumerate(units) if u.hidden and u.side == objective.holder and u.type == UnitType.FOOT]
    taken = {u.hex for u in units}
    free = [h for h in [objective.hex, *neighbours(objective.hex)] if passable(sc, h) and h not in taken]
    free = [h for h in free if sc.terrain[cell_of(h)] in COVER] or free
    if objective.holder < 0 or not hidden or not free:
        return sc
    units[hidden[0]] = dataclasses.replace(units[hidden[0]], hex=free[int(rng.integers(len(free)))])
    return dataclasses.replace(sc, units=tuple(units))


# ------------------------------------------------------------------ tests
@pytest.fixture(scope="module")
def generated() -> list[Scenario]:
    return [generate_scenario(seed) for seed in SEEDS]


@pytest.fixture(scope="module")
def seats(generated) -> list[Case]:
    return cases(generated)


def test_hidden_units_start_in_the_hiding_places_the_rules_name(seats):
    """Every hidden unit stands in one of the hiding places computed from the view alone, one to a
    hex, and there are at least twice as many places as hidden units (a defender may be left with
    fewer when it has a single hidden unit)."""
    assert len(seats) >= 200
    for case in seats:
        places = hiding_places(case.view)
        hexes = [h for h, _ in case.secret]
        assert len(set(hexes)) == len(hexes)
        assert all(h in places for h in hexes), (case.view.side, [label(h) for h in hexes],
                                                 [label(h) for h in places])
        assert len(places) >= 2 * len(hexes) or len(hexes) == 1


@pytest.mark.parametrize("name", GUESSERS)
def test_guessing_hidden_hexes_does_no_better_than_chance(seats, name):
    score = hex_score(seats, GUESSERS[name])
    assert score.excess <= Z, f"{name}: {score}"


def test_guessing_hidden_types_does_no_better_than_the_base_rate(seats):
    score = type_score(seats)
    assert score.excess <= Z, str(score)


def test_the_attack_catches_a_generator_that_posts_a_hidden_guard(generated):
    """The same guessers and tolerance, on maps where a hidden defender stands next to the first
    objective, do much better than chance: the test above can fail."""
    tampered = cases(leaky(sc, seed) for seed, sc in zip(SEEDS, generated) if sc.objectives[0].holder >= 0)
    assert hex_score(tampered, next_to_first_objective).excess > 2 * Z
    assert type_score(tampered).excess > Z


def test_meeting_objectives_do_not_look_at_hidden_units(generated):
    """In a meeting engagement the objectives are placed from the visible units alone: who arrives
    first at each objective (counted from the movement rules) is the same with the hidden units
    removed, and even then no side arrives first everywhere."""
    meetings = [sc for sc in generated if sc.objectives[0].holder < 0 and any(u.hidden for u in sc.units)]
    assert len(meetings) >= 30
    for sc in meetings[:60]:
        visible = dataclasses.replace(sc, units=tuple(u for u in sc.units if not u.hidden))
        firsts = first_there(visible)
        assert firsts == first_there(sc), sc.name
        assert not all(f == 0 for f in firsts) and not all(f == 1 for f in firsts), (sc.name, firsts)
