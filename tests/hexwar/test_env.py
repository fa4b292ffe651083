"""The PettingZoo AEC environment hexwar_v0."""

from __future__ import annotations

import functools
import pathlib
import re

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import cardwar.envs  # noqa: F401  (registers cardwar/hexwar-v0)
from cardwar.envs import hexwar_v0
from tests.engine_purity import rl_imports
from cardwar.envs.hexwar.actions import NUM_ACTIONS
from cardwar.envs.hexwar.config import HexConfigError
from cardwar.envs.hexwar.observation import OBS_SHAPE
from cardwar.envs.hexwar.scenario import MAX_WIDTH, ScenarioError, available_scenarios, load_scenario, scenario_from_dict
from cardwar.envs.hexwar.state import HexIllegalActionError

HIDDEN_RULES = {"hidden_units": True, "joint_activation": True}
SETUPS = [
    pytest.param({}, id="meeting_engagement_default"),
    pytest.param({"scenario": "river_crossing"}, id="river_crossing"),
    pytest.param({"scenario": "artillery_barrage"}, id="artillery_barrage"),
    pytest.param({"scenario": "hill_and_hedgerows", "rules": HIDDEN_RULES}, id="hill_and_hedgerows_hidden_joint"),
    pytest.param({"scenario": "random"}, id="random"),
]


# ------------------------------------------------------------------ PettingZoo's own tests
@pytest.mark.parametrize("kwargs", SETUPS)
def test_pettingzoo_api_test(kwargs):
    api_test(hexwar_v0.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", SETUPS)
def test_pettingzoo_seed_test(kwargs):
    seed_test(functools.partial(hexwar_v0.env, **kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", SETUPS)
def test_pettingzoo_render_test(kwargs):
    render_test(functools.partial(hexwar_v0.env, **kwargs))


def test_registered_with_pettingzoo_make():
    e = pettingzoo.make("aec", "cardwar/hexwar-v0")
    e.reset(seed=1)
    assert e.unwrapped.metadata["name"] == "hexwar_v0"
    assert e.possible_agents == ["blue", "red"]
    assert e.action_space("blue").n == NUM_ACTIONS == 843


# ------------------------------------------------------------------ rewards and illegal actions
def _play_to_end(e, seed: int) -> tuple[dict[str, float], dict[str, dict]]:
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in e.possible_agents}
    final_infos = {}
    for agent in e.agent_iter():
        obs, rew, term, trunc, info = e.last()
        totals[agent] += rew
        if term or trunc:
            final_infos[agent] = info
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(rng.choice(legal)))
    return totals, final_infos


@pytest.mark.parametrize("kwargs", SETUPS)
def test_rewards_are_plus_minus_one_at_the_end_and_match_the_engine(kwargs):
    for seed in range(8):
        e = hexwar_v0.env(**kwargs)
        totals, infos = _play_to_end(e, seed)
        s = e.unwrapped.game
        assert s.is_terminal()
        assert [totals["blue"], totals["red"]] == s.returns()
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])
        assert set(infos) == {"blue", "red"}
        assert infos["blue"]["result"] == infos["red"]["result"] == s.result


def test_raw_env_refuses_an_illegal_action_with_a_clear_error():
    e = hexwar_v0.raw_env()
    e.reset(seed=0)
    illegal = int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"] == 0)[0])
    with pytest.raises(HexIllegalActionError, match="not legal"):
        e.step(illegal)
    assert isinstance(HexIllegalActionError("x"), ValueError)


def test_raw_env_refuses_an_illegal_action_without_a_mask_observed_first():
    """No observe() before step: the engine itself must check."""
    e = hexwar_v0.raw_env(scenario="river_crossing")
    e.reset(seed=3)
    legal = set(e.game.legal_actions())
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(HexIllegalActionError, match="not legal"):
        e.step(illegal)


def test_wrapped_env_ends_the_game_on_an_illegal_action_like_classic_envs():
    e = hexwar_v0.env()
    e.reset(seed=0)
    agent = e.agent_selection
    other = [a for a in e.agents if a != agent][0]
    obs, *_ = e.last()
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    e.step(illegal)  # PettingZoo logs "Illegal move made" and ends the game
    assert all(e.terminations.values())
    assert e.rewards[agent] == -1 and e.rewards[other] == 0


# ------------------------------------------------------------------ construction errors
def test_unknown_scenario_is_a_clear_error_listing_the_scenarios():
    with pytest.raises(ValueError, match="unknown scenario 'no_such_battle'") as err:
        hexwar_v0.env(scenario="no_such_battle")
    assert isinstance(err.value, ScenarioError)
    for name in available_scenarios():
        assert name in str(err.value)
    assert "random" in str(err.value)


def test_bad_rules_are_clear_errors():
    with pytest.raises(ValueError, match="unknown hexwar rule option.*known options") as err:
        hexwar_v0.env(rules={"hidden_unit": True})
    assert isinstance(err.value, HexConfigError)
    for name in ("hidden_units", "joint_activation", "cover_applies_to", "los_blocked_by", "edge_sight"):
        assert name in str(err.value)
    with pytest.raises(ValueError, match="los_blocked_by='nobody' is not one of 'any_unit', 'enemy_units'"):
        hexwar_v0.env(rules={"los_blocked_by": "nobody"})
    with pytest.raises(ValueError, match="hidden_units must be true or false"):
        hexwar_v0.env(rules={"hidden_units": "yes"})


def test_bad_render_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="render_mode 'video'"):
        hexwar_v0.env(render_mode="video")
    with pytest.raises(ValueError, match="render_viewer 'green'.*blue"):
        hexwar_v0.env(render_viewer="green")


# ------------------------------------------------------------------ observations and masks
@pytest.mark.parametrize("kwargs", SETUPS)
def test_observation_in_unit_box_and_mask_only_for_the_agent_to_act(kwargs):
    e = hexwar_v0.raw_env(**kwargs)
    e.reset(seed=11)
    rng = np.random.default_rng(11)
    steps = 0
    while not e.game.is_terminal() and steps < 150:
        cur = e.agent_selection
        assert cur == hexwar_v0.AGENTS[e.game.current_player]
        other = [a for a in e.agents if a != cur][0]
        for agent in (cur, other):
            o = e.observe(agent)
            obs = o["observation"]
            assert obs.shape == OBS_SHAPE == (59, 10, 12) and obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0, f"step {steps}: {agent} observation outside [0, 1]"
            assert o["action_mask"].shape == (NUM_ACTIONS,) and o["action_mask"].dtype == np.int8
            assert e.observation_space(agent).contains(o)
        m = e.observe(cur)["action_mask"]
        assert np.flatnonzero(m).tolist() == e.game.legal_actions()
        assert e.observe(other)["action_mask"].sum() == 0
        e.step(int(rng.choice(np.flatnonzero(m))))
        steps += 1
    assert steps > 20


def test_observation_stays_in_the_box_for_objectives_worth_more_than_two():
    """Scenario files accept objective values 1..10; the observation space is Box(0, 1)."""
    for value in (3, 10):
        d = load_scenario("meeting_engagement").to_dict()
        d["objectives"][0]["value"] = value
        sc = scenario_from_dict(d, name="valuable_objective")
        e = hexwar_v0.raw_env(scenario=sc)
        e.reset(seed=0)
        for agent in e.agents:
            o = e.observe(agent)
            assert o["observation"].max() <= 1.0, f"objective worth {value}: observation above 1"
            assert e.observation_space(agent).contains(o)


# ------------------------------------------------------------------ rendering
def test_rgb_array_render_is_an_image():
    for kw in ({}, {"scenario": "hill_and_hedgerows", "rules": HIDDEN_RULES, "render_viewer": "blue"}):
        e = hexwar_v0.env(render_mode="rgb_array", **kw)
        e.reset(seed=0)
        img = e.render()
        assert isinstance(img, np.ndarray) and img.ndim == 3 and img.shape[2] == 3 and img.dtype == np.uint8
        assert img.shape[0] > 50 and img.shape[1] > 50 and img.std() > 0


_UNIT = re.compile(r"[A-Za-z]\d")


def occupied_cells(text: str, scenario) -> set[int]:
    """Cells whose ansi text shows a unit (type letter followed by its hits)."""
    from cardwar.envs.hexwar.text import CELL

    lines = text.splitlines()
    out = set()
    for r in range(scenario.height):
        line = lines[2 + r]
        assert line.startswith(f"{r + 1:>3} ")
        body = line[4 + (CELL // 2 if r % 2 else 0):]
        for c in range(scenario.width):
            cell_text = body[CELL * c:CELL * c + CELL]
            if _UNIT.search(cell_text[1:]):
                out.add(r * MAX_WIDTH + c)
    return out


def test_ansi_render_hides_hidden_enemies_from_the_viewer():
    kw = {"scenario": "hill_and_hedgerows", "rules": {"hidden_units": True}, "render_mode": "ansi"}
    blue = hexwar_v0.raw_env(render_viewer="blue", **kw)
    omni = hexwar_v0.raw_env(render_viewer="omniscient", **kw)
    spectator = hexwar_v0.raw_env(**kw)
    for e in (blue, omni, spectator):
        e.reset(seed=0)
    s = blue.game
    sc = s.scenario
    hidden_cells = {s.cell[u] for u in range(len(s.cell)) if s.hidden[u] and s.side[u] == 1 and s.cell[u] >= 0}
    assert hidden_cells, "hill_and_hedgerows should start with hidden red units"
    blue_text, omni_text, spectator_text = blue.render(), omni.render(), spectator.render()
    assert isinstance(blue_text, str) and isinstance(omni_text, str)
    all_cells = {c for c in s.cell if c >= 0}
    assert occupied_cells(omni_text, sc) == all_cells
    assert occupied_cells(blue_text, sc) == all_cells - hidden_cells
    assert occupied_cells(spectator_text, sc) == all_cells - hidden_cells
    red = hexwar_v0.raw_env(render_viewer="red", **kw)
    red.reset(seed=0)
    assert occupied_cells(red.render(), sc) == all_cells  # red knows where its own units are


def test_human_render_prints_the_board_after_each_step(capsys):
    e = hexwar_v0.env(render_mode="human")
    e.reset(seed=2)
    title = e.unwrapped.scenario.title
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert title in capsys.readouterr().out
    assert e.render() is None
    assert title in capsys.readouterr().out


# ------------------------------------------------------------------ engine purity
def test_rules_engine_imports_no_rl_library():
    """envs/hexwar/ is pure: no gymnasium, pettingzoo or torch imports."""
    package = pathlib.Path(hexwar_v0.__file__).parent.joinpath("hexwar")
    assert len(list(package.glob("*.py"))) >= 10
    assert rl_imports(package) == []


def test_engine_package_exports_the_notation_like_the_naval_one():
    """``from cardwar.envs.hexwar import action_to_string, string_to_action`` as for ``cardwar.envs.naval``."""
    import cardwar.envs.hexwar as hexwar
    import cardwar.envs.naval as naval
    from cardwar.envs.hexwar import action_to_string, string_to_action

    for a in range(NUM_ACTIONS):
        assert string_to_action(action_to_string(a)) == a
    for name in ("action_to_string", "string_to_action", "NUM_ACTIONS"):
        assert name in hexwar.__all__ and name in naval.__all__
    for name in hexwar.__all__:
        assert getattr(hexwar, name) is not None
    s = hexwar.HexState.new_game(hexwar.load_scenario("river_crossing"), hexwar.HexConfig(), seed=0)
    assert hexwar.state_from_json(hexwar.state_to_json(s)).legal_actions() == s.legal_actions()


def test_random_train_and_random_test_are_disjoint_halves_of_the_generator():
    """``random:train`` draws even generator seeds, ``random:test`` odd ones: no map in both."""
    names = {}
    for split in ("random:train", "random:test"):
        e = hexwar_v0.raw_env(scenario=split)
        names[split] = set()
        for seed in range(30):
            e.reset(seed=seed)
            gen_seed = int(e.scenario.name.removeprefix("random-"))
            assert gen_seed % 2 == (split == "random:test")
            names[split].add(e.scenario.name)
    assert len(names["random:train"]) > 20 and not names["random:train"] & names["random:test"]
