"""p50/p90/p99/max ms of a shipped ``ppo`` decision, the old path beside the new in one run (issue 31, item 5).

    python -m cardwar.training.decision_bench                      # the skirmish
    python -m cardwar.training.decision_bench --games skirmish hexwar naval tankattack
    taskset -c 0 python -m cardwar.training.decision_bench        # on one core

Positions: the game's ``ppo`` (seat 0) against ``random`` on its scenarios (the skirmish's ``ww2_squads``,
``duel``, ``panzer_road``), seeds 0.., every position where the ppo decides, up to ``--positions``.
Each position is then decided by every path in turn (rotating which goes first), so that machine noise hits
them alike:

- ``old, torch default threads``: the agent's decision before issue 31 (SB3's ``policy.get_distribution``
  under ``no_grad``) with torch's default thread count, as any process that did not set it ran;
- ``old, 1 thread``: the same on one torch thread (what the server, match and tournaments set);
- ``new``: ``PPOAgent.act`` today (:mod:`cardwar.training.fast_inference`: one thread, the same probabilities).

Two clocks: the thread's CPU time (the work itself) and the wall clock (what a player waits, preemption by other
processes on the core included). Every path's action is checked to be the old one's.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from typing import Any

import numpy as np

SKIRMISH_SCENARIOS = ("ww2_squads", "duel", "panzer_road")
"""The skirmish's scenarios of docs/serve.md's decision timing (``tests/arena/decision_times.py``)."""


def positions(game: str, limit: int, seed: int = 0) -> list[dict[str, np.ndarray]]:
    """Up to ``limit`` observations (with masks) at which the shipped ppo, seat 0, decides against random."""
    from cardwar import agents, games

    bot, other = agents.make("ppo", game, seed=seed), agents.make("random", game, seed=seed + 1)
    g = games.get(game)
    scenarios: list[Any] = list(SKIRMISH_SCENARIOS) if game == "skirmish" else [None]  # others: the default
    out: list[dict[str, np.ndarray]] = []
    k = seed
    while len(out) < limit:
        env = g.make_env(scenarios[k % len(scenarios)])
        env.reset(seed=k)
        first = env.possible_agents[0]
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            if agent == first and len(out) < limit:
                out.append({"observation": np.array(obs["observation"]), "action_mask": np.array(obs["action_mask"])})
            env.step((bot if agent == first else other).act(obs, env.view(agent)))
        k += 1
    return out


def old_choose(agent: Any, obs: np.ndarray, mask: np.ndarray) -> int:
    """``PPOAgent._choose`` before issue 31, verbatim: SB3's masked distribution under ``no_grad``."""
    import torch

    policy = agent.model.policy
    with torch.no_grad():
        tensor = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
        dist = policy.get_distribution(tensor, action_masks=mask[None])
        probs = dist.distribution.probs[0].numpy().astype(np.float64)
    return int(np.argmax(np.where(mask, probs, -1.0)))


def paths(game: str) -> dict[str, Callable[[dict[str, np.ndarray]], int]]:
    """The decision paths compared, by name."""
    import torch

    from cardwar import agents
    from cardwar.agents.ppo_agent import PPOAgent

    default = torch.get_num_threads()
    new = agents.make("ppo", game, seed=0)
    old = agents.make("ppo", game, seed=0)
    old._choose = lambda obs, mask: old_choose(old, obs, mask)  # type: ignore[method-assign]
    assert isinstance(new, PPOAgent)

    def with_threads(n: int) -> Callable[[dict[str, np.ndarray]], int]:
        def decide(obs: dict[str, np.ndarray]) -> int:
            torch.set_num_threads(n)
            try:
                return old.act(obs)
            finally:
                torch.set_num_threads(default)
        return decide

    return {f"old, torch default threads ({default})": with_threads(default), "old, 1 thread": with_threads(1),
            "new (PPOAgent.act)": new.act}


def summary(seconds: list[float]) -> str:
    ms = np.asarray(seconds) * 1000
    p50, p90, p99 = np.percentile(ms, [50, 90, 99])
    return f"p50 {p50:6.2f}  p90 {p90:6.2f}  p99 {p99:6.2f}  max {ms.max():7.2f}"


def bench(game: str, n: int) -> None:
    """Time every path on ``n`` positions of ``game`` and print the figures."""
    found = positions(game, n)
    decide = paths(game)
    names = list(decide)
    for obs in found[:10]:  # warm-up: torch's first passes, the trace
        for name in names:
            decide[name](obs)
    cpu: dict[str, list[float]] = {name: [] for name in names}
    wall: dict[str, list[float]] = {name: [] for name in names}
    for i, obs in enumerate(found):
        actions = set()
        for j in range(len(names)):
            name = names[(i + j) % len(names)]
            c, w = time.thread_time(), time.perf_counter()
            actions.add(decide[name](obs))
            wall[name].append(time.perf_counter() - w)
            cpu[name].append(time.thread_time() - c)
        if len(actions) != 1:
            raise AssertionError(f"{game}: the paths chose different actions at position {i}: {actions}")
    print(f"{game} ppo, {len(found)} decisions (ms; every path chose the same action at every position)")
    for name in names:
        print(f"  {name:34s} cpu  {summary(cpu[name])}")
        print(f"  {'':34s} wall {summary(wall[name])}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="*", default=["skirmish"])
    parser.add_argument("--positions", type=int, default=1000, help="positions per game (default 1000)")
    args = parser.parse_args(argv)
    import torch

    cores = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else "?"
    print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; cores allowed {cores} of {os.cpu_count()}; "
          f"load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}; torch {torch.__version__}, "
          f"default threads {torch.get_num_threads()}")
    for game in args.games:
        bench(game, args.positions)
    print(f"load average after {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
