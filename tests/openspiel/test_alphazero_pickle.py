"""A bridge game crosses a process boundary as OpenSpiel's AlphaZero sends it: pickled, to spawned actors.

The game classes that ``register`` makes are no module attributes, so a bridge game pickles as its game string
and is loaded afresh from it (``CardwarGame.__reduce__``): same parameters, and with a fixed seed the same games.
"""

from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from cardwar.openspiel import games  # noqa: E402


@pytest.mark.parametrize("name", ["tankattack", "naval"])
def test_a_bridge_game_pickles_as_its_game_string(name: str) -> None:
    params = {"seed": 11, **({"scenario": "trench_raid"} if name == "tankattack" else {})}
    game = games.load(name, **params)
    copy = pickle.loads(pickle.dumps(game))
    assert type(copy) is type(game) and str(copy) == str(game)
    assert copy.get_type().information == game.get_type().information
    a, b = game.new_initial_state(), copy.new_initial_state()  # the first game of seed 11 in both
    assert str(a) == str(b) and a.legal_actions() == b.legal_actions()


def test_a_pickled_game_loads_in_a_fresh_process_that_never_imported_the_bridge() -> None:
    """A spawned actor starts with no bridge registered: unpickling registers the games first."""
    data = pickle.dumps(games.load("tankattack", seed=3, scenario="trench_raid"))
    code = ("import pickle, sys; g = pickle.loads(sys.stdin.buffer.read()); "
            "print(g.get_type().short_name, g.new_initial_state().legal_actions()[:3])")
    done = subprocess.run([sys.executable, "-c", code], input=data, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    first = games.load("tankattack", seed=3, scenario="trench_raid").new_initial_state().legal_actions()[:3]
    assert done.stdout.decode().split()[0] == "python_cardwar_tankattack"
    assert done.stdout.decode().strip().endswith(str(first))
