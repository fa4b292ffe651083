"""Sea Battles: which cards form each side's Poker Hand (seed, Attack Action table).

Pure functions of the board; :mod:`cardwar.envs.naval.state` applies their results.
"""

from __future__ import annotations

from typing import NamedTuple

from cardwar.envs.naval.actions import AttackStyle
from cardwar.envs.naval.hands import HandCategory
from cardwar.envs.naval.seemap import NEIGHBOURS, depth, zone_lane, zone_row


class BattleReport(NamedTuple):
    """What both captains saw once the face-down cards were revealed (immutable)."""

    attacker: int
    src: int
    dst: int
    style: AttackStyle
    attack_hand: tuple[int, ...]
    defence_hand: tuple[int, ...]
    attack_category: HandCategory
    defence_category: HandCategory
    attacker_won: bool
    royal_flush: bool
    """The winner's hand was a High Royal Flush that earns the double kill."""
    destroyed: tuple[tuple[int, int], ...] = ()
    """(zone, card) of every ship removed by this battle, supply cuts included."""


def attack_ships(owner: list[int], ship: list[int], attacker: int, src: int, dst: int,
                 style: AttackStyle) -> list[int]:
    """The attacker's deployed cards in the hand.

    Normal and Broadside: the attacking ship alone. Ramming: "both of the
    Captain's Deployed Ship Cards in that Sealane".
    """
    if style == AttackStyle.RAM:
        lane = zone_lane(dst)
        return [ship[z] for z in (lane, lane + 3, lane + 6) if owner[z] == attacker]
    return [ship[src]]


def defence_support(owner: list[int], ship: list[int], src: int, dst: int,
                    style: AttackStyle, bastion: str = "ramming") -> list[int]:
    """Candidate supporting ships of the defender (face-up, next to the ship under attack).

    Ramming: Bastion Defence, "a Card adjacent to the Rammed Card Ship".
    Broadside: Broadside Defence, "a second Card in the same Row that is adjacent".
    Normal: none ("based on only these 2 Cards"), unless ``bastion="any_attack"``:
    then a ship in its own Seaport is supported by a Seaport neighbour (glossary,
    "Bastion ... Both Card Ships Support each other in the event of an Attack").
    """
    defender = owner[dst]
    if style == AttackStyle.NORMAL:
        if bastion != "any_attack" or depth(defender, dst) != 0:
            return []
        return [ship[z] for z in NEIGHBOURS[dst] if owner[z] == defender and zone_row(z) == zone_row(dst)]
    out = []
    for z in NEIGHBOURS[dst]:
        if owner[z] != defender or z == src:
            continue
        if style == AttackStyle.BROADSIDE and zone_row(z) != zone_row(dst):
            continue
        out.append(ship[z])
    return out


def special_attack_allowed(owner: list[int], attacker: int, src: int, dst: int,
                           horizontal: bool, deck_count: int, broadside_empty_deck: str) -> bool:
    """Whether the geometry-dependent attack (Broadside or Ramming) may be declared.

    Broadside: "targeting a Card Ship in the same horizontal Row", and it draws
    from the deck (with an empty deck only if the option allows two cards).
    Ramming: "2 Ship Cards in the same Sealane as the Opponent Ship being Attacked".
    """
    if horizontal:
        return deck_count > 0 or broadside_empty_deck == "two_cards"
    lane = zone_lane(dst)
    return sum(1 for z in (lane, lane + 3, lane + 6) if owner[z] == attacker) == 2
