"""How strong and how cheap the skirmish search's play-out policy is (issue 31): the policy plays as an agent
against the heuristic, deciding on one determinization of its own view (so it reads nothing hidden), on
procedural maps of the held-out half (odd seeds), seats swapped in pairs.

    python -m cardwar.agents.skirmish_playout_check --policy wary --games 24 --first 5000

Game ``g`` is the map ``generate(2 g + 1, deal=g)`` dealt with ``new_state(..., seed=g)``; the policy's seat
has seed ``g``, the heuristic ``g + 100``. Prints the score with its 95% Wilson interval and the policy's
CPU time a move (process time, the determinization not counted).
"""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

import numpy as np

from cardwar.agents import skirmish_search as ss
from cardwar.agents.skirmish_heuristic import Context, SkirmishHeuristic

POLICIES = {"fast": ss.fast_policy, "wary": ss.wary_policy}


class PolicyAgent(ss.SkirmishSearch):
    """A play-out policy as a player: each decision on one determinization of the view (never_seen on)."""

    def __init__(self, policy: Any, seed: int) -> None:
        super().__init__(seed=seed)
        self.policy_fn = policy
        self.cost: list[float] = []

    def _choose(self, observation: dict, view: Any, legal: list[int]) -> int:
        if len(legal) == 1:
            return legal[0]
        scenario = ss.public_scenario(observation, view)
        for _ in range(3):
            s = ss.determinize(view, scenario, self.rng, self.memory, ss.fast_policy, never_seen=True)
            if s is not None and sorted(s.legal()) == sorted(legal):
                start = time.process_time()
                action = self.policy_fn(s, s.legal(), self.rng)
                self.cost.append(time.process_time() - start)
                return int(action)
        return self.heuristic.choose(Context.build(observation, view), legal)


def play(policy: str, games: int, first: int) -> dict[str, Any]:
    """``games`` games (rounded up to pairs) from deal ``first``; the policy's wins, draws, losses, cost."""
    from cardwar.envs.skirmish.generator import generate
    from cardwar.envs.skirmish.observation import encode_observation
    from cardwar.envs.skirmish.state import new_state

    results, cost = [], []
    for g in range(first, first + (games + 1) // 2):
        for seat in (0, 1):
            s = new_state(generate(2 * g + 1, deal=g), None, g)
            me = PolicyAgent(POLICIES[policy], seed=g)
            agents: list[Any] = [None, None]
            agents[seat], agents[1 - seat] = me, SkirmishHeuristic(seed=g + 100)
            while not s.over:
                view = s.information_view(s.seat)
                obs = {"observation": encode_observation(view, s.scenario), "action_mask": s.mask()}
                s.apply(agents[s.seat].act(obs, view))
            results.append(s.returns()[seat])
            cost += me.cost
    r = np.array(results)
    return {"wins": int((r > 0).sum()), "draws": int((r == 0).sum()), "losses": int((r < 0).sum()),
            "ms_a_move": 1000 * float(np.mean(cost)) if cost else 0.0}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m cardwar.agents.skirmish_playout_check", description=__doc__)
    p.add_argument("--policy", default="wary")
    p.add_argument("--games", type=int, default=24)
    p.add_argument("--first", type=int, default=5000)
    args = p.parse_args(argv)
    if args.policy not in POLICIES or args.games < 1:
        print(f"skirmish_playout_check: --policy is one of {', '.join(POLICIES)} and --games at least 1",
              file=sys.stderr)
        return 2
    from cardwar.cli.hexwar_balance import wilson

    out = play(args.policy, args.games, args.first)
    n = out["wins"] + out["draws"] + out["losses"]
    score = (out["wins"] + 0.5 * out["draws"]) / n
    lo, hi = wilson(score, n)
    print(f"{args.policy} vs heuristic: {n} games, {out['wins']}-{out['draws']}-{out['losses']}, score {score:.3f} "
          f"(95% CI {lo:.3f}-{hi:.3f}), {out['ms_a_move']:.2f} ms a move")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
