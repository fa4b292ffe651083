"""OpenSpiel's algorithms on the bridge: ISMCTS plays whole games, NFSP learns, bots enter matches."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="the openspiel extra is not installed")

from open_spiel.python import rl_environment  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402
from open_spiel.python.bots.uniform_random import UniformRandomBot  # noqa: E402

from cardwar.agents.spec import AgentSpecError  # noqa: E402
from cardwar.players import check_player_spec, make_player  # noqa: E402
from cardwar.cli.match import run_match  # noqa: E402
from cardwar.openspiel import games  # noqa: E402
from cardwar.openspiel.bots import CardwarEvaluator  # noqa: E402


def _play(state, bots) -> int:
    moves = 0
    while not state.is_terminal():
        action = int(bots[state.current_player()].step(state))
        assert action in state.legal_actions()
        state.apply_action(action)
        moves += 1
    return moves


def test_ismcts_bots_play_a_whole_naval_game() -> None:
    """OpenSpiel's ISMCTSBot, as shipped (random play-outs to the end), on both seats."""
    game = games.load("naval", seed=2)
    rs = np.random.RandomState(0)
    evaluator = mcts.RandomRolloutEvaluator(1, rs)
    bots = [ismcts.ISMCTSBot(game, evaluator, 2.0, 8, random_state=rs, allow_inconsistent_action_sets=True)
            for _ in range(2)]
    state = game.new_initial_state()
    assert _play(state, bots) > 0
    assert sorted(state.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_ismcts_plays_a_whole_hexwar_game() -> None:
    """ISMCTSBot with cardwar's short play-outs against OpenSpiel's random bot."""
    game = games.load("hexwar", seed=4)
    rs = np.random.RandomState(1)
    bots = [ismcts.ISMCTSBot(game, CardwarEvaluator(2, 1, rs), 2.0, 3, random_state=rs,
                             allow_inconsistent_action_sets=True), UniformRandomBot(1, rs)]
    state = game.new_initial_state()
    assert _play(state, bots) > 0
    assert sum(state.returns()) == 0.0


def test_nfsp_learns_on_the_bridge_and_its_policy_plays_legal_moves() -> None:
    """A few hundred NFSP steps with tiny networks: the supervised loss is computed, and the
    average policy puts all its mass on legal actions."""
    nfsp = pytest.importorskip("open_spiel.python.pytorch.nfsp")
    import torch

    threads, np_state = torch.get_num_threads(), np.random.get_state()
    torch.set_num_threads(1)  # tiny networks: more threads only contend
    try:
        _nfsp_run(nfsp)
    finally:
        torch.set_num_threads(threads)
        np.random.set_state(np_state)  # NFSP samples from numpy's global generator


def _nfsp_run(nfsp) -> None:
    np.random.seed(0)
    env = rl_environment.Environment(games.load("naval", seed=6))
    size = env.observation_spec()["info_state"][0]
    agents = [nfsp.NFSP(p, size, env.action_spec()["num_actions"], [8], reservoir_buffer_capacity=200,
                        anticipatory_param=0.5, batch_size=8, min_buffer_size_to_learn=16, learn_every=8,
                        replay_buffer_capacity=200, epsilon_decay_duration=100, seed=p) for p in (0, 1)]
    steps = 0
    while steps < 250:
        ts = env.reset()
        while not ts.last():
            p = ts.observations["current_player"]
            ts = env.step([agents[p].step(ts).action])
            steps += 1
        for a in agents:
            a.step(ts)
    assert all(a.loss[0] is not None for a in agents)  # the average-policy network was trained
    ts = env.reset()
    p = ts.observations["current_player"]
    with agents[p].temp_mode_as(nfsp.MODE.AVERAGE_POLICY):
        out = agents[p].step(ts, is_evaluation=True)
    legal = ts.observations["legal_actions"][p]
    assert out.action in legal
    assert np.isclose(out.probs[legal].sum(), 1.0, atol=1e-5)


def test_openspiel_bots_enter_a_match_as_specs() -> None:
    res = run_match("naval", "openspiel:ismcts,iterations=4", "openspiel:random", games=2, progress=False)
    assert res.games == 2 and res.wins_a + res.wins_b + res.draws == 2


@pytest.mark.parametrize("spec, game, message", [
    ("openspiel:alphazero", "naval", "unknown OpenSpiel bot"),
    ("openspiel:ismcts,iterations=0", "naval", "must be >= 1"),
    ("openspiel:ismcts,depth=3", "naval", "does not take the option"),
    ("openspiel:ismcts", "skirmish", "no state_from_view hook"),
    ("openspiel:random=x", "naval", "takes no '=x'"),
    ("openspiel:policy", "naval", "name the policy's file"),
    ("openspiel:policy=/nonexistent/p.pt", "naval", "no policy file at /nonexistent/p.pt"),
    ("openspiel:policy=pyproject.toml", "naval", "is not a policy file"),
])
def test_a_bad_openspiel_spec_is_one_line(spec: str, game: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message) as err:
        check_player_spec(spec, game)
    assert "\n" not in str(err.value)


def test_openspiel_random_plays_a_skirmish_match() -> None:
    """The bot needs the mask only, so it plays every bridged game."""
    res = run_match("skirmish", "openspiel:random", "random", games=2, progress=False, scenario="duel")
    assert res.games == 2 and res.wins_a + res.wins_b + res.draws == 2


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_the_agent_plays_from_the_seat_view_only(game: str) -> None:
    """Two positions the seat cannot tell apart (the true one and a resample of its view) get the
    same move from agents with the same seed: the hidden part is never read."""
    state = games.load(game, seed=9).new_initial_state()
    rng = np.random.default_rng(3)
    while len(state.legal_actions()) < 3:
        state.apply_action(int(rng.choice(state.legal_actions())))
    p = state.current_player()
    twin = state.resample_from_infostate(p, np.random.default_rng(5).random)
    moves = []
    for s in (state, twin):
        mask = np.zeros(state.get_game().num_distinct_actions(), np.int8)
        mask[s.legal_actions()] = 1
        agent = make_player("openspiel:ismcts,iterations=6", game, seed=1)
        moves.append(agent.act({"observation": np.asarray(s.observation_tensor(p)), "action_mask": mask},
                               s.engine.information_view(p)))
    assert moves[0] == moves[1] and moves[0] in state.legal_actions()


def test_without_open_spiel_the_spec_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyspiel", None)  # as if open_spiel were not installed
    for name in [m for m in sys.modules if m == "cardwar.openspiel" or m.startswith("cardwar.openspiel.")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(AgentSpecError, match=r"pip install 'cardwar\[openspiel\]'") as err:
        check_player_spec("openspiel:ismcts", "naval")
    assert "\n" not in str(err.value)


def test_cardwar_agents_lists_the_openspiel_specs_each_game_takes(capsys: pytest.CaptureFixture[str]) -> None:
    """Every game lists openspiel:random and openspiel:policy=PATH; ismcts only where the registry gives a
    state_from_view hook (naval, hexwar)."""
    import json

    from cardwar.cli import main

    assert main(["agents", "--json"]) == 0
    listed = {g: [a["name"] for a in v if a["name"].startswith("openspiel:")]
              for g, v in json.loads(capsys.readouterr().out).items()}
    assert listed["naval"] == listed["hexwar"] == ["openspiel:ismcts", "openspiel:random", "openspiel:policy=PATH"]
    assert listed["skirmish"] == ["openspiel:random", "openspiel:policy=PATH"]
    assert main(["agents", "naval"]) == 0
    text = capsys.readouterr().out
    assert "openspiel:ismcts" in text and "iterations (int" in text and "greedy (bool" in text
