"""Balance of the generated Tank Attack scenarios (``envs/tankattack/generator.py``) over generator seeds.

    python -m cardwar.cli.tankattack_balance --seeds 0-39,5000-5039 --games 2 --agents random
    python -m cardwar.cli.tankattack_balance --seeds 0-39 --agents advance
    python -m cardwar.cli.tankattack_balance --seeds 0-39,5000-5039,90000-90039 --games 2 --agents heuristic

For each map ``generate_scenario(seed)`` it plays ``--games`` games (game seeds ``1000 * map seed + g``) between
two scripted agents and gives the **defender's score** ((wins + draws / 2) / games) per seed range and pooled,
with 95% intervals **clustered by map** (hexwar's ``clustered_interval``: a map's games share terrain and
armies, so the map is the unit), the ways the games ended, and the score by each side's army template
(RULES.md 20.1 step 2).

Agents (no search, no learning; see ``docs/tankattack-balance.md`` for what their figures can and cannot say):

* ``random``: both seats pick uniformly among the legal actions.
* ``advance``: the attacker moves an element whenever it can, each to the destination nearest the Bunker,
  and always shoots and shoots back; the defender never moves (it holds the trenches) and always shoots and
  shoots back; every other decision (targets, aids, combats, recoils, facings) uniformly at random.
* ``heuristic``: ``TankHeuristic`` (``cardwar.agents.tankattack_heuristic``) in both seats, each deciding
  from its own seat's view with its own seed (``[map seed, game, seat]``), never the game's dice.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from cardwar.cli.hexwar_balance import clustered_interval
from cardwar.envs.tankattack import ATTACKER, DEFENDER, END, FACE, YES, TankState
from cardwar.envs.tankattack.board import NUM_CELLS, gap
from cardwar.envs.tankattack.generator import generate_scenario, templates_of
from cardwar.envs.tankattack.state import Stage

AGENTS = ("random", "advance", "heuristic")


def advance_action(s: TankState, rng: np.random.Generator) -> int:
    """The ``advance`` pair's choice (module docstring)."""
    legal = s.legal_actions()
    st, me = s.stage, s.current_player
    cells = [a for a in legal if a < NUM_CELLS]
    if st is Stage.MOVES:
        if me == DEFENDER or not cells:
            return END
        return int(rng.choice(cells))
    if st is Stage.MOVE_DEST and me == ATTACKER and cells:
        k = s.board.bunker
        best = min(gap(a, k) for a in cells)
        return int(rng.choice([a for a in cells if gap(a, k) == best]))
    if st is Stage.MOVE_FACE and me == ATTACKER and FACE + 2 in legal:
        return FACE + 2
    if st is Stage.SHOOT_RETURN:
        return YES
    return int(rng.choice(legal))


def play(seed: int, game: int, agent: str, times: list[float] | None = None) -> tuple[float, str]:
    """One game on map ``seed``: the defender's score and how it ended (each ``heuristic`` decision's seconds
    appended to ``times`` when given)."""
    s = TankState.new_game(generate_scenario(seed), seed=1000 * seed + game)
    rng = np.random.default_rng([seed, game])
    bots = {}
    if agent == "heuristic":
        from cardwar.agents.tankattack_heuristic import TankHeuristic

        bots = {side: TankHeuristic(seed=int(np.random.default_rng([seed, game, side]).integers(2**31)))
                for side in (ATTACKER, DEFENDER)}
    while not s.is_terminal():
        if bots:
            p = s.current_player
            t0 = time.perf_counter()
            a = bots[p].act({"action_mask": s.legal_action_mask()}, s.information_view(p))
            if times is not None:
                times.append(time.perf_counter() - t0)
        else:
            a = advance_action(s, rng) if agent == "advance" else int(rng.choice(s.legal_actions()))
        s.apply_action(a)
    score = 0.5 if s.winner is None else (1.0 if s.winner == DEFENDER else 0.0)
    return score, str(s.result["reason"])


def one_map(args: tuple[int, int, str]) -> tuple[int, float, list[str], list[float]]:
    seed, games, agent = args
    times: list[float] = []
    results = [play(seed, g, agent, times) for g in range(games)]
    return seed, sum(r[0] for r in results) / games, [r[1] for r in results], times


def parse_ranges(text: str) -> list[range]:
    out = []
    for part in text.split(","):
        a, _, b = part.partition("-")
        if not a.isdigit() or (b and not b.isdigit()):
            raise ValueError(f"bad seed range {part!r}: write S-E (inclusive), e.g. 0-39")
        out.append(range(int(a), int(b or a) + 1))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m cardwar.cli.tankattack_balance", description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", default="0-39", help="generator seed ranges, e.g. 0-39,5000-5039")
    ap.add_argument("--games", type=int, default=2, help="games per map")
    ap.add_argument("--agents", choices=AGENTS, default="random")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    try:
        ranges = parse_ranges(args.seeds)
    except ValueError as exc:
        ap.error(str(exc))
    if args.games < 1 or args.workers < 1:
        ap.error("--games and --workers must be at least 1")
    jobs = [(s, args.games, args.agents) for r in ranges for s in r]
    if args.workers == 1:
        done = [one_map(j) for j in jobs]
    else:
        with ProcessPoolExecutor(args.workers) as pool:
            done = list(pool.map(one_map, jobs, chunksize=2))
    by_seed = {seed: (score, reasons) for seed, score, reasons, _ in done}
    times = np.array([x for *_, ts in done for x in ts]) * 1000
    rows = []
    print(f"agents: {args.agents}; {args.games} games a map; defender's score, 95% CI clustered by map")
    print("| seeds | maps | defender score | ends (reason: games) |")
    print("|---|---|---|---|")
    for label, seeds in [(f"{r.start}-{r.stop - 1}", list(r)) for r in ranges] + (
            [("pooled", [s for r in ranges for s in r])] if len(ranges) > 1 else []):
        per_map = [by_seed[s][0] for s in seeds]
        mean, lo, hi = clustered_interval(per_map)
        ends = Counter(x for s in seeds for x in by_seed[s][1])
        print(f"| {label} | {len(seeds)} | {mean:.3f} ({lo:.3f}-{hi:.3f}) | "
              f"{', '.join(f'{k}: {v}' for k, v in ends.most_common())} |")
        rows.append({"seeds": label, "maps": len(seeds), "defender": mean, "lo": lo, "hi": hi, "ends": dict(ends)})
    print("\nBy army template, all ranges pooled:")
    print("| side | template | maps | defender score |")
    print("|---|---|---|---|")
    seeds_all = [s for r in ranges for s in r]
    for side, idx in (("defender", 0), ("attacker", 1)):
        for name in sorted({templates_of(s)[idx] for s in seeds_all}):
            per_map = [by_seed[s][0] for s in seeds_all if templates_of(s)[idx] == name]
            mean, lo, hi = clustered_interval(per_map)
            print(f"| {side} | {name} | {len(per_map)} | {mean:.3f} ({lo:.3f}-{hi:.3f}) |")
            rows.append({"side": side, "template": name, "maps": len(per_map), "defender": mean, "lo": lo,
                         "hi": hi})
    if len(times):  # wall clock on this machine, whatever else it runs: a rough figure, not a test
        print(f"\nheuristic decisions: {len(times)}, median {np.median(times):.2f} ms, 90th percentile "
              f"{np.percentile(times, 90):.1f} ms, 99th {np.percentile(times, 99):.1f} ms, worst {times.max():.1f} ms")
    if args.json:
        print(json.dumps({"agents": args.agents, "games": args.games, "rows": rows}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
