"""A legal-move mask is a function of the seat's information state (RULES.md §4.3, §8.1, §9.2).

The resampler of :mod:`cardwar.envs.skirmish.infostate` moves every enemy the seat does not see onto the hexes
its units could move to. The masks must not change. The last test shows the check has teeth: with the old
vehicle rule (a path never enters an occupied hex, seen or not) put back, it finds the hexes of unseen enemies.
"""

from __future__ import annotations

import numpy as np
import pytest

from cardwar.envs.skirmish import flow, vehicles
from cardwar.envs.skirmish.actions import Step
from cardwar.envs.skirmish.infostate import clone_for, resample_hidden
from cardwar.envs.skirmish.state import new_state
from cardwar.envs.skirmish.units import Tank


def destination_decisions(scenario: str, games: int, rules: dict | None = None, others: float = 0.1):
    """Every DESTINATION decision of a vehicle (and every tenth other decision) in random games."""
    rng = np.random.default_rng(7)
    for g in range(games):
        s = new_state(scenario, rules, seed=g)
        while not s.is_terminal():
            d = s.decision
            if (d.step == Step.DESTINATION and isinstance(s.units[d.unit], Tank)) or rng.random() < others:
                yield s
            legal = s.legal()
            s.apply(legal[int(rng.integers(len(legal)))])


def mask_differences(scenario: str, games: int, rules: dict | None = None, resamples: int = 3,
                     first: bool = False, others: float = 0.1) -> list[str]:
    rng = np.random.default_rng(11)
    out = []
    for s in destination_decisions(scenario, games, rules, others):
        seat = s.seat
        for _ in range(resamples):
            t = resample_hidden(s, seat, rng)
            assert t.information_view(seat) == s.information_view(seat), "the resample must keep the seat's view"
            if t.legal() != s.legal():
                out.append(f"move {s.moves_made} {s.stage} {s.decision.step.name}: "
                           f"{sorted(set(t.legal()) ^ set(s.legal()))}")
                if first:
                    return out
    return out


@pytest.mark.parametrize("scenario,rules", [("panzer_road", None), ("panzer_road", {"sequence": "deck"})])
def test_vehicle_destinations_do_not_route_round_unseen_enemies(scenario, rules):
    assert mask_differences(scenario, 3, rules) == []


def test_the_check_finds_the_old_vehicle_rule(monkeypatch):
    """The rule before issue 27: every occupied hex left out of a vehicle's destinations, seen or not."""

    def old_vehicle_paths(s, v, speed, fraction=1):
        if not v.v.can_move:
            return {}
        occupied = frozenset(u.cell for u in s.units if u.holds_hex and u is not v)
        return vehicles.vehicle_moves(s.scenario.board, v.v, speed, occupied=occupied, fraction=fraction,
                                      open_doors=s.open_doors)

    monkeypatch.setattr(flow, "_vehicle_paths", old_vehicle_paths)
    assert mask_differences("panzer_road", 25, resamples=2, first=True, others=0.0), "the resampler should expose the old rule's holes"


def test_clone_for_redraws_the_coming_cards():
    """A search's copy of the state holds no future: the packs' order and the generator are drawn anew."""
    s = new_state("panzer_road", None, seed=3)
    rng = np.random.default_rng(0)
    copies = [clone_for(s, s.seat, rng) for _ in range(4)]
    assert len({tuple(c.packs[1 - s.seat].draw_pile) for c in copies}) == 4
    assert all(c.information_view(s.seat) == s.information_view(s.seat) for c in copies)
    assert all(sorted(c.packs[0].draw_pile) == sorted(s.packs[0].draw_pile) for c in copies)


def test_every_stage_has_its_observation_plane():
    """The stage planes are read off the one list of stages (issue 27: a second copy dropped new ones)."""
    from cardwar.envs.skirmish import figure_obs, flow, observation
    from cardwar.envs.skirmish.pending import Stage

    assert set(flow.STAGES) == set(Stage) - {Stage.SETUP}
    assert set(observation.STAGES) == {st.value for st in Stage} - {"setup"}
    assert set(figure_obs.STAGES) == {st.value for st in Stage}
