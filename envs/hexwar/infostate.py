"""Resampling a side's information state: another full game the side cannot tell from this one.

:func:`resample_hidden` is the hex game's ``resample_hidden`` registry hook (``cardwar.games``), used by the
information-state harness (``tests/hidden/test_infostate.py``): everything a side is given must be the same in
the resampled state as in the true one.

What a side does not know (RULES.md 8.1, 10; ``HexView``): the deck order, the future die rolls, and the other
side's hidden units - each one's hex, type, public id, place in the scenario's list and which of the face-up
hidden cards is its. What it does know of them and what stays: how many there are per side, their cards and
whether each card was played (``hidden_cards``); hidden units have no hits (they cannot be shot at).

The redraw:

- the undealt deck is shuffled and the state's Generator reseeded (the dice and the reshuffles to come);
- within each side, the hidden units' (public id, card, played) triples are permuted, and the activation order is
  rebuilt from the cards (the same cards in the same order; a hidden unit's card may now be another's);
- each hidden unit on the table is put on a new hex (its type goes with it), one at a time, on a passable hex of
  the map holding no unit of the other side and with room under the stacking limit. The hexes are **targeted**:
  with probability :data:`TARGETED` among the hexes of :func:`target_cells` (the acting unit's first): on the
  lines of fire to the enemies the seat knows and those enemies' own hexes, where it could move to, move through
  (and their neighbours, where a move is stopped and a hidden unit revealed) or see, and what it would see next;
  otherwise anywhere. The scenario's forces are rewritten to match (a hidden
  unit has never moved, so it starts where it stands), so nothing that reads the scenario's unit list can see the
  true hexes either.

What is kept conservative: a hidden unit is never moved to another side's hex or off the table (or onto it), the
hidden units' types are only redistributed (their mix is the scenario's), and ids and cards are exchanged only
among the hidden units of one side. The hexes are chosen from the seat's view of the board, not from the game's
history: a resample may put a hidden unit next to a hex a unit of the seat's side once walked through, which that
move would have revealed. The seat's information state here is its view (the view does not remember paths;
``cardwar.openspiel`` says the same), and the view of the resample equals the true one.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from cardwar.envs.hexwar.geometry import BETWEEN, DIST, NEIGH, WITHIN_SIGHT
from cardwar.envs.hexwar.movement import reachable
from cardwar.envs.hexwar.scenario import NUM_CELLS, hex_of
from cardwar.envs.hexwar.state import ELIMINATED, HexState
from cardwar.envs.hexwar.units import STATS, FireClass

TARGETED = 0.85
"""How often a hidden unit is put on a targeted hex (when one has room) rather than anywhere."""
PREFER = 0.5
"""How often a targeted hex is taken from the hottest tier with room rather than a wider one (:func:`target_cells`)."""


def target_cells(s: HexState, seat: int) -> tuple[set[int], ...]:
    """The hexes where a hidden enemy would matter most to ``seat`` now, hottest first.

    The focus is the seat's acting unit (and its joint partner); every unit of the seat when none of its own acts.

    1. *fire at*: the hexes of the enemy units a focus unit knows within two (a hidden unit stacked with a visible
       one: which is ``shoot E5/2``?) and the hexes strictly between them (a line of sight), and the same for
       every unit of the seat when it has mortars or artillery (they fire where a friend sees);
    2. *move to*: the hexes a focus unit could move to, and the hexes next to it (a unit next to an enemy may only
       leave away from it);
    3. *near*: the hexes a focus unit could move into or through and their neighbours (where a move is stopped),
       and the hexes within two of it (what it sees);
    4. *see next*: the same for every unit of the seat, the hexes within two of every hex it could move to, and
       the hexes the seat spots when it has mortars or artillery.
    """
    occ = s.known_occupants(seat)
    sc = s.scenario
    stack = s.stacking()
    acting = s.acting_unit()
    own = [u for u, c in enumerate(s.cell) if c != ELIMINATED and s.side[u] == seat]
    if acting >= 0 and s.side[acting] == seat:
        focus = {acting} | ({s.partner(acting)} - {-1})
    else:
        focus = set(own)
    enemies = {c for c, us in occ.items() if s.side[us[0]] != seat}
    indirect = any(STATS[s.utype[u]].fire == FireClass.INDIRECT for u in own)
    fire: set[int] = set()
    move: set[int] = set()
    near: set[int] = set()
    wide: set[int] = set()
    for u in own:
        c = s.cell[u]
        if c < 0:
            continue  # off-table artillery
        if u in focus or indirect:
            sighted = enemies.intersection(WITHIN_SIGHT[c])
            fire |= sighted.union(*(BETWEEN[(c, e)][0] + BETWEEN[(c, e)][1] for e in sighted if DIST[c][e] == 2))
        dests, parent = reachable(c, STATS[s.utype[u]].move, seat, sc.terrain, sc.passable, stack, occ, s.side)
        entered = dests | set(parent) | {c}
        around = entered.union(*(NEIGH[x] for x in entered), WITHIN_SIGHT[c])
        wide |= around.union(*(WITHIN_SIGHT[x] for x in dests))
        if u in focus:
            move |= dests.union(NEIGH[c])
            near |= around
    if indirect:
        wide |= s.spotted_cells(seat, occ)
    fire.discard(-1)  # a line side off the grid
    return fire, move, near, wide


def resample_hidden(state: HexState, seat: int | None, rng: np.random.Generator,
                    targeted: float = TARGETED) -> HexState:
    """Another full state that ``seat`` (0, 1, or None for a spectator) cannot tell from ``state``: its information
    view is the same, and the deck order, the dice and the other side's hidden units are redrawn from ``rng``
    (see the module's docstring). ``state`` is not changed."""
    s = state.clone()
    s.rng = np.random.default_rng(int(rng.integers(2**63)))
    s.deck = [s.deck[i] for i in rng.permutation(len(s.deck))]
    n = len(s.cell)
    unknown = [u for u in range(n) if s.hidden[u] and s.cell[u] != ELIMINATED and s.side[u] != seat]
    if not unknown:
        return s
    # Whose card and id is whose, within each side.
    pid = list(s.public_id)  # a new list: the views cache the id order by the list's identity
    for side in (0, 1):
        us = [u for u in unknown if s.side[u] == side]
        triples = [(pid[u], s.card[u], s.activated[u]) for u in us]
        for u, j in zip(us, rng.permutation(len(us))):
            pid[u], s.card[u], s.activated[u] = triples[j]
    s.public_id = pid
    holder = {c: u for u, c in enumerate(s.card) if c >= 0 and s.cell[u] != ELIMINATED}
    s.order = [holder.get(state.card[u], u) for u in state.order]
    # Where each hidden unit on the table stands.
    movers = [u for u in unknown if s.cell[u] >= 0]
    if movers:
        _place(s, movers, seat, rng, targeted)
    return s


def _place(s: HexState, movers: list[int], seat: int | None, rng: np.random.Generator, targeted: float) -> None:
    sc = s.scenario
    stack = s.stacking()
    tiers = target_cells(s, seat) if seat is not None else ()
    moving = set(movers)
    count = [0] * NUM_CELLS
    sides: list[set[int]] = [set() for _ in range(NUM_CELLS)]
    for u, c in enumerate(s.cell):
        if c >= 0 and u not in moving:
            count[c] += 1
            sides[c].add(s.side[u])
    units = list(sc.units)
    for k in rng.permutation(len(movers)):
        u = movers[int(k)]
        side = s.side[u]
        valid = [c for c in range(NUM_CELLS)
                 if sc.passable[c] and count[c] < stack[c] and sides[c] <= {side}]
        if not valid:
            valid = [s.cell[u]]  # (cannot happen: its own hex had room) stay
        pick = valid
        if rng.random() < targeted:  # the hottest tier with room, or (each time with 1 - PREFER) a wider one
            for tier in tiers:
                hot = [c for c in valid if c in tier]
                if hot:
                    pick = hot
                    if rng.random() < PREFER:
                        break
        c = pick[int(rng.integers(len(pick)))]
        s.cell[u] = c
        count[c] += 1
        sides[c].add(side)
        if u < len(units):
            units[u] = dataclasses.replace(units[u], hex=hex_of(c))
    s.scenario = dataclasses.replace(sc, units=tuple(units))
    s._moves_memo = s._occ_memo = None
