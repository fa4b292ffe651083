"""A rules-of-thumb commander for the hex game that sees only its side's information view.

- Shoots the target with the best expected effect: the exact expectation of the
  modified D3 (with cover), weighted up for damaged targets, likely
  eliminations and units on objectives.
- Otherwise moves towards the nearest objective it does not hold, preferring
  cover for infantry and keeping guns out of contact; the legal moves it picks
  from already respect zones of control and stacking.
- Mortars and artillery lay smoke over friendly units standing in the open
  next to the enemy when they have nothing worth shooting.
- Takes evasive action when the incoming shot is an effective one.
"""

from __future__ import annotations

import numpy as np

from cardwar.envs.hexwar.actions import DECODED, EVADE, NO_EVADE, PASS, Kind
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.geometry import DIST, NEIGH
from cardwar.envs.hexwar.scenario import cell_of
from cardwar.envs.hexwar.shooting import D3_FACES, shot_modifier, type_modifier
from cardwar.envs.hexwar.sighting import takes_cover
from cardwar.envs.hexwar.state import HexPhase
from cardwar.envs.hexwar.terrain import COVER, OPEN
from cardwar.envs.hexwar.units import STATS, FireClass, TargetClass
from cardwar.envs.hexwar.view import HexView, UnitView

_DEFAULT = HexConfig()


def expected_hits(shooter: UnitView, target: UnitView, v: HexView) -> float:
    """Mean hits of one shot (no evasion), exact over the D3's faces."""
    direct = STATS[shooter.type].fire != FireClass.INDIRECT
    cover = takes_cover(target.type, target.cell, shooter.cell if direct and shooter.cell >= 0 else None,
                        v.terrain, v.smoke, _DEFAULT)
    dist = DIST[shooter.cell][target.cell] if shooter.cell >= 0 else 99
    mod = shot_modifier(shooter.type, target.type, dist, cover, False)
    return sum(max(0, f + mod) for f in D3_FACES) / len(D3_FACES)


class HexHeuristic:
    """Rules-of-thumb commander."""

    def __init__(self, seed: int | None = None) -> None:
        self.name = "heuristic"
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: HexView) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return legal[0]
        if view.phase == HexPhase.EVADE:
            return self._evade(view, {u.uid: u for u in view.units}, legal)
        scores = self.scores(view, legal)
        best, best_score = PASS, 0.15
        for a, score in scores.items():
            score += self.rng.random() * 1e-3  # break ties without a fixed bias
            if score > best_score:
                best, best_score = a, score
        return best

    def scores(self, view: HexView, legal: list[int]) -> dict[int, float]:
        """The heuristic's rating of each legal action of the acting unit (pass rates 0.15)."""
        units = {u.uid: u for u in view.units}
        me = units.get(view.acting)
        out: dict[int, float] = {PASS: 0.15} if PASS in legal else {}
        if me is None:
            return out
        by_cell: dict[int, list[UnitView]] = {}
        for u in view.units:
            if u.cell >= 0:
                by_cell.setdefault(u.cell, []).append(u)
        for a in legal:
            d = DECODED[a]
            if d.kind in (Kind.SHOOT, Kind.JOINT_SHOOT):
                here = by_cell.get(d.cell, [])
                if d.slot >= len(here):
                    continue
                score = self._shot_score(me, here[d.slot], view) * (1.8 if d.kind == Kind.JOINT_SHOOT else 1.0)
            elif d.kind in (Kind.MOVE, Kind.JOINT_MOVE):
                score = self._move_score(me, d.cell, view, by_cell)
            elif d.kind == Kind.SMOKE:
                score = self._smoke_score(d.cell, view, by_cell)
            else:
                continue
            out[a] = score
        return out

    def _evade(self, v: HexView, units: dict[int, UnitView], legal: list[int]) -> int:
        target = units.get(v.pending.target)
        shooters = [units[s] for s in v.pending.shooters if s in units]
        if target is None or not shooters:
            return NO_EVADE
        danger = sum(expected_hits(s, target, v) for s in shooters)
        effective = any(type_modifier(s.type, target.type) > 0 for s in shooters)
        return EVADE if (danger >= 1.6 or effective or target.hits >= 5) and EVADE in legal else NO_EVADE

    def _shot_score(self, me: UnitView, target: UnitView, v: HexView) -> float:
        e = expected_hits(me, target, v)
        score = e * (1.0 + target.hits / 9.0)
        if target.hits + 3 + (e - 2) > 8:
            score += 1.0  # may eliminate it
        if any(cell_of(o.hex) == target.cell for o in v.objectives):
            score += 0.5
        return score

    def _objective_targets(self, v: HexView) -> list[int]:
        cells = [cell_of(o.hex) for o, h in zip(v.objectives, v.holders) if h != v.side]
        return cells or [cell_of(o.hex) for o in v.objectives]

    def _move_score(self, me: UnitView, dest: int, v: HexView, by_cell: dict[int, list[UnitView]]) -> float:
        goals = self._objective_targets(v)
        if not goals or me.cell < 0:
            return 0.0
        before = min(DIST[me.cell][g] for g in goals)
        after = min(DIST[dest][g] for g in goals)
        score = 0.35 * (before - after)
        if after == 0:
            score += 0.8
        soft = STATS[me.type].target != TargetClass.ARMOUR
        if soft and v.terrain[dest] in COVER:
            score += 0.25
        enemy_near = sum(1 for n in NEIGH[dest] for u in by_cell.get(n, []) if u.side != v.side)
        if STATS[me.type].fire in (FireClass.INDIRECT, FireClass.ANTI_TANK) and STATS[me.type].target != \
                TargetClass.ARMOUR:
            score -= 0.5 * enemy_near  # guns keep out of contact
        holding = any(cell_of(o.hex) == me.cell and h == v.side for o, h in zip(v.objectives, v.holders))
        if holding:
            score -= 0.8  # stay on an objective we hold
        return score

    def _smoke_score(self, cell: int, v: HexView, by_cell: dict[int, list[UnitView]]) -> float:
        friends = [u for u in by_cell.get(cell, []) if u.side == v.side]
        if not friends or v.terrain[cell] not in OPEN:
            return 0.0
        threatened = any(u.side != v.side for n in NEIGH[cell] for u in by_cell.get(n, []))
        return 0.6 if threatened else 0.0
