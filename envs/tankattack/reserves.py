"""Elements that enter during play, and the PIP spends that are not moves (RULES.md 7.2, 9, 16.3).

Who may enter, for what, where and facing which way: Barrages and Gas (9.1, 9.4), the Fighter call (9.5),
Bombers (9.3), Balloons (9.5), Snipers (9.6) and Minefields (9.7); counter-battery (9.2); the Bomber raid
(9.3); paying to lift Suppression (16.3). The state machine (``state.py``) sequences them; this module
only answers questions about a position.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardwar.envs.tankattack.board import BAD, MAX_ROWS, NUM_CELLS, STRIDE, gap
from cardwar.envs.tankattack.contact import occupies_trench
from cardwar.envs.tankattack.elements import FAST_AIR, IMMOBILE, EType, is_aerial, is_ground

if TYPE_CHECKING:
    from cardwar.envs.tankattack.state import TankState

RESERVE = -1
"""``cell`` of an element in reserve (same value as ``state.RESERVE``)."""
ENTERING = (EType.BARRAGE, EType.GAS, EType.BOMBER, EType.BALLOON, EType.SNIPER, EType.MINEFIELD, EType.FIGHTER)
"""The entry actions, one per kind of entry; ``FIGHTER`` is the Fighter call (Scouts and Air Aces come too)."""
CALL_COST = 6
"""L151-155, L161-164: a Barrage, the Fighter call and counter-battery cost 6 PIPs each."""
ZONE_ROWS = 6
"""600p from a side's own edge (5 step 6): a Balloon's entry zone."""


def entry_kind(t: EType) -> EType:
    """The entry action that brings a type on: Scouts and Air Aces arrive with the Fighter call (9.5)."""
    return EType.FIGHTER if t in FAST_AIR else t


def entry_cost(s: TankState, kind: EType) -> int:
    """PIPs of one entry (7.2): 6 for a Barrage or the Fighter call, the option's for a Bomber, else 1."""
    if kind in (EType.BARRAGE, EType.FIGHTER):
        return CALL_COST
    if kind is EType.BOMBER:
        return s.rules.bomber_deploy_pips
    return 1


def in_reserve(s: TankState, side: int, kind: EType) -> list[int]:
    """The side's reserve elements that this entry action brings on, by id."""
    return [e for e in range(len(s.cell)) if s.cell[e] == RESERVE and s.side[e] == side
            and entry_kind(s.etype[e]) is kind]


def own_edge_row(s: TankState, side: int) -> int:
    """The defender's edge is the south (last) row, the attacker's the north (row 0) (5 step 8)."""
    return s.board.height - 1 if side == 0 else 0


def in_enemy_half(s: TankState, side: int, cell: int) -> bool:
    """9.1: the opponent's side of the battlefield (a middle row of an odd map belongs to neither)."""
    r, h = cell // 16, s.board.height
    return r < h // 2 if side == 0 else r >= h - h // 2


def clear_of_enemies(s: TankState, side: int, cell: int, paces: int = 200,
                     enemies: list[int] | None = None) -> bool:
    """No enemy element on the battlefield closer than ``paces`` (9.1, 9.3, 9.5)."""
    if enemies is None:
        enemies = _enemy_cells(s, side)
    return all(gap(cell, c) >= paces for c in enemies)


def _enemy_cells(s: TankState, side: int) -> list[int]:
    return [c for c, sd in zip(s.cell, s.side) if c >= 0 and sd != side]


def _fixed_targets(s: TankState, side: int, cell: int) -> list[int]:
    """Directions from ``cell`` to what a Barrage or Gas may be placed in contact with (9.1): an enemy
    element in a trench, in a Strongpoint or entrenched; the enemy's Bunker; an enemy wire cell."""
    out = []
    for f in range(4):
        n = s.board.step(cell, f)
        if n is None:
            continue
        y = s.grid[n]
        if y >= 0 and s.side[y] != side and is_ground(s.etype[y]) and (
                occupies_trench(s, y) or n in s.board.strongpoints or s.etype[y] in IMMOBILE):
            out.append(f)
        elif y < 0 and n == s.board.bunker and s.bunker_alive and side == 1:
            out.append(f)
        elif y < 0 and s.wire.get(n, side) != side:
            out.append(f)
    return out


def _near_enemy(s: TankState, side: int) -> bytearray:
    """1 at each cell closer than 200p to an enemy on the battlefield: ``gap < 200`` is exactly both
    offsets at most 2 cells (1.4: 100p a cell, 150p a diagonal step), so each enemy marks its 5 x 5 box
    (:func:`clear_of_enemies` with 200p, for every cell at once; speed)."""
    near = bytearray(NUM_CELLS)
    for c, sd in zip(s.cell, s.side):
        if c >= 0 and sd != side:
            cc, cr = c % STRIDE, c // STRIDE
            lo, hi = max(cc - 2, 0), min(cc + 3, STRIDE)
            for r in range(max(cr - 2, 0), min(cr + 3, MAX_ROWS)):
                near[r * STRIDE + lo:r * STRIDE + hi] = b"\x01" * (hi - lo)
    return near


def _cells_where(s: TankState, key: str, test, build=None):
    """The map's cells (in :meth:`Board.map_cells` order) passing a test of the board alone (or what ``build()``
    gives), cached per board."""
    cache = s.board._cache
    hit = cache.get(key)
    if hit is None:
        hit = cache[key] = build() if build is not None else [c for c in s.board.map_cells() if test(c)]
    return hit


def entry_cells(s: TankState, e: int, first: bool = False) -> dict[int, tuple[int, ...]]:
    """Every cell where reserve element ``e`` may be placed now, with its legal facings (9.1-9.7); with
    ``first``, at most one (enough to know whether the entry is possible). The cells are tried in map order
    (row by row), only among those the element's kind may use at all; the tests are :func:`in_enemy_half`
    and :func:`clear_of_enemies` (200p), inline (speed)."""
    t, side, board = s.etype[e], s.side[e], s.board
    out: dict[int, tuple[int, ...]] = {}
    grid, bunker = s.grid, board.bunker
    if first:  # one clear cell is enough: test cells one by one against the enemies, no map of them
        foes = [(c % STRIDE, c // STRIDE) for c, sd in zip(s.cell, s.side) if c >= 0 and sd != side]

        def near_enemy(c: int) -> bool:
            cc, cr = c % STRIDE, c // STRIDE
            return any(-2 <= fc - cc <= 2 and -2 <= fr - cr <= 2 for fc, fr in foes)
    else:
        near_map = None

        def near_enemy(c: int) -> bool:
            nonlocal near_map
            if near_map is None:
                near_map = _near_enemy(s, side)
            return near_map[c] == 1
    if t is EType.BARRAGE or t is EType.GAS:
        h = board.height
        cells = board.map_cells()
        if first:  # any cell will do: the enemy half first, where a clear cell also qualifies
            half = range(0, h // 2) if side == 0 else range(h - h // 2, h)
            cells = _cells_where(s, f"enemy_half_first:{side}", None, lambda: [
                r * STRIDE + col for r in half for col in range(board.width)] + [
                c for c in board.map_cells() if not (half.start <= c // STRIDE < half.stop)])
        for c in cells:
            if grid[c] >= 0 or c == bunker:
                continue
            fixed = _fixed_targets(s, side, c)
            if fixed:
                out[c] = tuple(fixed)
                if first:
                    break
            elif (c // STRIDE < h // 2 if side == 0 else c // STRIDE >= h - h // 2):  # in_enemy_half
                if not near_enemy(c):
                    out[c] = (0, 1, 2, 3)
                    if first:
                        break
    elif is_aerial(t):
        edge = own_edge_row(s, side)
        if t is EType.BALLOON:
            rows = (edge - ZONE_ROWS + 1, edge + ZONE_ROWS - 1)
        else:
            rows = (edge, edge)
        for c in (r * STRIDE + col for r in range(max(rows[0], 0), min(rows[1], board.height - 1) + 1)
                  for col in range(board.width)):  # map_cells' order, those rows only
            if grid[c] < 0 and c != bunker and not near_enemy(c):
                out[c] = (0, 1, 2, 3)
                if first:
                    break
    elif t is EType.SNIPER:
        for c in _cells_where(s, "bad_cells", lambda c: board.ground[c] in BAD):
            if grid[c] < 0 and c != bunker:
                out[c] = (0, 1, 2, 3)
                if first:
                    break
    elif t is EType.MINEFIELD and first:  # any cell will do: those beside an enemy ground element
        mines = _cells_where(s, f"mine_set:{side}", None, lambda: frozenset(
            _cells_where(s, f"mine_cells:{side}", lambda c: mine_kind(s, side, c) is not None)))
        for y, (cy, sy) in enumerate(zip(s.cell, s.side)):
            if cy >= 0 and sy != side and is_ground(s.etype[y]):
                for c in board.steps[cy]:
                    if c is not None and c in mines and grid[c] < 0 and c != bunker:
                        return {c: tuple(f for f in range(4) if _enemy_ground_at(s, side, board.step(c, f)))}
    elif t is EType.MINEFIELD:
        for c in _cells_where(s, f"mine_cells:{side}", lambda c: mine_kind(s, side, c) is not None):
            if grid[c] < 0 and c != bunker:
                fs = tuple(f for f in range(4) if _enemy_ground_at(s, side, board.step(c, f)))
                if fs:
                    out[c] = fs
                    if first:
                        break
    return out


def _enemy_ground_at(s: TankState, side: int, cell: int | None) -> bool:
    if cell is None:
        return False
    y = s.grid[cell]
    return y >= 0 and s.side[y] != side and is_ground(s.etype[y])


def mine_kind(s: TankState, side: int, cell: int) -> str | None:
    """9.7: a legal mine cell's kind (its bad-going ground, ``wire``, or ``area``), else ``None``. Wire is the
    side's wire as laid at the start, so a Minefield's feature does not shrink as the wire is cut."""
    board = s.board
    g = board.ground[cell]
    if g in BAD:
        return f"bad:{int(g)}"
    key = ("mine_wire", side)
    near = board._cache.get(key)
    if near is None:
        own = {c for c, o in board.wire if o == side}
        near = frozenset(c for c in board.map_cells() if c in own or any(n in own for n in board.neighbours8(c)))
        board._cache[key] = near
    if cell in near:
        return "wire"
    if cell in board.mine_areas:
        return "area"
    return None


def feature(s: TankState, e: int) -> frozenset[int]:
    """The terrain feature a Lurker is bound to (9.6-9.7): the cells orthogonally connected to its home cell
    by cells of the same kind (a Sniper: the same bad ground; a Minefield: the same mine-cell kind)."""
    home = s.home[e]
    if home < 0:
        return frozenset()
    key = ("feature", int(s.etype[e]), s.side[e], home)
    cache = s.board._cache
    hit = cache.get(key)
    if hit is not None:
        return hit
    if s.etype[e] is EType.SNIPER:
        g = s.board.ground[home]

        def kind(c: int) -> object:
            return s.board.ground[c] if s.board.ground[c] is g else None
    else:
        side = s.side[e]

        def kind(c: int) -> object:
            return mine_kind(s, side, c)
    want = kind(home)
    seen, stack = {home}, [home]
    while stack:
        x = stack.pop()
        for f in range(4):
            y = s.board.step(x, f)
            if y is not None and y not in seen and kind(y) == want:
                seen.add(y)
                stack.append(y)
    out = frozenset(seen)
    cache[key] = out
    return out


def entries(s: TankState) -> list[EType]:
    """The entry actions the active player can take now: something of that kind in reserve, the PIPs, and
    at least one cell to place it."""
    first_of: dict[EType, int] = {}  # each entry kind's first reserve element (in_reserve's first, one pass)
    for e, (c, sd) in enumerate(zip(s.cell, s.side)):
        if c == RESERVE and sd == s.active:
            first_of.setdefault(entry_kind(s.etype[e]), e)
    out = []
    for kind in ENTERING:
        if entry_cost(s, kind) > s.pips:
            continue
        e = first_of.get(kind)
        if e is not None and entry_cells(s, e, first=True):  # every element of one kind enters by one rule
            out.append(kind)
    return out


def enemy_barrages(s: TankState, side: int) -> list[int]:
    """The opponent's Barrages on the battlefield (9.2)."""
    return [e for e in range(len(s.cell)) if s.cell[e] >= 0 and s.side[e] != side and s.etype[e] is EType.BARRAGE]


def rally_candidates(s: TankState) -> list[int]:
    """16.3: the active player's Suppressed elements on the battlefield (1 PIP each, or for the group of
    Suppressed infantry it belongs to: :func:`rally_group`)."""
    return [e for e in range(len(s.cell)) if s.cell[e] >= 0 and s.side[e] == s.active and s.suppressed[e]]


def rally_group(s: TankState, e: int) -> list[int]:
    """16.3 (L724-726): Suppressed infantry "may not fire or move until 1 PIP per group is paid": the rally of
    Suppressed Rifles, Dismounted Cavalry or Sturmtruppe frees its whole group (1.7: the own Suppressed
    infantry with its facing, connected to it edge to edge), ``e`` first. Guns ("Artillery elements ... need 1
    PIP to return to fire") are freed one by one."""
    from cardwar.envs.tankattack.contact import adjacent4
    from cardwar.envs.tankattack.movement import SUPPRESSED_STAY

    if s.etype[e] not in SUPPRESSED_STAY:
        return [e]
    out = [e]
    todo = [e]
    while todo:
        a = todo.pop()
        for x in range(len(s.cell)):
            if (x not in out and s.cell[x] >= 0 and s.side[x] == s.side[e] and s.suppressed[x]
                    and s.etype[x] in SUPPRESSED_STAY and s.facing[x] == s.facing[e]
                    and adjacent4(s.cell[x], s.cell[a])):
                out.append(x)
                todo.append(x)
    return out


def raid_reaches(s: TankState, e: int, options: dict) -> bool:
    """9.3: a Bomber whose move can reach the enemy's edge row, while an enemy Barrage is on the battlefield."""
    if s.etype[e] is not EType.BOMBER or not enemy_barrages(s, s.side[e]):
        return False
    edge = own_edge_row(s, 1 - s.side[e])
    return any(d // 16 == edge for d in options)


def sniper_sees(s: TankState, sh: int, tg: int) -> bool:
    """9.6 (L188-189): "Snipers can fire full range ... even if in woods, & out of the woods": the cells of the
    Sniper's own feature never block its line of sight and it is never "deep within" (1.6); every other
    blocker of 1.6 (terrain, Gas, ground troops, the target deep in a wood) still does."""
    from cardwar.envs.tankattack.board import COVER, Ground, line_cells

    a, b = s.cell[sh], s.cell[tg]
    board, own = s.board, feature(s, sh)
    if board.deep_in(b) and gap(a, b) > 0 and b not in own:
        return False
    on_hill = board.ground[a] is Ground.HILL or board.ground[b] is Ground.HILL

    def blocks(c: int) -> bool:
        y = s.grid[c]
        if y >= 0 and y not in (sh, tg):
            t = s.etype[y]
            if t is EType.GAS or (not is_aerial(t) and t is not EType.BARRAGE):
                return True
        if c in own:
            return False
        g = board.ground[c]
        return g in COVER or (g is Ground.HILL and not on_hill)

    cells, corners = line_cells(a, b)
    return not any(blocks(c) for c in cells) and not any(blocks(p) and blocks(q) for p, q in corners)
