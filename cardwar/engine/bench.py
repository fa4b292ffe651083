"""Per-move overhead of the engine protocol: an agent served by ``cardwar engine`` vs the same agent in process.

    python -m cardwar.engine.bench                  # heuristic, 6 games of each game
    python -m cardwar.engine.bench --agent random --games 20

The same games are played twice from the same seeds, the first seat once in
process and once as ``engine:python -m cardwar engine --agent SPEC`` (one
process for all games, as a tournament would run it); the moves must come out
the same. The overhead is the difference of the first seat's thinking time per
move as the arena's clock measures it (message building, JSON, the pipes, the
view rebuilt and the observation encoded in the engine), after one warm-up game
(the engine's first-time imports are not a per-move cost).
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from typing import Any

from cardwar import agents
from cardwar.arena import make_player, play_game
from cardwar.envs import make_raw_env

SETUPS: dict[str, dict[str, Any]] = {"naval": {}, "hexwar": {"scenario": "random", "rules": {"hidden_units": True}}}


def _cpu_seconds(pid: int | None) -> float:
    """User + system CPU a process has used so far (Linux /proc; 0 elsewhere)."""
    try:
        fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def measure(game: str, spec: str, games: int, seed: int = 0) -> dict[str, Any]:
    """Play ``games`` games both ways; the first seat's per-move times and the overhead in ms.

    Besides wall time (what a clock sees, and what a loaded machine inflates), the CPU overhead:
    the CPU both processes spent on the served games less the CPU of the in-process games.
    """
    env = make_raw_env(game, **SETUPS[game])
    command = f"engine:{shlex.quote(sys.executable)} -m cardwar engine --game {game} --agent {shlex.quote(spec)}"
    engine = make_player(command, game, seed=seed)
    local: list[float] = []
    remote: list[float] = []
    cpu = {"local": 0.0, "dealer": 0.0, "engine": 0.0}
    try:
        warm = play_game(env, (engine, agents.make("random", game, seed=1)), seed + games, game=game)  # imports
        engine.game_over(warm.record.result if warm.record else None)
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
            first = env.possible_agents[0]
            local += [t for m, t in zip(a.moves, a.times) if m.seat == first]
            remote += [t for m, t in zip(b.moves, b.times) if m.seat == first]
    finally:
        engine.close()
    diffs = [(r - lo) * 1000 for r, lo in zip(remote, local)]
    return {"game": game, "agent": spec, "games": games, "moves": len(local),
            "in_process_ms": 1000 * statistics.fmean(local), "engine_ms": 1000 * statistics.fmean(remote),
            "overhead_ms": statistics.fmean(diffs), "overhead_median_ms": statistics.median(diffs),
            "overhead_cpu_ms": 1000 * (cpu["dealer"] + cpu["engine"] - cpu["local"]) / len(local)}


def main(argv: list[str] | None = None) -> int:
    """Print the overhead table (or JSON)."""
    p = argparse.ArgumentParser(prog="python -m cardwar.engine.bench", description=__doc__.split("\n")[0])
    p.add_argument("--agent", default="heuristic", help="agent spec (default heuristic)")
    p.add_argument("--games", type=int, default=6, help="games of each game (default 6)")
    p.add_argument("--game", choices=list(SETUPS), action="append", help="only this game (repeatable)")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    args = p.parse_args(argv)
    try:
        agents.check_spec(args.agent, "naval")
    except ValueError as err:
        p.exit(2, f"{p.prog}: error: {err}\n")
    start = time.perf_counter()
    rows = [measure(g, args.agent, args.games) for g in args.game or SETUPS]
    for r in rows:
        if args.json:
            print(json.dumps(r))
        else:
            print(f"{r['game']:7s} {r['agent']}: {r['moves']} moves of the first seat over {r['games']} games; "
                  f"in process {r['in_process_ms']:.2f} ms/move, engine {r['engine_ms']:.2f} ms/move; "
                  f"overhead {r['overhead_ms']:.3f} ms/move (median {r['overhead_median_ms']:.3f}; "
                  f"CPU of both processes {r['overhead_cpu_ms']:.3f})")
    if not args.json:
        print(f"({time.perf_counter() - start:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
