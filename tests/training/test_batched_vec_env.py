"""``env.vec_env: batched``: the same games as the per-env path, one forward pass per snapshot group, the learner's
own observation and mask, every reward it earns, exact resume, and its worker processes ending."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import torch
from stable_baselines3.common.vec_env import DummyVecEnv

from cardwar.training import batched_vec_env
from cardwar.training.batched_vec_env import BatchedVecEnv, BatchedWorkersVecEnv
from cardwar.training.config import TrainConfigError, config_from_dict
from cardwar.training.vec_env import _env_factory, make_vec_env

GAMES = [("naval", None, "moves", "heuristic:samples=4"), ("naval", None, "steps", "heuristic:samples=4"),
         ("hexwar", "random:train", "moves", "heuristic")]
MIX = {"snapshots": 0.5, "heuristic": 0.25, "random": 0.25}


@pytest.fixture(scope="module")
def snapshots(tmp_path_factory) -> dict[tuple[str, str], str]:
    """A small untrained network for each (game, actions), saved as a pool snapshot."""
    from tests.training.conftest import tiny_config
    from cardwar.training.trainer import new_model

    folder = tmp_path_factory.mktemp("snapshots")
    out = {}
    for game, _, actions, _ in GAMES:
        config = tiny_config(game, env={"n_envs": 1, "vec_env": "dummy", "actions": actions,
                                        **({"scenario": "random:train"} if game == "hexwar" else {})})
        model = new_model(config, make_vec_env(config, in_process=True), folder)
        path = folder / f"{game}_{actions}.zip"
        model.save(path)
        out[(game, actions)] = str(path)
    return out


def _fns(game, scenario, actions, heuristic, n, mix=MIX):
    return [functools.partial(_env_factory, game, scenario, {}, mix, heuristic, actions) for _ in range(n)]


def _venv(cls, fns, snapshot, seed, **kwargs):
    venv = cls(fns, **kwargs)
    venv.env_method("set_pool", [snapshot], MIX)
    venv.seed(seed)
    return venv


def _transcript(venv, steps: int, seed: int = 0) -> list:
    """What the learner sees over ``steps`` vector steps of random legal play (observations, masks, rewards,
    dones, and the infos that name the seat, the opponent and the result)."""
    rng = np.random.default_rng(seed)
    out = [venv.reset().copy(), [dict((k, i.get(k)) for k in ("seat", "opponent")) for i in venv.reset_infos]]
    for _ in range(steps):
        masks = np.stack(venv.env_method("action_masks"))
        assert masks.any(axis=1).all()  # every env is at a learner turn with a legal move (finished ones reset)
        actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
        obs, rewards, dones, infos = venv.step(actions)
        out.append((masks, obs, rewards, dones, [(i.get("result"), i.get("opponent"), i.get("seat")) for i in infos],
                    [(i.get("seat"), i.get("opponent")) for i in venv.reset_infos]))  # the games under way
    return out


def _equal(a, b) -> bool:
    if isinstance(a, np.ndarray):
        return np.array_equal(a, b)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return a == b


@pytest.mark.parametrize("game, scenario, actions, heuristic", GAMES)
def test_batched_games_are_the_per_env_games_and_snapshot_moves_are_batched(snapshots, monkeypatch, game, scenario,
                                                                            actions, heuristic):
    """Same seeds and learner moves: DummyVecEnv (each env on its own, one forward pass a snapshot move) and
    BatchedVecEnv give the same observations, masks, rewards, ends and opponents, snapshots sampling."""
    torch.set_num_threads(1)
    groups: list[int] = []
    real = batched_vec_env.batched_ppo_actions

    def counted(group, requests):
        groups.append(len(group))
        return real(group, requests)

    monkeypatch.setattr(batched_vec_env, "batched_ppo_actions", counted)
    snap = snapshots[(game, actions)]
    steps, n = (120, 4) if game == "naval" else (100, 8)
    per_env = _transcript(_venv(DummyVecEnv, _fns(game, scenario, actions, heuristic, n), snap, 11), steps)
    batched = _transcript(_venv(BatchedVecEnv, _fns(game, scenario, actions, heuristic, n), snap, 11), steps)
    assert _equal(per_env, batched)
    opponents = {o for step in per_env[2:] for (_, o) in step[5]}
    assert any(o.startswith("snapshot:") for o in opponents) and "heuristic" in opponents
    assert max(groups) > 1  # several games' snapshot moves went through one forward pass
    assert sum(1 for step in per_env[2:] for d in step[3] if d) >= 4  # games ended and restarted


def test_a_fixed_deterministic_snapshot_opponent_plays_the_same_games_batched(snapshots):
    """``opponent="ppo:PATH"`` (greedy): the batched argmax is the one-at-a-time argmax."""
    from cardwar.training.selfplay_env import SelfPlayEnv

    snap = snapshots[("hexwar", "moves")]
    fns = [functools.partial(SelfPlayEnv, "hexwar", "random:train", opponent=f"ppo:{snap}") for _ in range(3)]
    a, b = DummyVecEnv(fns), BatchedVecEnv(fns)
    a.seed(5)
    b.seed(5)
    assert _equal(_transcript(a, 60, seed=2), _transcript(b, 60, seed=2))


@pytest.mark.parametrize("game, scenario, actions, heuristic", [GAMES[0], GAMES[2]])
def test_the_learner_sees_its_own_seat_and_every_reward_it_earns(snapshots, game, scenario, actions, heuristic):
    """Independently of SelfPlayEnv's bookkeeping: the observation and mask are the AEC env's for the learner's
    seat (not the opponent's), and a finished game's reward is the engine's result for that seat, also when
    the opponent's move ended it."""
    venv = _venv(BatchedVecEnv, _fns(game, scenario, actions, heuristic, 3), snapshots[(game, actions)], 3)
    obs = venv.reset()
    rng = np.random.default_rng(4)
    ended_by_opponent = {-1.0: 0, 0.0: 0, 1.0: 0}
    finished = 0
    for _ in range(200 if game == "naval" else 300):
        games = [env.unwrapped for env in venv.envs]
        for k, g in enumerate(games):
            mine = g.aec.observe(g.agents[g.seat])
            theirs = g.aec.observe(g.agents[1 - g.seat])
            assert np.array_equal(obs[k], mine["observation"])
            assert not np.array_equal(obs[k], theirs["observation"])  # the opponent's would differ
            assert np.array_equal(g.action_masks(), mine["action_mask"].astype(bool))
        states = [(g.aec.game, g.seat, g.aec.game.move_number) for g in games]
        actions = np.array([rng.choice(np.flatnonzero(g.action_masks())) for g in games])
        obs, rewards, dones, infos = venv.step(actions)
        for k, (state, seat, before) in enumerate(states):
            if dones[k]:
                finished += 1
                assert state.is_terminal()
                assert rewards[k] == state.returns()[seat]
                if state.move_number - before >= 2:  # the learner's move, then the opponent's ended it
                    ended_by_opponent[float(rewards[k])] += 1
            else:
                assert rewards[k] == 0.0
    assert finished >= 5
    assert ended_by_opponent[-1.0] >= 1  # losses on the opponent's move reached the learner


def test_a_batched_env_state_taken_at_a_boundary_goes_on_exactly(snapshots):
    """What exact resume needs: ``get_state`` of every env, put into fresh envs with ``set_state``, plays on as the
    original does (the learner's last observations given back, as the trainer does)."""
    game, scenario, actions, heuristic = GAMES[1]
    snap = snapshots[(game, actions)]
    a = _venv(BatchedVecEnv, _fns(game, scenario, actions, heuristic, 3), snap, 8)
    _transcript(a, 40, seed=1)
    blobs = a.env_method("get_state")
    b = BatchedWorkersVecEnv(_fns(game, scenario, actions, heuristic, 3), workers=2)
    try:
        b.env_method("set_pool", [snap], MIX)
        b.reset()
        for k, blob in enumerate(blobs):
            b.env_method("set_state", blob, indices=[k])
        rng = np.random.default_rng(9)
        for _ in range(80):
            masks = np.stack(a.env_method("action_masks"))
            assert np.array_equal(masks, np.stack(b.env_method("action_masks")))
            actions = np.array([rng.choice(np.flatnonzero(m)) for m in masks])
            assert _equal(a.step(actions)[:3], b.step(actions)[:3])
    finally:
        b.close()


def test_the_worker_version_gives_the_same_games_routes_indices_and_ends_its_processes(snapshots):
    game, scenario, actions, heuristic = GAMES[2]
    snap = snapshots[(game, actions)]
    per_env = _transcript(_venv(DummyVecEnv, _fns(game, scenario, actions, heuristic, 5), snap, 21), 50)
    venv = _venv(BatchedWorkersVecEnv, _fns(game, scenario, actions, heuristic, 5), snap, 21, workers=2)
    processes = list(venv.processes)
    try:
        assert len(processes) == 2 and [len(s) for s in venv.shares] == [2, 3]
        assert _equal(per_env, _transcript(venv, 50))
        seats = venv.get_attr("seat")
        assert venv.get_attr("seat", indices=[4, 0]) == [seats[4], seats[0]]
        assert venv.has_attr("action_masks")
    finally:
        venv.close()
    for p in processes:
        p.join(5)
        assert not p.is_alive()


def test_a_batched_run_resumed_from_its_checkpoint_ends_as_the_straight_run(tmp_path):
    """``cardwar train`` with ``vec_env: batched`` (in worker processes): a run stopped at step 256 and resumed to
    384 ends with the weights of the run that went straight to 384 (snapshots in the pool from step 128)."""
    from sb3_contrib import MaskablePPO

    from cardwar.training.trainer import resume, train
    from tests.training.conftest import tiny_config

    def config(total: int):
        return tiny_config("naval", total_steps=total, env={"n_envs": 3, "vec_env": "batched", "workers": 2},
                           eval={"every": 10**6, "games": 0, "opponents": ["random"]},
                           ppo={"n_steps": 64, "batch_size": 64, "n_epochs": 1})

    straight = train(config(384), runs_root=tmp_path / "a", progress=False)
    cut = train(config(192), runs_root=tmp_path / "b", progress=False)
    resume(cut, total_steps=384, progress=False)
    wa = MaskablePPO.load(straight / "final.zip", device="cpu").policy.state_dict()
    wb = MaskablePPO.load(cut / "final.zip", device="cpu").policy.state_dict()
    assert all(torch.equal(wa[k], wb[k]) for k in wa)


@pytest.mark.parametrize("env, message", [
    ({"vec_env": "fast"}, "env.vec_env: 'fast' is not subproc, dummy or batched"),
    ({"vec_env": "subproc", "workers": 2}, "env.workers: splits vec_env batched's envs over processes"),
    ({"vec_env": "batched", "workers": -1}, "env.workers: -1 must be at least 0"),
])
def test_vec_env_mistakes_are_one_line_naming_the_key(env, message):
    with pytest.raises(TrainConfigError) as err:
        config_from_dict({"game": "naval", "env": env})
    assert str(err.value).startswith(message) and "\n" not in str(err.value)


def test_make_vec_env_builds_the_batched_envs_from_the_config():
    from tests.training.conftest import tiny_config

    inside = make_vec_env(tiny_config("naval", env={"n_envs": 2, "vec_env": "batched"}))
    assert type(inside) is BatchedVecEnv and inside.num_envs == 2
    spread = make_vec_env(tiny_config("naval", env={"n_envs": 3, "vec_env": "batched", "workers": 2}))
    try:
        assert type(spread) is BatchedWorkersVecEnv and spread.num_envs == 3 and len(spread.processes) == 2
    finally:
        spread.close()
    placeholder = make_vec_env(tiny_config("naval", env={"n_envs": 2, "vec_env": "batched", "workers": 2}),
                               in_process=True)
    assert type(placeholder) is DummyVecEnv  # the trainer's placeholder (spaces only) starts no process


def test_the_profile_accounts_for_the_whole_wall_clock_with_each_vec_env(monkeypatch, capsys):
    """``cardwar bench --training --profile`` on a tiny naval config: the parts add up to each run's wall-clock,
    IPC only where there are worker processes, the snapshot decisions batched only with ``batched``."""
    from cardwar.cli import bench_training

    real = bench_training.profile_config
    tiny = ("env.n_envs=2", "ppo.n_steps=32", "ppo.batch_size=32", "ppo.n_epochs=1", "policy.hidden=16",
            "policy.embed_dim=8", "opponents.schedule=[{from_step: 0, mix: {snapshots: 1.0}}]")
    monkeypatch.setattr(bench_training, "profile_config",
                        lambda game, vec_env, phase, extra=(): real(game, vec_env, phase, (*tiny, *extra)))
    out = bench_training.run_training_profile("naval", steps=64, vec_envs=("subproc", "dummy", "batched", "batched:2"))
    text = capsys.readouterr().out
    assert "where training spends its time: naval" in text and "ratio to subproc" in text
    for kind, run in out["runs"].items():
        assert run["steps"] == 64
        seconds = run["seconds"]
        assert abs(sum(seconds.values()) - run["wall_s"]) < 0.05  # "other" is the rest, whatever it is
        assert seconds["other"] > -0.05 * run["wall_s"] - 0.05  # nothing outside the measured run counted in
        assert all(seconds[k] >= 0 for k in ("env", "opponent", "ipc", "learner_update", "boundary"))
        assert abs(seconds["opponent"] - sum(run["opponent_seconds"].values())) < 0.05
        assert (seconds["ipc"] > 0) == (kind in ("subproc", "batched:2"))
        assert set(run["opponent_seconds"]) == {"snapshot (batched)" if kind.startswith("batched") else "snapshot"}
        assert (run["snapshot_decisions_per_forward_pass"] >= 1.0) and (kind != "dummy"
                                                                       or run["snapshot_decisions_per_forward_pass"] == 1)
    assert out["ratio_to_subproc"]["subproc"] == 1.0


def test_profile_vec_env_mistakes_are_one_line_and_exit_2(capsys):
    from cardwar.cli import main

    assert main(["bench", "--training", "--profile", "naval", "--vec-envs", "subproc,fast"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--vec-envs: fast: each is subproc, dummy, batched or batched:W" in err[0]
