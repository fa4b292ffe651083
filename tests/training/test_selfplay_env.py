"""The single-agent training view: rewards reach the learner, masks are exact, the seat sees only its view."""

from __future__ import annotations

import numpy as np
import pytest
from stable_baselines3.common.env_checker import check_env

from cardwar import agents
from cardwar.envs.hexwar.observation import encode_observation as encode_hex
from cardwar.envs.naval.observation import encode_observation as encode_naval
from cardwar.training.opponents import OpponentPool
from cardwar.training.selfplay_env import SelfPlayEnv
from tests.test_plugin_game import pile_game  # noqa: F401 - the plug-in game, registered for a test

GAMES = [("naval", None), ("hexwar", "meeting_engagement")]


class RecordingAgent:
    """A random opponent that notes the move number of each of its moves."""

    def __init__(self, env: SelfPlayEnv, seed: int) -> None:
        self.env, self.inner, self.moves = env, agents.RandomAgent("any", seed=seed), []
        self.name = "recording"

    def act(self, observation, view):
        self.moves.append(self.env.aec.game.move_number)
        return self.inner.act(observation, view)


class RecordingPool(OpponentPool):
    def __init__(self, env_ref: list) -> None:
        super().__init__("naval")
        self.env_ref = env_ref

    def draw(self, rng):
        self.agent = RecordingAgent(self.env_ref[0], int(rng.integers(1000)))
        return "recording", self.agent


@pytest.mark.parametrize("game, scenario", GAMES)
def test_the_learner_is_given_the_loss_when_the_opponents_move_ends_the_game(game, scenario):
    ref: list = []
    pool = RecordingPool(ref)
    env = SelfPlayEnv(game, scenario=scenario, pool=pool)
    ref.append(env)
    rng = np.random.default_rng(0)
    ended_by_opponent = {-1.0: 0, 1.0: 0, 0.0: 0}
    for episode in range(60 if game == "naval" else 20):
        env.reset(seed=episode)
        total, done, learner_last = 0.0, False, -1
        while not done:
            learner_last = env.aec.game.move_number
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, done, truncated, info = env.step(action)
            total += reward
            assert not truncated
        state = env.aec.game
        # Independent: the engine's own result for the learner's seat.
        assert total == state.returns()[env.seat]
        assert info["result"] == total
        last_move = state.move_number - 1
        if pool.agent.moves and pool.agent.moves[-1] == last_move and learner_last < last_move:
            ended_by_opponent[total] += 1
    # Games ended by the opponent's move happened, and the learner lost (and won) some of them.
    assert ended_by_opponent[-1.0] > 0, ended_by_opponent


@pytest.mark.parametrize("game, scenario", GAMES)
def test_masks_are_the_legal_moves_and_the_observation_is_the_learners_view(game, scenario):
    env = SelfPlayEnv(game, scenario=scenario, pool=OpponentPool(game, mix={"random": 1.0}))
    rng = np.random.default_rng(1)
    for episode in range(5):
        obs, info = env.reset(seed=100 + episode)
        done = False
        while not done:
            state = env.aec.game
            assert state.current_player == env.seat
            mask = env.action_masks()
            assert sorted(np.flatnonzero(mask)) == sorted(state.legal_actions())
            view = state.information_view(env.seat)
            expected = encode_naval(view) if game == "naval" else encode_hex(view, state.scenario)
            np.testing.assert_array_equal(obs, expected)
            obs, _, done, _, _ = env.step(int(rng.choice(np.flatnonzero(mask))))
        assert not env.action_masks().any()


@pytest.mark.parametrize("game, scenario", GAMES)
def test_passes_stable_baselines3_env_checker(game, scenario):
    check_env(SelfPlayEnv(game, scenario=scenario), warn=True, skip_render_check=True)


def test_the_learner_takes_both_seats_and_meets_the_pools_members():
    pool = OpponentPool("naval", mix={"random": 1.0, "heuristic": 1.0}, heuristic="heuristic:samples=4")
    env = SelfPlayEnv("naval", pool=pool)
    seen = {(info["seat"], info["opponent"]) for info in (env.reset(seed=s)[1] for s in range(40))}
    assert seen == {(0, "random"), (1, "random"), (0, "heuristic"), (1, "heuristic")}


def test_same_seed_same_episode():
    def episode(seed):
        env = SelfPlayEnv("naval", pool=OpponentPool("naval", mix={"random": 1.0}))
        obs, _ = env.reset(seed=seed)
        trail, done = [obs.copy()], False
        while not done:
            obs, r, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trail.append(obs.copy())
        return trail, r

    a, b = episode(7), episode(7)
    assert a[1] == b[1] and all(np.array_equal(x, y) for x, y in zip(a[0], b[0]))


def test_an_empty_snapshot_pool_falls_back_to_random_play():
    pool = OpponentPool("naval", mix={"snapshots": 1.0})
    name, agent = pool.draw(np.random.default_rng(0))
    assert name == "random" and isinstance(agent, agents.RandomAgent)


@pytest.mark.parametrize("env_id, kwargs", [
    ("cardwar/NavalSelfPlay-v0", {"opponent": "heuristic:samples=4"}),
    ("cardwar/HexwarSelfPlay-v0", {"scenario": "random", "opponent": "heuristic", "render_mode": "ansi"}),
])
def test_gymnasium_make_gives_the_public_env_and_it_passes_the_sb3_checker(env_id, kwargs):
    import gymnasium

    import cardwar.training
    from cardwar.training import SelfPlayEnv

    env = gymnasium.make(env_id, **kwargs)
    assert isinstance(env.unwrapped, SelfPlayEnv) and cardwar.training.SelfPlayEnv is SelfPlayEnv
    check_env(env, warn=False, skip_render_check=True)
    obs, info = env.reset(seed=3)
    assert env.observation_space.contains(obs) and info["opponent"] == kwargs["opponent"]
    rng, done = np.random.default_rng(0), False
    while not done:  # a whole game through the wrappers, with the legal moves from action_masks()
        obs, reward, done, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.unwrapped.action_masks()))))
        assert not truncated
    assert reward == info["result"] in (-1.0, 0.0, 1.0)
    if "render_mode" in kwargs:
        assert "turn" in env.render()


def test_maskable_ppo_learns_on_the_registered_env_and_an_opponent_mistake_is_one_line():
    import gymnasium
    from sb3_contrib import MaskablePPO

    import cardwar.training  # noqa: F401 - registers the ids
    from cardwar.agents import AgentSpecError

    env = gymnasium.make("cardwar/NavalSelfPlay-v0")  # MaskablePPO finds action_masks() behind the wrappers
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    assert model.learn(64).num_timesteps == 64
    with pytest.raises(AgentSpecError, match="unknown agent 'heuristc'"):
        gymnasium.make("cardwar/NavalSelfPlay-v0", opponent="heuristc")


def test_a_fixed_opponent_plays_the_same_episode_from_the_same_seed():
    def episode(seed: int) -> list:
        env = SelfPlayEnv("naval", opponent="heuristic:samples=4")
        obs, _ = env.reset(seed=seed)
        trail, done = [obs.tobytes()], False
        while not done:  # the learner's moves are fixed, so any difference is the deal's or the opponent's
            obs, reward, done, _, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
            trail.append(obs.tobytes())
        return trail + [env.seat, reward]

    assert episode(4) == episode(4)


def test_a_plug_in_game_plays_in_the_self_play_env_with_no_edit(pile_game):
    """SelfPlayEnv asks the game registry (issue 28): the plug-in test game ("take the last", 9 counters, take 1-3)
    is a gymnasium env as it is. The learner plays the perfect strategy (leave a multiple of 4), as does the
    plug-in's heuristic when it can: from 9 the first seat always wins, so the learner's result is +1 on seat 0
    and -1 on seat 1, given at once when the opponent's move ends the game."""
    import gymnasium

    from cardwar.training import selfplay_env

    env = SelfPlayEnv("pile", opponent="heuristic")
    assert env.observation_space.shape == (2,) and env.action_space.n == 3
    check_env(env, warn=False, skip_render_check=True)
    seats = set()
    for seed in range(8):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            pile = round(float(obs[0]) * 9)
            take = pile % 4 or 1
            assert env.action_masks()[take - 1]
            obs, reward, done, truncated, step_info = env.step(take - 1)
            assert not truncated
        assert reward == step_info["result"] == (1.0 if info["seat"] == 0 else -1.0)
        seats.add(info["seat"])
    assert seats == {0, 1}
    selfplay_env.register()  # ids for games registered since the import
    env_id = selfplay_env.game_id("pile")
    try:
        made = gymnasium.make(env_id, opponent="random")
        assert isinstance(made.unwrapped, SelfPlayEnv) and made.unwrapped.game == "pile"
        obs, _ = made.reset(seed=1)
        made.step(int(np.flatnonzero(made.unwrapped.action_masks())[0]))
    finally:
        gymnasium.registry.pop(env_id, None)
