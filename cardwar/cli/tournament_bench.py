"""Tournament bookkeeping cost: games/s of a tournament against ``cardwar match`` on the very same games.

``python -m cardwar.cli.tournament_bench [--game naval] [--pairs 40] [--rounds 3]`` plays the same
duplicate pairs (heuristic against heuristic:samples=8, one process) both ways, in interleaved
rounds so that machine noise hits both alike, and prints each figure and their ratio. The
tournament's extra work is the arena's clocks and records, and a SQLite transaction a pair.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from cardwar import games


def measure(game: str, pairs: int, seed: int) -> tuple[float, float]:
    """(match games/s, tournament games/s) for one round."""
    from cardwar.cli.match import run_match
    from cardwar.tournament.config import config_from_dict
    from cardwar.tournament.runner import run_tournament
    from cardwar.tournament.store import Store

    a, b = "heuristic", "heuristic:samples=8"
    t0 = time.perf_counter()
    res = run_match(game, a, b, 2 * pairs, seed=seed, progress=False)
    match_rate = res.games / (time.perf_counter() - t0)
    config = config_from_dict({"name": "bench", "game": game, "entrants": {"a": a, "b": b}, "pairs": pairs,
                               "seed": seed, "time": {"move_ms": 60_000}})
    with tempfile.TemporaryDirectory() as tmp, Store(Path(tmp) / "bench.sqlite") as store:
        t0 = time.perf_counter()
        run_tournament(config, store)
        tour_rate = len(store.games("bench")) / (time.perf_counter() - t0)
    return match_rate, tour_rate


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardwar.cli.tournament_bench", description=__doc__.splitlines()[0])
    p.add_argument("--game", choices=list(games.names()), default=games.names()[0],
                   help=f"the game the matches play (default {games.names()[0]}, the registry's first)")
    p.add_argument("--pairs", type=int, default=40)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    if args.pairs < 1 or args.rounds < 1:
        p.error("--pairs and --rounds must be at least 1")
    m, t = [], []
    for r in range(args.rounds):
        mr, tr = measure(args.game, args.pairs, seed=100 * r)
        m.append(mr)
        t.append(tr)
        print(f"round {r + 1}: match {mr:.2f} games/s, tournament {tr:.2f} games/s, ratio {tr / mr:.3f}")
    print(f"{args.game}: match {sum(m) / len(m):.2f} games/s, tournament {sum(t) / len(t):.2f} games/s, "
          f"tournament / match = {sum(t) / sum(m):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
