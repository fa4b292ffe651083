"""Agents: legal moves only, reproducible, blind to hidden information; spec strings; matches."""

from __future__ import annotations

import re

import numpy as np
import pytest

from cardwar import agents, games
from cardwar.agents import GAMES as GAMES_
from cardwar.agents import REGISTRY, check_spec
from cardwar.agents.spec import AgentSpecError, parse_spec
from cardwar.cli.match import make_env, play_agents, play_game, run_match
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.observation import encode_observation
from cardwar.envs.naval.observation import encode_observation as encode_naval

GAMES = [("naval", None), ("hexwar", "meeting_engagement"), ("hexwar", "random")]


def _play(game, scenario, specs, seed, rules=None):
    """One game through ``match.play_agents``, checking every move against the mover's mask."""
    trail = []

    def check(agent, obs, a):
        assert obs["action_mask"][a] == 1, f"{agent} chose illegal {a}"
        trail.append(a)

    first, second = (agents.make(s, game, seed=seed + i) for i, s in enumerate(specs))
    returns = play_agents(make_env(game, scenario, rules), first, second, seed, on_move=check)
    return trail, returns


@pytest.mark.parametrize("game, scenario", GAMES)
@pytest.mark.parametrize("specs", [("heuristic", "random"), ("random", "heuristic"), ("heuristic", "heuristic"),
                                   ("mcts:iterations=8", "random"), ("heuristic", "mcts:iterations=8")])
def test_agents_only_return_legal_actions(game, scenario, specs):
    for seed in range(6):
        _play(game, scenario, specs, seed, {"hidden_units": True, "joint_activation": True}
              if game == "hexwar" and seed % 2 else None)


@pytest.mark.parametrize("game, scenario", GAMES)
def test_same_seed_same_game(game, scenario):
    assert _play(game, scenario, ("heuristic", "random"), 11) == _play(game, scenario, ("heuristic", "random"), 11)


def test_naval_heuristic_ignores_what_it_cannot_see():
    """Two states that differ only in the other hand and the deck order: same view, same choice."""
    from cardwar.envs.naval import NavalState

    rng = np.random.default_rng(0)
    checked = 0
    for g in range(30):
        s = NavalState.new_game(seed=g)
        for _ in range(int(rng.integers(0, 40))):
            if s.is_terminal():
                break
            s.apply_action(agents.make("random", "naval", seed=g).act(
                {"action_mask": s.legal_action_mask()}, None))
        if s.is_terminal():
            continue
        me = s.current_player
        t = s.clone()
        pool = t.hands[1 - me] + t.deck
        rng.shuffle(pool)
        n = len(t.hands[1 - me])
        t.hands[1 - me], t.deck = pool[:n], pool[n:]
        va, vb = s.information_view(me), t.information_view(me)
        assert va.to_dict() == vb.to_dict()
        obs_a = {"observation": encode_naval(va), "action_mask": s.legal_action_mask()}
        obs_b = {"observation": encode_naval(vb), "action_mask": t.legal_action_mask()}
        for spec in ("heuristic", "mcts:iterations=15"):
            a = agents.make(spec, "naval", seed=5).act(obs_a, va)
            b = agents.make(spec, "naval", seed=5).act(obs_b, vb)
            assert a == b, spec
        checked += 1
    assert checked > 10


def _random_position(scenario, seed: int, rng, most: int):
    """A hex game with hidden units after up to ``most`` random moves (None if it ended)."""
    from cardwar.envs.hexwar.state import HexState

    s = HexState.new_game(scenario, HexConfig(hidden_units=True), seed=seed)
    for _ in range(int(rng.integers(0, most))):
        if s.is_terminal():
            return None
        la = s.legal_actions()
        s.apply_action(la[int(rng.integers(len(la)))])
    return None if s.is_terminal() else s


def test_hex_heuristic_ignores_hidden_units():
    """Moving a hidden enemy unit elsewhere changes nothing the side sees, nor what it does."""
    from cardwar.envs.hexwar.scenario import load_scenario

    sc = load_scenario("hill_and_hedgerows")
    checked = 0
    for g in range(40):
        rng = np.random.default_rng(g)
        s = _random_position(sc, g, rng, 10)
        if s is None:
            continue
        side = s.current_player
        hidden = [u for u in range(len(s.cell)) if s.hidden[u] and s.side[u] != side]
        if not hidden:
            continue
        t = s.clone()
        occupied = set(t.cell)
        free = [c for c in range(120) if sc.passable[c] and c not in occupied and sc.stack[c] >= 1]
        for u in hidden:
            t.cell[u] = free.pop(int(rng.integers(len(free))))
            t.hits[u] = 3
        va, vb = s.information_view(side), t.information_view(side)
        assert va == vb
        if t.legal_actions() != s.legal_actions():
            continue  # a relocated unit became relevant to legality in a way the view cannot show (not expected)
        oa = {"observation": encode_observation(va, sc), "action_mask": s.legal_action_mask()}
        ob = {"observation": encode_observation(vb, sc), "action_mask": t.legal_action_mask()}
        assert np.array_equal(oa["observation"], ob["observation"])
        for spec in ("heuristic", "mcts:iterations=10"):
            assert agents.make(spec, "hexwar", seed=1).act(oa, va) == agents.make(spec, "hexwar", seed=1).act(ob, vb)
        checked += 1
    assert checked >= 5


def test_spec_strings():
    assert parse_spec("random") == ("random", {})
    assert parse_spec("mcts:iterations=400,seconds=0.5,rollouts=true") == (
        "mcts", {"iterations": "400", "seconds": "0.5", "rollouts": "true"})
    assert parse_spec("ppo:runs/x/model.zip") == ("ppo", {"path": "runs/x/model.zip"})
    assert check_spec("mcts:iterations=400,seconds=0.5", "naval") == (
        "mcts", {"iterations": 400, "seconds": 0.5})
    assert check_spec("mcts:iterations=50", "hexwar") == ("mcts", {"iterations": 50, "seconds": None})
    assert check_spec("ppo:deterministic=FALSE", "naval") == ("ppo", {"deterministic": False})
    assert check_spec("heuristic:samples=64", "naval") == ("heuristic", {"samples": 64})
    with pytest.raises(AgentSpecError, match="agents: heuristic, level, mcts, ppo, random"):
        agents.make("alphazero", "naval")
    with pytest.raises(AgentSpecError, match="does not take"):
        agents.make("heuristic:depth=3", "naval")
    with pytest.raises(AgentSpecError, match="unknown game"):
        agents.make("random", "chess")
    with pytest.raises(AgentSpecError, match="KEY=VALUE"):
        parse_spec("heuristic:fast")


def test_match_swaps_seats_in_pairs_on_the_same_seed():
    from cardwar.arena.seeds import Dealer

    dealer = Dealer.fresh()
    res = run_match("naval", "heuristic", "random", 6, seed=40, progress=False, dealer=dealer)
    expected = {"a_first": [0, 0, 0], "a_second": [0, 0, 0]}
    for k in range(3):
        first = play_game("naval", "heuristic", "random", 40 + k, dealer=dealer)
        second = play_game("naval", "random", "heuristic", 40 + k, dealer=dealer)
        for key, r in (("a_first", first[0]), ("a_second", second[1])):
            expected[key][0 if r > 0 else 1 if r < 0 else 2] += 1
    assert res.per_seat == expected and res.games == 6
    assert res.wins_a + res.wins_b + res.draws == 6
    lo, hi = res.interval()
    assert 0 <= lo <= res.score_a <= hi <= 1


def test_match_with_workers_gives_the_same_totals():
    from cardwar.arena.seeds import Dealer

    a = run_match("hexwar", "heuristic", "random", 4, seed=2, progress=False)
    b = run_match("hexwar", "heuristic", "random", 4, seed=2, progress=False, workers=2, dealer=Dealer(a.secret))
    assert a.to_dict()["per_seat"] == b.to_dict()["per_seat"] and a.secret == b.secret


@pytest.mark.parametrize("game, scenario", GAMES)
def test_mcts_with_an_iteration_budget_is_legal_and_reproducible(game, scenario):
    specs = ("mcts:iterations=12", "heuristic")
    assert _play(game, scenario, specs, 3) == _play(game, scenario, specs, 3)


def test_mcts_rejects_unknown_options_and_needs_a_budget():
    with pytest.raises(AgentSpecError, match="does not take"):
        agents.make("mcts:depth=3", "naval")
    with pytest.raises(AgentSpecError, match="needs a budget"):
        agents.make("mcts:seconds=none", "naval")
    with pytest.raises(AgentSpecError, match="must be >= 1"):
        agents.make("mcts:iterations=0", "hexwar")


@pytest.mark.parametrize("spec, game, message", [
    ("heuristic:samples=abc", "naval", "heuristic option samples='abc': expected an integer"),
    ("heuristic:samples=0", "naval", "heuristic option samples='0': must be >= 1"),
    ("heuristic:samples=2.5", "naval", "expected an integer"),
    ("heuristic:attack_threshold=1.5", "naval", "must be >= 0 and <= 1"),
    ("heuristic:foo=1", "naval", "its options: samples (int >= 1 and <= 100000, default 32)"),
    ("heuristic:sample=3", "naval", "did you mean samples?"),
    ("heuristic:samples=3", "hexwar", "its options: none"),
    ("ppo:deterministic=maybe", "naval", "ppo option deterministic='maybe': expected true or false"),
    ("mcts:seconds=-1", "naval", "must be > 0"),
    ("mcts:seconds=nan", "naval", "expected a finite number"),
    ("mcts:margin=0.1", "naval", "does not take the option 'margin'"),
    ("mcts:exploration=1,exploration=2", "naval", "given twice"),
    ("heuristc", "naval", "did you mean heuristic?"),
    ("ppo:path=/no/such/model.zip", "naval", "no model file"),
])
def test_agent_options_are_typed_and_range_checked_when_the_spec_is_read(spec, game, message):
    with pytest.raises(AgentSpecError, match=re.escape(message)) as err:
        check_spec(spec, game)
    assert "\n" not in str(err.value)


def test_every_declared_default_is_accepted_by_its_agent():
    """The registry's defaults are the constructors' own: building with each default given explicitly works."""
    for info in REGISTRY.values():
        if info.name == "rllib":  # no default policy: it plays a trained checkpoint, so its defaults are checked
            continue  # with one (tests/training/test_rllib_agent.py)
        for game in GAMES_:
            if info.name not in games.get(game).agents:  # a game without this agent (tankattack: random, rllib)
                continue
            for opt in info.options[game]:
                if opt.default is not None:
                    text = str(opt.default).lower() if opt.kind is bool else str(opt.default)
                    agents.make(f"{info.name}:{opt.name}={text}", game)


def test_hex_determinization_matches_the_view_it_came_from():
    """A determinization of a side's view shows that side the very same view (units, order, phase)."""
    from cardwar.agents.hexwar_search import determinize
    from cardwar.envs.hexwar.scenario import load_scenario

    sc = load_scenario("artillery_barrage")
    for g in range(15):
        rng = np.random.default_rng(g)
        s = _random_position(sc, g, rng, 60)
        if s is None:
            continue
        side = s.current_player
        v = s.information_view(side)
        d = determinize(v, np.random.default_rng(0))
        dv = d.information_view(side)
        assert d.current_player == side and dv.phase == v.phase and dv.turn == v.turn
        assert sorted((u.side, u.type, u.cell, u.hits) for u in dv.units) == sorted(
            (u.side, u.type, u.cell, u.hits) for u in v.units)
        assert len(dv.order) == len(v.order)
        assert d.legal_actions() == s.legal_actions()  # legality never depended on hidden enemies
