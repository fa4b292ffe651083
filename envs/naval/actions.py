"""The flat Discrete action space of Hit the Deck! and its notation.

{{ACTION_TABLE}}

Cards are numbered as in :mod:`cardwar.envs.naval.cards`, Seazones A..I as 0..8 and
edges ``e`` index :data:`cardwar.envs.naval.seemap.EDGES` (the 24 directed lines between
orthogonal neighbours). Style ``s`` is 0 for a Normal Attack and 1 for the
attack the line's geometry allows: Broadside along a Row, Ramming along a Sealane.
This module is the one place that turns ids into notation and back.
"""

from __future__ import annotations

from enum import IntEnum
from typing import NamedTuple

from cardwar.envs.doc_pages import fill, id_range, markdown_table
from cardwar.envs.naval.cards import NUM_CARDS, CardError, card_to_str, parse_card
from cardwar.envs.naval.seemap import EDGE_INDEX, EDGES, NUM_ZONES, is_horizontal, parse_zone, zone_letter

DEPLOY_BASE = 0
ATTACK_BASE = DEPLOY_BASE + NUM_CARDS * NUM_ZONES  # 468
DEFEND_BASE = ATTACK_BASE + len(EDGES) * 2 * NUM_CARDS  # 2964
NODEFEND = DEFEND_BASE + NUM_CARDS  # 3016
PASS = NODEFEND + 1  # 3017
KEEP = PASS + 1  # 3018
MULLIGAN = KEEP + 1  # 3019
SINK_BASE = MULLIGAN + 1  # 3020
NUM_ACTIONS = SINK_BASE + NUM_ZONES  # 3029


class ActionKind(IntEnum):
    """What an action id does."""

    DEPLOY = 0
    ATTACK = 1
    DEFEND = 2
    NODEFEND = 3
    PASS = 4
    KEEP = 5
    MULLIGAN = 6
    SINK = 7


class AttackStyle(IntEnum):
    """The seed's three attacks."""

    NORMAL = 0
    RAM = 1
    BROADSIDE = 2


class Action(NamedTuple):
    """A decoded action id; fields that do not apply are -1."""

    kind: ActionKind
    card: int = -1
    zone: int = -1  # deploy / sink target
    src: int = -1  # attacking ship's Seazone
    dst: int = -1  # attacked ship's Seazone
    style: AttackStyle = AttackStyle.NORMAL


class NotationError(ValueError):
    """A move string that the notation cannot read."""


def deploy_id(card: int, zone: int) -> int:
    """Id of "deploy card at zone"."""
    return DEPLOY_BASE + card * NUM_ZONES + zone


def attack_id(src: int, dst: int, style: AttackStyle, card: int) -> int:
    """Id of an attack from ``src`` on ``dst``; ``style`` must fit the line's geometry."""
    edge = EDGE_INDEX.get((src, dst))
    if edge is None:
        raise ValueError(f"{zone_letter(src)} and {zone_letter(dst)} are not orthogonally adjacent")
    if style == AttackStyle.NORMAL:
        s = 0
    elif (style == AttackStyle.BROADSIDE) == is_horizontal(src, dst):
        s = 1
    else:
        need = "the same Row" if style == AttackStyle.BROADSIDE else "the same Sealane"
        raise ValueError(f"a {style.name.lower()} attack needs {need}: {zone_letter(src)}>{zone_letter(dst)}")
    return ATTACK_BASE + (edge * 2 + s) * NUM_CARDS + card


def _decode(action: int) -> Action:
    if action < ATTACK_BASE:
        card, zone = divmod(action - DEPLOY_BASE, NUM_ZONES)
        return Action(ActionKind.DEPLOY, card=card, zone=zone)
    if action < DEFEND_BASE:
        es, card = divmod(action - ATTACK_BASE, NUM_CARDS)
        edge, s = divmod(es, 2)
        src, dst = EDGES[edge]
        style = AttackStyle.NORMAL
        if s:
            style = AttackStyle.BROADSIDE if is_horizontal(src, dst) else AttackStyle.RAM
        return Action(ActionKind.ATTACK, card=card, src=src, dst=dst, style=style)
    if action < NODEFEND:
        return Action(ActionKind.DEFEND, card=action - DEFEND_BASE)
    if action >= SINK_BASE:
        return Action(ActionKind.SINK, zone=action - SINK_BASE)
    return Action({NODEFEND: ActionKind.NODEFEND, PASS: ActionKind.PASS, KEEP: ActionKind.KEEP,
                   MULLIGAN: ActionKind.MULLIGAN}[action])


ATTACK_LINE_BASE: tuple[tuple[int, ...], ...] = tuple(
    tuple(ATTACK_BASE + (EDGE_INDEX[(src, dst)] * 2 + s) * NUM_CARDS if (src, dst) in EDGE_INDEX else -1
          for dst in range(NUM_ZONES) for s in (0, 1))
    for src in range(NUM_ZONES)
)
"""``ATTACK_LINE_BASE[src][dst * 2 + s] + card`` is the attack id (``s`` 1: Broadside/Ramming)."""

DECODED: tuple[Action, ...] = tuple(_decode(a) for a in range(NUM_ACTIONS))
"""Every action id decoded once, for the hot paths."""


def decode_action(action: int) -> Action:
    """Decode an id; ValueError if it is outside ``0..NUM_ACTIONS-1``."""
    if not isinstance(action, (int,)) and not hasattr(action, "__index__"):
        raise ValueError(f"an action is an integer id, got {action!r}")
    a = int(action)
    if not 0 <= a < NUM_ACTIONS:
        raise ValueError(f"action id {a} is outside 0..{NUM_ACTIONS - 1}")
    return DECODED[a]


def action_to_string(action: int) -> str:
    """Readable notation of an action id (see the module table)."""
    a = decode_action(action)
    if a.kind == ActionKind.DEPLOY:
        return f"deploy {card_to_str(a.card)} {zone_letter(a.zone)}"
    if a.kind == ActionKind.ATTACK:
        return f"attack {zone_letter(a.src)}>{zone_letter(a.dst)} {a.style.name.lower()} {card_to_str(a.card)}"
    if a.kind == ActionKind.DEFEND:
        return f"defend {card_to_str(a.card)}"
    if a.kind == ActionKind.SINK:
        return f"sink {zone_letter(a.zone)}"
    return a.kind.name.lower()


_STYLE_WORDS = {"normal": AttackStyle.NORMAL, "ram": AttackStyle.RAM, "ramming": AttackStyle.RAM,
                "broadside": AttackStyle.BROADSIDE}
_EXAMPLES = "deploy 7H D | attack E>F broadside 4D | defend 9S | nodefend | pass | keep | mulligan | sink E"


def string_to_action(text: str) -> int:
    """Parse the notation back into an id; :class:`NotationError` with a hint otherwise."""
    words = text.replace(">", " ").replace("-", " ").lower().split()
    if not words:
        raise NotationError(f"empty move; moves look like: {_EXAMPLES}")
    verb, args = words[0], words[1:]
    try:
        if verb == "deploy" and len(args) == 2:
            return deploy_id(parse_card(args[0]), parse_zone(args[1]))
        if verb == "attack" and len(args) in (3, 4):
            style = AttackStyle.NORMAL
            if len(args) == 4:
                if args[2] not in _STYLE_WORDS:
                    raise NotationError(f"unknown attack {args[2]!r}: use normal, ram or broadside")
                style = _STYLE_WORDS[args[2]]
            return attack_id(parse_zone(args[0]), parse_zone(args[1]), style, parse_card(args[-1]))
        if verb == "defend" and len(args) == 1:
            return DEFEND_BASE + parse_card(args[0])
        if verb == "sink" and len(args) == 1:
            return SINK_BASE + parse_zone(args[0])
        if (verb == "nodefend" and not args) or (verb == "no" and args == ["defend"]):
            return NODEFEND
        simple = {"pass": PASS, "keep": KEEP, "mulligan": MULLIGAN}
        if verb in simple and not args:
            return simple[verb]
    except CardError as err:
        raise NotationError(str(err)) from None
    except NotationError:
        raise
    except ValueError as err:
        raise NotationError(str(err)) from None
    raise NotationError(f"cannot read move {text!r}; moves look like: {_EXAMPLES}")


_ID_OF = {ActionKind.DEPLOY: f"{DEPLOY_BASE} + c*{NUM_ZONES} + z",
          ActionKind.ATTACK: f"{ATTACK_BASE} + (e*2 + s)*{NUM_CARDS} + c",
          ActionKind.DEFEND: f"{DEFEND_BASE} + c", ActionKind.SINK: f"{SINK_BASE} + z"}
_DOES = {ActionKind.DEPLOY: "deploy card c at Seazone z",
         ActionKind.ATTACK: "attack along line e (style s) with face-down card c",
         ActionKind.DEFEND: "defend with card c", ActionKind.NODEFEND: "play no defending card",
         ActionKind.PASS: "pass", ActionKind.KEEP: "keep the dealt hand", ActionKind.MULLIGAN: "mulligan",
         ActionKind.SINK: "High Royal Flush: sink the ship in Seazone z"}


def action_table() -> list[tuple[str, str, str, str]]:
    """Every id range of the action space: (ids, kind, action, id formula, notation of the first and last id)."""
    rows, first = [], 0
    for a in range(1, NUM_ACTIONS + 1):
        if a == NUM_ACTIONS or DECODED[a].kind != DECODED[first].kind:
            kind = DECODED[first].kind
            notation = action_to_string(first) + ("" if a - 1 == first else f" .. {action_to_string(a - 1)}")
            rows.append((id_range(first, a - 1), kind.name.lower(), _DOES[kind], _ID_OF.get(kind, "-"), notation))
            first = a
    return rows


ACTION_TABLE = markdown_table(("ids", "kind", "action", "id", "notation (first .. last id)"), action_table())
"""The table of :func:`action_table` in Markdown (what the env pages show)."""

__doc__ = fill(__doc__, ACTION_TABLE=ACTION_TABLE)
