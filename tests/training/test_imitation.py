"""Imitation warm start: examples are the teacher's legal moves from its own view, and the policy fits them."""

from __future__ import annotations

import numpy as np

from cardwar.training.imitation import _accuracy, collect, pretrain
from cardwar.training.trainer import new_model


def test_examples_are_the_teachers_legal_moves_and_the_policy_learns_them(tiny, tmp_path):
    demos = collect("naval", 4, teacher="heuristic:samples=4", opponents=("random",), seed=0, workers=1,
                    progress=False)
    assert len(demos) > 20
    masks = demos.mask_rows(np.arange(len(demos)))
    assert masks[np.arange(len(demos)), demos.actions].all()  # every recorded move was legal
    assert set(np.unique(demos.results)) <= {-1.0, 0.0, 1.0}
    assert demos.obs.shape == (len(demos), 587)

    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardwar.training.selfplay_env import SelfPlayEnv

    model = new_model(tiny("naval"), DummyVecEnv([lambda: SelfPlayEnv("naval")]), tmp_path)
    everything = np.arange(len(demos))
    before = _accuracy(model.policy, demos, everything)
    stats = pretrain(model.policy, demos, epochs=40, batch_size=64, learning_rate=3e-3, progress=False)
    after = _accuracy(model.policy, demos, everything)
    assert after > max(before, 0.5), (before, after, stats)


def test_a_run_with_a_warm_start_records_the_fit(tiny, tmp_path):
    from cardwar.training.trainer import train

    config = tiny("naval", total_steps=128, imitation={"games": 2, "teacher": "heuristic:samples=4",
                                                       "opponents": ["random"], "epochs": 1})
    run = train(config, runs_root=tmp_path, progress=False)
    import json

    fit = json.loads((run / "imitation.json").read_text())
    assert fit["examples"] > 0 and 0.0 <= fit["accuracy"] <= 1.0
