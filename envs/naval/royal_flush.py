"""Which enemy ships a High Royal Flush winner may sink (seed, Results of Combat).

"A Captain winning a battle using a high Royal Flush (A-K-Q) may destroy any 2
orthogonally adjacent Enemy Card Ships." Each ``royal_flush`` option reads
"any 2 orthogonally adjacent" differently (RULES.md 7.2):

- ``loser_and_adjacent``: the loser sinks, then one enemy neighbour of it
  (handled in the state, no functions needed here);
- ``any_pair``: two enemy ships adjacent to each other, anywhere;
- ``winner_adjacent``: up to two enemy ships adjacent to the winning ship.
"""

from __future__ import annotations

from cardwar.envs.naval.seemap import NEIGHBOURS, NUM_ZONES


def first_sink_candidates(mode: str, owner: list[int], winner: int, winner_zone: int) -> list[int]:
    """Zones the winner may pick first in the modes whose picks replace the normal result."""
    enemy = 1 - winner
    if mode == "any_pair":  # a ship that has an enemy neighbour to make the pair with
        return [z for z in range(NUM_ZONES)
                if owner[z] == enemy and any(owner[n] == enemy for n in NEIGHBOURS[z])]
    return [z for z in NEIGHBOURS[winner_zone] if owner[z] == enemy]


def next_sink_candidates(mode: str, owner: list[int], enemy: int, first: int, winner_zone: int) -> list[int]:
    """Zones for the second pick after ``first`` was sunk."""
    if mode == "any_pair":  # the second ship of the pair: a neighbour of the first
        return [z for z in NEIGHBOURS[first] if owner[z] == enemy]
    if mode == "winner_adjacent":
        return [z for z in NEIGHBOURS[winner_zone] if owner[z] == enemy]
    return []
