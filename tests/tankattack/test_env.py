"""The PettingZoo AEC env tankattack_v0: PettingZoo's own tests, masks against the engine, observations
from the view alone, renders, the doc page."""

from __future__ import annotations

import functools

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import cardwar.envs  # noqa: F401  (registers cardwar/tankattack-v0)
from cardwar.envs import tankattack_v0
from cardwar.envs.tankattack import (
    NUM_ACTIONS, TankAttackRulesError, TankIllegalActionError, action_to_string, string_to_action,
)
from cardwar.envs.tankattack.board import NUM_CELLS, STRIDE, label
from cardwar.envs.tankattack.elements import STATS
from cardwar.envs.tankattack.observation import OBS_SHAPE, PLANES, RESERVE_TYPES, plane_table
from cardwar.envs.tankattack.picture import image_size
from cardwar.envs.tankattack.serialize import state_from_dict, state_to_dict
from cardwar.envs.tankattack.text import ARROWS, LEGEND, element_code
from tests.naval.pages import id_span, run_page_code, table_with

SETUPS = [
    pytest.param({"scenario": "trench_raid"}, id="trench_raid"),
    pytest.param({}, id="cambrai_default"),
    pytest.param({"scenario": "trench_raid", "rules": {"arc": "box", "shooting_bounds": "active"}},
                 id="trench_raid_options"),
    pytest.param({"scenario": "random:train"}, id="random_train"),
]
AGENTS = ["defender", "attacker"]


# ------------------------------------------------------------------ PettingZoo's own tests
@pytest.mark.parametrize("kwargs", SETUPS)
def test_pettingzoo_api_test(kwargs):
    api_test(tankattack_v0.env(**kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", SETUPS)
def test_pettingzoo_seed_test(kwargs):
    seed_test(functools.partial(tankattack_v0.env, **kwargs), num_cycles=300)


@pytest.mark.parametrize("kwargs", SETUPS[:2])
def test_pettingzoo_render_test(kwargs):
    render_test(functools.partial(tankattack_v0.env, **kwargs))


def test_registered_with_pettingzoo_make():
    e = pettingzoo.make("aec", "cardwar/tankattack-v0", scenario="trench_raid")
    e.reset(seed=1)
    assert e.unwrapped.metadata["name"] == "tankattack_v0"
    assert e.possible_agents == AGENTS
    assert e.action_space("defender").n == NUM_ACTIONS
    assert e.observation_space("attacker")["observation"].shape == OBS_SHAPE == (24, 16, len(PLANES))


# ------------------------------------------------------------------ whole games
def _whole_game(kwargs: dict, seed: int):
    """Play a random game through the wrapped env; yield ``(env, agent, *last())`` before each step."""
    e = tankattack_v0.env(**kwargs)
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        yield e, agent, obs, reward, info
        e.step(None if term or trunc else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("kwargs", SETUPS)
def test_mask_is_the_engines_legal_actions_at_every_step_of_whole_games(kwargs):
    """Every step: the acting seat's mask is exactly the engine's legal actions (and the engine's list is
    exactly the actions it accepts: tests/tankattack/test_games.py tries all 416), the other seat's mask
    is empty, the acting agent is the engine's current player, and every observation is in the space."""
    for seed in range(4 if kwargs.get("scenario") == "trench_raid" else 2):
        steps = 0
        for e, agent, obs, *_ in _whole_game(kwargs, seed):
            s = e.unwrapped.game
            space = e.observation_space(agent)
            if s.is_terminal():
                assert not obs["action_mask"].any()
                continue
            steps += 1
            assert AGENTS.index(agent) == s.current_player
            assert np.flatnonzero(obs["action_mask"]).tolist() == s.legal_actions()
            assert space.contains(obs), agent
            other = AGENTS[1 - s.current_player]
            other_obs = e.unwrapped.observe(other)
            assert not other_obs["action_mask"].any() and space.contains(other_obs)
        assert e.unwrapped.game.is_terminal() and steps > 20


@pytest.mark.parametrize("kwargs", SETUPS[:2])
def test_rewards_are_the_engines_returns_and_infos_its_result(kwargs):
    for seed in range(3):
        totals = dict.fromkeys(AGENTS, 0.0)
        final: dict[str, dict] = {}
        for e, agent, _, reward, info in _whole_game(kwargs, 100 + seed):
            totals[agent] += reward
            if e.unwrapped.game.is_terminal():
                final[agent] = info
        s = e.unwrapped.game
        assert [totals[a] for a in AGENTS] == s.returns()
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])
        assert set(final) == set(AGENTS) and all(final[a]["result"] == s.result for a in AGENTS)


# ------------------------------------------------------------------ the observation and the view
def _positions(n_games: int = 2, every: int = 3):
    """Engine states met in random games of trench_raid and cambrai (every ``every``-th step)."""
    for scenario in ("trench_raid", "cambrai"):
        for seed in range(n_games):
            for k, (e, *_) in enumerate(_whole_game({"scenario": scenario}, 7 + seed)):
                if k % every == 0:
                    yield e.unwrapped


def test_observation_is_unchanged_by_reseeding_the_dice():
    """The dice are the one thing no seat knows (RULES.md 18): a clone with another random stream has the
    same view, so every seat's observation is bit for bit the same; so is a state rebuilt from the view's
    data with a fresh Generator."""
    for env in _positions():
        s = env.game
        other = s.clone()
        other.rng = np.random.default_rng(12345)
        d = state_to_dict(s)
        d["rng"] = np.random.default_rng(999).bit_generator.state
        rebuilt = state_from_dict(d)
        for seat in (0, 1):
            assert s.information_view(seat) == other.information_view(seat) == rebuilt.information_view(seat)
            want = env._encode(seat)
            for t in (other, rebuilt):
                env.game = t
                np.testing.assert_array_equal(env._encode(seat), want)
            env.game = s


def test_observation_planes_read_back_the_engine_state():
    """Each element's type, facing, General and flag planes sit at its cell on the seat's own / enemy planes;
    the terrain, stage, PIPs and who-decides planes match the engine; every value lies in [0, 1] and each
    constant plane is constant (a check computed here from the engine, not from the encoder)."""
    at = {name: k for k, name in enumerate(PLANES)}
    values = {name: v for _, name, v, _ in plane_table()}
    for env in _positions(n_games=1, every=7):
        s = env.game
        for seat in (0, 1):
            obs = env._encode(seat).reshape(NUM_CELLS, len(PLANES))
            assert obs.dtype == np.float32 and obs.min() >= 0 and obs.max() <= 1
            for name, v in values.items():
                if v.startswith("constant"):
                    assert (obs[:, at[name]] == obs[0, at[name]]).all(), name
            expect = np.zeros((NUM_CELLS, len(PLANES)), dtype=bool)
            for e in range(len(s.cell)):
                c = s.cell[e]
                if c < 0:
                    continue
                who = "own" if s.side[e] == seat else "enemy"
                expect[c, at[f"{who}_{s.etype[e].name.lower()}"]] = True
                expect[c, at[f"{who}_facing_{'nesw'[s.facing[e]]}"]] = True
                expect[c, at[f"{who}_general"]] = s.general[e]
                expect[c, at[f"{who}_suppressed"]] = s.suppressed[e]
                expect[c, at[f"{who}_moved"]] = s.moved[e]
                assert obs[c, at[f"{who}_gas_timer"]] == pytest.approx(min(s.timer[e] / 7, 1))
                if s.home[e] >= 0:
                    assert obs[s.home[e], at[f"{who}_lurker_home"]] == 1
            element_planes = [at[n] for n in PLANES if n.startswith(("own_", "enemy_")) and (
                n.split("_", 1)[1] in ("general", "suppressed", "moved") or "_facing_" in n
                or n.split("_", 1)[1].upper() in {t.name for t in STATS})]
            np.testing.assert_array_equal(obs[:, element_planes] == 1, expect[:, element_planes])
            for c in range(NUM_CELLS):
                on = s.board.on_map(c)
                assert obs[c, at["off_map"]] == (not on)
                if on:
                    assert obs[c, at[f"ground_{s.board.ground[c].name.lower()}"]] == 1
                assert obs[c, at["trench"]] == (c in s.board.trench)
                assert obs[c, at["wire_own"]] == (s.wire.get(c) == seat)
                assert obs[c, at["wire_enemy"]] == (c in s.wire and s.wire[c] != seat)
            assert obs[0, at[f"stage_{s.stage.value}"]] == 1
            assert obs[0, at["pips_left"]] == pytest.approx(min(s.pips, 6) / 6)
            assert obs[0, at["i_am_defender"]] == (seat == 0)
            assert obs[0, at["to_decide"]] == (not s.is_terminal() and s.current_player == seat)
            assert obs[0, at["own_lost_ap"]] == pytest.approx(s.lost_ap(seat) / s.army_ap(seat))
            for t in RESERVE_TYPES:
                for who, sd in (("own", seat), ("enemy", 1 - seat)):
                    n = sum(1 for e in range(len(s.cell)) if s.etype[e] == t and s.side[e] == sd and s.cell[e] == -1)
                    assert obs[0, at[f"{who}_reserve_{t.name.lower()}"]] == pytest.approx(min(n / 4, 1))
            if "element" in s.pending and s.cell[s.pending["element"]] >= 0:
                assert obs[s.cell[s.pending["element"]], at["pending_element"]] == 1


def test_random_splits_draw_even_and_odd_generator_seeds_from_the_reset_seed():
    """RULES.md 20.1: "random:train" plays even generator seeds, "random:test" odd ones; the same reset
    seed gives the same map."""
    for split, parity in (("random:train", 0), ("random:test", 1)):
        e = tankattack_v0.raw_env(scenario=split)
        names = set()
        for seed in range(3):
            e.reset(seed=seed)
            names.add(e.scenario.name)
            assert int(e.scenario.name.split(":")[-1]) % 2 == parity
            again = tankattack_v0.raw_env(scenario=split)
            again.reset(seed=seed)
            assert again.scenario.map_rows == e.scenario.map_rows
        assert len(names) == 3


def test_global_state_is_both_seats_observations_joined():
    e = tankattack_v0.raw_env(scenario="trench_raid")
    e.reset(seed=4)
    st = e.state()
    assert e.state_space.contains(st)
    np.testing.assert_array_equal(st, np.concatenate([e._encode(0).ravel(), e._encode(1).ravel()]))


# ------------------------------------------------------------------ errors
def test_raw_env_refuses_an_illegal_action_with_the_rules_reason():
    e = tankattack_v0.raw_env(scenario="trench_raid")
    e.reset(seed=0)
    legal = set(e.game.legal_actions())
    illegal = next(a for a in range(NUM_ACTIONS) if a not in legal)
    with pytest.raises(TankIllegalActionError, match="not legal"):
        e.step(illegal)


def test_wrapped_env_ends_the_game_on_an_illegal_action():
    e = tankattack_v0.env(scenario="trench_raid")
    e.reset(seed=0)
    agent = e.agent_selection
    obs, *_ = e.last()
    e.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    assert all(e.terminations.values()) and e.rewards[agent] == -1


def test_bad_arguments_are_clear_errors():
    with pytest.raises(TankAttackRulesError, match="known"):
        tankattack_v0.env(rules={"no_such_option": 1})
    with pytest.raises(ValueError, match="unknown tankattack scenario 'nowhere'"):
        tankattack_v0.env(scenario="nowhere")
    with pytest.raises(ValueError, match="render_mode"):
        tankattack_v0.env(render_mode="video")


# ------------------------------------------------------------------ renders
def test_ansi_shows_every_element_at_its_cell_with_its_facing():
    e = tankattack_v0.env(scenario="cambrai", render_mode="ansi", render_viewer="attacker")
    e.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(80):
        obs, *_ = e.last()
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    s = e.unwrapped.game
    lines = e.render().splitlines()
    assert "view of the attacker" in lines[0]
    pending = {s.pending[k] for k in ("element", "shooter") if k in s.pending}
    view = s.information_view(1).data["elements"]
    for k, c in enumerate(s.cell):
        if c < 0:
            continue
        col, row = c % STRIDE, c // STRIDE
        cell_text = lines[2 + row][4 + 3 * col: 7 + 3 * col]
        mark = "*" if k in pending else ARROWS[s.facing[k]]
        assert cell_text == element_code(view[k]) + mark, label(c)
        assert cell_text[:2].isupper() == (s.side[k] == 0)


def test_legend_gives_each_code_one_meaning():
    codes = [k.upper() for k in LEGEND if len(k) == 2]
    assert len(codes) == len(set(codes)) == len(STATS) + 1  # every type and the General
    assert len(set(LEGEND)) == len(LEGEND)


def test_rgb_array_is_the_same_map_for_every_viewer():
    """Nothing is hidden, so the defender's, the attacker's, the spectator's and the omniscient pictures
    differ only in the title bar."""
    pics = []
    for viewer in ("defender", "attacker", None, "omniscient"):
        e = tankattack_v0.env(scenario="trench_raid", render_mode="rgb_array", render_viewer=viewer)
        e.reset(seed=2)
        for _ in range(30):
            obs, *_ = e.last()
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        pics.append(e.render())
    sc = e.unwrapped.game.scenario.board
    w, h = image_size(sc.width, sc.height)
    for p in pics:
        assert p.shape == (h, w, 3) and p.dtype == np.uint8
        np.testing.assert_array_equal(p[30:], pics[0][30:])


# ------------------------------------------------------------------ the page
def test_every_code_line_of_the_page_runs(capsys):
    run_page_code("tankattack_v0", tankattack_v0.__doc__)


def test_the_pages_action_table_covers_every_id_with_its_notation():
    rows = table_with(tankattack_v0.__doc__, "notation (first .. last id)")
    ids = [a for row in rows for a in id_span(row["ids"])]
    assert ids == list(range(NUM_ACTIONS))
    for row in rows:
        span = id_span(row["ids"])
        first, _, last = row["notation (first .. last id)"].partition(" .. ")
        assert action_to_string(span[0]) == first and action_to_string(span[-1]) == (last or first)
        for a in span:
            assert string_to_action(action_to_string(a)) == a


def test_the_pages_plane_table_is_the_encoders():
    rows = table_with(tankattack_v0.__doc__, "plane")
    assert [r["name"] for r in rows] == list(PLANES)
    assert [int(r["plane"]) for r in rows] == list(range(OBS_SHAPE[2]))


def test_mask_is_exact_against_trying_every_action():
    """Brute force at sampled steps of whole games: the engine accepts an action (on a clone) exactly when
    the env's mask has it."""
    checked = 0
    for seed in range(3):
        for k, (e, agent, obs, *_) in enumerate(_whole_game({"scenario": "trench_raid"}, 40 + seed)):
            s = e.unwrapped.game
            if s.is_terminal() or k % 5:
                continue
            accepted = []
            for a in range(NUM_ACTIONS):
                try:
                    s.clone().apply_action(a)
                except TankIllegalActionError:
                    continue
                accepted.append(a)
            assert accepted == np.flatnonzero(obs["action_mask"]).tolist()
            checked += 1
    assert checked > 20


def test_the_engine_package_with_its_encoders_and_renders_imports_no_rl_library():
    """observation.py, text.py and picture.py live beside the engine: numpy and Pillow only."""
    import pathlib

    from tests.engine_purity import rl_imports

    assert rl_imports(pathlib.Path(tankattack_v0.__file__).parent / "tankattack") == []
