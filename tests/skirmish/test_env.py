"""The PettingZoo AEC environment skirmish_v0 (RULES.md §9): PettingZoo's own tests, observations, hidden orders."""

from __future__ import annotations

import functools

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

import cardwar.envs  # noqa: F401  (registers cardwar/skirmish-v0)
from cardwar.envs import make_raw_env, skirmish_v0
from cardwar.envs.skirmish.actions import N_ACTIONS, Step
from cardwar.envs.skirmish.notation import HIDDEN, action_table, action_to_string, string_to_action
from cardwar.envs.skirmish.observation import NUM_PLANES, OBS_SHAPE, PLANES, planes_of
from cardwar.envs.skirmish.rules import SkirmishRules, SkirmishRulesError
from cardwar.envs.skirmish.state import SkirmishIllegalActionError
from cardwar.envs.skirmish.units import Soldier
from tests.naval.pages import id_span, run_page_code, table_with

SETUPS = [
    pytest.param({"scenario": "duel"}, id="duel_phases"),
    pytest.param({"scenario": "duel", "rules": {"sequence": "deck"}}, id="duel_deck"),
    pytest.param({"scenario": "woods_and_craters", "rules": {"opportunity_fire": "after_move"}}, id="woods_after_move"),
    pytest.param({"scenario": "panzer_road"}, id="panzer_road"),
    pytest.param({"scenario": "woods_and_craters", "rules": {"king_and_country": True, "lady_luck": True,
                                                             "knave_events": True}}, id="woods_picture_cards"),
    pytest.param({}, id="ww2_squads_default"),
    pytest.param({"scenario": "random"}, id="random"),
]
FAST = [pytest.param({"scenario": "duel"}, id="duel_phases"),
        pytest.param({"scenario": "duel", "rules": {"sequence": "deck"}}, id="duel_deck")]


# ------------------------------------------------------------------ PettingZoo's own tests
@pytest.mark.parametrize("kwargs", SETUPS)
def test_pettingzoo_api_test(kwargs):
    api_test(skirmish_v0.env(**kwargs), num_cycles=200)


@pytest.mark.parametrize("kwargs", FAST + [pytest.param({"scenario": "random"}, id="random")])
def test_pettingzoo_seed_test(kwargs):
    seed_test(functools.partial(skirmish_v0.env, **kwargs), num_cycles=200)


@pytest.mark.parametrize("kwargs", FAST)
def test_pettingzoo_render_test(kwargs):
    render_test(functools.partial(skirmish_v0.env, **kwargs))


def test_registered_with_pettingzoo_make():
    e = pettingzoo.make("aec", "cardwar/skirmish-v0")
    e.reset(seed=1)
    assert e.unwrapped.metadata["name"] == "skirmish_v0"
    assert e.possible_agents == ["player_0", "player_1"] == skirmish_v0.AGENTS
    assert e.action_space("player_0").n == N_ACTIONS
    # channels-last, as PettingZoo classic's image observations and hexwar-v1 (issue 28)
    assert e.observation_space("player_1")["observation"].shape == OBS_SHAPE == (16, 24, NUM_PLANES)


def test_make_raw_env_knows_the_skirmish():
    e = make_raw_env("skirmish", "duel", {"sequence": "deck"})
    e.reset(seed=0)
    assert isinstance(e, skirmish_v0.raw_env) and e.config.sequence == "deck"
    assert make_raw_env("skirmish").fixed_scenario.name == skirmish_v0.DEFAULT_SCENARIO


# ------------------------------------------------------------------ rendering
@pytest.mark.parametrize("viewer", [None, "player_0", "player_1", "omniscient"])
def test_ansi_and_rgb_array_renders(viewer):
    for mode in ("ansi", "rgb_array"):
        e = skirmish_v0.env(scenario="duel", render_mode=mode, render_viewer=viewer)
        e.reset(seed=0)
        for _ in range(10):
            obs, *_ = e.last()
            e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        out = e.render()
        if mode == "ansi":
            assert isinstance(out, str) and len(out.splitlines()) > 16
        else:
            assert isinstance(out, np.ndarray) and out.ndim == 3 and out.shape[2] == 3 and out.dtype == np.uint8
            assert out.shape[0] > 50 and out.shape[1] > 50 and out.std() > 0


def test_bad_render_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="render_mode 'video'"):
        skirmish_v0.env(render_mode="video")
    with pytest.raises(ValueError, match="render_viewer 'blue'.*player_0"):
        skirmish_v0.env(render_viewer="blue")


# ------------------------------------------------------------------ rules
def test_rules_as_a_dict_lay_over_the_scenarios_suggestions():
    assert skirmish_v0.raw_env().config.sequence == "deck"  # ww2_squads suggests the seed's deck
    assert skirmish_v0.raw_env(rules={"sequence": "phases"}).config.sequence == "phases"
    e = skirmish_v0.raw_env(scenario="duel", rules={"melee": "opposed", "skills": "generic"})
    e.reset(seed=0)
    assert e.game.rules == SkirmishRules(melee="opposed", skills="generic")
    given = SkirmishRules(sequence="phases")
    assert skirmish_v0.raw_env(rules=given).config is given  # a SkirmishRules is played as it is


@pytest.mark.parametrize("rules, match", [
    ({"sequense": "deck"}, "sequense"),
    ({"sequence": "cards"}, "sequence"),
    ({"prone_cover": "yes"}, "prone_cover"),
])
@pytest.mark.parametrize("scenario", ["duel", "random"])
def test_a_bad_rule_option_is_a_one_line_skirmish_rules_error(rules, match, scenario):
    with pytest.raises(SkirmishRulesError, match=match) as err:
        skirmish_v0.env(scenario=scenario, rules=rules)
    assert "\n" not in str(err.value)
    assert isinstance(err.value, ValueError)


# ------------------------------------------------------------------ observations, masks, rewards
def _random_game(e, seed: int, max_steps: int | None = None):
    """Yield before every step of a random game of raw env ``e``."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    n = 0
    while not e.game.is_terminal() and (max_steps is None or n < max_steps):
        yield n
        legal = e.game.legal_actions()
        e.step(int(legal[rng.integers(len(legal))]))
        n += 1


@pytest.mark.parametrize("kwargs", SETUPS)
def test_observation_in_the_space_and_only_the_agent_to_act_has_a_mask(kwargs):
    e = skirmish_v0.raw_env(**kwargs)
    steps = 0
    for n in _random_game(e, seed=5, max_steps=300):
        cur = e.agent_selection
        assert cur == skirmish_v0.AGENTS[e.game.current_player]
        other = [a for a in e.agents if a != cur][0]
        for agent in (cur, other):
            o = e.observe(agent)
            obs = o["observation"]
            assert obs.shape == OBS_SHAPE and obs.dtype == np.float32
            assert obs.min() >= 0.0 and obs.max() <= 1.0, f"step {n}: {agent}'s observation outside [0, 1]"
            assert e.observation_space(agent).contains(o)
        mask = e.observe(cur)["action_mask"]
        assert np.flatnonzero(mask).tolist() == e.game.legal_actions() and mask.sum() >= 1
        assert e.observe(other)["action_mask"].sum() == 0
        steps = n
    assert steps > 20


def test_the_observation_shows_the_decision_being_asked():
    e = skirmish_v0.raw_env(scenario="duel")
    e.reset(seed=3)
    seat = e.game.current_player
    obs = planes_of(e.observe(skirmish_v0.AGENTS[seat])["observation"])
    other = planes_of(e.observe(skirmish_v0.AGENTS[1 - seat])["observation"])
    d = e.game.decision
    step = f"step_{d.step.name.lower()}"
    assert obs[PLANES.index("my_decision")].min() == 1 and obs[PLANES.index(step)].min() == 1
    assert other[PLANES.index("my_decision")].max() == 0 and other[PLANES.index(step)].max() == 0
    acting = np.flatnonzero(obs[PLANES.index("acting_unit")]).tolist()
    assert acting == [e.game.units[d.unit].cell]
    own = set(np.flatnonzero(obs[PLANES.index("own_figure")]).tolist())
    assert own == {u.cell for u in e.game.soldiers(seat)}


def test_the_observation_is_rows_columns_planes():
    """observation[row, col, plane], the hex at ``cell = row * 24 + col`` (RULES.md §1.1's odd-r grid), read by
    plain indexing: each figure's own hex and no other carries its side's figure plane."""
    e = skirmish_v0.raw_env(scenario="ww2_squads")
    e.reset(seed=4)
    seat = e.game.current_player
    obs = e.observe(skirmish_v0.AGENTS[seat])["observation"]
    figure = PLANES.index("own_figure")
    cells = {u.cell for u in e.game.soldiers(seat)}
    assert len(cells) > 3
    assert {r * 24 + c for r in range(16) for c in range(24) if obs[r, c, figure] == 1} == cells
    ground = [PLANES.index(p) for p in PLANES if p.startswith("ground_")]
    assert (obs[:, :, ground].sum(axis=2) == 1).all()  # each hex exactly one ground, channels last


def test_rewards_are_plus_minus_one_at_the_end_and_match_the_engine():
    for seed in range(3):
        e = skirmish_v0.env(scenario="duel")
        e.reset(seed=seed)
        rng = np.random.default_rng(seed)
        totals = dict.fromkeys(e.possible_agents, 0.0)
        for agent in e.agent_iter():
            obs, rew, term, trunc, info = e.last()
            totals[agent] += rew
            if term or trunc:
                assert info["result"] == e.unwrapped.game.result
                e.step(None)
                continue
            e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        s = e.unwrapped.game
        assert s.is_terminal() and [totals["player_0"], totals["player_1"]] == s.returns()
        assert sorted(totals.values()) in ([-1.0, 1.0], [0.0, 0.0])


def test_raw_env_refuses_an_illegal_action_with_the_engines_error():
    e = skirmish_v0.raw_env(scenario="duel")
    e.reset(seed=0)
    legal = set(e.game.legal_actions())
    illegal = next(a for a in range(N_ACTIONS) if a not in legal)
    with pytest.raises(SkirmishIllegalActionError, match="not legal"):
        e.step(illegal)


# ------------------------------------------------------------------ hidden orders (RULES.md §9.1)
def _copy(e):
    """A raw env at the same position as ``e`` (an env's deepcopy rebuilds it from its arguments, unreset)."""
    out = skirmish_v0.raw_env(scenario=e.fixed_scenario, rules=e.config)
    out.reset(seed=0)
    out.game = e.game.clone()
    out.agent_selection = skirmish_v0.AGENTS[out.game.current_player]
    return out


def _declaring_env(seed: int, skip: int, rules: dict | None = None):
    """A phases game at the first step of the ``skip``-th declaration (movement or combat) that player_0 begins."""
    e = skirmish_v0.raw_env(scenario="ww2_squads", rules={"sequence": "phases", **(rules or {})})
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    previous = None
    for _ in range(5000):
        s = e.game
        if s.stage in ("declare_move", "declare_combat") and s.stage != previous and s.current_player == 0:
            if skip == 0:
                return e, s.stage
            skip -= 1
        previous = s.stage
        legal = s.legal_actions()
        e.step(int(legal[rng.integers(len(legal))]))
        if e.game.is_terminal():
            break
    pytest.skip("the game ended first")


@pytest.mark.parametrize("seed, skip, rules", [(0, 0, None), (1, 1, None), (2, 2, None), (3, 3, None),
                                               (4, 4, {"king_and_country": True}), (5, 2, {"king_and_country": True})])
def test_seat_1_observes_the_same_whatever_seat_0_declares(seed, skip, rules):
    """Every observation of player_1 while player_0 declares, and when its own turn to declare comes, is the same
    for any declarations of player_0 (a King played included): the orders are hidden until both sides have
    declared."""
    base, stage = _declaring_env(seed, skip, rules)
    first = base.observe("player_1")["observation"]
    at_handover, own_at_handover = [], []
    for k in range(8):
        e = _copy(base)
        rng = np.random.default_rng(100 + k)
        while e.game.current_player == 0 and e.game.stage == stage:
            assert np.array_equal(e.observe("player_1")["observation"], first), "player_1 saw a hidden order"
            legal = e.game.legal_actions()
            e.step(int(legal[rng.integers(len(legal))]))
        assert e.game.stage == stage and e.game.current_player == 1, "player_1 declares after player_0"
        at_handover.append(e.observe("player_1")["observation"])
        own_at_handover.append(e.observe("player_0")["observation"])
    for obs in at_handover[1:]:
        assert np.array_equal(obs, at_handover[0]), "player_1's view at its own declaration depends on player_0's"
    assert any(not np.array_equal(o, own_at_handover[0]) for o in own_at_handover), "player_0 declared alike"
    # ... while player_0's own observation does show what it declared
    e = _copy(base)
    legal = e.game.legal_actions()
    before = e.observe("player_0")["observation"]
    e.step(int(legal[-1]))
    assert not np.array_equal(e.observe("player_0")["observation"], before)


# ------------------------------------------------------------------ notation, page
def test_notation_round_trips_every_id():
    for a in range(N_ACTIONS):
        assert string_to_action(action_to_string(a)) == a
    with pytest.raises(ValueError, match="neither a hex"):
        string_to_action("charge!")


def test_every_code_line_of_the_page_runs(capsys):
    run_page_code("skirmish_v0", skirmish_v0.__doc__)


def test_the_pages_tables_are_the_encoders():
    doc = skirmish_v0.__doc__
    planes = table_with(doc, "values")
    assert [int(r["plane"]) for r in planes] == list(range(NUM_PLANES))
    assert [r["name"] for r in planes] == PLANES and all(r["meaning"] for r in planes)
    rows = table_with(doc, "notation")
    ids = [a for r in rows for a in id_span(r["ids"])]
    assert ids == list(range(N_ACTIONS)) and len(rows) == len(action_table())
    for r in rows:
        for a in id_span(r["ids"]):
            if r["kind"] != "hex":
                assert action_to_string(a) in r["meaning"].split(", ")


def test_parallel_env_is_reachable_from_the_aec_module():
    par = skirmish_v0.parallel_env(scenario="duel")
    observations, _ = par.reset(seed=0)
    assert set(observations) == set(par.agents) and par.agents


# ------------------------------------------------------------------ the arena
def test_an_arena_game_between_random_agents():
    from cardwar.agents import RandomAgent
    from cardwar.arena import play_game

    out = play_game(make_raw_env("skirmish", "duel"), (RandomAgent("skirmish", 1), RandomAgent("skirmish", 2)), 7,
                    game="skirmish", forfeits=False)
    assert out.forfeit is None and out.length > 20
    assert sorted(out.returns) in ([-1.0, 1.0], [0.0, 0.0])
    rec = out.record
    assert rec.game == "skirmish" and list(rec.players) == ["player_0", "player_1"]
    assert rec.result["returns"] == out.returns and rec.rules["sequence"] == "phases"
    assert all(string_to_action(m.move) >= 0 for m in rec.moves)


def test_the_arena_hides_each_skirmish_move_from_the_other_seat():
    """The other seat reads ``?`` for a move, and nothing at all for a hidden declaration step that caused nothing
    public: how many steps a side took to declare would tell which of its figures stayed (RULES.md §9.1)."""
    from cardwar.arena.table import Table

    t = Table(make_raw_env("skirmish", "duel"), "skirmish", seed=4)
    rng = np.random.default_rng(4)
    told = silent = 0
    for _ in range(300):
        if t.over:
            break
        seat, stage = t.to_move, t.state.stage
        counts = [len(t.history[0]), len(t.history[0].moves), len(t.history[1]), len(t.history[1].moves)]
        legal = t.legal()
        a = int(legal[rng.integers(len(legal))])
        lines = t.play(a)
        assert t.history[seat].moves[-1]["move"] == action_to_string(a)
        assert t.history[seat][-1].split("; ")[0] == action_to_string(a)
        other = t.history[1 - seat]
        if len(other) == counts[2 - 2 * seat]:  # not told
            assert stage in ("declare_move", "declare_combat") and lines == [f"{skirmish_v0.AGENTS[seat]} decides"]
            assert len(other.moves) == counts[3 - 2 * seat]
            silent += 1
        else:
            assert other.moves[-1]["move"] == HIDDEN
            assert other[-1].split("; ")[0] == f"{skirmish_v0.AGENTS[seat]} decides"
            told += 1
    assert told and silent


def test_the_declaration_steps_are_the_engines():
    """The env asks what the engine asks: the first decision of a phases game is a movement mode."""
    e = skirmish_v0.raw_env(scenario="duel")
    e.reset(seed=0)
    assert e.game.decision.step == Step.MODE and e.game.stage == "declare_move"


def test_cardwar_bench_plays_the_skirmish_beside_connect_four():
    from cardwar.cli import bench

    assert {"skirmish_v0", "connect_four_v3"} <= set(bench.ENVS)
    steps, elapsed, games = bench.random_play(bench.ENVS["skirmish_v0"](), 0.3, seed=0)
    assert steps > 0 and elapsed > 0


@pytest.mark.parametrize("kwargs", [{"scenario": "woods_and_craters"}, {"scenario": "panzer_road"}])
def test_enemies_appear_where_seen_now_or_last_seen_and_nowhere_else(kwargs):
    e = skirmish_v0.raw_env(**kwargs)
    checked_unseen = 0
    for n in _random_game(e, seed=2, max_steps=400):
        s = e.game
        for seat, agent in enumerate(skirmish_v0.AGENTS):
            obs = planes_of(e.observe(agent)["observation"])
            enemies = [u for u in s.units if u.side != seat and u.on_table]
            seen = {u.cell for u in enemies if u.uid in s.seen[seat] and isinstance(u, Soldier)}
            assert set(np.flatnonzero(obs[PLANES.index("enemy_figure")]).tolist()) == seen, f"step {n}"
            shown = set(np.flatnonzero(obs[PLANES.index("enemy_figure")] + obs[PLANES.index("enemy_last_seen")]
                                       + obs[PLANES.index("enemy_vehicle")]
                                       + obs[PLANES.index("enemy_vehicle_last_seen")]).tolist())
            hidden = {u.cell for u in enemies if u.uid not in s.seen[seat]} - set(s.last_seen[seat].values())
            checked_unseen += len(hidden)
            assert not shown & hidden, f"step {n}: {agent} sees an enemy it does not see"
    assert checked_unseen > 0


def test_random_train_and_random_test_are_disjoint_halves_of_the_generator():
    names = {}
    for split in ("random:train", "random:test"):
        e = skirmish_v0.raw_env(scenario=split)
        names[split] = set()
        for seed in range(12):
            e.reset(seed=seed)
            gen_seed = int(e.scenario.name.rsplit("_", 1)[1])
            assert gen_seed % 2 == (split == "random:test")
            names[split].add(e.scenario.name)
    assert len(names["random:train"]) > 8 and not names["random:train"] & names["random:test"]


@pytest.mark.parametrize("name", ["ww2_squads", "panzer_road", "woods_and_craters"])
def test_edge_planes_show_each_edge_from_both_of_its_hexes(name):
    from cardwar.envs.skirmish.actions import GRID
    from cardwar.envs.skirmish.board import Edge
    from cardwar.envs.skirmish.scenario import DIRECTION_NAMES, load_scenario

    sc = load_scenario(name)
    e = skirmish_v0.raw_env(scenario=sc)
    e.reset(seed=0)
    obs = planes_of(e.observe("player_1")["observation"])
    kinds = {Edge.WALL_LOW: "wall_low", Edge.WALL_HIGH: "wall_high", Edge.HEDGE_LOW: "hedge_low",
             Edge.HEDGE_HIGH: "hedge_high", Edge.DOOR_OPEN: "door", Edge.DOOR_CLOSED: "door", Edge.WINDOW: "window",
             Edge.BUILDING_WALL: "building_wall", Edge.EMBRASURE: "embrasure"}
    edge_planes = [k for k, p in enumerate(PLANES) if p.startswith("edge_")]
    expected = np.zeros((len(edge_planes), obs.shape[1]))
    for c in range(obs.shape[1]):
        for d, n in enumerate(GRID.steps(c)):
            if 0 <= n < obs.shape[1]:
                kind = kinds.get(sc.board.edge(c, n))
                if kind:
                    expected[edge_planes.index(PLANES.index(f"edge_{kind}_{DIRECTION_NAMES[d]}")), c] = 1
    assert np.array_equal(obs[edge_planes], expected) and expected.sum() > 10
    for a, b, kind in sc.edges:  # the scenario's own list, read from both sides
        if kind.startswith(("wall", "hedge", "window")):
            for x, y in ((a, b), (b, a)):
                d = GRID.steps(x).index(y)
                assert obs[PLANES.index(f"edge_{kind}_{DIRECTION_NAMES[d]}"), x] == 1


def test_an_arena_record_of_a_skirmish_replays_to_its_result():
    from cardwar.agents import RandomAgent
    from cardwar.arena import play_game
    from cardwar.record import GameRecord, RecordError, final_state

    out = play_game(make_raw_env("skirmish", "duel", {"melee": "opposed"}),
                    (RandomAgent("skirmish", 3), RandomAgent("skirmish", 4)), 11, game="skirmish", scenario="duel",
                    forfeits=False)
    rec = GameRecord.from_json(out.record.to_json())
    assert rec.scenario == "duel" and rec.rules["melee"] == "opposed"
    s = final_state(rec)
    assert s.is_terminal() and s.returns() == out.returns
    bad = GameRecord.from_json(out.record.to_json().replace(f'"move": "{rec.moves[0].move}"', '"move": "X16"', 1))
    with pytest.raises(RecordError, match=r"moves\[0\].*not legal"):
        final_state(bad)
