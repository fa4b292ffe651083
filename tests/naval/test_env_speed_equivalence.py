"""Issue 22, env speed: the fast paths of naval-v0/v1 give exactly what the straightforward code gave.

Each fast path (the tabled observation encoder, the ACTION phase's legal moves in parts, naval-v1's steps
read from those parts, the view built without NamedTuple's ``__new__``, the env's mask and result copy)
is compared, over many random positions and several rule sets, with a reference written here the plain
way: the encoders and tables as they were before issue 22. Observations are compared bit for bit.
"""

from __future__ import annotations

import copy

import numpy as np
import pytest

from cardwar.envs import naval_v0, naval_v1
from cardwar.envs.naval import NavalConfig, NavalState
from cardwar.envs.naval.actions import ATTACK_LINE_BASE, DEFEND_BASE, KEEP, MULLIGAN, NODEFEND, PASS, SINK_BASE
from cardwar.envs.naval.battle import special_attack_allowed
from cardwar.envs.naval.cards import NUM_CARDS
from cardwar.envs.naval.observation import GLOBAL_OFFSET, OBS_SIZE, UNSEEN_OFFSET, ZONE_FEATURES, ZONES_OFFSET
from cardwar.envs.naval.observation import encode_observation
from cardwar.envs.naval.seemap import NEIGHBOURS, NUM_ZONES, is_horizontal, zone_at
from cardwar.envs.naval.state import Phase
from cardwar.envs.naval.steps import NUM_STEPS, STEPS_OF, StepState, steps_to_action
from cardwar.envs.naval.view import NavalView, PublicAttack
from cardwar.envs.turn_based_env import copy_result

CONFIGS = [
    {},
    {"broadside_empty_deck": "two_cards", "deck_out": "immediate", "royal_flush": "any_pair", "bastion": "any_attack"},
    {"supply_cut": "always", "royal_flush": "winner_adjacent", "blockade": "all_zones", "mulligan": False,
     "hand_size": 4, "first_player": "B"},
]


# ---------------------------------------------------------------- references (the code before issue 22)
def reference_encode(v: NavalView) -> np.ndarray:
    """The observation encoder feature by feature, as it was before the tables."""
    obs = np.zeros(OBS_SIZE, dtype=np.float32)
    me = v.seat
    idx = list(v.hand)
    for z in range(9):
        o = v.board_owner[z]
        if o < 0:
            continue
        c = v.board_card[z]
        mine = o == me
        idx.append((NUM_CARDS if mine else 2 * NUM_CARDS) + c)
        base = ZONES_OFFSET + z * ZONE_FEATURES
        idx += [base + (0 if mine else 1), base + 2 + c % 13, base + 15 + c // 13]
    idx += [3 * NUM_CARDS + c for c in v.discards]
    idx += [4 * NUM_CARDS + c for c in v.mulligan_shown]
    g = GLOBAL_OFFSET
    if me is not None:
        idx.append(g + me)
        if v.current == me:
            idx.append(g + 2)
        if v.active == me:
            idx.append(g + 3)
    idx.append(g + 4 + int(v.phase))
    pa = v.pending
    if pa is not None:
        if pa.own_card >= 0:
            idx.append(5 * NUM_CARDS + pa.own_card)
        idx.append(g + 17)
        if pa.attacker == me:
            idx.append(g + 18)
        idx += [g + 19 + pa.src, g + 28 + pa.dst, g + 37 + int(pa.style)]
        if pa.deck_card_drawn:
            idx.append(g + 40)
    idx += [g + 41 + z for z in v.royal_flush_candidates]
    if me is not None and v.mulligan_choices[me] is not None:
        idx.append(g + 50)
        if v.mulligan_choices[me]:
            idx.append(g + 51)
    seen = set(v.hand)
    seen.update(v.board_card)
    seen.update(v.discards)
    if pa is not None:
        seen.add(pa.own_card)
    idx += [UNSEEN_OFFSET + c for c in range(NUM_CARDS) if c not in seen]
    obs[idx] = 1.0
    other = 0 if me is None else 1 - me
    obs[g + 9:g + 17] = (v.actions_taken / 2, v.deployed, v.attacked, v.turn == 1, min(v.turn / 20, 1.0),
                         min(v.deck_count / 38, 1.0), min(len(v.hand) / 26, 1.0),
                         min(v.hand_counts[other] / 26, 1.0))
    return obs


def reference_view(s: NavalState, seat: int | None) -> NavalView:
    """The view built through the NamedTuple's own constructor."""
    pending = None
    if s.pending is not None:
        pa = s.pending
        pending = PublicAttack(pa.attacker, pa.src, pa.dst, pa.style,
                               pa.attack_card if seat == pa.attacker else -1, pa.deck_card >= 0)
    mc = (tuple(c if p == seat else None for p, c in enumerate(s.mulligan_choices)) if s.phase == Phase.MULLIGAN
          else tuple(s.mulligan_choices))
    return NavalView(seat, s.phase, s.active, s.current, s.first_player, s.turn, s.actions_taken, s.deployed,
                     s.attacked, tuple(s.hands[seat]) if seat is not None else (), tuple(s.owner), tuple(s.ship),
                     tuple(s.discards), len(s.deck), (len(s.hands[0]), len(s.hands[1])), pending, mc,
                     tuple(s.mulligan_shown), tuple(s.rf_candidates), s.last_battle, s.winner,
                     copy.deepcopy(s.result) if s.result is not None else None, s.config,
                     (s.rf_picks_left, s.rf_cut, s.rf_loser, s.rf_winner_zone))


def reference_legal(s: NavalState) -> list[int]:
    """The engine's legal moves, generated in one pass as before the ACTION phase's parts."""
    phase, p = s.phase, s.current
    if phase == Phase.ACTION:
        hand = sorted(s.hands[p])
        acts = []
        if not s.deployed and hand:
            zones = []
            for lane in range(3):
                for d in range(3):
                    z = zone_at(p, lane, d)
                    if s.owner[z] != p:
                        if s.owner[z] == -1:
                            zones.append(z)
                        break
            acts += [c * NUM_ZONES + z for c in hand for z in sorted(zones)]
        if not s.attacked and hand:
            for src in range(NUM_ZONES):
                if s.owner[src] != p:
                    continue
                for dst in NEIGHBOURS[src]:
                    if s.owner[dst] != 1 - p:
                        continue
                    acts += [ATTACK_LINE_BASE[src][dst * 2] + c for c in hand]
                    if special_attack_allowed(s.owner, p, src, dst, is_horizontal(src, dst), len(s.deck),
                                              s.config.broadside_empty_deck):
                        acts += [ATTACK_LINE_BASE[src][dst * 2 + 1] + c for c in hand]
        return acts + [PASS]
    if phase == Phase.DEFEND:
        return sorted(DEFEND_BASE + c for c in s.hands[p]) + [NODEFEND]
    if phase == Phase.ROYAL_FLUSH:
        return [PASS] + [SINK_BASE + z for z in sorted(s.rf_candidates)]
    if phase == Phase.MULLIGAN:
        return [KEEP, MULLIGAN]
    return []


def reference_step_table(legal: list[int]) -> dict[tuple[int, ...], tuple[list[int], list[int]]]:
    """naval-v1's table before issue 22: every prefix of every legal move -> (next steps, moves it begins)."""
    nexts: dict[tuple[int, ...], set[int]] = {}
    moves: dict[tuple[int, ...], list[int]] = {}
    for a in legal:
        steps = STEPS_OF[a]
        for n in range(len(steps)):
            nexts.setdefault(steps[:n], set()).add(steps[n])
            moves.setdefault(steps[:n], []).append(a)
    return {p: (sorted(nexts[p]), moves[p]) for p in nexts}


def positions(config: dict, games: int, seed: int = 0):
    """(state, pending steps) along random naval-v1 games: every step's position, pending steps included."""
    rng = np.random.default_rng(seed)
    cfg = NavalConfig.from_dict(config)
    for g in range(games):
        s = StepState(NavalState.new_game(cfg, seed=seed * 1000 + g))
        while True:
            yield s
            if s.is_terminal():
                break
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])


# ---------------------------------------------------------------- the checks
@pytest.mark.parametrize("config", CONFIGS)
def test_observation_view_and_legal_moves_match_the_references(config):
    checked = 0
    for s in positions(config, games=25):
        e = s.engine
        assert e.legal_actions() == reference_legal(e)
        for seat in (0, 1, None):
            v = e.information_view(seat)
            ref = reference_view(e, seat)
            assert v == ref and type(v) is NavalView
            got, want = encode_observation(v), reference_encode(ref)
            assert got.dtype == want.dtype == np.float32 and got.shape == want.shape
            assert np.array_equal(got.view(np.uint32), want.view(np.uint32))  # bit for bit
            checked += 1
    assert checked > 1500


@pytest.mark.parametrize("config", CONFIGS)
def test_v1_steps_match_the_prefix_table_for_every_prefix(config):
    """Every position and every one-step prefix, legal or not: the same next steps and the same outcome."""
    for s in positions(config, games=20, seed=1):
        if s.is_terminal():
            assert s.legal_actions() == []
            continue
        table = reference_step_table(reference_legal(s.engine))
        prefixes = [()] + [(x,) for x in range(NUM_STEPS)] if not s.pending else [s.pending]
        for prefix in prefixes:
            t = StepState(s.engine, prefix, s.move_number)
            want = table.get(prefix, ([], []))
            assert t.legal_actions() == want[0], prefix
            assert t.completions() == want[1], prefix
        # every legal step played on a copy does what the table says: completes the move it names or waits
        for step in s.legal_actions():
            steps = (*s.pending, step)
            completes = steps_to_action(steps)
            if completes is not None and completes not in table[s.pending][1]:
                completes = None
            for validate in (True, False):  # the env skips the check for a step its own mask offered
                c = s.clone()
                assert c.apply_action(step, validate=validate) == completes
                assert c.pending == (() if completes is not None else steps)


def test_v1_env_observation_and_mask_match_the_references():
    env = naval_v1.raw_env()
    rng = np.random.default_rng(3)
    for g in range(15):
        env.reset(seed=g)
        while not env.game.is_terminal():
            agent = env.agent_selection
            for a in env.AGENTS:  # both seats, the mover and the other
                obs = env.observe(a)
                want = np.zeros(naval_v1.OBS_SIZE, dtype=np.float32)
                want[:OBS_SIZE] = reference_encode(reference_view(env.game.engine, env.AGENTS.index(a)))
                if a == agent:
                    naval_v1.write_pending(env.game.pending, want)
                assert np.array_equal(obs["observation"].view(np.uint32), want.view(np.uint32))
                mask = np.zeros(naval_v1.raw_env.NUM_ACTIONS, dtype=np.int8)
                if a == agent:
                    mask[reference_step_table(reference_legal(env.game.engine))[env.game.pending][0]] = 1
                assert obs["action_mask"].dtype == np.int8 and np.array_equal(obs["action_mask"], mask)
            obs = env.observe(agent)
            obs["observation"][:] = 7.0  # the caller's arrays are its own: editing them changes nothing
            obs["action_mask"][:] = 0
            again = env.observe(agent)
            assert again["observation"].max() <= 1.0 and again["action_mask"].sum() > 0
            legal = np.flatnonzero(again["action_mask"])
            env.step(int(legal[rng.integers(len(legal))]))
        assert env.infos[env.AGENTS[0]]["result"] == env.game.engine.result
        assert env.infos[env.AGENTS[0]]["result"] is not env.game.engine.result


def test_v0_env_observation_and_mask_match_the_references():
    env = naval_v0.raw_env(rules=CONFIGS[1])
    rng = np.random.default_rng(4)
    for g in range(10):
        env.reset(seed=g)
        while not env.game.is_terminal():
            agent = env.agent_selection
            obs = env.observe(agent)
            want = reference_encode(reference_view(env.game, env.AGENTS.index(agent)))
            assert np.array_equal(obs["observation"].view(np.uint32), want.view(np.uint32))
            assert np.array_equal(np.flatnonzero(obs["action_mask"]), reference_legal(env.game))
            legal = reference_legal(env.game)
            env.step(legal[int(rng.integers(len(legal)))])


def test_an_illegal_step_is_still_refused_with_the_rule_reason():
    env = naval_v1.raw_env()
    env.reset(seed=5)
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match="not a legal step"):
        env.step(illegal)


@pytest.mark.parametrize("value", [
    None, {"reason": "blockade"},
    {"reason": "deck exhausted", "sealanes": [1, 2, 0], "best_hands": [["AS", "KS"], ["2C"]], "t": (1, [2])},
    {"nested": {"deep": [{"x": 1.5, "y": True}]}},
])
def test_copy_result_equals_a_deep_copy_and_shares_nothing(value):
    got = copy_result(value)
    assert got == copy.deepcopy(value)

    def containers(x):
        if isinstance(x, dict):
            return [x] + [c for v in x.values() for c in containers(v)]
        if isinstance(x, (list, tuple)):
            return [x] + [c for v in x for c in containers(v)]
        return []
    mutable_in = {id(c) for c in containers(value) if not isinstance(c, tuple)}
    assert not mutable_in & {id(c) for c in containers(got) if not isinstance(c, tuple)}
