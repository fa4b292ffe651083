"""Balance of the procedural hex scenarios over many generator seeds.

    python -m cardwar.cli.hexwar_balance --maps 500 --seed 0
    python -m cardwar.cli.hexwar_balance --seeds 0-499,7000-7299     # several ranges, pooled

For each map ``generate_scenario(seed)``, ``seed`` in ``S .. S+N-1``:

* **who reaches the objectives first**: for each objective, the side whose fastest
  unit needs strictly fewer activations to stand on it (movement rules on an empty
  map: allowances, slow terrain, rivers; ``cardwar.envs.hexwar.reach``), or the
  BFS hex distance from each side's nearest unit; a map counts for a side when that
  side reaches *every* objective first;
* **heuristic against heuristic**: ``--games`` games per map (different game seeds)
  between two ``heuristic`` agents, each seeing only its own side's view; the score
  of a side is (wins + draws / 2) / games.

Intervals are **clustered by map** (``clustered_interval``): a map's games share its
terrain, forces and objectives, and often end the same way, so they are not independent
draws; the map is the unit, and the interval is the mean of the per-map scores plus or
minus 1.96 standard errors of that mean. The table also counts the maps whose games all
had the same result.

Rows split the maps by kind: meeting engagements (nobody holds the objectives at the
start) and attack/defence (one side holds them and deploys around them). The table
is printed; ``--json`` prints the numbers as one JSON object after it.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from concurrent.futures import ProcessPoolExecutor
from collections.abc import Sequence
from dataclasses import dataclass, field

KINDS = ("meeting", "blue defends", "red defends")


@dataclass
class MapResult:
    """What one map gave."""

    seed: int
    kind: int
    """-1 meeting engagement, else the defending side."""
    hidden: bool
    first_moves: int
    first_hexes: int
    ties_moves: int
    objectives: int
    blue_score: float
    games: int
    defended: int = 0
    """Objectives a side holds at the start."""
    attacker_first: int = 0
    """... of which the other side reaches first (moves)."""
    far: int = 0
    """... of which the holder's nearest unit is 4 or more hexes away."""
    farthest: int = 0
    """The largest such distance (hexes)."""
    points: tuple[float, ...] = ()
    """Blue's result in each game (1 win, 0.5 draw, 0 loss)."""

    @property
    def attacker_score(self) -> float:
        """The attacking side's score on an attack map (the defender is ``kind``)."""
        return 1 - self.blue_score if self.kind == 0 else self.blue_score

    @property
    def one_result(self) -> bool:
        """All of this map's games (two or more) ended the same way."""
        return len(self.points) > 1 and len(set(self.points)) == 1


@dataclass
class Row:
    """Totals over maps of one kind."""

    maps: int = 0
    hidden: int = 0
    first: dict = field(default_factory=lambda: {"moves": [0, 0, 0], "hexes": [0, 0, 0]})
    """metric -> [blue first everywhere, red first everywhere, neither]."""
    objectives: int = 0
    tied_objectives: int = 0
    blue_points: float = 0.0
    games: int = 0
    scores: list = field(default_factory=list)
    """Blue's score on each map with games (the unit of the clustered interval)."""
    attacker: list = field(default_factory=list)
    """The attacker's score on each attack map with games."""
    one_result: int = 0
    """Maps whose games all ended the same way."""

    def add(self, r: MapResult) -> None:
        self.maps += 1
        self.hidden += r.hidden
        self.first["moves"][r.first_moves if r.first_moves >= 0 else 2] += 1
        self.first["hexes"][r.first_hexes if r.first_hexes >= 0 else 2] += 1
        self.objectives += r.objectives
        self.tied_objectives += r.ties_moves
        self.blue_points += r.blue_score * r.games
        self.games += r.games
        if r.games:
            self.scores.append(r.blue_score)
            if r.kind >= 0:
                self.attacker.append(r.attacker_score)
        self.one_result += r.one_result

    @property
    def blue_score(self) -> float:
        return self.blue_points / self.games if self.games else float("nan")


def wilson(p: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson interval of a rate ``p`` over ``n`` games."""
    if n == 0:
        return 0.0, 1.0
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def clustered_interval(per_map: Sequence[float], z: float = 1.96) -> tuple[float, float, float]:
    """Mean of per-map scores and its 95% interval clustered by map: mean +- z * s / sqrt(maps), ``s``
    the sample standard deviation of the per-map scores (clipped to 0..1). A map's games are not
    independent of each other (same terrain, forces and objectives), so the map, not the game, is the
    unit; with equal games per map the mean is the overall score. (nan, 0, 1) for no map, (x, 0, 1)
    for one."""
    m = len(per_map)
    if m == 0:
        return float("nan"), 0.0, 1.0
    mean = sum(per_map) / m
    if m == 1:
        return mean, 0.0, 1.0
    var = sum((x - mean) ** 2 for x in per_map) / (m - 1)
    half = z * math.sqrt(var / m)
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def defender_of(sc) -> int:
    """The side holding objectives at the start (-1: a meeting engagement)."""
    held = {o.holder for o in sc.objectives} - {-1}
    return held.pop() if len(held) == 1 else -1


def analyse_map(args: tuple[int, int, dict]) -> MapResult:
    """Reach-first analysis and ``games`` heuristic games on the map of generator seed ``seed``."""
    seed, games, rules = args
    from cardwar import agents
    from cardwar.envs import hexwar_v0
    from cardwar.envs.hexwar.generator import generate_scenario
    from cardwar.envs.hexwar.reach import first_everywhere, first_to_objectives, hexes_to_reach
    from cardwar.envs.hexwar.scenario import cell_of
    from cardwar.arena import play_agents

    sc = generate_scenario(seed)
    firsts = first_to_objectives(sc, "moves")
    held = [(o, cell_of(o.hex)) for o in sc.objectives if o.holder >= 0]
    near = {side: hexes_to_reach(sc, side) for side in {o.holder for o, _ in held}}
    gaps = [near[o.holder][c] for o, c in held]
    points: list[float] = []
    for g in range(games):
        env = hexwar_v0.raw_env(scenario=sc, rules=rules)
        game_seed = seed * 1000 + g
        ret = play_agents(env, agents.make("heuristic", "hexwar", seed=2 * game_seed + 1),
                          agents.make("heuristic", "hexwar", seed=2 * game_seed + 2), game_seed)
        points.append(1.0 if ret[0] > 0 else 0.5 if ret[0] == 0 else 0.0)
    return MapResult(seed, defender_of(sc), any(u.hidden for u in sc.units), first_everywhere(sc, "moves"),
                     first_everywhere(sc, "hexes"), sum(f == -1 for f in firsts), len(sc.objectives),
                     sum(points) / games if games else 0.0, games, len(held),
                     sum(firsts[i] == 1 - o.holder for i, o in enumerate(sc.objectives) if o.holder >= 0),
                     sum(g >= 4 for g in gaps), max(gaps, default=0), tuple(points))


def parse_seeds(text: str) -> list[int]:
    """``"0-499,7000-7299,42"`` -> the generator seeds of those inclusive ranges, in order."""
    seeds: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.strip().partition("-")
        first, last = int(lo), int(hi) if hi else int(lo)
        if last < first:
            raise ValueError(f"empty seed range {part!r}")
        seeds += range(first, last + 1)
    return seeds


def run(maps: int, seed: int, games: int, rules: dict, workers: int, progress: bool = True,
        seeds: Sequence[int] | None = None) -> list[MapResult]:
    """Analyse maps ``seed .. seed + maps - 1`` (or the generator seeds ``seeds``)."""
    from tqdm import tqdm

    seeds = range(seed, seed + maps) if seeds is None else seeds
    maps = len(seeds)
    jobs = [(s, games, rules) for s in seeds]
    with tqdm(total=maps, unit="map", disable=not progress, desc="hexwar balance") as bar:
        if workers > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                out = []
                for r in pool.map(analyse_map, jobs, chunksize=max(1, maps // (workers * 8))):
                    out.append(r)
                    bar.update()
                return out
        out = []
        for job in jobs:
            out.append(analyse_map(job))
            bar.update()
        return out


def totals(results: list[MapResult]) -> dict[str, Row]:
    rows = {k: Row() for k in (*KINDS, "all maps")}
    for r in results:
        rows[KINDS[r.kind + 1]].add(r)
        rows["all maps"].add(r)
    return rows


def _ci(per_map: Sequence[float]) -> str:
    mean, lo, hi = clustered_interval(per_map)
    return f"{mean:.3f} ({lo:.3f}-{hi:.3f})"


def table(results: list[MapResult], games: int, rules: dict) -> str:
    """The figures as a Markdown table (intervals clustered by map)."""
    rows = totals(results)
    head = ("| maps | n | with hidden units | blue first everywhere (moves / hexes) | red first everywhere "
            "(moves / hexes) | objectives tied (moves) | blue score (95% CI by map) | red score | "
            "attacker score (95% CI by map) | maps whose games all ended alike |")
    lines = [head, "|" + "---|" * 10]
    for name, row in rows.items():
        if not row.maps:
            continue
        m, h = row.first["moves"], row.first["hexes"]
        if not row.games:
            lines.append(f"| {name} | {row.maps} | {row.hidden} | {m[0]} / {h[0]} | {m[1]} / {h[1]} | "
                         f"{row.tied_objectives} of {row.objectives} | - | - | - | - |")
            continue
        attacker = ""
        if name in ("blue defends", "red defends"):
            attacker = f"{'red' if name == 'blue defends' else 'blue'} {_ci(row.attacker)}"
        lines.append(f"| {name} | {row.maps} | {row.hidden} | {m[0]} / {h[0]} | {m[1]} / {h[1]} | "
                     f"{row.tied_objectives} of {row.objectives} | {_ci(row.scores)} | {1 - row.blue_score:.3f} | "
                     f"{attacker} | {row.one_result} of {len(row.scores)} |")
    attack = [r for r in results if r.kind >= 0 and r.games]
    if attack:
        per_map = [r.attacker_score for r in attack]
        mean = clustered_interval(per_map)[0]
        lines.append(f"| attack/defence, by role | {len(attack)} | | | | | | | attacker {_ci(per_map)}, "
                     f"defender {1 - mean:.3f} | {sum(r.one_result for r in attack)} of {len(attack)} |")
    lines.append("")
    defended = sum(r.defended for r in results)
    lines.append(f"Objectives a side holds at the start: {defended}; the other side reaches "
                 f"{sum(r.attacker_first for r in results)} of them first (moves); the holder's nearest unit is "
                 f"4 or more hexes from {sum(r.far for r in results)} (farthest "
                 f"{max((r.farthest for r in results), default=0)}).")
    lines.append(f"{len(results)} maps, {games} heuristic-vs-heuristic game(s) each, rules {json.dumps(rules)}; "
                 "intervals: mean of per-map scores +- 1.96 standard errors, clustered by map.")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardwar.cli.hexwar_balance", description=__doc__.split("\n\n")[0])
    p.add_argument("--maps", type=int, default=200, help="how many generator seeds (default 200)")
    p.add_argument("--seed", type=int, default=0, help="first generator seed (default 0)")
    p.add_argument("--seeds", help="generator seed ranges instead of --maps/--seed, pooled: 0-499,7000-7299")
    p.add_argument("--games", type=int, default=2, help="heuristic games per map (default 2; 0: reach only)")
    p.add_argument("--hidden-units", action="store_true", help="play with the hidden_units rule option on")
    p.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    p.add_argument("--json", action="store_true", help="also print the totals as one JSON line")
    a = p.parse_args(argv)
    if a.maps < 1 or a.games < 0 or a.workers < 1:
        p.error("--maps and --workers must be at least 1, --games at least 0")
    try:
        seeds = parse_seeds(a.seeds) if a.seeds else None
    except ValueError as err:
        p.error(f"--seeds: {err}")
    rules = {"hidden_units": True} if a.hidden_units else {}
    results = run(a.maps, a.seed, a.games, rules, a.workers, seeds=seeds)
    print(table(results, a.games, rules))
    if a.json:
        print(json.dumps({name: {"maps": r.maps, "hidden": r.hidden, "first": r.first, "blue_score": r.blue_score,
                                 "blue_ci": clustered_interval(r.scores)[1:], "games": r.games,
                                 "attacker": clustered_interval(r.attacker) if r.attacker else None,
                                 "one_result": r.one_result}
                          for name, r in totals(results).items()}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
