"""The ``rllib:PATH`` agent: a policy of ``cardwar train GAME --backend rllib`` plays whole ``cardwar match`` games,
is listed by ``cardwar agents``, loads from the relative run path training prints, and its spec is checked in
one line before anything loads. A plug-in game (the tests' "take the last") trains and plays with no edit to
RLlib's module: it asks the registry."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from cardwar import agents, games
from cardwar.agents.rllib_agent import MODULE_SUBDIR
from cardwar.agents.spec import AgentSpecError
from cardwar.cli import main
from cardwar.training import rllib
from cardwar.training.rllib import load_module
from tests.training.rllib_runs import flat_weights, local_ray, tiny  # noqa: F401


@pytest.fixture(scope="module")
def naval_run(tmp_path_factory, local_ray) -> Path:  # noqa: F811
    return rllib.train("naval", tiny(), runs_root=tmp_path_factory.mktemp("runs"), progress=False, command="test")


def _last_json(text: str) -> dict:
    return json.loads(text.strip().splitlines()[-1])


def test_cardwar_agents_lists_rllib_for_every_game(capsys):
    assert main(["agents", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    for game in games.names():
        entry = next(a for a in listed[game] if a["name"] == "rllib")
        assert {o["name"] for o in entry["options"]} == {"path", "deterministic"}


@pytest.mark.parametrize("spec", ["rllib:{run}", "rllib:{run}/final", "rllib:path={rel},deterministic=true",
                                  "rllib:path={rel},deterministic=false"])
def test_a_trained_policy_plays_a_whole_match_against_random(spec, naval_run, monkeypatch, capsys):
    monkeypatch.chdir(naval_run.parent)
    spec = spec.format(run=naval_run, rel=naval_run.name)  # the relative run path as training prints it
    assert main(["match", "naval", spec, "random", "--games", "4", "--seed", "3", "--json"]) == 0
    result = _last_json(capsys.readouterr().out)
    assert result["games"] == 4 and result["wins_a"] + result["draws"] + result["wins_b"] == 4
    assert result["agent_a"] == spec


def test_load_module_takes_the_relative_path_that_training_prints(naval_run, monkeypatch):
    """It failed with ``ArrowInvalid: URI has empty scheme``: pyarrow reads a relative path as a URI."""
    absolute = flat_weights(load_module(naval_run / "final"))
    monkeypatch.chdir(naval_run.parent.parent)
    relative = Path(naval_run.parent.name) / naval_run.name
    assert not relative.is_absolute()
    assert flat_weights(load_module(relative / "final")).equal(absolute)
    assert flat_weights(load_module(relative)).equal(absolute)  # a run folder means its final/


def _fake_run(root: Path, game: str) -> Path:
    """A run folder's layout (its policy's folders, no weights): what a spec is checked against."""
    run = root / f"{game}_run"
    for ckpt in ("final", "checkpoints/step_100"):
        (run / ckpt / MODULE_SUBDIR).mkdir(parents=True)
    (run / "settings.json").write_text(json.dumps({"game": game}))
    return run


@pytest.mark.parametrize("spec, words", [
    ("rllib", "rllib needs a checkpoint: rllib:RUN_DIR"),
    ("rllib:{tmp}/nowhere", "rllib: no such folder"),
    ("rllib:{tmp}", "is not an RLlib checkpoint of cardwar"),
    ("rllib:{tmp}/hexwar_run", "was trained on hexwar, not naval"),
    ("rllib:{tmp}/hexwar_run/checkpoints/step_100", "was trained on hexwar, not naval"),
    ("rllib:{tmp}/early_run", "the run has no final/ yet"),
    ("rllib:path={tmp}/naval_run,samples=3", "does not take the option"),
])
def test_a_bad_rllib_spec_is_one_line_before_anything_loads(spec, words, tmp_path, capsys):
    _fake_run(tmp_path, "hexwar")
    _fake_run(tmp_path, "naval")
    (tmp_path / "early_run").mkdir()
    (tmp_path / "early_run" / "settings.json").write_text(json.dumps({"game": "naval"}))
    spec = spec.format(tmp=tmp_path)
    with pytest.raises(AgentSpecError, match=words):
        agents.check_spec(spec, "naval")
    assert main(["match", "naval", spec, "random", "--games", "2"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and words.split(":")[0] in err[0], err


def test_rllib_path_is_a_path_not_options(tmp_path):
    """``rllib:RUN/final`` said "not KEY=VALUE"; like ``ppo:PATH`` it is short for ``rllib:path=...``."""
    run = _fake_run(tmp_path, "naval")
    assert agents.check_spec(f"rllib:{run}/final", "naval") == ("rllib", {"path": f"{run}/final"})


def test_a_policy_of_another_observation_is_refused_when_it_loads(naval_run, tmp_path):
    moved = tmp_path / "moved"  # out of its run: no settings.json says its game, the spaces do
    shutil.copytree(naval_run / "final", moved)
    with pytest.raises(AgentSpecError, match=r"trained on observations \(587,\) and 3029 actions; hexwar has"):
        agents.make(f"rllib:{moved}", "hexwar")


@pytest.fixture
def pile_game() -> Iterator[games.Game]:
    """The tests' plug-in game, with the ``rllib`` agent in its list (as a plug-in's entry would name it)."""
    from tests.test_plugin_game import PILE_GAME

    games.register(dataclasses.replace(PILE_GAME, agents={**PILE_GAME.agents, "rllib": games.RLLIB_AGENT}))
    try:
        yield games.get("pile")
    finally:
        games.unregister("pile")


@pytest.mark.usefixtures("local_ray")
def test_a_plug_in_game_trains_and_plays_with_no_edit(pile_game, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["train", "pile", "--backend", "rllib", "--steps", "200", "--quiet", "--set", "train_batch_size=100",
                 "--set", "minibatch_size=50", "--set", "num_epochs=1", "--set", "hidden=16", "--set",
                 "eval_games=2"]) == 0
    out = capsys.readouterr().out
    run = Path(next(ln.split(": ", 1)[1] for ln in out.splitlines() if ln.startswith("run folder: ")))
    assert not run.is_absolute() and load_module(run).network == "mlp"  # a flat observation: the MLP
    assert main(["match", "pile", f"rllib:{run}", "random", "--games", "4", "--json"]) == 0
    result = _last_json(capsys.readouterr().out)
    assert result["games"] == 4 and result["wins_a"] + result["wins_b"] == 4  # take-the-last has no draw
    assert os.path.isfile(run / "curve.png")
