"""Words for a person at the table about naval: why a move is illegal (envs/naval/RULES.md: Deploy, Attack, Defend,
the High Royal Flush), and the defence question.

The registry's ``why_illegal`` and ``decision_note`` hooks of the game (:mod:`cardwar.games`; asked through
:mod:`cardwar.explain`), here beside the search whose ``determinize`` they use. Everything here is worked out from
the seat's information view only. The verdict "legal or not" is the engine's own: the view is turned into a state
consistent with it (the search agent's ``determinize``: unseen cards dealt at random) and that state's rule helpers
are asked which condition fails, so a reason can never mention a card the seat does not know of.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_RNG_SEED = 0  # the unseen cards a determinization deals never enter a reason


def why_illegal(view: Any, action: int) -> str | None:
    """Naval: the engine's verdict on a state consistent with the view, then the rule that fails."""
    from cardwar.agents.naval_search import determinize as naval_state

    state = naval_state(view, np.random.default_rng(_RNG_SEED))
    return None if state.is_legal(action) else _naval_reason(view, action)


def decision_note(view: Any) -> str | None:
    """Naval: the defence question while an attack waits for the answer."""
    from cardwar.envs.naval.state import Phase

    return defence_question(view) if view.phase == Phase.DEFEND and view.pending is not None else None


def _naval_reason(v: Any, action: int) -> str:
    from cardwar.envs.naval.actions import DECODED, ActionKind
    from cardwar.envs.naval.cards import card_to_str, cards_to_str
    from cardwar.envs.naval.seemap import zone_letter
    from cardwar.envs.naval.state import Phase

    a, me = DECODED[action], v.seat
    holds = a.card < 0 or a.card in v.hand
    card = card_to_str(a.card) if a.card >= 0 else ""
    not_held = f"you do not hold {card} (your hand: {cards_to_str(sorted(v.hand))})"
    if v.phase == Phase.GAME_OVER:
        return "the game is over"
    if v.phase == Phase.MULLIGAN:
        return "first decide on the hand you were dealt: keep, or mulligan (7 new cards)"
    if v.phase == Phase.DEFEND:
        p = v.pending
        if a.kind == ActionKind.DEFEND and not holds:
            return not_held
        return (f"Captain {'AB'[p.attacker]} attacks your ship at {zone_letter(p.dst)}: answer with "
                "defend CARD (a card from your hand, face down) or nodefend")
    if v.phase == Phase.ROYAL_FLUSH:
        zones = ", ".join(zone_letter(z) for z in sorted(v.royal_flush_candidates))
        if a.kind == ActionKind.SINK:
            return f"your High Royal Flush may sink the ship at {zones}, not at {zone_letter(a.zone)}"
        return f"your High Royal Flush won the battle: sink a ship ({zones}) or pass"
    if a.kind in (ActionKind.KEEP, ActionKind.MULLIGAN):
        return "mulligans are decided before the first turn"
    if a.kind in (ActionKind.DEFEND, ActionKind.NODEFEND):
        return "defend and nodefend answer an attack on one of your ships; no attack is waiting"
    if a.kind == ActionKind.SINK:
        return "sink follows a Sea Battle won with a High Royal Flush"
    if a.kind == ActionKind.DEPLOY:
        if v.deployed:
            return "you have deployed this turn already: one Deploy per turn (attack or pass instead)"
        return not_held if not holds else _deploy_reason(v, me, a.zone)
    if v.attacked:  # ATTACK
        return "you have attacked this turn already: one Attack per turn (deploy or pass instead)"
    return not_held if not holds else _attack_reason(v, me, a)


def _deploy_reason(v: Any, me: int, zone: int) -> str:
    """Deploy Action: the Seaport first, then the next Seazone along an unbroken line of own ships."""
    from cardwar.envs.naval.seemap import zone_at, zone_lane, zone_letter

    z = zone_letter(zone)
    if v.board_owner[zone] >= 0:
        return f"{z} already holds {'your' if v.board_owner[zone] == me else 'an enemy'} ship"
    lane = zone_lane(zone)
    for d in range(3):
        nxt = zone_at(me, lane, d)
        if v.board_owner[nxt] != me:
            if v.board_owner[nxt] >= 0:
                return f"{z} is cut off: the enemy ship at {zone_letter(nxt)} blocks your line in this Sealane"
            return (f"{z} is out of reach: ships deploy in your Seaport first, then one Seazone forward at a time "
                    f"along an unbroken line of your own ships; in this Sealane that is {zone_letter(nxt)}")
    return f"{z} cannot take a ship now"


def _attack_reason(v: Any, me: int, a: Any) -> str:
    from cardwar.envs.naval.actions import AttackStyle
    from cardwar.envs.naval.seemap import zone_lane, zone_letter

    if v.board_owner[a.src] != me:
        return f"you have no ship at {zone_letter(a.src)} to attack from"
    if v.board_owner[a.dst] != 1 - me:
        return f"there is no enemy ship at {zone_letter(a.dst)}"
    if a.style == AttackStyle.BROADSIDE:
        return ("a Broadside draws a card from the deck, and the deck is empty "
                f"(rule broadside_empty_deck={v.config.broadside_empty_deck})")
    lane = zone_lane(a.dst)
    own = sum(1 for z in (lane, lane + 3, lane + 6) if v.board_owner[z] == me)
    return f"Ramming needs 2 of your ships in the Sealane of the ship attacked; you have {own} there"


def defence_question(v: Any) -> str:
    """The defence question: the Sea Battle's face-up cards on both sides (Attack Action table)."""
    from cardwar.envs.naval.actions import AttackStyle
    from cardwar.envs.naval.battle import attack_ships, defence_support
    from cardwar.envs.naval.cards import card_to_str, cards_to_str
    from cardwar.envs.naval.seemap import zone_letter

    p, owner, ship = v.pending, list(v.board_owner), list(v.board_card)
    theirs = cards_to_str(attack_ships(owner, ship, p.attacker, p.src, p.dst, p.style))
    drawn = " + a face-down card from the deck" if p.deck_card_drawn else ""
    support = defence_support(owner, ship, p.src, p.dst, p.style, v.config.bastion) if v.config else []
    helper = f" + the best of your supporting ships {cards_to_str(support)}" if support else ""
    style = {AttackStyle.NORMAL: "normal attack", AttackStyle.RAM: "ramming attack",
             AttackStyle.BROADSIDE: "broadside"}[p.style]
    return (f"Captain {'AB'[p.attacker]}'s {style} {zone_letter(p.src)}>{zone_letter(p.dst)}: their hand is "
            f"{theirs} + a face-down card{drawn}; yours is {card_to_str(ship[p.dst])}{helper} + the card you "
            "defend with, if any.\nAnswer: defend CARD or nodefend")
