"""Train a policy with OpenSpiel's NFSP on a bridged game and save it for ``openspiel:policy=PATH``.

    python -m cardwar.openspiel.train naval --episodes 2000 --out runs/nfsp_naval.pt
    cardwar match naval openspiel:policy=runs/nfsp_naval.pt random --games 20

NFSP (Heinrich and Silver, 2016; ``open_spiel.python.pytorch.nfsp``) runs one learner per seat through
OpenSpiel's ``rl_environment`` on the bridge game; each seat's *average policy* network is saved
(:mod:`cardwar.openspiel.policy`). ``--scenario`` and ``--rule KEY=VALUE`` are the bridge game's parameters.
A mistake on the command line is one line and exit 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np


def _rule(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"not KEY=VALUE: {text!r}")
    return key.strip(), value.strip()


def _typed(value: str, default: Any) -> Any:
    """A command-line value typed as the parameter's default is (OpenSpiel's parameters are typed)."""
    if isinstance(default, bool):
        if value.lower() not in ("true", "false"):
            raise ValueError(f"{value!r} is not true or false")
        return value.lower() == "true"
    return type(default)(value)


def game_params(game: str, seed: int, scenario: str | None, rules: list[tuple[str, str]]) -> dict[str, Any]:
    """The bridge game's parameters from the command line; ValueError (one line) for a bad one."""
    from cardwar.openspiel.games import GAME_NAMES, register

    import pyspiel

    register()
    if game not in GAME_NAMES:
        raise ValueError(f"the OpenSpiel bridge has no game {game!r}; it plays {', '.join(GAME_NAMES)}")
    spec = pyspiel.load_game(GAME_NAMES[game]).get_type().parameter_specification
    params: dict[str, Any] = {"seed": seed}
    if scenario is not None:
        if "scenario" not in spec:
            raise ValueError(f"the {game} game has no scenarios")
        params["scenario"] = scenario
    for key, value in rules:
        if key not in spec or key in ("seed", "scenario"):
            known = sorted(k for k in spec if k not in ("seed", "scenario"))
            raise ValueError(f"unknown {game} rule option {key!r}; options: {', '.join(known)}")
        try:
            params[key] = _typed(value, spec[key])
        except ValueError as err:
            raise ValueError(f"--rule {key}: {err}") from None
    return params


def train_nfsp(game: str, params: dict[str, Any], episodes: int, hidden: list[int], out: Path,
               seed: int = 0, log_every: int = 0) -> dict[str, Any]:
    """NFSP for ``episodes`` games on the bridge game; the seats' average policies saved to ``out``.

    Small settings fit for a CPU (buffers of 20,000, batches of 64); returns a summary (steps, seconds).
    """
    import torch
    from open_spiel.python import rl_environment
    from open_spiel.python.pytorch import nfsp

    from cardwar.openspiel.games import load
    from cardwar.openspiel.policy import write_policy

    torch.set_num_threads(1)  # small networks: more threads only contend
    np.random.seed(seed)  # NFSP samples from numpy's global generator
    env = rl_environment.Environment(load(game, **params))
    size = env.observation_spec()["info_state"][0]
    actions = env.action_spec()["num_actions"]
    agents = [nfsp.NFSP(p, size, actions, hidden, reservoir_buffer_capacity=20_000, anticipatory_param=0.1,
                        batch_size=64, min_buffer_size_to_learn=256, learn_every=64,
                        replay_buffer_capacity=20_000, epsilon_decay_duration=max(1000, episodes * 50),
                        seed=seed + p) for p in range(2)]
    steps, start = 0, time.monotonic()
    for episode in range(1, episodes + 1):
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
            steps += 1
        for a in agents:
            a.step(ts)
        if log_every and episode % log_every == 0:
            print(f"episode {episode}/{episodes}: {steps} steps, {time.monotonic() - start:.0f} s, "
                  f"average-policy loss {[a.loss[0] for a in agents]}", flush=True)
    write_policy(out, game=game, algorithm="nfsp", params=params, obs_size=size, num_actions=actions,
                 networks=[a._avg_network for a in agents])
    return {"episodes": episodes, "steps": steps, "seconds": time.monotonic() - start, "out": str(out)}


def main(argv: list[str] | None = None) -> int:
    """``python -m cardwar.openspiel.train GAME --episodes N --out PATH``."""
    ap = argparse.ArgumentParser(prog="python -m cardwar.openspiel.train", description=__doc__.split("\n")[0])
    ap.add_argument("game")
    ap.add_argument("--episodes", type=int, default=2000, help="games of self-play (default 2000)")
    ap.add_argument("--hidden", default="64", help="hidden layer sizes, comma-separated (default 64)")
    ap.add_argument("--out", type=Path, required=True, help="the policy file to write")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--scenario")
    ap.add_argument("--rule", type=_rule, action="append", default=[], metavar="KEY=VALUE")
    ap.add_argument("--log-every", type=int, default=100, metavar="N", help="a progress line every N games (0: none)")
    args = ap.parse_args(argv)
    from cardwar.openspiel import missing_open_spiel

    if missing_open_spiel():
        return 2
    try:
        hidden = [int(x) for x in args.hidden.split(",") if x.strip()]
        if args.episodes < 1 or not hidden or min(hidden) < 1:
            raise ValueError("--episodes and the --hidden sizes must be positive")
        params = game_params(args.game, args.seed, args.scenario, args.rule)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    summary = train_nfsp(args.game, params, args.episodes, hidden, args.out, seed=args.seed,
                         log_every=args.log_every)
    print(f"trained NFSP on {args.game}: {summary['episodes']} games, {summary['steps']} steps, "
          f"{summary['seconds']:.0f} s; the average policy is in {summary['out']}")
    print(f"play it: cardwar match {args.game} openspiel:policy={summary['out']} random --games 20")
    return 0


if __name__ == "__main__":
    sys.exit(main())
