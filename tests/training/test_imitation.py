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


def test_an_interrupted_collection_plays_only_the_games_it_had_not_saved(tmp_path):
    from cardwar.training import imitation

    folder = tmp_path / "imitation"
    first = collect("naval", 6, teacher="heuristic:samples=4", opponents=("random",), seed=5, workers=1,
                    progress=False, folder=folder)
    saved = sorted(p.name for p in folder.glob("games_*.npz"))
    assert saved == [f"games_{g:06d}-{g:06d}.npz" for g in range(6)] and imitation.games_kept(folder) == 6
    (folder / saved[2]).unlink()  # as if the run had been stopped before this job ended
    (folder / f"{saved[3]}.partial").write_bytes(b"half a file")  # and a worker had been killed writing one
    written = {name: (folder / name).stat().st_mtime_ns for name in saved if name != saved[2]}
    again = collect("naval", 6, teacher="heuristic:samples=4", opponents=("random",), seed=5, workers=1,
                    progress=False, folder=folder)
    assert {name: (folder / name).stat().st_mtime_ns for name in written} == written  # not played again
    assert (folder / saved[2]).is_file() and not list(folder.glob("*.partial"))
    for name in ("obs", "masks", "actions", "results"):  # the same examples, in the same order
        np.testing.assert_array_equal(getattr(first, name), getattr(again, name))


def test_an_interrupted_fit_goes_on_from_its_last_epoch_to_the_same_policy(tiny, tmp_path):
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardwar.training.selfplay_env import SelfPlayEnv

    demos = collect("naval", 2, teacher="heuristic:samples=4", opponents=("random",), seed=0, workers=1,
                    progress=False)

    def fresh():
        return new_model(tiny("naval"), DummyVecEnv([lambda: SelfPlayEnv("naval")] * 2), tmp_path).policy

    straight = fresh()
    pretrain(straight, demos, epochs=3, batch_size=16, learning_rate=1e-3, progress=False)
    state = tmp_path / "fit.pt"
    stopped = fresh()
    pretrain(stopped, demos, epochs=1, batch_size=16, learning_rate=1e-3, progress=False, state_path=state)
    assert torch.load(state, weights_only=True)["epoch"] == 1
    resumed = fresh()  # a new process: the policy as it was before the fit, the fit state on disk
    stats = pretrain(resumed, demos, epochs=3, batch_size=16, learning_rate=1e-3, progress=False, state_path=state)
    assert torch.load(state, weights_only=True)["epoch"] == 3 and stats["examples"] == len(demos)
    for a, b in zip(straight.state_dict().values(), resumed.state_dict().values()):
        torch.testing.assert_close(a, b)
