"""How fair the procedural skirmish maps are: the same simple policy on both sides over many generated
scenarios (``python -m cardwar.envs.skirmish.balance --games 400``).

The generator is fair by construction (a point reflection maps side 0's half of the map and deployment zone
onto side 1's; each side's forces are drawn by the same odds from its own stream of the deal), so in
distribution the only asymmetry left is the seat order of the engine. This measures it (``--mirrored``: on the
forces before the deal, side 1 side 0's mirror image).
Two policies: ``random`` (uniform over legal actions) and ``shooter`` (fires, bursts and throws at the first
legal target when it can, otherwise random), which makes games decisive.
"""

from __future__ import annotations

import argparse
import random
import sys

from cardwar.envs.skirmish.actions import CHOICE
from cardwar.envs.skirmish.generator import balance
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.scenario import Scenario
from cardwar.envs.skirmish.state import new_state

AGGRESSIVE = [CHOICE[a] for a in ("burst", "fire", "grenade", "anti_tank", "melee", "knife", "he")]


def choose(state, rng: random.Random, policy: str) -> int:
    """One action of ``policy`` from the state's legal set."""
    legal = state.legal()
    if policy == "shooter":
        for a in AGGRESSIVE:
            if a in legal:
                return a
        if CHOICE["done"] in legal and len(legal) > 1 and state.decision.step.name == "TARGET":
            return min(a for a in legal if a != CHOICE["done"])
    return rng.choice(legal)


def play(scenario: Scenario, seed: int, *, policy: str = "shooter", rules: SkirmishRules | None = None) -> int | None:
    """One game of ``policy`` against itself; the winner (None for a draw)."""
    state = new_state(scenario, rules, seed)
    rng = random.Random(seed)
    while not state.is_terminal():
        state.apply(choose(state, rng, policy))
    return state.winner


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=400)
    parser.add_argument("--size", default="medium", choices=("small", "medium", "large"))
    parser.add_argument("--policy", default="shooter", choices=("random", "shooter"))
    parser.add_argument("--sequence", default="phases", choices=("phases", "deck"))
    parser.add_argument("--mirrored", action="store_true",
                        help="side 1's forces the mirror image of side 0's (generate(seed) without a deal)")
    args = parser.parse_args(argv)
    rules = SkirmishRules(sequence=args.sequence)
    out = balance(range(args.games), lambda sc, seed: play(sc, seed, policy=args.policy, rules=rules), size=args.size,
                  mirrored=args.mirrored)
    lo, hi = out["score0"]["interval"]
    forces = "mirrored" if args.mirrored else "dealt"
    print(f"{out['games']} generated {args.size} maps ({forces} forces), {args.policy} vs itself, "
          f"sequence={args.sequence}: "
          f"side 0 wins {out['wins'][0]}, side 1 wins {out['wins'][1]}, draws {out['draws']}; "
          f"side 0 score {out['score0']['share']:.3f} (95% {lo:.3f}-{hi:.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
