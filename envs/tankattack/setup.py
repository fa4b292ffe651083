"""The players' set-up phase (RULES.md 5 steps 6-8, option ``deployment="players"``).

L102-107: "The defender deploys all his elements except for Barrage, Aerial or Gas elements, either in a
trench or anywhere within 600p of his side of the battlefield. The attacker then deploys all his elements
except for Barrage, Aerial or Gas elements anywhere within 600p of his side of the battlefield."

Each element the scenario places at the start and that the seed lets a player deploy (ground, not Barrage,
Gas, Sniper or Minefield) is placed by its owner instead: the defender's first, then the attacker's, one
cell each, in the scenario's order. The facing is step 8's (defender N, attacker S). Everything else the
scenario gives (map, wire, Bunker, reserves, Aerials it placed) stays.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from cardwar.envs.tankattack.elements import EType, is_aerial
from cardwar.envs.tankattack.scenario import ATTACKER, DEFENDER

if TYPE_CHECKING:
    from cardwar.envs.tankattack.scenario import Scenario
    from cardwar.envs.tankattack.state import TankState

ZONE_ROWS = 6
"""600p from a side's own edge: 6 rows (5 steps 6-7)."""
FACING = (0, 2)
"""5 step 8: the defender's elements face N, the attacker's S."""
NOT_DEPLOYED = frozenset({EType.BARRAGE, EType.GAS, EType.SNIPER, EType.MINEFIELD})
"""L102-103 "except for Barrage, Aerial or Gas"; Snipers and Minefields are Lurkers (5 step 6, 9.6-9.7)."""


def deployable(t: EType) -> bool:
    return t not in NOT_DEPLOYED and not is_aerial(t)


def to_place(scenario: Scenario) -> list[int]:
    """The elements the players place, the defender's then the attacker's, each in the scenario's order."""
    els = scenario.elements
    return [e for side in (DEFENDER, ATTACKER) for e, el in enumerate(els)
            if el.side == side and el.cell is not None and deployable(el.type)]


def in_zone(s: TankState, side: int, cell: int) -> bool:
    """Within 600p of the side's own edge (the defender's is the south edge), or, for the defender, a trench
    cell anywhere (L102-103)."""
    row = cell // 16
    if side == DEFENDER:
        return row >= s.board.height - ZONE_ROWS or cell in s.board.trench
    return row < ZONE_ROWS


def setup_cells(s: TankState, e: int) -> list[int]:
    """The cells where ``e`` may be placed now, ascending: on the map, in its side's zone, empty, not the
    Bunker, ground it may stand on (no lake, no trench for Cavalry or Armoured Cars), not enemy wire."""
    from cardwar.envs.tankattack.movement import can_stand, enemy_wire

    side = s.side[e]
    return [c for c in s.board.map_cells() if s.grid[c] < 0 and in_zone(s, side, c) and can_stand(s, e, c)
            and not enemy_wire(s, c, side)]
