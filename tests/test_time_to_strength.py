"""``cardwar bench --time-to-strength``: the level crossings, the report, bad input, and a tiny real run."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardwar.cli import main
from cardwar.cli.time_to_strength import (BOTH, BenchState, PipelineState, first_crossings, format_table, report,
                                          verdict)
from cardwar.training.evaluate import EvalPoint, append_csv, read_csv

REPO = Path(__file__).resolve().parents[1]
R, H = "vs random >= 0.90", "vs heuristic >= 0.60"


def _row(step: int, opponent: str, score: float, seconds: float) -> EvalPoint:
    wins = round(score * 40)
    return EvalPoint(step, opponent, 40, wins, 0, 40 - wins, score, max(0.0, score - 0.1), min(1.0, score + 0.1),
                     seconds)


def _csv(path: Path, rows: list[tuple[int, float, float, float]]) -> list[EvalPoint]:
    """A hand-made eval.csv: (step, vs random, vs heuristic, seconds) per evaluation, read back as the bench does."""
    path.parent.mkdir(parents=True, exist_ok=True)
    for step, r, h, s in rows:
        append_csv(path, [_row(step, "random", r, s), _row(step, "heuristic", h, s)])
    return read_csv(path)


def test_the_first_crossing_of_each_level_not_the_best_nor_a_later_one(tmp_path):
    points = _csv(tmp_path / "eval.csv", [(0, 0.50, 0.10, 60.0), (20480, 0.90, 0.40, 300.0),
                                          (40960, 0.85, 0.65, 560.0), (61440, 0.95, 0.55, 800.0),
                                          (81920, 0.925, 0.70, 1050.0)])
    found = first_crossings(points)
    assert (found[R].step, found[R].seconds) == (20480, 300.0)  # exactly 0.90 counts; the later 0.95 does not
    assert (found[H].step, found[H].seconds) == (40960, 560.0)
    # both at one evaluation: 40960 has heuristic but random fell to 0.85; 61440 has random but not heuristic
    assert (found[BOTH].step, found[BOTH].seconds) == (81920, 1050.0)


def test_a_level_never_reached_is_none_and_rows_out_of_order_are_read_by_step(tmp_path):
    points = _csv(tmp_path / "eval.csv", [(40960, 0.95, 0.30, 500.0), (0, 0.40, 0.0, 10.0), (20480, 0.92, 0.59, 250.0)])
    found = first_crossings(points)
    assert found[R].step == 20480  # the lowest step that reaches it, whatever the file's order
    assert found[H] is None and found[BOTH] is None  # 0.59 is below 0.60
    assert first_crossings([]) == {R: None, H: None, BOTH: None}


def test_the_target_is_a_third_of_the_tutorial_minutes_and_a_level_it_never_reaches_is_a_win():
    assert verdict(5.0, 15.0, 30, 30)[0] is True     # exactly a third
    assert verdict(5.1, 15.0, 30, 30)[0] is False
    met, why = verdict(10.0, None, 30, 30)
    assert met and "did not reach it in 30.0 min" in why
    assert verdict(None, 10.0, 30, 30)[0] is False
    assert verdict(None, None, 30, 30)[0] is False


def test_a_tutorial_that_stopped_early_shows_nothing_it_did_not_run_long_enough_to_show():
    """The tutorial failed after 9.7 minutes without the level; ours took 16.4: the tutorial might have needed
    anything from 9.7 minutes on, so the ratio is not shown (it would be, had it run 3 x 16.4 = 49.2)."""
    met, why = verdict(16.4, None, 33.1, 9.7)
    assert not met and "not shown" in why and "9.7" in why
    assert verdict(16.4, None, 33.1, 49.2)[0] is True


def test_the_report_reads_a_killed_bench_back_with_and_without_evaluation_time(tmp_path):
    ours = PipelineState("naval", run_dir="x", active=900.0, done=None,
                         checkpoints={"0": {"active": 100.0, "run_seconds": 100.0, "eval_seconds": 6.0},
                                      "20480": {"active": 400.0, "run_seconds": 420.0, "eval_seconds": 6.0},
                                      "40960": {"active": 700.0, "run_seconds": 760.0, "eval_seconds": 6.0}})
    tutorial = PipelineState("tutorial/naval", run_dir="y", active=1260.0, done="budget",
                             checkpoints={"0": {"active": 5.0, "run_seconds": 5.0, "eval_seconds": 3.0}})
    BenchState("naval", 21.0, 20480, 40, None, {"ours": [], "tutorial": []},
               {"ours": ours, "tutorial": tutorial}).save(tmp_path)
    _csv(tmp_path / "ours" / "eval.csv", [(0, 0.7, 0.2, 100.0), (20480, 0.91, 0.5, 400.0), (40960, 0.93, 0.62, 700.0)])
    _csv(tmp_path / "tutorial" / "eval.csv", [(0, 0.5, 0.0, 5.0)])
    data = report(tmp_path)
    o, t = data["pipelines"]["ours"]["levels"], data["pipelines"]["tutorial"]["levels"]
    assert o[R] == {"minutes": round(400 / 60, 2), "steps": 20480, "minutes_with_evaluation": round(412 / 60, 2)}
    assert o[H]["steps"] == 40960 and o[H]["minutes_with_evaluation"] == round(718 / 60, 2)
    assert o[BOTH]["steps"] == 40960
    assert t == {R: None, H: None, BOTH: None}
    # the tutorial reached nothing in its 21 minutes: at least 3x ours' 6.7 for random, not 3x ours' 11.7
    assert data["target"][R]["met"]
    assert not data["target"][H]["met"] and "not shown" in data["target"][H]["why"]
    table = format_table(data)
    assert "| tutorial | vs random >= 0.90 | not reached in 21.0 min | - | - |" in table
    assert "| ours | vs heuristic >= 0.60 | 11.7 | 40,960 | 12.0 |" in table


@pytest.mark.parametrize("argv, words", [
    (["--time-to-strength", "chess"], "unknown game 'chess'"),
    (["--time-to-strength", "naval", "--minutes", "0"], "--minutes must be a number of at least"),
    (["--time-to-strength", "naval", "--minutes", "-5"], "--minutes must be a number of at least"),
    (["--time-to-strength", "naval", "--minutes", "nan"], "--minutes must be a number of at least"),
    (["--time-to-strength", "naval", "--eval-games", "1"], "--eval-games must be at least 2"),
    (["--time-to-strength", "naval", "--eval-every", "1000"], "not a multiple of the ours pipeline's rollout"),
    (["--time-to-strength", "naval", "--set", "ours:ppo.n_stepz=3"], "ours pipeline"),
    (["--time-to-strength", "hexwar", "--set", "nonsense"], "is not KEY=VALUE"),
    (["--time-to-strength", "naval", "--report"], "no time-to-strength bench in"),
])
def test_bad_input_is_one_line_and_status_2(argv, words, tmp_path, capsys):
    assert main(["bench", *argv, "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and words in err, err
    assert not (tmp_path / "out").exists()  # nothing started, nothing written


def test_minutes_that_are_not_a_number_are_refused_by_the_parser(capsys):
    with pytest.raises(SystemExit) as ended:
        main(["bench", "--time-to-strength", "naval", "--minutes", "soon"])
    assert ended.value.code == 2
    assert capsys.readouterr().err.strip().count("\n") == 0


# ------------------------------------------------------------------------------------------------ real runs
TINY = ["--eval-every", "2048", "--eval-games", "2", "--slice", "2",
        "--set", "ours:imitation.games=2", "--set", "ours:env.n_envs=2", "--set", "ours:ppo.n_steps=1024"]


def _trainers_of(out: Path) -> list[int]:
    """The pids of live processes whose command line names ``out`` (the bench's trainers and their workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if str(out) in cmd and "time-to-strength" not in cmd and state != "Z":
            found.append(int(entry.name))
    return found


def _end(pids: list[int]) -> None:
    for pid in pids:  # only what this test's bench started (their command lines name its own folder)
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see that no trainer is left")
def test_a_tiny_real_run_evaluates_both_pipelines_and_leaves_no_process(tmp_path):
    out = tmp_path / "bench"
    cmd = [sys.executable, "-m", "cardwar", "bench", "--time-to-strength", "naval", "--minutes", "0.75", "--out",
           str(out), "--plot", str(tmp_path / "curve.png"), "--json", *TINY, "--set", "ours:total_steps=2048"]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=400, cwd=REPO)
        assert done.returncode == 0, done.stderr[-2000:]
        data = json.loads(done.stdout.strip().splitlines()[-1])
        assert _trainers_of(out) == []
    finally:
        _end(_trainers_of(out))
    ours, tutorial = data["pipelines"]["ours"], data["pipelines"]["tutorial"]
    assert ours["stopped"] in ("finished its total_steps", "budget")  # 2048 steps: done unless the machine crawls
    # 10**8 steps: the budget ends it, or two-game evaluations that pass both levels by chance (seen in CI)
    assert tutorial["stopped"] in ("budget", "reached every level")
    assert tutorial["minutes"] < 0.75 + 0.2                              # its own slices, up to the budget
    if tutorial["stopped"] == "budget":                                  # ended by the budget: all of it spent
        assert tutorial["minutes"] >= 0.75, tutorial
    for name in ("ours", "tutorial"):
        rows = read_csv(out / name / "eval.csv")
        assert {(p.step, p.opponent) for p in rows} >= {(0, "random"), (0, "heuristic")}
        assert all(p.games == 2 for p in rows)
        steps = sorted({p.step for p in rows})
        times = [next(p.seconds for p in rows if p.step == s) for s in steps]
        assert times == sorted(times) and times[-1] <= 0.95 * 60  # a later checkpoint, a later time on its clock
    assert {p.step for p in read_csv(out / "ours" / "eval.csv")} <= {0, 2048}
    assert (tmp_path / "curve.png").stat().st_size > 0
    back = subprocess.run([sys.executable, "-m", "cardwar", "bench", "--time-to-strength", "naval", "--out", str(out),
                           "--report", "--json"], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert back.returncode == 0 and json.loads(back.stdout)["pipelines"] == data["pipelines"]


def _trainer_states(bench: int) -> list[str]:
    """The /proc states of the bench's trainers (its direct children that run ``cardwar train``): R, S, T..."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if int(fields[1]) == bench and " train " in cmd:
            found.append(fields[0])
    return found


@contextlib.contextmanager
def _inherited(kind: str) -> Iterator[None]:
    """What the bench inherits: ``default``, or SIGINT ignored and SIGINT/SIGTERM blocked, as a command started with
    ``&`` by a non-interactive shell (a CI script's test run) has them; dispositions and mask survive fork and exec."""
    if kind == "default":
        yield
        return
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        signal.signal(signal.SIGINT, previous)


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc to see that no trainer is left")
@pytest.mark.parametrize("sig, inherited, code", [(signal.SIGINT, "default", 130), (signal.SIGINT, "ignored", 130),
                                                  (signal.SIGTERM, "default", 143)],
                         ids=["sigint", "sigint-inherited-ignored", "sigterm"])
def test_ctrl_c_ends_both_trainers_and_prints_one_line(tmp_path, sig, inherited, code):
    """The signal is sent while one trainer is held by SIGSTOP (the other's slice): both end, whatever the bench
    inherited (a bench that kept an inherited SIG_IGN ran on for its 30 minutes, seen in a CI run)."""
    out = tmp_path / "bench"
    cmd = [sys.executable, "-m", "cardwar", "bench", "--time-to-strength", "naval", "--minutes", "30", "--out",
           str(out), "--json", *TINY]
    with _inherited(inherited):
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
                                start_new_session=True)
    try:
        deadline = time.monotonic() + 180
        states: list[str] = []
        while time.monotonic() < deadline:  # both trainers started (the second with its first slice), one stopped
            states = _trainer_states(proc.pid)
            if len(states) == 2 and "T" in states:
                break
            time.sleep(0.05)
        assert len(states) == 2 and "T" in states, states
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=150)
        assert proc.returncode == code, err[-1000:]
        assert err.strip().splitlines()[-1].startswith("interrupted: both trainers ended"), err[-1000:]
        assert _trainers_of(out) == []
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        _end(_trainers_of(out))
    state = json.loads((out / "time_to_strength.json").read_text())
    assert all(p["done"] is None for p in state["pipelines"].values())  # a rerun goes on with both
