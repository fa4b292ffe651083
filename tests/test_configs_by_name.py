"""Shipped configs are found by name from any directory (issue 19, section 5); a path still works, and a
file here wins over a shipped name, with a note. ``cardwar bench`` without its extra says so in one line.

The installed wheel runs the same from an empty folder: ``tests/packaging/test_wheel.py``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import yaml

from cardwar import configs
from cardwar.cli import build_parser, main
from cardwar.tournament.command import resolve_config
from tests.subprocesses import run_command

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty working directory, away from the checkout."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_every_shipped_yaml_is_listed_once_with_a_description():
    listed = configs.shipped_configs()
    on_disk = {p.resolve() for folder in configs.KINDS.values() for p in folder.rglob("*.yaml")}
    assert {c.path.resolve() for c in listed} == on_disk
    for kind in configs.KINDS:
        names = configs.names(kind)
        assert len(names) == len(set(names)), names  # a name means one config
    for c in listed:
        assert c.description and "\n" not in c.description and "cardwar " not in c.description, c
    tour = {c.name: c for c in configs.shipped_configs("tournament")}
    for c in tour.values():  # a tournament also answers to its own name: key
        assert yaml.safe_load(c.path.read_text())["name"] in (c.name, *c.aliases)
    assert "naval-ladder" in tour["naval"].aliases


@pytest.mark.parametrize("text", ["naval", "naval-ladder", "naval.yaml", "configs/tournaments/naval.yaml"])
def test_a_tournament_by_name_or_checkout_path_from_an_empty_folder(elsewhere, text):
    path, note = configs.resolve("tournament", text)
    assert path.samefile(configs.TOURNAMENT_DIR / "naval.yaml") and note is None
    args = build_parser().parse_args(["tournament", text, "--pairs", "3"])
    config = resolve_config(args)
    assert config.name == "naval-ladder" and config.pairs == 3 and "mcts_ppo" in config.entrants


def test_a_training_config_by_name(elsewhere):
    for text, rel in (("naval", "naval.yaml"), ("best_response/hexwar", "best_response/hexwar.yaml"),
                      ("configs/training/hexwar.yaml", "hexwar.yaml")):
        path, note = configs.resolve("training", text)
        assert path.samefile(configs.TRAINING_DIR / rel) and note is None


def test_a_path_still_works_and_a_file_here_wins_over_a_shipped_name(elsewhere, capsys):
    mine = yaml.safe_load((configs.TOURNAMENT_DIR / "naval.yaml").read_text())
    mine["name"] = "my-ladder"
    (elsewhere / "naval").write_text(yaml.safe_dump(mine))
    (elsewhere / "sub").mkdir()
    (elsewhere / "sub" / "t.yaml").write_text(yaml.safe_dump(mine))
    path, note = configs.resolve("tournament", "sub/t.yaml")
    assert path == Path("sub/t.yaml") and note is None
    path, note = configs.resolve("tournament", "naval")
    assert path == Path("naval") and "is a file here" in note and "naval.yaml" in note
    config = resolve_config(build_parser().parse_args(["tournament", "naval"]))
    assert config.name == "my-ladder"
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "is a file here, so it is used" in err


@pytest.mark.parametrize("argv, shipped, close", [
    (["tournament", "navl"], "naval-ladder", "did you mean 'naval'"),
    (["tournament", "naval-ladr"], "gauntlet", "did you mean 'naval-ladder'"),
    (["tournament", "configs/tournaments/nope.yaml"], "hexwar-ladder", "no such tournament config"),
    (["train", "naval", "--config", "best_respons/naval"], "best_response/naval",
     "did you mean 'best_response/naval'"),
])
def test_an_unknown_name_is_one_line_listing_the_shipped_names(elsewhere, capsys, argv, shipped, close):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and shipped in err and close in err and "cardwar configs" in err, err


def test_a_training_config_by_name_is_loaded_and_checked(elsewhere, capsys):
    assert main(["train", "naval", "--config", "hexwar", "--steps", "64"]) == 2  # found, read, then refused
    assert "the config is for 'hexwar', not 'naval'" in capsys.readouterr().err


def test_cardwar_configs_lists_kind_name_path_and_description(elsewhere, capsys):
    assert main(["configs"]) == 0
    out = capsys.readouterr().out
    for c in configs.shipped_configs():
        assert str(c.path) in out and c.name in out and c.description in out
    assert "naval / naval-ladder" in out
    assert main(["configs", "training", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["kind"] for r in rows} == {"training"}
    assert {r["name"] for r in rows} >= {"naval", "hexwar", "best_response/naval"}
    assert all(Path(r["path"]).is_file() and r["description"] for r in rows)


BLOCKER = """
import sys

class _Blocker:
    \"\"\"As if {name} were not installed.\"\"\"

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] == {name!r}:
            raise ModuleNotFoundError(f"No module named {{fullname!r}}", name=fullname)

sys.meta_path.insert(0, _Blocker())
"""


@pytest.mark.parametrize("blocked, argv, package", [
    ("pygame", ["bench", "--seconds", "0.1", "--rounds", "1"], "pygame-ce"),
    ("rlcard", ["bench", "--seconds", "0.1", "--rounds", "1"], "rlcard"),
    ("pygame", ["bench", "--training", "--steps", "64"], "pygame-ce"),
])
def test_bench_without_its_extra_names_it_in_one_line(tmp_path, blocked, argv, package):
    (tmp_path / "sitecustomize.py").write_text(BLOCKER.format(name=blocked))
    env = {"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"}
    probe = run_command([sys.executable, "-c", f"import {blocked}"], cwd=REPO, env=env, timeout=60)
    assert probe.returncode != 0 and "ModuleNotFoundError" in probe.stderr  # the blocker blocks
    done = run_command([sys.executable, "-m", "cardwar", *argv], cwd=REPO, env=env, timeout=120)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert "pip install 'cardwar[bench]'" in done.stderr and package in done.stderr
    assert done.stdout == ""
