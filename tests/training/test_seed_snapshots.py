"""``opponents.seed_snapshots`` (issue 31, expert iteration): earlier rounds' models start in the opponent pool as
its oldest snapshots, are copied into the run, meet the learner, and are retired like any snapshot."""

from __future__ import annotations


import pytest

from cardwar.training.config import TrainConfigError
from cardwar.training.trainer import checkpoints, train


def pools(run) -> dict[int, list[str]]:
    """The pool each checkpoint names, by step."""
    return {state["num_timesteps"]: state["snapshots"] for _, state in checkpoints(run)}


def test_seeded_models_are_the_pools_first_snapshots_and_retire_oldest_first(tiny, tmp_path):
    source = train(tiny("naval", total_steps=128), runs_root=tmp_path / "a", progress=False) / "final.zip"
    config = tiny("naval", total_steps=256, opponents={
        "snapshot_every": 128, "max_snapshots": 1, "seed_snapshots": [str(source)],
        "schedule": [{"from_step": 0, "mix": {"snapshots": 1.0}}]})
    run = train(config, runs_root=tmp_path / "b", progress=False)
    by_step = pools(run)
    seed_name = "seed_00_final.zip"
    # a checkpoint names the pool the steps before it met (its boundary's snapshot joins after it)
    assert by_step[0] == by_step[128] == [seed_name]  # before any snapshot of its own: the earlier round
    assert by_step[256] == ["snapshot_000000128.zip"]  # max_snapshots 1: the seeded model left first


def test_the_learner_meets_the_seeded_model_from_the_first_step(tiny, tmp_path):
    from cardwar.training.opponents import OpponentPool
    from cardwar.training.trainer import seed_snapshots

    source = train(tiny("naval", total_steps=128), runs_root=tmp_path / "a", progress=False) / "final.zip"
    config = tiny("naval", opponents={"seed_snapshots": [str(source)],
                                      "schedule": [{"from_step": 0, "mix": {"snapshots": 1.0}}]})
    (tmp_path / "run").mkdir()
    paths = seed_snapshots(config, tmp_path / "run")
    assert (tmp_path / "run" / "snapshots" / "seed_00_final.zip").read_bytes() == source.read_bytes()
    import numpy as np

    pool = OpponentPool("naval", mix=config.mix_at(0), snapshots=paths, seed=0)
    name, agent = pool.draw(np.random.default_rng(0))
    assert name == "snapshot:seed_00_final.zip" and agent.path == paths[0]


def test_a_missing_seed_snapshot_is_one_line_before_any_folder(tiny, tmp_path):
    with pytest.raises(TrainConfigError, match=r"opponents.seed_snapshots\[0\].*not a model file"):
        train(tiny("naval", opponents={"seed_snapshots": [str(tmp_path / "gone.zip")]}), runs_root=tmp_path / "r",
              progress=False)
    assert not (tmp_path / "r").exists()


def test_by_default_the_pool_starts_empty(tiny, tmp_path):
    run = train(tiny("naval", total_steps=128), runs_root=tmp_path, progress=False)
    assert pools(run)[0] == []
