"""The rules of the hex WW2 card-activation game as a state machine.

Each turn one card is dealt face up per unit (off-table artillery included);
units act from King down to Ace (suits spades > hearts > diamonds > clubs).
An activated unit moves, shoots, lays smoke (mortars, artillery) or passes. A
shot at an unactivated unit in the open lets its side decide on evasive
action. Chance (shuffles, D3 rolls) comes from the seeded Generator held in
the state. Victory (objectives, turn limit, elimination) comes from the
scenario (RULES.md).
"""

from __future__ import annotations

import copy
from enum import IntEnum
from typing import NamedTuple

import numpy as np

from cardwar.envs.hexwar.actions import (
    DECODED, EVADE, MOVE_BASE, NO_EVADE, NUM_ACTIONS, PASS, SHOOT_BASE, SMOKE_BASE, Kind, action_to_string, encode,
)
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.geometry import DIST, NEIGH, WITHIN_SIGHT
from cardwar.envs.hexwar.movement import path_to, reachable
from cardwar.envs.hexwar.scenario import SIDES, Scenario, cell_of
from cardwar.envs.hexwar.shooting import hits_from, shot_modifier
from cardwar.envs.hexwar.sighting import line_of_sight, takes_cover
from cardwar.envs.hexwar.terrain import open_terrain
from cardwar.envs.hexwar.units import ELIMINATED_AFTER, MORTAR_MIN_RANGE, DIRECT_RANGE, STATS, FireClass, UnitType

OFF_TABLE = -1
ELIMINATED = -2
NUM_CARDS = 52


class HexPhase(IntEnum):
    """What the game waits for."""

    ACT = 0
    EVADE = 1
    GAME_OVER = 2


class HexIllegalActionError(ValueError):
    """An action the rules do not allow now."""


class PendingShot(NamedTuple):
    """A declared shot waiting for the target side's evasive-action decision."""

    shooters: tuple[int, ...]
    target: int


class ShotReport(NamedTuple):
    """One resolved shot, public once rolled."""

    shooter: int
    target: int
    roll: int
    modifier: int
    hits: int
    cover: bool
    evaded: bool
    eliminated: bool


def card_order_key(card: int) -> tuple[int, int]:
    """Activation order: "highest value card (Kings) working down to ... (Aces)", then
    "Spades, Hearts, Diamonds, Clubs" (cards are ``suit * 13 + rank - 1``, clubs = 0)."""
    return card % 13, card // 13


def public_ids(side: list[int], utype: list[UnitType], cell: list[int], hidden: list[bool],
               rng: np.random.Generator) -> list[int]:
    """The ids views name units by: a fresh shuffle of ``0..n-1`` each game (RULES 8.1).

    The shuffle is drawn over the units in a public order - first the units every side
    sees at the start, by side, hex and type; then the hidden ones - so that the id a
    known unit gets, and the card it is dealt (cards go out in id order), depend only on
    public facts and the dice, never on where hidden units stand, what they are or where
    the scenario lists them. A gap in the ids a side sees shows no more than the number
    of hidden units, which the face-up cards make public anyway.
    """
    def key(u: int) -> tuple:
        return hidden[u], side[u], cell[u], int(utype[u])

    ranked = sorted(range(len(side)), key=key)  # ties: identical units in one hex, interchangeable
    shuffle = rng.permutation(len(side)).tolist()
    ids = [0] * len(side)
    for rank, u in enumerate(ranked):
        ids[u] = shuffle[rank]
    return ids


class HexState:
    """A whole game: units, cards, smoke, objectives and whose decision is next."""

    __slots__ = ("scenario", "config", "rng", "side", "utype", "cell", "hits", "activated", "hidden", "card",
                 "deck", "discards", "order", "ptr", "phase", "turn", "smoke", "holders", "pending", "last_shots",
                 "winner", "result", "move_number", "public_id", "_moves_memo", "_occ_memo")

    # ------------------------------------------------------------------ setup
    @classmethod
    def new_game(cls, scenario: Scenario, config: HexConfig | None = None, seed: int | None = None) -> HexState:
        """Place the scenario's forces, shuffle the deck and deal the first turn."""
        s = cls.__new__(cls)
        s.scenario, s.config = scenario, config or HexConfig()
        s.rng = np.random.default_rng(seed)
        units = scenario.units
        s.side = [u.side for u in units]
        s.utype = [u.type for u in units]
        s.cell = [OFF_TABLE if u.hex is None else cell_of(u.hex) for u in units]
        s.hits = [0] * len(units)
        s.activated = [False] * len(units)
        s.hidden = [u.hidden and s.config.hidden_units for u in units]
        s.card = [-1] * len(units)
        s.deck = s.rng.permutation(NUM_CARDS).tolist()
        s.public_id = public_ids(s.side, s.utype, s.cell, s.hidden, s.rng)
        s.discards = []
        s.order, s.ptr, s.turn = [], 0, 0
        s.smoke = []
        s.holders = [o.holder for o in scenario.objectives]
        s.pending, s.last_shots, s.winner, s.result, s.move_number = None, (), None, None, 0
        s._moves_memo = s._occ_memo = None
        s.phase = HexPhase.ACT
        s._start_turn()
        s._update_holders()
        return s

    def clone(self) -> HexState:
        """An independent copy (lists copied; scenario, config and records shared, being immutable)."""
        c = HexState.__new__(HexState)
        c.scenario, c.config = self.scenario, self.config
        bg = type(self.rng.bit_generator)()
        bg.state = self.rng.bit_generator.state
        c.rng = np.random.Generator(bg)
        c.side, c.utype, c.cell, c.hits = self.side[:], self.utype[:], self.cell[:], self.hits[:]
        c.activated, c.hidden, c.card = self.activated[:], self.hidden[:], self.card[:]
        c.deck, c.discards, c.order, c.smoke, c.holders = (self.deck[:], self.discards[:], self.order[:],
                                                           self.smoke[:], self.holders[:])
        c.ptr, c.phase, c.turn, c.pending, c.last_shots = self.ptr, self.phase, self.turn, self.pending, self.last_shots
        c.winner, c.move_number, c._moves_memo, c._occ_memo = self.winner, self.move_number, None, None
        c.public_id = self.public_id
        c.result = copy.deepcopy(self.result) if self.result is not None else None
        return c

    # ------------------------------------------------------------------ queries
    def alive(self, u: int) -> bool:
        """Not eliminated."""
        return self.cell[u] != ELIMINATED

    def acting_unit(self) -> int:
        """The unit whose card is up (-1 when none)."""
        return self.order[self.ptr] if self.phase != HexPhase.GAME_OVER and self.ptr < len(self.order) else -1

    @property
    def current_player(self) -> int:
        """Side to decide: the acting unit's, or the target's side during an evasion decision."""
        if self.phase == HexPhase.EVADE:
            return self.side[self.pending.target]
        u = self.acting_unit()
        return self.side[u] if u >= 0 else 0

    def is_terminal(self) -> bool:
        return self.phase == HexPhase.GAME_OVER

    def returns(self) -> list[float]:
        """+1 / -1 at the end (0 each for a draw or an unfinished game)."""
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    def known_occupants(self, viewer: int) -> dict[int, list[int]]:
        """Cell -> living on-table units there that ``viewer``'s side knows of, in public-id order
        (the order of the slots a shot names, ``shoot E5/2``, and of the views)."""
        occ: dict[int, list[int]] = {}
        for u, c in enumerate(self.cell):
            if c >= 0 and (self.side[u] == viewer or not self.hidden[u]):
                here = occ.get(c)
                if here is None:
                    occ[c] = [u]
                else:
                    here.append(u)
                    here.sort(key=self.public_id.__getitem__)
        return occ

    def _occupants(self, viewer: int) -> dict[int, list[int]]:
        """:meth:`known_occupants`, remembered for the current position (listing the legal moves, then
        making one, reads it twice): a private dict the rules only read, checked against the units' cells
        and hidden flags as well as the move number."""
        memo = getattr(self, "_occ_memo", None)  # unset in states other code builds field by field
        if (memo is not None and memo[0] == self.move_number and memo[1] == viewer and memo[2] == self.cell
                and memo[3] == self.hidden):
            return memo[4]
        occ = self.known_occupants(viewer)
        self._occ_memo = (self.move_number, viewer, self.cell[:], self.hidden[:], occ)
        return occ

    def _blockers(self, viewer: int, occ: dict[int, list[int]]) -> set[int]:
        if self.config.los_blocked_by == "any_unit":
            return set(occ)
        return {c for c, us in occ.items() if any(self.side[u] != viewer for u in us)}

    def sees(self, viewer: int, a: int, b: int, occ: dict[int, list[int]] | None = None) -> bool:
        """Whether a unit at cell ``a`` sees cell ``b`` (as ``viewer``'s side knows the board)."""
        occ = self.known_occupants(viewer) if occ is None else occ
        return line_of_sight(a, b, self.scenario.terrain, self._blockers(viewer, occ), self.smoke, self.config,
                             self.scenario.on_map)

    def spotted_cells(self, side: int, occ: dict[int, list[int]]) -> set[int]:
        """Cells some unit of ``side`` sees: where indirect fire may fall ("where there is
        a friendly [unit that can] sight the target")."""
        blockers = self._blockers(side, occ)
        terrain, smoke, cfg, on_map = self.scenario.terrain, self.smoke, self.config, self.scenario.on_map
        out: set[int] = set()
        for u, c in enumerate(self.cell):
            if c >= 0 and self.side[u] == side:
                out.update(t for t in WITHIN_SIGHT[c] if t not in out
                           and line_of_sight(c, t, terrain, blockers, smoke, cfg, on_map))
        return out

    def _next_to_friends(self, firer: int, target_cell: int) -> bool:
        """Artillery and mortars "cannot target units in hexes adjacent to friendly units" - other
        than the firing unit itself (so the mortar's minimum range has a meaning)."""
        near, side = NEIGH[target_cell], self.side[firer]
        return any(c in near for u, c in enumerate(self.cell) if c >= 0 and u != firer and self.side[u] == side)

    def can_shoot(self, u: int, t: int, occ: dict[int, list[int]], spotted: set[int] | None = None) -> bool:
        """Whether unit ``u`` may shoot at enemy unit ``t`` (range, sight, indirect-fire limits)."""
        tc, uc, side = self.cell[t], self.cell[u], self.side[u]
        if tc < 0 or self.side[t] == side or self.hidden[t]:
            return False  # "Hidden units cannot be shot at until they are revealed."
        if STATS[self.utype[u]].fire == FireClass.INDIRECT:
            if uc >= 0 and self.utype[u] == UnitType.MORTAR and DIST[uc][tc] < MORTAR_MIN_RANGE:
                return False
            if spotted is None:
                spotted = self.spotted_cells(side, occ)
            return not self._next_to_friends(u, tc) and tc in spotted
        if uc < 0 or DIST[uc][tc] > DIRECT_RANGE:
            return False
        if DIST[uc][tc] <= 1:
            return True  # adjacent units always see each other
        return self.sees(side, uc, tc, occ)

    def can_smoke(self, u: int, cell: int, occ: dict[int, list[int]], spotted: set[int] | None = None,
                  own: set[int] | None = None) -> bool:
        """Smoke: mortars and artillery, on an open hex a friendly unit holds or sees."""
        if STATS[self.utype[u]].fire != FireClass.INDIRECT or cell in self.smoke:
            return False
        if not self.scenario.on_map[cell] or not self.in_open(cell):
            return False
        uc = self.cell[u]
        if uc >= 0 and self.utype[u] == UnitType.MORTAR and DIST[uc][cell] < MORTAR_MIN_RANGE:
            return False
        if own is None:
            own = {c for v, c in enumerate(self.cell) if c >= 0 and self.side[v] == self.side[u]}
        if cell in own:
            return True
        if spotted is None:
            spotted = self.spotted_cells(self.side[u], occ)
        return cell in spotted

    def in_open(self, cell: int) -> bool:
        """Whether ``cell`` is open terrain as the rules in force read it (evasive action, smoke)."""
        return self.scenario.terrain[cell] in open_terrain(self.config.open_terrain)

    def stacking(self) -> tuple[int, ...]:
        """Units each cell may hold: two in open terrain, one in any terrain hex (RULES 1)."""
        return self.scenario.stacking(self.config.open_terrain)

    def partner(self, u: int) -> int:
        """Joint Activation: an unactivated friendly unit sharing ``u``'s hex (-1 if none)."""
        if not self.config.joint_activation or self.cell[u] < 0:
            return -1
        for v, c in enumerate(self.cell):
            if v != u and c == self.cell[u] and self.side[v] == self.side[u] and not self.activated[v]:
                return v
        return -1

    def moves(self, u: int, occ: dict[int, list[int]], extra: int = 1) -> tuple[set[int], dict[int, int]]:
        """(destinations, BFS parents) of unit ``u``'s move, from its side's knowledge.

        Remembered for the current position only (keyed by the move number), so that
        listing the legal moves and then making one searches once.
        """
        key = (self.move_number, u, extra)
        if self._moves_memo is not None and self._moves_memo[0] == key:
            return self._moves_memo[1]
        sc = self.scenario
        res = reachable(self.cell[u], STATS[self.utype[u]].move, self.side[u], sc.terrain, sc.passable,
                        self.stacking(), occ, self.side, extra)
        self._moves_memo = (key, res)
        return res

    def slot_of(self, t: int, occ: dict[int, list[int]]) -> int:
        """0 or 1: the target's place among the units its hex shows."""
        return occ[self.cell[t]].index(t)

    def legal_actions(self) -> list[int]:
        """Sorted ids of every legal action for :attr:`current_player`."""
        if self.phase == HexPhase.EVADE:
            return [EVADE, NO_EVADE]
        if self.phase != HexPhase.ACT:
            return []
        u = self.acting_unit()
        side = self.side[u]
        occ = self._occupants(side)
        acts = []
        if self.cell[u] >= 0:
            acts += [MOVE_BASE + c for c in self.moves(u, occ)[0]]
        spotted = self.spotted_cells(side, occ) if STATS[self.utype[u]].fire == FireClass.INDIRECT else None
        sides = self.side  # can_shoot refuses every unit of the shooter's own side: those are not asked
        targets = [t for t in range(len(self.cell)) if sides[t] != side and self.can_shoot(u, t, occ, spotted)]
        acts += [SHOOT_BASE + 2 * self.cell[t] + self.slot_of(t, occ) for t in targets]
        if spotted is not None:
            own = {c for v, c in enumerate(self.cell) if c >= 0 and self.side[v] == side}
            acts += [SMOKE_BASE + c for c in spotted | own if self.can_smoke(u, c, occ, spotted, own)]
        p = self.partner(u)
        if p >= 0:
            both = self.moves(u, occ, extra=2)[0] & self.moves(p, occ, extra=2)[0]
            acts += [encode(Kind.JOINT_MOVE, c) for c in both]
            acts += [encode(Kind.JOINT_SHOOT, self.cell[t], self.slot_of(t, occ))
                     for t in targets if self.can_shoot(p, t, occ)]
        acts.append(PASS)
        return sorted(acts)

    def legal_action_mask(self) -> np.ndarray:
        """int8 vector: 1 exactly for the legal actions."""
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        m[self.legal_actions()] = 1
        return m

    def _target_at(self, cell: int, slot: int, occ: dict[int, list[int]]) -> int:
        here = occ.get(cell, [])
        return here[slot] if slot < len(here) else -1

    def is_legal(self, action: int) -> bool:
        """Check one action against the rules directly."""
        if not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            return False
        a = DECODED[int(action)]
        if self.phase == HexPhase.EVADE:
            return a.kind in (Kind.EVADE, Kind.NO_EVADE)
        if self.phase != HexPhase.ACT or a.kind in (Kind.EVADE, Kind.NO_EVADE):
            return False
        if a.kind == Kind.PASS:
            return True
        u = self.acting_unit()
        occ = self.known_occupants(self.side[u])
        if a.kind == Kind.MOVE:
            return self.cell[u] >= 0 and a.cell in self.moves(u, occ)[0]
        if a.kind == Kind.SMOKE:
            return self.can_smoke(u, a.cell, occ)
        if a.kind in (Kind.SHOOT, Kind.JOINT_SHOOT):
            t = self._target_at(a.cell, a.slot, occ)
            if t < 0 or not self.can_shoot(u, t, occ):
                return False
            if a.kind == Kind.SHOOT:
                return True
            p = self.partner(u)
            return p >= 0 and self.can_shoot(p, t, occ)
        p = self.partner(u)  # JOINT_MOVE
        return p >= 0 and a.cell in self.moves(u, occ, 2)[0] and a.cell in self.moves(p, occ, 2)[0]

    # ------------------------------------------------------------------ transitions
    def apply_action(self, action: int, validate: bool = True) -> None:
        """Play ``action``; :class:`HexIllegalActionError` explains an illegal one.

        ``validate=False`` skips the check, for callers that took the action from
        :meth:`legal_actions` of this very state (the env's mask).
        """
        if validate and not self.is_legal(action):
            raise HexIllegalActionError(self._illegal_message(action))
        a = DECODED[int(action)]
        if self.phase == HexPhase.EVADE:
            self.move_number += 1
            evade = a.kind == Kind.EVADE
            if evade:
                self.activated[self.pending.target] = True  # "sacrifices its action for the turn"
            self._resolve(self.pending.shooters, self.pending.target, evade)
            self.pending = None
            self.phase = HexPhase.ACT
            self._end_activation()
            return
        u = self.acting_unit()
        occ = self._occupants(self.side[u])
        if a.kind in (Kind.MOVE, Kind.JOINT_MOVE):
            movers = [u] if a.kind == Kind.MOVE else [u, self.partner(u)]
            self._move(movers, a.cell, occ)  # before the move number changes: reuses this position's search
            for m in movers:
                self.activated[m] = True
        self.move_number += 1
        self.activated[u] = True
        if a.kind in (Kind.MOVE, Kind.JOINT_MOVE):
            pass
        elif a.kind in (Kind.SHOOT, Kind.JOINT_SHOOT):
            shooters = [u] if a.kind == Kind.SHOOT else [u, self.partner(u)]
            for m in shooters:
                self.activated[m] = True
                self.hidden[m] = False  # revealed by shooting
            t = self._target_at(a.cell, a.slot, occ)
            if not self.activated[t] and self.in_open(self.cell[t]):
                self.pending = PendingShot(tuple(shooters), t)  # the target's side decides on evasion
                self.phase = HexPhase.EVADE
                return
            self._resolve(tuple(shooters), t, False)
        elif a.kind == Kind.SMOKE:
            self.hidden[u] = False  # firing smoke gives the position away too
            self.smoke.append(a.cell)
            self._update_holders()
        self._end_activation()

    def _illegal_message(self, action: int) -> str:
        if not isinstance(action, (int, np.integer)) or not 0 <= action < NUM_ACTIONS:
            return f"action id {action!r} is outside 0..{NUM_ACTIONS - 1}"
        if self.phase == HexPhase.GAME_OVER:
            return "the game is over"
        legal = self.legal_actions()
        return (f"{action_to_string(action)!r} is not legal for {SIDES[self.current_player]} now; "
                f"{len(legal)} legal actions, e.g. " + ", ".join(action_to_string(x) for x in legal[:6]))

    def _move(self, movers: list[int], dest: int, occ: dict[int, list[int]]) -> None:
        """Walk the path; hidden enemies next to a hex entered are revealed and stop the move (RULES 8.1).

        A move stopped in a hex with no room for the movers (it was passing through friends)
        ends in the last hex of its path that has room: the hex before, or one further back,
        or at worst the start hex - the seed lets friends pass each other only away from the
        enemy ("unless adjacent to an enemy occupied hex"), so the movers could not be there.
        """
        start, side = self.cell[movers[0]], self.side[movers[0]]
        _, parent = self.moves(movers[0], occ, extra=len(movers))
        stack = self.stacking()
        for m in movers:
            self.hidden[m] = False  # "They remain hidden until they move"
        last_room = start
        for c in path_to(parent, start, dest):
            inside = [v for v in range(len(self.cell)) if self.cell[v] == c and self.side[v] != side]
            if inside:  # a hidden enemy in the very hex: revealed, the move ends before it
                for v in inside:
                    self.hidden[v] = False
                break
            if sum(x == c for x in self.cell) + len(movers) <= stack[c]:
                last_room = c
            revealed = [v for v in range(len(self.cell)) if self.hidden[v] and self.side[v] != side
                        and self.cell[v] in NEIGH[c]]
            for v in revealed:
                self.hidden[v] = False  # "an enemy unit moves into an adjacent hex"
            if revealed:
                break  # now next to an enemy: "must cease movement"
        for m in movers:
            self.cell[m] = last_room  # no stopping in a full hex
        self._update_holders()

    def _resolve(self, shooters: tuple[int, ...], t: int, evaded: bool) -> None:
        """Roll a D3 for each shooter and apply the hits."""
        reports = []
        for s in shooters:
            if self.cell[t] < 0:
                break
            tc, sc = self.cell[t], self.cell[s]
            direct = STATS[self.utype[s]].fire != FireClass.INDIRECT
            cover = takes_cover(self.utype[t], tc, sc if direct and sc >= 0 else None, self.scenario.terrain,
                                self.smoke, self.config)
            dist = DIST[sc][tc] if sc >= 0 else 99
            mod = shot_modifier(self.utype[s], self.utype[t], dist, cover, evaded, self.config.double_count)
            roll = int(self.rng.integers(1, 4))  # D3: 1,1,2,2,3,3
            hits = hits_from(roll, mod)
            self.hits[t] += hits
            if hits and self.utype[t] == UnitType.MOTORISED:
                self.utype[t] = UnitType.FOOT  # "treated as foot infantry ... as soon as they take a hit"
            gone = self.hits[t] > ELIMINATED_AFTER
            if gone:
                self.cell[t] = ELIMINATED
            reports.append(ShotReport(s, t, roll, mod, hits, cover, evaded, gone))
        self.last_shots = tuple(reports)
        self._update_holders()

    def _update_holders(self) -> None:
        """An objective is held by the side whose revealed unit last stood on it."""
        for i, o in enumerate(self.scenario.objectives):
            c = cell_of(o.hex)
            for u, uc in enumerate(self.cell):
                if uc == c and not self.hidden[u]:
                    self.holders[i] = self.side[u]
                    break

    def _end_activation(self) -> None:
        """Check elimination; move on to the next card, or end the turn."""
        on_table = [any(c >= 0 and self.side[u] == s for u, c in enumerate(self.cell)) for s in (0, 1)]
        if not all(on_table):
            winner = None if not any(on_table) else on_table.index(True)
            self._game_over(winner, {"reason": "elimination"})
            return
        self.ptr += 1
        while self.ptr < len(self.order) and (self.activated[self.order[self.ptr]]
                                              or not self.alive(self.order[self.ptr])):
            self.ptr += 1
        if self.ptr >= len(self.order):
            if self.turn >= self.scenario.turns:
                self._final_score()
            else:
                self._start_turn()

    def _start_turn(self) -> None:
        """Remove smoke; deal a card per unit (reshuffling if needed); order King to Ace."""
        self.turn += 1
        self.smoke = []
        self.discards += sorted(c for c in self.card if c >= 0)  # an order that says nothing of the units
        live = [u for u in range(len(self.cell)) if self.alive(u)]
        if len(self.deck) < len(live):
            self.deck += self.discards
            self.discards = []
            self.rng.shuffle(self.deck)
        self.card = [-1] * len(self.cell)
        for u in sorted(live, key=self.public_id.__getitem__):  # dealt in public-id order: see public_ids
            self.card[u] = self.deck.pop()
            self.activated[u] = False
        self.order = sorted(live, key=lambda u: card_order_key(self.card[u]), reverse=True)
        self.ptr = 0

    def _final_score(self) -> None:
        self.hidden = [False] * len(self.cell)  # the game is over: every unit is shown
        self._update_holders()
        points = [0, 0]
        for o, h in zip(self.scenario.objectives, self.holders):
            if h >= 0:
                points[h] += o.value
        lost = [sum(1 for u in range(len(self.cell)) if self.side[u] == s and not self.alive(u)) for s in (0, 1)]
        winner = None if points[0] == points[1] else (0 if points[0] > points[1] else 1)
        self._game_over(winner, {"reason": "turn limit", "objective_points": points, "units_lost": lost})

    def _game_over(self, winner: int | None, result: dict) -> None:
        self.phase, self.winner, self.result, self.pending = HexPhase.GAME_OVER, winner, result, None

    def to_dict(self) -> dict:
        """The full state (hidden information included) as JSON-friendly data."""
        from cardwar.envs.hexwar.serialize import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict) -> HexState:
        """Inverse of :meth:`to_dict`."""
        from cardwar.envs.hexwar.serialize import state_from_dict

        return state_from_dict(data)

    def information_view(self, side: int | None):
        """What ``side`` may know (``None``: a spectator who sees no hidden unit)."""
        from cardwar.envs.hexwar.view import HexView

        return HexView.of(self, side)
