"""Per-move cost of the engine protocol: an agent served by ``cardwar engine`` vs the same agent in process.

    python -m cardwar.engine.bench                  # random and heuristic, 6 games of each game
    python -m cardwar.engine.bench --agent heuristic --games 20

For each game and agent, the same games are played twice from the same seeds, the
first seat once in process and once as ``engine:python -m cardwar engine --agent
SPEC`` (one process, started fresh for the run, for all its games, as a tournament
worker runs it); the moves must come out the same. Two figures per row:

- **latency**: the served seat's time a move as the arena's clock measures it (the
  message built, JSON, the pipes, the view rebuilt, the agent's move), over every
  game *including the first game of the fresh process*, as median, p99 and max, and
  the moves over 50 ms. A one-off stall (a lazy import, a table built on first use)
  shows in the max and in the first game's max, not in the median: that is what
  forfeits a game under ``--move-ms 100``.
- **overhead**: the difference from the in-process seat's time on the same move
  (median and mean), and the CPU both processes spent beyond the in-process games.

``random`` is in the default list because it does no set-up of its own: whatever the
server or the views build lazily is paid on a served random agent's clock.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
import statistics
import sys
import time
from typing import Any

from cardwar import agents
from cardwar import games as registry
from cardwar.arena import play_game
from cardwar.players import make_player



def default_games(specs: list[str]) -> list[str]:
    """The games measured when none is named: every registered game that has each agent of ``specs``."""
    def has_all(game: str) -> bool:
        try:
            for spec in specs:
                agents.check_spec(spec, game)
        except ValueError:
            return False
        return True

    return [game for game in registry.names() if has_all(game)]


def setup(game: str) -> dict[str, Any]:
    """The scenario and rules ``game`` is benchmarked on, as its registry entry names them (:mod:`cardwar.games`)."""
    return dict(registry.get(game).extra.get("engine_bench_setup", {}))
AGENTS = ("random", "heuristic")
SLOW_MS = 50.0


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU a process has used so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by the nearest rank: a value that was measured, never an interpolation."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def measure(game: str, spec: str, games: int, seed: int = 0) -> dict[str, Any]:
    """Play ``games`` games both ways with a freshly started engine; latency and overhead figures in ms."""
    env = registry.get(game).make_env(**setup(game))
    command = f"engine:{shlex.quote(sys.executable)} -m cardwar engine --game {game} --agent {shlex.quote(spec)}"
    started = time.perf_counter()
    engine = make_player(command, game, seed=seed)
    start_s = time.perf_counter() - started
    local: list[float] = []
    remote: list[float] = []
    first_game: list[float] = []
    cpu = {"local": 0.0, "dealer": 0.0, "engine": 0.0}
    first = env.possible_agents[0]
    try:
        for g in range(seed, seed + games):
            t0 = time.process_time()
            a = play_game(env, (agents.make(spec, game, seed=g), agents.make("random", game, seed=g + 7)), g,
                          game=game)
            t1, e1 = time.process_time(), _cpu_seconds(engine.pid)
            engine.new_game(seed=g)
            b = play_game(env, (engine, agents.make("random", game, seed=g + 7)), g, game=game)
            engine.game_over(b.record.result if b.record else None)
            cpu["local"] += t1 - t0
            cpu["dealer"] += time.process_time() - t1
            cpu["engine"] += _cpu_seconds(engine.pid) - e1
            if b.forfeit is not None or a.moves != b.moves:
                raise RuntimeError(f"{game} seed {g}: the served agent played differently ({b.forfeit})")
            mine = [t for m, t in zip(b.moves, b.times) if m.seat == first]
            if g == seed:
                first_game = mine
            local += [t for m, t in zip(a.moves, a.times) if m.seat == first]
            remote += mine
    finally:
        engine.close()
    ms = [1000 * t for t in remote]
    diffs = [(r - lo) * 1000 for r, lo in zip(remote, local)]
    return {"game": game, "agent": spec, "games": games, "moves": len(local), "start_s": start_s,
            "latency_median_ms": statistics.median(ms), "latency_p99_ms": percentile(ms, 0.99),
            "latency_max_ms": max(ms), "first_game_max_ms": 1000 * max(first_game),
            "moves_over_50ms": sum(t > SLOW_MS for t in ms),
            "in_process_ms": 1000 * statistics.fmean(local), "engine_ms": statistics.fmean(ms),
            "overhead_ms": statistics.fmean(diffs), "overhead_median_ms": statistics.median(diffs),
            "overhead_cpu_ms": 1000 * (cpu["dealer"] + cpu["engine"] - cpu["local"]) / len(local)}


def main(argv: list[str] | None = None) -> int:
    """Print the latency and overhead table (or JSON)."""
    p = argparse.ArgumentParser(prog="python -m cardwar.engine.bench", description=__doc__.split("\n")[0])
    p.add_argument("--agent", action="append", help=f"agent spec (repeatable; default {' and '.join(AGENTS)})")
    p.add_argument("--games", type=int, default=6, help="games of each game and agent (default 6)")
    p.add_argument("--game", choices=list(registry.names()), action="append",
                   help="only this game (repeatable; default every game that has the agents)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    args = p.parse_args(argv)
    specs = args.agent or list(AGENTS)
    chosen = args.game or default_games(specs)
    try:
        for spec in specs:
            for game in chosen:
                agents.check_spec(spec, game)
    except ValueError as err:
        p.exit(2, f"{p.prog}: error: {err}\n")
    start = time.perf_counter()
    if not args.json:
        print(f"{'game':10s} {'agent':10s} {'moves':>5s} {'start s':>7s}  latency ms: {'median':>6s} {'p99':>6s} "
              f"{'max':>6s} {'1st game max':>12s} {'>50ms':>5s}   overhead ms: {'median':>6s} {'mean':>6s} {'CPU':>6s}")
    for game in chosen:
        for spec in specs:
            r = measure(game, spec, args.games)
            if args.json:
                print(json.dumps(r), flush=True)
            else:
                print(f"{r['game']:10s} {r['agent']:10s} {r['moves']:5d} {r['start_s']:7.2f}  {'':12s}"
                      f"{r['latency_median_ms']:6.2f} {r['latency_p99_ms']:6.2f} {r['latency_max_ms']:6.1f} "
                      f"{r['first_game_max_ms']:12.1f} {r['moves_over_50ms']:5d}   {'':13s}"
                      f"{r['overhead_median_ms']:6.3f} {r['overhead_ms']:6.3f} {r['overhead_cpu_ms']:6.3f}",
                      flush=True)
    if not args.json:
        print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
