"""The legal answers at each step (RULES.md §4, §5, §7, §9.1): what a mask lets a seat choose."""

from __future__ import annotations

from math import ceil
from typing import TYPE_CHECKING

from cardwar.envs.skirmish.actions import GRID
from cardwar.envs.skirmish.board import ENTIRE
from cardwar.envs.skirmish.figures import Stance
from cardwar.envs.skirmish.resolve import has_rounds
from cardwar.envs.skirmish.sight import can_fire_at, fire_range, seen_cells
from cardwar.envs.skirmish.units import Soldier, Tank
from cardwar.envs.skirmish.weapons import FIREARMS

if TYPE_CHECKING:
    from cardwar.envs.skirmish.state import SkirmishState

MODE_STANCE = {"crawl": Stance.PRONE, "search": Stance.STANDING, "walk": Stance.STANDING, "run": Stance.STANDING}
"""The stance a figure moves in, for crossing costs (§1.3, §4.1)."""


def quarter(allowance: int) -> int:
    """"one quarter" of a move, rounded up (§4.1)."""
    return ceil(allowance / 4)


def path_cost(s: SkirmishState, start: int, path: tuple[int, ...], stance: Stance, running: bool) -> int | None:
    """Movement points a path spends; ``None`` if it holds a whole-move crossing (§1.5)."""
    board, total, here = s.scenario.board, 0, start
    for cell in path:
        cost = board.crossing(here, cell, stance=stance, running=running, open_doors=s.open_doors)
        if cost is ENTIRE or cost is None:
            return None
        total += cost
        here = cell
    return total


def others(s: SkirmishState, u: Soldier | Tank) -> tuple[frozenset[int], frozenset[int]]:
    """Hexes of the enemies the mover's side sees now, and of its own side's units (§4.3, §9.2). An enemy it
    does not see is not known, figure or vehicle: a plan may run into it, and the move stops short there."""
    enemy, friends = set(), set()
    for o in s.units:
        if o is u or not o.holds_hex:
            continue
        if o.side == u.side:
            friends.add(o.cell)
        elif o.uid in s.seen[u.side]:
            enemy.add(o.cell)
    return frozenset(enemy), frozenset(friends)


def known_taken(s: SkirmishState, side: int, but: Soldier | Tank | None = None) -> frozenset[int]:
    """The hexes ``side`` knows to be taken: its own units' and the enemies' it sees now (§9.2). A mask is
    built from these alone; a hex taken by an unseen enemy is found when a move runs into it (§4.3, §8.1)."""
    enemy, friends = others(s, but) if but is not None else _taken_by(s, side)
    return enemy | friends


def _taken_by(s: SkirmishState, side: int) -> tuple[frozenset[int], frozenset[int]]:
    own = frozenset(o.cell for o in s.units if o.holds_hex and o.side == side)
    seen = frozenset(o.cell for o in s.units if o.holds_hex and o.side != side and o.uid in s.seen[side])
    return seen, own


def soldier_allowance(s: SkirmishState, u: Soldier, mode: str) -> int:
    """The mode's hexes after wounds, less the quarter for rising from prone (§4.1)."""
    allowance = u.move_allowance(mode)
    if mode != "crawl" and u.fig.stance == Stance.PRONE:
        allowance -= quarter(u.move_allowance(mode))
    return max(allowance, 0)


def move_paths(s: SkirmishState, u: Soldier, mode: str) -> dict[int, tuple[int, ...]]:
    """Destinations of a mode (phases) or of a deck move ("move", "all_out_run") -> path (§4.1-4.3); the same
    position asks the same question several times (is the mode open? where to?), so answers are kept until
    the next decision is answered."""
    key = (s.moves_made, u.uid, mode)
    cache = s.path_cache
    if cache.get("at") != s.moves_made:
        cache.clear()
        cache["at"] = s.moves_made
    if key not in cache:
        cache[key] = _move_paths(s, u, mode)
    return cache[key]


def _move_paths(s: SkirmishState, u: Soldier, mode: str) -> dict[int, tuple[int, ...]]:
    if isinstance(u, Soldier) and u.aboard is not None:
        return _dismount(s, u, mode)
    if not u.active or (isinstance(u, Soldier) and u.deployed):
        return {}
    if mode in ("move", "all_out_run"):
        allowance = u.fig.stance_move_hexes(all_out_run=mode == "all_out_run")
        stance, running = u.fig.stance, mode == "all_out_run"
    else:
        allowance = soldier_allowance(s, u, mode)
        stance, running = MODE_STANCE[mode], mode == "run"
    if allowance <= 0 and mode != "crawl":
        return {}
    enemy, friends = others(s, u)
    paths = s.scenario.board.paths(u.cell, max(allowance, 1), stance=stance, running=running, enemy=enemy,
                                   friends=friends, open_doors=s.open_doors)
    if mode == "all_out_run":  # "he must run in a straight line" (§4.2)
        paths = s.scenario.board.paths(u.cell, max(allowance, 1), stance=stance, running=True, enemy=enemy,
                                       friends=friends, open_doors=s.open_doors, straight=True)
    if mode == "move":  # "Movement (includes standing, kneeling, crouching, etc.)": a stance change in place
        paths = {u.cell: (), **paths}
    return paths


def mode_open(s: SkirmishState, u: Soldier, mode: str) -> bool:
    """Whether a movement mode has a destination (the MODE step's mask), without finding every path."""
    if u.aboard is not None or mode not in MODE_STANCE:
        return bool(move_paths(s, u, mode))
    if not u.active or u.deployed:
        return False
    allowance = soldier_allowance(s, u, mode)
    if allowance <= 0 and mode != "crawl":
        return False
    enemy, friends = others(s, u)
    return s.scenario.board.has_move(u.cell, max(allowance, 1), stance=MODE_STANCE[mode], running=mode == "run",
                                     enemy=enemy, friends=friends, open_doors=s.open_doors)


def _dismount(s: SkirmishState, u: Soldier, mode: str) -> dict[int, tuple[int, ...]]:
    """A rider leaves its vehicle as its whole move, standing in a free adjacent hex, when the vehicle is at
    rest (§8.1): mode walk (phases) or move (deck)."""
    v = s.units[u.aboard]
    if mode not in ("walk", "move") or not u.active or v.v.last_speed or v.v.speed:
        return {}
    board, taken = s.scenario.board, known_taken(s, u.side)
    return {c: (c,) for c in board.neighbours(v.cell) if c not in taken
            and board.crossing(v.cell, c, stance=Stance.STANDING, running=False, open_doors=s.open_doors) is not None}


def stance_options(s: SkirmishState, u: Soldier, mode: str, path: tuple[int, ...]) -> list[Stance]:
    """End stances (§4.1): crawling ends prone, WW2's all-out run standing; "Going to a prone position from
    Search, Walk or Run modes reduces forward movement by one quarter"."""
    if mode == "crawl":
        return [Stance.PRONE]
    if mode == "all_out_run":  # WW2: "All out run ... Standing only"
        return [Stance.STANDING]
    if mode in ("stay", "move"):
        return list(Stance)
    allowance = soldier_allowance(s, u, mode)
    cost = path_cost(s, u.cell, path, MODE_STANCE[mode], mode == "run")
    out = [Stance.KNEELING, Stance.STANDING]
    if cost is not None and cost + quarter(u.move_allowance(mode)) <= allowance:
        out.insert(0, Stance.PRONE)
    return out


# ---------------------------------------------------------------------------- combat
def targets_for(s: SkirmishState, u: Soldier | Tank, action: str, chosen: list) -> list[int]:
    """Legal target hexes of an action, given the targets already named (a burst's chain, §5.4); a vehicle
    whose guns cannot traverse fires only into its front arc (§8.3)."""
    cells = _targets_for(s, u, action, chosen)
    if isinstance(u, Tank) and not u.v.can_traverse:
        from cardwar.envs.skirmish.vehicles import guns_bear

        cells = [c for c in cells if guns_bear(u.v, c)]
    return cells


def _targets_for(s: SkirmishState, u: Soldier | Tank, action: str, chosen: list) -> list[int]:
    board = s.scenario.board
    if action == "fire":
        reach = fire_range(u)
        return [t.cell for t in s.units if can_fire_at(s, u, t, reach)]
    if action == "burst":
        reach = fire_range(u)
        shootable = {t.cell for t in s.units if can_fire_at(s, u, t, reach) and True}
        if not chosen:
            return [c for c in sorted(shootable) if s.rules.auto_one_target or _has_partner(s, c, shootable)]
        named = [c for c in chosen if c is not None]
        last = chosen[-1]
        out = [c for c in sorted(shootable) if c not in named and board.distance(last, c) == 1] if last is not None else []
        if len(chosen) == 1:  # two targets 2 hexes apart: a phantom takes the middle place
            out += [c for c in sorted(shootable) if c not in named and board.distance(last, c) == 2]
        elif chosen[-2] is None:
            out = []
        return out
    if action == "knife":
        reach = u.throw_range("knife")
        return [t.cell for t in s.units if isinstance(t, Soldier) and can_fire_at(s, u, t, reach)]
    if action in ("grenade", "petrol_bomb"):
        reach = u.throw_range(action)
        seen = seen_cells(s, u.cell, u.side)
        return [c for c in GRID.within(u.cell, reach) if c != u.cell and board._on_map[c]
                and (board.distance(u.cell, c) == 1 or c in seen)]
    if action == "melee":
        return [t.cell for t in s.units if isinstance(t, Soldier) and t.active and t.side != u.side
                and t.uid in s.seen[u.side] and board.distance(u.cell, t.cell) == 1
                and board.crossing(u.cell, t.cell, stance=Stance.STANDING, running=False,
                                   open_doors=s.open_doors) is not None]
    if action == "anti_tank":
        return [t.cell for t in s.units if isinstance(t, Tank) and can_fire_at(s, u, t, None)]
    if action == "he":
        return sorted(c for c in seen_cells(s, u.cell, u.side) if board.distance(u.cell, c) > 1)
    if action == "extinguish":
        return [f.cell for f in s.soldiers(u.side) if f.burning and f.fig.active
                and (f is u or board.distance(f.cell, u.cell) == 1)]
    return []


def _has_partner(s: SkirmishState, cell: int, shootable: set[int]) -> bool:
    board = s.scenario.board
    return any(c != cell and board.distance(cell, c) <= 2 for c in shootable)


def burst_complete(s: SkirmishState, chosen: list) -> bool:
    """A burst may stop here: two real targets named (one with ``auto_one_target``), or three slots (§5.4)."""
    real = [c for c in chosen if c is not None]
    return len(real) >= 2 or (s.rules.auto_one_target and len(real) == 1)


def action_options(s: SkirmishState, u: Soldier | Tank, *, deck: bool) -> list[str]:
    """The combat actions (phases) or activities (deck) open to a unit now (§5.7, §7.2)."""
    out = ["nothing"]
    if isinstance(u, Tank):
        if deck and u.v.can_move:
            out.append("move")
        if u.machine_gun and targets_for(s, u, "fire", []):
            out += ["fire", "burst"] if targets_for(s, u, "burst", []) else ["fire"]
        if u.gun and u.gun_ammo > 0:
            if targets_for(s, u, "anti_tank", []):
                out.append("anti_tank")
            if targets_for(s, u, "he", []):
                out.append("he")
        return out
    if deck:
        if (u.aboard is None and u.active and not u.deployed) or move_paths(s, u, "move"):
            out.append("move")  # a move may end on its own hex (a stance change), so it is always open
        if u.fig.stance == Stance.STANDING and move_paths(s, u, "all_out_run"):
            out.append("all_out_run")
    arm = FIREARMS.get(u.fig.weapon)
    if arm is not None and not u.jammed:
        if has_rounds(s, u, False) and targets_for(s, u, "fire", []):
            out.append("fire")
        if arm.full_auto and has_rounds(s, u, True) and targets_for(s, u, "burst", []):
            out.append("burst")
    if u.fig.grenades > 0 and targets_for(s, u, "grenade", []):
        out.append("grenade")
    if u.petrol_bombs > 0 and targets_for(s, u, "petrol_bomb", []):
        out.append("petrol_bomb")
    if u.knives > 0 and targets_for(s, u, "knife", []):
        out.append("knife")
    if targets_for(s, u, "melee", []):
        out.append("melee")
    if (arm is not None and s.rules.ammunition == "tracked" and u.reserve > 0 and (u.fig.ammo or 0) < arm.magazine):
        out.append("reload")
    if u.jammed or u.at_jammed:
        out.append("clear_jam")
    if u.fig.weapon == "mmg" and not u.deployed:
        out.append("work")
    if targets_for(s, u, "extinguish", []):
        out.append("extinguish")
    if u.at_category() is not None and u.at_ammo > 0 and not u.at_jammed:
        if targets_for(s, u, "anti_tank", []):
            out.append("anti_tank")
        if targets_for(s, u, "he", []):
            out.append("he")
    return out


def can_watch(s: SkirmishState, u: Soldier | Tank) -> bool:
    """May declare opportunity fire: a usable firearm (§5.5)."""
    if isinstance(u, Tank):
        return u.machine_gun is not None and u.active
    arm = FIREARMS.get(u.fig.weapon)
    return arm is not None and not u.jammed and has_rounds(s, u, False) and fire_range(u) != 0


__all__ = ["action_options", "burst_complete", "can_watch", "move_paths", "stance_options", "targets_for"]
