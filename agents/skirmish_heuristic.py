"""A rules-of-thumb squad leader for the skirmish (RULES.md) that sees only its seat's view.

It answers every step of both sequences (§7.1 phases, §7.2 deck; the steps of §9.1) from the
seat's :class:`~cardwar.envs.skirmish.view.SkirmishView` and the public map:

- **keeps to cover**: a hex is rated by the cover it gives against every known enemy that can see
  and reach it (§5.2) and by how many of them can;
- **goes prone under fire**: a figure that ends its move or stays where a known enemy can fire at
  it takes the prone stance (§2.3);
- **shoots the most valuable visible target it can hit**: the chance of the card (effective Shoot
  less the target's cover, a 10 always fails, §3.1, §5.1) times the target's worth (its weapon, a
  wound already taken, an objective it stands on); a burst where two or three targets stand
  together (§5.4);
- **throws grenades at groups**: the expected wounds of the blast (red card, §6.3) on the enemies
  around a hex, less its friends there, against the odds of landing (§6.1);
- **advances by bounds**: once in contact, half of each fire team moves on the objective (keeping
  to cover) while the other half stays, watches and fires (§5.5); the halves swap each turn.

The map is public (§9.2): it is read from the view's scenario when the view carries one, otherwise
rebuilt from the observation's static planes (ground and edges; a door reads closed until the view
says it was opened).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from cardwar.agents.spec import Option
from cardwar.envs.skirmish.actions import CHOICE, N_CELLS, Step
from cardwar.envs.skirmish.board import ENTIRE, Board, Edge, Ground
from cardwar.envs.skirmish.observation import EDGE_KINDS, N_STATIC, P, planes_of
from cardwar.envs.skirmish.scenario import DIRECTION_NAMES
from cardwar.envs.skirmish.view import SkirmishView, UnitView
from cardwar.envs.skirmish.weapons import FIREARMS, THROWN

OPTIONS: tuple[Option, ...] = (
    Option("bounds", bool, True, "advance by bounds: half of each team moves while the other half covers"),
)

_EDGE_OF_KIND = {"wall_low": Edge.WALL_LOW, "wall_high": Edge.WALL_HIGH, "hedge_low": Edge.HEDGE_LOW,
                 "hedge_high": Edge.HEDGE_HIGH, "door": Edge.DOOR_CLOSED, "window": Edge.WINDOW,
                 "building_wall": Edge.BUILDING_WALL, "embrasure": Edge.EMBRASURE}
_WEAPON_WORTH = {"pistol": 0.0, "rifle": 0.2, "smg1": 0.4, "smg2": 0.4, "lmg": 0.7, "mmg": 0.8,
                 "at_light": 0.5, "at_medium": 0.6, "at_heavy": 0.6}
_BOARDS: dict[bytes, Board] = {}
_FOV: dict[tuple, frozenset[int]] = {}
_LOS: dict[tuple, bool] = {}
_DIST: dict[tuple, np.ndarray] = {}
GUESSED_SKILL = 5
"""An enemy's Shoot is never in the view (§9.2): a regular's generic number (§2.1) is assumed."""


def board_from_observation(obs: np.ndarray) -> Board:
    """The public map rebuilt from the observation's static planes (ground, edges; RULES.md §1.2, §1.3)."""
    planes = np.ascontiguousarray(planes_of(obs)[:N_STATIC])  # [plane, cell] (the observation is channels-last)
    key = planes[: P["objective_points"]].tobytes()
    board = _BOARDS.get(key)
    if board is not None:
        return board
    ground = tuple(Ground(int(g)) for g in np.argmax(planes[P["ground_clear"]: P["ground_clear"] + len(Ground)],
                                                         axis=0))
    edges: dict[tuple[int, int], Edge] = {}
    from cardwar.envs.skirmish.actions import GRID

    for k, kind in enumerate(EDGE_KINDS):
        for d, dname in enumerate(DIRECTION_NAMES):
            for c in np.flatnonzero(planes[P[f"edge_{kind}_{dname}"]]):
                n = GRID.steps(int(c))[d]
                if 0 <= n < N_CELLS:
                    edges[(min(int(c), n), max(int(c), n))] = _EDGE_OF_KIND[kind]
    board = Board(ground, edges)
    if len(_BOARDS) > 64:
        _BOARDS.clear()
    _BOARDS[key] = board
    return board


def public_board(observation: dict | np.ndarray | None, view: SkirmishView) -> Board:
    """The map: the view's scenario's when it has one, else rebuilt from the observation (§9.2: public)."""
    scenario = getattr(view, "scenario", None)
    if scenario is not None:
        return scenario.board
    if observation is None:
        raise ValueError("the skirmish agents need the observation (or a view that carries the scenario)")
    obs = observation["observation"] if isinstance(observation, dict) else observation
    return board_from_observation(obs)


def field_of_view(board: Board, cell: int, blockers: frozenset[int], doors: frozenset) -> frozenset[int]:
    """Every hex in sight of ``cell`` (RULES.md §1.4), cached."""
    key = (id(board), cell, blockers, doors)
    out = _FOV.get(key)
    if out is None:
        if len(_FOV) > 50000:
            _FOV.clear()
        cache = board.__dict__.setdefault("_seen_cells", {})
        hit = cache.get((cell, blockers, doors, "either_side"))
        if hit is not None:
            out = hit
        else:
            out = frozenset(c for c in range(N_CELLS) if board.on_map(c) and board.sees(
                cell, c, blockers=blockers - {cell, c}, open_doors=doors))
        _FOV[key] = out
    return out


def goal_distances(board: Board, goals: tuple[int, ...]) -> np.ndarray:
    """Movement cost from every hex to the nearest goal for a man on foot (§1.2, §1.3; a whole-move crossing
    counts 3)."""
    key = (id(board), goals)
    out = _DIST.get(key)
    if out is not None:
        return out
    table = board._move_table(1)  # standing or kneeling (board.UPRIGHT)
    back: list[list[tuple[int, int]]] = [[] for _ in range(N_CELLS)]
    for a in range(N_CELLS):
        for _d, b, cost, _door, c_open in table[a]:
            c = c_open if c_open is not None else cost
            if c is None:
                continue
            back[b].append((a, 3 if c is ENTIRE else int(c)))
    dist = np.full(N_CELLS, 99.0)
    heap = [(0.0, g) for g in goals if 0 <= g < N_CELLS]
    for _, g in heap:
        dist[g] = 0.0
    heapq.heapify(heap)
    while heap:
        d, c = heapq.heappop(heap)
        if d > dist[c]:
            continue
        for a, cost in back[c]:
            nd = d + cost
            if nd < dist[a]:
                dist[a] = nd
                heapq.heappush(heap, (nd, a))
    if len(_DIST) > 256:
        _DIST.clear()
    _DIST[key] = dist
    return dist


def weapon_range(weapon: str, deployed: bool = True) -> int:
    """Reach of a (possibly comma-joined vehicle) weapon key; 30 for line of sight (§2.2)."""
    best = 0
    for w in weapon.split(","):
        arm = FIREARMS.get(w)
        if arm is not None:
            r = arm.range_for(deployed)
            best = max(best, 30 if r is None else r)
    return best


def hit_chance(skill: int) -> float:
    """P(card <= skill) from a 40-card pack, a 10 always failing (§3.1)."""
    return min(max(skill, 0), 9) / 10.0


@dataclass
class Context:
    """What the heuristic derives from one view: the map, the forces, the goals."""

    view: SkirmishView
    board: Board
    obs: np.ndarray | None
    me: int = 0
    own: list[UnitView] = field(default_factory=list)
    enemies: list[UnitView] = field(default_factory=list)
    blockers: frozenset[int] = frozenset()
    goals: tuple[int, ...] = ()
    defend: bool = False
    hunt: bool = False
    """The goals are the enemy's own hexes (casualties, destroy): a man with a shot need not close in."""
    _threat: dict[int, float] = field(default_factory=dict)

    scenario: Any = None

    @classmethod
    def build(cls, observation: Any, view: SkirmishView, scenario: Any = None) -> Context:
        """From the observation (or, inside a search's sampled game, the public ``scenario``) and the view."""
        board = scenario.board if scenario is not None else public_board(observation, view)
        obs = None
        if observation is not None:
            raw = observation["observation"] if isinstance(observation, dict) else observation
            obs = planes_of(raw)  # [plane, cell]
        me = view.seat
        ctx = cls(view=view, board=board, obs=obs, me=me, scenario=scenario)
        ctx.own = [u for u in view.units if u.side == me and u.active and 0 <= u.cell < N_CELLS]
        ctx.enemies = [u for u in view.units if u.side != me and u.active and 0 <= u.cell < N_CELLS]
        ctx.blockers = frozenset(u.cell for u in view.units if u.vehicle and 0 <= u.cell < N_CELLS)
        ctx.goals, ctx.defend = ctx._goals()
        ctx.hunt = bool(ctx.enemies) and set(ctx.goals) <= {e.cell for e in ctx.enemies}
        return ctx

    # ------------------------------------------------------------------ goals (RULES.md §10)
    def _kind(self) -> str:
        if self.obs is not None:
            for k in ("objectives", "casualties", "exit", "destroy"):
                if self.obs[P[f"victory_{k}"], 0] > 0:
                    return k
        scenario = self.scenario or getattr(self.view, "scenario", None)
        return scenario.victory.kind if scenario is not None else "objectives"

    def _goals(self) -> tuple[tuple[int, ...], bool]:
        v, kind = self.view, self._kind()
        if kind == "objectives" and v.objectives:
            wanted = tuple(sorted(c for c in v.objectives if v.objective_owner.get(c) != self.me))
            if wanted:
                return wanted, False
            return tuple(sorted(v.objectives)), True
        if kind == "exit" and (self.obs is not None or self.scenario is not None):
            if self.obs is not None:
                zone = tuple(int(c) for c in np.flatnonzero(self.obs[P["exit_zone"]]))
                mine = self.obs[P["i_exit"], 0] > 0
            else:
                from cardwar.envs.skirmish.flow import _on_edge

                v = self.scenario.victory
                zone = tuple(c for c in range(N_CELLS) if self.board.on_map(c)
                             and _on_edge(c, v.exit_edge, self.scenario.width, self.scenario.height))
                mine = v.exit_side == self.me
            if mine and zone:
                return zone, False
            if self.enemies:  # stand between the enemy and its edge
                return tuple(sorted({e.cell for e in self.enemies})), True
            return zone, True
        if self.enemies:
            return tuple(sorted({e.cell for e in self.enemies})), False
        on_map = [c for c in range(N_CELLS) if self.board.on_map(c)]
        mid = on_map[len(on_map) // 2] if on_map else 0
        return (mid,), False

    # ------------------------------------------------------------------ sight and fire
    def fov(self, cell: int) -> frozenset[int]:
        return field_of_view(self.board, cell, self.blockers, self.view.open_doors)

    def los(self, a: int, b: int) -> bool:
        """Line of sight between two hexes (§1.4; symmetric), cached pair by pair."""
        lo, hi = (a, b) if a < b else (b, a)
        key = (id(self.board), lo, hi, self.blockers, self.view.open_doors)
        out = _LOS.get(key)
        if out is None:
            if len(_LOS) > 400000:
                _LOS.clear()
            out = self.board.sees(lo, hi, blockers=self.blockers - {lo, hi}, open_doors=self.view.open_doors)
            _LOS[key] = out
        return out

    def cover(self, target: int, firer: int) -> int:
        return self.board.cover(target, firer, open_doors=self.view.open_doors)

    def threat(self, cell: int, me: UnitView | None = None) -> float:
        """Expected wounds known enemies could deal a figure standing on ``cell`` this turn (guessed skills)."""
        hit = self._threat.get(cell)
        if hit is not None:
            return hit
        total = 0.0
        for e in self.enemies:
            reach = weapon_range(e.weapon)
            if reach <= 0 or self.board.distance(e.cell, cell) > reach or not self.los(e.cell, cell):
                continue
            skill = (GUESSED_SKILL + 1) // 2 if e.wounds else GUESSED_SKILL
            p = hit_chance(skill - self.cover(cell, e.cell))
            total += p * (1.0 if e.seen else 0.6)
        self._threat[cell] = total
        return total

    def my_shoot(self, u: UnitView, moved_running: bool = False) -> int:
        skill = (u.skills or {}).get("shoot", GUESSED_SKILL)
        return (skill + 1) // 2 if (u.ran or moved_running) else skill

    def worth(self, e: UnitView) -> float:
        """How much putting a wound on ``e`` is worth: a wounded man falls, a machine gun silenced, an
        objective freed."""
        w = 1.0 + (0.8 if e.wounds == 1 else 0.0) + _WEAPON_WORTH.get(e.weapon.split(",")[0], 0.2)
        if e.cell in self.view.objectives:
            w += 0.5
        return w

    def shot_value(self, u: UnitView, e: UnitView, cell: int | None = None, running: bool = False) -> float:
        """Chance times worth of one fire by ``u`` from ``cell`` at ``e`` (0 if it cannot reach or see)."""
        cell = u.cell if cell is None else cell
        if e.vehicle or not u.weapon or FIREARMS.get(u.weapon) is None:
            return 0.0
        reach = weapon_range(u.weapon, deployed=u.stance == 0 and not u.moved)
        if self.board.distance(cell, e.cell) > reach or not self.los(cell, e.cell):
            return 0.0
        return hit_chance(self.my_shoot(u, running) - self.cover(e.cell, cell)) * self.worth(e)

    def best_shot(self, u: UnitView, cell: int | None = None, running: bool = False) -> float:
        return max((self.shot_value(u, e, cell, running) for e in self.enemies if e.seen or cell is not None),
                   default=0.0)

    def blast_value(self, thrower: UnitView, target: int, radius: int, skill: str, vehicles_too: bool = False
                    ) -> float:
        """Expected worth of a blast on ``target`` (§6.3: a red card wounds everyone in sight of the landing
        hex within the radius), friends counted against it, weighted by the chance of landing (§6.1)."""
        board = self.board
        gain = 0.0
        for e in self.enemies:
            if board.distance(e.cell, target) <= radius and (vehicles_too or not e.vehicle) and self.los(target, e.cell):
                gain += 0.5 * self.worth(e) * (1.0 if e.seen else 0.5)
        for f in self.own:
            if not f.vehicle and board.distance(f.cell, target) <= radius and self.los(target, f.cell):
                gain -= 0.5 * 1.6
        sk = (thrower.skills or {}).get(skill, GUESSED_SKILL)
        p = hit_chance(sk - board.hex_cover(target))
        return gain * (0.35 + 0.65 * p)


class SkirmishHeuristic:
    """Rules-of-thumb squad leader (see the module docstring)."""

    def __init__(self, seed: int | None = None, bounds: bool = True) -> None:
        self.name = "heuristic"
        self.rng = np.random.default_rng(seed)
        self.bounds = bounds

    # ------------------------------------------------------------------ the protocol
    def act(self, observation: dict[str, np.ndarray], view: SkirmishView) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        if len(legal) == 1:
            return int(legal[0])
        ctx = Context.build(observation, view)
        return int(self.choose(ctx, legal))

    def choose(self, ctx: Context, legal: list[int]) -> int:
        """The move for the step the view asks (RULES.md §9.1)."""
        step = ctx.view.step
        handler = {Step.MODE: self._mode, Step.DESTINATION: self._destination, Step.STANCE: self._stance,
                   Step.WATCH: self._watch, Step.ACTION: self._action, Step.TARGET: self._target,
                   Step.INTERRUPT: self._interrupt, Step.ACTIVATE: self._activate, Step.TEAM: self._team}.get(step)
        if handler is None:
            return legal[0]
        out = handler(ctx, legal)
        if out not in legal:
            return legal[int(self.rng.integers(len(legal)))]
        return out

    # ------------------------------------------------------------------ helpers
    def _unit(self, ctx: Context) -> UnitView | None:
        return next((u for u in ctx.view.units if u.uid == ctx.view.unit), None)

    def _pick(self, scores: dict[int, float]) -> int:
        best = max(scores.values())
        top = [a for a, s in scores.items() if s >= best - 1e-9]
        return top[int(self.rng.integers(len(top)))] if len(top) > 1 else top[0]

    def covering(self, ctx: Context, u: UnitView) -> bool:
        """Bounds: in contact, every other man of a team (by unit order) covers this turn while the rest move."""
        if not self.bounds or u.vehicle or not any(e.seen for e in ctx.enemies) or ctx.defend:
            return False
        mates = sorted(x.uid for x in ctx.own if x.team == u.team and not x.vehicle)
        if len(mates) < 2:
            return False
        rank = mates.index(u.uid) if u.uid in mates else 0
        clock = ctx.view.turn if ctx.view.sequence == "phases" else ctx.view.turn * 7 + ctx.view.deck_left // 4
        return (rank + clock) % 2 == 1

    def position_score(self, ctx: Context, u: UnitView, cell: int, *, moving: bool, running: bool = False) -> float:
        """How good ``cell`` is for ``u`` to end in: closer to the goal, covered, out of enemy fire, with a
        shot."""
        dist = goal_distances(ctx.board, ctx.goals)
        here, there = dist[u.cell], dist[cell]
        progress = min(here, 30.0) - min(there, 30.0)
        score = 0.0
        on_goal = cell in ctx.view.objectives
        if ctx.defend:
            score += -0.15 * there + (2.0 if on_goal else 0.0)
        shot = ctx.best_shot(u, cell, running)
        if ctx.hunt:  # close in only until there is a shot
            score += (0.05 if shot > 0 else 0.3) * progress
        elif not ctx.defend:
            score += (0.45 if not ctx.enemies else 0.3) * progress
            if cell in ctx.goals:
                score += 2.5 if on_goal else 1.0
        threat = ctx.threat(cell)
        score -= 1.4 * threat
        score += 0.25 * ctx.board.hex_cover(cell) * (1.0 if ctx.enemies else 0.3)
        score += 0.6 * shot
        # keep out of an unknown-skill melee unless taking a hex that matters
        if any(ctx.board.distance(cell, e.cell) == 1 and e.seen and not e.vehicle for e in ctx.enemies) \
                and not on_goal:
            score -= 0.4
        # don't bunch up: a grenade takes a group
        near = sum(1 for f in ctx.own if f.uid != u.uid and not f.vehicle and ctx.board.distance(f.cell, cell) <= 1)
        score -= 0.15 * near
        return score

    # ------------------------------------------------------------------ phases: the movement declaration
    def _mode(self, ctx: Context, legal: list[int]) -> int:
        u = self._unit(ctx)
        if u is None:
            return legal[0]
        if u.vehicle:
            return self._vehicle_speed(ctx, u, legal)
        stay = CHOICE["stay"]
        if ctx.view.objectives and u.cell in ctx.view.objectives and ctx.view.objective_owner.get(u.cell) == ctx.me \
                and stay in legal and (ctx.defend or sum(1 for f in ctx.own if f.cell in ctx.view.objectives) <= 1
                                       or any(e.seen for e in ctx.enemies)):
            return stay  # hold the objective
        shot_here = ctx.best_shot(u)
        if self.covering(ctx, u) and stay in legal:
            return stay
        scores: dict[int, float] = {}
        for name in ("stay", "crawl", "search", "walk", "run"):
            a = CHOICE[name]
            if a not in legal:
                continue
            if name == "stay":
                scores[a] = self.position_score(ctx, u, u.cell, moving=False) + 0.3 * shot_here + 0.05
                continue
            hexes = {"crawl": 1, "search": 2, "walk": 4, "run": 6}[name]
            if u.wounds:
                hexes = (hexes + 1) // 2
            stance = 0 if name == "crawl" else 2
            from cardwar.envs.skirmish.figures import Stance

            dests = ctx.board.reach(u.cell, hexes, stance=Stance(stance), running=name == "run",
                                    enemy=frozenset(e.cell for e in ctx.enemies if e.seen),
                                    friends=frozenset(f.cell for f in ctx.own if f.uid != u.uid),
                                    open_doors=ctx.view.open_doors)
            if not dests:
                continue
            best = max(self.position_score(ctx, u, c, moving=True, running=name == "run") for c in dests)
            penalty = {"crawl": 0.1, "search": 0.05, "walk": 0.0, "run": 0.15 if ctx.enemies else 0.0}[name]
            scores[a] = best - penalty
        if not scores:
            return legal[0]
        return self._pick(scores)

    def _vehicle_speed(self, ctx: Context, u: UnitView, legal: list[int]) -> int:
        speeds = [a for a in legal if CHOICE["speed_0"] <= a <= CHOICE["speed_3"]]
        if not speeds:
            return legal[0]
        dist = goal_distances(ctx.board, ctx.goals)
        if ctx.defend or dist[u.cell] == 0:
            return min(speeds)
        return max(a for a in speeds if a <= CHOICE["speed_2"]) if any(a <= CHOICE["speed_2"] for a in speeds) \
            else min(speeds)

    def _destination(self, ctx: Context, legal: list[int]) -> int:
        u = self._unit(ctx)
        cells = [a for a in legal if a < N_CELLS]
        if u is None or not cells:
            return legal[0]
        if u.vehicle:
            dist = goal_distances(ctx.board, ctx.goals)
            return min(cells, key=lambda c: (dist[c] + 0.5 * ctx.threat(c), c))
        mode = ctx.view.partial.get("mode") or ctx.view.partial.get("action")
        running = mode in ("run", "all_out_run")
        scores = {c: self.position_score(ctx, u, c, moving=c != u.cell, running=running) for c in cells}
        return self._pick(scores)

    def _stance(self, ctx: Context, legal: list[int]) -> int:
        u = self._unit(ctx)
        prone, kneel, stand = CHOICE["prone"], CHOICE["kneeling"], CHOICE["standing"]
        if u is None:
            return legal[0]
        dest = ctx.view.partial.get("destination")
        cell = u.cell if dest is None else dest
        threat = ctx.threat(cell)
        deck = ctx.view.sequence == "deck"
        grenade_ready = (u.grenades or 0) > 0 and any(
            2 < ctx.board.distance(cell, e.cell) <= 5 for e in ctx.enemies if e.seen)
        if threat > 0 and prone in legal and not grenade_ready:
            return prone  # under fire: hit the deck
        if deck:  # standing moves furthest next activation (§4.2)
            for a in (stand, kneel, prone):
                if a in legal:
                    return a
        lmg = u.weapon == "lmg" and dest is None and any(e.seen for e in ctx.enemies)
        if lmg and prone in legal:
            return prone  # on its bipod (§2.2)
        for a in (kneel, stand, prone):
            if a in legal:
                return a
        return legal[0]

    def _watch(self, ctx: Context, legal: list[int]) -> int:
        # a watcher that does not fire may still act in the combat phase (§5.5): watching costs nothing
        return CHOICE["watch"] if CHOICE["watch"] in legal else legal[0]

    # ------------------------------------------------------------------ actions and activities
    def action_scores(self, ctx: Context, u: UnitView, legal: list[int]) -> dict[int, float]:
        """The heuristic's rating of each legal combat action or deck activity of ``u``."""
        scores: dict[int, float] = {}
        board = ctx.board
        seen = [e for e in ctx.enemies if e.seen]
        fire = max((ctx.shot_value(u, e) for e in seen), default=0.0)
        for a in legal:
            name = CHOICE_NAME.get(a)
            if name is None:
                continue
            if name == "nothing":
                scores[a] = 0.0
            elif name == "fire":
                scores[a] = fire + 0.01
            elif name == "burst":
                scores[a] = self._burst_plan(ctx, u)[1]
            elif name in ("grenade", "petrol_bomb", "he"):
                radius = {"grenade": 2, "petrol_bomb": 1, "he": 2}[name]
                reach = 5 if name != "he" else 18
                best = max((ctx.blast_value(u, c, radius, "throw" if name != "he" else "shoot")
                            for c in self._blast_targets(ctx, u, reach)), default=0.0)
                scores[a] = best - (0.25 if name != "he" else 0.1)  # a grenade is scarce
            elif name == "knife":
                scores[a] = max((hit_chance((u.skills or {}).get("throw", 5) - ctx.cover(e.cell, u.cell))
                                 * ctx.worth(e) for e in seen if board.distance(e.cell, u.cell) <= 2), default=0.0)
            elif name == "melee":
                scores[a] = max((hit_chance((u.skills or {}).get("melee", 5)) * ctx.worth(e)
                                 for e in seen if board.distance(e.cell, u.cell) == 1 and not e.vehicle),
                                default=0.0)
            elif name == "anti_tank":
                scores[a] = 1.5 if any(e.vehicle for e in seen) else 0.0
            elif name == "reload":
                arm = FIREARMS.get(u.weapon)
                low = arm is not None and (u.ammo or 0) < 3 * arm.rounds_per_turn
                scores[a] = (0.35 if low else 0.02) if fire < 0.3 else 0.0
            elif name in ("clear_jam", "extinguish", "work"):
                scores[a] = 0.5
            elif name == "watch":
                scores[a] = 0.12 if seen or ctx.enemies else 0.01
            elif name in ("move", "all_out_run"):
                scores[a] = self._move_activity_score(ctx, u, name == "all_out_run", fire)
            elif name == "king":
                scores[a] = -1.0
        return scores

    def _move_activity_score(self, ctx: Context, u: UnitView, run: bool, fire: float) -> float:
        if u.vehicle:
            return 0.3
        here = self.position_score(ctx, u, u.cell, moving=False)
        if self.covering(ctx, u) and fire > 0:
            return 0.0
        # rate a move by the best hex reachable at the stance rate (§4.2)
        from cardwar.envs.skirmish.figures import Stance

        hexes = 4 if run else {0: 1, 1: 2, 2: 3}.get(u.stance, 3)
        if u.wounds:
            hexes = (hexes + 1) // 2
        dests = ctx.board.reach(u.cell, hexes, stance=Stance(2 if run else u.stance), running=run,
                                enemy=frozenset(e.cell for e in ctx.enemies if e.seen),
                                friends=frozenset(f.cell for f in ctx.own if f.uid != u.uid),
                                open_doors=ctx.view.open_doors, straight=run)
        if not dests:
            return 0.05 if ctx.threat(u.cell) > 0 and u.stance != 0 else -0.1
        best = max(self.position_score(ctx, u, c, moving=True) for c in dests)
        gain = best - here
        if ctx.threat(u.cell) > 0 and u.stance != 0:
            gain += 0.1  # at least hit the deck
        return gain * 0.8 - (0.1 if run and ctx.enemies else 0.0)

    def _blast_targets(self, ctx: Context, u: UnitView, reach: int) -> list[int]:
        board = ctx.board
        cells = set()
        for e in ctx.enemies:
            if e.vehicle:
                continue
            for c in (e.cell, *board.neighbours(e.cell)):
                if 0 < board.distance(u.cell, c) <= reach:
                    cells.add(c)
        return sorted(cells)

    def _burst_plan(self, ctx: Context, u: UnitView) -> tuple[list[int], float]:
        """The best burst (§5.4): two or three targets in a chain, at skill, -1, -2."""
        arm = FIREARMS.get(u.weapon)
        if arm is None or not arm.full_auto:
            return [], 0.0
        seen = [e for e in ctx.enemies if e.seen and not e.vehicle and ctx.shot_value(u, e) > 0]
        best: tuple[list[int], float] = ([], 0.0)
        skill = ctx.my_shoot(u)
        for a in seen:
            for b in seen:
                if b is a or ctx.board.distance(a.cell, b.cell) > 2:
                    continue
                phantom = ctx.board.distance(a.cell, b.cell) == 2
                val = hit_chance(skill - ctx.cover(a.cell, u.cell)) * ctx.worth(a)
                val += hit_chance(skill - (2 if phantom else 1) - ctx.cover(b.cell, u.cell)) * ctx.worth(b)
                chain = [a.cell, b.cell]
                if not phantom:
                    for c in seen:
                        if c is not a and c is not b and ctx.board.distance(b.cell, c.cell) == 1:
                            extra = hit_chance(skill - 2 - ctx.cover(c.cell, u.cell)) * ctx.worth(c)
                            if val + extra > best[1]:
                                best = (chain + [c.cell], val + extra)
                if val > best[1]:
                    best = (chain, val)
        return best[0], best[1] - 0.05

    def _action(self, ctx: Context, legal: list[int]) -> int:
        u = self._unit(ctx)
        if u is None:
            return legal[0]
        scores = self.action_scores(ctx, u, legal)
        if not scores:
            return legal[0]
        return self._pick(scores)

    def _target(self, ctx: Context, legal: list[int]) -> int:
        u = self._unit(ctx)
        action = ctx.view.partial.get("action")
        cells = [a for a in legal if a < N_CELLS]
        done = CHOICE["done"]
        if u is None or not cells:
            return done if done in legal else legal[0]
        by_cell = {e.cell: e for e in ctx.enemies}
        if action in ("grenade", "petrol_bomb", "he"):
            radius = {"grenade": 2, "petrol_bomb": 1, "he": 2}[action]
            skill = "shoot" if action == "he" else "throw"
            return self._pick({c: ctx.blast_value(u, c, radius, skill) for c in cells})
        if action == "burst":
            plan, _ = self._burst_plan(ctx, u)
            chosen = list(ctx.view.partial.get("targets") or [])
            for c in plan[len(chosen):]:
                if c in cells:
                    return c
            if done in legal:
                return done
            return self._pick({c: ctx.shot_value(u, by_cell[c]) if c in by_cell else 0.0 for c in cells})
        if action == "extinguish":
            return cells[0]
        if action == "anti_tank":
            return self._pick({c: 1.0 if c in by_cell else 0.0 for c in cells})

        def value(c: int) -> float:
            e = by_cell.get(c)
            if e is None:
                return 0.0
            if action in ("melee", "knife"):
                return ctx.worth(e) - 0.3 * ctx.cover(c, u.cell)
            return ctx.shot_value(u, e) + 1e-3 * ctx.worth(e)

        return self._pick({c: value(c) for c in cells})

    # ------------------------------------------------------------------ opportunity fire (§5.5)
    def _interrupt(self, ctx: Context, legal: list[int]) -> int:
        u = self._unit(ctx)
        hold = CHOICE["hold"]
        cells = [a for a in legal if a < N_CELLS]
        if u is None or not cells:
            return hold if hold in legal else legal[0]
        by_cell = {e.cell: e for e in ctx.enemies}
        skill = ctx.my_shoot(u)
        best, best_val = hold, 0.2 if hold in legal else -1.0
        for c in cells:
            e = by_cell.get(c)
            worth = ctx.worth(e) if e is not None else 1.0
            if c in ctx.view.objectives or ctx.board.distance(c, u.cell) <= 2:
                worth += 0.6  # stop it before it gets there
            val = hit_chance(skill - ctx.cover(c, u.cell)) * worth
            if val > best_val:
                best, best_val = c, val
        return best

    # ------------------------------------------------------------------ the deck sequence (§7.2)
    def _activate(self, ctx: Context, legal: list[int]) -> int:
        cells = [a for a in legal if a < N_CELLS]
        if not cells:
            return legal[0]
        by_cell = {u.cell: u for u in ctx.own}
        # those with a shot first (fire before the enemy answers), then the rest in unit order
        def key(c: int) -> tuple:
            u = by_cell.get(c)
            return (-(ctx.best_shot(u) if u is not None else 0.0), u.uid if u is not None else c)

        return min(cells, key=key)

    def _team(self, ctx: Context, legal: list[int]) -> int:
        teams = [a for a in legal if CHOICE["team_0"] <= a <= CHOICE["team_3"]]
        if not teams:
            return legal[0]

        def value(a: int) -> float:
            t = a - CHOICE["team_0"]
            men = [u for u in ctx.own if u.team == t and not u.vehicle]
            return len(men) + sum(ctx.best_shot(u) for u in men)

        return max(teams, key=value)


CHOICE_NAME = {v: k for k, v in CHOICE.items()}

__all__ = ["OPTIONS", "Context", "SkirmishHeuristic", "board_from_observation", "public_board"]
