"""End to end: a tiny run per game writes its folder; resume goes on from the checkpoint; the model plays."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from cardwar import agents
from cardwar.agents.spec import AgentSpecError
from cardwar.cli import main
from cardwar.cli.match import play_game, run_match
from cardwar.training.trainer import latest_checkpoint, resume, train


def _steps(path: Path) -> int:
    return int(path.stem.split("_")[-1])


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_a_tiny_run_writes_checkpoints_curve_and_logs_and_resumes(tiny, tmp_path, game):
    config = tiny(game)
    run = train(config, runs_root=tmp_path, progress=False)
    assert run.name.startswith(f"{game}__tiny__3__")
    assert yaml.safe_load((run / "config.yaml").read_text())["total_steps"] == 256
    assert (run / "command.txt").read_text().strip()
    assert list((run / "tb").rglob("events.out.tfevents*"))
    assert (run / "curve.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    rows = (run / "eval.csv").read_text().splitlines()
    assert rows[0].startswith("step,opponent") and [r.split(",")[0] for r in rows[1:]] == ["0", "128", "256"]
    checkpoint, state = latest_checkpoint(run)
    assert _steps(checkpoint) == 256 and state["num_timesteps"] == 256
    # Snapshots are taken at rollout boundaries, before a rollout: none at the end, where no rollout follows.
    assert state["snapshots"] == ["snapshot_000000128.zip"]
    assert (run / "final.zip").is_file()

    seconds_at_256 = state["seconds"]
    resume(run, total_steps=384, progress=False)
    checkpoint, state = latest_checkpoint(run)
    assert _steps(checkpoint) == state["num_timesteps"] == 384  # the step count went on from 256
    assert state["snapshots"] == ["snapshot_000000128.zip", "snapshot_000000256.zip"]  # the one due at 256 taken
    # The wall clock of the curve against time goes on from the checkpoint too, never back to 0.
    from cardwar.training.evaluate import read_csv

    times = [p.seconds for p in sorted(read_csv(run / "eval.csv"), key=lambda p: p.step)]
    assert all(t >= 0 for t in times) and times == sorted(times) and state["seconds"] > seconds_at_256 > 0
    from sb3_contrib import MaskablePPO

    assert MaskablePPO.load(run / "final.zip").num_timesteps == 384
    assert "resumed at step 256" in (run / "command.txt").read_text()

    # The checkpoint plays whole legal games as `ppo:PATH` (legality is enforced by the raw env).
    scenario = "random" if game == "hexwar" else None
    for seed in range(2):
        returns = play_game(game, f"ppo:{checkpoint}", "random", seed, scenario)
        assert sorted(returns) in ([-1.0, 1.0], [0.0, 0.0])


def test_resume_after_a_kill_starts_from_the_last_complete_checkpoint(tiny, tmp_path, capsys):
    # Rollouts of 64 steps (32 x 2 envs): checkpoints fall on rollout boundaries.
    ppo = {"n_steps": 32, "batch_size": 64, "n_epochs": 1}
    run = train(tiny("naval", checkpoint_every=64, total_steps=128, ppo=ppo), runs_root=tmp_path, progress=False)
    assert sorted(_steps(p) for p in (run / "checkpoints").glob("model_*.zip")) == [0, 64, 128]  # step 0: the start
    # A kill during the save of step 192 leaves a partial file, or a model without its pool state:
    # neither is a checkpoint.
    (run / "checkpoints" / "model_000000192.partial").write_bytes(b"half a zip")
    (run / "checkpoints" / "model_000000256.zip").write_bytes(b"no state file beside it")
    (run / "final.zip").unlink()
    checkpoint, state = latest_checkpoint(run)
    assert _steps(checkpoint) == 128
    # The newest complete checkpoint is damaged (say, a power loss): resume falls back to the one before.
    checkpoint.write_bytes(b"")
    resume(run, total_steps=250, progress=False)
    # From step 64, whole rollouts of 64 steps: the first boundary at or past 250 is 256.
    assert latest_checkpoint(run)[1]["num_timesteps"] == 256
    assert json.loads((run / "budget.json").read_text())["trained_steps"] == 256
    assert "model_000000128.zip cannot be loaded" in capsys.readouterr().err


def test_resume_of_a_folder_that_is_not_a_run_is_a_clear_error(tmp_path, capsys):
    assert main(["train", "naval", "--resume", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "not a run folder" in err and "Traceback" not in err


def test_a_mistyped_config_key_is_one_clear_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("game: naval\nppo:\n  learning_rat: 0.001\n")
    assert main(["train", "naval", "--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "ppo.learning_rat" in err and "did you mean 'learning_rate'" in err and "Traceback" not in err
    assert not (Path("runs").exists() and any(p.name.startswith("naval__ppo") and p.stat().st_size == 0
                                              for p in Path("runs").iterdir()))


@pytest.mark.parametrize("text, message", [
    ("game: chess\n", "game"),
    ("game: naval\nenv: {n_envs: many}\n", "env.n_envs: expected a whole number"),
    ("game: naval\nopponents: {schedule: [{mix: {mcts: 1}}]}\n", "unknown opponent 'mcts'"),
    ("game: naval\n[oops", "not valid YAML"),
])
def test_broken_configs_are_named_errors(tmp_path, capsys, text, message):
    bad = tmp_path / "bad.yaml"
    bad.write_text(text)
    assert main(["train", "naval", "--config", str(bad), "--runs", str(tmp_path / "runs")]) == 2
    err = capsys.readouterr().err
    assert message in err and str(bad) in err and "Traceback" not in err


def test_committed_configs_load():
    from cardwar.training.config import load_config

    for game in ("naval", "hexwar"):
        c = load_config(f"configs/training/{game}.yaml")
        assert c.game == game and c.total_steps > 0
        # the best-response probe: any bot as the fixed opponent, the same budget whichever it is
        probe = load_config(f"configs/training/best_response/{game}.yaml",
                            ["opponents.heuristic=ppo", "eval.opponents=[ppo]"])
        assert probe.game == game and probe.mix_at(0) == {"heuristic": 1.0} and probe.eval.opponents == ["ppo"]
    # the shipped models' configs: the shaped policies (issue 13)
    assert load_config("configs/training/naval.yaml").policy.features == "naval_cards"
    assert load_config("configs/training/hexwar.yaml").policy.features == "hex_fcn"


def test_ppo_specs_load_the_model_and_check_the_game(tiny, tmp_path):
    run = train(tiny("naval", total_steps=128, checkpoint_every=128), runs_root=tmp_path, progress=False)
    model = run / "final.zip"
    agent = agents.make(f"ppo:{model}", "naval", seed=0)
    assert agent.name == "ppo"
    with pytest.raises(AgentSpecError, match="trained for another game"):
        agents.make(f"ppo:{model}", "hexwar")
    with pytest.raises(AgentSpecError, match="no model file"):
        agents.make(f"ppo:{tmp_path / 'missing.zip'}", "naval")
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"not a model")
    with pytest.raises(AgentSpecError, match="not a MaskablePPO model"):
        agents.make(f"ppo:{junk}", "naval")
    res = run_match("naval", f"ppo:{model}", "random", games=4, seed=0, progress=False)
    assert res.games == 4 and res.wins_a + res.wins_b + res.draws == 4


def test_the_ppo_agent_sees_only_the_observation_and_mask(tiny, tmp_path):
    """Two views that differ only in what the seat cannot know give the same observation, so the same move."""
    run = train(tiny("naval", total_steps=128, checkpoint_every=128), runs_root=tmp_path, progress=False)
    agent = agents.make(f"ppo:path={run / 'final.zip'},deterministic=false", "naval", seed=5)
    twin = agents.make(f"ppo:path={run / 'final.zip'},deterministic=false", "naval", seed=5)
    from cardwar.envs.naval import NavalState
    from cardwar.envs.naval.observation import encode_observation

    s = NavalState.new_game(seed=11)
    other = s.clone()
    other.deck.reverse()  # the deck order, which no seat knows
    chosen = []
    for state, player in ((s, agent), (other, twin)):
        view = state.information_view(state.current_player)
        mask = np.zeros(3029, dtype=np.int8)
        mask[state.legal_actions()] = 1
        chosen.append(player.act({"observation": encode_observation(view), "action_mask": mask}, view))
    assert chosen[0] == chosen[1]
    assert json.dumps(sorted(s.legal_actions())) == json.dumps(sorted(other.legal_actions()))


def test_overrides_accept_numbers_as_yaml_writes_them_and_reject_what_cannot_apply():
    from cardwar.training.config import TrainConfigError, load_config

    assert load_config("configs/training/naval.yaml", ["ppo.learning_rate=1e-4"]).ppo.learning_rate == 1e-4
    for bad, message in ((["game.x=1"], "not a section"), (["name=[a"], "not valid YAML"),
                         (["opponents.schedule=[{mix: {random: .nan}}]"], "expected a number, got nan"),
                         (["policy.net_arch=[0]"], "layer sizes must be positive")):
        with pytest.raises(TrainConfigError, match=message):
            load_config("configs/training/naval.yaml", bad)


@pytest.mark.parametrize("args, message", [
    (["--steps", "100"], "--steps 100 is less than one rollout"),
    (["--set", "opponents.heuristic=heuristc"], "opponents.heuristic: unknown agent"),
    (["--set", "eval.opponents=[random, mcts:depth=3]"], "eval.opponents"),
])
def test_train_rejects_mistakes_before_making_a_run_folder(tmp_path, capsys, args, message):
    runs = tmp_path / "runs"
    assert main(["train", "naval", "--runs", str(runs), *args]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.parametrize("override, key, message", [
    ("ppo.gamma=2", "ppo.gamma", "2.0 is not in (0, 1]"),
    ("ppo.gamma=0", "ppo.gamma", "0.0 is not in (0, 1]"),
    ("ppo.gae_lambda=1.5", "ppo.gae_lambda", "is not in (0, 1]"),
    ("ppo.clip_range=-0.2", "ppo.clip_range", "is not in (0, 1]"),
    ("ppo.learning_rate=0", "ppo.learning_rate", "must be above 0"),
    ("ppo.learning_rate=-1e-4", "ppo.learning_rate", "must be above 0"),
    ("ppo.n_steps=0", "ppo.n_steps", "must be at least 1"),
    ("ppo.batch_size=1", "ppo.batch_size", "must be at least 2"),
    ("ppo.batch_size=4096", "ppo.batch_size", "4096 is more than one rollout (ppo.n_steps 256 x env.n_envs 8"),
    ("ppo.n_epochs=0", "ppo.n_epochs", "must be at least 1"),
    ("ppo.ent_coef=-0.01", "ppo.ent_coef", "must be 0 or more"),
    ("ppo.max_grad_norm=0", "ppo.max_grad_norm", "must be above 0"),
    ("ppo.target_kl=0", "ppo.target_kl", "must be above 0"),
    ("env.n_envs=0", "env.n_envs", "must be at least 1"),
    ("total_steps=1000", "total_steps", "1000 is less than one rollout"),
    ("checkpoint_every=0", "checkpoint_every", "must be at least 1"),
    ("opponents.schedule=[{mix: {random: -1}}]", "opponents.schedule[0].mix.random", "weights are numbers >= 0"),
    ("opponents.schedule=[{mix: {random: 0, heuristic: 0}}]", "opponents.schedule[0].mix",
     "at least one weight must be above 0"),
    ("opponents.schedule=[{from_step: -5, mix: {random: 1}}]", "opponents.schedule[0].from_step", "0 or more"),
    ("opponents.max_snapshots=0", "opponents.max_snapshots", "must be at least 1"),
    ("opponents.heuristic=heuristic:attack_threshold=1.5", "opponents.heuristic", "attack_threshold"),
    ("eval.games=-1", "eval.games", "must be at least 0"),
    ("eval.every=0", "eval.every", "must be at least 1"),
    ("imitation.learning_rate=0", "imitation.learning_rate", "must be above 0"),
    ("imitation.epochs=0", "imitation.epochs", "must be at least 1"),
    ("device=gpu", "device", "'gpu' is not one of auto, cpu, cuda"),
])
def test_config_values_out_of_range_are_one_line_naming_the_key(override, key, message):
    from cardwar.training.config import TrainConfigError, load_config

    with pytest.raises(TrainConfigError) as err:
        load_config("configs/training/naval.yaml", [override])
    text = str(err.value)
    assert f"{key}: " in text and message in text and "\n" not in text, text


def test_device_cuda_is_refused_by_name_where_torch_sees_no_gpu_and_auto_always_loads():
    import torch
    from cardwar.training.config import TrainConfigError, load_config

    assert load_config("configs/training/naval.yaml", ["device=auto"]).device == "auto"
    if torch.cuda.is_available():
        assert load_config("configs/training/naval.yaml", ["device=cuda"]).device == "cuda"
    else:
        with pytest.raises(TrainConfigError, match=r"naval.yaml: device: cuda asked for, but this torch build sees no CUDA GPU"):
            load_config("configs/training/naval.yaml", ["device=cuda"])


def test_a_config_mistake_from_the_command_line_is_exit_2_without_a_folder(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["train", "naval", "--set", "ppo.gamma=2", "--runs", str(runs)]) == 2
    err = capsys.readouterr().err
    assert "ppo.gamma: 2.0 is not in (0, 1]" in err and len(err.strip().splitlines()) == 1
    assert not runs.exists()


def test_steps_scale_the_imitation_games_down_with_the_budget_and_never_up():
    from cardwar.configs import training_config_path
    from cardwar.training.config import load_config, with_step_budget

    hexwar = load_config(training_config_path("hexwar"))  # e.g. 1000 games for 300,000 steps
    games, total = hexwar.imitation.games, hexwar.total_steps
    expected = -(-games * 2048 // total)  # ceil(games * 2048 / total_steps), in integers
    short, note = with_step_budget(hexwar, 2048)
    assert short.total_steps == 2048 and short.imitation.games == expected
    assert f"{games} to {expected}" in note
    longer, note = with_step_budget(hexwar, 2 * total)
    assert longer.imitation.games == games and note is None
    assert with_step_budget(hexwar, 2048)[0].ppo == hexwar.ppo  # nothing else changes


def test_a_single_evaluation_is_a_visible_point_on_the_curve(tmp_path):
    import matplotlib.image

    from cardwar.training.evaluate import EvalPoint, plot_curve

    empty, one = tmp_path / "empty.png", tmp_path / "one.png"
    plot_curve([], empty, "t")
    plot_curve([EvalPoint(0, "random", 40, 20, 0, 20, 0.5, 0.35, 0.65)], one, "t")
    blue = np.array([0x1F, 0x77, 0xB4]) / 255  # the first line colour, the marker's

    def blue_in_the_axes(path) -> int:  # the legend, with its sample of the line, is outside on the right
        img = matplotlib.image.imread(path)[..., :3]
        return int((np.abs(img[:, : int(img.shape[1] * 0.7)] - blue).sum(axis=-1) < 0.1).sum())

    assert blue_in_the_axes(empty) == 0 and blue_in_the_axes(one) > 20
