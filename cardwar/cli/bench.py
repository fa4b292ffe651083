"""``cardwar bench``: random legal play through the AEC API, naval-v0/v1, hexwar-v0, skirmish-v0 and tankattack-v0 beside
PettingZoo's classic envs, and the raw envs (no wrappers) beside connect_four_v3's raw env; :data:`TARGETS` are issue 22's
and issue 29's.

Every env runs the same loop (``env.last()``, a masked ``action_space.sample``,
``env.step``) with PettingZoo's standard wrappers, in interleaved rounds so that
machine noise hits all of them alike, timed on the process's CPU clock (:data:`CLOCK`). The figure
that matters is each ratio to a peer measured in the same run.
"""

from __future__ import annotations

import json
import platform
import time
from collections.abc import Callable

import numpy as np


BENCH_EXTRA = "pip install 'cardwar[bench]'"
"""The optional extra with PettingZoo's reference envs' dependencies (pyproject.toml's ``bench``)."""


class MissingExtra(RuntimeError):
    """A dependency of the optional ``[bench]`` extra is missing; the message is one line naming the extra."""


def require_reference_envs(names: tuple[str, ...] = ("connect_four_v3", "texas_holdem_v4")) -> None:
    """Import PettingZoo's reference envs up front: connect_four needs pygame(-ce), texas_holdem rlcard.

    Without them :class:`MissingExtra` says which package is missing and how to install it.
    """
    import importlib

    for name in names:
        try:
            importlib.import_module(f"pettingzoo.classic.{name}")
        except ImportError as err:
            what = {"pygame": "pygame-ce"}.get((err.name or "").split(".")[0], err.name or str(err))
            raise MissingExtra(f"PettingZoo's {name}, the benchmark's reference, needs {what}, which is not "
                               f"installed: {BENCH_EXTRA} (pygame-ce and rlcard)") from None


def _naval_env():
    from cardwar.envs import naval_v0

    return naval_v0.env()


def _naval_v1_env():
    from cardwar.envs import naval_v1

    return naval_v1.env()


def _naval_raw_env():
    from cardwar.envs import naval_v0

    return naval_v0.raw_env()


def _naval_v1_raw_env():
    from cardwar.envs import naval_v1

    return naval_v1.raw_env()


def _hexwar_raw_env():
    from cardwar.envs import hexwar_v0

    return hexwar_v0.raw_env()


def _connect_four_raw_env():
    from pettingzoo.classic.connect_four import connect_four

    return connect_four.raw_env()


def _hexwar_env():
    from cardwar.envs import hexwar_v0

    return hexwar_v0.env()


def _skirmish_env():
    from cardwar.envs import skirmish_v0

    return skirmish_v0.env()


def _tankattack_env():
    from cardwar.envs import tankattack_v0

    return tankattack_v0.env()  # its default scenario, cambrai


def _tankattack_raid_env():
    from cardwar.envs import tankattack_v0

    return tankattack_v0.env(scenario="trench_raid")


def _connect_four_env():
    from pettingzoo.classic import connect_four_v3

    return connect_four_v3.env()


def _texas_holdem_env():
    from pettingzoo.classic import texas_holdem_v4

    return texas_holdem_v4.env()


def _api_floor_env():
    """A do-nothing AEC env with naval's spaces and the same standard wrappers.

    It returns one cached observation and flips the turn, with games of naval's
    average length; its steps/s is the ceiling that PettingZoo's wrappers and
    gymnasium's masked sampling leave to any env with this action space.
    """
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    from cardwar.envs.naval import NUM_ACTIONS
    from cardwar.envs.naval.observation import OBS_SIZE

    class ApiFloor(AECEnv):
        metadata = {"render_modes": [], "name": "api_floor"}

        def __init__(self) -> None:
            super().__init__()
            self.possible_agents = ["p0", "p1"]
            mask = np.zeros(NUM_ACTIONS, np.int8)
            mask[::40] = 1
            self._obs = {"observation": np.zeros(OBS_SIZE, np.float32), "action_mask": mask}
            box = spaces.Dict({"observation": spaces.Box(0.0, 1.0, (OBS_SIZE,), np.float32),
                               "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
            self.observation_spaces = {a: box for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        def reset(self, seed=None, options=None):
            self.agents = self.possible_agents[:]
            self.t = 0
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self.agent_selection = "p0"

        def observe(self, agent):
            return self._obs

        def step(self, action):
            if self.terminations[self.agent_selection]:
                self._was_dead_step(action)
                return
            self.t += 1
            if self.t >= 52:
                self.terminations = {a: True for a in self.agents}
            self.agent_selection = "p1" if self.agent_selection == "p0" else "p0"

    e = ApiFloor()
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


ENVS: dict[str, Callable] = {"naval_v0": _naval_env, "naval_v1": _naval_v1_env, "hexwar_v0": _hexwar_env,
                             "skirmish_v0": _skirmish_env, "tankattack_v0": _tankattack_env,
                             "tankattack_v0_raid": _tankattack_raid_env, "connect_four_v3": _connect_four_env,
                             "texas_holdem_v4": _texas_holdem_env, "api_floor": _api_floor_env,
                             "naval_v0_raw": _naval_raw_env, "naval_v1_raw": _naval_v1_raw_env,
                             "hexwar_v0_raw": _hexwar_raw_env, "connect_four_v3_raw": _connect_four_raw_env}
"""Every env but the ``_raw`` ones runs with PettingZoo's standard wrappers."""

TARGETS: tuple[tuple[str, str, float], ...] = (
    ("naval_v1", "connect_four_v3", 1.0), ("hexwar_v0", "connect_four_v3", 0.6),
    ("naval_v0_raw", "connect_four_v3_raw", 1.0), ("naval_v1_raw", "connect_four_v3_raw", 1.0),
    ("hexwar_v0_raw", "connect_four_v3_raw", 1.0), ("tankattack_v0", "connect_four_v3", 0.6),
)
"""Issue 22's env-speed targets and issue 29's for the WW1 game (its default scenario, cambrai): (env, peer
measured in the same run, least steps/s ratio env / peer)."""


CLOCK = time.process_time
"""The bench's clock: this process's CPU time, so that other work on a shared machine (which takes the
CPU away from the bench, in bursts) does not count as any env's time; on an idle machine it reads as
the wall clock does."""


def random_play(env, seconds: float, seed: int) -> tuple[int, float, int]:
    """Play random legal moves for about ``seconds`` of :data:`CLOCK`; returns (steps, elapsed, games)."""
    env.reset(seed=seed)
    for i, agent in enumerate(env.possible_agents):
        env.action_space(agent).seed(seed + i)
    steps = games = 0
    start = CLOCK()
    while CLOCK() - start < seconds:
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            action = None if term or trunc else env.action_space(agent).sample(obs["action_mask"])
            env.step(action)
            steps += 1
        games += 1
        env.reset()
    return steps, CLOCK() - start, games


def _engine_steps_per_second(seconds: float) -> float:
    """The naval rules engine alone (no env, no observation): what a search bot sees."""
    from cardwar.envs.naval import NavalState

    rng = np.random.default_rng(0)
    steps, start, g = 0, CLOCK(), 0
    while CLOCK() - start < seconds:
        s = NavalState.new_game(seed=g)
        g += 1
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])
            steps += 1
    return steps / (CLOCK() - start)


def _tankattack_engine_steps_per_second(seconds: float, scenario: str = "cambrai") -> float:
    """The Tank Attack rules engine alone (``legal_actions`` and ``apply_action``: no env, no observation)."""
    from cardwar.envs.tankattack import TankState, load_scenario

    sc = load_scenario(scenario)
    rng = np.random.default_rng(0)
    steps, start, g = 0, CLOCK(), 0
    while CLOCK() - start < seconds:
        s = TankState.new_game(sc, seed=g)
        g += 1
        while not s.is_terminal():
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))], validate=False)
            steps += 1
    return steps / (CLOCK() - start)


def measure(seconds: float = 6.0, rounds: int = 3) -> dict:
    """Steps/s of every env, measured in ``rounds`` interleaved rounds."""
    from cardwar.envs.naval import hand_strength

    require_reference_envs()

    hand_strength([0])  # build the hand table outside the timed part
    totals = {name: [0, 0.0, 0] for name in ENVS}
    envs = {name: make() for name, make in ENVS.items()}
    for r in range(rounds):
        for name, e in envs.items():
            steps, elapsed, games = random_play(e, seconds / rounds, seed=1000 * r)
            totals[name][0] += steps
            totals[name][1] += elapsed
            totals[name][2] += games
    rates = {name: t[0] / t[1] for name, t in totals.items()}
    ratios = {k: rates["naval_v0"] / v for k, v in rates.items()
              if not k.startswith(("naval", "hexwar", "skirmish", "tankattack")) and "_raw" not in k}
    ratios["connect_four_v3_raw"] = rates["naval_v0_raw"] / rates["connect_four_v3_raw"]
    return {
        "steps_per_second": {k: round(v, 1) for k, v in rates.items()},
        "games": {k: t[2] for k, t in totals.items()},
        "naval_ratio": {k: round(v, 3) for k, v in ratios.items()},
        "hexwar_ratio": {k: round(rates["hexwar_v0"] / rates[k], 3) for k in ("connect_four_v3", "texas_holdem_v4")},
        "skirmish_ratio": {k: round(rates["skirmish_v0"] / rates[k], 3)
                           for k in ("connect_four_v3", "texas_holdem_v4")},
        "naval_v1_ratio": {k: round(rates["naval_v1"] / rates[k], 3) for k in ("connect_four_v3", "texas_holdem_v4")},
        "tankattack_ratio": {k: round(rates["tankattack_v0"] / rates[k], 3) for k in ("connect_four_v3", "texas_holdem_v4")},
        "tankattack_raid_ratio": {k: round(rates["tankattack_v0_raid"] / rates[k], 3)
                                  for k in ("connect_four_v3", "texas_holdem_v4")},
        "raw_ratio": {k: round(rates[k] / rates["connect_four_v3_raw"], 3)
                      for k in ("naval_v0_raw", "naval_v1_raw", "hexwar_v0_raw")},
        "targets": [{"env": env, "peer": peer, "ratio": round(rates[env] / rates[peer], 3), "target": target,
                     "met": rates[env] / rates[peer] >= target} for env, peer, target in TARGETS],
        "naval_engine_steps_per_second": round(_engine_steps_per_second(seconds / rounds), 1),
        "tankattack_engine_steps_per_second": round(_tankattack_engine_steps_per_second(seconds / rounds), 1),
        "seconds_per_env": seconds, "rounds": rounds,
        "python": platform.python_version(), "machine": platform.machine(),
    }


def run_bench(seconds: float = 6.0, rounds: int = 3, as_json: bool = False) -> dict:
    """Measure and print a table (or one JSON object)."""
    res = measure(seconds, rounds)
    if as_json:
        print(json.dumps(res))
        return res
    print(f"{'env':<20}{'steps/s':>12}{'games':>8}   naval-v0 / env   hexwar-v0 / env")
    for name, rate in res["steps_per_second"].items():
        ratio = res["naval_ratio"].get(name)
        hx = res["hexwar_ratio"].get(name)
        print(f"{name:<20}{rate:>12,.0f}{res['games'][name]:>8}   {'' if ratio is None else f'{ratio:.2f}x':<17}"
              f"{'' if hx is None else f'{hx:.2f}x'}")
    print(f"skirmish-v0 (ww2_squads, a step a decision) / connect_four_v3: "
          f"{res['skirmish_ratio']['connect_four_v3']:.2f}x")
    print(f"naval rules engine alone (no env): {res['naval_engine_steps_per_second']:,.0f} steps/s")
    print(f"tankattack-v0 (cambrai, a step a decision) / connect_four_v3: "
          f"{res['tankattack_ratio']['connect_four_v3']:.2f}x; trench_raid (tankattack_v0_raid): "
          f"{res['tankattack_raid_ratio']['connect_four_v3']:.2f}x")
    print(f"tankattack rules engine alone (cambrai, no env, no observation): "
          f"{res['tankattack_engine_steps_per_second']:,.0f} steps/s")
    print(f"naval-v1 (factored actions, a step a decision) / connect_four_v3: "
          f"{res['naval_v1_ratio']['connect_four_v3']:.2f}x")
    print("api_floor: a do-nothing env with naval's spaces and the same wrappers (the ceiling for any env);")
    print("_raw: raw_env without PettingZoo's wrappers (the ratio compares naval_v0_raw with connect_four_v3_raw)")
    print("issue 22's and issue 29's env-speed targets (env / peer, same run):")
    for t in res["targets"]:
        print(f"  {t['env']:<14} / {t['peer']:<20} {t['ratio']:.2f}x   target >= {t['target']:.1f}x   "
              f"{'met' if t['met'] else 'MISSED'}")
    return res


def step_breakdown(names: list[str], seconds: float = 4.0, rounds: int = 8) -> dict[str, dict[str, float]]:
    """Where a step's time goes, env by env: microseconds of :data:`CLOCK` per step in ``env.last()``, the
    masked ``sample``, ``env.step`` and the rest (resets, the loop), from the interleaved round with the
    fewest microseconds per step (the least disturbed one)."""
    from cardwar.envs.naval import hand_strength

    hand_strength([0])
    envs = {name: ENVS[name]() for name in names}
    best: dict[str, dict[str, float]] = {}
    for r in range(rounds):
        for name, env in envs.items():
            env.reset(seed=r)
            for i, agent in enumerate(env.possible_agents):
                env.action_space(agent).seed(r + i)
            steps, t_last, t_sample, t_step = 0, 0.0, 0.0, 0.0
            start = CLOCK()
            while CLOCK() - start < seconds / rounds:
                for agent in env.agent_iter():
                    t0 = CLOCK()
                    obs, _, term, trunc, _ = env.last()
                    t1 = CLOCK()
                    action = None if term or trunc else env.action_space(agent).sample(obs["action_mask"])
                    t2 = CLOCK()
                    env.step(action)
                    t3 = CLOCK()
                    t_last, t_sample, t_step, steps = t_last + t1 - t0, t_sample + t2 - t1, t_step + t3 - t2, steps + 1
                env.reset()
            total = CLOCK() - start
            row = {k: round(1e6 * v / steps, 1) for k, v in
                   (("total", total), ("last", t_last), ("sample", t_sample), ("step", t_step),
                    ("rest", total - t_last - t_sample - t_step))}
            if name not in best or row["total"] < best[name]["total"]:
                best[name] = row
    return best


if __name__ == "__main__":  # python -m cardwar.cli.bench ENV... : the per-step breakdown (issue 22)
    import sys

    rows = step_breakdown(sys.argv[1:] or ["naval_v1", "connect_four_v3", "naval_v1_raw", "connect_four_v3_raw"])
    print(f"{'env':<22}" + "".join(f"{k + ' us':>11}" for k in ("total", "last", "sample", "step", "rest")))
    for name, row in rows.items():
        print(f"{name:<22}" + "".join(f"{v:>11.1f}" for v in row.values()))
