"""naval-v1's factored actions: a whole move made of small decisions, within one Discrete space.

As pgx does for composite moves, a move of the flat space (:mod:`cardwar.envs.naval.actions`,
3029 ids) is made in one to two *steps* from a space of 113:

{{STEP_TABLE}}

- deploy = card, then zone (``deploy 7H D`` = ``card 7H``, ``zone D``);
- attack = the line and the style are declared, then the face-down card is chosen
  (``attack E>F broadside 4D`` = ``attack E>F broadside``, ``card 4D``);
- defend = the card; sink (a High Royal Flush) = the zone; the rest are one step.

:class:`StepState` wraps a :class:`~cardwar.envs.naval.state.NavalState` (the one copy of the
rules): the legal steps are those that begin a legal flat move after the steps already
taken (``pending``), and the move is applied when its last step is taken. The notation of
a whole move stays one string; :func:`move_to_steps` maps it to its steps.
"""

from __future__ import annotations

from typing import Any

from cardwar.envs.naval.actions import (
    ATTACK_BASE, DEFEND_BASE, KEEP, MULLIGAN, NODEFEND, NUM_ACTIONS, PASS, SINK_BASE, ActionKind, DECODED,
    string_to_action,
)
from cardwar.envs.doc_pages import fill, id_range, markdown_table
from cardwar.envs.naval.cards import NUM_CARDS, card_to_str, parse_card
from cardwar.envs.naval.seemap import EDGES, NUM_ZONES, is_horizontal, parse_zone, zone_letter
from cardwar.envs.naval.state import IllegalActionError, NavalState, Phase

CARD_BASE = 0
ZONE_BASE = CARD_BASE + NUM_CARDS  # 52
LINE_BASE = ZONE_BASE + NUM_ZONES  # 61: edge * 2 + style (0 normal, 1 broadside/ramming)
NUM_LINES = len(EDGES) * 2  # 48
STEP_NODEFEND = LINE_BASE + NUM_LINES  # 109
STEP_PASS, STEP_KEEP, STEP_MULLIGAN = STEP_NODEFEND + 1, STEP_NODEFEND + 2, STEP_NODEFEND + 3
NUM_STEPS = STEP_MULLIGAN + 1  # 113

_SINGLE = {NODEFEND: STEP_NODEFEND, PASS: STEP_PASS, KEEP: STEP_KEEP, MULLIGAN: STEP_MULLIGAN}


def _steps_of(action: int) -> tuple[int, ...]:
    a = DECODED[action]
    if a.kind == ActionKind.DEPLOY:
        return (CARD_BASE + a.card, ZONE_BASE + a.zone)
    if a.kind == ActionKind.ATTACK:
        return (LINE_BASE + (action - ATTACK_BASE) // NUM_CARDS, CARD_BASE + a.card)
    if a.kind == ActionKind.DEFEND:
        return (CARD_BASE + action - DEFEND_BASE,)
    if a.kind == ActionKind.SINK:
        return (ZONE_BASE + action - SINK_BASE,)
    return (_SINGLE[action],)


STEPS_OF: tuple[tuple[int, ...], ...] = tuple(_steps_of(a) for a in range(NUM_ACTIONS))
"""The steps of every flat action id."""

_ACTION_OF: dict[tuple[int, ...], int] = {steps: a for a, steps in enumerate(STEPS_OF)}
_FIRST: tuple[int, ...] = tuple(steps[0] for steps in STEPS_OF)
_SECOND: tuple[int, ...] = tuple(steps[1] if len(steps) > 1 else -1 for steps in STEPS_OF)  # -1: a one-step move


def step_to_string(step: int) -> str:
    """Notation of one step (see the module table)."""
    if not 0 <= int(step) < NUM_STEPS:
        raise ValueError(f"step id {step} is outside 0..{NUM_STEPS - 1}")
    step = int(step)
    if step < ZONE_BASE:
        return f"card {card_to_str(step - CARD_BASE)}"
    if step < LINE_BASE:
        return f"zone {zone_letter(step - ZONE_BASE)}"
    if step < STEP_NODEFEND:
        edge, s = divmod(step - LINE_BASE, 2)
        src, dst = EDGES[edge]
        style = "normal" if s == 0 else ("broadside" if is_horizontal(src, dst) else "ram")
        return f"attack {zone_letter(src)}>{zone_letter(dst)} {style}"
    return ("nodefend", "pass", "keep", "mulligan")[step - STEP_NODEFEND]


def string_to_step(text: str) -> int:
    """The step id of one step's notation; ValueError otherwise."""
    words = text.lower().split()
    if len(words) == 2 and words[0] == "card":
        return CARD_BASE + parse_card(words[1])
    if len(words) == 2 and words[0] == "zone":
        return ZONE_BASE + parse_zone(words[1])
    if len(words) == 3 and words[0] == "attack":
        return STEPS_OF[string_to_action(f"{text} AC")][0]  # the line's step; the card is the next step
    simple = {"nodefend": STEP_NODEFEND, "pass": STEP_PASS, "keep": STEP_KEEP, "mulligan": STEP_MULLIGAN}
    if len(words) == 1 and words[0] in simple:
        return simple[words[0]]
    raise ValueError(f"cannot read step {text!r}; steps look like: card 4D | zone E | attack E>F broadside | pass")


def move_to_steps(move: str | int) -> tuple[int, ...]:
    """The steps of a whole move, in notation (``attack E>F broadside 4D``) or as a flat id."""
    return STEPS_OF[string_to_action(move) if isinstance(move, str) else int(move)]


def steps_to_action(steps: tuple[int, ...]) -> int | None:
    """The flat action id the steps make, or None if they make none (yet)."""
    return _ACTION_OF.get(tuple(steps))


def _entry_of(legal: list[int], pending: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """(the legal next steps, sorted; the moves of more steps that begin with ``pending``) from the legal moves."""
    n = len(pending)
    if n == 0:  # every move has a first step
        return sorted(set(map(_FIRST.__getitem__, legal))), legal
    if n == 1:  # the moves of two steps that begin with the pending one
        first = pending[0]
        moves = [a for a in legal if _FIRST[a] == first and _SECOND[a] >= 0]
        return sorted(set(map(_SECOND.__getitem__, moves))), moves
    return [], []  # no move has more than two steps


def _action_entry(parts: tuple[list[int], list[int], list[int]],
                  pending: tuple[int, ...]) -> tuple[list[int], list[int]]:
    """:func:`_entry_of` in the ACTION phase, from the engine's parts: a deploy is a card of the hand then a
    zone, an attack a line then a card of the hand, ``pass`` one step (the same steps, without listing the
    hand x (zones + lines) moves)."""
    hand, zones, lines = parts
    n = len(pending)
    if n == 0:
        steps = hand[:] if zones else []  # card steps are CARD_BASE + card = the card
        steps += [LINE_BASE + (base - ATTACK_BASE) // NUM_CARDS for base in lines]
        steps.append(STEP_PASS)
        return steps, []  # the moves of a first step: only needed for one-step moves, checked by the engine
    if n == 1:
        first = pending[0]
        if first < ZONE_BASE:  # a deploy's card
            if zones and first in hand:
                return [ZONE_BASE + z for z in zones], [first * NUM_ZONES + z for z in zones]
        elif LINE_BASE <= first < STEP_NODEFEND:  # an attack's line
            base = ATTACK_BASE + (first - LINE_BASE) * NUM_CARDS
            if base in lines:
                return hand[:], [base + c for c in hand]
    return [], []


class StepState:
    """A naval game played step by step: the engine's state and the steps taken towards the next move.

    It meets the engine contract the AEC env base needs (``current_player``, ``legal_actions``,
    ``apply_action``, ``is_terminal``, ``returns``, ``information_view``, ``move_number``...), in steps.
    """

    def __init__(self, engine: NavalState, pending: tuple[int, ...] = (), steps_taken: int = 0) -> None:
        self.engine, self.pending, self.move_number = engine, tuple(pending), steps_taken
        # (engine move number, its ACTION-phase parts or None, pending -> (next steps, moves))
        self._legal: tuple[int, Any, dict[tuple[int, ...], tuple[list[int], list[int]]]] | None = None

    # the engine's state, as it is between moves
    def __getattr__(self, name: str) -> Any:  # turn, phase, result, winner, config, hands...
        return getattr(self.engine, name)

    @property
    def current_player(self) -> int:
        return self.engine.current  # NavalState.current_player, one call fewer (the env reads it every step)

    def is_terminal(self) -> bool:
        return self.engine.phase == Phase.GAME_OVER  # NavalState.is_terminal, one call fewer

    def returns(self) -> Any:
        return self.engine.returns()

    def information_view(self, seat: int | None) -> Any:
        return self.engine.information_view(seat)

    def clone(self) -> StepState:
        return StepState(self.engine.clone(), self.pending, self.move_number)

    # ---------------------------------------------------------------- steps
    def _entry(self) -> tuple[list[int], list[int]]:
        """For the engine's position and the pending steps: (the legal next steps, sorted; the legal moves of
        more steps than the pending ones that begin with them). Built once a (position, pending) pair and
        then looked up; in the ACTION phase straight from the engine's :meth:`~NavalState.action_parts`
        (hand, zones, lines), elsewhere from its legal moves."""
        engine = self.engine
        key = engine.move_number
        cache = self._legal
        if cache is None or cache[0] != key:
            parts = engine.action_parts() if engine.phase == Phase.ACTION else None
            cache = self._legal = (key, parts, {})
        entries = cache[2]
        pending = self.pending
        entry = entries.get(pending)
        if entry is None:
            parts = cache[1]
            entry = _action_entry(parts, pending) if parts is not None else _entry_of(engine.legal_actions(), pending)
            entries[pending] = entry
        return entry

    def completions(self) -> list[int]:
        """The legal flat moves that begin with the pending steps (and have more steps than those)."""
        if not self.pending:
            return self.engine.legal_actions()
        return self._entry()[1]

    def legal_actions(self) -> list[int]:
        """The legal steps now: those that begin or continue a legal move."""
        return list(self._entry()[0])

    def is_legal(self, step: int) -> bool:
        return 0 <= step < NUM_STEPS and step in self.legal_actions()

    def apply_action(self, step: int, validate: bool = True) -> int | None:
        """Take ``step``; when it completes a move, the move is played. Returns the flat move played, or None."""
        step = int(step)
        if validate and not (0 <= step < NUM_STEPS and step in self._entry()[0]):
            name = step_to_string(step) if 0 <= step < NUM_STEPS else f"step id {step}"
            after = f" after {', '.join(map(step_to_string, self.pending))}" if self.pending else ""
            raise IllegalActionError(f"{name!r} is not a legal step now{after}; legal: "
                                     f"{', '.join(map(step_to_string, self.legal_actions()))}")
        steps = (*self.pending, step)
        action = _ACTION_OF.get(steps)
        # ``card 4D`` defends only when defending: a one-step move is made only if it is legal
        if action is not None and not (action in self._entry()[1] if self.pending else self.engine.is_legal(action)):
            action = None
        self.move_number += 1
        if action is not None:
            self.engine.apply_action(action, validate=False)
            self.pending = ()
            return action
        self.pending = steps
        return None


_STEP_KINDS = (  # (first id, step, id formula, what it makes)
    (CARD_BASE, "a card c", f"{CARD_BASE} + c", "deploy (1st step), attack (2nd step), defend"),
    (ZONE_BASE, "a Seazone z", f"{ZONE_BASE} + z", "deploy (2nd step), sink"),
    (LINE_BASE, "an attack's line e and style s", f"{LINE_BASE} + e*2 + s", "attack (1st step)"),
    (STEP_NODEFEND, "nodefend", "-", "itself"), (STEP_PASS, "pass", "-", "itself"),
    (STEP_KEEP, "keep", "-", "itself"), (STEP_MULLIGAN, "mulligan", "-", "itself"),
)


def step_table() -> list[tuple[str, str, str, str, str]]:
    """Every id range of the step space: (ids, step, id formula, notation of the first and last id, what it makes)."""
    rows = []
    for k, (first, what, formula, makes) in enumerate(_STEP_KINDS):
        last = (_STEP_KINDS[k + 1][0] if k + 1 < len(_STEP_KINDS) else NUM_STEPS) - 1
        notation = step_to_string(first) + ("" if last == first else f" .. {step_to_string(last)}")
        rows.append((id_range(first, last), what, formula, notation, makes))
    return rows


STEP_TABLE = markdown_table(("step ids", "step", "id", "notation (first .. last id)", "makes"), step_table())
"""The table of :func:`step_table` in Markdown (what the env pages show)."""

__doc__ = fill(__doc__, STEP_TABLE=STEP_TABLE)
