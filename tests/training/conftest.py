"""Tiny training configs: a few hundred steps, in-process envs, small networks."""

from __future__ import annotations

import pytest

from cardwar.training.config import config_from_dict


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
