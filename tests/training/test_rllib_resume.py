"""``cardwar train GAME --backend rllib --resume RUN``: a run stopped after a checkpoint goes on from it (RLlib's
``Algorithm.restore_from_path``: the weights and the lifetime counters), and Ctrl-C stops a run with a checkpoint
and the command that resumes it."""

from __future__ import annotations

import csv
import json
import re
import shutil
import signal
from pathlib import Path

import pytest
from ray.rllib.algorithms.ppo import PPO

from cardwar.cli import main
from cardwar.training import rllib
from cardwar.training.rllib import POLICY_ID, latest_checkpoint, load_module
from tests.training.processes import assert_all_ended
from tests.training.rllib_runs import flat_weights, local_ray, step_checkpoints, tiny, tiny_flags  # noqa: F401


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def _first_weights(monkeypatch: pytest.MonkeyPatch) -> list:
    """The policy's weights as the first ``train()`` of each algorithm built from now on finds them."""
    seen: list = []
    real = PPO.train

    def train(self):  # noqa: ANN001, ANN202
        if not getattr(self, "_weights_seen", False):
            self._weights_seen = True
            seen.append(flat_weights(self.get_module(POLICY_ID)))
        return real(self)

    monkeypatch.setattr(PPO, "train", train)
    return seen


def test_a_run_stopped_after_a_checkpoint_goes_on_from_it(tmp_path, local_ray, monkeypatch, capsys):  # noqa: F811
    run = rllib.train("naval", tiny(total_steps=200, checkpoint_every=100), runs_root=tmp_path, progress=False,
                      command="test")
    shutil.rmtree(run / "final")  # as if killed after its first checkpoint: the end never came
    ckpt = step_checkpoints(run)[0]
    meta = json.loads((ckpt / "cardwar.json").read_text())
    assert latest_checkpoint(run).path == ckpt and meta["steps"] == int(ckpt.name.removeprefix("step_"))
    before = _rows(run / "progress.csv")
    kept = [r for r in before if int(r["steps"]) <= meta["steps"]]
    assert len(kept) < len(before)  # rows past the checkpoint were written, and must go

    seen = _first_weights(monkeypatch)
    capsys.readouterr()
    assert main(["train", "naval", "--backend", "rllib", "--resume", str(run), "--steps", "400", "--quiet"]) == 0
    assert f"rllib:{run}" in capsys.readouterr().out
    # The weights it went on with are the checkpoint's (a new algorithm would start from its initial ones).
    assert len(seen) == 1 and seen[0].equal(flat_weights(load_module(ckpt)))
    rows = _rows(run / "progress.csv")
    assert rows[:len(kept)] == kept
    resumed = rows[len(kept):]
    # Counted on from the checkpoint: iterations, environment steps and module steps trained are lifetime
    # counters that RLlib restores; a fresh start would count from 1 and about 100 again.
    assert [int(r["iteration"]) for r in resumed] == list(range(meta["iteration"] + 1, meta["iteration"] + 1
                                                                + len(resumed)))
    steps = [meta["steps"]] + [int(r["steps"]) for r in resumed]
    assert steps == sorted(set(steps)) and steps[-1] >= 400 and int(resumed[0]["steps"]) > meta["steps"]
    assert int(resumed[0]["module_steps_trained"]) > int(kept[-1]["module_steps_trained"])
    assert all(int(r["illegal_actions"]) == 0 for r in rows)
    assert float(resumed[0]["seconds"]) >= float(kept[-1]["seconds"])  # the clock goes on across sessions
    assert json.loads((run / "settings.json").read_text())["total_steps"] == 400
    assert "# resumed at step" in (run / "command.txt").read_text()
    assert json.loads((run / "final" / "cardwar.json").read_text())["steps"] == steps[-1]


def test_a_finished_run_asks_for_more_steps_and_a_folder_that_is_no_run_is_refused(tmp_path, capsys):
    run = tmp_path / "run"
    (run / "final" / rllib.MODULE_SUBDIR).mkdir(parents=True)
    (run / "settings.json").write_text(json.dumps({"game": "naval", "total_steps": 200}))
    (run / "final" / "cardwar.json").write_text(json.dumps({"steps": 200, "iteration": 2, "seconds": 9.0}))
    for argv, words in (([str(run)], "give --steps more than 200"),
                        ([str(run), "--steps", "150"], "give --steps more than 200"),
                        ([str(tmp_path)], "not an RLlib run folder"),
                        ([str(run), "--set", "lr=0.1"], "drop --set")):
        assert main(["train", "naval", "--backend", "rllib", "--resume", *argv]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err
    assert main(["train", "hexwar", "--backend", "rllib", "--resume", str(run)]) == 2
    assert "is a naval run, not hexwar" in capsys.readouterr().err


@pytest.mark.slow
@pytest.mark.usefixtures("local_ray")
def test_ctrl_c_saves_a_checkpoint_prints_the_resume_command_and_the_run_goes_on(tmp_path, launch, monkeypatch):
    train = launch(["-m", "cardwar", "train", "naval", "--backend", "rllib", "--steps", "5000",
                    *tiny_flags(checkpoint_every=0)])
    train.wait_for_line(r"rllib naval: \d+ steps", timeout=240)
    code, below = train.signal_and_wait(signal.SIGINT, timeout=240)
    assert code == 128 + signal.SIGINT, train.text()
    assert_all_ended(launch.tag, below, timeout=30)  # Ray's processes too
    line = next(ln for ln in train.err if "go on with" in ln)
    command = re.search(r"`(cardwar train naval --backend rllib --resume (\S+))`", line)
    assert command, line
    monkeypatch.chdir(tmp_path)  # the printed folder is relative to where the run was started
    run = Path(command.group(2))
    ckpt = latest_checkpoint(run)
    rows = _rows(run / "progress.csv")
    assert ckpt is not None and ckpt.path.name == f"step_{rows[-1]['steps']}" and not (run / "final").exists()
    assert main(["train", "naval", "--backend", "rllib", "--resume", str(run), "--steps", str(ckpt.steps + 100),
                 "--quiet"]) == 0
    after = _rows(run / "progress.csv")
    assert after[:len(rows)] == rows and int(after[len(rows)]["steps"]) > ckpt.steps
    assert int(after[len(rows)]["iteration"]) == int(rows[-1]["iteration"]) + 1
