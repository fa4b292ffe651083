"""A policy trained in OpenSpiel (NFSP) is saved, read back as the same function, and plays a cardwar match."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
torch = pytest.importorskip("torch")

from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.pytorch import nfsp  # noqa: E402

from cardwar.openspiel import games  # noqa: E402
from cardwar.openspiel.policy import read_policy, write_policy  # noqa: E402
from cardwar.openspiel.train import main as train_main  # noqa: E402
from cardwar.openspiel.train import train_nfsp  # noqa: E402


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tiny NFSP run on naval (30 games, one hidden layer of 8), saved by the training entry point."""
    out = tmp_path_factory.mktemp("nfsp") / "naval.pt"
    threads, np_state = torch.get_num_threads(), np.random.get_state()
    try:
        summary = train_nfsp("naval", {"seed": 5}, episodes=30, hidden=[8], out=out, seed=1)
    finally:
        torch.set_num_threads(threads)
        np.random.set_state(np_state)  # NFSP samples from numpy's global generator
    assert summary["steps"] > 256  # past min_buffer_size_to_learn: the average policy was fitted
    return out


def test_the_saved_policy_is_nfsps_average_policy(tmp_path: Path) -> None:
    """The file read back gives the same probabilities as NFSP's own average-policy step (torch) on a state."""
    env = rl_environment.Environment(games.load("naval", seed=2))
    size, actions = env.observation_spec()["info_state"][0], env.action_spec()["num_actions"]
    agent = nfsp.NFSP(0, size, actions, [8, 4], reservoir_buffer_capacity=10, anticipatory_param=0.5)
    path = tmp_path / "p.pt"
    write_policy(path, game="naval", algorithm="nfsp", params={"seed": 2}, obs_size=size, num_actions=actions,
                 networks=[agent._avg_network, agent._avg_network])
    policy = read_policy(path)
    ts = env.reset()
    p = ts.observations["current_player"]
    with agent.temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
        out = agent.step(ts, is_evaluation=True)
    mask = np.zeros(actions, np.int8)
    mask[ts.observations["legal_actions"][p]] = 1
    ours = policy.probabilities(p, np.asarray(ts.observations["info_state"][p]), mask)
    np.testing.assert_allclose(ours, out.probs, atol=1e-6)
    assert policy.game == "naval" and policy.params == {"seed": 2}


def test_a_trained_policy_plays_a_whole_cardwar_match(trained: Path) -> None:
    """``cardwar match naval openspiel:policy=PATH random``: every game ends, seats swapped in pairs."""
    cmd = [sys.executable, "-m", "cardwar", "match", "naval", f"openspiel:policy={trained}", "random",
           "--games", "2", "--json"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["games"] == 2
    assert result["wins_a"] + result["wins_b"] + result["draws"] == 2


def test_the_policy_of_another_game_is_refused(trained: Path) -> None:
    cmd = [sys.executable, "-m", "cardwar", "match", "hexwar", f"openspiel:policy={trained}", "random", "--games", "2"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "trained on naval, not hexwar" in done.stderr


def test_training_a_bad_rule_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert train_main(["naval", "--rule", "hand_size=x", "--out", str(tmp_path / "p.pt")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "hand_size" in err
    assert train_main(["naval", "--rule", "bastion_mode=true", "--out", str(tmp_path / "p.pt")]) == 2
    assert "unknown naval rule option 'bastion_mode'" in capsys.readouterr().err
    assert not (tmp_path / "p.pt").exists()
