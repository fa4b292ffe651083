"""`cardwar play` with a person at the keyboard, driven through standard input."""

from __future__ import annotations

import subprocess
import sys


def run_play(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "cardwar.cli", "play", *args], input=stdin, capture_output=True,
                          text=True, timeout=300)


def test_naval_game_through_stdin_survives_garbage_and_finishes():
    # Every prompt gets garbage first; then the first legal answer among keep / nodefend / pass / sink.
    cycle = "fire the cannons!\ndeploy 99Z Q\n\nhelp\nkeep\nnodefend\npass\n"
    r = run_play(["naval", "--opponent", "heuristic", "--seed", "2"], cycle * 400)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "cannot read that" in r.stdout and "Legal moves:" in r.stdout
    assert "Result: " in r.stdout and "Game abandoned" not in r.stdout


def test_naval_player_sees_only_their_own_hand():
    r = run_play(["naval", "--opponent", "heuristic", "--seed", "2", "--viewer", "omniscient"], "quit\n")
    assert r.returncode == 0 and "Game abandoned" in r.stdout
    assert "Captain B  hand: 7 cards (hidden)" in r.stdout  # no omniscience for a player


def test_hex_game_through_stdin_survives_garbage_and_writes_a_picture(tmp_path):
    png = tmp_path / "me.png"
    cycle = f"charge!\nshoot Z99\npng {png}\nno evade\npass\n"
    r = run_play(["hexwar", "--scenario", "meeting_engagement", "--opponent", "heuristic", "--seed", "1"],
                 cycle * 600)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "cannot read that" in r.stdout and "Result: " in r.stdout
    assert png.exists() and png.stat().st_size > 1000


def test_end_of_input_leaves_quietly():
    r = run_play(["hexwar", "--opponent", "heuristic", "--seat", "red"], "")
    assert r.returncode == 0 and "Game abandoned: input ended" in r.stdout
