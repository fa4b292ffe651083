"""Hidden units (RULES.md 8.1, 10): what the other side may learn, and nothing more.

The seed deals "a card face up for each unit", so the number of units on each side
and the cards of the hidden ones are public; which card is whose, where a hidden unit
stands, what it is and where the scenario lists it are not. These tests build games
that differ only in those secrets and check that everything a side is shown - its
view, its observation, its legal moves, its text map and its picture - is the same.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.hexwar.actions import NO_EVADE, PASS
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.generator import generate_scenario
from cardwar.envs.hexwar.geometry import NEIGH
from cardwar.envs.hexwar.hexgrid import label, parse_label
from cardwar.envs.hexwar.observation import encode_observation
from cardwar.envs.hexwar.picture import render_rgb
from cardwar.envs.hexwar.scenario import Scenario, cell_of, hex_of, load_scenario, scenario_from_dict
from cardwar.envs.hexwar.state import HexPhase, HexState
from cardwar.envs.hexwar.text import render_state

HIDDEN = HexConfig(hidden_units=True)
OTHER_TYPES = ("foot", "at_gun", "mortar", "tank", "armoured_car")


def with_hidden(seed: int) -> Scenario:
    """The procedural battle of ``seed`` with at least one unit of each side hidden."""
    d = generate_scenario(seed).to_dict()
    rng = np.random.default_rng(seed)
    for side in d["sides"].values():
        on_table = [u for u in side["units"] if "hex" in u]
        for k, u in enumerate(on_table):
            if k == 0 or rng.random() < 0.3:
                u["hidden"] = True
    return scenario_from_dict(d, name=f"hidden-{seed}")


def disguised(sc: Scenario, seed: int) -> Scenario:
    """The same battle as blue knows it: red's hidden units are other types on other hexes
    (away from blue's units and the objectives), and both sides list their units in another
    order. Blue's own units and red's visible ones are untouched."""
    d = sc.to_dict()
    rng = np.random.default_rng(seed)
    used = {u["hex"] for s in d["sides"].values() for u in s["units"] if "hex" in u}
    blue_near = {c for u in d["sides"]["blue"]["units"] if "hex" in u for c in NEIGH[cell_of(parse_label(u["hex"]))]}
    free = [label(hex_of(c)) for c in range(len(sc.terrain))
            if sc.passable[c] and c not in blue_near and label(hex_of(c)) not in used
            and all(cell_of(o.hex) != c for o in sc.objectives)]
    moved = 0
    for u in d["sides"]["red"]["units"]:
        if u.get("hidden"):
            u["type"] = OTHER_TYPES[(OTHER_TYPES.index(u["type"]) + 1) % len(OTHER_TYPES)
                                    if u["type"] in OTHER_TYPES else 0]
            if free:
                u["hex"] = free.pop(int(rng.integers(len(free))))
                moved += 1
    assert moved, "no red hidden unit could be moved"
    for s in d["sides"].values():
        s["units"] = [s["units"][i] for i in rng.permutation(len(s["units"]))]
    return scenario_from_dict(d, name=sc.name)


def hidden_count(s: HexState, side: int) -> int:
    return sum(1 for u in range(len(s.cell)) if s.side[u] == side and s.hidden[u])


def shown_to(s: HexState, side: int | None, picture: bool) -> tuple:
    """Everything the engine shows ``side`` (None: a spectator)."""
    v = s.information_view(side)
    obs = encode_observation(v, s.scenario).tobytes() if side is not None else b""
    legal = tuple(s.legal_actions()) if side is not None and s.current_player == side else ()
    img = render_rgb(s, side).tobytes() if picture else b""
    return v, obs, legal, render_state(s, side), img


SCENARIOS = [pytest.param(lambda: load_scenario("hill_and_hedgerows"), id="hill_and_hedgerows")] + [
    pytest.param(lambda g=g: with_hidden(g), id=f"procedural-{g}") for g in (1, 4, 9, 16)]


@pytest.mark.parametrize("make", SCENARIOS)
def test_what_blue_is_shown_does_not_depend_on_reds_hidden_units(make):
    """Two games, same seed, whose red hidden units differ in type, hex and place in the scenario
    list (and whose units are listed in another order): blue's view, observation, legal moves,
    text map and picture, and the spectator's, are identical until a hidden unit is revealed."""
    base = make()
    other = disguised(base, 7)
    assert other != base
    compared = 0
    for game_seed in range(3):
        a, b = HexState.new_game(base, HIDDEN, seed=game_seed), HexState.new_game(other, HIDDEN, seed=game_seed)
        start = (hidden_count(a, 1), hidden_count(b, 1))
        assert start[0] == start[1] > 0
        rng = np.random.default_rng(game_seed)
        steps = 0
        while not a.is_terminal() and (hidden_count(a, 1), hidden_count(b, 1)) == start and steps < 250:
            for side in (0, None):
                assert shown_to(a, side, steps % 25 == 0) == shown_to(b, side, steps % 25 == 0), \
                    f"{base.name} seed {game_seed} step {steps}: {side} is shown something that depends on " \
                    "red's hidden units"
            if a.phase == HexPhase.EVADE:
                action = NO_EVADE
            elif a.current_player == 1:
                action = PASS  # red holds still, so its hidden units stay where they are
            else:
                legal = a.legal_actions()
                action = legal[int(rng.integers(len(legal)))]
            a.apply_action(action)
            b.apply_action(action)
            steps += 1
        compared += steps
    assert compared >= 30


def test_views_list_units_in_public_id_order_and_shots_name_them_so():
    """ "shoot E5/2" is the second unit the shooter's view lists in E5 (views list units by id)."""
    from cardwar.envs.hexwar.diagram import position, scenario_from_text
    from cardwar.envs.hexwar.actions import string_to_action

    sc = scenario_from_text(". . . .\n. . . .", blue=[("tank", "A1")], red=[("foot", "B1"), ("at_gun", "B1")])
    for seed in range(8):
        s = position(sc, order=[0, 1, 2], seed=seed)
        v = s.information_view(0)
        assert [u.uid for u in v.units] == sorted(u.uid for u in v.units)
        second = [u for u in v.units if u.cell == cell_of(parse_label("B1"))][1]
        s.apply_action(string_to_action("shoot B1/2"))
        target = s.pending.target if s.phase == HexPhase.EVADE else s.last_shots[0].target
        assert s.public_id[target] == second.uid and s.utype[target] == second.type


def test_public_ids_are_a_fresh_shuffle_that_encodes_nothing():
    """Over many games every unit, whatever its type, place in the list or hidden state, gets every id."""
    sc = load_scenario("hill_and_hedgerows")
    n = len(sc.units)
    seen: dict[object, set[int]] = {}
    for seed in range(300):
        s = HexState.new_game(sc, HIDDEN, seed=seed)
        assert sorted(s.public_id) == list(range(n))
        for u, pid in enumerate(s.public_id):
            for key in (("unit", u), ("type", s.utype[u]), ("hidden", s.hidden[u])):
                seen.setdefault(key, set()).add(pid)
    assert all(ids == set(range(n)) for ids in seen.values()), {k: len(v) for k, v in seen.items()}


def test_the_number_of_hidden_units_and_their_cards_are_public_but_not_whose():
    """ "deal a card face up for each unit": the enemy sees each hidden unit's card, and so how many
    there are, but no card in its view is tied to a hidden unit, its type or its hex."""
    s = HexState.new_game(load_scenario("hill_and_hedgerows"), HIDDEN, seed=3)
    secret = [u for u in range(len(s.cell)) if s.hidden[u] and s.side[u] == 1]
    assert secret
    v = s.information_view(0)
    assert sorted(c for side, c, _ in v.hidden_cards) == sorted(s.card[u] for u in secret)
    assert all(side == 1 and not played for side, _, played in v.hidden_cards)
    assert len(v.units) + len(v.hidden_cards) == len(s.cell)
    assert not {s.card[u] for u in secret} & {u.card for u in v.units}
    assert not {s.public_id[u] for u in secret} & {u.uid for u in v.units} & set(v.order)
    assert s.information_view(1).hidden_cards == ()  # red knows its own units


def test_a_procedural_battle_with_hidden_units_does_not_show_its_seed():
    """With the generator seed anyone could rebuild the forces; the public map leaves it out."""
    for seed in (4, 9, 16):
        sc = with_hidden(seed)
        renamed = scenario_from_dict(sc.to_dict(), name=f"random-{seed}")
        s = HexState.new_game(renamed, HIDDEN, seed=0)
        for side in (0, 1, None):
            v = s.information_view(side)
            assert str(seed) not in v.map.name and str(seed) not in v.map.title
            assert renamed.title not in render_state(s, side)
        assert renamed.title in render_state(s, "omniscient")
