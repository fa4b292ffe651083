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


def test_expert_iteration_keeps_the_searchs_visit_shares_and_the_policy_fits_them(tiny, tmp_path):
    """targets: visits - each example holds the root's visit shares of the search that chose the move."""
    import torch

    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardwar.training.imitation import TOP_K
    from cardwar.training.selfplay_env import SelfPlayEnv

    demos = collect("naval", 2, teacher="mcts:iterations=40", opponents=("random",), seed=0, workers=1,
                    progress=False)
    assert demos.target_idx.shape == demos.target_p.shape == (len(demos), TOP_K)
    assert np.allclose(demos.target_p.sum(axis=1), 1.0, atol=1e-5)
    masks = demos.mask_rows(np.arange(len(demos)))
    rows = np.repeat(np.arange(len(demos))[:, None], TOP_K, axis=1)
    assert masks[rows, demos.target_idx][demos.target_p > 0].all()  # every share is on a legal move
    spread = (demos.target_p > 0).sum(axis=1)
    assert (spread > 1).mean() > 0.5  # most searched moves give a distribution, not one move
    share_of_played = np.where(demos.target_idx == demos.actions[:, None], demos.target_p, 0.0).max(axis=1)
    assert np.allclose(share_of_played, demos.target_p.max(axis=1))  # the search plays a most visited move

    model = new_model(tiny("naval"), DummyVecEnv([lambda: SelfPlayEnv("naval")]), tmp_path)

    def cross_entropy() -> float:
        obs = torch.as_tensor(demos.obs, dtype=torch.float32)
        with torch.no_grad():
            dist = model.policy.get_distribution(obs, action_masks=masks)
            logp = torch.log_softmax(dist.distribution.logits, dim=1)
            picked = logp.gather(1, torch.as_tensor(demos.target_idx, dtype=torch.int64)).numpy()
        return float(-(np.where(demos.target_p > 0, demos.target_p * picked, 0.0)).sum(axis=1).mean())

    p = demos.target_p.astype(np.float64)
    entropy = float(-(np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)).sum(axis=1).mean())  # the floor
    before = cross_entropy() - entropy  # the KL divergence from the search's policy
    pretrain(model.policy, demos, epochs=30, batch_size=64, learning_rate=3e-3, progress=False, targets="visits")
    after = cross_entropy() - entropy
    assert after < 0.5 * before, (before, after)


def test_visit_targets_need_a_searching_teacher(tiny):
    import pytest

    from cardwar.training.config import TrainConfigError

    with pytest.raises(TrainConfigError, match="visits needs a searching teacher"):
        tiny("naval", imitation={"games": 2, "teacher": "heuristic", "targets": "visits"})
    with pytest.raises(TrainConfigError, match="use moves or visits"):
        tiny("naval", imitation={"games": 2, "teacher": "mcts", "targets": "counts"})
