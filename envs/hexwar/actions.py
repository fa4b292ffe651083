"""The flat Discrete action space of the hex game and its notation.

Cells are the fixed 12 x 10 grid (``row * 12 + col``, labels ``A1``..``L10``).
A hex may hold two units (stacking), so a shot names the hex and a slot (the
units of a hex in unit order; ``/2`` picks the second).

{{ACTION_TABLE}}
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from cardwar.envs.doc_pages import fill, id_range, markdown_table
from cardwar.envs.hexwar.hexgrid import label, parse_label
from cardwar.envs.hexwar.scenario import MAX_HEIGHT, MAX_WIDTH, NUM_CELLS, cell_of, hex_of

MOVE_BASE = 0
SHOOT_BASE = MOVE_BASE + NUM_CELLS  # 120
SMOKE_BASE = SHOOT_BASE + 2 * NUM_CELLS  # 360
JOINT_MOVE_BASE = SMOKE_BASE + NUM_CELLS  # 480
JOINT_SHOOT_BASE = JOINT_MOVE_BASE + NUM_CELLS  # 600
PASS = JOINT_SHOOT_BASE + 2 * NUM_CELLS  # 840
EVADE = PASS + 1
NO_EVADE = PASS + 2
NUM_ACTIONS = PASS + 3  # 843


class Kind(IntEnum):
    """What an action does."""

    MOVE = 0
    SHOOT = 1
    SMOKE = 2
    JOINT_MOVE = 3
    JOINT_SHOOT = 4
    PASS = 5
    EVADE = 6
    NO_EVADE = 7


class HexAction(NamedTuple):
    """A decoded action id."""

    kind: Kind
    cell: int = -1
    slot: int = 0


class HexNotationError(ValueError):
    """A move string the notation cannot read."""


def _decode(a: int) -> HexAction:
    if a < SHOOT_BASE:
        return HexAction(Kind.MOVE, a)
    if a < SMOKE_BASE:
        return HexAction(Kind.SHOOT, *divmod(a - SHOOT_BASE, 2))
    if a < JOINT_MOVE_BASE:
        return HexAction(Kind.SMOKE, a - SMOKE_BASE)
    if a < JOINT_SHOOT_BASE:
        return HexAction(Kind.JOINT_MOVE, a - JOINT_MOVE_BASE)
    if a < PASS:
        return HexAction(Kind.JOINT_SHOOT, *divmod(a - JOINT_SHOOT_BASE, 2))
    return HexAction({PASS: Kind.PASS, EVADE: Kind.EVADE, NO_EVADE: Kind.NO_EVADE}[a])


DECODED: tuple[HexAction, ...] = tuple(_decode(a) for a in range(NUM_ACTIONS))


def encode(kind: Kind, cell: int = -1, slot: int = 0) -> int:
    """The id of an action."""
    base = {Kind.MOVE: MOVE_BASE, Kind.SMOKE: SMOKE_BASE, Kind.JOINT_MOVE: JOINT_MOVE_BASE}
    if kind in base:
        return base[kind] + cell
    if kind == Kind.SHOOT:
        return SHOOT_BASE + cell * 2 + slot
    if kind == Kind.JOINT_SHOOT:
        return JOINT_SHOOT_BASE + cell * 2 + slot
    return {Kind.PASS: PASS, Kind.EVADE: EVADE, Kind.NO_EVADE: NO_EVADE}[kind]


def action_to_string(action: int) -> str:
    """Readable notation of an id."""
    if not 0 <= int(action) < NUM_ACTIONS:
        raise ValueError(f"action id {action} is outside 0..{NUM_ACTIONS - 1}")
    a = DECODED[int(action)]
    where = label(hex_of(a.cell)) if a.cell >= 0 else ""
    slot = "/2" if a.slot else ""
    return {Kind.MOVE: f"move {where}", Kind.SHOOT: f"shoot {where}{slot}", Kind.SMOKE: f"smoke {where}",
            Kind.JOINT_MOVE: f"joint move {where}", Kind.JOINT_SHOOT: f"joint shoot {where}{slot}",
            Kind.PASS: "pass", Kind.EVADE: "evade", Kind.NO_EVADE: "no evade"}[a.kind]


_EXAMPLES = "move C4 | shoot E5 | shoot E5/2 | smoke D3 | joint move C4 | joint shoot E5 | pass | evade | no evade"


def _cell(text: str) -> tuple[int, int]:
    slot = 0
    if "/" in text:
        text, s = text.split("/", 1)
        if s not in ("1", "2"):
            raise HexNotationError(f"slot {s!r}: a hex holds at most two units (/1 or /2)")
        slot = int(s) - 1
    h = parse_label(text)
    c = cell_of(h)
    if not (0 <= c < NUM_CELLS) or hex_of(c) != h:
        raise HexNotationError(f"{text} is outside the {MAX_WIDTH} x {MAX_HEIGHT} grid")
    return c, slot


def string_to_action(text: str) -> int:
    """Parse the notation; :class:`HexNotationError` with the accepted forms otherwise."""
    words = text.lower().split()
    try:
        if words == ["pass"]:
            return PASS
        if words == ["evade"]:
            return EVADE
        if words in (["no", "evade"], ["noevade"], ["no-evade"]):
            return NO_EVADE
        joint = bool(words) and words[0] == "joint"
        if joint:
            words = words[1:]
        if len(words) == 2 and words[0] in ("move", "shoot") or (len(words) == 2 and words[0] == "smoke" and not joint):
            c, slot = _cell(words[1])
            kind = {"move": Kind.JOINT_MOVE if joint else Kind.MOVE,
                    "shoot": Kind.JOINT_SHOOT if joint else Kind.SHOOT, "smoke": Kind.SMOKE}[words[0]]
            if slot and kind not in (Kind.SHOOT, Kind.JOINT_SHOOT):
                raise HexNotationError("only a shot names a slot")
            return encode(kind, c, slot)
    except HexNotationError:
        raise
    except ValueError as err:
        raise HexNotationError(str(err)) from None
    raise HexNotationError(f"cannot read move {text!r}; moves look like: {_EXAMPLES}")


_DOES = {Kind.MOVE: ("move the acting unit to cell c", f"{MOVE_BASE} + c"),
         Kind.SHOOT: ("shoot at the unit in slot s of cell c", f"{SHOOT_BASE} + c*2 + s"),
         Kind.SMOKE: ("lay smoke on cell c (mortar, artillery)", f"{SMOKE_BASE} + c"),
         Kind.JOINT_MOVE: ("joint move with the hex partner to cell c", f"{JOINT_MOVE_BASE} + c"),
         Kind.JOINT_SHOOT: ("joint shot at the unit in slot s of cell c", f"{JOINT_SHOOT_BASE} + c*2 + s"),
         Kind.PASS: ("pass (the unit does nothing)", "-"),
         Kind.EVADE: ("take evasive action (the target's side)", "-"), Kind.NO_EVADE: ("do not evade", "-")}


def action_table() -> list[tuple[str, str, str, str, str]]:
    """Every id range of the action space: (ids, kind, action, id formula, notation of the first and last id)."""
    rows, first = [], 0
    for a in range(1, NUM_ACTIONS + 1):
        if a == NUM_ACTIONS or DECODED[a].kind != DECODED[first].kind:
            kind = DECODED[first].kind
            notation = action_to_string(first) + ("" if a - 1 == first else f" .. {action_to_string(a - 1)}")
            rows.append((id_range(first, a - 1), kind.name.lower(), *_DOES[kind], notation))
            first = a
    return rows


ACTION_TABLE = markdown_table(("ids", "kind", "action", "id", "notation (first .. last id)"), action_table())
"""The table of :func:`action_table` in Markdown (what the env pages show)."""

__doc__ = fill(__doc__, ACTION_TABLE=ACTION_TABLE)
