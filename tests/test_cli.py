"""The cardwar command line, run as a user would."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cardwar.cli import main
from tests.subprocesses import run_command


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return run_command([sys.executable, "-m", "cardwar.cli", *args], timeout=300)


def test_play_prints_a_seeded_game_and_its_result():
    r = run_cli("play", "naval", "--seed", "3", "--secret", "00c0ffee00c0ffee")
    assert r.returncode == 0, r.stderr
    assert "Result:" in r.stdout and "Captain A" in r.stdout
    again = run_cli("play", "naval", "--seed", "3", "--secret", "00c0ffee00c0ffee").stdout
    assert r.stdout == again  # same seed and secret, same game


def test_play_names_the_seed_only_once_the_game_is_over():
    r = run_cli("play", "naval", "--seed", "3")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    said = [i for i, line in enumerate(lines) if line.startswith("Game seed 3, dealt with the secret ")]
    assert len(said) == 1 and "Result:" not in "\n".join(lines[:said[0]])  # after the last move, not before
    secret = lines[said[0]].split("secret ")[1].split()[0]
    assert secret not in "\n".join(lines[:said[0]])
    replayed = run_cli("play", "naval", "--seed", "3", "--secret", secret).stdout
    assert replayed == r.stdout  # the secret printed at the end deals the same game again


def test_play_json_summary(capsys):
    assert main(["play", "naval", "--seed", "5", "--quiet", "--json"]) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    data = json.loads(last)
    assert data["seed"] == 5 and data["winner"] in ("A", "B", None) and data["moves"] > 0
    from cardwar.arena.seeds import Dealer

    from cardwar.record import json_int

    assert data["deal_seed"] == data["record"]["seed"] == json_int(Dealer(data["secret"]).deal(5))  # JS-exact


def test_spectator_printout_never_names_a_facedown_card(capsys):
    main(["play", "naval", "--seed", "8"])
    out = capsys.readouterr().out
    assert "face-down card" in out and "hand: " in out
    assert "(hidden)" in out


@pytest.mark.parametrize("args, message", [
    (["play", "naval", "--rule", "supply_cut=often"], "is not one of"),
    (["play", "naval", "--rule", "nonsense=1"], "unknown naval rule option"),
    (["play", "naval", "--rule", "oops"], "KEY=VALUE"),
    (["play", "naval", "--a", "alphazero"], "unknown agent"),
])
def test_user_mistakes_get_one_clear_line_and_status_2(args, message):
    r = run_cli(*args)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_bench_json_reports_every_env_and_ratios(capsys):
    main(["bench", "--seconds", "0.6", "--rounds", "1", "--json"])
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {"naval_v0", "hexwar_v0", "connect_four_v3", "texas_holdem_v4", "api_floor"} <= set(data["steps_per_second"])
    assert set(data["hexwar_ratio"]) == {"connect_four_v3", "texas_holdem_v4"}
    assert {"connect_four_v3", "texas_holdem_v4", "api_floor", "connect_four_v3_raw"} == set(data["naval_ratio"])
    assert all(v > 0 for v in data["steps_per_second"].values())
    assert {"tankattack_v0", "tankattack_v0_raid"} <= set(data["steps_per_second"])
    assert set(data["tankattack_ratio"]) == {"connect_four_v3", "texas_holdem_v4"}
    assert data["tankattack_engine_steps_per_second"] > 0
    assert ("tankattack_v0", "connect_four_v3", 0.6) in {(t["env"], t["peer"], t["target"]) for t in data["targets"]}
