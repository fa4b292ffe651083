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
391 .. 412 ``DEPLOY + t``     in step 2, bring on a reserve element of type ``t`` (9): Sniper, Minefield,
                              Balloon, Bomber, Fighter (the Fighter call, Scouts and Air Aces too),
                              Barrage, Gas; three type ids serve after choosing an element:
                              ``GROUP`` (391, Rifles' id: build a group with it, 8.4),
                              ``DISMOUNT`` (392, Dismounted Cavalry's id) and ``MOUNT`` (405,
                              Cavalry's id), (dis)mounting Cavalry (8.8); the rest are never legal
413        ``COUNTER``        counter-battery: lift an enemy Barrage for 6 PIPs (9.2), then its cell
414        ``RALLY``          pay 1 PIP to lift Suppression (16.3), then the element's cell
415        ``RAID``           after choosing a Bomber: fly it off the enemy's edge (9.3), then the
                              enemy Barrage's cell
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
COUNTER = DEPLOY + 22
RALLY = COUNTER + 1
RAID = RALLY + 1
NUM_ACTIONS = RAID + 1
GROUP = DEPLOY + 0
"""EType.RIFLES's entry id, never an entry: make the chosen element the lead of a group move (8.4)."""
DISMOUNT = DEPLOY + 1
"""EType.DISMOUNTED_CAVALRY's entry id, never an entry: dismount the chosen Cavalry (8.8)."""
MOUNT = DEPLOY + 14
"""EType.CAVALRY's entry id, never an entry: mount the chosen Dismounted Cavalry (8.8)."""
_SPENDS = {COUNTER: "counter-battery", RALLY: "rally", RAID: "raid", MOUNT: "mount", DISMOUNT: "dismount",
           GROUP: "group"}


class TankNotationError(ValueError):
    """Text that names no action."""


def action_to_string(a: int) -> str:
    """``E7``, ``face N``, ``end``, ``yes``, ``suppress``, ``enter barrage``, ``counter-battery``, ``rally``,
    ``raid``."""
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
    if a in _SPENDS:
        return _SPENDS[a]
    if DEPLOY <= a < COUNTER:
        from cardwar.envs.tankattack.elements import EType

        return f"enter {EType(a - DEPLOY).name.lower()}"
    raise TankNotationError(f"no tankattack action {a}")


def string_to_action(text: str) -> int:
    """Inverse of :func:`action_to_string`."""
    t = text.strip().lower()
    if t in ("end", "yes", "suppress"):
        return {"end": END, "yes": YES, "suppress": SUPPRESS}[t]
    if t.startswith("face ") and t[5:].upper() in tuple(FACING_NAMES):
        return FACE + FACING_NAMES.index(t[5:].upper())
    for a, name in _SPENDS.items():
        if t == name:
            return a
    if t.startswith("enter "):
        from cardwar.envs.tankattack.elements import EType

        name = t[6:].strip().replace(" ", "_").upper()
        if name in EType.__members__:
            return DEPLOY + int(EType[name])
    try:
        return parse_label(t)
    except (ValueError, IndexError):
        raise TankNotationError(f"{text!r} is not a tankattack action (a cell like E7, 'face N', 'end', 'yes', "
                                f"'suppress', 'enter gas', 'counter-battery', 'rally', 'raid')") from None
