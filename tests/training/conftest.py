"""Tiny training configs: a few hundred steps, in-process envs, small networks."""

from __future__ import annotations

import pytest
import torch

from cardwar.training.config import config_from_dict

# One torch thread per test process: the suite runs with -n 2 on 2 cores, where torch's threads waiting
# for each other made a 40-epoch fit take 46 s instead of 5 s.
torch.set_num_threads(1)


def tiny_config(game: str, **top) -> object:
    policy = {"features": "mlp", "net_arch": [32]}
    env = {"n_envs": 2, "vec_env": "dummy"}
    if game == "hexwar":
        policy = {"features": "hex_cnn", "cnn_channels": [4], "features_dim": 16, "net_arch": [16]}
        env["scenario"] = "random:train"
    data = {"game": game, "name": "tiny", "seed": 3, "total_steps": 256, "checkpoint_every": 128,
            "env": env, "policy": policy,
            "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
            "opponents": {"snapshot_every": 128, "max_snapshots": 2,
                          "schedule": [{"from_step": 0, "mix": {"random": 1.0}},
                                       {"from_step": 128, "mix": {"snapshots": 0.5, "random": 0.5}}]},
            "eval": {"every": 128, "games": 2, "opponents": ["random"]}}
    data.update(top)
    return config_from_dict(data)


@pytest.fixture
def tiny():
    return tiny_config


@pytest.fixture
def launch(tmp_path):
    """``launch(argv)`` starts ``python argv...`` as a tagged process; every one is ended after the test."""
    import os
    import signal
    import uuid

    from tests.training.processes import Train, tagged

    tag = uuid.uuid4().hex
    started: list[Train] = []

    def start(argv: list[str]) -> Train:
        started.append(Train(argv, tag, tmp_path))
        return started[-1]

    start.tag = tag
    try:
        yield start
    finally:
        for train in started:
            train.kill()
        for pid in tagged(tag):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
