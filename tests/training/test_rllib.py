"""RLlib PPO self-play (``cardwar train GAME --backend rllib``): the masked module, short runs of every registered
game on a local Ray, the checkpoint, and the command line's one-line errors. The resume, the ``rllib:`` agent and
the token-authenticated cluster are in test_rllib_resume.py, test_rllib_agent.py and test_rllib_cluster.py."""

from __future__ import annotations

import csv
import sys
import time
from pathlib import Path

import numpy as np
import pytest
import torch

from cardwar import agents, games
from cardwar.cli import main
from cardwar.cli.match import play_agents
from cardwar.training import rllib
from cardwar.training.rllib import (MaskedPPOModule, RLlibAgent, RLlibSettings, count_illegal, default_network,
                                    load_module, make_game_env, masked_logits)
from tests.training.rllib_runs import local_ray  # noqa: F401 (a fixture)

SLOW_GAMES = {"skirmish"}  # a 200-step run with 2 evaluation games takes over a minute on the shared cores
GAMES = [pytest.param(g, marks=pytest.mark.slow) if g in SLOW_GAMES else g for g in games.names()]


def _module(game: str) -> tuple[MaskedPPOModule, object]:
    env = make_game_env(game, rllib.train_scenario(game, None))
    agent = env.possible_agents[0]
    module = MaskedPPOModule(observation_space=env.observation_space(agent), action_space=env.action_space(agent),
                             model_config={"game": game, "hidden": 32, "channels": 8, "blocks": 1})
    return module, env


def test_the_network_follows_the_registry_and_the_observation_shape():
    for game in games.names():
        env = make_game_env(game)
        shape = env.observation_space(env.possible_agents[0])["observation"].shape
        own = games.get(game).extra.get("rllib_network")
        assert default_network(game, shape) == (own or ("conv" if len(shape) == 3 else "mlp"))
    assert default_network("hexwar", (59, 10, 12)) == "hex"  # hexwar's registry entry names its hex network
    assert default_network(None, (16, 24, 221)) == "conv" and default_network(None, (587,)) == "mlp"


def test_the_conv_network_reads_the_last_axis_as_channels():
    """PettingZoo's and RLlib's image convention is [H, W, C]: the first layer mixes the last axis only, so one
    cell's planes change the features of that cell (and its 3x3 neighbours after a block), not of far cells."""
    net = rllib.ConvNet((6, 7, 5), actions=4, channels=3, blocks=0, hidden=8)
    torch.nn.init.constant_(net.stem.weight, 1.0)  # every plane counts, so a change is never cut by the ReLU
    torch.nn.init.zeros_(net.stem.bias)
    x = torch.zeros(1, 6, 7, 5)
    y = x.clone()
    y[0, 2, 3, :] = 1.0  # every plane of the cell at row 2, column 3
    changed = (net(y) - net(x)).abs().sum(dim=1)[0] > 0
    assert changed[2, 3] and changed.sum() == 1


def test_masked_logits_give_illegal_actions_no_probability():
    logits = torch.randn(3, 6) * 50
    mask = torch.tensor([[1, 0, 0, 0, 0, 1], [0, 0, 1, 0, 0, 0], [1, 1, 1, 1, 1, 1]], dtype=torch.int8)
    probs = torch.softmax(masked_logits(logits, mask), dim=1)
    assert torch.all(probs[mask == 0] == 0)
    assert torch.allclose(probs.sum(dim=1), torch.ones(3))
    assert torch.allclose(masked_logits(logits, mask)[mask == 1], logits[mask == 1])  # legal logits untouched


@pytest.mark.parametrize("game", games.names())
def test_module_samples_only_legal_actions_on_real_observations(game):
    from ray.rllib.core.columns import Columns

    module, env = _module(game)
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    batch = {Columns.OBS: {k: torch.as_tensor(v)[None] for k, v in obs.items()}}
    out = module.forward_exploration(batch)[Columns.ACTION_DIST_INPUTS]
    draws = torch.distributions.Categorical(logits=out[0]).sample((2000,)).numpy()
    assert set(draws) <= set(np.flatnonzero(obs["action_mask"]))
    assert module.compute_values({Columns.OBS: batch[Columns.OBS]}).shape == (1,)


def test_count_illegal_finds_a_forbidden_action():
    masks = np.array([[1, 0, 1], [0, 1, 0], [0, 0, 1]], dtype=np.int8)
    assert count_illegal(masks, np.array([0, 1, 2])) == 0
    assert count_illegal(masks, np.array([1, 1, 0])) == 2
    assert count_illegal(masks[:0], np.array([], dtype=np.int64)) == 0


def _flat_weights(module: torch.nn.Module) -> torch.Tensor:
    return torch.cat([p.detach().flatten() for p in module.parameters()])


@pytest.mark.parametrize("game", GAMES)
def test_short_self_play_run_trains_masks_and_checkpoints(game, tmp_path, local_ray):  # noqa: F811
    settings = RLlibSettings(seed=1, total_steps=200, train_batch_size=100, minibatch_size=50, num_epochs=1,
                             hidden=32, channels=8, blocks=1, eval_every=0, eval_games=2, checkpoint_every=100)
    run_dir = rllib.train(game, settings, runs_root=tmp_path, progress=False, command="test")
    rows = list(csv.DictReader((run_dir / "progress.csv").open()))
    steps = [int(r["steps"]) for r in rows]
    assert steps == sorted(steps) and steps[-1] >= 200 and len(rows) >= 2
    assert int(rows[-1]["module_steps_trained"]) >= steps[-1]  # every sampled move went through an update
    # Every sampled action was looked up in the mask observed with it (but each seat's last, which RLlib holds
    # until that seat's next observation), and none was forbidden.
    assert steps[-1] - 2 <= int(rows[-1]["actions_checked"]) <= steps[-1]
    assert all(int(r["illegal_actions"]) == 0 for r in rows)
    evals = list(csv.DictReader((run_dir / "eval.csv").open()))
    assert evals[-1]["opponent"] == "random" and int(evals[-1]["games"]) == 2
    assert (run_dir / "curve.png").stat().st_size > 0
    # The final policy loads without Ray's algorithm, differs from the earlier checkpoint's, and plays a whole
    # game through the arena (which raises on an illegal move).
    final = load_module(run_dir / "final")
    earlier = load_module(next((run_dir / "checkpoints").iterdir()))
    assert not torch.equal(_flat_weights(final), _flat_weights(earlier))
    env = make_game_env(game, rllib.eval_scenario(game, None))
    returns = play_agents(env, RLlibAgent(final), agents.make("random", game, seed=0), seed=9)
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_load_module_refuses_a_folder_that_is_not_a_checkpoint(tmp_path):
    with pytest.raises(ValueError, match="not an RLlib checkpoint"):
        load_module(tmp_path)


def _error_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_ray_address_without_rllib_backend_is_refused(capsys):
    assert main(["train", "naval", "--ray-address", "127.0.0.1:6379"]) == 2
    assert "--backend rllib" in _error_line(capsys)


def test_wrong_ray_address_fails_in_one_line_quickly(capsys):
    start = time.monotonic()
    assert main(["train", "naval", "--backend", "rllib", "--ray-address", "127.0.0.1:1"]) == 2
    assert time.monotonic() - start < 30
    assert "127.0.0.1:1" in _error_line(capsys)


@pytest.mark.parametrize("setting, words", [("lr=fast", "not a float"), ("nonesuch=1", "unknown RLlib setting"),
                                            ("minibatch_size=9999", "more than train_batch_size"),
                                            ("scenario=nowhere", "unknown scenario")])
def test_bad_rllib_settings_are_one_line(setting, words, capsys):
    assert main(["train", "hexwar", "--backend", "rllib", "--set", setting]) == 2
    assert words in _error_line(capsys)


@pytest.mark.parametrize("game", games.names())
def test_every_registered_game_reaches_its_rllib_settings(game, capsys):
    """``cardwar train skirmish --backend rllib`` said "unknown game": every game of the registry is taken, and a
    bad scenario is refused as the game's own (one line, exit 2), before Ray starts."""
    assert main(["train", game, "--backend", "rllib", "--set", "scenario=nowhere"]) == 2
    line = _error_line(capsys)
    assert "unknown game" not in line and ("scenario" in line)


def test_missing_rllib_extra_names_it(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delitem(sys.modules, "cardwar.training.rllib")
    monkeypatch.setitem(sys.modules, "ray.rllib.callbacks.callbacks", None)  # as if ray[rllib] were not installed
    assert main(["train", "naval", "--backend", "rllib", "--steps", "10"]) == 2
    assert "pip install 'cardwar[rllib]'" in _error_line(capsys)
    assert not Path("runs").exists()  # refused before a run folder was made
