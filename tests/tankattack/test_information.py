"""Chance and information (RULES.md 18): nothing is hidden but the future dice.

Three proofs. A seat's view is the whole state less the dice: the engine state is rebuilt from the view
alone and, given the same dice, plays on move for move as the original does; every seat and a spectator
get the same view. Everything a seat is given (observation, mask, text, picture, engine messages) is a
function of that view: issue 27's harness (tests/hidden) resamples the dice and finds no difference, and
it does find one when a channel is made to read the next die. And no seat can foresee a die from what it
is sent: tests/hidden/test_seed_attack.py plays an engine that tries.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from cardwar import games
from cardwar.envs.tankattack import TankState, load_scenario
from cardwar.envs.tankattack.infostate import resample_hidden, state_from_view
from cardwar.envs.tankattack.serialize import state_to_dict
from tests.hidden.infostate_harness import Budget, InfostateLeak, check_game

SCENARIOS = ("trench_raid", "cambrai", "kaiserschlacht", "villers_bretonneux")


def _positions(scenario: str, seed: int, every: int = 7, moves: int = 400):
    """Positions of one random game, every ``every`` decisions."""
    s = TankState.new_game(load_scenario(scenario), seed=seed)
    rng = np.random.default_rng(seed)
    for k in range(moves):
        if s.is_terminal():
            break
        if k % every == 0:
            yield s
        legal = s.legal_actions()
        s.apply_action(int(legal[rng.integers(len(legal))]))
    yield s


def _without_dice(s: TankState) -> dict:
    d = state_to_dict(s)
    del d["rng"]
    return d


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_the_whole_state_is_rebuilt_from_a_seats_view_and_plays_on_the_same(scenario):
    checked = 0
    for s in _positions(scenario, seed=11):
        for seat in (0, 1):
            rebuilt = state_from_view(s.information_view(seat), s.rng)
            assert _without_dice(rebuilt) == _without_dice(s)
            a, b = s.clone(), rebuilt
            rng = np.random.default_rng(checked)
            for _ in range(30):  # with the same dice the two play on alike: nothing was left out of the view
                if a.is_terminal():
                    break
                assert sorted(a.legal_actions()) == sorted(b.legal_actions())
                legal = a.legal_actions()
                x = int(legal[rng.integers(len(legal))])
                a.apply_action(x)
                b.apply_action(x)
            assert _without_dice(a) == _without_dice(b)
            checked += 1
    assert checked >= 20


def test_both_seats_and_a_spectator_get_the_same_view():
    for s in _positions("cambrai", seed=3, every=11):
        views = [s.information_view(seat) for seat in (0, 1, None)]
        assert views[0].data == views[1].data == views[2].data
        assert [v.seat for v in views] == [0, 1, None]


def test_resampling_redraws_the_dice_and_nothing_else():
    s = next(iter(_positions("trench_raid", seed=5, every=1)))
    twin = resample_hidden(s, 1, np.random.default_rng(9))
    assert twin is not s and _without_dice(twin) == _without_dice(s)
    rolls = [[int(x.rng.integers(1, 7)) for _ in range(20)] for x in (s.clone(), twin.clone())]
    assert rolls[0] != rolls[1]  # another future
    assert s.rng.bit_generator.state != twin.rng.bit_generator.state


def test_the_harness_finds_a_channel_that_reads_the_next_die():
    real = games.get("tankattack")

    def leaky_text(state, viewer=None):
        peek = state.clone().rng.integers(1, 7)  # the next die, which no seat may know
        return real.hook("render_text")(state, viewer) + f"\nnext die {peek}"

    leaky = dataclasses.replace(real, name="tankattack_leak", render_text=leaky_text)
    games.register(leaky)
    try:
        with pytest.raises(InfostateLeak, match=r"channel 'render_text' differs .*tankattack_leak"):
            check_game(leaky, Budget(decisions=20, resamples=3), seed=1)
    finally:
        games.unregister("tankattack_leak")
