"""A rules-of-thumb commander for Tank Attack (RULES.md) that plays from its seat's view alone.

Nothing is hidden in this game but the future dice (RULES.md 18), so the agent rebuilds the engine state
from the view (its own Generator in place of the dice it may not know) and asks the engine's own rules for
the legal moves, the combat totals (13) and the outcome rows (14). Every decision is a one-ply rating:

- **attacker** (RULES.md 17.3: the Bunker or the defender's break point before the turn limit): moves
  groups and single elements towards the Command Bunker, cheapest PIPs first (a line of infantry moves as
  one group, 8.4), the elements nearest the Bunker first (within ``NEAR_CELLS`` of it a step counts double),
  its guns seldom (``GUN_MOVE``: Artillery that moved is silent, 11.1), and keeps out of enemy fire as much
  as the defender does (``EXPOSURE_WEIGHT``); drives Tanks through the wire (16.2) and onto trench
  occupants, Sturmtruppe into the trench with the assault (8.7), each contact rated by its exact odds over
  the 36 dice and the outcome row it would bring (a Tank or Sturmtruppe that initiates contact kills beaten
  Rifles, 14.1); seeks overlaps and flank contacts (12.2, they enter the totals); closes on the Bunker from
  several sides (each extra attacker is Overwhelmed -1 on it, 16.4); lays its Barrage on the Bunker or the trench
  (9.1) and its Gas on trench occupants;
- **defender** (the turn limit is his): holds the line and moves only to strike at good odds or to
  stand round the Bunker when attackers close in; lifts Barrages by counter-battery (9.2); springs
  Minefields on the front of the leading attackers (9.7) and Snipers in bad going within range (9.6);
  rallies Suppressed troops (16.3);
- **both**: value a loss that takes a side to its break point (17.2) as the game (``BREAK_VALUE``); shoot at
  the target with the best expected value, with every aid the rules allow (11.3), shoot back when the odds
  favour it, fight the best-odds combat first, pick the recoil, Suppression or facing that leaves the
  better position (a clone of the state, reseeded, looked at one decision on).
"""

from __future__ import annotations

from collections import deque
from functools import lru_cache
from typing import Any

import numpy as np

from cardwar.envs.tankattack import groups as groups_mod
from cardwar.envs.tankattack import reserves
from cardwar.envs.tankattack.actions import COUNTER, DEPLOY, DISMOUNT, END, FACE, GROUP, RALLY, YES
from cardwar.envs.tankattack.board import NUM_CELLS, STRIDE
from cardwar.envs.tankattack.board import gap as _board_gap
from cardwar.envs.tankattack.contact import BUNKER_ID, occupies_trench
from cardwar.envs.tankattack.elements import GUNS, RIFLE_LIKE, STATS, EType, is_aerial
from cardwar.envs.tankattack.fight import (
    close_total, contact_bad_going, good_going_for_rows, shooting_totals,
)
from cardwar.envs.tankattack.outcomes import BUNKER, Fight, Outcome, Result, compare, outcome
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER
from cardwar.envs.tankattack.state import LOST, Stage, TankState
from cardwar.envs.tankattack.view import TankView

def _gap_table() -> list[int]:
    """``board.gap`` for every pair of cells (RULES.md 1.4), computed once: the ratings ask it half a million
    times a game."""
    cells = np.arange(NUM_CELLS)
    col, row = cells % STRIDE, cells // STRIDE
    x = np.maximum(np.abs(col[:, None] - col[None, :]) - 1, 0)
    y = np.maximum(np.abs(row[:, None] - row[None, :]) - 1, 0)
    return (100 * np.maximum(x, y) + 50 * np.minimum(x, y)).ravel().tolist()


_GAP = _gap_table()


def gap(a: int, b: int) -> int:
    """Paces between two cells' bases (``board.gap``, read from the table)."""
    return _GAP[a * NUM_CELLS + b] if 0 <= a < NUM_CELLS and 0 <= b < NUM_CELLS else _board_gap(a, b)


_DICE = [(a, b) for a in range(1, 7) for b in range(1, 7)]
_STEP8 = ((-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1))
BUNKER_VALUE = 60.0
"""The Bunker destroyed ends the game for the attacker (17.3): worth more than any army's AP."""
_ADVANCE = {EType.TANK: 1.6, EType.STURMTRUPPE: 1.4, EType.RIFLES: 0.5, EType.DISMOUNTED_CAVALRY: 0.5,
            EType.CAVALRY: 0.6, EType.ARMOURED_CAR: 0.6, EType.MG: 0.45, EType.LIGHT_MORTAR: 0.3,
            EType.FORWARD_OBSERVER: 0.3, EType.FIELD_ARTILLERY: 0.15, EType.AAA: 0.1, EType.BARRAGE: 0.5,
            EType.BOMBER: 0.2, EType.FIGHTER: 0.2, EType.SCOUT: 0.2, EType.AIR_ACE: 0.2, EType.BALLOON: 0.05}
"""How much the attacker values one cell of progress to the Bunker, by type: the assault troops most."""
EXPOSURE_WEIGHT = 1.0
"""How much an attacker's move avoids the enemy fire its new cell is open to (expected AP lost, 11-14), against
its progress: as much as the defender's (it was 0.5 until issue 30: Rifles walked into MG fire in good going)."""
NEAR_CELLS = 8
"""Within this many steps of the Bunker a step counts double (the progress is ``d + min(d, NEAR_CELLS)``): PIPs go
to the elements that can reach the Bunker before the turn limit (17.3), not to those far behind."""
GUN_MOVE = 0.3
"""The attacker's guns (MG, Mortars, Artillery) move at this fraction of their rating: Artillery that moved is
silent that bound (11.1), and a PIP spent on a gun is one not spent on the assault."""
BREAK_VALUE = 30.0
"""A loss that takes its side to the break point (17.2: half its army's AP) ends the game: valued as half the
Bunker, more than any element's AP."""


@lru_cache(maxsize=4096)
def _odds(own: int, enemy: int) -> dict[Result, float]:
    """The chances of each result (13.2) of ``own`` + d6 against ``enemy`` + d6, exact over the 36 pairs
    (cached: a pure function of the two totals; callers only read it)."""
    out = {r: 0.0 for r in Result}
    for a, b in _DICE:
        out[compare(own + a, enemy + b)] += 1 / 36
    return out


def _state_of(view: TankView, rng: np.random.Generator) -> TankState:
    """The engine state the view describes, with dice from ``rng`` (never the game's: RULES.md 18)."""
    pub = getattr(view, "public", None)
    if pub is None:
        from cardwar.envs.tankattack.infostate import state_from_view

        return state_from_view(view, np.random.Generator(np.random.PCG64(int(rng.integers(2**63)))))  # as below
    s = TankState.__new__(TankState)
    s.scenario, s.rules = pub.scenario, pub.rules
    for name in ("etype", "side", "cell", "facing", "general", "moved", "shot", "targeted", "fought", "suppressed",
                 "wire_contact", "observed", "initiated", "home", "timer"):
        setattr(s, name, list(getattr(pub, name)))
    s.wire = dict(pub.wire)
    s.bunker_alive, s.bunker_fought = pub.bunker_alive, pub.bunker_fought
    s.bound, s.active, s.pips, s.pip_roll = pub.bound, pub.active, pub.pips, pub.pip_roll
    s.stage = pub.stage
    s.pending = {k: (list(v) if isinstance(v, list) else v) for k, v in pub.pending.items()}
    s.pairs = [tuple(p) for p in pub.pairs]
    s.result = None if pub.result is None else dict(pub.result)
    s.winner, s.move_number = pub.winner, pub.move_number
    s.events = []
    s.rng = np.random.Generator(np.random.PCG64(int(rng.integers(2**63))))
    s._rebuild()
    return s


_DIST: dict[int, tuple[Any, list[int]]] = {}


def bunker_distance(s: TankState) -> list[int]:
    """Steps (8 neighbours, impassable ground avoided) from every cell to the Bunker, 1 on the cells touching
    it by an edge, cached per board; 99 where none leads there."""
    board = s.board
    hit = _DIST.get(id(board))
    if hit is not None and hit[0] is board:
        return hit[1]
    dist = [99] * NUM_CELLS
    b = board.bunker
    q: deque[int] = deque()
    if b is not None and b >= 0:
        dist[b] = 0
        for f in range(4):  # contact is edge to edge (1.3): a corner cell is one step further
            n = board.step(b, f)
            if n is not None and board.going[n] is not None:
                dist[n] = 1
                q.append(n)
    while q:
        c = q.popleft()
        col, row = c % 16, c // 16
        for dc, dr in _STEP8:
            nc, nr = col + dc, row + dr
            if not (0 <= nc < 16 and 0 <= nr < 24):
                continue
            n = nr * 16 + nc
            if dist[n] <= dist[c] + 1 or not board.on_map(n) or board.going[n] is None:
                continue
            dist[n] = dist[c] + 1
            q.append(n)
    if len(_DIST) > 256:
        _DIST.clear()
    _DIST[id(board)] = (board, dist)
    return dist


class TankHeuristic:
    """Rules-of-thumb commander for either seat of Tank Attack."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "heuristic"
        self.rng = np.random.default_rng(seed)
        self._plan: dict[str, Any] | None = None
        self._tallies: tuple[TankState, dict] | None = None
        self._placing = False

    def reset(self) -> None:
        self._plan = None

    # ------------------------------------------------------------------ entry
    def act(self, observation: dict[str, np.ndarray], view: TankView) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if not legal:
            raise ValueError("no legal action in the mask")
        if len(legal) == 1:
            return legal[0]
        s = _state_of(view, self.rng)
        me = view.seat if view.seat is not None else s.current_player
        self._tallies = (s, {})
        try:
            choice = self._choose(s, me, legal)
        finally:
            self._tallies = None
        return choice if choice in legal else legal[int(self.rng.integers(len(legal)))]

    def _choose(self, s: TankState, me: int, legal: list[int]) -> int:
        st = s.stage
        if st is Stage.MOVES:
            return self._moves(s, me, legal)
        if st is Stage.MOVE_DEST:
            return self._move_dest(s, me, legal)
        if st is Stage.MOVE_FACE:
            e, dest = s.pending["element"], s.pending["dest"]
            return max(legal, key=lambda a: self._place_score(s, me, e, dest, a - FACE) if a >= FACE else -1e9)
        if st is Stage.GROUP_ADD:
            return self._group_add(s, legal)
        if st is Stage.GROUP_MOVE:
            return self._group_move(s, me, legal)
        if st is Stage.ENTER_CELL:
            return self._enter_cell(s, me, legal)
        if st is Stage.ENTER_FACE:
            e, cell = s.pending["element"], s.pending["cell"]
            return max(legal, key=lambda a: self._place_score(s, me, e, cell, a - FACE))
        if st is Stage.SPEND_TARGET:
            return self._spend_target(s, me, legal)
        if st is Stage.SHOOT_SELECT:
            return self._shoot_select(s, me, legal)
        if st is Stage.SHOOT_TARGET:
            sh = s.pending["shooter"]
            return max(legal, key=lambda c: self._shot_value(s, sh, s.grid[c]))
        if st is Stage.SHOOT_AID:
            aids = [a for a in legal if a != END]
            return aids[0] if aids else END  # an aid never suffers and costs the target -1 (11.3)
        if st is Stage.SHOOT_RETURN:
            return self._shoot_back(s, legal)
        if st is Stage.COMBAT_SELECT or st is Stage.COMBAT_PARTNER:
            return self._combat_order(s, me, legal)
        if st in (Stage.RECOIL_CHOICE, Stage.FACE_CHOICE):
            return self._lookahead(s, me, legal)
        if st is Stage.AIR_CONTACT:
            return END if END in legal else legal[0]
        if st in (Stage.AIR_DEST, Stage.AIR_FACE):
            return self._lookahead(s, me, legal)
        return legal[int(self.rng.integers(len(legal)))]

    # ------------------------------------------------------------------ evaluation
    def _value(self, s: TankState, me: int) -> float:
        """A whole position from ``me``'s side: AP lost each way, the attackers' closeness to the Bunker."""
        if s.winner is not None:
            return 1000.0 if s.winner == me else -1000.0
        dist = bunker_distance(s)
        v = float(s.lost_ap(1 - me) - s.lost_ap(me))
        prog = 0.0
        for e, c in enumerate(s.cell):
            if c >= 0 and s.side[e] == ATTACKER and not is_aerial(s.etype[e]):
                prog -= _ADVANCE.get(s.etype[e], 0.3) * min(dist[c], 24) * 0.3
        v += prog if me == ATTACKER else -prog
        for e, c in enumerate(s.cell):
            if c >= 0 and s.suppressed[e]:
                v += -0.5 if s.side[e] == me else 0.5
        return v

    def _lookahead(self, s: TankState, me: int, legal: list[int]) -> int:
        """The action whose position, one decision on, rates best (a reseeded clone per action)."""
        best, best_v = legal[0], -1e18
        for a in legal:
            c = s.clone()
            c.rng = np.random.Generator(np.random.PCG64(int(self.rng.integers(2**63))))
            try:
                c.apply_action(a, validate=False)
            except Exception:  # noqa: BLE001 - an action the engine refuses is never chosen
                continue
            v = self._value(c, me) + self.rng.random() * 1e-6
            if v > best_v:
                best, best_v = a, v
        return best

    def _fight_value(self, s: TankState, x: int, p: int, x_initiated: bool, close: bool = True) -> float:
        """Expected gain for ``x``'s side of ``x`` fighting ``p`` (close combat, or ``x`` shooting ``p``):
        the outcome rows (14) of each result over the 36 dice, valued in AP (the Bunker: the game)."""
        if close:
            tx, _ = close_total(s, x, p)
            tp, _ = close_total(s, p, x) if p != BUNKER_ID else close_total(s, BUNKER_ID, x)
        else:
            tot = shooting_totals(s, x, p, 0, False)
            tx, tp = tot.shooter, tot.target
        odds = _odds(tx, tp)
        win = odds[Result.WIN]
        lose = odds[Result.BEATEN] + odds[Result.DOUBLED]
        gain = 0.0
        if win > 0:
            # split the enemy's loss into beaten and doubled by its own view of the totals
            their = _odds(tp, tx)
            gain += their[Result.BEATEN] * self._loss(s, p, x, close, Result.BEATEN, enemy_initiated=x_initiated)
            gain += their[Result.DOUBLED] * self._loss(s, p, x, close, Result.DOUBLED, enemy_initiated=x_initiated)
        if lose > 0 and (close or False):
            gain -= odds[Result.BEATEN] * self._loss(s, x, p, close, Result.BEATEN, loser_initiated=x_initiated)
            gain -= odds[Result.DOUBLED] * self._loss(s, x, p, close, Result.DOUBLED, loser_initiated=x_initiated)
        return gain

    def _loss(self, s: TankState, loser: int, winner: int, close: bool, result: Result,
              enemy_initiated: bool = False, loser_initiated: bool = False) -> float:
        """What ``loser``'s side loses, in AP, from the outcome row (14) of ``result``."""
        if loser == BUNKER_ID:
            f = Fight(loser=BUNKER, enemy=s.etype[winner], close=True, ground_aided=self._ground_aid(s, winner))
            return BUNKER_VALUE if outcome(f, result) is Outcome.DESTROYED else 0.0
        wt = BUNKER if winner == BUNKER_ID else s.etype[winner]
        f = Fight(loser=s.etype[loser], enemy=wt, close=close, enemy_initiated=enemy_initiated,
                  loser_initiated=loser_initiated, loser_good_going=good_going_for_rows(s, loser),
                  contact_bad_going=close and contact_bad_going(s, loser, winner),
                  in_trench=occupies_trench(s, loser), in_strongpoint=s.cell[loser] in s.board.strongpoints,
                  ground_aided=True, foot_bad_going=s.rules.foot_bad_going)
        o = outcome(f, result)
        ap = STATS[s.etype[loser]].ap
        if o is Outcome.DESTROYED or o is Outcome.LOST_OFF:
            if self._breaks(s, s.side[loser], ap):
                return BREAK_VALUE  # this loss breaks its side (17.2): the game
            return float(ap) + (0.5 if s.general[loser] else 0.0)
        # a beaten attacker loses ground it paid PIPs for: a recoil is a cell, a flight a whole move (15.1, 15.4)
        back = 1.2 * _ADVANCE.get(s.etype[loser], 0.3) if s.side[loser] == ATTACKER else 0.0
        if o in (Outcome.FLEE, Outcome.FLEE_600):
            return 0.4 * ap + 2 * back
        if o in (Outcome.SUPPRESSED, Outcome.RECOIL_OR_SUPPRESS, Outcome.TO_RESERVE):
            return 0.5
        if o is Outcome.RECOIL:
            return 0.3 + back + (0.6 if occupies_trench(s, loser) else 0.0)
        return 0.0

    def _breaks(self, s: TankState, side: int, ap: int) -> bool:
        """Whether losing ``ap`` more AP takes ``side`` to its break point (17.2: half its army's AP), the
        tallies read once per state."""
        memo = self._memo_for(s)
        if "tally" not in memo:
            memo["tally"] = [(s.lost_ap(x), s.army_ap(x)) for x in (0, 1)]
        lost, total = memo["tally"][side]
        return 2 * (lost + ap) >= total > 0

    def _ground_aid(self, s: TankState, winner: int) -> bool:
        side = s.side[winner]
        b = s.board.bunker
        return any(s.cell[e] >= 0 and s.side[e] == side and e != winner and not is_aerial(s.etype[e])
                   and s.etype[e] not in (EType.BARRAGE, EType.GAS) and gap(s.cell[e], b) == 0
                   and abs(s.cell[e] % 16 - b % 16) + abs(s.cell[e] // 16 - b // 16) == 1
                   for e in range(len(s.cell)))

    # ------------------------------------------------------------------ placing an element
    def _place_score(self, s: TankState, me: int, e: int, dest: int, facing: int) -> float:
        """The rating of ``e`` standing at ``dest`` facing ``facing`` (the state is changed and restored)."""
        old_cell, old_face = s.cell[e], s.facing[e]
        old_init = s.initiated[e]
        if old_cell >= 0:
            s.grid[old_cell] = -1
        s.cell[e], s.facing[e] = dest, facing
        s.grid[dest] = e
        s._memo = None
        self._placing = True  # only ``e`` is away from its cell: its exposure there may be kept
        try:
            return self._stand_score(s, me, e, old_cell)
        finally:
            self._placing = False
            s.grid[dest] = -1
            s.cell[e], s.facing[e] = old_cell, old_face
            if old_cell >= 0:
                s.grid[old_cell] = e
            s.initiated[e] = old_init
            s._memo = None

    def _front_enemies(self, s: TankState, e: int) -> list[int]:
        """Enemies (and the Bunker) that ``e``'s front edge touches."""
        c = s.cell[e]
        n = s.board.step(c, s.facing[e])
        if n is None:
            return []
        if n == s.board.bunker and s.side[e] == ATTACKER and s.bunker_alive:
            return [BUNKER_ID]
        y = s.grid[n]
        if y >= 0 and s.side[y] != s.side[e]:
            return [y]
        return []

    def _threats(self, s: TankState, e: int) -> list[int]:
        """Enemies whose front edge touches ``e`` (they will fight it)."""
        out = []
        for f in range(4):
            n = s.board.step(s.cell[e], f)
            if n is None:
                continue
            y = s.grid[n]
            if y >= 0 and s.side[y] != s.side[e] and s.board.step(n, s.facing[y]) == s.cell[e]:
                out.append(y)
        return out

    def _stand_score(self, s: TankState, me: int, e: int, start: int) -> float:
        t = s.etype[e]
        dist = bunker_distance(s)
        c = s.cell[e]
        score = 0.0
        own = s.side[e] == me
        sign = 1.0 if own else -1.0  # moving the enemy's Gas: rate it for the enemy, then negate
        side = s.side[e]
        if side == ATTACKER and not is_aerial(t):
            w = _ADVANCE.get(t, 0.3)
            if s.general[e]:
                w = 0.35
            d = dist[c] if dist[c] < 99 else 30
            left = max(1, s.scenario.turn_limit * 2 - s.bound)
            if left < 20:  # the turn limit is the defender's (17.3): hurry
                w *= 1.0 + (20 - left) / 10
            score -= w * (d + min(d, NEAR_CELLS))
            # face the way on: a group moves, and an element held at wire crosses, straight ahead (8.4, 16.2)
            n = s.board.step(c, s.facing[e])
            if n is not None and dist[n] < d:
                score += 0.4 * w
            elif n is None or dist[n] > d:
                score -= 0.2 * w
        elif side == DEFENDER and not is_aerial(t) and t not in (EType.GAS, EType.BARRAGE):
            score += self._defender_stand(s, e)
        if t in (EType.GAS, EType.BARRAGE):
            score += self._fire_stand(s, e)
            return sign * score
        # close combat this bound (own bound: we choose to contact) and the enemy's in his
        active = s.active == side
        for y in self._front_enemies(s, e):
            if y == BUNKER_ID:
                score += self._fight_value(s, e, BUNKER_ID, True)
                score += 1.5
            elif not is_aerial(s.etype[y]) and s.etype[y] not in (EType.BARRAGE, EType.GAS):
                init = active and y not in (s.initiated[e] or ()) and start != c
                score += self._fight_value(s, e, y, init)
        for y in self._threats(s, e):
            if y in self._front_enemies(s, e):
                continue
            if s.etype[y] in (EType.BARRAGE, EType.GAS):
                continue
            score += 0.7 * self._fight_value(s, e, y, False)  # it turns to face (10)
        # general: keep within command distance of the troops
        if s.general[e] and side == ATTACKER:
            friends = [s.cell[x] for x in range(len(s.cell)) if s.cell[x] >= 0 and s.side[x] == side
                       and x != e and not is_aerial(s.etype[x]) and s.etype[x] not in (EType.BARRAGE, EType.GAS)]
            if friends:  # 7.1: every move of an element out of command distance costs +1 PIP
                score -= sum((1.5 if s.etype[x] is EType.TANK else 0.6) for x in range(len(s.cell))
                             if x != e and s.cell[x] >= 0 and s.side[x] == side and not is_aerial(s.etype[x])
                             and s.etype[x] not in (EType.BARRAGE, EType.GAS) and gap(c, s.cell[x]) > 1100)
        # enemy fire at the new place (a small penalty: guns shoot in both bounds)
        if not is_aerial(t) and not self._front_enemies(s, e) and not self._threats(s, e):
            score -= (EXPOSURE_WEIGHT if side == ATTACKER else 1.0) * self._exposure(s, e)
        return sign * score

    def _exposure(self, s: TankState, e: int) -> float:
        """Expected AP ``e`` loses to the enemy shots that can reach it where it stands (11.2, 14): Rifles and
        MGs shoot in both bounds (11.1)."""
        key = ("exposure", e, s.cell[e]) if self._placing else None
        memo = self._memo_for(s)
        if key in memo:  # the same element in the same cell, another facing: the shooters see it alike (11.2)
            return memo[key]
        loss = 0.0
        targeted = s.targeted[e]
        s.targeted[e] = False
        try:
            for y, rng in self._shooters(s, 1 - s.side[e]):
                if gap(s.cell[y], s.cell[e]) <= rng and s.legal_target(y, e):
                    loss += self._fight_value(s, y, e, False, close=False)
        finally:
            s.targeted[e] = targeted
        if key is not None:
            memo[key] = loss
        return loss

    def _shooters(self, s: TankState, side: int) -> list[tuple[int, int]]:
        """``side``'s elements that may shoot (range > 0, not Suppressed, 11.1) with their ranges, read once per
        state and side (placing one of the other side's elements changes neither)."""
        memo = self._memo_for(s)
        rows = memo.get(("shooters", side))
        if rows is None:
            rows = memo[("shooters", side)] = [
                (y, STATS[s.etype[y]].range) for y in range(len(s.cell))
                if s.cell[y] >= 0 and s.side[y] == side and STATS[s.etype[y]].range > 0 and not s.suppressed[y]]
        return rows

    def _memo_for(self, s: TankState) -> dict:
        """Tallies kept for the state one decision rates (set by :meth:`act`, which holds that state for the whole
        decision; its ratings move one side's element at a time and put it back, never losing an element); any
        other state gets a fresh, unkept dict."""
        memo = self._tallies
        return memo[1] if memo is not None and memo[0] is s else {}

    def _defender_stand(self, s: TankState, e: int) -> float:
        """The defender's liking for a cell: a trench cell facing the enemy, and round the Bunker when the
        enemy is near it; staying put is the default."""
        c = s.cell[e]
        t = s.etype[e]
        score = 0.0
        if c in s.board.trench and t is not EType.TANK:
            score += 1.0
            if s.facing[e] == 0:
                score += 0.3
        b = s.board.bunker
        if b is not None and b >= 0:
            near = min((gap(s.cell[x], b) for x in range(len(s.cell)) if s.cell[x] >= 0 and s.side[x] == ATTACKER
                        and not is_aerial(s.etype[x]) and s.etype[x] not in (EType.BARRAGE, EType.GAS)),
                       default=9999)
            touching = abs(c % 16 - b % 16) + abs(c // 16 - b // 16) == 1
            if near <= 500:
                if touching:
                    score += 2.5
                score -= 0.3 * gap(c, b) / 100
        return score

    def _fire_stand(self, s: TankState, e: int) -> float:
        """A Barrage or Gas: the enemies (and the Bunker, the wire) its front touches."""
        c = s.cell[e]
        n = s.board.step(c, s.facing[e])
        if n is None:
            return -1.0
        side = s.side[e]
        score = 0.0
        ground = [s.cell[x] for x in range(len(s.cell)) if s.cell[x] >= 0 and s.side[x] == side
                  and not is_aerial(s.etype[x]) and s.etype[x] not in (EType.BARRAGE, EType.GAS)]
        near = min((gap(g, n) for g in ground), default=9999)  # fire that our troops can follow up (12.1)
        follow = 1.0 if near <= 300 else (0.5 if near <= 600 else 0.0)
        if n == s.board.bunker and side == ATTACKER and s.bunker_alive:
            score += 0.5 + 3.0 * follow  # it cannot take the Bunker alone, but aids ground troops (16.4)
        y = s.grid[n]
        if y >= 0 and s.side[y] != side and not is_aerial(s.etype[y]) and s.etype[y] not in (EType.BARRAGE,
                                                                                                EType.GAS):
            score += (1.0 + self._fight_value(s, e, y, True) + (1.0 if occupies_trench(s, y) else 0.0)) * (
                0.5 + follow)
        elif y >= 0 and s.side[y] != side and s.etype[y] is EType.BARRAGE and s.etype[e] is EType.BARRAGE:
            score += 1.5
        elif y < 0 and s.wire.get(n, side) != side:
            score += 1.2 * (0.3 + follow)
        # nearer the Bunker is better for the attacker's fire
        if side == ATTACKER:
            score -= 0.05 * bunker_distance(s)[c]
        return score

    # ------------------------------------------------------------------ step 2
    def _moves(self, s: TankState, me: int, legal: list[int]) -> int:
        self._plan = None
        cands: list[tuple[float, int, dict | None]] = []
        # spends
        for a in legal:
            if a == END or a < DEPLOY:
                continue
            v = self._spend_value(s, me, a)
            if v > 0:
                cands.append((v, a, None))
        # single moves, and groups led by the element; the attacker pushes its leading elements on first
        lead: set[int] = set()
        if me == ATTACKER:
            dist = bunker_distance(s)
            mine = sorted((dist[s.cell[x]], x) for x in range(len(s.cell)) if s.cell[x] >= 0 and s.side[x] == me
                          and not is_aerial(s.etype[x]) and s.etype[x] not in (EType.BARRAGE, EType.GAS))
            lead = {x for _, x in mine[:3]}
        seen_groups: set[frozenset[int]] = set()
        for a in legal:
            if a >= NUM_CELLS:
                continue
            e = s.grid[a]
            if e < 0:
                continue
            gain, cost = self._best_single(s, me, e)
            if self._should_dismount(s, me, e, gain):
                cands.append((1.0, a, {"dismount": True}))
            elif cost > 0 and gain > 0.05:
                k = 1.5 if e in lead else 1.0
                if me == ATTACKER and s.side[e] == me and s.etype[e] in GUNS:
                    k *= GUN_MOVE
                cands.append((gain / cost * k + 0.01 * gain, a, None))
            if s.side[e] == me:
                grp = self._group_of(s, e)
                if len(grp) >= 2 and frozenset(grp) not in seen_groups:
                    seen_groups.add(frozenset(grp))
                    gval, gcost, gact = self._best_group(s, me, grp)
                    if gcost > 0 and gval > 0.05:
                        cands.append((1.3 * gval / gcost + 0.01 * gval, a, {"group": [s.cell[m] for m in grp],
                                                                            "move": gact}))
        if not cands:
            return END
        cands.sort(key=lambda x: -x[0])
        _, a, plan = cands[0]
        self._plan = plan
        return a

    def _should_dismount(self, s: TankState, me: int, e: int, gain: float) -> bool:
        """Attacking Cavalry dismount (8.8) when stuck (horses may not enter a trench, 16.1) or near an enemy
        trench: mounted troops attacking one take -4 (13.1)."""
        if me != ATTACKER or s.etype[e] is not EType.CAVALRY or s.side[e] != me or not s._remount(e):
            return False
        if gain <= 0.2:
            return True
        c = s.cell[e]
        return any(s.board.step(c, f) in s.board.trench for f in range(4)) or any(
            s.cell[y] >= 0 and s.side[y] != me and occupies_trench(s, y) and gap(c, s.cell[y]) <= 300
            for y in range(len(s.cell)))

    def _best_single(self, s: TankState, me: int, e: int) -> tuple[float, int]:
        """The best gain of a single move of ``e`` over standing still, and its PIP cost."""
        opts = s._options(e)
        if not opts:
            return 0.0, 0
        here = self._place_score(s, me, e, s.cell[e], s.facing[e])
        best, cost = -1e9, 0
        for dest, opt in opts.items():
            for f in opt.facings:
                v = self._place_score(s, me, e, dest, f)
                if v > best:
                    best, cost = v, s.move_cost(e, opt)
        return best - here, cost

    def _move_dest(self, s: TankState, me: int, legal: list[int]) -> int:
        plan = self._plan
        if plan is not None and plan.get("dismount") and DISMOUNT in legal:
            return DISMOUNT
        if plan is not None and plan.get("group") and GROUP in legal:
            return GROUP
        e = s.pending["element"]
        opts = s._options(e)
        best, best_v = None, -1e18
        for a in legal:
            if a in opts:
                v = max(self._place_score(s, me, e, a, f) for f in opts[a].facings)
                v -= 0.01 * s.move_cost(e, opts[a])
                if v > best_v:
                    best, best_v = a, v
        return best if best is not None else legal[0]

    def _group_of(self, s: TankState, lead: int) -> list[int]:
        """The lead's friends of its facing connected to it edge to edge, all free to group (8.4)."""
        if not groups_mod.groupable(s, lead):
            return [lead]
        out = [lead]
        seen = {lead}
        q = deque([lead])
        while q and len(out) < 8:
            x = q.popleft()
            for f in range(4):
                n = s.board.step(s.cell[x], f)
                if n is None:
                    continue
                y = s.grid[n]
                if y < 0 or y in seen or s.side[y] != s.side[lead] or s.facing[y] != s.facing[lead]:
                    continue
                if is_aerial(s.etype[y]) != is_aerial(s.etype[lead]) or not groups_mod.groupable(s, y):
                    continue
                if groups_mod.occupant(s, y) != groups_mod.occupant(s, lead):
                    continue
                seen.add(y)
                out.append(y)
                q.append(y)
        return out

    def _best_group(self, s: TankState, me: int, grp: list[int]) -> tuple[float, int, int]:
        try:
            moves = groups_mod.group_moves(s, grp)
        except Exception:  # noqa: BLE001
            return 0.0, 0, -1
        if not moves:
            return 0.0, 0, -1
        here = sum(self._place_score(s, me, m, s.cell[m], s.facing[m]) for m in grp)
        best, best_a = -1e9, -1
        for a, mv in moves.items():
            if mv.kind in ("mount", "dismount", "turn"):
                continue
            v = self._group_score(s, me, grp, mv)
            if v > best:
                best, best_a = v, a
        if best_a < 0:
            return 0.0, 0, -1
        return best - here, groups_mod.move_cost(s, grp, moves[best_a]), best_a

    def _group_score(self, s: TankState, me: int, grp: list[int], mv) -> float:
        old = [(s.cell[m], s.facing[m]) for m in grp]
        for m in grp:
            s.grid[s.cell[m]] = -1
        for m, d in zip(grp, mv.dests):
            s.cell[m], s.facing[m] = d, mv.facing
            s.grid[d] = m
        s._memo = None
        try:
            return sum(self._stand_score(s, me, m, oc) for m, (oc, _) in zip(grp, old))
        finally:
            for m in grp:
                s.grid[s.cell[m]] = -1
            for m, (oc, of) in zip(grp, old):
                s.cell[m], s.facing[m] = oc, of
                s.grid[oc] = m
            s._memo = None

    def _group_add(self, s: TankState, legal: list[int]) -> int:
        plan = self._plan or {}
        want = set(plan.get("group", ()))
        for a in legal:
            if a != END and a in want:
                return a
        return END if END in legal else legal[0]

    def _group_move(self, s: TankState, me: int, legal: list[int]) -> int:
        grp = s.pending["group"]
        moves = groups_mod.group_moves(s, grp)
        best, best_v = None, -1e18
        for a in legal:
            mv = moves.get(a)
            if mv is None:
                continue
            v = self._group_score(s, me, grp, mv) if mv.kind not in ("mount", "dismount") else -1e6
            if v > best_v:
                best, best_v = a, v
        self._plan = None
        return best if best is not None else legal[0]

    # ---- spends (7.2, 9)
    def _spend_value(self, s: TankState, me: int, a: int) -> float:
        if a == COUNTER:
            hits = sum(1 for b in reserves.enemy_barrages(s, me) for y in self._fire_victims(s, b))
            return 2.0 + hits
        if a == RALLY:
            return 1.5
        t = EType(a - DEPLOY)
        if t is EType.BARRAGE:
            return 3.0 if self._best_entry(s, me, t) > 0.5 else 0.0
        if t is EType.GAS:
            return 1.5 if self._best_entry(s, me, t) > 1.5 else 0.0
        if t is EType.MINEFIELD:
            return 1.2 if self._best_entry(s, me, t) > 0.5 else 0.0
        if t is EType.SNIPER:
            return 0.8 if self._best_entry(s, me, t) > 0.5 else 0.0
        if t is EType.BALLOON:
            return 0.3
        if t is EType.BOMBER:
            return 0.2
        if t is EType.FIGHTER:
            return 0.3
        return 0.0

    def _fire_victims(self, s: TankState, b: int) -> list[int]:
        n = s.board.step(s.cell[b], s.facing[b])
        if n is None:
            return []
        y = s.grid[n]
        return [y] if y >= 0 and s.side[y] != s.side[b] else []

    def _reserve_of(self, s: TankState, me: int, t: EType) -> int:
        for e in reserves.in_reserve(s, me, t):
            return e
        return -1

    def _best_entry(self, s: TankState, me: int, kind: EType) -> float:
        e = self._reserve_of(s, me, kind)
        if e < 0:
            return 0.0
        try:
            cells = reserves.entry_cells(s, e)
        except Exception:  # noqa: BLE001
            return 0.0
        best = 0.0
        for c, fs in cells.items():
            for f in fs:
                best = max(best, self._entry_score(s, me, e, c, f))
        return best

    def _entry_score(self, s: TankState, me: int, e: int, cell: int, f: int) -> float:
        t = s.etype[e]
        if t in (EType.BARRAGE, EType.GAS):
            return self._with(s, e, cell, f, lambda: self._fire_stand(s, e))
        if t is EType.MINEFIELD:
            def mine() -> float:
                n = s.board.step(cell, f)
                y = s.grid[n] if n is not None else -1
                if y < 0 or s.side[y] == me:
                    return 0.0
                pinned = 1.0 if s.board.step(n, s.facing[y]) == cell else 0.3  # on its front: held (8.1)
                return pinned * (2.0 * _ADVANCE.get(s.etype[y], 0.3) + 0.3) + self._fight_value(s, e, y, True)
            return self._with(s, e, cell, f, mine)
        if t is EType.SNIPER:
            def snipe() -> float:
                return sum(0.5 for y in range(len(s.cell)) if s.cell[y] >= 0 and s.side[y] != me
                           and not is_aerial(s.etype[y]) and s.etype[y] not in (EType.BARRAGE, EType.GAS)
                           and s.legal_target(e, y)) - 0.5 * len(self._threats(s, e))
            return self._with(s, e, cell, f, snipe)
        if t is EType.BALLOON:
            return -0.01 * bunker_distance(s)[cell]
        return self._with(s, e, cell, f, lambda: self._stand_score(s, me, e, cell))

    def _with(self, s: TankState, e: int, cell: int, f: int, fn) -> float:
        old_cell, old_face = s.cell[e], s.facing[e]
        s.cell[e], s.facing[e] = cell, f
        s.grid[cell] = e
        s._memo = None
        try:
            return fn()
        finally:
            s.grid[cell] = -1
            s.cell[e], s.facing[e] = old_cell, old_face
            s._memo = None

    def _enter_cell(self, s: TankState, me: int, legal: list[int]) -> int:
        e = s.pending["element"]
        cells = reserves.entry_cells(s, e)
        best, best_v = legal[0], -1e18
        for a in legal:
            fs = cells.get(a, ())
            v = max((self._entry_score(s, me, e, a, f) for f in fs), default=-1e9)
            v += self.rng.random() * 1e-6
            if v > best_v:
                best, best_v = a, v
        return best

    def _spend_target(self, s: TankState, me: int, legal: list[int]) -> int:
        spend = s.pending.get("spend")
        if spend == "rally":
            # the element whose group is the largest, guns first
            return max(legal, key=lambda c: (s.etype[s.grid[c]] in GUNS, len(reserves.rally_group(s, s.grid[c]))))
        # counter-battery or raid: the Barrage doing the most harm, nearest the Bunker
        return max(legal, key=lambda c: (len(self._fire_victims(s, s.grid[c])), -gap(c, s.board.bunker)))

    # ------------------------------------------------------------------ step 4
    def _shot_value(self, s: TankState, sh: int, tg: int) -> float:
        if tg < 0:
            return -1e9
        return self._fight_value(s, sh, tg, False, close=False) + self.rng.random() * 1e-6

    def _shoot_select(self, s: TankState, me: int, legal: list[int]) -> int:
        """Own shooters with the best shot first; the enemy's last (they may lose their targets)."""
        best, best_v = legal[0], -1e18
        for c in legal:
            sh = s.grid[c]
            if s.side[sh] == me:
                v = max((self._fight_value(s, sh, t, False, close=False) for t in s._targets(sh)), default=0.0)
            else:
                v = -10.0
            if v > best_v:
                best, best_v = c, v
        return best

    def _shoot_back(self, s: TankState, legal: list[int]) -> int:
        sh, tg = s.pending["shooter"], s.pending["target"]
        aids = len(s.pending.get("aids", ()))
        tot = shooting_totals(s, sh, tg, aids, True)
        odds = _odds(tot.target, tot.shooter)
        their = _odds(tot.shooter, tot.target)
        gain = (their[Result.BEATEN] * self._loss(s, sh, tg, False, Result.BEATEN)
                + their[Result.DOUBLED] * self._loss(s, sh, tg, False, Result.DOUBLED))
        risk = (odds[Result.BEATEN] * self._loss(s, tg, sh, False, Result.BEATEN)
                + odds[Result.DOUBLED] * self._loss(s, tg, sh, False, Result.DOUBLED))
        return YES if gain > risk and YES in legal else END

    # ------------------------------------------------------------------ step 5
    def _combat_order(self, s: TankState, me: int, legal: list[int]) -> int:
        """The best-odds fight first: a win may free or outflank the next."""
        best, best_v = legal[0], -1e18
        for c in legal:
            x = BUNKER_ID if c == s.board.bunker else s.grid[c]
            if x < 0:
                v = 0.0
            elif x == BUNKER_ID or s.side[x] != me:
                v = 0.0
            else:
                v = max((self._fight_value(s, x, y, y in (s.initiated[x] or ()))
                         for y in self._front_enemies(s, x) + self._threats(s, x)
                         if y == BUNKER_ID or s.etype[y] not in (EType.BARRAGE, EType.GAS)), default=0.0)
            if v > best_v:
                best, best_v = c, v
        return best


__all__ = ["TankHeuristic", "bunker_distance"]
