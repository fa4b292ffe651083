"""OpenSpiel's AlphaZero on Tank Attack through the bridge (issue 30 item 3).

OpenSpiel's own training loop (``alpha_zero.alpha_zero``: spawned actor processes, a learner, Orbax checkpoints)
runs on ``trench_raid`` to the end of a learner step with a tiny network, and then an ``MCTSBot`` with the
trained ``AlphaZeroEvaluator`` plays a whole game through the bridge, the dice as chance nodes. Both run as
subprocesses in a process group of their own: OpenSpiel's AlphaZero module switches ``multiprocessing`` to
spawn (and pins it) on import, and JAX's threads do not mix with the forking tests that share a pytest worker.
The test then checks that the group is empty: the command ended every process it started.
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from importlib.util import find_spec
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")
if any(find_spec(m) is None for m in ("jax", "flax", "optax", "chex", "orbax")):
    pytest.skip("the alphazero extra is not installed (pip install 'cardwar[alphazero]')", allow_module_level=True)

TINY = ["--steps", "1", "--simulations", "2", "--model", "mlp", "--width", "8", "--depth", "1",
        "--replay-buffer-size", "32", "--replay-buffer-reuse", "32", "--batch-size", "16"]
"""One learner step after one self-play game (32 // 32 = one state is enough), 2 simulations a move."""

CHECK = r"""
import json, sys
import numpy as np
import jax
from open_spiel.python.bots.uniform_random import UniformRandomBot
from cardwar.openspiel.alphazero import alphazero_bot, load_model, play_game
from cardwar.openspiel.games import load

run = sys.argv[1]
before, _ = load_model(run, 0)
after, config = load_model(run, 1)
changed = any(not np.array_equal(a, b) for a, b in zip(jax.tree.leaves(before._state.params),
                                                       jax.tree.leaves(after._state.params)))
game = load("tankattack", scenario="trench_raid", seed=5)
rng = np.random.RandomState(5)
bot = alphazero_bot(game, after, config["max_simulations"], config["uct_c"], rng)
state = game.new_initial_state()
while state.is_chance_node():
    state.apply_action(0)
prior = dict(bot.evaluator.prior(state))
value = float(bot.evaluator.evaluate(state)[0])
returns, decisions = play_game(game, [bot, UniformRandomBot(1, rng)], rng)
print(json.dumps({"changed": changed, "prior_keys": sorted(int(a) for a in prior), "legal": state.legal_actions(),
                  "prior_sum": float(sum(prior.values())), "value": value, "returns": returns,
                  "decisions": decisions}))
"""


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def _run_alone(argv: list[str], timeout: float) -> tuple[subprocess.CompletedProcess, bool]:
    """Run ``argv`` in a new process group; return its result and whether anything of the group outlived it
    (10 s of grace for exiting children). The group is killed whole in any case."""
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        deadline = time.monotonic() + 10
        while _group_alive(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.2)
        return subprocess.CompletedProcess(argv, proc.returncode, out, err), _group_alive(proc.pid)
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def test_openspiels_alphazero_trains_a_step_on_trench_raid_and_its_bot_plays_a_whole_game(tmp_path: Path) -> None:
    out = tmp_path / "az"
    train, left = _run_alone([sys.executable, "-m", "cardwar.openspiel.alphazero", "tankattack", "--scenario",
                              "trench_raid", *TINY, "--out", str(out)], timeout=400)
    assert train.returncode == 0, train.stderr[-3000:]
    assert "Traceback" not in train.stderr and "Exception caught" not in train.stdout, train.stderr[-3000:]
    assert not left, "AlphaZero's actor processes outlived the command"
    assert (out / "checkpoint-0").is_dir() and (out / "checkpoint-1").is_dir()
    config = json.loads((out / "config.json").read_text())
    assert config["game"].startswith("python_cardwar_tankattack(") and "scenario=trench_raid" in config["game"]
    assert config["observation_shape"] == [24, 16, 148] and config["output_size"] == 416  # the env's, in full
    (step,) = [json.loads(line) for line in (out / "learner.jsonl").read_text().splitlines()]
    assert step["step"] == 1 and step["total_trajectories"] >= 1 and step["total_states"] >= 1
    # every game collected ended with a result (OpenSpiel counts first seat's wins, second's, draws)
    assert sum(step["outcomes"]["counts"]) == step["total_trajectories"] == step["game_length"]["num"]
    assert all(math.isfinite(step["loss"][k]) for k in ("policy", "value", "l2reg"))
    assert step["loss"]["policy"] > 0  # trained on the MCTS visit counts: a real cross-entropy

    check, left = _run_alone([sys.executable, "-c", CHECK, str(out)], timeout=300)
    assert check.returncode == 0, check.stderr[-3000:]
    assert not left
    result = json.loads(check.stdout.strip().splitlines()[-1])
    assert result["changed"], "the learner step left the network's weights as they were"
    assert result["prior_keys"] == result["legal"] and result["prior_sum"] == pytest.approx(1.0, abs=1e-4)
    assert -1.0 <= result["value"] <= 1.0  # the value head's tanh
    assert sorted(result["returns"]) in ([-1.0, 1.0], [0.0, 0.0]) and result["decisions"] > 0


def test_alphazero_refuses_an_imperfect_information_game_and_bad_flags_in_one_line(tmp_path: Path) -> None:
    """AlphaZero's MCTS would search the true state of naval (the other hand): refused, one line, exit 2."""
    for args, says in ((["naval"], "perfect-information games only"),
                       (["tankattack", "--eval-only", "--eval-games", "2"], "no AlphaZero run in"),
                       (["tankattack", "--steps", "0"], "--steps: must be at least 1"),
                       (["tankattack", "--checkpoint", "0"], "--checkpoint goes with --eval-only")):
        done, left = _run_alone([sys.executable, "-m", "cardwar.openspiel.alphazero", *args,
                                 "--out", str(tmp_path / "none")], timeout=120)
        assert done.returncode == 2 and says in done.stderr and done.stderr.count("\n") == 1, (args, done.stderr)
        assert not left and not (tmp_path / "none").exists()
