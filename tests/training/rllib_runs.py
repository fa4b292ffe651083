"""Shared by the RLlib tests: one local Ray per test module, and the settings of a tiny run (a few hundred steps)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import torch

from cardwar.training import rllib
from cardwar.training.rllib import RLlibSettings


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    """One local Ray (one CPU) for the module's runs, shut down whatever happens."""
    import ray

    started = rllib.start_ray(None, num_cpus=1)
    try:
        yield
    finally:
        if started:
            ray.shutdown()
    assert not ray.is_initialized()


def tiny(**changes: object) -> RLlibSettings:
    """100-step iterations, small networks, 2 evaluation games: a run of a few hundred steps."""
    base = dict(seed=1, total_steps=200, train_batch_size=100, minibatch_size=50, num_epochs=1, hidden=32,
                channels=8, blocks=1, eval_every=0, eval_games=2, checkpoint_every=100)
    return RLlibSettings(**{**base, **changes})


def tiny_flags(**changes: object) -> list[str]:
    """:func:`tiny`'s settings as ``--set`` flags of ``cardwar train GAME --backend rllib``."""
    s = tiny(**changes)
    return [flag for key in ("seed", "train_batch_size", "minibatch_size", "num_epochs", "hidden", "channels",
                             "blocks", "eval_every", "eval_games", "checkpoint_every")
            for flag in ("--set", f"{key}={getattr(s, key)}")]


def flat_weights(module: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in module.parameters()])


def step_checkpoints(run_dir: Path) -> list[Path]:
    """The run's ``checkpoints/step_N`` folders, by N."""
    return sorted((run_dir / "checkpoints").glob("step_*"), key=lambda p: int(p.name.removeprefix("step_")))
