"""`cardwar train` as a real process, interrupted in each phase and failing in each kind of worker.

A kill in any phase (imitation games, imitation fit, PPO, evaluation) leaves no process behind,
saves what the phase had, prints the --resume command, and the run resumes and finishes.
A failing worker ends the run with one line and a non-zero status, without a hang.
"""

from __future__ import annotations

import signal
import sys
from pathlib import Path

import pytest
import yaml

from cardwar.training.evaluate import read_csv
from cardwar.training.trainer import latest_checkpoint, resume
from tests.training.processes import assert_all_ended, descendants, wait_until

pytestmark = [pytest.mark.slow, pytest.mark.skipif(sys.platform != "linux", reason="the tests read /proc")]


def _write(tmp_path: Path, data: dict) -> Path:
    path = tmp_path / f"{data['name']}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _run_dir(runs: Path) -> Path:
    return wait_until(lambda: next(runs.glob("*__*"), None), 60, "the run folder")  # type: ignore[return-value]


def _interrupted(code: int, signum: int, text: str, phase: str) -> None:
    assert code == 128 + signum, text
    assert f"interrupted ({signal.Signals(signum).name}) during {phase}" in text, text
    assert "--resume" in text and "Traceback" not in text, text


def _no_children_of_this_test() -> None:
    assert descendants(__import__("os").getpid()) == []


HEX_IMITATION = {
    "game": "hexwar", "name": "im", "seed": 1, "total_steps": 128, "checkpoint_every": 128,
    "env": {"n_envs": 2, "vec_env": "subproc", "scenario": "random:train"},
    "policy": {"features": "hex_cnn", "cnn_channels": [4], "features_dim": 16, "net_arch": [16]},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "opponents": {"schedule": [{"from_step": 0, "mix": {"random": 1.0}}]},
    "eval": {"every": 128, "games": 2, "opponents": ["random"]},
    "imitation": {"games": 40, "teacher": "heuristic", "opponents": ["random"], "epochs": 4, "batch_size": 64},
}


def test_a_kill_during_imitation_games_or_fit_keeps_them_and_the_run_resumes(launch, tmp_path):
    runs = tmp_path / "runs"
    config = _write(tmp_path, HEX_IMITATION)
    first = launch(["-m", "cardwar", "train", "hexwar", "--config", str(config), "--runs", str(runs), "--quiet"])
    run = _run_dir(runs)
    wait_until(lambda: list((run / "imitation").glob("games_*.npz")), 120, "a finished job of teacher games")
    code, below = first.signal_and_wait(signal.SIGINT)
    _interrupted(code, signal.SIGINT, first.text(), "imitation (playing the teacher's games)")
    assert_all_ended(launch.tag, below)
    kept = {p.name: p.stat().st_mtime_ns for p in (run / "imitation").glob("games_*.npz")}
    assert 0 < len(kept) < 8  # some of the 8 jobs of 5 games were saved, not all
    assert not latest_checkpoint(run)

    second = launch(["-m", "cardwar", "train", "hexwar", "--resume", str(run), "--quiet"])
    wait_until(lambda: (run / "imitation" / "fit.pt").exists(), 180, "the fit after its first epoch")
    code, below = second.signal_and_wait(signal.SIGTERM)
    _interrupted(code, signal.SIGTERM, second.text(), "imitation (fitting the policy)")
    assert "the fit after epoch" in second.text()
    assert_all_ended(launch.tag, below)
    # The games kept were not played again; the others were all played.
    assert {n: (run / "imitation" / n).stat().st_mtime_ns for n in kept} == kept
    assert len(list((run / "imitation").glob("games_*.npz"))) == 8

    resume(run, progress=False)  # goes on with the fit, then PPO to the budget
    assert (run / "final.zip").is_file() and (run / "imitation.json").is_file()
    assert not (run / "imitation").exists()  # the step-0 checkpoint holds what the examples were for
    assert [p.step for p in read_csv(run / "eval.csv")] == [0, 128]
    _no_children_of_this_test()


NAVAL = {
    "game": "naval", "name": "ppo", "seed": 2, "total_steps": 100_000, "checkpoint_every": 128,
    "env": {"n_envs": 2, "vec_env": "subproc"},
    "policy": {"features": "mlp", "net_arch": [32]},
    "ppo": {"n_steps": 64, "batch_size": 64, "n_epochs": 1},
    "opponents": {"heuristic": "heuristic:samples=4", "snapshot_every": 128, "max_snapshots": 2,
                  "schedule": [{"from_step": 0, "mix": {"random": 0.5, "snapshots": 0.5}}]},
    "eval": {"every": 100_000, "games": 8, "opponents": ["heuristic"]},
}


def test_a_kill_during_evaluation_or_ppo_saves_a_checkpoint_and_the_run_resumes_and_finishes(launch, tmp_path):
    runs = tmp_path / "runs"
    config = _write(tmp_path, NAVAL)
    first = launch(["-m", "cardwar", "train", "naval", "--config", str(config), "--runs", str(runs), "--quiet"])
    first.wait_for_line(r"^evaluation at step 0:")
    code, below = first.signal_and_wait(signal.SIGTERM)
    _interrupted(code, signal.SIGTERM, first.text(), "the evaluation at step 0")
    assert_all_ended(launch.tag, below)
    run = _run_dir(runs)
    assert latest_checkpoint(run)[1]["num_timesteps"] == 0 and read_csv(run / "eval.csv") == []

    second = launch(["-m", "cardwar", "train", "naval", "--resume", str(run), "--quiet"])
    second.wait_for_line(r"^evaluation at step 0:")  # the evaluation cut short is made up for
    wait_until(lambda: (run / "checkpoints" / "model_000000128.zip").exists(), 180, "PPO at step 128")
    code, below = second.signal_and_wait(signal.SIGINT)
    _interrupted(code, signal.SIGINT, second.text(), "self-play")
    assert_all_ended(launch.tag, below)
    killed_at = latest_checkpoint(run)[1]["num_timesteps"]
    assert killed_at >= 128 and not (run / "final.zip").exists()
    assert [p.step for p in read_csv(run / "eval.csv")] == [0]

    resume(run, total_steps=killed_at + 128, progress=False)
    end = latest_checkpoint(run)[1]["num_timesteps"]
    assert end >= killed_at + 128 and (run / "final.zip").is_file()
    # Every run ends with an evaluation, even one far from the eval.every cadence.
    assert [p.step for p in read_csv(run / "eval.csv")] == [0, end]
    assert (run / "curve.png").read_bytes()[:4] == b"\x89PNG"
    _no_children_of_this_test()


# The user's case: an opponent that fails inside the env workers only (it hung before, and kept 4 workers).
_FAILS_IN_WORKERS = """
import os, sys
import cardwar.agents
parent, real = os.getpid(), cardwar.agents.make
def make(spec, game, seed=None):
    if os.getpid() != parent:
        raise ValueError(f"boom: {spec} cannot be built in a worker")
    return real(spec, game, seed)
cardwar.agents.make = make
from cardwar.cli import main
sys.exit(main(sys.argv[1:]))
"""


def test_an_opponent_failing_in_the_env_workers_is_one_line_and_ends_everything(launch, tmp_path):
    runs = tmp_path / "runs"
    config = _write(tmp_path, dict(NAVAL, total_steps=512, eval={"games": 0},
                                   opponents={"schedule": [{"from_step": 0, "mix": {"heuristic": 1.0}}]}))
    proc = launch(["-c", _FAILS_IN_WORKERS, "train", "naval", "--config", str(config), "--runs", str(runs),
                   "--quiet"])
    code = proc.wait(timeout=120)
    errors = [ln for ln in proc.err if "error" in ln]
    assert code == 1, proc.text()
    assert len(errors) == 1 and errors[0].startswith("cardwar train: error: env worker"), proc.text()
    assert "ValueError: boom: heuristic cannot be built in a worker" in errors[0]
    assert "--resume" in errors[0] and "Traceback" not in proc.text()
    assert_all_ended(launch.tag)


def test_a_worker_killed_during_ppo_is_one_line_with_a_checkpoint(launch, tmp_path):
    runs = tmp_path / "runs"
    config = _write(tmp_path, dict(NAVAL, eval={"games": 0}))
    proc = launch(["-m", "cardwar", "train", "naval", "--config", str(config), "--runs", str(runs), "--quiet"])
    run = _run_dir(runs)
    wait_until(lambda: (run / "checkpoints" / "model_000000128.zip").exists(), 120, "PPO at step 128")
    workers = descendants(proc.pid)
    assert len(workers) == 2  # the two env workers
    __import__("os").kill(workers[-1], signal.SIGKILL)  # as the OOM killer would
    code = proc.wait(timeout=60)
    errors = [ln for ln in proc.err if "error" in ln]
    assert code == 1, proc.text()
    assert len(errors) == 1 and "was killed by SIGKILL" in errors[0] and "checkpoint" in errors[0], proc.text()
    assert "Traceback" not in proc.text()
    assert_all_ended(launch.tag, workers)
    assert latest_checkpoint(run)[1]["num_timesteps"] >= 128


@pytest.mark.parametrize("where", ["imitation", "evaluation"])
def test_a_failing_imitation_or_evaluation_worker_raises_one_line_and_leaves_no_process(tiny, tmp_path,
                                                                                        monkeypatch, where):
    from cardwar.training import evaluate, imitation
    from cardwar.training.trainer import train
    from cardwar.training.workers import WorkerError

    def boom(*args):
        raise ValueError("boom")

    monkeypatch.setattr(*((imitation, "_play", boom) if where == "imitation" else (evaluate, "_play_pairs", boom)))
    config = tiny("naval", imitation={"games": 4, "teacher": "heuristic:samples=4", "opponents": ["random"]},
                  eval={"every": 128, "games": 4, "opponents": ["random"]})
    with pytest.raises(WorkerError) as err:
        train(config, runs_root=tmp_path, progress=False)
    message = str(err.value)
    assert f"{where} worker" in message and "ValueError: boom" in message and "\n" not in message
    assert "--resume" in message
    _no_children_of_this_test()


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the "Exception ignored" itself
def test_a_ctrl_c_swallowed_where_it_landed_still_stops_the_run():
    """A signal whose handler raises inside code that ignores exceptions (the logging module's at-fork hook as a
    worker is forked, here a finalizer) is printed as "Exception ignored" and lost; the run's long loops ask
    ``raise_if_lost`` and stop all the same (a kill during evaluation once left a run going)."""
    import gc
    import os
    import time

    from cardwar.training.interrupts import RunInterrupted, raise_if_lost, save_on_interrupt

    class LandsInAFinalizer:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # the handler runs here, inside the finalizer: its RunInterrupted is ignored

    carried_on = False
    with pytest.raises(RunInterrupted) as caught:
        with save_on_interrupt():
            LandsInAFinalizer()
            gc.collect()
            carried_on = True
            raise_if_lost()
    assert carried_on and caught.value.signum == signal.SIGINT
    raise_if_lost()  # outside a run: nothing pending
