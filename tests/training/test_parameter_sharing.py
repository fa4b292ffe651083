"""Parameter sharing on the skirmish's Parallel form (``cardwar.training.parameter_sharing``): a short run
trains, saves and reloads one policy that plays legal actions for every figure of both sides."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from cardwar.envs.skirmish.figure_obs import N_PLANES, N_SCALARS, NOOP, OBS_SIZE
from cardwar.envs.skirmish_parallel import N_SPACE, parallel_env
from cardwar.training import parameter_sharing as ps

RULES = {"sequence": "phases"}


def wilson(score: float, n: int, z: float = 1.96) -> tuple[float, float]:
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    """One short run of the command (in process): 600 agent steps of duel, 4 evaluation games."""
    out = tmp_path_factory.mktemp("ps") / "run"
    rc = ps.main(["--steps", "600", "--out", str(out), "--games", "2", "--eval-games", "4", "--no-progress"])
    return rc, out


def test_short_run_trains_saves_and_reports(trained, capsys):
    rc, out = trained
    assert rc == 0
    assert (out / ps.MODEL_FILE).is_file()
    run = json.loads((out / ps.RUN_FILE).read_text())
    assert run["steps"] >= 600 and run["games_trained"] >= 1
    assert run["agents"] == parallel_env(scenario="duel").possible_agents
    e = run["eval"]
    assert e["games"] == 4 and e["wins"] + e["draws"] + e["losses"] == 4
    assert e["score"] == pytest.approx((e["wins"] + 0.5 * e["draws"]) / 4, abs=1e-4)
    lo, hi = wilson(e["score"], 4)
    assert e["ci95"][0] == pytest.approx(max(0.0, lo), abs=1e-3)
    assert e["ci95"][1] == pytest.approx(min(1.0, hi), abs=1e-3)
    per_side = e["per_side"]  # the policy played each side twice
    assert sum(per_side["a_first"]) == 2 and sum(per_side["a_second"]) == 2


def test_saved_policy_plays_legal_actions_for_every_figure_of_both_sides(trained):
    _, out = trained
    model = ps.load(str(out))  # the folder's name, as the docs' example gives it
    env = parallel_env(scenario="duel", rules=RULES)
    asked: set[str] = set()
    for seed in (1, 2):
        observations, _ = env.reset(seed=seed)
        while env.agents:
            actions = ps.policy_actions(model, observations, env.agents)
            assert set(actions) == set(env.agents)
            for agent, action in actions.items():
                mask = observations[agent]["action_mask"]
                assert mask[action] == 1, f"{agent} played illegal id {action}"
                if action != NOOP:
                    asked.add(agent)
            observations, _, _, _, infos = env.step(actions)
            assert not any(info["illegal"] for info in infos.values())
    assert asked == set(env.possible_agents)  # every figure of both sides acted through the one policy


def test_the_figures_share_one_set_of_weights(trained):
    """The saved policy holds exactly one network's parameters (MapCrop -> 2 x [128, 128] -> 421 + 1), not one
    per figure: 6 agents, one set of weights."""
    _, out = trained
    model = ps.load(out)
    cells = 10 * 8  # duel's 10 x 8 field
    inputs = N_PLANES * cells + N_SCALARS

    def mlp(sizes: list[int]) -> int:
        return sum(a * b + b for a, b in zip(sizes, sizes[1:]))

    expected = 2 * mlp([inputs, 128, 128]) + mlp([128, N_SPACE]) + mlp([128, 1])
    assert len(ps.on_map_cells("duel")) == cells
    assert sum(p.numel() for p in model.policy.parameters()) == expected
    # the same observation gets the same answer whichever figure (or side) it belongs to: no agent id inside
    env = parallel_env(scenario="duel", rules=RULES)
    observations, _ = env.reset(seed=3)
    a, b = "american_0", "german_0"
    swapped = {a: observations[b], b: observations[a]}
    assert ps.policy_actions(model, swapped, [a, b]) == {a: ps.policy_actions(model, observations, [b])[b],
                                                         b: ps.policy_actions(model, observations, [a])[a]}


def test_vec_env_slots_leave_and_get_the_team_result():
    """A figure out of action keeps its slot, no-op only (it stays an agent to the end); at the end every slot of a side gets the
    side's result (a win +1, a loss -1 for the other side), then the game restarts."""
    venv = ps.FigureVecEnv(2, "duel", RULES, seed=5)
    n = len(venv.agents)
    assert venv.num_envs == 2 * n and venv.observation_space.shape == (OBS_SIZE,)
    obs = venv.reset()
    assert obs.shape == (2 * n, OBS_SIZE)
    rng = np.random.default_rng(0)
    ends, saw_left = 0, False
    for _ in range(2000):
        masks = venv.action_masks()
        assert masks.shape == (2 * n, N_SPACE) and masks.any(axis=1).all()
        assert np.array_equal(np.stack(venv.env_method("action_masks")), masks)
        obs, rewards, dones, infos = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in masks]))
        for g, env in enumerate(venv.envs):
            slots = range(g * n, (g + 1) * n)
            if dones[g * n]:
                ends += 1
                assert all(dones[k] for k in slots)
                sides = [env.side_of(a) for a in venv.agents]
                side0 = {float(rewards[k]) for k, s in zip(slots, sides) if s == 0}
                side1 = {float(rewards[k]) for k, s in zip(slots, sides) if s == 1}
                assert len(side0) == 1 and side1 == {-side0.pop()}
                assert all("terminal_observation" in infos[k] for k in slots)
                assert env.agents == [a for a in venv.agents if env.game.units[env.unit_of(a)].active]  # restarted
            else:
                assert not any(dones[k] for k in slots) and not rewards[list(slots)].any()
                for k, agent in zip(slots, venv.agents):
                    assert agent in env.agents  # every agent plays to the end (RULES.md §9.2)
                    if not env.game.units[env.unit_of(agent)].active:  # out of action: the no-op alone
                        saw_left = True
                        assert np.flatnonzero(venv.action_masks()[k]).tolist() == [NOOP]
        if ends >= 4 and saw_left:
            break
    assert ends >= 4 and saw_left
    venv.close()


def test_evaluation_of_a_uniform_policy_against_random_is_even():
    """A stand-in policy that is itself uniformly random scores about 1/2; the games come in side-swapped pairs."""

    class Uniform:
        rng = np.random.default_rng(7)

        def predict(self, obs, action_masks, deterministic=True):
            assert obs.shape[1] == OBS_SIZE and action_masks.shape == (len(obs), N_SPACE)
            return np.array([self.rng.choice(np.flatnonzero(m)) for m in action_masks]), None

    res = ps.evaluate_vs_random(Uniform(), "duel", RULES, 40, seed=3)
    assert res.games == 40 and res.wins_a + res.draws + res.wins_b == 40
    assert sum(res.per_seat["a_first"]) == sum(res.per_seat["a_second"]) == 20
    lo, hi = res.interval()
    assert lo < 0.5 < hi


@pytest.mark.parametrize("argv, words", [
    (["--steps", "0", "--out", "x"], "--steps must be at least 1"),
    (["--steps", "ten", "--out", "x"], "'ten' is not an integer"),
    (["--out", "x"], "--steps"),
    (["--steps", "10", "--out", "x", "--sequence", "free"], "invalid choice"),
    (["--steps", "10", "--out", "x", "--scenario", "nowhere"], "not a shipped scenario"),
])
def test_bad_arguments_are_one_line_and_exit_2(argv, words, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(SystemExit) as exc:
        ps.main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err and "Traceback" not in err


def test_out_that_is_a_file_is_refused(capsys, tmp_path):
    target = tmp_path / "model.txt"
    target.write_text("not a folder")
    with pytest.raises(SystemExit) as exc:
        ps.main(["--steps", "10", "--out", str(target)])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file, not a folder" in err


def test_the_module_runs_as_a_command(tmp_path):
    """``python -m cardwar.training.parameter_sharing``: a bad argument is one line and exit status 2."""
    proc = subprocess.run([sys.executable, "-m", "cardwar.training.parameter_sharing", "--steps", "-5", "--out",
                           str(tmp_path / "run")], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "--steps must be at least 1, got -5" in proc.stderr
    assert not (tmp_path / "run").exists()
