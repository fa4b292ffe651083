"""``cardwar bench --training``: env steps per second of short MaskablePPO runs, learning included.

Three runs in one process, one after the other, each timed around ``model.learn``:

- ``reference``: PettingZoo's SB3 tutorial setup (``tutorials/SB3/connect_four``):
  MaskablePPO with its default hyperparameters and ``MaskableActorCriticPolicy`` on
  ``connect_four_v3``, one env, the learner playing both seats through the
  tutorial's ``SB3ActionMaskWrapper`` (here as a ``gymnasium.Env``, which current
  gymnasium needs; the stepping is the tutorial's).
- ``naval`` and ``hexwar``: ``configs/training/<game>.yaml`` as committed (its envs,
  vec env, network, PPO settings and opponent mix), evaluation off.

The figure that matters is each game's ratio to the reference measured in the
same run, as the machine's speed varies.
"""

from __future__ import annotations

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


def _reference(steps: int) -> float:
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    model = MaskablePPO(MaskableActorCriticPolicy, TutorialConnectFour(), verbose=0, seed=0, device="cpu")
    start = time.perf_counter()
    model.learn(total_timesteps=steps)
    return model.num_timesteps / (time.perf_counter() - start)


def _game(game: str, steps: int) -> float:
    from training.callbacks import RunCallback
    from training.config import load_config
    from training.trainer import make_vec_env, new_model

    config = load_config(Path(__file__).resolve().parent.parent / "configs" / "training" / f"{game}.yaml",
                         ["eval.games=0", f"checkpoint_every={10**9}", f"opponents.snapshot_every={10**9}"])
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

    rows = {}
    for name in tqdm(["reference", "naval", "hexwar"], desc="training bench", disable=as_json):
        rows[name] = _reference(steps) if name == "reference" else _game(name, steps)
    ref = rows["reference"]
    out = {"steps": steps, "cpus": os.cpu_count(), "python": platform.python_version(),
           "steps_per_second": {k: round(v, 1) for k, v in rows.items()},
           "ratio_to_reference": {k: round(v / ref, 2) for k, v in rows.items() if k != "reference"}}
    if as_json:
        print(json.dumps(out))
    else:
        print(f"MaskablePPO training throughput, {steps} steps each, {os.cpu_count()} CPUs")
        print(f"  reference (PettingZoo SB3 tutorial, connect_four_v3, 1 env): {ref:8.1f} steps/s")
        for k in ("naval", "hexwar"):
            print(f"  {k:9s} (configs/training/{k}.yaml): {rows[k]:8.1f} steps/s = {rows[k] / ref:.2f}x reference")
    return out
