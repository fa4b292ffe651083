"""Runs a researcher can trust: exact resume, whole-rollout budgets, events at rollout boundaries, versions.

The exact-resume test runs the same tiny config twice as real `cardwar train` processes (two env
worker processes each): once straight through, once interrupted by Ctrl-C, resumed, killed with
SIGKILL (no saving at all) and resumed again. The final weights, the opponent pool and the
evaluations must be identical.
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest
import torch
import yaml

from cardwar.training.evaluate import evaluate, read_csv
from cardwar.training.trainer import latest_checkpoint, record_versions, train
from tests.training.processes import assert_all_ended, descendants, wait_until

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="the tests read /proc")

NAVAL = {
    "game": "naval", "name": "exact", "seed": 5, "total_steps": 640, "checkpoint_every": 128,
    "env": {"n_envs": 2, "vec_env": "subproc"},
    "policy": {"features": "mlp", "net_arch": [32]},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 2},
    "opponents": {"heuristic": "heuristic:samples=4", "snapshot_every": 128, "max_snapshots": 2,
                  "schedule": [{"from_step": 0, "mix": {"random": 0.5, "heuristic": 0.5}},
                               {"from_step": 200, "mix": {"snapshots": 0.5, "random": 0.3, "heuristic": 0.2}}]},
    "eval": {"every": 256, "games": 2, "opponents": ["random"]},
}


def _weights(path: Path) -> dict[str, torch.Tensor]:
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(path, device="cpu")
    return {**{f"policy.{k}": v for k, v in model.policy.state_dict().items()},
            **{f"optimizer.{k}": v for k, v in _flat(model.policy.optimizer.state_dict()["state"]).items()}}


def _flat(state: dict) -> dict[str, torch.Tensor]:
    return {f"{k}.{name}": t for k, entry in state.items() for name, t in entry.items() if torch.is_tensor(t)}


def _eval_rows(run: Path) -> list[dict[str, str]]:
    """eval.csv without its wall-clock column (the one thing that differs between two runs)."""
    with (run / "eval.csv").open() as f:
        return [{k: v for k, v in row.items() if k != "seconds"} for row in csv.DictReader(f)]


def _checkpoint_steps(run: Path) -> list[int]:
    return sorted(int(p.stem.split("_")[-1]) for p in (run / "checkpoints").glob("state_*.json"))


@pytest.mark.slow
def test_a_run_interrupted_killed_and_resumed_ends_exactly_as_the_uninterrupted_one(launch, tmp_path):
    config = tmp_path / "exact.yaml"
    config.write_text(yaml.safe_dump(NAVAL))

    def start(runs: str) -> object:
        return launch(["-m", "cardwar", "train", "naval", "--config", str(config), "--runs", str(tmp_path / runs),
                       "--quiet"])

    straight = start("straight")
    cut = start("cut")
    run = wait_until(lambda: next((tmp_path / "cut").glob("naval__*"), None), 60, "the run folder")
    wait_until(lambda: 128 in _checkpoint_steps(run), 180, "the checkpoint at step 128")
    code, below = cut.signal_and_wait(signal.SIGINT)  # Ctrl-C: a checkpoint at the last rollout boundary
    assert code == 130 and "(the last rollout boundary)" in cut.text(), cut.text()
    assert_all_ended(launch.tag + "-none", below)  # its workers are gone (the straight run still goes on)
    first_stop = latest_checkpoint(run)[1]["num_timesteps"]
    assert first_stop >= 128 and first_stop % 128 == 0  # rollouts of 64 steps x 2 envs

    again = launch(["-m", "cardwar", "train", "naval", "--resume", str(run), "--quiet"])
    wait_until(lambda: any(s > first_stop for s in _checkpoint_steps(run)), 180, "a checkpoint after the resume")
    below = descendants(again.pid)
    again.kill()  # SIGKILL: nothing is saved, the run goes on from its last periodic checkpoint
    assert_all_ended(launch.tag + "-none", below)
    assert not (run / "final.zip").exists(), "the kill came after the end: the test proves nothing"

    last = launch(["-m", "cardwar", "train", "naval", "--resume", str(run), "--quiet"])
    assert last.wait(180) == 0, last.text()
    assert straight.wait(180) == 0, straight.text()
    reference = next((tmp_path / "straight").glob("naval__*"))

    a, b = _weights(reference / "final.zip"), _weights(run / "final.zip")
    assert a.keys() == b.keys() and len(a) > 4
    assert [k for k in a if not torch.equal(a[k], b[k])] == []
    assert _eval_rows(reference) == _eval_rows(run)
    assert [r["step"] for r in _eval_rows(run)] == ["0", "256", "512", "640"]  # one row per step, none twice
    end_a, end_b = latest_checkpoint(reference)[1], latest_checkpoint(run)[1]
    assert end_a["num_timesteps"] == end_b["num_timesteps"] == 640
    assert end_a["snapshots"] == end_b["snapshots"] and end_a["mix"] == end_b["mix"]
    for name in end_a["snapshots"]:  # the pool's members are the same networks
        sa, sb = _weights(reference / "snapshots" / name), _weights(run / "snapshots" / name)
        assert all(torch.equal(sa[k], sb[k]) for k in sa)
    assert_all_ended(launch.tag)


def test_events_fall_on_rollout_boundaries_and_the_budget_rounding_is_said(tiny, tmp_path, capsys):
    # Rollouts of 128 steps; evaluations due every 100 and a budget of 300: neither is a whole rollout.
    config = tiny("naval", total_steps=300, eval={"every": 100, "games": 2, "opponents": ["random"]},
                  checkpoint_every=100, opponents={"snapshot_every": 100, "max_snapshots": 3,
                                                   "schedule": [{"from_step": 0, "mix": {"random": 1.0}}]})
    run = train(config, runs_root=tmp_path, progress=False)
    err = capsys.readouterr().err
    notes = [ln for ln in err.splitlines() if "whole number of rollouts" in ln]
    assert len(notes) == 1 and "the run trains 384 steps" in notes[0], err
    assert json.loads((run / "budget.json").read_text()) == {
        "total_steps": 300, "trained_steps": 384, "rollout": 128, "n_steps": 64, "n_envs": 2}
    rows = read_csv(run / "eval.csv")
    assert [p.step for p in rows] == [0, 128, 256, 384]  # the first boundary at or past 100, 200, 300; once each
    assert _checkpoint_steps(run) == [0, 128, 256, 384]
    assert sorted(p.name for p in (run / "snapshots").glob("*.zip")) == [
        "snapshot_000000128.zip", "snapshot_000000256.zip"]  # none at the end: no rollout follows it

    # The evaluation at step 256 used the weights of step 256: the same games with the checkpoint of
    # that step, played again here, give the same results; the snapshot of that step is that network.
    from sb3_contrib import MaskablePPO

    model = MaskablePPO.load(run / "checkpoints" / "model_000000256.zip", device="cpu")
    assert model.num_timesteps == 256
    again = evaluate(model, "naval", "random", 2, seed=10_000, step=256)
    row = next(p for p in rows if p.step == 256)
    assert (again.wins, again.draws, again.losses) == (row.wins, row.draws, row.losses)
    snap = _weights(run / "snapshots" / "snapshot_000000256.zip")
    ckpt = _weights(run / "checkpoints" / "model_000000256.zip")
    assert all(torch.equal(snap[k], ckpt[k]) for k in ckpt)
    assert json.loads((run / "versions.json").read_text())["cpu_count"] == os.cpu_count()


def test_the_run_folder_records_the_versions(tmp_path, monkeypatch):
    import platform

    import cardwar

    record_versions(tmp_path)
    record = json.loads((tmp_path / "versions.json").read_text())
    assert record["cardwar"] == cardwar.__version__ and record["python"] == platform.python_version()
    for name in ("torch", "numpy", "gymnasium", "pettingzoo", "stable-baselines3", "sb3-contrib"):
        assert record[name] == version(name)
    assert record["cpu_count"] == os.cpu_count()
    package = Path(cardwar.__file__).resolve().parent
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=package, capture_output=True, text=True)
    commit = record["cardwar_git_commit"]
    if head.returncode == 0:
        assert commit.removesuffix("-dirty") == head.stdout.strip()
    else:
        assert commit is None

    # Outside a checkout, or without git at all, the commit is null and nothing is printed.
    from cardwar.training import trainer

    assert trainer.git_commit(tmp_path / "nowhere") is None
    monkeypatch.setenv("PATH", str(tmp_path))  # no git to run
    assert trainer.git_commit(package) is None

    # A resume under the same versions changes nothing; under others it is written down.
    before = (tmp_path / "versions.json").read_text()
    monkeypatch.setattr(trainer, "versions", lambda: dict(record, torch="0.0.1"))
    trainer.record_versions(tmp_path)
    after = json.loads((tmp_path / "versions.json").read_text())
    assert {k: v for k, v in after.items() if k != "resumed"} == json.loads(before)
    assert after["resumed"] == [dict(record, torch="0.0.1")]


@pytest.mark.parametrize("game, actions", [("naval", "moves"), ("naval", "steps"), ("hexwar", "moves")])
def test_an_env_state_taken_mid_game_goes_on_exactly_as_the_env_itself(game, actions):
    """What a checkpoint keeps of each env: a copy that plays on as the original does, move for move,
    through new games, with the pool's snapshot agent and the heuristic drawing from their generators."""
    import pickle

    import numpy as np

    from cardwar.agents.ppo_agent import pretrained_path
    from cardwar.training.opponents import OpponentPool
    from cardwar.training.selfplay_env import SelfPlayEnv
    from cardwar.training.vec_env import dumps_state

    scenario = "random:train" if game == "hexwar" else None
    pool = OpponentPool(game, mix={"snapshots": 0.5, "heuristic": 0.3, "random": 0.2}, heuristic="heuristic",
                        snapshots=[str(pretrained_path(game))])
    env = SelfPlayEnv(game, scenario=scenario, actions=actions, pool=pool)
    env.reset(seed=7)
    rng = np.random.default_rng(1)
    for _ in range(5):  # into a game
        if env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))[2]:
            env.reset()
    blob = dumps_state(env)
    assert len(blob) < 1_000_000  # the snapshot's network is read from its file again, not copied
    copy = pickle.loads(blob)
    games, moves = 0, 0
    while games < 3 and moves < 400:
        mask = env.action_masks()
        assert np.array_equal(mask, copy.action_masks())
        action = int(rng.choice(np.flatnonzero(mask)))
        a, b = env.step(action), copy.step(action)
        moves += 1
        assert np.array_equal(a[0], b[0]) and a[1:4] == b[1:4]
        if a[2]:
            games += 1
            (oa, ia), (ob, ib) = env.reset(), copy.reset()
            assert np.array_equal(oa, ob) and (ia["seat"], ia["opponent"]) == (ib["seat"], ib["opponent"])
    assert games >= 1
