"""The skirmish's Parallel env, one agent per figure (RULES.md §9.1): PettingZoo's own checks, random games
to the end in both sequences, team rewards, agents leaving, the simultaneous declarations, and hidden
information (an agent's observation holds no enemy its side does not see or last saw, §9.2)."""

from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import parallel_api_test  # noqa: E402

from cardwar.envs.skirmish.actions import CHOICE, N_CELLS, Step  # noqa: E402
from cardwar.envs.skirmish.figure_obs import (  # noqa: E402
    N_PLANES, OBS_SIZE, PLANE_INDEX, SCALAR_INDEX, encode_figure)
from cardwar.envs.skirmish_parallel import NOOP, N_SPACE, parallel_env, side_names  # noqa: E402

ENEMY_PLANES = ("enemy_seen", "enemy_vehicle_seen", "enemy_last_seen", "enemy_down", "enemy_watching",
                "enemy_destination")


def planes(obs: np.ndarray) -> np.ndarray:
    return obs["observation"][:N_PLANES * N_CELLS].reshape(N_PLANES, N_CELLS)


def scalar(obs: dict, name: str) -> float:
    return float(obs["observation"][N_PLANES * N_CELLS + SCALAR_INDEX[name]])


def random_actions(env, obs: dict, rng: np.random.Generator) -> dict[str, int]:
    return {a: int(rng.choice(np.flatnonzero(obs[a]["action_mask"]))) for a in env.agents}


def play(env, seed: int, check=None) -> dict:
    """A random game with masks to the end; returns the totals and what happened."""
    obs, infos = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    totals = {a: 0.0 for a in env.possible_agents}
    left: dict[str, int] = {}
    cycles = 0
    while env.agents:
        before = list(env.agents)
        obs, rewards, terms, truncs, infos = env.step(random_actions(env, obs, rng))
        cycles += 1
        assert set(obs) == set(rewards) == set(terms) == set(truncs) == set(infos) == set(before)
        assert not any(i["illegal"] for i in infos.values())
        for a, r in rewards.items():
            totals[a] += r
            if terms[a] or truncs[a]:
                left[a] = cycles
                assert a not in env.agents
            else:
                assert a in env.agents
        if check is not None:
            check(env, obs)
    return {"totals": totals, "left": left, "cycles": cycles}


# ----------------------------------------------------------------------------- PettingZoo's checks
@pytest.mark.parametrize("rules", [None, {"sequence": "deck"}])
def test_parallel_api_test(rules):
    env = parallel_env(scenario="duel", rules=rules)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # every warning of the test is a failure: a live agent without obs...
        parallel_api_test(env, num_cycles=120)


def test_parallel_api_test_with_a_vehicle():
    parallel_api_test(parallel_env(scenario="panzer_road"), num_cycles=80)


def test_parallel_seed_test():
    from pettingzoo.test import parallel_seed_test

    parallel_seed_test(lambda: parallel_env(scenario="duel"), num_cycles=30)
    parallel_seed_test(lambda: parallel_env(scenario="duel", rules={"sequence": "deck"}), num_cycles=30)


def test_same_seed_same_game_and_state_in_its_space():
    runs = []
    for _ in range(2):
        env = parallel_env(scenario="woods_and_craters")
        obs, _ = env.reset(seed=7)
        rng = np.random.default_rng(3)
        trace = []
        for _ in range(12):
            if not env.agents:
                break
            obs, rewards, *_ = env.step(random_actions(env, obs, rng))
            state = env.state()
            assert env.state_space.contains(state)
            trace.append((sorted((a, o["observation"].tobytes(), o["action_mask"].tobytes())
                                 for a, o in obs.items()), state.tobytes()))
        runs.append(trace)
        assert env.reasked == 0
    assert runs[0] == runs[1]


def test_the_global_state_passes_pettingzoos_state_check_and_knows_what_no_side_sees():
    from pettingzoo.test.state_test import test_parallel_env as pettingzoo_state_check

    env = parallel_env(scenario="woods_and_craters")
    pettingzoo_state_check(env, seed=3)
    s = env.game
    hidden = [u for u in s.units if u.uid not in s.seen[1 - u.side]]
    assert hidden  # the patrols start out of each other's sight
    before = env.state()
    u = hidden[0]
    free = next(c for c in s.scenario.board.neighbours(u.cell) if s.unit_at(c) is None)
    u.cell = free
    assert not np.array_equal(before, env.state())


# ----------------------------------------------------------------------------- agents and spaces
def test_agents_are_named_by_side_and_index():
    env = parallel_env(scenario="panzer_road")
    sc = env.scenario
    assert side_names(sc) == ("american", "german")
    assert len(env.possible_agents) == len(sc.figures) + len(sc.vehicles)
    for agent in env.possible_agents:
        uid = env.unit_of(agent)
        assert env.agent_of(uid) == agent
        side, index = agent.rsplit("_", 1)
        assert side == ("american", "german")[env.side_of(agent)]
        same_side = [a for a in env.possible_agents if env.side_of(a) == env.side_of(agent)]
        assert same_side.index(agent) == int(index)
    tank = env.agent_of(len(sc.figures))  # vehicles come after the figures
    assert tank == f"german_{sum(1 for f in sc.figures if f.side == 1)}"
    assert env.observation_space("american_0") is env.observation_space("american_0")
    assert env.action_space("german_0") is env.action_space("german_0")
    assert env.action_space("german_0").n == N_SPACE == NOOP + 1
    assert env.observation_space("german_0")["observation"].shape == (OBS_SIZE,)


def test_every_observation_is_in_its_space_and_the_no_op_is_legal_only_with_nothing_to_decide():
    env = parallel_env(scenario="duel")

    def check(env, obs):
        for a in env.agents:
            o = obs[a]
            assert env.observation_space(a).contains(o)
            asked = env.question(a) is not None
            assert bool(o["action_mask"][NOOP]) != asked
            assert scalar(o, "asked") == float(asked)
            if asked:
                assert o["action_mask"].sum() >= 1
                assert scalar(o, f"step_{env.question(a)[0].name.lower()}") == 1.0
            else:
                assert o["action_mask"].sum() == 1

    play(env, 0, check)


# ----------------------------------------------------------------------------- simultaneous declarations
def test_every_figure_declares_at_once_in_the_phases():
    env = parallel_env(scenario="ww2_squads", rules={"sequence": "phases"})
    obs, _ = env.reset(seed=1)
    assert env.game.stage == "declare_move"
    assert all(env.question(a)[0] == Step.MODE for a in env.agents)  # all figures of both sides asked at once
    stay = CHOICE["stay"]
    obs, *_ = env.step({a: stay for a in env.agents})
    assert all(env.question(a)[0] == Step.STANCE for a in env.agents)
    assert all(scalar(obs[a], "chose_stay") == 1.0 for a in env.agents)
    # half walk, half stay: the walkers are asked their destination, the others their stance, together
    env.reset(seed=1)
    walk = CHOICE["walk"]
    walkers = [a for a in env.agents if walk in env.question(a)[1]][::2]
    env.step({a: walk if a in walkers else stay for a in env.agents})
    assert walkers
    for a in env.agents:
        assert env.question(a)[0] == (Step.DESTINATION if a in walkers else Step.STANCE)


def test_a_walk_takes_three_parallel_steps_and_then_combat_is_declared_at_once():
    env = parallel_env(scenario="duel", rules={"visibility": "open"})
    obs, _ = env.reset(seed=2)
    stages = []
    for _ in range(3):
        actions = {}
        for a in env.agents:
            step, legal = env.question(a)
            want = {Step.MODE: CHOICE["walk"], Step.STANCE: CHOICE["kneeling"]}.get(step)
            actions[a] = want if want in legal else legal[0]
        env.step(actions)
        stages.append(env.game.stage)
    assert stages[:2] == ["declare_move", "declare_move"]
    assert env.game.stage in ("declare_combat", "moving", "after_move_fire")
    if env.game.stage == "declare_combat":
        asked = [a for a in env.agents if env.question(a) is not None]
        assert len(asked) > 1 and all(env.question(a)[0] == Step.ACTION for a in asked)


def test_the_deck_asks_only_the_activated_figure():
    env = parallel_env(scenario="duel", rules={"sequence": "deck"})

    def check(env, obs):
        asked = [a for a in env.agents if env.question(a) is not None]
        assert len(asked) <= 1
        if asked and env.game.stage == "activate":
            card = env.game.card
            uid = env.unit_of(asked[0])
            if card[0] == "team":
                assert env.game.units[uid].team == card[2] and env.side_of(asked[0]) == card[1]

    out = play(env, 0, check)
    assert env.game.is_terminal() or out["cycles"] >= env.max_cycles


@pytest.mark.parametrize("rules", [{"sequence": "deck", "free_move": "figure"},
                                   {"sequence": "deck", "deck_cards": "figures", "deck_opportunity_fire": True}])
def test_deck_variants_play_to_the_end(rules):
    for seed in range(2):
        env = parallel_env(scenario="duel", rules=rules)
        play(env, seed)
        assert env.game.is_terminal()


# ----------------------------------------------------------------------------- games to the end, rewards, leaving
@pytest.mark.parametrize("scenario,rules", [
    ("ww2_squads", {"sequence": "phases"}), ("woods_and_craters", None), ("panzer_road", None),
    ("duel", {"opportunity_fire": "after_move"}),
    ("woods_and_craters", {"sequence": "deck"}), ("panzer_road", {"sequence": "deck"}),
])
def test_random_games_end_with_team_rewards_for_every_agent(scenario, rules):
    for seed in range(3):
        env = parallel_env(scenario=scenario, rules=rules)
        out = play(env, seed)
        s = env.game
        assert s.is_terminal()
        returns = s.returns()
        assert env.team_returns == {a: returns[env.side_of(a)] for a in env.possible_agents}
        final = out["cycles"]
        for a in env.possible_agents:  # every agent stays to the end (RULES.md §9.2) and gets its team's result
            assert out["left"][a] == final
            assert out["totals"][a] == returns[env.side_of(a)]
        assert env.reasked == 0  # every question foreseen for a figure still to declare was the engine's
        if seed:  # fewer seeds for the long deck games
            break


def test_picture_cards_play_to_the_end_even_when_two_figures_want_the_same_king():
    """With Kings, two figures may both play the side's one King in the same declaration: the second is
    asked again, and nothing illegal reaches the engine."""
    rules = {"sequence": "phases", "king_and_country": True, "lady_luck": True, "knave_events": True}
    for seed in range(3):
        env = parallel_env(scenario="ww2_squads", rules=rules)
        play(env, seed)
        assert env.game.is_terminal()


def test_a_generated_map_is_played_when_given_as_a_scenario():
    from cardwar.envs.skirmish.generator import generate

    scenario = generate(5)
    env = parallel_env(scenario=scenario, rules={"sequence": "phases"})
    assert len(env.possible_agents) == len(scenario.figures) + len(scenario.vehicles)
    play(env, 0, _check_hidden)
    assert env.game.is_terminal() and env.reasked == 0


def test_a_figure_out_of_action_stays_and_no_ops_so_its_loss_is_not_told():
    """RULES.md §9.2, issue 27: the agent list and terminations are given to both sides, so an unseen figure's
    loss must not show there; a figure out of action stays, asked nothing, its mask the no-op alone."""
    env = parallel_env(scenario="woods_and_craters")
    seen_down = False
    for seed in range(6):
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while env.agents:
            before = list(env.agents)
            obs, rewards, terms, truncs, infos = env.step(random_actions(env, obs, rng))
            over = env.game.is_terminal()
            assert all(t == over for t in terms.values())
            if not over and not any(truncs.values()):
                assert env.agents == before
            for a in env.agents:
                if not env.game.units[env.unit_of(a)].active:
                    seen_down = True
                    assert env.question(a) is None
                    assert np.flatnonzero(obs[a]["action_mask"]).tolist() == [NOOP]
        if seen_down:
            break
    assert seen_down


def test_max_cycles_truncates_everyone():
    env = parallel_env(scenario="ww2_squads", max_cycles=3)
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    for k in range(3):
        n = len(env.agents)
        obs, rewards, terms, truncs, infos = env.step(random_actions(env, obs, rng))
        assert len(truncs) == n
    assert all(truncs.values()) and not any(terms.values()) and env.agents == []
    assert all(r == 0.0 for r in rewards.values())
    assert env.step({}) == ({}, {}, {}, {}, {})


# ----------------------------------------------------------------------------- illegal actions
def test_an_illegal_action_plays_the_first_legal_one_and_is_reported():
    env = parallel_env(scenario="duel")
    env.reset(seed=0)
    a, b = env.agents[0], env.agents[1]
    first_legal = env.question(a)[1][0]
    obs, rewards, terms, truncs, infos = env.step({a: NOOP, b: 999_999})  # the rest: missing, so no-ops too
    assert infos[a]["illegal"] and infos[b]["illegal"]
    assert all(infos[x]["illegal"] for x in env.agents)  # every agent was asked at the first step
    assert first_legal == CHOICE["stay"]  # the lowest id of a mode question
    assert env.question(a)[0] == Step.STANCE  # so it stays, and is asked its stance next
    # now someone with nothing to decide sends a real action: ignored, reported
    env.reset(seed=0)
    for _ in range(40):
        idle = [x for x in env.agents if env.question(x) is None]
        if idle:
            break
        env.step({x: env.question(x)[1][0] for x in env.agents})
    if idle:
        acts = {x: (env.question(x)[1][0] if env.question(x) else NOOP) for x in env.agents}
        acts[idle[0]] = CHOICE["stay"]
        _, _, _, _, infos = env.step(acts)
        assert infos[idle[0]]["illegal"]


# ----------------------------------------------------------------------------- hidden information
def _enemy_cells(view) -> set[int]:
    return {u.cell for u in view.units if u.side != view.seat}


def _check_hidden(env, obs) -> None:
    s = env.game
    for a in env.agents:
        seat = env.side_of(a)
        view = env.view(a)
        p = planes(obs[a])
        allowed = _enemy_cells(view)
        destinations = {(u.order or {}).get("destination") for u in view.units if u.side != seat}
        for name in ENEMY_PLANES:
            marked = set(np.flatnonzero(p[PLANE_INDEX[name]]).tolist())
            ok = allowed | destinations if name == "enemy_destination" else allowed
            assert marked <= ok, (a, name, marked - ok)
        known = {u.uid for u in view.units}
        for u in s.units:
            if u.side != seat and u.uid not in known and u.on_table:
                for name in ENEMY_PLANES:
                    assert p[PLANE_INDEX[name], u.cell] == 0.0 or u.cell in allowed


@pytest.mark.parametrize("rules", [None, {"sequence": "deck"}])
def test_an_observation_never_shows_an_enemy_its_side_does_not_know(rules):
    env = parallel_env(scenario="woods_and_craters", rules=rules)
    play(env, 1, _check_hidden)


def test_moving_an_unseen_enemy_changes_no_observation():
    env = parallel_env(scenario="ww2_squads")
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    tested = 0
    while env.agents and tested < 5:
        s = env.game
        for a in env.agents[:4]:
            seat = env.side_of(a)
            unseen = [u for u in s.units if u.side != seat and u.uid not in s.seen[seat]
                      and u.uid not in s.last_seen[seat] and u.on_table]
            free = [c for c in range(N_CELLS) if s.scenario.board.ground[c].name != "OFF" and s.unit_at(c) is None]
            if not unseen or not free:
                continue
            before = env._observe(a)["observation"]
            moved = copy.deepcopy(s)
            moved.units[unseen[0].uid].cell = free[len(free) // 2]
            view = moved.information_view(seat)
            q = env.question(a)
            after = encode_figure(view, env.scenario, env.unit_of(a), step=q[0] if q else None,
                                  chosen=env._consumed.get(env.unit_of(a), []) + env._buffer.get(env.unit_of(a), []))
            assert np.array_equal(before, after)
            tested += 1
        obs, *_ = env.step(random_actions(env, obs, rng))
    assert tested


def test_the_scenario_suggests_options_and_the_rules_given_win():
    assert parallel_env(scenario="ww2_squads").rules.sequence == "deck"  # ww2_squads.yaml suggests the deck
    assert parallel_env(scenario="ww2_squads", rules={"sequence": "phases"}).rules.sequence == "phases"
    assert parallel_env(scenario="duel").rules.sequence == "phases"


def test_render_shows_the_board_and_every_agents_question():
    env = parallel_env(scenario="duel", render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    assert "Duel" in text and all(a in text for a in env.possible_agents) and "asked mode" in text
    assert parallel_env(scenario="duel").render() is None
    with pytest.raises(ValueError):
        parallel_env(scenario="duel", render_mode="rgb_array")


def test_the_doc_page_is_filled():
    from cardwar.envs import skirmish_parallel

    assert "{{" not in skirmish_parallel.__doc__
    assert "own_answer" in skirmish_parallel.__doc__
