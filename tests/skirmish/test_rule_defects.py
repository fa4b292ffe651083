"""Rule defects found by the hidden-information and rules audit (issue 27, items 4 and 5), each checked from the
seed's own text or the RULES.md reading it names, played through the engine."""

from __future__ import annotations

import pytest

from cardwar.envs.skirmish.cards import Pack
from tests.skirmish.conftest import BLUE, RED, act, fig, finish_turn, scenario, stack, start, stay_until_combat, unit


def card(text: str) -> int:
    return Pack.stacked([text]).draw_pile[0]


def texts(s) -> list[str]:
    return [e.text for e in s.events]


# ============================================================================ §3.3 Lady Luck in opposed melee
def opposed_melee(attacker_card: str, defender_card: str, attacker_skill: int = 2, defender_skill: int = 5):
    """Able (Melee ``attacker_skill``) on A3 attacks Baker (Melee ``defender_skill``) on B3 with ``melee="opposed"``
    and Lady Luck's Queens in the packs; the attacker draws from Blue's pack, the defender from Red's (§5.6)."""
    sc = scenario([fig("Able", "A3", skills=attacker_skill)], [fig("Baker", "B3", skills=defender_skill)])
    s = stay_until_combat(start(sc, melee="opposed", lady_luck=True))
    act(s, "melee", "B3")
    stack(s, BLUE, attacker_card)
    stack(s, RED, defender_card)
    return finish_turn(s)


def test_a_red_queen_wins_an_opposed_melee_when_the_defender_fails():
    """RULES.md §3.3: Lady Luck applies to "a melee attack (the attacker's card)"; "Red Queen: the action succeeds,
    whatever the effective skill (as if an Ace)". Able's Melee 2 would never pass a 9; the Queen of Hearts does,
    and Baker's 9 against 5 fails: Baker is wounded (§5.6 "if one succeeds it wounds the other")."""
    s = opposed_melee("QH", "9S")
    assert "Able melee: QH against 2" in texts(s)
    assert unit(s, "Baker").fig.wounds == 1 and unit(s, "Able").fig.wounds == 0


@pytest.mark.parametrize("defender_card, able, baker", [
    ("3S", 0, 1),   # both succeed: the Queen is an Ace, lower than 3: Baker is wounded
    ("AS", 1, 1),   # an Ace against the Queen-as-Ace: equal cards, both wounded (§5.6)
])
def test_a_red_queen_counts_as_an_ace_when_both_succeed(defender_card, able, baker):
    """§3.3 "as if an Ace" with §5.6 "if both succeed the lower card wounds the other (equal cards: both wounded)"."""
    s = opposed_melee("QD", defender_card)
    assert (unit(s, "Able").fig.wounds, unit(s, "Baker").fig.wounds) == (able, baker)


def test_the_defenders_queen_is_a_failed_card_in_opposed_melee():
    """RULES.md §3.3: "The defender's card in an opposed melee (5.6) is drawn as a skill draw but a Queen there
    counts as a failed card": Able's 2 against 2 succeeds alone."""
    s = opposed_melee("2H", "QH")
    assert unit(s, "Baker").fig.wounds == 1 and unit(s, "Able").fig.wounds == 0


# ============================================================================ §8.2 a wreck gives no cover
def test_a_wreck_beside_the_line_of_fire_gives_no_cover():
    """RULES.md §8.2: a wreck "still blocks sight and no unit enters its hex; it gives no cover" (neither seed
    gives a wreck cover: HtD's cover is "1 - light cover, 2 - buildings, 3 - bunkers etc."). The line from C3 to
    D2 runs along the edge between C2 and D3; a wreck on D3 leaves the C2 side clear (§1.4 ``either_side``), and
    the shot at D2 is at the full Shoot 5."""
    sc = scenario([fig("Shooter", "C3", skills=5)], [fig("Red 1", "D2", skills=3), fig("Red 2", "J6", skills=3)],
                  red_vehicles=[{"name": "Wreck", "kind": "wheeled", "armour": "U", "hex": "D3", "facing": "W",
                                 "weapons": []}])
    s = start(sc)
    unit(s, "Wreck").v.destroyed = True
    stay_until_combat(s)
    act(s, "fire", "D2")
    stack(s, BLUE, "5H 9D")
    finish_turn(s)
    assert "Shooter fire: 5H against 5" in texts(s) and unit(s, "Red 1").fig.wounds == 1


# ============================================================================ §7.2 deck_cards="figures", own deck
def test_deck_cards_figures_replaces_a_scenarios_own_deck():
    """WW2: "each man on the table could have two cards in the deck while special men such as officers and
    sergeants might have three cards". RULES.md §7.2: ``deck_cards="figures"``, an option the user chose, replaces
    a scenario's own ``deck:`` (``ww2_squads`` deals the seed's team deck, which is also the default
    ``deck_cards="teams"``). Americans: Lt. Pitts and Sgt. Stevens three, six men two; Germans: two sergeants
    three, five men two."""
    from tests.skirmish.conftest import shipped

    sc = shipped("ww2_squads")
    s = start(sc, sequence="deck", deck_cards="figures")
    cards = s.deck + [s.card]
    assert {c[0] for c in cards} == {"figure"}
    per = {u.name: sum(1 for c in cards if c[1] == u.uid) for u in s.units}
    for spec in sc.figures:
        assert per[spec.name] == (3 if spec.role in ("officer", "sergeant") else 2), spec.name
    assert len(cards) == 18 + 16
    teams = start(sc, sequence="deck")  # the default keeps the scenario's deck: team and Free Move cards
    assert {c[0] for c in teams.deck + [teams.card]} == {"team", "free"}


# ============================================================================ §9.1 the reveal: mode only
def reveal_with(destination_index: int, **rules):
    """Mover (Blue, C3) walks to one of two hexes whose paths share the first hex; Watcher (Red, H3), who sees it,
    watches. Returns the state at Watcher's first INTERRUPT (the Mover has entered its first hex) and the hex."""
    from cardwar.envs.skirmish.actions import Step

    sc = scenario([fig("Mover", "C3")], [fig("Watcher", "H3", skills=3)])
    s = start(sc, **rules)
    act(s, "walk")
    paths = s.cursor.paths
    first = paths[max(paths, key=lambda d: (len(paths[d]), d))][0]
    same_start = sorted(d for d, p in paths.items() if len(p) >= 2 and p[0] == first)
    assert len(same_start) >= 2
    dest = same_start[destination_index]
    s.apply(dest)
    act(s, "standing")
    assert s.decision.seat == RED
    act(s, "stay", "standing", "watch")
    assert s.decision.step == Step.INTERRUPT and s.decision.seat == RED
    assert unit(s, "Mover").cell == first
    return s, dest


def red_sees(s):
    from cardwar.envs.skirmish.figure_obs import encode_figure
    from cardwar.envs.skirmish.observation import encode_observation

    v = s.information_view(RED)
    return v.to_dict(), encode_observation(v, s.scenario), encode_figure(v, s.scenario, unit(s, "Watcher").uid)


def test_the_reveal_shows_the_enemy_a_movers_mode_but_not_its_destination():
    """HtD: "All players, wishing to do so, declare their *Movement Mode* and then move their character
    accordingly" - the mode is declared, not a destination (RULES.md §9.1). Two Movers that declare walk to
    different hexes, seen at the same hex after their first step, look the same to the enemy: its view, its
    observation (the ``enemy_destination`` plane stays empty) and its figure's observation."""
    (a, dest_a), (b, dest_b) = reveal_with(0), reveal_with(1)
    assert dest_a != dest_b
    view_a, obs_a, fig_a = red_sees(a)
    view_b, obs_b, fig_b = red_sees(b)
    assert view_a == view_b
    assert (obs_a == obs_b).all() and (fig_a == fig_b).all()
    mover = next(u for u in a.information_view(RED).units if u.name == "Mover")
    assert mover.order == {"mode": "walk", "watch": False}
    assert a.information_view(BLUE).units[unit(a, "Mover").uid].order["destination"] == dest_a  # its own side


def test_reveal_destinations_shows_the_declared_destination():
    """RULES.md §12 ``reveal_destinations=true``: the reveal shows each seen mover's declared destination too."""
    (a, dest_a), (b, dest_b) = reveal_with(0, reveal_destinations=True), reveal_with(1, reveal_destinations=True)
    mover = next(u for u in a.information_view(RED).units if u.name == "Mover")
    assert mover.order["destination"] == dest_a
    assert red_sees(a)[0] != red_sees(b)[0]
    assert not (red_sees(a)[1] == red_sees(b)[1]).all()
