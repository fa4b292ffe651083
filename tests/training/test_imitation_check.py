"""Imitation measured alone (issue 22): distance fields read the seat's planes exactly, DAgger labels the
learner's own positions with the teacher's moves, the data's label conflicts are counted, and the check's
command reports what it measured (or says in one line what is wrong)."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from cardwar.envs import make_raw_env
from cardwar.envs.hexwar.geometry import DIST
from cardwar.envs.hexwar.observation import P
from cardwar.envs.hexwar.scenario import NUM_CELLS
from cardwar.training.config import TrainConfigError
from cardwar.training.hex_policy import ENEMY_PLANES, FIELD_SCALE, HexDistanceFields, on_map_plane
from cardwar.training.imitation import Demonstrations, LabelledLearner, join
from cardwar.training.imitation_check import label_conflicts, main


def hex_positions(count: int) -> list[np.ndarray]:
    """Observations of the seat to move along random games on procedural maps."""
    out = []
    for seed in range(count):
        env = make_raw_env("hexwar", "random:train")
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(rng.integers(0, 60)):
            if any(env.terminations.values()) or any(env.truncations.values()):
                break
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(rng.choice(np.flatnonzero(mask))))
        out.append(env.observe(env.agent_selection)["observation"])
    return out


def nearest(cells: list[int], to: int) -> float:
    return min(DIST[c][to] for c in cells) if cells else float("inf")


def test_the_distance_fields_are_the_hex_distances_to_the_goal_objectives_enemies_and_acting_unit():
    fields = HexDistanceFields()
    for obs in hex_positions(12):
        flat = obs.reshape(obs.shape[0], NUM_CELLS)
        on = np.flatnonzero(flat[P["off_map"]] == 0)
        objectives = [c for c in on if flat[[P["objective_mine"], P["objective_enemy"], P["objective_neutral"]], c].any()]
        not_mine = [c for c in on if flat[[P["objective_enemy"], P["objective_neutral"]], c].any()]
        goal = not_mine or objectives  # the heuristic's: objectives not held, else all of them
        enemies = [c for c in on if flat[list(ENEMY_PLANES), c].any()]
        acting = [c for c in on if flat[P["acting_unit"], c] > 0]
        t = torch.as_tensor(obs)[None]
        raw = fields(t, on_map_plane(t))[0].reshape(9, NUM_CELLS).numpy()
        got = raw * FIELD_SCALE  # the distance planes in hexes
        for k, targets in ((0, goal), (2, objectives), (4, enemies)):
            for c in on:
                exact = min(nearest(targets, c), 2 * FIELD_SCALE)
                assert got[k, c] == pytest.approx(exact, abs=1e-4), (k, c, exact)
            assert (raw[k + 1, on] == (1.0 if targets else 0.0)).all()
        for c in on:
            if acting:
                assert got[6, c] == pytest.approx(DIST[acting[0]][c], abs=1e-4)
                assert got[8, c] == pytest.approx(got[0, acting[0]] - got[0, c], abs=1e-4)  # a move's progress
            else:
                assert got[8, c] == 0.0


def test_a_policy_with_distance_fields_saves_and_loads_with_them(tmp_path):
    from sb3_contrib import MaskablePPO

    from cardwar.training.selfplay_env import SelfPlayEnv
    from cardwar.training.hex_policy import HexConvPolicy

    env = SelfPlayEnv("hexwar", scenario="random:train")
    model = MaskablePPO(HexConvPolicy, env, n_steps=16, batch_size=16, n_epochs=1,
                        policy_kwargs={"channels": 4, "blocks": 1, "fields": True})
    model.save(tmp_path / "m.zip")
    loaded = MaskablePPO.load(tmp_path / "m.zip")
    assert loaded.policy.features_extractor.fields is not None
    obs = torch.as_tensor(hex_positions(1)[0])[None]
    with torch.no_grad():
        torch.testing.assert_close(loaded.policy.extract_features(obs), model.policy.extract_features(obs))


def test_distance_fields_are_refused_for_a_network_that_is_not_hex_fcn(tiny):
    with pytest.raises(TrainConfigError, match="policy.distance_fields"):
        tiny("naval", policy={"features": "mlp", "distance_fields": True})
    with pytest.raises(TrainConfigError, match="imitation.value_coef"):
        tiny("naval", imitation={"value_coef": -1})
    with pytest.raises(TrainConfigError, match="imitation.dagger_rounds"):
        tiny("naval", imitation={"dagger_rounds": -1})


class Lowest:
    def act(self, observation, view=None) -> int:
        return int(np.flatnonzero(observation["action_mask"])[0])


class Highest:
    def act(self, observation, view=None) -> int:
        return int(np.flatnonzero(observation["action_mask"])[-1])


def test_dagger_plays_the_learners_move_and_keeps_the_teachers_as_the_label():
    from cardwar.arena import play_agents

    env = make_raw_env("naval")
    player = LabelledLearner(Lowest(), Highest())
    seen = []

    def record(agent, o, a):
        if agent == env.possible_agents[0]:
            seen.append((a, player.label, np.flatnonzero(o["action_mask"])))

    play_agents(env, player, Lowest(), seed=4, on_move=record)
    assert seen
    for played, label, legal in seen:
        assert played == legal[0] and label == legal[-1]  # the learner moved; the teacher's move is the label


def test_dagger_examples_are_the_teachers_labels_at_the_learners_positions(tiny, tmp_path):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from cardwar.training.imitation import collect
    from cardwar.training.selfplay_env import SelfPlayEnv
    from cardwar.training.trainer import new_model

    model = new_model(tiny("naval"), DummyVecEnv([lambda: SelfPlayEnv("naval")]), tmp_path)
    demos = collect("naval", 2, teacher="heuristic:samples=4", opponents=("random",), seed=0, workers=1,
                    progress=False, learner=model)
    plain = collect("naval", 2, teacher="heuristic:samples=4", opponents=("random",), seed=0, workers=1,
                    progress=False)
    assert len(demos) > 0
    masks = demos.mask_rows(np.arange(len(demos)))
    assert masks[np.arange(len(demos)), demos.actions].all()  # every label is legal where the learner stood
    assert len(demos) != len(plain) or not np.array_equal(demos.actions, plain.actions)  # other games: the learner's
    both = join([plain, demos])
    assert len(both) == len(plain) + len(demos) and np.array_equal(both.actions[len(plain):], demos.actions)


def test_label_conflicts_count_the_moves_that_differ_from_their_positions_majority():
    obs = np.array([[0, 1], [0, 1], [0, 1], [1, 1], [1, 0]], dtype=np.float16)
    masks = np.packbits(np.ones((5, 3), dtype=bool), axis=1)
    demos = Demonstrations(obs, masks, np.array([2, 2, 1, 0, 0]), np.zeros(5, np.float32),
                           np.zeros((5, 8), np.int32), np.zeros((5, 8), np.float32), n_actions=3)
    # one position seen three times with moves 2, 2, 1: three repeated examples, one against the majority
    assert label_conflicts(demos) == {"repeated_positions": pytest.approx(3 / 5), "irreducible_disagreement": pytest.approx(1 / 5)}


def test_the_check_reports_agreement_and_scores_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    assert main(["chess", "--out", str(tmp_path)]) == 2
    assert "unknown game" in capsys.readouterr().err
    assert main(["naval", "--games", "0", "--out", str(tmp_path)]) == 2
    assert main(["naval", "--set", "imitation.epochs=zero", "--out", str(tmp_path)]) == 2
    assert main(["naval", "--test-games", "0", "--out", str(tmp_path)]) == 2
    assert main(["naval", "--eval-games", "1", "--out", str(tmp_path)]) == 2
    (tmp_path / "a_file").write_text("")
    assert main(["naval", "--out", str(tmp_path / "a_file" / "report")]) == 2
    err = capsys.readouterr().err
    assert "--test-games must be at least 1" in err and "--eval-games must be at least 2" in err
    assert "cannot make the folder" in err and "Traceback" not in err
    out = tmp_path / "check"
    code = main(["naval", "--games", "4", "--test-games", "2", "--eval-games", "2", "--workers", "1",
                 "--set", "imitation.epochs=1", "--set", "imitation.teacher=heuristic:samples=4",
                 "--set", "policy.hidden=16", "--dagger", "1", "--out", str(out)])
    assert code == 0
    report = json.loads((out / "report.json").read_text())
    assert [r["round"] for r in report["rounds"]] == [0, 1]
    first, second = report["rounds"]
    assert second["examples"] > first["examples"]  # DAgger added the learner's labelled positions
    for r in report["rounds"]:
        assert 0.0 <= r["curve"][-1]["held_out_accuracy"] <= 1.0
        assert r["scores"]["heuristic:samples=4"]["games"] == 2 and r["scores"]["random"]["games"] == 2
    assert (out / "imitated_1.zip").is_file()
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["vs_random"] == second["scores"]["random"]["score"]


def test_a_check_run_again_keeps_the_rounds_it_measured_and_adds_the_new_ones(tmp_path, capsys):
    out = tmp_path / "check"
    args = ["naval", "--games", "4", "--test-games", "2", "--eval-games", "2", "--workers", "1",
            "--set", "imitation.epochs=1", "--set", "imitation.teacher=heuristic:samples=4",
            "--set", "policy.hidden=16", "--out", str(out)]
    assert main(args + ["--dagger", "0"]) == 0
    first = json.loads((out / "report.json").read_text())["rounds"]
    capsys.readouterr()
    assert main(args + ["--dagger", "1"]) == 0  # one more DAgger round on the same folder
    again = json.loads((out / "report.json").read_text())["rounds"]
    assert "round 0: kept from" in capsys.readouterr().err
    assert again[0] == first[0] and [r["round"] for r in again] == [0, 1] and again[1]["examples"] > first[0]["examples"]
