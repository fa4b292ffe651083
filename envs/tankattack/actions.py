"""The flat action space: one small decision per action (RULES.md 19).

===========================  =====================================================================
ids                           meaning (by the stage the state is in)
===========================  =====================================================================
0 .. 383   ``CELL + c``       a cell of the 16 x 24 frame (``row * 16 + col``): the element to move,
                              its destination, the shooter, target or aid, the combat to fight
384 .. 387 ``FACE + f``       a facing N, E, S, W: after a move, turning to face (step 3), or the
                              direction of a trench recoil (16.1)
388        ``END``            end the tactical moves (step 2); no more aids; do not shoot back
389        ``YES``            shoot back (11.3 step 4)
390        ``SUPPRESS``       take Suppression instead of a recoil (16.3)
391 .. 415                    reserved for entering reserves (one per element type); never legal yet
===========================  =====================================================================
"""

from __future__ import annotations

from cardwar.envs.tankattack.board import FACING_NAMES, NUM_CELLS, label, parse_label

CELL = 0
FACE = NUM_CELLS
END = FACE + 4
YES = END + 1
SUPPRESS = YES + 1
DEPLOY = SUPPRESS + 1
NUM_ACTIONS = DEPLOY + 25


class TankNotationError(ValueError):
    """Text that names no action."""


def action_to_string(a: int) -> str:
    """``E7``, ``face N``, ``end``, ``yes``, ``suppress``."""
    if 0 <= a < FACE:
        return label(a)
    if FACE <= a < END:
        return f"face {FACING_NAMES[a - FACE]}"
    if a == END:
        return "end"
    if a == YES:
        return "yes"
    if a == SUPPRESS:
        return "suppress"
    if DEPLOY <= a < NUM_ACTIONS:
        return f"deploy {a - DEPLOY}"
    raise TankNotationError(f"no tankattack action {a}")


def string_to_action(text: str) -> int:
    """Inverse of :func:`action_to_string`."""
    t = text.strip().lower()
    if t in ("end", "yes", "suppress"):
        return {"end": END, "yes": YES, "suppress": SUPPRESS}[t]
    if t.startswith("face ") and t[5:].upper() in tuple(FACING_NAMES):
        return FACE + FACING_NAMES.index(t[5:].upper())
    if t.startswith("deploy ") and t[7:].isdigit() and DEPLOY + int(t[7:]) < NUM_ACTIONS:
        return DEPLOY + int(t[7:])
    try:
        return parse_label(t)
    except (ValueError, IndexError):
        raise TankNotationError(f"{text!r} is not a tankattack action (a cell like E7, 'face N', 'end', 'yes', "
                                f"'suppress')") from None
