"""Every input is checked before anything runs: a table of user mistakes through the real command line.

Each mistake must end with exactly one line on stderr, exit status 2, and no traceback
(the ground rule for the terminal).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.subprocesses import run_command


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Broken scenario and config files, made the way users make them by mistake."""
    d = tmp_path_factory.mktemp("bad")
    (d / "a_folder.yaml").mkdir()
    (d / "binary.yaml").write_bytes(bytes(range(256)) * 4)
    (d / "malformed.yaml").write_text("name: broken\nmap: [1, 2\n  units: {\n")
    (d / "not_a_mapping.yaml").write_text("- just\n- a list\n")
    (d / "broken_config.yaml").write_text("game: naval\nppo: {gamma: [\n")
    (d / "gamma2.yaml").write_text("game: naval\nppo:\n  gamma: 2\n")
    return {"dir": d}


CASES = [
    # agents and their options
    (["match", "naval", "heuristic:samples=abc", "random"], "expected an integer"),
    (["match", "naval", "heuristic:samples=0", "random"], "must be >= 1"),
    (["match", "naval", "heuristic:foo=1", "random"], "samples"),
    (["match", "naval", "ppo:deterministic=maybe", "random"], "expected true or false"),
    (["match", "naval", "mcts:seconds=-1", "random"], "must be > 0"),
    (["match", "naval", "alphazero", "random"], "unknown agent"),
    (["match", "hexwar", "random", "ppo:{dir}/missing.zip"], "no model file"),
    (["play", "naval", "--a", "heuristic:samples=1e9"], "expected an integer"),
    (["play", "naval", "--opponent", "heuristc"], "did you mean heuristic"),
    # numbers out of range
    (["match", "naval", "random", "random", "--games", "0"], "--games must be at least 1"),
    (["match", "naval", "random", "random", "--workers", "two"], "not an integer"),
    (["bench", "--seconds", "0"], "--seconds must be at least"),
    (["bench", "--rounds", "0"], "--rounds must be at least 1"),
    (["bench", "--training", "--steps", "10"], "--steps must be at least 64"),
    # names and choices
    ([], "required"),
    (["match", "chess", "random", "random"], "invalid choice"),
    (["play", "naval", "--rule", "supply_cut=often"], "is not one of"),
    (["play", "naval", "--rule", "oops"], "KEY=VALUE"),
    (["play", "hexwar", "--rule", "hidden_units=perhaps"], "hidden_units"),
    # scenarios
    (["play", "hexwar", "--scenario", "no_such_scenario"], "no_such_scenario"),
    (["play", "hexwar", "--scenario", "{dir}/a_folder.yaml"], "a_folder.yaml"),
    (["play", "hexwar", "--scenario", "{dir}/binary.yaml"], "binary.yaml"),
    (["play", "hexwar", "--scenario", "{dir}/malformed.yaml"], "malformed.yaml"),
    (["play", "hexwar", "--scenario", "{dir}/not_a_mapping.yaml"], "not_a_mapping.yaml"),
    # training configs
    (["train", "naval", "--config", "{dir}/missing.yaml"], "missing.yaml"),
    (["train", "naval", "--config", "{dir}/broken_config.yaml"], "broken_config.yaml"),
    (["train", "naval", "--config", "{dir}/gamma2.yaml"], "gamma"),
    (["train", "naval", "--set", "ppo.gamma=2"], "gamma"),
    (["train", "naval", "--set", "ppo.learning_rate=-1"], "learning_rate"),
    (["train", "naval", "--set", "opponents.heuristic=heuristic:samples=abc"], "expected an integer"),
    (["train", "naval", "--set", "eval.opponents=[heuristic:foo=1]"], "samples"),
    (["train", "naval", "--resume", "{dir}/no_such_run"], "no_such_run"),
    (["train", "naval", "--steps", "1"], "rollout"),
    # engines
    (["engine", "--game", "naval", "--agent", "heurstic"], "did you mean heuristic"),
    (["match", "naval", "engine:", "random"], "engine"),
    (["match", "naval", "engine:python 'unbalanced", "random"], "engine"),
    (["match", "naval", "engine:no-such-program-here", "random"], "no-such-program-here"),
    (["tournament", "--game", "naval", "--entrant", "a=random", "--entrant", "b=engine:python 'x"], "entrants.b"),
    # tournaments
    (["tournament"], "give a tournament config"),
    (["tournament", "{dir}/missing.yaml"], "missing.yaml"),
    (["tournament", "{dir}/malformed.yaml"], "malformed.yaml"),
    (["tournament", "--game", "naval", "--entrant", "a=random"], "at least two entrants"),
    (["tournament", "--game", "naval", "--entrant", "a=random", "--entrant", "b=heuristic:samples=x"], "entrants.b"),
    (["tournament", "--game", "naval", "--entrant", "oops"], "NAME=SPEC"),
    (["tournament", "--game", "naval", "--entrant", "a=random", "--entrant", "b=random", "--pairs", "0"],
     "--pairs must be at least 1"),
    (["tournament", "--game", "naval", "--entrant", "a=random", "--entrant", "b=random", "--db", "{dir}/binary.yaml"],
     "not a cardwar tournament database"),
    (["tournament", "--game", "naval", "--entrant", "a=random", "--entrant", "b=random", "--report-only",
      "--db", "{dir}/empty.sqlite"], "holds no tournament"),
]


@pytest.mark.parametrize("args, message", CASES, ids=[" ".join(a) or "(nothing)" for a, _ in CASES])
def test_a_mistake_is_one_line_and_exit_status_2(files, tmp_path, args, message):
    argv = [a.format(dir=files["dir"]) for a in args]
    extra = ["--runs", str(tmp_path)] if args[:1] == ["train"] else []
    done = run_command([sys.executable, "-m", "cardwar", *argv, *extra], timeout=120, cwd=tmp_path)
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr
    assert len(lines) == 1, done.stderr
    assert message.format(dir=files["dir"]) in lines[0], lines[0]
    assert not list(tmp_path.iterdir()), "a refused command must not leave a run behind"
