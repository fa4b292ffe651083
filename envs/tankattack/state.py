"""The rules of Tank Attack as a state machine (RULES.md 6-17): one action is one small decision.

A bound (6): PIPs rolled (one d6) -> tactical moves and spends (step 2, ``END`` closes it) -> free aerial
contacts and turning to face (step 3)
-> distant shooting, both sides, in the active player's order (step 4) -> close combat in the active
player's order (step 5) -> end of bound (wire cut by Sturmtruppe, flags cleared, break point, turn limit).
Dice are drawn only when rolled, from the state's own numpy Generator.

Built: single-element tactical moves with PIP costs (7.1), going (8.2 "worst"), ZOC (8.5), passing (8.9),
trenches (16.1), wire (16.2); turning to face; shooting with aids and return fire; close combat with
aids, overlaps, flank and rear contacts, rear support, every outcome row; recoil, push-backs, crushing,
flee, pursuit; the Bunker; break point, turn limit, the HotT General option.

Entering reserves (9: Barrages, Gas and its duration, the Fighter call, Bombers, Balloons, Snipers and
Minefields bound to their feature), counter-battery and the Bomber raid (9.2-9.3), moving either side's Gas
(9.4) and paying to lift Suppression (16.3) are step-2 spends (``reserves.py``).

Step 3 opens with the free aerial contacts (10: stages air_contact, air_dest, air_face). In step 5 a
Barrage's friend is the primary (12.1) and Barrages fight enemy wire (16.2).

A chosen Cavalry or Dismounted Cavalry element may (dis)mount instead of moving (8.8: ``MOUNT``,
``DISMOUNT``; a remounted element's ``timer``, 2 when it remounts, counts down at the end of each own bound:
while it is above 0 it moves as Rifles).

Groups (1.7, 8.4) move straight ahead (into a trench, Tanks into wire), turn in place, move along a trench
or out of it, cross wire, or (dis)mount (8.8) (``groups.py``: stages group_add, group_move); a rally frees
a group of Suppressed infantry for 1 PIP (16.3).

With the option ``gas_hits_both`` a Gas also fights its own side's element its front touches (9.4). With
``deployment="players"`` the game opens with the set-up (5 steps 6-8, ``setup.py``: stage setup, one cell
per element, the defender's first).

The option ``going="per_cell"`` prices each step of a move by its own cell (8.2: ``movement.py`` for
single elements, ``groups.py`` for groups).
"""

from __future__ import annotations

from enum import Enum
from functools import lru_cache

import numpy as np

from cardwar.envs.tankattack import groups, reserves, setup
from cardwar.envs.tankattack.actions import (
    COUNTER, DEPLOY, DISMOUNT, END, FACE, GROUP, MOUNT, NUM_ACTIONS, RAID, RALLY, SUPPRESS, YES, action_to_string,
)
from cardwar.envs.tankattack.board import NUM_CELLS, direction, gap, label
from cardwar.envs.tankattack.contact import (
    BUNKER_ID, front_to_front, front_touches, front_touches_bunker, in_close_combat, in_front_contact,
    neighbours_on_board, occupies_trench, sees, zoc_map,
)
from cardwar.envs.tankattack.elements import (
    ARTILLERY, IMMOBILE, MORTARS, STATS, EType, Going, is_aerial,
)
from cardwar.envs.tankattack.fight import (
    LOST, attacked_from_outside, close_total, contact_bad_going, flee_plan, good_going_for_rows, observed, opposite,
    recoil_plan, shooting_totals,
)
from cardwar.envs.tankattack.movement import (
    SUPPRESSED_STAY, MoveOption, base_cost, enemy_wire, may_remount, may_turn_in_place, move_options,
)
from cardwar.envs.tankattack.outcomes import BUNKER, Fight, Outcome, Result, compare, outcome
from cardwar.envs.tankattack.rules import TankAttackRules
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER, Scenario

RESERVE = -1
"""``cell`` of an element not yet deployed (9)."""
GONE = -3
"""Removed from play without being Lost (a raiding Bomber, spent Gas, 17.1)."""


class Stage(str, Enum):
    """What the game waits for."""

    MOVES = "moves"
    MOVE_DEST = "move_dest"
    MOVE_FACE = "move_face"
    TURNING = "turning"
    FACE_CHOICE = "face_choice"
    SHOOT_SELECT = "shoot_select"
    SHOOT_TARGET = "shoot_target"
    SHOOT_AID = "shoot_aid"
    SHOOT_RETURN = "shoot_return"
    COMBAT_SELECT = "combat_select"
    COMBAT_PARTNER = "combat_partner"
    RECOIL_CHOICE = "recoil_choice"
    ENTER_CELL = "enter_cell"
    ENTER_FACE = "enter_face"
    SPEND_TARGET = "spend_target"
    AIR_CONTACT = "air_contact"
    AIR_DEST = "air_dest"
    AIR_FACE = "air_face"
    GROUP_ADD = "group_add"
    GROUP_MOVE = "group_move"
    SETUP = "setup"
    GAME_OVER = "game_over"


class TankIllegalActionError(ValueError):
    """An action the rules do not allow now."""


_PER_ELEMENT = ("etype", "side", "cell", "facing", "general", "moved", "shot", "targeted", "fought", "suppressed",
                "wire_contact", "observed", "initiated", "home", "timer")


@lru_cache(maxsize=None)
def _within(a: int, r: int) -> bytes:
    """Per cell of the frame, 1 where ``gap(a, cell) <= r`` (1.4): a shooter's range as a table (speed)."""
    x = np.maximum(np.abs(_COLS - a % 16) - 1, 0)
    y = np.maximum(np.abs(_ROWS - a // 16) - 1, 0)
    return (100 * np.maximum(x, y) + 50 * np.minimum(x, y) <= r).astype(np.uint8).tobytes()  # board.gap


_COLS, _ROWS = np.arange(NUM_CELLS) % 16, np.arange(NUM_CELLS) // 16


def _cost_floor(s: TankState, e: int) -> int:
    """``base_cost(s, e)`` less its command-distance penalty (0 or 1, 7.1): ``base_cost`` is this or one more."""
    t = s.etype[e]
    if t is EType.GAS:
        return 1
    cost = 2 if t is EType.TANK or is_aerial(t) else 1
    g = s.general_of[s.side[e]]
    return cost + 1 if g < 0 or s.cell[g] < 0 else cost


class TankState:
    """A whole game of Tank Attack. Seat 0 is the defender (moves first), seat 1 the attacker (RULES.md 5)."""

    def __init__(self) -> None:  # use new_game / from_dict
        self.scenario: Scenario
        self.rules: TankAttackRules
        self.rng: np.random.Generator

    # ------------------------------------------------------------------ setup
    @classmethod
    def new_game(cls, scenario: Scenario, rules: TankAttackRules | None = None, seed: int | None = None) -> TankState:
        """Place the scenario's armies and begin the defender's first bound (RULES.md 5 step 9)."""
        s = cls()
        s.scenario, s.rules = scenario, rules or TankAttackRules()
        s.rng = np.random.default_rng(seed)
        els = scenario.elements
        s.etype = [e.type for e in els]
        s.side = [e.side for e in els]
        s.cell = [RESERVE if e.cell is None else e.cell for e in els]
        s.facing = [e.facing for e in els]
        s.general = [e.general for e in els]
        n = len(els)
        s.moved, s.shot, s.targeted, s.fought = [False] * n, [False] * n, [False] * n, [False] * n
        s.suppressed, s.wire_contact, s.observed = [False] * n, [False] * n, [False] * n
        s.initiated = [()] * n
        s.home, s.timer = [-1] * n, [0] * n
        s.wire = {c: o for c, o in scenario.board.wire}
        s.bunker_alive, s.bunker_fought = True, False
        s.bound, s.active, s.pips, s.pip_roll = 0, DEFENDER, 0, 0
        s.stage, s.pending, s.pairs = Stage.MOVES, {}, []
        s.result, s.winner, s.move_number = None, None, 0
        s.events = []
        if s.rules.deployment == "players":  # 5 steps 6-7: the players place what the scenario placed
            queue = setup.to_place(scenario)
            for e in queue:
                s.cell[e] = RESERVE
            s._rebuild()
            s.stage, s.pending = Stage.SETUP, {"queue": queue}
            s._next_placement()
            return s
        s._rebuild()
        s._start_bound()
        s._continue()
        return s

    def _next_placement(self) -> None:
        """The set-up's next element to place (its owner decides), or, all placed, the defender's first bound
        (5 step 9). An element with no free cell in its zone stays off the battlefield, in reserve."""
        queue = self.pending["queue"]
        while queue and not setup.setup_cells(self, queue[0]):
            self.events.append(f"no room to place {self._name(queue[0])}")
            queue = queue[1:]
        if queue:
            self.active = self.side[queue[0]]
            self.pending = {"element": queue[0], "queue": queue[1:]}
            return
        self.pending = {}
        self._start_bound()
        self._continue()

    def _rebuild(self) -> None:
        """Derived fields: the occupancy grid, each side's General, the memo."""
        self.board = self.scenario.board
        self.grid = [-1] * NUM_CELLS
        for e, c in enumerate(self.cell):
            if c >= 0:
                self.grid[c] = e
        self.general_of = [-1, -1]
        for e, g in enumerate(self.general):
            if g:
                self.general_of[self.side[e]] = e
        self._memo = None

    def clone(self) -> TankState:
        """An independent copy; the Generator is copied with its position (reseed a search's clones)."""
        c = TankState.__new__(TankState)
        c.scenario, c.rules, c.board = self.scenario, self.rules, self.board
        bg = type(self.rng.bit_generator)()
        bg.state = self.rng.bit_generator.state
        c.rng = np.random.Generator(bg)
        for name in _PER_ELEMENT:
            setattr(c, name, getattr(self, name)[:])
        c.wire = dict(self.wire)
        c.grid = self.grid[:]
        c.general_of = self.general_of[:]
        c.bunker_fought = self.bunker_fought
        c.bunker_alive, c.bound, c.active, c.pips, c.pip_roll = (self.bunker_alive, self.bound, self.active,
                                                                  self.pips, self.pip_roll)
        c.stage = self.stage
        c.pending = {k: (list(v) if isinstance(v, list) else v) for k, v in self.pending.items()}
        c.pairs = [tuple(p) for p in self.pairs]
        c.result = None if self.result is None else dict(self.result)
        c.winner, c.move_number = self.winner, self.move_number
        c.events = self.events[:]
        c._memo = None
        return c

    # ------------------------------------------------------------------ queries
    @property
    def current_player(self) -> int:
        """The seat to decide: the active player, or the owner the rules name (RULES.md 19)."""
        st, p = self.stage, self.pending
        if st is Stage.FACE_CHOICE or st is Stage.RECOIL_CHOICE:
            return self.side[p["element"]]
        if st in (Stage.SHOOT_TARGET, Stage.SHOOT_AID):
            return self.side[p["shooter"]]
        if st is Stage.SHOOT_RETURN:
            return self.side[p["target"]]
        return self.active

    def is_terminal(self) -> bool:
        return self.stage is Stage.GAME_OVER

    def returns(self) -> list[float]:
        """+1 winner, -1 loser, 0 each for a draw or an unfinished game (17.3)."""
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0, -1.0] if self.winner == 0 else [-1.0, 1.0]

    @property
    def turn(self) -> int:
        """The bounds begun so far (a record's ``turns``; the turn limit counts bounds per side, 17.3)."""
        return self.bound

    def on_board(self, e: int) -> bool:
        return self.cell[e] >= 0

    def lost_ap(self, side: int) -> int:
        """AP of a side's Lost elements (17.1)."""
        return sum(STATS[t].ap for t, sd, c in zip(self.etype, self.side, self.cell) if sd == side and c == LOST)

    def army_ap(self, side: int) -> int:
        """The army's total AP for the break point: every element, reserve included, no Strongpoints (17.2)."""
        return sum(STATS[t].ap for t, sd in zip(self.etype, self.side) if sd == side)

    def element_at(self, cell: int) -> int:
        return self.grid[cell] if 0 <= cell < NUM_CELLS else -1

    def move_cost(self, e: int, opt: MoveOption) -> int:
        return base_cost(self, e) + (1 if opt.assault else 0)

    def _zoc(self, side: int) -> dict[int, list[int]]:
        """``zoc_map(self, side)``, memoised until the next action (speed)."""
        if self._memo is None:
            self._memo = {}
        hit = self._memo.get(("zoc", side))
        if hit is None:
            hit = self._memo[("zoc", side)] = zoc_map(self, side)
        return hit

    def _options(self, e: int) -> dict[int, MoveOption]:
        """``e``'s moves it can pay for now, memoised until the next action that changes the state (an
        element's or a destination's choice changes none: the options are searched once a move)."""
        if self._memo is None:
            self._memo = {}
        hit = self._memo.get(e)
        if hit is None:
            if self._base_cost(e) > self.pips:  # every move costs at least the base (7.1)
                hit = {}
            else:
                opts = move_options(self, e, self._zoc(self.side[e]))
                hit = opts if self._base_cost(e) + 1 <= self.pips else {
                    d: o for d, o in opts.items() if not o.assault}
            self._memo[e] = hit
        return hit

    def _base_cost(self, e: int) -> int:
        """``base_cost(self, e)`` (7.1), its command-distance sight test kept per (element's cell, General's
        cell, Gas cells): that line of sight is blocked by terrain and Gas only (speed)."""
        floor = _cost_floor(self, e)
        t = self.etype[e]
        g = self.general_of[self.side[e]]
        if t is EType.GAS or g < 0 or self.cell[g] < 0 or g == e:
            return floor
        ce, cg = self.cell[e], self.cell[g]
        d = gap(ce, cg)
        if d > 1200:
            return floor + 1
        if d <= 600 or is_aerial(t):
            return floor
        key = (ce, cg, tuple(c for c, x in zip(self.cell, self.etype) if x is EType.GAS and c >= 0))
        cache = self.__dict__.setdefault("_sight_cache", {})
        hit = cache.get(key)
        if hit is None:
            hit = cache[key] = 0 if sees(self, ce, cg, troops_block=False) else 1
        return floor + hit

    def _has_move(self, e: int) -> bool:
        """``bool(self._options(e))``, without the move search when turning in place proves it (speed)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        elif e in memo:
            return bool(memo[e])
        key = ("has", e)
        if key in memo:
            return memo[key]
        t = self.etype[e]
        if self.cell[e] < 0 or self.moved[e] or t in IMMOBILE or (self.suppressed[e] and t in SUPPRESSED_STAY):
            has = False  # may_turn_in_place's and the search's first tests (8.1), before any cost
        elif _cost_floor(self, e) >= self.pips and self._base_cost(e) > self.pips:  # the floor: base_cost less
            has = False  # its 0-or-1 command-distance penalty, so that the sight test runs only when it decides
        else:
            turn = may_turn_in_place(self, e, self._zoc(self.side[e]))
            has = turn if turn is not None else bool(self._options(e))
        memo[key] = has
        return has

    def _selectable(self) -> list[int]:
        """Own elements with a move, and any Gas: "either player may use 1 PIP to move it" (9.4). Memoised
        until the next action (the flow asks it, then the legal actions)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        hit = memo.get("selectable")
        if hit is None:
            hit = memo["selectable"] = self._selectable_now()
        return hit

    def _selectable_now(self) -> list[int]:
        return [e for e in range(len(self.cell)) if (self.side[e] == self.active or self.etype[e] is EType.GAS)
                and self.cell[e] >= 0 and (self._has_move(e) or self._remount(e))]

    def _remount(self, e: int) -> list[int]:
        """``[MOUNT]`` or ``[DISMOUNT]`` when ``e`` may (dis)mount for 1 PIP now (8.8, 7.2)."""
        if self.side[e] != self.active or self.pips < 1 or not may_remount(self, e):
            return []
        return [MOUNT if self.etype[e] is EType.DISMOUNTED_CAVALRY else DISMOUNT]

    # ---- shooting (11)
    def _may_shoot(self, e: int) -> bool:
        t = self.etype[e]
        st = STATS[t]
        if self.cell[e] < 0 or st.range == 0 or self.shot[e] or self.suppressed[e]:
            return False
        if self.rules.shooting_bounds == "active" and self.side[e] != self.active:
            return False
        if t in ARTILLERY and (self.side[e] != self.active or self.moved[e]):
            return False
        if t in (EType.LIGHT_MORTAR, EType.SNIPER) and self.moved[e]:
            return False
        return not in_close_combat(self, e)

    def legal_target(self, sh: int, tg: int) -> bool:
        """11.2: range, front arc, sight (Mortars need none), not in close combat, not Barrage, Gas or
        Minefield, an Aerial only for guns that shoot them, not already a target this step."""
        if self.cell[tg] < 0 or self.side[tg] == self.side[sh] or self.targeted[tg]:
            return False
        tt, st = self.etype[tg], STATS[self.etype[sh]]
        if tt in (EType.BARRAGE, EType.GAS, EType.MINEFIELD):
            return False
        if (is_aerial(tt) and not st.shoots_air) or (not is_aerial(tt) and not st.shoots_ground):
            return False
        a, b = self.cell[sh], self.cell[tg]
        if gap(a, b) > st.range:
            return False
        f = self.facing[sh]
        dc, dr = b % 16 - a % 16, b // 16 - a // 16
        fwd, side = ((-dr, dc), (dc, dr), (dr, -dc), (-dc, -dr))[f]
        if fwd < 1 or abs(side) > (fwd if self.rules.arc == "cone" else 1):
            return False
        if in_close_combat(self, tg):
            return False
        if self.etype[sh] is EType.SNIPER and self.home[sh] >= 0:
            return is_aerial(tt) or reserves.sniper_sees(self, sh, tg)
        if self.etype[sh] not in MORTARS and not is_aerial(tt) and not sees(self, a, b, ends=(sh, tg)):
            return False
        return True

    def _on_board_by_side(self) -> tuple[list[tuple[int, int, int]], list[tuple[int, int, int]]]:
        """Each side's elements on the battlefield as (id, column, row), ascending ids."""
        out: tuple[list, list] = ([], [])
        for t, (b, sd) in enumerate(zip(self.cell, self.side)):
            if b >= 0:
                out[sd].append((t, b % 16, b // 16))
        return out

    def _in_range(self, sh: int, by_side: tuple | None = None) -> list[int]:
        """The enemies on the battlefield within ``sh``'s range, ascending: :meth:`legal_target`'s cheapest
        necessary tests, so that it runs only on these (speed). ``by_side``: :meth:`_on_board_by_side` if the
        caller has it."""
        a, side, r = self.cell[sh], self.side[sh], STATS[self.etype[sh]].range
        near = _within(a, r)
        return [t for t, bc, br in (by_side or self._on_board_by_side())[1 - side] if near[br * 16 + bc]]

    def _targets(self, sh: int) -> list[int]:
        return [t for t in self._in_range(sh) if self.legal_target(sh, t)]

    def _shooters(self) -> list[int]:
        """The elements that may shoot at something now (11.1-11.2), memoised until the next action (the
        flow asks it, then the legal actions)."""
        memo = self._memo
        if memo is None:
            memo = self._memo = {}
        hit = memo.get("shooters")
        if hit is None:
            by_side = self._on_board_by_side()
            hit = memo["shooters"] = [e for e in range(len(self.cell)) if self._may_shoot(e)
                                      and any(self.legal_target(e, t) for t in self._in_range(e, by_side))]
        return hit

    def _aid_candidates(self) -> list[int]:
        p = self.pending
        sh, tg = p["shooter"], p["target"]
        return [e for e in range(len(self.cell)) if e != sh and e not in p["aids"] and self.side[e] == self.side[sh]
                and self._may_shoot(e) and self._legal_target_ignoring_mark(e, tg)]

    def _legal_target_ignoring_mark(self, sh: int, tg: int) -> bool:
        was = self.targeted[tg]
        self.targeted[tg] = False
        try:
            return self.legal_target(sh, tg)
        finally:
            self.targeted[tg] = was

    def _can_return(self) -> bool:
        p = self.pending
        sh, tg = p["shooter"], p["target"]
        return self._may_shoot(tg) and self.legal_target(tg, sh)

    # ---- close combat (12)
    def _pairs_now(self) -> list[tuple[int, int]]:
        """Every front-to-front pair (and attacker at the Bunker), as (lower id, higher id) / (e, BUNKER_ID)."""
        out = []
        n = len(self.cell)
        for a in range(n):
            if self.cell[a] < 0:
                continue
            for b in neighbours_on_board(self, self.cell[a]):
                if a < b and front_to_front(self, a, b):
                    out.append((a, b))
            if front_touches_bunker(self, a):
                out.append((a, BUNKER_ID))
        if self.rules.gas_hits_both:
            out += self._gas_on_own_side()
        return self._friend_is_primary(out)

    def _gas_on_own_side(self) -> list[tuple[int, int]]:
        """9.4, option ``gas_hits_both``: a Gas also fights the ground element of its deployer's side (not a
        Barrage or Gas) that its front edge touches, whatever that element's facing: its own side does not
        turn to face the cloud (10), is not held by it (8.1) and may still shoot (11.1); it fights in step 5."""
        out = []
        for g in range(len(self.cell)):
            if self.etype[g] is not EType.GAS or self.cell[g] < 0:
                continue
            ahead = self.board.step(self.cell[g], self.facing[g])
            y = self.grid[ahead] if ahead is not None else -1
            if (y >= 0 and self.side[y] == self.side[g] and not is_aerial(self.etype[y])
                    and self.etype[y] not in (EType.BARRAGE, EType.GAS)):
                out.append((min(g, y), max(g, y)))
        return out

    def _friend_is_primary(self, pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
        """12.1 (L727-731): where a Barrage or Gas and a friend of it both fight one enemy, "the friendly
        element should always be considered the primary attacker": the Barrage's or Gas's pair is dropped
        and it aids (Overwhelmed, 12.2)."""
        def fire(e: int) -> bool:
            return e != BUNKER_ID and self.etype[e] in (EType.BARRAGE, EType.GAS)

        def enemy_of(pr: tuple[int, int], e: int) -> int:
            return pr[1] if pr[0] == e else pr[0]

        def side_of(e: int) -> int:
            return DEFENDER if e == BUNKER_ID else self.side[e]  # the Bunker is the defender's (16.4)

        keep = []
        for pr in pairs:
            g = pr[0] if fire(pr[0]) else (pr[1] if fire(pr[1]) else None)
            if g is not None and self.side[g] != side_of(enemy_of(pr, g)):  # a Gas on its own side fights alone
                y = enemy_of(pr, g)
                if any(q != pr and y in q and not fire(enemy_of(q, y)) for q in pairs):
                    continue
            keep.append(pr)
        return keep

    def _wire_fights(self) -> list[tuple[int, int]]:
        """16.2 (L123): each Barrage not yet fought whose front edge touches an empty enemy wire cell fights
        the wire, as (Barrage, wire cell)."""
        out = []
        for b in range(len(self.cell)):
            if self.etype[b] is EType.BARRAGE and self.cell[b] >= 0 and not self.fought[b]:
                ahead = self.board.step(self.cell[b], self.facing[b])
                if ahead is not None and self.grid[ahead] < 0 and enemy_wire(self, ahead, self.side[b]):
                    out.append((b, ahead))
        return out

    def _available_pairs(self) -> list[tuple[int, int]]:
        now = set(self._pairs_now())
        return [p for p in self.pairs if p in now and not self._fought(p[0]) and not self._fought(p[1])]

    def _fought(self, e: int) -> bool:
        return self.bunker_fought if e == BUNKER_ID else self.fought[e]

    def _cell_of(self, e: int) -> int:
        return self.board.bunker if e == BUNKER_ID else self.cell[e]

    # ------------------------------------------------------------------ actions
    def legal_actions(self) -> list[int]:
        """The legal actions now, ascending."""
        st, p = self.stage, self.pending
        if st is Stage.GAME_OVER:
            return []
        if st is Stage.MOVES:
            return sorted(self.cell[e] for e in self._selectable()) + [END] + self._spends()
        if st is Stage.MOVE_DEST:
            e = p["element"]
            opts = self._options(e)
            grp = [GROUP] if groups.groupable(self, e) and groups.joinable(self, [e], first=True) else []
            return sorted(opts) + sorted(grp + self._remount(e)
                                         + ([RAID] if reserves.raid_reaches(self, e, opts) else []))
        if st is Stage.MOVE_FACE:
            return [FACE + f for f in self._options(p["element"])[p["dest"]].facings]
        if st is Stage.FACE_CHOICE:
            return [FACE + f for f in p["choices"]]
        if st is Stage.SHOOT_SELECT:
            return sorted(self.cell[e] for e in self._shooters())
        if st is Stage.SHOOT_TARGET:
            return sorted(self.cell[t] for t in self._targets(p["shooter"]))
        if st is Stage.SHOOT_AID:
            return sorted(self.cell[e] for e in self._aid_candidates()) + [END]
        if st is Stage.SHOOT_RETURN:
            return [END, YES]
        if st is Stage.COMBAT_SELECT:
            return sorted({self._cell_of(e) for pr in self._available_pairs() for e in pr}
                          | {c for b, w in self._wire_fights() for c in (self.cell[b], w)})
        if st is Stage.COMBAT_PARTNER:
            if "wire" in p:
                return sorted(self.cell[b] for b, w in self._wire_fights() if w == p["wire"])
            x = p["x"]
            return sorted(self._cell_of(q[0] if q[1] == x else q[1]) for q in self._available_pairs() if x in q)
        if st is Stage.RECOIL_CHOICE:
            return [FACE + f for f in p["dirs"]] + ([SUPPRESS] if p.get("suppress") else [])
        if st is Stage.ENTER_CELL:
            return sorted(self._entry_cells(p["element"]))
        if st is Stage.ENTER_FACE:
            return [FACE + f for f in self._entry_cells(p["element"])[p["cell"]]]
        if st is Stage.SPEND_TARGET:
            return sorted(self.cell[e] for e in self._spend_targets(p["spend"]))
        if st is Stage.GROUP_ADD:
            g = p["group"]
            return sorted(self.cell[x] for x in groups.joinable(self, g)) + ([END] if len(g) > 1 else [])
        if st is Stage.GROUP_MOVE:
            return sorted(groups.group_moves(self, p["group"]))
        if st is Stage.SETUP:
            return setup.setup_cells(self, p["element"])
        if st is Stage.AIR_CONTACT:
            return sorted(self.cell[e] for e in self._air_candidates()) + [END]
        if st is Stage.AIR_DEST:
            return sorted(self._air_dests(p["element"]))
        if st is Stage.AIR_FACE:
            return [FACE + f for f in self._air_dests(p["element"])[p["dest"]]]
        return []

    # ---- free aerial contacts (10, step 3)
    def _air_candidates(self) -> list[int]:
        """The active player's Aerials in contact with no enemy that have a free contact to make (10)."""
        if self.rules.aerial_contact_cells <= 0:
            return []
        return [e for e in range(len(self.cell)) if self.cell[e] >= 0 and self.side[e] == self.active
                and is_aerial(self.etype[e]) and not self._touches_enemy(e, self.cell[e]) and self._air_dests(e)]

    def _touches_enemy(self, e: int, cell: int) -> bool:
        return any(y != e and self.side[y] != self.side[e] for y in neighbours_on_board(self, cell))

    def _air_dests(self, e: int) -> dict[int, tuple[int, ...]]:
        """10 (L215-216): one orthogonal step (100p) to an empty cell, ending with its front against an enemy
        element, never with a flank or rear against an enemy's front (8.3)."""
        from cardwar.envs.tankattack.movement import legal_facings

        out = {}
        start = self.cell[e]
        for f in range(4):
            n = self.board.step(start, f)
            if n is None or self.grid[n] >= 0 or n == self.board.bunker:
                continue
            fs = tuple(g for g in legal_facings(self, e, n, start)
                       if (a := self.board.step(n, g)) is not None and self.grid[a] >= 0
                       and self.side[self.grid[a]] != self.side[e])
            if fs:
                out[n] = fs
        return out

    def _spends(self) -> list[int]:
        """Step 2's PIP spends other than moves, ascending: entries (9), counter-battery (9.2), rally (16.3)."""
        if self._memo is None:
            self._memo = {}
        hit = self._memo.get("spends")
        if hit is not None:
            return hit
        out = sorted(DEPLOY + int(k) for k in reserves.entries(self))
        if self.pips >= reserves.CALL_COST and reserves.enemy_barrages(self, self.active):
            out.append(COUNTER)
        if self.pips >= 1 and reserves.rally_candidates(self):
            out.append(RALLY)
        self._memo["spends"] = out
        return out

    def _entry_cells(self, e: int) -> dict[int, tuple[int, ...]]:
        """``reserves.entry_cells(self, e)``, kept with the positions it read (elements, types, wire, the
        Bunker): the cell and the facing decisions of one entry ask it again of the same position (speed)."""
        key = (e, tuple(self.cell), tuple(self.etype), self.bunker_alive, tuple(self.wire.items()))
        hit = self.__dict__.get("_entry_hit")
        if hit is not None and hit[0] == key:
            return hit[1]
        out = reserves.entry_cells(self, e)
        self._entry_hit = (key, out)
        return out

    def _spend_targets(self, spend: str) -> list[int]:
        if spend == "rally":
            return reserves.rally_candidates(self)
        return reserves.enemy_barrages(self, self.active)

    def legal_action_mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, dtype=np.int8)
        m[self.legal_actions()] = 1
        return m

    def apply_action(self, action: int, validate: bool = True) -> None:
        """Take one decision; raises :class:`TankIllegalActionError` (with the reason) if not legal."""
        action = int(action)
        if validate and action not in self.legal_actions():
            raise TankIllegalActionError(
                f"{action_to_string(action) if 0 <= action < NUM_ACTIONS else action} is not legal in stage "
                f"{self.stage.value}; legal: {', '.join(map(action_to_string, self.legal_actions())) or 'none'}")
        st, p = self.stage, self.pending
        self.move_number += 1
        if st is Stage.MOVES:
            if action == END:
                self.stage = Stage.AIR_CONTACT
            elif action >= DEPLOY:
                self._begin_spend(action)
            else:
                self.pending = {"element": self.grid[action]}
                self.stage = Stage.MOVE_DEST
        elif st is Stage.MOVE_DEST:
            if action in (MOUNT, DISMOUNT):
                self._do_remount(p["element"], action == MOUNT)
            elif action == GROUP:
                self.pending = {"element": p["element"], "group": [p["element"]]}
                self.stage = Stage.GROUP_ADD
            elif action == RAID:
                self.pips -= base_cost(self, p["element"])
                self.pending = {"spend": "raid", "bomber": p["element"]}
                self.stage = Stage.SPEND_TARGET
            else:
                p["dest"] = action
                self.stage = Stage.MOVE_FACE
        elif st is Stage.MOVE_FACE:
            self._do_move(p["element"], p["dest"], action - FACE)
        elif st is Stage.FACE_CHOICE:
            self.facing[p["element"]] = action - FACE
            self.pending = {}
            self.stage = Stage.TURNING
        elif st is Stage.SHOOT_SELECT:
            sh = self.grid[action]
            self.pending = {"shooter": sh, "aids": []}
            self.stage = Stage.SHOOT_TARGET
        elif st is Stage.SHOOT_TARGET:
            p["target"] = self.grid[action]
            self._after_target()
        elif st is Stage.SHOOT_AID:
            if action == END:
                self._after_aids()
            else:
                p["aids"].append(self.grid[action])
                if len(p["aids"]) >= 2 or not self._aid_candidates():
                    self._after_aids()
        elif st is Stage.SHOOT_RETURN:
            self._resolve_shot(action == YES)
        elif st is Stage.COMBAT_SELECT and any(action in (self.cell[b], w) for b, w in self._wire_fights()):
            fights = [(b, w) for b, w in self._wire_fights() if action in (self.cell[b], w)]
            if len(fights) == 1:
                self._fight_wire(*fights[0])
            else:
                self.pending = {"wire": action}
                self.stage = Stage.COMBAT_PARTNER
        elif st is Stage.COMBAT_PARTNER and "wire" in p:
            self._fight_wire(self.grid[action], p["wire"])
        elif st is Stage.COMBAT_SELECT:
            x = BUNKER_ID if action == self.board.bunker else self.grid[action]
            partners = [q[0] if q[1] == x else q[1] for q in self._available_pairs() if x in q]
            if len(partners) == 1:
                self._resolve_close(x, partners[0])
            else:
                self.pending = {"x": x}
                self.stage = Stage.COMBAT_PARTNER
        elif st is Stage.COMBAT_PARTNER:
            y = BUNKER_ID if action == self.board.bunker else self.grid[action]
            self._resolve_close(p["x"], y)
        elif st is Stage.RECOIL_CHOICE:
            self._finish_recoil_choice(action)
        elif st is Stage.ENTER_CELL:
            p["cell"] = action
            self.stage = Stage.ENTER_FACE
        elif st is Stage.ENTER_FACE:
            self._enter(p["element"], p["cell"], action - FACE)
        elif st is Stage.SPEND_TARGET:
            self._finish_spend(self.grid[action])
        elif st is Stage.GROUP_ADD:
            if action == END:
                self.stage = Stage.GROUP_MOVE
            else:
                p["group"].append(self.grid[action])
        elif st is Stage.GROUP_MOVE:
            self._do_group_move(p["group"], action)
        elif st is Stage.SETUP:
            e = p["element"]
            self._place(e, action)
            self.facing[e] = setup.FACING[self.side[e]]
            self.events.append(f"{self._name(e)} placed at {label(action)}")
            self.pending = {"queue": p["queue"]}
            self._next_placement()
        elif st is Stage.AIR_CONTACT:
            if action == END:
                self.stage = Stage.TURNING
            else:
                self.pending, self.stage = {"element": self.grid[action]}, Stage.AIR_DEST
        elif st is Stage.AIR_DEST:
            p["dest"] = action
            self.stage = Stage.AIR_FACE
        elif st is Stage.AIR_FACE:
            self._air_contact(p["element"], p["dest"], action - FACE)
        if not (st is Stage.MOVES and action < NUM_CELLS or st is Stage.MOVE_DEST and action < NUM_CELLS):
            self._memo = None  # choosing an element or its destination changes nothing the memo holds
        self._continue()

    # ------------------------------------------------------------------ the flow
    def _continue(self) -> None:
        """Take every step that needs no decision, until one does or the game is over."""
        while True:
            st = self.stage
            if st is Stage.MOVES:
                if self._selectable() or self._spends():
                    return
                self.stage = Stage.AIR_CONTACT
            elif st is Stage.AIR_CONTACT:
                if self._air_candidates():
                    return
                self.stage = Stage.TURNING
            elif st is Stage.TURNING:
                if self._turn_to_face():
                    return
                self.stage = Stage.SHOOT_SELECT
                self.targeted = [False] * len(self.cell)
            elif st is Stage.SHOOT_SELECT:
                if self._shooters():
                    return
                self.stage = Stage.COMBAT_SELECT
                self.pairs = self._pairs_now()
                self.pending = {}
            elif st is Stage.COMBAT_SELECT:
                if self._available_pairs() or self._wire_fights():
                    return
                self._end_bound()
                if self.stage is Stage.GAME_OVER:
                    return
                self._start_bound()
            else:
                return

    def _start_bound(self) -> None:
        """6 step 1: the next player dices for PIPs."""
        self.bound += 1
        self.active = DEFENDER if self.bound % 2 == 1 else ATTACKER
        self.pip_roll = self.pips = int(self.rng.integers(1, 7))
        self.stage, self.pending = Stage.MOVES, {}
        self.events = [f"bound {self.bound}: {('defender', 'attacker')[self.active]} rolls {self.pips} PIPs"]
        self._memo = None

    def _do_move(self, e: int, dest: int, facing: int) -> None:
        """Make the chosen tactical move (8): pay, move, mark contacts made, Tanks destroy wire they enter."""
        opt = self._options(e)[dest]
        self.pips -= self.move_cost(e, opt)
        start = self.cell[e]
        self._place(e, dest)
        self.facing[e] = facing
        self.moved[e] = True
        if opt.kind != "turn":
            self.initiated[e] = tuple(y for y in neighbours_on_board(self, dest) if self.side[y] != self.side[e]) \
                + ((BUNKER_ID,) if front_touches_bunker(self, e) else ())
        if self.etype[e] is EType.TANK and enemy_wire(self, dest, self.side[e]):
            del self.wire[dest]
            self.events.append(f"Tank at {label(dest)} destroys the wire")
        ahead = self.board.step(dest, facing)
        if ahead is not None and enemy_wire(self, ahead, self.side[e]) and opt.kind != "cross":
            self.wire_contact[e] = True
        self.events.append(f"{STATS[self.etype[e]].name} {label(start)}-{label(dest)} facing {'NESW'[facing]}"
                           + (" (assault)" if opt.assault else ""))
        self.pending = {}
        self.stage = Stage.MOVES

    def _do_group_move(self, group: list[int], action: int) -> None:
        """8.4, 8.8, 16.1-16.2: make the group's chosen move (``groups.group_moves``), paying 7.1 once (1 PIP
        to (dis)mount); contacts made are initiated, Tanks destroy the wire they enter, elements stopped
        facing enemy wire are held at it."""
        mv = groups.group_moves(self, group)[action]
        self.pips -= groups.move_cost(self, group, mv)
        start = label(self.cell[group[0]])
        if mv.kind in ("mount", "dismount"):
            for m in group:
                self.etype[m] = EType.CAVALRY if mv.kind == "mount" else EType.DISMOUNTED_CAVALRY
                self.timer[m] = 2 if mv.kind == "mount" else 0
                self.moved[m] = True
            self.events.append(f"group of {len(group)} at {start} {mv.kind}s")
        elif mv.kind == "turn":
            for m in group:
                self.facing[m] = mv.facing
                self.moved[m] = True
            self.events.append(f"group of {len(group)} at {start} turns {'NESW'[mv.facing]}")
        else:
            for m in group:
                self._place(m, RESERVE)
            for m, c in zip(group, mv.dests):
                self._place(m, c)
                self.facing[m] = mv.facing
                self.moved[m] = True
                self.initiated[m] = tuple(y for y in neighbours_on_board(self, c) if self.side[y] != self.side[m]) \
                    + ((BUNKER_ID,) if front_touches_bunker(self, m) else ())
                if self.etype[m] is EType.TANK and enemy_wire(self, c, self.side[m]):
                    del self.wire[c]
                    self.events.append(f"Tank at {label(c)} destroys the wire")
                ahead = self.board.step(c, mv.facing)
                if ahead is not None and enemy_wire(self, ahead, self.side[m]) and mv.kind != "cross":
                    self.wire_contact[m] = True
            self.events.append(f"group of {len(group)} {start}-{label(self.cell[group[0]])}"
                               + ("" if mv.kind == "ahead" else f" ({mv.kind})"))
        self.pending, self.stage = {}, Stage.MOVES

    def _do_remount(self, e: int, mount: bool) -> None:
        """8.8 (L358-364): "Rather than moving, a player may spend 1 PIP to (dis)mount a cavalry element";
        remounted, it moves as Rifles in its next own bound (``timer``), then as Cavalry."""
        self.pips -= 1
        self.etype[e] = EType.CAVALRY if mount else EType.DISMOUNTED_CAVALRY
        self.timer[e] = 2 if mount else 0
        self.moved[e] = True
        self.events.append(f"{'General' if self.general[e] else 'Cavalry'} at {label(self.cell[e])} "
                           f"{'mounts' if mount else 'dismounts'}")
        self.pending, self.stage = {}, Stage.MOVES

    def _air_contact(self, e: int, dest: int, facing: int) -> None:
        """Make the free aerial contact (10): no PIPs; the Aerial has initiated contact (8.3)."""
        start = self.cell[e]
        self._place(e, dest)
        self.facing[e] = facing
        self.initiated[e] = tuple(y for y in neighbours_on_board(self, dest) if self.side[y] != self.side[e])
        self.events.append(f"{STATS[self.etype[e]].name} {label(start)}-{label(dest)} contacts (free)")
        self.pending, self.stage = {}, Stage.AIR_CONTACT

    # ---- step-2 spends (7.2, 9, 16.3)
    def _begin_spend(self, action: int) -> None:
        """Pay for an entry, counter-battery or rally; the placement or target is the next decision."""
        if action == COUNTER:
            self.pips -= reserves.CALL_COST
            self.pending, self.stage = {"spend": "counter"}, Stage.SPEND_TARGET
        elif action == RALLY:
            self.pips -= 1
            self.pending, self.stage = {"spend": "rally"}, Stage.SPEND_TARGET
        else:
            kind = EType(action - DEPLOY)
            self.pips -= reserves.entry_cost(self, kind)
            queue = reserves.in_reserve(self, self.active, kind)
            if kind is not EType.FIGHTER:
                queue = queue[:1]
            self.events.append(f"{('defender', 'attacker')[self.active]} brings on "
                               f"{'the Fighters' if kind is EType.FIGHTER else STATS[kind].name}")
            self.pending = {"element": queue[0], "queue": queue[1:]}
            self.stage = Stage.ENTER_CELL

    def _enter(self, e: int, cell: int, facing: int) -> None:
        """Place a reserve element (9). It makes no tactical move this bound (L186, L198 for Lurkers; a
        *reading* for the rest: entering is its move). Gas rolls its duration (9.4); a Lurker's cell fixes
        its feature (9.6-9.7). With the Fighter call, the next Fighter is placed while cells remain (9.5)."""
        self._place(e, cell)
        self.facing[e], self.moved[e], self.suppressed[e] = facing, True, False
        if self.etype[e] in (EType.SNIPER, EType.MINEFIELD):
            self.home[e] = cell
        extra = ""
        if self.etype[e] is EType.GAS:
            n = self._roll()
            self.timer[e] = n + 1  # the bound of deployment does not count (L177-178)
            extra = f", for {n} bounds"
        self.events.append(f"{STATS[self.etype[e]].name} enters at {label(cell)} facing {'NESW'[facing]}{extra}")
        queue = [x for x in self.pending.get("queue", []) if self._entry_cells(x)]
        self._memo = None
        if queue:
            self.pending = {"element": queue[0], "queue": queue[1:]}
            self.stage = Stage.ENTER_CELL
        else:
            self.pending, self.stage = {}, Stage.MOVES

    def _finish_spend(self, target: int) -> None:
        """Counter-battery lifts an enemy Barrage (9.2: to its reserve, or gone by option); the raid destroys
        one and the Bomber leaves, not Lost (9.3); a rally lifts Suppression (16.3)."""
        spend = self.pending["spend"]
        if spend == "rally":
            freed = reserves.rally_group(self, target)
            for e in freed:
                self.suppressed[e] = False
            self.events.append(f"{self._name(target)} at {label(self.cell[target])} returns to action"
                               + (f" with {len(freed) - 1} more of its group" if len(freed) > 1 else ""))
        elif spend == "counter":
            self.events.append(f"counter-battery lifts the Barrage at {label(self.cell[target])}")
            self._place(target, RESERVE if self.rules.lifted_barrage == "reserve" else GONE)
        else:
            b = self.pending["bomber"]
            self.events.append(f"Bomber {label(self.cell[b])} flies off and destroys the Barrage at "
                               f"{label(self.cell[target])}")
            self._place(b, GONE)
            self.moved[b] = True
            self._destroy(target)
        self.pending, self.stage = {}, Stage.MOVES

    def _place(self, e: int, cell: int) -> None:
        old = self.cell[e]
        if old >= 0 and self.grid[old] == e:
            self.grid[old] = -1
        self.cell[e] = cell
        if cell >= 0:
            self.grid[cell] = e

    def _turn_to_face(self) -> bool:
        """Step 3 (10): an element whose flank or rear an enemy front touches, not itself front to front,
        turns to face it; with two such enemies its owner chooses. True when a choice is pending."""
        for e in range(len(self.cell)):
            if self.cell[e] < 0 or self.etype[e] in (EType.BARRAGE, EType.GAS) or in_front_contact(self, e):
                continue
            dirs, fire = [], []
            for y in neighbours_on_board(self, self.cell[e]):
                if self.side[y] != self.side[e] and front_touches(self, y, e):
                    d = direction(self.cell[e], self.cell[y])
                    if d != self.facing[e] and d not in dirs:
                        dirs.append(d)
                        if self.etype[y] in (EType.BARRAGE, EType.GAS):
                            fire.append(d)
            if len(fire) < len(dirs):  # 12.1: a Barrage's or Gas's friend is the primary; face the friend
                dirs = [d for d in dirs if d not in fire]
            if len(dirs) == 1:
                self.facing[e] = dirs[0]
            elif len(dirs) > 1:
                self.pending = {"element": e, "choices": sorted(dirs)}
                self.stage = Stage.FACE_CHOICE
                return True
        return False

    # ---- shooting
    def _after_target(self) -> None:
        if self._aid_candidates():
            self.stage = Stage.SHOOT_AID
        else:
            self._after_aids()

    def _after_aids(self) -> None:
        if self._can_return():
            self.stage = Stage.SHOOT_RETURN
        else:
            self._resolve_shot(False)

    def _roll(self) -> int:
        return int(self.rng.integers(1, 7))

    def _resolve_shot(self, back: bool) -> None:
        """11.3 step 5: both roll (the shooter first); the lower total suffers, the shooter only if answered."""
        p = self.pending
        sh, tg, aids = p["shooter"], p["target"], p["aids"]
        tot = shooting_totals(self, sh, tg, len(aids), back, use_observer=True)
        ds, dt = self._roll(), self._roll()
        a, b = ds + tot.shooter, dt + tot.target
        for e in [sh, *aids] + ([tg] if back else []):
            self.shot[e] = True
        self.targeted[tg] = True
        self.pending = {}
        self.stage = Stage.SHOOT_SELECT
        self.events.append(f"{STATS[self.etype[sh]].name} {label(self.cell[sh])} shoots "
                           f"{STATS[self.etype[tg]].name} {label(self.cell[tg])}: {a} ({ds}) against {b} ({dt})")
        if b < a:
            self._suffer(tg, sh, compare(b, a), close=False, sup=-1)
        elif a < b and back:
            self._suffer(sh, tg, compare(a, b), close=False, sup=-1)

    # ---- close combat
    def _resolve_close(self, x: int, y: int) -> None:
        """12-15: totals (the active player's element rolls first), the loser's outcome, pursuit."""
        tx, sx = close_total(self, x, y, use_observer=True)
        ty, sy = close_total(self, y, x, use_observer=True)
        first_x = x != BUNKER_ID and self.side[x] == self.active or (x == BUNKER_ID and self.active == DEFENDER)
        d1, d2 = self._roll(), self._roll()
        dx, dy = (d1, d2) if first_x else (d2, d1)
        a, b = dx + tx, dy + ty
        for e in (x, y):
            if e == BUNKER_ID:
                self.bunker_fought = True
            else:
                self.fought[e] = True
        self.pending = {}
        self.stage = Stage.COMBAT_SELECT
        self.events.append(f"{self._name(x)} {label(self._cell_of(x))} fights {self._name(y)} "
                           f"{label(self._cell_of(y))}: {a} ({dx}) against {b} ({dy})")
        if a == b:
            self._air_ace_both_qk(x, y, a)
            return
        loser, winner, sup = (x, y, sx) if a < b else (y, x, sy)
        self._suffer(loser, winner, compare(min(a, b), max(a, b)), close=True, sup=sup)

    def _fight_wire(self, b: int, w: int) -> None:
        """16.2 (L123): the Barrage, d6 + 6 (+1 observed, 13.1), against the wire's d6 + 3; a higher total
        destroys the wire cell. The wire never harms a Barrage. The active player's die is rolled first."""
        first, second = self._roll(), self._roll()
        db, dw = (first, second) if self.side[b] == self.active else (second, first)
        a = db + 6 + observed(self, b, w, True)
        z = dw + 3
        self.fought[b] = True
        self.pending, self.stage = {}, Stage.COMBAT_SELECT
        self.events.append(f"Barrage {label(self.cell[b])} fights the wire at {label(w)}: {a} ({db}) against "
                           f"{z} ({dw})")
        if a > z:
            del self.wire[w]
            self.events.append(f"the wire at {label(w)} is destroyed")

    def _air_ace_both_qk(self, x: int, y: int, total: int) -> bool:
        """14.3: an Air Ace in close combat with equal, odd totals: both destroyed."""
        if total % 2 == 1 and any(e != BUNKER_ID and self.etype[e] is EType.AIR_ACE for e in (x, y)):
            for e in (x, y):
                self._destroy(e)
            return True
        return False

    def _name(self, e: int) -> str:
        return "Bunker" if e == BUNKER_ID else ("General" if self.general[e] else STATS[self.etype[e]].name)

    def _suffer(self, loser: int, winner: int, result: Result, close: bool, sup: int) -> None:
        """Apply the loser's outcome (14) and its outcome move (15); pursuit follows in close combat."""
        wt = BUNKER if winner == BUNKER_ID else self.etype[winner]
        lt = BUNKER if loser == BUNKER_ID else self.etype[loser]
        f = Fight(
            loser=lt, enemy=wt, close=close,
            enemy_initiated=close and winner != BUNKER_ID and loser in self.initiated[winner],
            loser_initiated=close and loser != BUNKER_ID and winner in self.initiated[loser],
            loser_good_going=loser == BUNKER_ID or good_going_for_rows(self, loser),
            contact_bad_going=close and loser != BUNKER_ID and contact_bad_going(self, loser, winner),
            in_trench=loser != BUNKER_ID and occupies_trench(self, loser),
            in_strongpoint=loser != BUNKER_ID and self.cell[loser] in self.board.strongpoints,
            ground_aided=self._ground_aided(loser, winner),
            foot_bad_going=self.rules.foot_bad_going, sniper_returns=self.rules.sniper_returns)
        out = outcome(f, result)
        self.events.append(f"{self._name(loser)}: {result.value}, {out.value}")
        if loser == BUNKER_ID:
            if out is Outcome.DESTROYED:
                self.bunker_alive = False
                self._game_over(ATTACKER, "breakthrough")
            return
        old = self.cell[loser]
        wcell = self._cell_of(winner)
        if close:
            rdir = opposite(direction(old, wcell))
        else:
            rdir = opposite(self.facing[loser])
        pursue = close and winner != BUNKER_ID and self.etype[loser] not in (EType.BARRAGE, EType.GAS)
        if out is Outcome.DESTROYED:
            self._destroy(loser)
            if sup >= 0 and self.cell[sup] >= 0:
                self._destroy(sup)  # L432: the supporting element too
        elif out in (Outcome.RECOIL, Outcome.RECOIL_OR_SUPPRESS):
            dirs = [rdir]
            if occupies_trench(self, loser) and attacked_from_outside(self, loser, winner):
                for side in ((rdir + 1) % 4, (rdir + 3) % 4):
                    n = self.board.step(old, side)
                    if n is not None and self.grid[n] < 0 and self._side_recoil_ok(loser, n):
                        dirs.append(side)
            if len(dirs) > 1 or out is Outcome.RECOIL_OR_SUPPRESS:
                self.pending = {"element": loser, "dirs": sorted(dirs),
                                "suppress": out is Outcome.RECOIL_OR_SUPPRESS, "winner": winner,
                                "old": old, "pursue": pursue, "back": rdir,
                                "resume": "combat" if close else "shoot"}
                self.stage = Stage.RECOIL_CHOICE
                return
            self._recoil(loser, rdir)
        elif out is Outcome.SUPPRESSED:
            self.suppressed[loser] = True
            pursue = False
        elif out in (Outcome.FLEE, Outcome.FLEE_600):
            self._flee(loser, wcell)
        elif out is Outcome.TO_RESERVE:
            gone = self.etype[loser] is EType.BARRAGE and self.rules.lifted_barrage == "gone"
            self._place(loser, GONE if gone else RESERVE)
            self.home[loser] = -1
        elif out is Outcome.LOST_OFF:
            self._destroy(loser)
        else:
            pursue = False
        if pursue and self.cell[loser] != old:
            self._pursue(winner, old)

    def _side_recoil_ok(self, e: int, n: int) -> bool:
        """16.1: a sideways trench recoil to an empty, passable cell where it touches no enemy."""
        from cardwar.envs.tankattack.movement import can_stand

        if not can_stand(self, e, n):
            return False
        for y in neighbours_on_board(self, n):
            if y != e and self.side[y] != self.side[e]:
                return False
        return True

    def _finish_recoil_choice(self, action: int) -> None:
        p = self.pending
        e = p["element"]
        self.pending = {}
        self.stage = Stage.COMBAT_SELECT if p["resume"] == "combat" else Stage.SHOOT_SELECT
        if action == SUPPRESS:
            self.suppressed[e] = True
            return
        d = action - FACE
        if d == p["back"]:
            self._recoil(e, d)
        else:
            self._place(e, self.board.step(p["old"], d))
        if p["pursue"] and self.cell[e] != p["old"]:
            self._pursue(p["winner"], p["old"])

    def _ground_aided(self, loser: int, winner: int) -> bool:
        """A ground element of the winner's side, other than the winner, Barrage or Gas, touches the loser; never
        when a Gas beats its own side (9.4, ``gas_hits_both``): the loser's friends are not the Gas's."""
        if winner == BUNKER_ID or (loser != BUNKER_ID and self.side[loser] == self.side[winner]):
            return False
        side = self.side[winner]
        for e in range(len(self.cell)):
            if e == winner or self.cell[e] < 0 or self.side[e] != side:
                continue
            t = self.etype[e]
            if is_aerial(t) or t in (EType.BARRAGE, EType.GAS):
                continue
            if loser == BUNKER_ID:
                if front_touches_bunker(self, e):
                    return True
            elif front_touches(self, e, loser):
                return True
        return False

    def _destroy(self, e: int) -> None:
        if e == BUNKER_ID:
            self.bunker_alive = False
            self._game_over(ATTACKER, "breakthrough")
            return
        self._place(e, LOST)
        self.events.append(f"{self._name(e)} is Lost")

    def _recoil(self, e: int, rdir: int) -> None:
        self._carry_out(e, recoil_plan(self, e, rdir))

    def _flee(self, e: int, causer_cell: int) -> None:
        f, plan = flee_plan(self, e, causer_cell)
        self.facing[e] = f
        self._carry_out(e, plan)

    def _carry_out(self, e: int, plan: list[tuple[int, int]] | None) -> None:
        """Move each element of a recoil or flight ``plan`` to its cell (15.1-15.3); no plan: ``e`` is destroyed."""
        if plan is None:
            self._destroy(e)
            return
        for el, c in plan:
            if c == LOST:
                self._destroy(el)
            else:
                self._place(el, c)

    def _pursue(self, w: int, toward: int) -> None:
        """15.5: Cavalry, Rifles and Sturmtruppe that fought as primaries follow one cell if free."""
        from cardwar.envs.tankattack.board import Ground
        from cardwar.envs.tankattack.elements import NO_TRENCH, PURSUERS
        from cardwar.envs.tankattack.movement import can_stand

        if self.cell[w] < 0 or self.etype[w] not in PURSUERS or self.stage is Stage.GAME_OVER:
            return
        if in_front_contact(self, w):
            return
        fd = direction(self.cell[w], toward)
        n = self.board.step(self.cell[w], fd) if fd is not None else None
        if n is None or self.grid[n] >= 0 or not can_stand(self, w, n):
            return
        if self.board.ground[n] is Ground.RIVER or enemy_wire(self, n, self.side[w]):
            return
        if self.etype[w] in NO_TRENCH and n in self.board.trench:
            return
        self._place(w, n)
        self.events.append(f"{self._name(w)} pursues to {label(n)}")

    # ---- end of bound
    def _end_bound(self) -> None:
        """6 step 6: Sturmtruppe cut the wire they reached, flags clear, break point, turn limit (17)."""
        for e in range(len(self.cell)):
            if self.wire_contact[e] and self.cell[e] >= 0 and self.etype[e] is EType.STURMTRUPPE:
                ahead = self.board.step(self.cell[e], self.facing[e])
                if ahead is not None and enemy_wire(self, ahead, self.side[e]):
                    del self.wire[ahead]
                    self.events.append(f"Sturmtruppe cut the wire at {label(ahead)}")
        for e in range(len(self.cell)):  # 9.4: Gas lasts its die roll of the deployer's own bounds
            if self.etype[e] is EType.CAVALRY and self.timer[e] > 0 and self.side[e] == self.active:
                self.timer[e] -= 1  # 8.8: remounted, as Rifles for its next own bound only
            if self.etype[e] is EType.GAS and self.cell[e] >= 0 and self.side[e] == self.active:
                self.timer[e] -= 1
                if self.timer[e] <= 0:
                    self.events.append(f"the Gas at {label(self.cell[e])} disperses")
                    self._place(e, GONE)
        n = len(self.cell)
        self.moved, self.shot, self.targeted, self.fought = [False] * n, [False] * n, [False] * n, [False] * n
        self.wire_contact, self.observed = [False] * n, [False] * n
        self.initiated = [()] * n
        self.pairs, self.pending, self.bunker_fought = [], {}, False
        lost = [self.lost_ap(0), self.lost_ap(1)]
        total = [self.army_ap(0), self.army_ap(1)]
        broken = [2 * lost[i] >= total[i] > 0 for i in (0, 1)]
        if broken[0] or broken[1]:
            if broken[0] and broken[1]:
                f0, f1 = lost[0] * total[1], lost[1] * total[0]
                winner = None if f0 == f1 else (1 if f0 > f1 else 0)
            else:
                winner = 1 if broken[0] else 0
            self._game_over(winner, "break point", lost_ap=lost)
            return
        if self.rules.general_loss == "hott":
            for sd in (0, 1):
                g = self.general_of[sd]
                if g >= 0 and self.cell[g] == LOST and lost[sd] > lost[1 - sd]:
                    self._game_over(1 - sd, "general lost", lost_ap=lost)
                    return
        if self.active == ATTACKER and self.bound >= 2 * self.scenario.turn_limit:
            winner = DEFENDER if self.rules.turn_limit_result == "defender" else None
            self._game_over(winner, "turn limit", lost_ap=lost)

    def _game_over(self, winner: int | None, reason: str, **extra) -> None:
        if self.stage is Stage.GAME_OVER:
            return
        self.stage, self.winner, self.pending = Stage.GAME_OVER, winner, {}
        self.result = {"winner": winner, "reason": reason, "bound": self.bound,
                       "lost_ap": extra.get("lost_ap", [self.lost_ap(0), self.lost_ap(1)])}

    # ------------------------------------------------------------------ I/O
    def to_dict(self) -> dict:
        """The whole state as JSON-friendly data (nothing is hidden, RULES.md 18)."""
        from cardwar.envs.tankattack.serialize import state_to_dict

        return state_to_dict(self)

    @classmethod
    def from_dict(cls, data: dict) -> TankState:
        from cardwar.envs.tankattack.serialize import state_from_dict

        return state_from_dict(data)

    def information_view(self, seat: int | None):
        """What ``seat`` may know: everything but the future dice (RULES.md 18)."""
        from cardwar.envs.tankattack.view import TankView

        return TankView.of(self, seat)
