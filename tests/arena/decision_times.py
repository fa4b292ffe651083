"""p50/p99 of a trained agent's decision (docs/serve.md, *The trained bots' cost*; issue 28).

    python -m tests.arena.decision_times --game skirmish --threads 1
    python -m tests.arena.decision_times --game skirmish --threads 2

Plays the agent (seat 0) against random on the game's shipped scenarios, two games each, and times each
``act``; torch runs with ``--threads`` threads.
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="skirmish")
    parser.add_argument("--agent", default="ppo")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--scenarios", nargs="*", default=["ww2_squads", "duel", "panzer_road"])
    parser.add_argument("--games", type=int, default=2)
    args = parser.parse_args()
    import torch

    from cardwar import agents, games

    torch.set_num_threads(args.threads)
    bot, other = agents.make(args.agent, args.game, seed=0), agents.make("random", args.game, seed=1)
    g = games.get(args.game)
    times = []
    for scenario in args.scenarios if g.has_scenarios else [None]:
        for k in range(args.games):
            env = g.make_env(scenario)
            env.reset(seed=k)
            first = env.possible_agents[0]
            for agent in env.agent_iter():
                obs, _, term, trunc, _ = env.last()
                if term or trunc:
                    env.step(None)
                    continue
                view = env.view(agent)
                start = time.perf_counter()
                action = (bot if agent == first else other).act(obs, view)
                if agent == first:
                    times.append(time.perf_counter() - start)
                env.step(action)
    ms = np.array(times) * 1000
    print(f"{args.game} {args.agent}, torch threads {torch.get_num_threads()}: {ms.size} decisions, "
          f"p50 {np.percentile(ms, 50):.1f} ms, p99 {np.percentile(ms, 99):.1f} ms, max {ms.max():.1f} ms")


if __name__ == "__main__":
    main()
