"""Words for a person at the table about the hex game: why a move is illegal (envs/hexwar/RULES.md: moving, shooting,
smoke), and the evade question.

The registry's ``why_illegal`` and ``decision_note`` hooks of the game (:mod:`cardwar.games`; asked through
:mod:`cardwar.explain`), here beside the search whose ``determinize`` they use. Everything here is worked out from
the seat's information view only. The verdict "legal or not" is the engine's own: the view is turned into a state
consistent with it (the search agent's ``determinize``: hidden enemy units left out) and that state's rule helpers
are asked which condition fails, so a reason can never mention a unit the seat does not know of.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_RNG_SEED = 0  # a determinization's chance never enters a reason


def why_illegal(view: Any, action: int) -> str | None:
    """Hex game: the engine's verdict on a state consistent with the view, then the rule that fails."""
    from cardwar.agents.hexwar_search import determinize as hex_state

    state = hex_state(view, np.random.default_rng(_RNG_SEED))
    return None if state.is_legal(action) else _hex_reason(state, action)


def decision_note(view: Any) -> str | None:
    """Hex game: the evade question while a shot waits for the answer."""
    from cardwar.envs.hexwar.state import HexPhase

    return evade_question(view) if view.phase == HexPhase.EVADE and view.pending is not None else None


def _hex_where(cell: int) -> str:
    from cardwar.envs.hexwar.hexgrid import label
    from cardwar.envs.hexwar.scenario import hex_of

    return label(hex_of(cell)) if cell >= 0 else "off-table"


def _hex_unit(s: Any, u: int) -> str:
    from cardwar.envs.hexwar.units import STATS

    return f"your {STATS[s.utype[u]].name} ({_hex_where(s.cell[u])})"


def _hex_reason(s: Any, action: int) -> str:
    from cardwar.envs.hexwar.actions import DECODED, Kind
    from cardwar.envs.hexwar.state import HexPhase

    a = DECODED[action]
    if s.phase == HexPhase.GAME_OVER:
        return "the game is over"
    if s.phase == HexPhase.EVADE:
        return f"first answer the shot at {_hex_unit(s, s.pending.target)}: evade or no evade"
    u = s.acting_unit()
    if a.kind in (Kind.EVADE, Kind.NO_EVADE):
        return (f"evade and no evade answer an enemy shot at one of your units; now {_hex_unit(s, u)} acts: "
                "move, shoot, smoke or pass")
    occ = s.known_occupants(s.side[u])
    if a.kind == Kind.MOVE:
        return _move_reason(s, u, a.cell, occ, 1)
    if a.kind == Kind.SHOOT:
        return _shoot_reason(s, u, a.cell, a.slot, occ)
    if a.kind == Kind.SMOKE:
        return _smoke_reason(s, u, a.cell, occ)
    if not s.config.joint_activation:
        return "joint activation is an optional rule that is off in this game (--rule joint_activation=true)"
    p = s.partner(u)
    if p < 0:
        return f"a joint action needs a friendly unit that has not acted in the same hex as {_hex_unit(s, u)}"
    if a.kind == Kind.JOINT_MOVE:
        return _move_reason(s, u, a.cell, occ, 2) if a.cell not in s.moves(u, occ, 2)[0] else \
            _move_reason(s, p, a.cell, occ, 2)
    why = _shoot_reason(s, u, a.cell, a.slot, occ)
    return why if why else _shoot_reason(s, p, a.cell, a.slot, occ)


def _move_reason(s: Any, u: int, dest: int, occ: dict, extra: int) -> str:
    """Movement: allowance, impassable and full hexes, enemy contact, slow terrain."""
    from cardwar.envs.hexwar.geometry import DIST, NEIGH
    from cardwar.envs.hexwar.terrain import SLOW
    from cardwar.envs.hexwar.units import STATS

    sc, start, name = s.scenario, s.cell[u], _hex_unit(s, u)
    where, ground = _hex_where(dest), sc.terrain[dest].name.lower()
    if start < 0:
        return "off-table artillery cannot move"
    if dest == start:
        return f"{name} is already at {where}; to stay there, pass"
    if not sc.on_map[dest]:
        return f"{where} is off the map"
    if not sc.passable[dest]:
        hint = " (rivers are crossed at fords and bridges)" if ground == "river" else ""
        return f"{where} is {ground}: impassable{hint}"
    enemies = {c for c, us in occ.items() if s.side[us[0]] != s.side[u]}
    if dest in enemies:
        return f"an enemy unit holds {where}"
    dests, parent = s.moves(u, occ, extra)
    if dest in parent:
        return (f"{where} has no room: {ground} holds {s.stacking()[dest]} unit(s) and "
                f"{len(occ.get(dest, ()))} {'is' if len(occ.get(dest, ())) == 1 else 'are'} there already")
    allowance, d = STATS[s.utype[u]].move, DIST[start][dest]
    if d > allowance:
        return f"{where} is {d} hexes away; {name} moves at most {allowance}"
    if d > 1 and (sc.terrain[start] in SLOW or sc.terrain[dest] in SLOW):
        return "moving into, through or out of woods, buildings or broken terrain: 1 hex only"
    contact = {n for c in enemies for n in NEIGH[c]}
    if d == 1 and start in contact and dest in contact:
        return "next to an enemy, a unit may only move away to a hex that is not next to an enemy"
    return (f"no way to {where} within {allowance} hexes: a move stops on entering a hex next to an enemy, "
            "and woods, buildings and broken terrain allow 1 hex")


def _shoot_reason(s: Any, u: int, cell: int, slot: int, occ: dict) -> str:
    """Shooting: a known enemy target, range, line of sight; indirect fire's limits. '' if ``u`` may shoot."""
    from cardwar.envs.hexwar.geometry import DIST, NEIGH
    from cardwar.envs.hexwar.units import DIRECT_RANGE, MORTAR_MIN_RANGE, STATS, FireClass, UnitType

    where, here, side = _hex_where(cell), occ.get(cell, []), s.side[u]
    if slot >= len(here):
        return f"{where} holds only one unit you know of: shoot {where}" if here else \
            f"you know of no unit at {where}"
    t = here[slot]
    if s.side[t] == side:
        return f"{where} holds your own unit"
    if s.can_shoot(u, t, occ):
        return ""
    uc, name = s.cell[u], _hex_unit(s, u)
    if STATS[s.utype[u]].fire == FireClass.INDIRECT:
        if uc >= 0 and s.utype[u] == UnitType.MORTAR and DIST[uc][cell] < MORTAR_MIN_RANGE:
            return f"a mortar cannot fire at an adjacent hex (minimum range {MORTAR_MIN_RANGE})"
        if any(c in NEIGH[cell] for v, c in enumerate(s.cell) if c >= 0 and v != u and s.side[v] == side):
            return "artillery and mortars cannot target a unit next to one of your units"
        return f"none of your units sees {where}: indirect fire needs a friendly unit that sights the target"
    if DIST[uc][cell] > DIRECT_RANGE:
        return f"{where} is {DIST[uc][cell]} hexes from {name}; direct fire reaches {DIRECT_RANGE}"
    smoke = ", smoke" if s.config.smoke_blocks_sight else ""
    return f"{name} has no line of sight to {where}: hills, woods, buildings{smoke} or units in between block it"


def _smoke_reason(s: Any, u: int, cell: int, occ: dict) -> str:
    """Smoke: mortars and artillery, on an open hex that a friendly unit holds or sees."""
    from cardwar.envs.hexwar.geometry import DIST
    from cardwar.envs.hexwar.units import MORTAR_MIN_RANGE, STATS, FireClass, UnitType

    sc, where, uc = s.scenario, _hex_where(cell), s.cell[u]
    if STATS[s.utype[u]].fire != FireClass.INDIRECT:
        return f"only mortars and artillery lay smoke, and {_hex_unit(s, u)} acts now"
    if cell in s.smoke:
        return f"{where} has smoke already"
    if not sc.on_map[cell]:
        return f"{where} is off the map"
    if not s.in_open(cell):
        return f"smoke goes on open terrain, and {where} is {sc.terrain[cell].name.lower()}"
    if uc >= 0 and s.utype[u] == UnitType.MORTAR and DIST[uc][cell] < MORTAR_MIN_RANGE:
        return f"a mortar cannot fire at an adjacent hex (minimum range {MORTAR_MIN_RANGE})"
    return f"none of your units holds or sees {where}"


def evade_question(v: Any) -> str:
    """The evade question: the unit shot at, the shooter(s), and what evading gains and costs.

    Seed, Shooting: units in open terrain shot at before they have acted "can take evasive
    actions, reduce hits by -1. A unit taking evasive sacrifices it[s] action for the turn."
    The hits are the D3 (1, 1, 2, 2, 3, 3) plus the public modifiers (RULES.md 6.2-6.4).
    """
    from cardwar.envs.hexwar.geometry import DIST
    from cardwar.envs.hexwar.scenario import SIDES
    from cardwar.envs.hexwar.shooting import hits_from, shot_modifier
    from cardwar.envs.hexwar.sighting import takes_cover
    from cardwar.envs.hexwar.units import ELIMINATED_AFTER, STATS, FireClass

    units = {u.uid: u for u in v.units}
    target = units[v.pending.target]
    shooters = [units[s] for s in v.pending.shooters if s in units]
    tname = STATS[target.type].name
    by = " and ".join(f"the {SIDES[s.side]} {STATS[s.type].name} at {_hex_where(s.cell)}" for s in shooters)
    lines = [f"Your {tname} at {_hex_where(target.cell)} is shot at by {by}. "
             f"It has {target.hits} hit(s); more than {ELIMINATED_AFTER} eliminate it."]
    double = bool(getattr(v.config, "double_count", False))
    for evading in (False, True):
        mods, lows, highs, means = [], 0, 0, 0.0
        for s in shooters:
            direct = STATS[s.type].fire != FireClass.INDIRECT
            cover = takes_cover(target.type, target.cell, s.cell if direct and s.cell >= 0 else None,
                                v.terrain, v.smoke, v.config)
            dist = DIST[s.cell][target.cell] if s.cell >= 0 else 99
            m = shot_modifier(s.type, target.type, dist, cover, evading, double)
            hits = [hits_from(r, m) for r in (1, 2, 3)]
            mods.append(f"{m:+d}")
            lows, highs, means = lows + min(hits), highs + max(hits), means + sum(hits) / 3
        label = "evade   " if evading else "no evade"
        cost = (f"your {tname} loses its action this turn (its card is skipped)" if evading
                else f"your {tname} still acts on its own card this turn")
        span = f"{lows}-{highs} hits ({means:.1f} on average)" if highs > lows else f"{lows} hits"
        lines.append(f"  {label}: D3 {'/'.join(mods)} -> {span}; {cost}")
    lines.append("Answer: evade or no evade")
    return "\n".join(lines)
