"""Training for Tank Attack: the square-grid policy ``grid_fcn`` (shapes, masking, off-map cells, the stage and
the decision's cells it reads), its config checks, the committed config, a tiny `cardwar train` run that saves
and plays, and the shipped model (loads, plays legal games on held-out maps)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces

from cardwar import agents
from cardwar.agents.ppo_agent import PPOAgent, pretrained_path
from cardwar.arena import play_agents
from cardwar.envs import make_raw_env
from cardwar.envs.tankattack.actions import NUM_ACTIONS
from cardwar.envs.tankattack.board import NUM_CELLS
from cardwar.envs.tankattack.observation import NUM_PLANES, OBS_SHAPE, P, STAGES
from cardwar.training.callbacks import eval_scenario
from cardwar.training.config import TrainConfigError, config_from_dict
from cardwar.training.grid_policy import GridPolicy
from tests.training.policy_probes import assert_only_legal_mass, probe_policy, random_decisions
from tests.training.test_skirmish_training import logits_and_values

CONFIG = Path(__file__).parents[2] / "configs" / "training" / "tankattack.yaml"


def make_policy(channels: int = 8, blocks: int = 1, randomise: bool = True) -> GridPolicy:
    return probe_policy(GridPolicy, OBS_SHAPE, NUM_ACTIONS, channels, blocks, randomise)


def decisions(scenario: str, count: int, seed: int = 0) -> list[dict]:
    """``count`` observations (with masks) of the seat to decide, from random play."""
    return random_decisions("tankattack", scenario, count, seed)


# ---------------------------------------------------------------- the policy
def test_logits_cover_every_action_and_masking_leaves_only_legal_ids():
    policy = make_policy()
    obs = decisions("random:train", 40) + decisions("trench_raid", 16, seed=1)
    batch = np.stack([o["observation"] for o in obs])
    masks = np.stack([o["action_mask"].astype(bool) for o in obs])
    assert batch.shape[1:] == OBS_SHAPE == (24, 16, NUM_PLANES) and masks.shape[1] == NUM_ACTIONS == NUM_CELLS + 32
    logits, values = logits_and_values(policy, batch)
    assert logits.shape == (len(obs), NUM_ACTIONS) and values.shape == (len(obs), 1)
    assert torch.isfinite(logits).all() and torch.isfinite(values).all()
    # sharp (random weights) and as PPO starts (near uniform)
    probs = assert_only_legal_mass([policy, make_policy(randomise=False)], batch, masks)
    assert (probs[masks] > 0.5 / NUM_ACTIONS).all()  # a fresh policy gives every legal id a fair chance


def test_off_map_cells_change_nothing_on_the_map():
    """Also the layout: the logit of cell id ``row * 16 + col`` (actions.py) is read at ``obs[row, col]``; a
    transposed layout would put off-map cells under on-map ids."""
    policy = make_policy()
    obs = np.stack([o["observation"] for o in decisions("trench_raid", 6, seed=4)])
    off = obs[..., P["off_map"]] == 1  # [B, rows, cols]
    assert off.any(), "trench_raid (8 x 12) uses the top-left part of the 24 x 16 frame"
    noisy = obs.copy()
    rng = np.random.default_rng(0)
    planes = np.array([p for p in range(NUM_PLANES) if p != P["off_map"] and not p >= P[f"stage_{STAGES[0]}"]])
    for b in range(len(obs)):  # anything written on off-map cells (not the constant planes, not off_map itself)
        rows, cols = np.nonzero(off[b])
        noisy[b][rows[:, None], cols[:, None], planes[None]] = rng.random((rows.size, len(planes)))
    a_logits, a_values = logits_and_values(policy, obs)
    b_logits, b_values = logits_and_values(policy, noisy)
    on = torch.as_tensor(~off.reshape(len(obs), -1))
    assert torch.allclose(a_logits[:, :NUM_CELLS][on], b_logits[:, :NUM_CELLS][on], atol=1e-5)
    assert torch.allclose(a_logits[:, NUM_CELLS:], b_logits[:, NUM_CELLS:], atol=1e-5)
    assert torch.allclose(a_values, b_values, atol=1e-5)


def test_the_heads_read_the_stage_and_the_pending_element():
    policy = make_policy()
    obs = next(o["observation"] for o in decisions("random:train", 400, seed=1)
               if o["observation"][..., P["pending_element"]].sum() == 1)
    stage = int(np.argmax(obs[0, 0, P[f"stage_{STAGES[0]}"]:P[f"stage_{STAGES[0]}"] + len(STAGES)]))
    other_stage = obs.copy()
    other_stage[..., P[f"stage_{STAGES[0]}"] + stage] = 0.0
    other_stage[..., P[f"stage_{STAGES[(stage + 1) % len(STAGES)]}"]] = 1.0
    here = tuple(np.argwhere(obs[..., P["pending_element"]] == 1)[0])
    other = next(tuple(c) for c in np.argwhere(obs[..., P["off_map"]] == 0) if tuple(c) != here)
    moved = obs.copy()
    moved[..., P["pending_element"]] = 0.0
    moved[(*other, P["pending_element"])] = 1.0
    logits, _ = logits_and_values(policy, np.stack([obs, other_stage, moved]))
    assert not torch.allclose(logits[0, :NUM_CELLS], logits[1, :NUM_CELLS]), "cell logits depend on the stage"
    assert not torch.allclose(logits[0, NUM_CELLS:], logits[1, NUM_CELLS:]), "the other ids depend on the stage"
    assert not torch.allclose(logits[0, NUM_CELLS:], logits[2, NUM_CELLS:]), "they read the pending element"


def test_a_policy_for_another_game_is_refused():
    with pytest.raises(ValueError, match="Tank Attack"):
        GridPolicy(spaces.Box(0.0, 1.0, (59, 10, 12), dtype=np.float32), spaces.Discrete(843), lambda _: 3e-4)


# ---------------------------------------------------------------- configs
def test_grid_fcn_belongs_to_tankattack():
    with pytest.raises(TrainConfigError, match="grid_fcn reads Tank Attack"):
        config_from_dict({"game": "hexwar", "policy": {"features": "grid_fcn"}})
    with pytest.raises(TrainConfigError, match="hex game"):
        config_from_dict({"game": "tankattack", "policy": {"features": "hex_fcn"}})
    with pytest.raises(TrainConfigError, match="grid_fcn"):  # the list of names says it exists
        config_from_dict({"game": "tankattack", "policy": {"features": "grid"}})


def test_the_committed_config_loads():
    from cardwar.training.config import load_config
    from cardwar.training.trainer import check_env_settings

    config = load_config(CONFIG)
    assert config.game == "tankattack" and config.policy.features == "grid_fcn"
    assert config.imitation.games > 0 and config.imitation.teacher == "heuristic"
    assert config.imitation.dagger_rounds >= 1
    assert eval_scenario(config) == "random:test" and config.env.scenario.startswith("random:train")
    check_env_settings(config)


# ---------------------------------------------------------------- a run
def tiny() -> object:
    return config_from_dict({
        "game": "tankattack", "name": "tiny", "seed": 3, "total_steps": 128, "checkpoint_every": 128,
        "env": {"n_envs": 2, "vec_env": "dummy", "scenario": "random:train*2,trench_raid"},
        "policy": {"features": "grid_fcn", "conv_channels": 8, "conv_blocks": 1},
        "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
        "opponents": {"snapshot_every": 64, "max_snapshots": 2, "schedule": [{"from_step": 0, "mix": {"random": 1.0}}]},
        "eval": {"every": 128, "games": 2, "opponents": ["random"], "scenario": "trench_raid"},
        "imitation": {"games": 1, "teacher": "heuristic", "opponents": ["random"], "epochs": 1, "dagger_rounds": 1}})


def test_a_tiny_run_trains_saves_and_its_model_plays_legal_moves(tmp_path):
    from cardwar.training.trainer import export_for_play, train

    run = train(tiny(), tmp_path, progress=False)
    assert (run / "final.zip").is_file() and (run / "imitation.json").is_file()
    play = export_for_play(run / "final.zip", tmp_path / "play.zip")
    agent = PPOAgent("tankattack", path=str(play), cache=False)
    assert isinstance(agent.model.policy, GridPolicy) and agent.model.num_timesteps == 128
    env = make_raw_env("tankattack", "trench_raid")
    returns = play_agents(env, agent, agents.make("random", "tankattack", seed=1), seed=5)  # raises if illegal
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


# ---------------------------------------------------------------- the shipped model
def test_the_shipped_model_loads_and_plays_legal_games_on_held_out_maps():
    path = pretrained_path("tankattack")
    assert path.is_file() and path.stat().st_size < 8_000_000, "agents/pretrained/tankattack_ppo.zip is shipped"
    agent = agents.make("ppo", "tankattack")  # the registry's `ppo` is the shipped model
    assert isinstance(agent.model.policy, GridPolicy)
    env = make_raw_env("tankattack", "random:test")
    for seed, seat in ((11, 0), (12, 1)):
        other = agents.make("random", "tankattack", seed=seed)
        players = (agent, other) if seat == 0 else (other, agent)
        returns = play_agents(env, *players, seed=seed)  # play_agents raises on an illegal move
        assert returns[seat] in (-1.0, 0.0, 1.0)
