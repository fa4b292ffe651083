"""Deck-exhaustion victory and its tie-breakers (seed, Overview and Objective 2 and 3).

"Occupy the most Enemy Sealanes when there are no more Ships (cards) remaining in
the Deck of Cards. If neither Captain occupies more Sealanes than the other, the
winner is the Captain with the most number of Cards in hand. If there is still a
tie, the Captain with the highest ranking Poker Hand (in their hand) wins."
The Alternate Win Condition puts "most Seazones controlled" before cards in hand.
"""

from __future__ import annotations

from dataclasses import dataclass

from cardwar.envs.naval.cards import cards_to_str
from cardwar.envs.naval.config import NavalConfig
from cardwar.envs.naval.hands import best_hand, hand_strength
from cardwar.envs.naval.seemap import CAPTAIN_NAMES, zone_at


def sealanes_occupied(owner: list[int], captain: int, rule: str) -> int:
    """Sealanes that count for ``captain``: holding the enemy Seaport of the lane
    (``"enemy_seaport"``), or having more ships in it than the enemy (``"majority"``)."""
    count = 0
    for lane in range(3):
        if rule == "enemy_seaport":
            count += owner[zone_at(captain, lane, 2)] == captain
        else:
            mine = sum(owner[zone_at(captain, lane, d)] == captain for d in range(3))
            theirs = sum(owner[zone_at(captain, lane, d)] == 1 - captain for d in range(3))
            count += mine > theirs
    return count


@dataclass(frozen=True)
class DeckOutResult:
    """The comparison that decided a game ended by deck exhaustion."""

    winner: int | None
    decided_by: str
    sealanes: tuple[int, int]
    seazones: tuple[int, int]
    cards_in_hand: tuple[int, int]
    best_hands: tuple[tuple[int, ...], tuple[int, ...]]

    def to_dict(self) -> dict:
        """JSON-friendly summary. The best hands are revealed only when they decide the game
        (the last tie-breaker); otherwise the hands stay secret, as during play."""
        out = {"reason": "deck exhausted", "decided_by": self.decided_by,
               "sealanes": list(self.sealanes), "seazones": list(self.seazones),
               "cards_in_hand": list(self.cards_in_hand)}
        if self.decided_by in ("best poker hand", "draw"):
            out["best_hands"] = [cards_to_str(h) for h in self.best_hands]
        return out


def score_deck_out(owner: list[int], hands: list[list[int]], config: NavalConfig) -> DeckOutResult:
    """Compare the captains criterion by criterion; the first difference decides."""
    lanes = tuple(sealanes_occupied(owner, p, config.sealane_control) for p in (0, 1))
    zones = tuple(sum(o == p for o in owner) for p in (0, 1))
    cards = (len(hands[0]), len(hands[1]))
    bests = (best_hand(hands[0]), best_hand(hands[1]))
    strength = tuple(hand_strength(h) if h else -1 for h in bests)
    order = [("sealanes", lanes)]
    if config.alternate_win:
        order.append(("seazones", zones))
    order += [("cards in hand", cards), ("best poker hand", strength)]
    winner, decided_by = None, "draw"
    for name, (a, b) in order:
        if a != b:
            winner, decided_by = (0 if a > b else 1), name
            break
    return DeckOutResult(winner, decided_by, lanes, zones, cards, bests)  # type: ignore[arg-type]


def describe_result(result: dict | None, winner: int | None) -> str:
    """One line for people: who won and why."""
    if result is None:
        return "game in progress"
    who = "draw" if winner is None else f"Captain {CAPTAIN_NAMES[winner]} wins"
    if result["reason"] == "blockade":
        return f"{who} by blockade of all three enemy Seaports"
    detail = (f"sealanes A {result['sealanes'][0]} - B {result['sealanes'][1]}, "
              f"cards in hand {result['cards_in_hand'][0]} - {result['cards_in_hand'][1]}")
    return f"{who}: deck exhausted, decided by {result['decided_by']} ({detail})"
