"""Everything a seat is given is a function of its information state alone (issue 27; ARCHITECTURE.md, "The
information state is the contract").

One harness for every registered game (and the plug-in of tests/test_plugin_game.py): at sampled decisions of
games played through ``game.make_env``, each seat's hidden state is resampled with the game's ``resample_hidden``
hook, and the seat's view, observation, mask, text, picture, setup and engine messages are compared bit for bit
(tests/hidden/infostate_harness.py). The default run checks a few hundred decisions per game; ``-m slow`` (or
``CARDWAR_SLOW=1``) thousands, on every shipped scenario. Then the resamplers themselves: the naval and hex ones
redraw what they must and keep what they must, and the harness finds the leaks it is meant to find.
"""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from collections.abc import Iterator

import numpy as np
import pytest

from cardwar import games
from tests.hidden.infostate_harness import Budget, InfostateLeak, check_from, check_game
from tests.test_plugin_game import PILE_GAME

PLUGIN = PILE_GAME.name
GAMES = tuple(games.names()) + ((PLUGIN,) if PLUGIN not in games.names() else ())
SEED = int(os.environ.get("CARDWAR_INFOSTATE_SEED", "2027"))
"""The run's seed (fixed, so that a failure reruns; set the variable to explore other games)."""

DEFAULT = Budget(decisions=300, resamples=3, picture_every=20)
SLOW = Budget(decisions=4000, resamples=4, picture_every=50)


@pytest.fixture
def registered(request: pytest.FixtureRequest) -> Iterator[games.Game]:
    """The game of the test's ``name``, the plug-in registered for the test only."""
    name = request.getfixturevalue("name")
    if name == PLUGIN and not games.known(PLUGIN):
        games.register(PILE_GAME)
        try:
            yield PILE_GAME
        finally:
            games.unregister(PLUGIN)
        return
    yield games.get(name)


def _hook_or_fail(game: games.Game) -> None:
    if game.resample_hidden is None:
        pytest.fail(f"{game.name}: no resample_hidden hook in its registry entry (cardwar/games.py, "
                    "Game.resample_hidden): the information-state harness cannot resample its hidden state")


def _slow_asked(config: pytest.Config) -> bool:
    return "slow" in (config.getoption("markexpr", "") or "") or bool(os.environ.get("CARDWAR_SLOW"))


@pytest.mark.parametrize("name", GAMES)
def test_everything_a_seat_is_given_is_a_function_of_its_information_state(name: str, registered: games.Game):
    game = registered
    _hook_or_fail(game)
    rep = check_game(game, DEFAULT, seed=SEED)
    assert rep.decisions >= DEFAULT.decisions and rep.comparisons >= 2 * DEFAULT.resamples * rep.decisions
    assert rep.terminal == rep.games  # every game's last position is checked too
    if game.render_picture is not None:
        assert rep.pictures >= 10


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_everything_a_seat_is_given_is_a_function_of_its_information_state_thousands(
        name: str, registered: games.Game, request: pytest.FixtureRequest):
    if not _slow_asked(request.config):
        pytest.skip("thousands of decisions: run with -m slow or CARDWAR_SLOW=1")
    game = registered
    _hook_or_fail(game)
    rep = check_game(game, SLOW, seed=SEED + 1, slow=True)
    assert rep.decisions >= SLOW.decisions


# ============================================================================ the naval resampler
def _naval_positions(n_games: int, seed: int) -> Iterator:
    from cardwar.envs.naval.state import NavalState

    rng = np.random.default_rng(seed)
    for g in range(n_games):
        s = NavalState.new_game(seed=g)
        while not s.is_terminal():
            yield s
            legal = s.legal_actions()
            s.apply_action(legal[int(rng.integers(len(legal)))])


def test_naval_resample_redeals_the_other_hand_and_the_deck_and_keeps_what_the_captain_saw():
    from cardwar.envs.naval.infostate import resample_hidden
    from cardwar.envs.naval.state import Phase

    rng = np.random.default_rng(1)
    redealt = broadside = attack = mulligan = shown_kept = 0
    for k, s in enumerate(_naval_positions(12, 3)):
        if k % 3:
            continue
        seat = int(rng.integers(2))
        other = 1 - seat
        before = s.to_dict()
        r = resample_hidden(s, seat, rng)
        assert s.to_dict() == before, "the resampler changed its input"
        assert r.information_view(seat) == s.information_view(seat)
        assert r.hands[seat] == s.hands[seat] and r.owner == s.owner and r.ship == s.ship
        assert r.discards == s.discards and len(r.deck) == len(s.deck) and len(r.hands[other]) == len(s.hands[other])
        hidden = lambda x: Counter(x.hands[other] + x.deck + ([x.pending.deck_card] if x.pending and  # noqa: E731
                                                              x.pending.deck_card >= 0 else [])
                                   + ([x.pending.attack_card] if x.pending and x.pending.attacker == other else []))
        assert hidden(r) == hidden(s), "the hidden cards are the same cards, placed anew"
        redealt += sorted(r.hands[other]) != sorted(s.hands[other])
        for c in set(s.mulligan_shown) & set(s.hands[other]):  # a shown card keeps its region (module docstring)
            assert c in r.hands[other] or (r.pending and r.pending.attack_card == c)
            shown_kept += 1
        if s.pending is not None and s.pending.deck_card >= 0:
            broadside += r.pending.deck_card != s.pending.deck_card
        if s.pending is not None and s.pending.attacker == other:
            attack += r.pending.attack_card != s.pending.attack_card
        if s.phase == Phase.MULLIGAN and s.mulligan_choices[other] is not None:
            mulligan += 1
    assert redealt > 100 and broadside > 3 and attack > 10 and mulligan > 0 and shown_kept > 0, \
        (redealt, broadside, attack, mulligan, shown_kept)


def test_naval_resample_redraws_the_hidden_mulligan_choice_and_the_future_chance():
    from cardwar.envs.naval.infostate import resample_hidden
    from cardwar.envs.naval.state import NavalState
    from cardwar.envs.naval.actions import KEEP

    s = NavalState.new_game(seed=4)
    s.apply_action(KEEP)  # Captain A keeps; B decides without knowing it
    rng = np.random.default_rng(0)
    twins = [resample_hidden(s, 1, rng) for _ in range(40)]
    assert {t.mulligan_choices[0] for t in twins} == {True, False}
    assert all(t.information_view(1) == s.information_view(1) for t in twins)
    firsts = set()
    for t in twins:
        t.apply_action(KEEP)
        firsts.add(t.first_player)
    assert firsts == {0, 1}, "the first captain is drawn from a reseeded generator"


# ============================================================================ the hex resampler
DRILL_MAP = """
. . . W . .
. . H . . .
. . . . X .
. W . . . .
. . . . . .
"""


def _drill(seed: int):
    """A contact position: blue's tank, mortar, armoured car and a pair of foot against two visible red units
    and four hidden ones (joint activation and hidden units on)."""
    from cardwar.envs.hexwar.config import HexConfig
    from cardwar.envs.hexwar.diagram import position, scenario_from_text

    sc = scenario_from_text(DRILL_MAP, blue=[("tank", "A3"), ("mortar", "A5"), ("foot", "B1"), ("foot", "B1"),
                                             ("armoured_car", "A2")],
                            red=[("foot", "C3"), ("at_gun", "C5"), ("foot", "F2"), ("foot", "E5"), ("at_gun", "F4"),
                                 ("foot", "D1")], hidden={7, 8, 9, 10})
    rules = HexConfig(hidden_units=True, joint_activation=True)
    rng = np.random.default_rng(seed)
    order = [int(u) for u in rng.permutation(11)]
    return sc, rules, position(sc, order=order, config=rules, seed=seed)


def _drill_env(seed: int):
    game = games.get("hexwar")
    sc, rules, s = _drill(seed)
    env = game.make_env(sc, rules.to_dict())
    env.reset(seed=seed)
    env.game = s
    env.agent_selection = env.possible_agents[s.current_player]
    return game, env


def test_hex_resample_moves_hidden_units_to_the_hexes_that_matter_and_keeps_the_rest():
    from cardwar.envs.hexwar.infostate import resample_hidden, target_cells
    from cardwar.envs.hexwar.scenario import hex_of

    rng = np.random.default_rng(5)
    hits = Counter()
    moved = placements = 0
    for seed in range(12):
        _, _, s = _drill(seed)
        before = s.to_dict()
        secret = [u for u in range(len(s.cell)) if s.hidden[u] and s.side[u] == 1]
        tiers = target_cells(s, 0)
        for _ in range(20):
            r = resample_hidden(s, 0, rng)
            assert s.to_dict() == before, "the resampler changed its input"
            assert r.information_view(0) == s.information_view(0)
            assert [r.card[u] for u in r.order] == [s.card[u] for u in s.order] and r.ptr == s.ptr
            assert sorted(r.card[u] for u in secret) == sorted(s.card[u] for u in secret)
            assert sorted(r.public_id[u] for u in secret) == sorted(s.public_id[u] for u in secret)
            stack = r.stacking()
            for c in set(r.cell) - {-1, -2}:
                here = [u for u in range(len(r.cell)) if r.cell[u] == c]
                assert len({r.side[u] for u in here}) == 1 and len(here) <= stack[c] and r.scenario.passable[c]
            assert [u.hex for u in r.scenario.units] == [hex_of(c) if c >= 0 else None for c in r.cell]
            assert sorted(r.deck) == sorted(s.deck)
            for u in secret:
                placements += 1
                moved += r.cell[u] != s.cell[u]
                for k, tier in enumerate(tiers):
                    if r.cell[u] in tier:
                        hits[k] += 1
                        break
    assert moved > 0.8 * placements
    # targeted: about half of the hidden units land where the acting unit would fire or move (tiers 0 and 1)
    assert hits[0] + hits[1] > 0.4 * placements and hits[0] > 0.1 * placements, (hits, placements)


def test_hex_contact_drills_show_nothing_of_the_hidden_units():
    """Contact positions, every decision checked with many resamples: the dense version of the random games."""
    rng = np.random.default_rng(SEED)
    for seed in range(6):
        game, env = _drill_env(seed)
        check_from(game, env, f"hexwar drill {seed}", moves=14, resamples=6, rng=rng, picture_every=7)


# ============================================================================ the harness finds leaks
def test_the_harness_finds_a_channel_that_reads_the_other_seat_s_secret():
    leaky = dataclasses.replace(PILE_GAME, name="pile_leak",
                                render_text=lambda state, viewer: f"pile: {state.pile} {state.secrets}")
    games.register(leaky)
    try:
        with pytest.raises(InfostateLeak, match=r"channel 'render_text' differs .* pile_leak .*move \d+.*line 1"):
            check_game(leaky, Budget(decisions=20), seed=1)
    finally:
        games.unregister("pile_leak")


def test_the_harness_refuses_a_resampler_the_seat_can_see_through_or_one_that_mutates():
    def tells(state, seat, rng):
        other = state.clone()
        other.secrets = [int(rng.integers(10)), int(rng.integers(10))]  # the seat's own secret too
        return other

    def mutates(state, seat, rng):
        state.secrets[1 - seat] = int(rng.integers(10))
        return state.clone()

    for hook, message in ((tells, r"channel 'view' differs .*CAN tell apart.*my_secret: \d != \d"),
                          (mutates, "changed the state")):
        bad = dataclasses.replace(PILE_GAME, name="pile_bad", resample_hidden=hook)
        games.register(bad)
        try:
            with pytest.raises(InfostateLeak, match=message):
                check_game(bad, Budget(decisions=30), seed=2)
        finally:
            games.unregister("pile_bad")


def test_the_harness_finds_a_mask_computed_from_the_true_state(monkeypatch):
    """ARCHITECTURE.md's example: moves offered around an enemy the side cannot see."""
    from cardwar.envs.hexwar.state import HexState

    def every_unit(self, viewer):
        occ = {}
        for u, c in enumerate(self.cell):
            if c >= 0:
                occ.setdefault(c, []).append(u)
        return {c: sorted(us, key=self.public_id.__getitem__) for c, us in occ.items()}

    monkeypatch.setattr(HexState, "_occupants", every_unit)
    rng = np.random.default_rng(0)
    with pytest.raises(InfostateLeak, match="channel 'mask' differs"):
        for seed in range(6):
            game, env = _drill_env(seed)
            check_from(game, env, f"hexwar drill {seed}", moves=14, resamples=6, rng=rng)


def test_the_harness_finds_sight_blocked_by_a_unit_the_side_cannot_see(monkeypatch):
    from cardwar.envs.hexwar.state import HexState

    monkeypatch.setattr(HexState, "_blockers", lambda self, viewer, occ: {c for c in self.cell if c >= 0})
    rng = np.random.default_rng(0)
    with pytest.raises(InfostateLeak, match="channel 'mask' differs"):
        for seed in range(6):
            game, env = _drill_env(seed)
            check_from(game, env, f"hexwar drill {seed}", moves=14, resamples=6, rng=rng)
