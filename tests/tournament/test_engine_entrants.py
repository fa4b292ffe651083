"""Engine entrants in a tournament: their stderr kept per entrant, their tolerances set by ``engines:``.

One process per entrant per worker plays game after game (``new_game`` / ``game_over``), and
none is left running when the tournament ends.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import yaml

from cardwar.tournament.config import TournamentConfigError, config_from_dict
from tests.tournament.test_failures import cardwar, one_line_error

BOT = Path(__file__).resolve().parents[2] / "docs" / "examples" / "engine_bot.py"


def _config(tmp_path: Path, **extra) -> Path:
    cfg = tmp_path / "e.yaml"
    cfg.write_text(yaml.safe_dump({"name": "e", "game": "naval", "pairs": 3,
                                   "entrants": {"random": "random", "my bot": f"engine:{sys.executable} {BOT}"},
                                   **extra}))
    return cfg


def test_an_engines_stderr_is_kept_in_its_entrants_file_and_one_process_plays_every_game(tmp_path):
    done = cardwar("tournament", str(_config(tmp_path, engines={"grace_ms": 100, "start_timeout_s": 20})),
                   "--quiet", "--rounds", "10", cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    log = (tmp_path / "tournaments" / "e" / "engines" / "my_bot.stderr").read_text()
    games = [line for line in log.splitlines() if line.startswith("new naval game as ")]
    assert len(games) == 6  # every game of the 3 pairs, told to the same kept process
    assert log.count("game over:") == 6


@pytest.mark.parametrize("engines, message", [
    ({"grace": 5}, "expected a mapping of grace_ms, start_timeout_s, stderr_cap"),
    ({"grace_ms": -1}, "engines.grace_ms: expected a number from 0 to 60000"),
    ({"start_timeout_s": "soon"}, "engines.start_timeout_s: expected a number"),
])
def test_bad_engine_options_are_one_line(tmp_path, engines, message):
    with pytest.raises(TournamentConfigError, match=message):
        config_from_dict({"name": "e", "game": "naval", "entrants": {"a": "random", "b": "random"},
                          "engines": engines})
    one_line_error(cardwar("tournament", str(_config(tmp_path, engines=engines)), "--quiet", cwd=tmp_path), message)


def test_changing_the_engines_tolerances_is_no_change_of_games(tmp_path):
    assert cardwar("tournament", str(_config(tmp_path)), "--quiet", "--rounds", "10", cwd=tmp_path).returncode == 0
    again = cardwar("tournament", str(_config(tmp_path, engines={"grace_ms": 500})), "--quiet", "--rounds", "10",
                    cwd=tmp_path)
    assert again.returncode == 0, again.stderr[-2000:]
