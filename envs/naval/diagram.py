"""Build positions from text diagrams, for rule tests and worked examples.

A diagram lists the Seemap rows top (G H I) to bottom (A B C); each cell is
``.`` or ``CAPTAIN:CARD``::

    . . A:6S
    . B:5D A:3C
    . B:5S A:7D

That is the seed's Figure 3: Captain A holds I, F and C, Captain B holds E and B.
"""

from __future__ import annotations

from cardwar.envs.naval.cards import NUM_CARDS, parse_card, parse_cards
from cardwar.envs.naval.config import NavalConfig
from cardwar.envs.naval.seemap import CAPTAIN_NAMES
from cardwar.envs.naval.state import NavalState, Phase


def state_from_diagram(diagram: str, hands: dict[str, list[str]] | None = None, deck_top: list[str] | None = None,
                       active: str = "A", config: NavalConfig | None = None, turn: int = 2,
                       seed: int = 0) -> NavalState:
    """A state in the action phase of ``active``'s turn with the given board and hands.

    ``deck_top`` lists the next cards to be drawn, first drawn first; every card not
    placed anywhere goes below them in a seeded order. The discard pile starts empty.
    """
    rows = [r.split() for r in diagram.strip().splitlines()]
    if len(rows) != 3 or any(len(r) != 3 for r in rows):
        raise ValueError("a diagram has 3 rows of 3 cells (G H I / D E F / A B C)")
    s = NavalState.new_game(config or NavalConfig(mulligan=False), seed=seed)
    s.owner, s.ship = [-1] * 9, [-1] * 9
    used: list[int] = []
    for r, cells in enumerate(rows):
        for c, cell in enumerate(cells):
            if cell == ".":
                continue
            who, card = cell.split(":")
            z = (2 - r) * 3 + c
            s.owner[z], s.ship[z] = CAPTAIN_NAMES.index(who.upper()), parse_card(card)
            used.append(s.ship[z])
    hands = hands or {}
    s.hands = [parse_cards(hands.get("A", [])), parse_cards(hands.get("B", []))]
    top = parse_cards(deck_top or [])
    used += s.hands[0] + s.hands[1] + top
    if len(set(used)) != len(used):
        raise ValueError("a card appears twice in the diagram, hands or deck")
    rest = [c for c in s.rng.permutation(NUM_CARDS).tolist() if c not in set(used)]
    s.deck = rest + top[::-1]  # the top of the deck is the end of the list
    s.discards = []
    s.phase = Phase.ACTION
    s.active = s.current = CAPTAIN_NAMES.index(active.upper())
    s.turn = turn
    return s
