"""A ppo decision's fast path (cardwar.training.fast_inference, issue 31 item 5) gives SB3's own answer.

Checked against SB3 itself, on positions of seeded random games (both seats, every step kind the games reach):
``model.predict(..., deterministic=True)`` chooses the agent's action, the raw logits match SB3's
``get_distribution`` path within 1e-5, and the masked probabilities are SB3's bit for bit (the same ops).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from cardwar import agents, games
from cardwar.agents.ppo_agent import PPOAgent, load_model, model_actions, pretrained_path
from cardwar.envs import make_raw_env
from cardwar.envs.skirmish.observation import P
from cardwar.training.fast_inference import FastActor, fast_actor, one_thread


def random_positions(game: str, scenarios: list, every: int, limit: int, actions: str = "moves") -> list[dict]:
    """Observations (with masks) of both seats, every ``every``-th decision of seeded random games."""
    rng = np.random.default_rng(7)
    out: list[dict] = []
    seed = 0
    while len(out) < limit:
        scenario = scenarios[seed % len(scenarios)]
        env = (games.get(game).make_env(scenario) if scenario is not None else make_raw_env(game, actions=actions))
        env.reset(seed=seed)
        for k, agent in enumerate(env.agent_iter()):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            mask = np.asarray(obs["action_mask"], dtype=bool)
            if k % every == 0 and len(out) < limit:
                out.append({"observation": np.array(obs["observation"]), "action_mask": mask})
            env.step(int(rng.choice(np.flatnonzero(mask))))
        seed += 1
    return out


def sb3(policy, obs: np.ndarray, mask: np.ndarray) -> tuple[torch.Tensor, torch.Tensor]:
    """(raw logits, masked probabilities) the way SB3 computes them."""
    with torch.no_grad():
        tensor = torch.as_tensor(obs, dtype=torch.float32).unsqueeze(0)
        raw = policy.action_net(policy.mlp_extractor.forward_actor(
            policy.extract_features(tensor, policy.pi_features_extractor)))
        return raw, policy.get_distribution(tensor, action_masks=mask[None]).distribution.probs


def check_same(model, found: list[dict], whole_moves: bool = True) -> None:
    actor = FastActor(model.policy)
    agent = PPOAgent.from_model(model)
    for pos in found:
        obs, mask = pos["observation"], pos["action_mask"]
        raw, probs = sb3(model.policy, obs, mask)
        fast = actor.logits(obs)
        assert torch.allclose(fast, raw, rtol=0.0, atol=1e-5), (fast - raw).abs().max()
        np.testing.assert_array_equal(actor.probs(obs, mask), probs[0].numpy().astype(np.float64))
        if whole_moves:
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert agent.act(pos) == int(action)


def test_skirmish_fast_path_is_sb3s_decision_on_many_positions():
    model = load_model(pretrained_path("skirmish"), "skirmish", cache=False)
    assert FastActor(model.policy).trace  # the traced path, the one that matters
    found = random_positions("skirmish", ["ww2_squads", "duel", "panzer_road", "random:test"], every=17, limit=160)
    step0 = P["step_mode"]
    steps = {int(np.argmax(p["observation"][0, 0, step0:step0 + 9])) for p in found}
    assert len(found) == 160 and len(steps) >= 4  # several step kinds: modes, hexes, targets, activations
    check_same(model, found)


@pytest.mark.parametrize("game", ["hexwar", "tankattack", "naval"])
def test_other_games_fast_path_is_sb3s_decision(game):
    model = load_model(pretrained_path(game), game, cache=False)
    actions = model_actions(model, game)
    scenarios = [None] if game == "naval" else ["random:test"]
    found = random_positions(game, scenarios, every=5, limit=40, actions=actions)
    check_same(model, found, whole_moves=actions == "moves")


def test_the_traced_copy_follows_changed_weights():
    """A learner's weights change in place after an update: the next decision is traced again from them."""
    model = load_model(pretrained_path("skirmish"), "skirmish", cache=False)
    found = random_positions("skirmish", ["duel"], every=29, limit=6)
    actor = FastActor(model.policy)
    before = [actor.logits(p["observation"]) for p in found]
    with torch.no_grad():
        model.policy.mlp_extractor.cell_logits.weight.mul_(-1.5)
        model.policy.pi_features_extractor.stem.weight.add_(0.01)  # a hex convolution: its kernels are cached
    for pos, old in zip(found, before):
        raw, _ = sb3(model.policy, pos["observation"], pos["action_mask"])
        fast = actor.logits(pos["observation"])
        assert torch.allclose(fast, raw, rtol=0.0, atol=1e-5) and not torch.allclose(fast, old)


def test_a_decision_runs_on_one_thread_and_restores_the_processs_count():
    agent = agents.make("ppo", "hexwar", seed=0)  # eager path: its trunk's forward runs, so a hook sees it
    seen = []
    hook = agent.model.policy.pi_features_extractor.register_forward_pre_hook(
        lambda *_: seen.append(torch.get_num_threads()))
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        pos = random_positions("hexwar", ["random:test"], every=3, limit=1)[0]
        agent.act(pos)
        assert seen == [1] and torch.get_num_threads() == 2
        with one_thread():
            with one_thread():  # nested (or another thread's decision at once): restored by the last to leave
                assert torch.get_num_threads() == 1
            assert torch.get_num_threads() == 1
        assert torch.get_num_threads() == 2
        learner = PPOAgent.from_model(agent.model)  # the learner's process keeps its own count
        seen.clear()
        learner.act(pos)
        assert seen == [2]
    finally:
        hook.remove()
        torch.set_num_threads(saved)


def test_one_fast_actor_per_policy():
    model = load_model(pretrained_path("skirmish"), "skirmish", cache=False)
    assert fast_actor(model.policy) is fast_actor(model.policy)


def test_the_decision_benchmark_prints_every_path_and_checks_they_agree(capsys):
    from cardwar.training import decision_bench

    saved = torch.get_num_threads()
    try:
        decision_bench.main(["--positions", "12"])
    finally:
        torch.set_num_threads(saved)
    out = capsys.readouterr().out
    assert "skirmish ppo, 12 decisions" in out and "every path chose the same action" in out
    for name in ("old, torch default threads", "old, 1 thread", "new (PPOAgent.act)"):
        assert f"  {name}" in out
    assert out.count(" p99 ") == 6  # cpu and wall for each path


def test_threads_deciding_at_once_get_the_serial_answers():
    """The server decides for several sessions at once on one shared model (and one traced copy)."""
    from concurrent.futures import ThreadPoolExecutor

    agent = PPOAgent("skirmish", cache=False)
    found = random_positions("skirmish", ["ww2_squads", "duel"], every=23, limit=24)
    serial = [agent.act(p) for p in found]
    saved = torch.get_num_threads()
    try:
        torch.set_num_threads(2)
        with ThreadPoolExecutor(4) as pool:
            assert list(pool.map(agent.act, found * 3)) == serial * 3
        assert torch.get_num_threads() == 2
    finally:
        torch.set_num_threads(saved)
