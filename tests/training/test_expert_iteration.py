"""Expert iteration rounds (issue 22): a round goes on from the last round's network (``init``), a DAgger
round adds the learner's own positions, and a wrong ``init`` is one line before anything runs."""

from __future__ import annotations

import json

import pytest
import torch
from sb3_contrib import MaskablePPO

from cardwar.training.config import TrainConfigError
from cardwar.training.trainer import checkpoints, train


def weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone().float() for k, v in model.policy.state_dict().items()}


def test_a_round_starts_from_the_weights_of_the_model_it_names(tiny, tmp_path):
    first = train(tiny("naval", total_steps=128), runs_root=tmp_path / "a", progress=False)
    source = MaskablePPO.load(first / "final.zip")
    # no imitation and no PPO update before the step-0 checkpoint: it must hold exactly the source's weights
    second = train(tiny("naval", total_steps=64, init=str(first / "final.zip"), ppo={"n_steps": 32, "batch_size": 64,
                                                                                       "n_epochs": 1}),
                   runs_root=tmp_path / "b", progress=False)
    step0 = [path for path, state in checkpoints(second) if state["num_timesteps"] == 0]
    assert step0, "the step-0 checkpoint is kept"
    start = MaskablePPO.load(step0[0])
    for key, value in weights(source).items():
        torch.testing.assert_close(weights(start)[key], value)
    fresh = train(tiny("naval", total_steps=64, ppo={"n_steps": 32, "batch_size": 64, "n_epochs": 1}),
                  runs_root=tmp_path / "c", progress=False)
    fresh0 = MaskablePPO.load([p for p, s in checkpoints(fresh) if s["num_timesteps"] == 0][0])
    assert any(not torch.allclose(weights(fresh0)[k], v) for k, v in weights(source).items())  # not a coincidence


def test_a_missing_or_mismatched_init_model_is_one_line(tiny, tmp_path):
    with pytest.raises(TrainConfigError, match="init: ppo: no model file"):
        train(tiny("naval", init=str(tmp_path / "nothing.zip")), runs_root=tmp_path, progress=False)
    assert not any(tmp_path.iterdir())  # refused before a run folder was made
    run = train(tiny("naval", total_steps=128), runs_root=tmp_path / "a", progress=False)
    with pytest.raises(TrainConfigError, match="another network"):
        train(tiny("naval", init=str(run / "final.zip"), policy={"features": "mlp", "net_arch": [8]}),
              runs_root=tmp_path / "b", progress=False)
    assert not (tmp_path / "b").exists() or not any((tmp_path / "b").iterdir())  # refused before a run folder


def test_a_warm_start_with_dagger_rounds_fits_the_teachers_and_the_learners_games(tiny, tmp_path):
    config = tiny("naval", total_steps=128, imitation={"games": 2, "teacher": "heuristic:samples=4",
                                                       "opponents": ["random"], "epochs": 1, "dagger_rounds": 1})
    run = train(config, runs_root=tmp_path, progress=False)
    fit = json.loads((run / "imitation.json").read_text())
    assert fit["dagger_round"] == 1
    alone = train(tiny("naval", total_steps=128, imitation={"games": 2, "teacher": "heuristic:samples=4",
                                                            "opponents": ["random"], "epochs": 1}),
                  runs_root=tmp_path / "plain", progress=False)
    assert fit["examples"] > json.loads((alone / "imitation.json").read_text())["examples"]


def test_a_run_adds_up_its_cpu_time_over_its_sessions(tiny, tmp_path):
    from cardwar.training.trainer import resume

    run = train(tiny("naval", total_steps=128), runs_root=tmp_path, progress=False)
    first = json.loads((run / "cpu.json").read_text())
    assert first["sessions"] == 1 and first["cpu_seconds"] > 0
    resume(run, total_steps=256, progress=False)
    second = json.loads((run / "cpu.json").read_text())
    assert second["sessions"] == 2 and second["cpu_seconds"] > first["cpu_seconds"]
