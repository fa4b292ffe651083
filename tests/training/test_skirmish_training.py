"""Training for the squad skirmish: the hex-aware policy (shapes, hex neighbourhoods, masking, the figure and
step it reads), scenario mixes, a tiny `cardwar train` run that saves and reloads, the imitation warm start
(agreement with the teacher above chance) and the shipped model (loads, plays legal moves)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from gymnasium import spaces

from cardwar.agents.ppo_agent import PPOAgent, pretrained_path
from cardwar.arena import play_agents
from cardwar.envs import make_raw_env
from cardwar.envs.skirmish.actions import CHOICE, GRID, HEIGHT, N_ACTIONS, N_CELLS, WIDTH, Step
from cardwar.envs.skirmish.observation import NUM_PLANES, OBS_SHAPE, P, PLANES_FIRST_SHAPE
from cardwar import agents
from cardwar.training.callbacks import eval_scenario
from cardwar.training.config import TrainConfigError, config_from_dict
from cardwar.training.hex_policy import HexConv2d
from cardwar.training.scenario_mix import MixedScenarioEnv, ScenarioMixError, make_env, parse_mix
from cardwar.training.skirmish_policy import SkirmishPolicy
from tests.training.policy_probes import assert_only_legal_mass, probe_policy, random_decisions

MIX = "random:train*3,duel"


def make_policy(channels: int = 8, blocks: int = 1, randomise: bool = True,
                shape: tuple[int, ...] = OBS_SHAPE) -> SkirmishPolicy:
    return probe_policy(SkirmishPolicy, shape, N_ACTIONS, channels, blocks, randomise)


def decisions(scenario: str, count: int, seed: int = 0) -> list[dict]:
    """``count`` observations (with masks) of the seat to move, from random play."""
    return random_decisions("skirmish", scenario, count, seed)


def logits_and_values(policy: SkirmishPolicy, obs: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    with torch.no_grad():
        latent_pi, latent_vf = policy.mlp_extractor(policy.extract_features(torch.as_tensor(obs)))
        return policy.action_net(latent_pi), policy.value_net(latent_vf)


# ---------------------------------------------------------------- the policy
def test_the_hex_kernel_reaches_exactly_the_skirmish_grids_neighbours():
    # RULES.md §1.1: a hex has six neighbours; GRID.steps (the engine's own adjacency) names them.
    conv = HexConv2d(1, 1, bias=False)
    with torch.no_grad():
        conv.weight.fill_(1.0)
        impulses = torch.eye(N_CELLS).view(N_CELLS, 1, HEIGHT, WIDTH)
        out = conv(impulses).view(N_CELLS, N_CELLS)  # [source cell, output cell]
    for cell in range(N_CELLS):
        sources = {int(s) for s in torch.nonzero(out[:, cell]).flatten()}
        assert sources == {n for n in GRID.steps(cell) if 0 <= n < N_CELLS} | {cell}, GRID.label(cell)


def test_logits_cover_every_action_and_masking_leaves_only_legal_ids():
    policy = make_policy()
    obs = decisions("random:train", 24) + decisions("duel", 8)
    batch = np.stack([o["observation"] for o in obs])
    masks = np.stack([o["action_mask"].astype(bool) for o in obs])
    logits, values = logits_and_values(policy, batch)
    assert logits.shape == (len(obs), N_ACTIONS) and values.shape == (len(obs), 1)
    assert torch.isfinite(logits).all() and torch.isfinite(values).all()
    # sharp (random weights) and as PPO starts (near uniform)
    probs = assert_only_legal_mass([policy, make_policy(randomise=False)], batch, masks)
    assert (probs[masks] > 0.5 / N_ACTIONS).all()  # a fresh policy gives every legal id a fair chance


def test_off_map_hexes_change_nothing_on_the_map():
    policy = make_policy()
    obs = np.stack([o["observation"] for o in decisions("random:train", 6, seed=4)])
    off = obs[..., P["ground_off"]] == 1  # [B, rows, cols]
    assert off.any(), "random maps are smaller than the grid"
    noisy = obs.copy()
    rng = np.random.default_rng(0)
    for b in range(len(obs)):  # anything written on off-map hexes (but the off-map plane itself)
        planes = [p for p in range(NUM_PLANES) if p != P["ground_off"]]
        rows, cols = np.nonzero(off[b])
        noisy[b][rows[:, None], cols[:, None], np.array(planes)[None]] = rng.random((rows.size, len(planes)))
    a_logits, a_values = logits_and_values(policy, obs)
    b_logits, b_values = logits_and_values(policy, noisy)
    on = ~off.reshape(len(obs), -1)
    assert torch.allclose(a_logits[:, :N_CELLS][torch.as_tensor(on)], b_logits[:, :N_CELLS][torch.as_tensor(on)],
                          atol=1e-5)
    assert torch.allclose(a_logits[:, N_CELLS:], b_logits[:, N_CELLS:], atol=1e-5)
    assert torch.allclose(a_values, b_values, atol=1e-5)


def test_the_heads_read_the_ordered_figure_and_the_step():
    policy = make_policy()
    obs = next(o["observation"] for o in decisions("duel", 200, seed=1)
               if o["observation"][..., P["acting_unit"]].sum() == 1 and o["observation"][0, 0, P["step_mode"]] == 1)
    own = np.argwhere(obs[..., P["own_figure"]] == 1)
    here = tuple(np.argwhere(obs[..., P["acting_unit"]] == 1)[0])
    other = next(tuple(c) for c in own if tuple(c) != here)
    moved = obs.copy()
    moved[..., P["acting_unit"]] = 0.0
    moved[(*other, P["acting_unit"])] = 1.0  # the same board, another figure asked for its mode
    destination = obs.copy()
    destination[..., P["step_mode"]:P["step_mode"] + len(Step)] = 0.0
    destination[..., P["step_mode"] + Step.DESTINATION] = 1.0  # the same figure, asked for a hex
    logits, _ = logits_and_values(policy, np.stack([obs, moved, destination]))
    walk = CHOICE["walk"]
    assert not torch.isclose(logits[0, walk], logits[1, walk]), "the mode's logits depend on the figure"
    assert not torch.allclose(logits[0, :N_CELLS], logits[2, :N_CELLS]), "hex logits depend on the step"


def test_the_same_weights_read_either_layout_alike():
    """The trunk permutes the channels-last observation to planes first (issue 28): a policy built for the
    planes-first form (models trained before) gives the same logits and values on the same positions."""
    last, first = make_policy(shape=OBS_SHAPE), make_policy(shape=PLANES_FIRST_SHAPE)
    assert all(torch.equal(a, b) for a, b in zip(last.state_dict().values(), first.state_dict().values()))
    obs = np.stack([o["observation"] for o in decisions("random:train", 12, seed=2)])
    a_logits, a_values = logits_and_values(last, obs)
    b_logits, b_values = logits_and_values(first, np.ascontiguousarray(obs.transpose(0, 3, 1, 2)))
    assert torch.equal(a_logits, b_logits) and torch.equal(a_values, b_values)


def test_a_policy_for_another_game_is_refused():
    with pytest.raises(ValueError, match="skirmish"):
        SkirmishPolicy(spaces.Box(0.0, 1.0, (59, 10, 12), dtype=np.float32), spaces.Discrete(843), lambda _: 3e-4)


# ---------------------------------------------------------------- scenarios and configs
def test_a_scenario_mix_draws_each_game_by_weight_and_by_seed():
    assert parse_mix("random:train*12, duel") == [("random:train", 12), ("duel", 1)]
    for bad in ("duel*0", "duel*x", ",duel"):
        with pytest.raises(ScenarioMixError):
            parse_mix(bad)
    env = make_env("skirmish", MIX)
    assert isinstance(env, MixedScenarioEnv)
    drawn = []
    for seed in range(200):
        env.reset(seed=seed)
        drawn.append(env.scenario_name)
        if seed < 5:  # the same seed: the same scenario and map
            again = make_env("skirmish", MIX)
            again.reset(seed=seed)
            assert again.scenario_name == env.scenario_name
            assert again.game.scenario.board.ground == env.game.scenario.board.ground
    share = drawn.count("duel") / len(drawn)
    assert 0.15 < share < 0.35  # weight 1 of 4; 200 draws: 3 standard deviations is about 0.09
    assert env.game.scenario is env.envs[env.current].game.scenario


def test_skirmish_configs_are_checked():
    base = {"game": "skirmish", "total_steps": 256, "env": {"n_envs": 2, "scenario": MIX},
            "ppo": {"n_steps": 128, "batch_size": 64}, "policy": {"features": "skirmish_hex"}}
    config = config_from_dict(base)
    assert eval_scenario(config) == "random:test"  # trained on procedural maps: tested on the held-out half
    with pytest.raises(TrainConfigError, match="skirmish_hex"):
        config_from_dict({**base, "game": "hexwar"})
    with pytest.raises(TrainConfigError, match="hex_fcn"):
        config_from_dict({**base, "policy": {"features": "hex_fcn"}})
    with pytest.raises(TrainConfigError, match="steps"):
        config_from_dict({**base, "env": {**base["env"], "actions": "steps"}})


def test_the_committed_config_loads():
    from cardwar.training.config import load_config
    from cardwar.training.trainer import check_env_settings

    config = load_config(Path(__file__).parents[2] / "configs" / "training" / "skirmish.yaml")
    assert config.game == "skirmish" and config.policy.features == "skirmish_hex"
    assert config.imitation.games > 0 and config.imitation.teacher.startswith("heuristic")
    assert eval_scenario(config) == "random:test"
    check_env_settings(config)


# ---------------------------------------------------------------- training runs
def tiny(**extra) -> object:
    data = {"game": "skirmish", "name": "tiny", "seed": 3, "total_steps": 256, "checkpoint_every": 128,
            "env": {"n_envs": 2, "vec_env": "dummy", "scenario": MIX},
            "policy": {"features": "skirmish_hex", "conv_channels": 8, "conv_blocks": 1},
            "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
            "opponents": {"snapshot_every": 128, "max_snapshots": 2,
                          "schedule": [{"from_step": 0, "mix": {"random": 1.0}},
                                       {"from_step": 128, "mix": {"snapshots": 0.5, "random": 0.5}}]},
            "eval": {"every": 256, "games": 2, "opponents": ["random"]},
            "imitation": {"games": 1, "teacher": "random", "opponents": ["random"], "epochs": 1}}
    data.update(extra)
    return config_from_dict(data)


def test_a_tiny_run_trains_saves_and_its_model_plays_legal_moves(tmp_path):
    from cardwar.training.evaluate import read_csv
    from cardwar.training.trainer import export_for_play, train

    run = train(tiny(), tmp_path, progress=False)
    assert (run / "final.zip").is_file() and (run / "imitation.json").is_file()
    assert [p.step for p in read_csv(run / "eval.csv")] == [0, 256]  # after the warm start, and the final one
    assert len(list((run / "snapshots").iterdir())) == 1  # the pool took a frozen learner at step 128
    play = export_for_play(run / "final.zip", tmp_path / "play.zip")
    agent = PPOAgent("skirmish", path=str(play), cache=False)
    assert agent.model.num_timesteps == 256
    env = make_raw_env("skirmish", "random:test")
    returns = play_agents(env, agent, agents.make("random", "skirmish", seed=1), seed=5)  # raises if illegal
    assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_a_run_in_worker_processes_goes_on_from_its_checkpoint(tmp_path):
    # The env states (a scenario mix, heuristic opponents) are pickled at each rollout boundary and put back.
    from cardwar.training.evaluate import read_csv
    from cardwar.training.trainer import checkpoints, resume, train

    config = tiny(env={"n_envs": 2, "vec_env": "subproc", "scenario": MIX}, imitation={"games": 0},
                  opponents={"snapshot_every": 128, "max_snapshots": 2,
                             "schedule": [{"from_step": 0, "mix": {"random": 0.5, "heuristic": 0.5}}]})
    run = train(config, tmp_path, progress=False)
    assert (run / "checkpoints" / "resume_000000256.pkl").is_file()
    resume(run, total_steps=512, progress=False)
    assert [p.step for p in read_csv(run / "eval.csv")] == [0, 256, 512]
    assert checkpoints(run)[0][1]["num_timesteps"] == 512


def test_imitation_agrees_with_the_teacher_above_chance():
    from cardwar.training.imitation import _accuracy, collect, pretrain

    demos = collect("skirmish", 4, "heuristic", ("random",), "duel", seed=0, workers=1, progress=False)
    assert demos.obs.dtype == np.uint8 and len(demos) > 200
    legal = np.array([demos.mask_rows(np.array([i]))[0].sum() for i in range(len(demos))])
    assert (legal > 1).all()  # forced steps are not kept
    chance = float(np.mean(1.0 / legal))  # a uniform pick among the legal ids
    policy = make_policy(channels=16, blocks=1, randomise=False)
    everything = np.arange(len(demos))
    before = _accuracy(policy, demos, everything)
    pretrain(policy, demos, epochs=8, batch_size=64, learning_rate=3e-3, seed=0, progress=False)
    after = _accuracy(policy, demos, everything)
    assert after > max(before, chance) + 0.2, (before, chance, after)


# ---------------------------------------------------------------- the shipped model
PLANES_FIRST = Path(__file__).with_name("skirmish_ppo_planes_first.zip")
"""The model shipped from issue 21 to issue 31, saved on the planes-first observation (221, 16, 24): a
checkpoint of before issue 28, kept to show such files still load and play."""


def test_a_model_saved_planes_first_plays_as_before_the_channels_last_observation():
    """A model trained on the planes-first observation (221, 16, 24): ``ppo`` loads it to read today's
    channels-last one; its action distribution on each position is the one the same weights give, built
    planes first, on the position transposed back (the path of the code before issue 28)."""
    from sb3_contrib import MaskablePPO

    agent = PPOAgent("skirmish", path=str(PLANES_FIRST), cache=False)
    assert tuple(agent.model.observation_space.shape) == OBS_SHAPE
    saved = MaskablePPO.load(PLANES_FIRST, device="cpu").policy  # the file as it is
    before = SkirmishPolicy(spaces.Box(0.0, 1.0, PLANES_FIRST_SHAPE, dtype=np.float32), spaces.Discrete(N_ACTIONS),
                            lambda _: 3e-4, channels=saved.channels, blocks=saved.blocks)
    before.load_state_dict(saved.state_dict())
    before.eval()
    positions = decisions("random:test", 40, seed=7) + decisions("ww2_squads", 40, seed=8)
    obs = np.stack([o["observation"] for o in positions])
    masks = np.stack([o["action_mask"].astype(bool) for o in positions])
    with torch.no_grad():
        now = agent.model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks).distribution.probs
        old = before.get_distribution(torch.as_tensor(np.ascontiguousarray(obs.transpose(0, 3, 1, 2))),
                                      action_masks=masks).distribution.probs
    assert torch.allclose(now, old, rtol=0.0, atol=1e-6), float((now - old).abs().max())
    assert len({int(a) for a in now.argmax(dim=1)}) > 5  # positions that ask different things


def test_the_shipped_model_loads_and_plays_legal_moves_on_held_out_maps():
    path = pretrained_path("skirmish")
    assert path.is_file(), "agents/pretrained/skirmish_ppo.zip is shipped"
    agent = PPOAgent("skirmish")
    assert isinstance(agent.model.policy, SkirmishPolicy)
    env = make_raw_env("skirmish", "random:test")
    for seed, seat in ((11, 0), (12, 1)):
        other = agents.make("random", "skirmish", seed=seed)
        players = (agent, other) if seat == 0 else (other, agent)
        returns = play_agents(env, *players, seed=seed)  # play_agents raises on an illegal move
        assert returns[seat] in (-1.0, 0.0, 1.0)


def test_a_checkpoint_saved_planes_first_resumes_on_the_channels_last_env(tmp_path):
    """A training run saved before issue 28 (:data:`PLANES_FIRST` is such a checkpoint) goes on: the trainer
    builds it on today's space, with the same weights, and it gives the distributions the planes-first policy
    gives."""
    from sb3_contrib import MaskablePPO

    from cardwar.training.trainer import load_checkpoint
    from cardwar.training.vec_env import close_vec_env, make_vec_env

    vec_env = make_vec_env(tiny(env={"n_envs": 1, "vec_env": "dummy", "scenario": "duel"}))
    assert tuple(vec_env.observation_space.shape) == OBS_SHAPE
    with pytest.raises(ValueError, match="Observation spaces do not match"):  # what a plain load says
        MaskablePPO.load(PLANES_FIRST, env=vec_env, device="cpu")
    model = load_checkpoint(PLANES_FIRST, vec_env, tmp_path, "cpu")
    assert model.observation_space == vec_env.observation_space
    saved = MaskablePPO.load(PLANES_FIRST, device="cpu").policy  # planes first, as saved
    positions = decisions("duel", 20, seed=5)
    obs = np.stack([o["observation"] for o in positions])
    masks = np.stack([o["action_mask"].astype(bool) for o in positions])
    with torch.no_grad():
        now = model.policy.get_distribution(torch.as_tensor(obs), action_masks=masks).distribution.probs
        old = saved.get_distribution(torch.as_tensor(np.ascontiguousarray(obs.transpose(0, 3, 1, 2))),
                                     action_masks=masks).distribution.probs
    assert torch.allclose(now, old, rtol=0.0, atol=1e-6)
    model.n_steps, model.batch_size, model.n_epochs = 16, 16, 1
    model.rollout_buffer.buffer_size = 16
    try:
        model.learn(16)  # and it trains on
    finally:
        close_vec_env(vec_env)
