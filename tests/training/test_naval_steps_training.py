"""Training and playing on naval-v1's steps: the learner decides a move step by step, every other
agent (heuristic, mcts, older models) keeps playing whole moves, and a steps model plays in any
game of whole moves exactly as it did in training."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

from cardwar import agents
from cardwar.agents.ppo_agent import PPOAgent, step_choices
from cardwar.envs import make_raw_env, naval_v1
from cardwar.envs.naval.steps import NUM_STEPS, STEPS_OF, StepState
from cardwar.training import SelfPlayEnv
from cardwar.training.config import TrainConfigError, config_from_dict
from cardwar.training.imitation import collect, to_steps


def _random_positions(games: int, seed: int = 0):
    """Positions (StepState with nothing pending) met in random naval-v1 games."""
    env = naval_v1.raw_env()
    rng = np.random.default_rng(seed)
    for g in range(games):
        env.reset(seed=seed + g)
        while not env.game.is_terminal():
            if not env.game.pending:
                yield env.game.clone()
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))


def test_the_learner_acts_in_steps_while_the_opponent_plays_whole_moves():
    env = gymnasium.make("cardwar/NavalSelfPlay-v1", opponent="heuristic")
    assert env.observation_space.shape == (naval_v1.OBS_SIZE,) and env.action_space.n == NUM_STEPS
    obs, info = env.reset(seed=3)
    raw = env.unwrapped
    rng = np.random.default_rng(3)
    done, steps = False, 0
    while not done:
        state = raw.aec.game
        assert state.current_player == raw.seat  # the heuristic moved inside reset/step
        legal = state.engine.legal_actions() if not state.pending else None
        mask = raw.action_masks()
        if legal is not None:  # a move's first step: exactly the first steps of the legal whole moves
            assert set(np.flatnonzero(mask)) == {STEPS_OF[a][0] for a in legal}
            assert obs[naval_v1.PENDING_OFFSET] == 1.0
        obs, reward, done, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    assert reward in (-1.0, 1.0, 0.0) and info["result"] == reward and steps > 5


def test_the_legal_steps_an_agent_derives_from_the_whole_move_mask_are_the_engine_s():
    for state in _random_positions(6):
        legal = np.array(state.engine.legal_actions())
        nexts, move = step_choices(legal, ())
        assert move is None and nexts == state.legal_actions()
        first = nexts[len(nexts) // 2]
        state.apply_action(first)
        if state.pending:  # a two-step move: its second steps
            assert step_choices(legal, state.pending)[0] == state.legal_actions()


def _untrained_steps_model(tmp_path):
    from sb3_contrib import MaskablePPO

    model = MaskablePPO("MlpPolicy", SelfPlayEnv("naval", actions="steps"), n_steps=64, batch_size=32, seed=1,
                        device="cpu", policy_kwargs={"net_arch": [32]})
    path = tmp_path / "steps.zip"
    model.save(path)
    return model, path


def test_a_steps_model_plays_whole_moves_as_it_would_in_its_training_env(tmp_path):
    """In a naval-v0 game the agent rebuilds naval-v1's observations and masks step by step, so it
    chooses the very move that its steps would make in the naval-v1 env."""
    import torch

    model, path = _untrained_steps_model(tmp_path)
    agent = PPOAgent("naval", path=str(path), cache=False)
    assert agent.steps
    v1 = naval_v1.raw_env()
    v1.reset(seed=11)
    rng = np.random.default_rng(11)
    checked = 0
    while not v1.game.is_terminal() and checked < 40:
        who = v1.agent_selection
        move = agent.act(v1.observe_move(who), v1.view(who))
        assert move in v1.game.engine.legal_actions()
        for step in STEPS_OF[move]:  # the model's own argmax over the v1 env's observation and mask
            o = v1.observe(who)
            with torch.no_grad():
                dist = model.policy.get_distribution(torch.as_tensor(o["observation"])[None],
                                                     action_masks=o["action_mask"][None].astype(bool))
            assert int(dist.distribution.probs[0].argmax()) == step
            v1.step(step)
        checked += 1
        if not v1.game.is_terminal() and rng.random() < 0.3:  # vary the positions: a random move now and then
            mask = v1.observe_move(v1.agent_selection)["action_mask"]
            v1.step_move(int(rng.choice(np.flatnonzero(mask))))
    assert checked >= 10


def test_a_steps_model_is_an_agent_like_any_other(tmp_path):
    from cardwar.cli.match import play_agents

    _, path = _untrained_steps_model(tmp_path)
    env = make_raw_env("naval")
    for seed in range(2):
        returns = play_agents(env, agents.make(f"ppo:{path}", "naval", seed=seed),
                              agents.make("heuristic", "naval", seed=seed), seed=seed)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_the_teacher_s_moves_become_one_example_a_step():
    demos = collect("naval", 3, teacher="heuristic", opponents=("random",), workers=1, progress=False)
    steps = to_steps(demos)
    assert len(steps) == sum(len(STEPS_OF[a]) for a in demos.actions)
    assert steps.obs.shape[1] == naval_v1.OBS_SIZE and steps.n_actions == NUM_STEPS
    np.testing.assert_allclose(steps.target_p.sum(axis=1), 1.0, rtol=1e-6)
    i = 0
    for k, move in enumerate(demos.actions):
        legal = np.flatnonzero(demos.mask_rows(np.array([k]))[0])
        for n, step in enumerate(STEPS_OF[move]):
            mask = steps.mask_rows(np.array([i]))[0]
            assert mask[step] and set(np.flatnonzero(mask)) == set(step_choices(legal, STEPS_OF[move][:n])[0])
            assert steps.actions[i] == step and steps.target_idx[i, 0] == step  # a teacher that does not search
            np.testing.assert_array_equal(steps.obs[i, :naval_v1.PENDING_OFFSET], demos.obs[k])
            assert steps.obs[i, naval_v1.PENDING_OFFSET + (0 if n == 0 else (1 if step >= 52 else 2))] == 1.0
            i += 1


def test_visit_shares_over_moves_become_shares_over_each_step():
    from cardwar.training.imitation import TOP_K, Demonstrations

    state = next(_random_positions(1))  # the first position: a mulligan decision or a deploy
    while not any(len(STEPS_OF[a]) == 2 for a in state.engine.legal_actions()):
        state.engine.apply_action(state.engine.legal_actions()[0])
    legal = [a for a in state.engine.legal_actions() if len(STEPS_OF[a]) == 2]
    a, b, c = legal[0], next(x for x in legal if STEPS_OF[x][0] == STEPS_OF[legal[0]][0] and x != legal[0]), \
        next(x for x in legal if STEPS_OF[x][0] != STEPS_OF[legal[0]][0])
    mask = np.zeros(3029, dtype=bool)
    mask[state.engine.legal_actions()] = True
    idx = [a, b, c] + [a] * (TOP_K - 3)
    demos = Demonstrations(np.zeros((1, 587), np.float16), np.packbits(mask)[None], np.array([a]),
                           np.array([1.0], np.float32), np.array([idx], np.int32),
                           np.array([[0.5, 0.2, 0.3] + [0.0] * (TOP_K - 3)], np.float32), n_actions=3029)
    steps = to_steps(demos)
    def shares(row: int) -> dict[int, float]:
        out: dict[int, float] = {}
        for step, p in zip(steps.target_idx[row], steps.target_p[row]):
            out[int(step)] = out.get(int(step), 0.0) + float(p)
        return out

    first = shares(0)
    assert first[STEPS_OF[a][0]] == pytest.approx(0.7) and first[STEPS_OF[c][0]] == pytest.approx(0.3)
    second = shares(1)
    assert second[STEPS_OF[a][1]] == pytest.approx(0.5 / 0.7) and second[STEPS_OF[b][1]] == pytest.approx(0.2 / 0.7)


@pytest.mark.parametrize("data, key", [
    ({"game": "hexwar", "env": {"actions": "steps"}}, "env.actions"),
    ({"game": "naval", "env": {"actions": "step"}}, "env.actions"),
    ({"game": "naval", "policy": {"features": "naval_cards"}}, "policy.features"),
    ({"game": "naval", "policy": {"features": "hex_fcn"}}, "policy.features"),
    ({"game": "naval", "env": {"actions": "steps"}, "policy": {"features": "naval_cards", "embed_dim": 0}},
     "policy.embed_dim"),
])
def test_a_config_that_mixes_up_the_action_spaces_is_refused_by_name(data, key):
    with pytest.raises(TrainConfigError, match=key.replace(".", r"\.")):
        config_from_dict(data)


def test_a_steps_model_guides_the_search_with_the_product_of_its_steps_probabilities(tmp_path):
    import torch

    from cardwar.agents.network_guide import NetworkGuide

    model, path = _untrained_steps_model(tmp_path)
    guide = NetworkGuide("naval", str(path))
    assert guide.steps
    for state in list(_random_positions(2, seed=5))[::7][:6]:
        legal = state.engine.legal_actions()
        priors, value = guide(state.engine, legal)
        assert priors.shape == (len(legal),) and priors.sum() == pytest.approx(1.0) and -1 <= value <= 1
        a = legal[int(np.argmax(priors))]
        expected = 1.0  # the same move's probability, step by step in the naval-v1 env's own observations
        for step in STEPS_OF[a]:
            env = naval_v1.raw_env()
            env.game = state
            o = env._encode(state.current_player)
            mask = np.zeros(NUM_STEPS, dtype=bool)
            mask[state.legal_actions()] = True
            with torch.no_grad():
                p = guide.model.policy.get_distribution(torch.as_tensor(o)[None], action_masks=mask[None])
            expected *= float(p.distribution.probs[0, step])
            state.apply_action(step)
        assert priors.max() == pytest.approx(expected, rel=1e-4)
