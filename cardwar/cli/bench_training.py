"""``cardwar bench --training``: env steps per second of short MaskablePPO runs, learning included.

Three runs in one process, one after the other, each timed around ``model.learn``:

- ``reference``: PettingZoo's SB3 tutorial setup (``tutorials/SB3/connect_four``):
  MaskablePPO with its default hyperparameters and ``MaskableActorCriticPolicy`` on
  ``connect_four_v3``, one env, the learner playing both seats through the
  tutorial's ``SB3ActionMaskWrapper`` (here as a ``gymnasium.Env``, which current
  gymnasium needs; the stepping is the tutorial's).
- ``naval`` and ``hexwar``: ``configs/training/<game>.yaml`` as committed (its envs,
  vec env, network, PPO settings and opponent mix), evaluation off.
- ``<game>_random_opponent``: the committed config with the tutorial's opponent (random
  only), so that its ratio to the next row compares the training set-up alone (vec env,
  batch sizes, network), the opponent being the same.
- ``<game>_tutorial_settings``: the tutorial's exact settings (defaults, one env) on the
  env the config trains on (naval-v1's steps for naval) with a random opponent: the
  like-for-like reference, which separates the env's cost from the network's and the
  settings'.

The figures that matter are ratios measured in the same run, as the machine's speed
varies: each config against the tutorial's settings on its own env (issue 13's target:
3x), and against connect four.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import tempfile
import time
from pathlib import Path

import gymnasium
import numpy as np


class TutorialConnectFour(gymnasium.Env):
    """The tutorial's ``SB3ActionMaskWrapper`` over ``connect_four_v3.env()``."""

    def __init__(self) -> None:
        from pettingzoo.classic import connect_four_v3

        self.env = connect_four_v3.env()
        self.env.reset(seed=0)
        agent = self.env.possible_agents[0]
        self.observation_space = self.env.observation_space(agent)["observation"]
        self.action_space = self.env.action_space(agent)

    def reset(self, seed: int | None = None, options: dict | None = None):
        self.env.reset(seed=seed, options=options)
        return self.env.observe(self.env.agent_selection)["observation"], {}

    def step(self, action):
        env = self.env
        current = env.agent_selection
        env.step(action)
        nxt = env.agent_selection
        return (env.observe(nxt)["observation"], env._cumulative_rewards[current], env.terminations[current],
                env.truncations[current], env.infos[current])

    def action_masks(self) -> np.ndarray:
        return self.env.observe(self.env.agent_selection)["action_mask"].astype(bool)


def _reference(steps: int, env: gymnasium.Env | None = None) -> float:
    """The tutorial's MaskablePPO (defaults, one env) on connect four, or on ``env`` for a like-for-like row."""
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    env = env if env is not None else TutorialConnectFour()
    model = MaskablePPO(MaskableActorCriticPolicy, env, verbose=0, seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - start)


RANDOM_POOL = "opponents.schedule=[{from_step: 0, mix: {random: 1.0}}]"
"""The override that gives a config the tutorial rows' opponent (random), for the like-for-like ratio."""


def _game(game: str, steps: int, *overrides: str) -> float:
    from cardwar.training.callbacks import RunCallback
    from cardwar.training.config import load_config
    from cardwar.training.trainer import make_vec_env, new_model

    from cardwar.configs import training_config_path

    config = load_config(training_config_path(game), ["eval.games=0", f"checkpoint_every={10**9}",
                                                      f"opponents.snapshot_every={10**9}", *overrides])
    config.total_steps = steps
    with tempfile.TemporaryDirectory() as tmp:
        vec_env = make_vec_env(config)
        try:
            model = new_model(config, vec_env, Path(tmp))
            callback = RunCallback(config, Path(tmp), [], progress=False)
            start = time.perf_counter()
            model.learn(steps, callback=callback)
            return model.num_timesteps / (time.perf_counter() - start)
        finally:
            vec_env.close()


def run_training_bench(steps: int = 8192, as_json: bool = False) -> dict:
    """Measure, print and return steps/s of the reference and both games."""
    from tqdm import tqdm

    from cardwar.cli.bench import require_reference_envs

    require_reference_envs(("connect_four_v3",))  # the tutorial's env; without pygame-ce, one line naming the extra

    from cardwar.training.opponents import OpponentPool
    from cardwar.training.selfplay_env import SelfPlayEnv

    runs = {"reference": lambda: _reference(steps), "naval": lambda: _game("naval", steps),
            "hexwar": lambda: _game("hexwar", steps),
            "naval_random_opponent": lambda: _game("naval", steps, RANDOM_POOL),
            "hexwar_random_opponent": lambda: _game("hexwar", steps, RANDOM_POOL)}
    from cardwar.configs import training_config_path
    from cardwar.training.config import load_config

    for game in ("naval", "hexwar"):  # the tutorial's settings on the env the config trains on (naval-v1's steps)
        actions = load_config(training_config_path(game), []).env.actions
        runs[f"{game}_tutorial_settings"] = functools.partial(
            _reference, steps, SelfPlayEnv(game, "random:train" if game == "hexwar" else None, actions=actions,
                                           pool=OpponentPool(game, mix={"random": 1.0})))
    rows = {}
    for name in tqdm(list(runs), desc="training bench", disable=as_json):
        rows[name] = runs[name]()
    ref = rows["reference"]
    out = {"steps": steps, "cpus": os.cpu_count(), "python": platform.python_version(),
           "steps_per_second": {k: round(v, 1) for k, v in rows.items()},
           "ratio_to_reference": {k: round(v / ref, 2) for k, v in rows.items() if k != "reference"},
           "ratio_to_tutorial_settings_on_the_same_env": {
               k: round(rows[k] / rows[f"{k.split('_')[0]}_tutorial_settings"], 2)
               for k in ("naval", "hexwar", "naval_random_opponent", "hexwar_random_opponent")}}
    if as_json:
        print(json.dumps(out))
    else:
        print(f"MaskablePPO training throughput, {steps} steps each, {os.cpu_count()} CPUs")
        print(f"  reference (PettingZoo SB3 tutorial, connect_four_v3, 1 env): {ref:8.1f} steps/s")
        for k in ("naval", "hexwar"):
            like = rows[f"{k}_tutorial_settings"]
            print(f"  {k:9s} (configs/training/{k}.yaml): {rows[k]:8.1f} steps/s = {rows[k] / ref:.2f}x reference, "
                  f"{rows[k] / like:.2f}x the tutorial's settings on the same env")
        for k in ("naval", "hexwar"):
            r, like = rows[f"{k}_random_opponent"], rows[f"{k}_tutorial_settings"]
            print(f"  {k:9s} config, the tutorial's opponent (random only): {r:8.1f} steps/s = "
                  f"{r / like:.2f}x the tutorial's settings on the same env (like for like)")
        for k in ("naval", "hexwar"):
            r = rows[f"{k}_tutorial_settings"]
            print(f"  {k:9s} with the tutorial's settings (defaults, 1 env, random opponent): {r:8.1f} steps/s "
                  f"= {r / ref:.2f}x reference")
    return out
