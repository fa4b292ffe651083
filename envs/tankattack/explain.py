"""Words for a person at the table: why a Tank Attack answer is refused, and what the decision in front asks.

Nothing is hidden but the future dice (RULES.md 18), so the reasons read the whole position, rebuilt from the
seat's view alone (:func:`cardwar.envs.tankattack.infostate.state_from_view`). The engine's mask decides what
is legal; these functions are asked about an answer the mask refused and say which rule refuses it, citing
RULES.md by section.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar.envs.tankattack.actions import (
    CELL, COUNTER, DEPLOY, DISMOUNT, END, FACE, GROUP, MOUNT, NUM_ACTIONS, RAID, RALLY, action_to_string,
)
from cardwar.envs.tankattack.board import NUM_CELLS, gap, label
from cardwar.envs.tankattack.contact import in_front_contact
from cardwar.envs.tankattack.elements import IMMOBILE, NO_TRENCH, STATS, Going, allowance, is_aerial
from cardwar.envs.tankattack.infostate import state_from_view
from cardwar.envs.tankattack.movement import SUPPRESSED_STAY, base_cost, can_stand, enemy_wire, move_type
from cardwar.envs.tankattack.state import Stage, TankState

STAGE_QUESTIONS: dict[Stage, str] = {
    Stage.SETUP: "the cell where your next element is placed (RULES.md 5, deployment=players)",
    Stage.MOVES: "an element to move (its cell), a reserve to bring on (enter TYPE), counter-battery, rally, "
                 "or end to close your tactical moves (RULES.md 6 step 2, 7, 8, 9)",
    Stage.MOVE_DEST: "where the chosen element goes (a cell; its own cell turns it in place), or group, mount, "
                     "dismount, raid (RULES.md 8.2-8.9, 8.4, 8.8, 9.3)",
    Stage.MOVE_FACE: "the facing it ends with: face N, E, S or W (RULES.md 8.3)",
    Stage.GROUP_ADD: "another element of the group (its cell), or its move (RULES.md 8.4)",
    Stage.GROUP_MOVE: "the group's move: the lead element's destination, a facing to turn to, or (dis)mount "
                      "(RULES.md 8.4, 8.8)",
    Stage.ENTER_CELL: "the cell where the reserve element enters (RULES.md 9)",
    Stage.ENTER_FACE: "the facing the entering element takes (RULES.md 9)",
    Stage.SPEND_TARGET: "the cell the spend acts on: the Barrage to lift, the element to rally or the Barrage "
                        "to raid (RULES.md 9.2, 9.3, 16.3)",
    Stage.AIR_CONTACT: "an aerial element to make a free contact (its cell), or end (RULES.md 10)",
    Stage.AIR_DEST: "the cell of the free aerial contact (RULES.md 10)",
    Stage.AIR_FACE: "the facing after the free aerial contact (RULES.md 10)",
    Stage.TURNING: "an element to turn to face an enemy in contact (its cell), or end (RULES.md 10)",
    Stage.FACE_CHOICE: "which way the element turns to face (RULES.md 10)",
    Stage.SHOOT_SELECT: "the next element to shoot (its cell), or end (RULES.md 11.1)",
    Stage.SHOOT_TARGET: "its target (the cell of an enemy in range, arc and sight; RULES.md 11.2)",
    Stage.SHOOT_AID: "an element aiding the shot (its cell), or end for no more aids (RULES.md 11.3)",
    Stage.SHOOT_RETURN: "yes to shoot back at the shooter, or end not to (RULES.md 11.3 step 4)",
    Stage.COMBAT_SELECT: "the next close combat to fight: the cell of your element in it (RULES.md 12.1)",
    Stage.COMBAT_PARTNER: "the enemy it fights (its cell; RULES.md 12.1)",
    Stage.RECOIL_CHOICE: "the way the element recoils (a facing), or suppress instead (RULES.md 15.1, 16.1, 16.3)",
}
"""What each decision asks (RULES.md 19)."""


_LAST: list[Any] = [None, None]
"""The last view asked about and its position (a person's refused answers come one view at a time)."""


def _state(view: Any) -> TankState:
    if _LAST[0] is not view:
        _LAST[:] = [view, state_from_view(view, np.random.default_rng(0))]  # no die is needed to explain a rule
    return _LAST[1]


def _name(s: TankState, e: int) -> str:
    return f"{'the General' if s.general[e] else STATS[s.etype[e]].name} at {label(s.cell[e])}"


def decision_note(view: Any) -> str | None:
    """The question in front of the seat, its PIPs and the element it is about."""
    s = _state(view)
    if s.is_terminal():
        return None
    lines = [f"Now: {STAGE_QUESTIONS.get(s.stage, s.stage.value)}."]
    e = s.pending.get("element", s.pending.get("shooter", -1)) if isinstance(s.pending, dict) else -1
    if isinstance(e, int) and 0 <= e < len(s.cell) and s.cell[e] >= 0:
        lines.append(f"The decision is about {_name(s, e)}.")
    if s.stage in (Stage.MOVES, Stage.MOVE_DEST, Stage.GROUP_ADD, Stage.GROUP_MOVE):
        lines.append(f"PIPs left this bound: {s.pips} of {s.pip_roll} rolled (RULES.md 7).")
    return "\n".join(lines)


def why_illegal(view: Any, action: int) -> str | None:
    """The rule that refuses ``action`` now, from the seat's view alone (None if it is legal)."""
    s = _state(view)
    if not 0 <= int(action) < NUM_ACTIONS:
        return f"{action} is not an action id (0-{NUM_ACTIONS - 1})"
    action = int(action)
    if s.is_terminal():
        return "the game is over (RULES.md 17.3)"
    if action in s.legal_actions():
        return None
    seat = getattr(view, "seat", None)
    if seat is not None and s.current_player != seat:
        return f"it is the {('defender', 'attacker')[s.current_player]}'s decision now (RULES.md 19)"
    question = STAGE_QUESTIONS.get(s.stage, s.stage.value)
    if CELL <= action < NUM_CELLS:
        if s.stage is Stage.MOVES:
            return _why_not_element(s, action)
        if s.stage is Stage.MOVE_DEST:
            return _why_not_destination(s, s.pending["element"], action)
    if s.stage is Stage.MOVE_FACE and FACE <= action < FACE + 4:
        return (f"{action_to_string(action)} would leave its flank or rear against an enemy's front, or it must "
                f"face the enemy it contacts (RULES.md 8.3)")
    if s.stage is Stage.MOVES:
        spend = _why_not_spend(s, action)
        if spend is not None:
            return spend
    return f"{action_to_string(action)} does not answer this question: {question}"


def _why_not_spend(s: TankState, action: int) -> str | None:
    if action == COUNTER:
        return "counter-battery needs 6 PIPs and an enemy Barrage on the field (RULES.md 9.2)"
    if action == RALLY:
        return "a rally needs 1 PIP and a Suppressed element of yours (RULES.md 16.3)"
    if action in (GROUP, MOUNT, DISMOUNT, RAID):
        return (f"{action_to_string(action)} answers the chosen element's move: choose the element first "
                f"(its cell; RULES.md 8.4, 8.8, 9.3)")
    if DEPLOY <= action < COUNTER:
        return (f"{action_to_string(action)}: none of that type is in your reserve, it costs more PIPs than are "
                f"left, or it has nowhere to enter now (RULES.md 7.2, 9)")
    return None


def _why_not_element(s: TankState, cell: int) -> str:
    e = s.grid[cell]
    side = s.active
    if e < 0:
        return f"there is no element at {label(cell)} (RULES.md 8.1: you move your own elements)"
    if s.side[e] != side:
        return f"{_name(s, e)} is the enemy's (RULES.md 8.1: you move your own elements)"
    t = s.etype[e]
    if s.moved[e]:
        return f"{_name(s, e)} has already moved this bound (RULES.md 6, 8.1: one tactical move a bound)"
    if t in IMMOBILE:
        return f"{_name(s, e)} is emplaced and never moves (RULES.md 3.2)"
    if s.suppressed[e] and t in SUPPRESSED_STAY:
        return f"{_name(s, e)} is Suppressed: pay a rally (1 PIP) before it moves (RULES.md 16.3)"
    if not is_aerial(t) and in_front_contact(s, e):
        return f"{_name(s, e)} is held in front contact with an enemy (RULES.md 8.1)"
    cost = base_cost(s, e)
    if cost > s.pips:
        return f"moving {_name(s, e)} costs {cost} PIPs and {s.pips} are left (RULES.md 7.1)"
    return f"{_name(s, e)} has no legal move from {label(cell)} (RULES.md 8.2-8.9)"


def _why_not_destination(s: TankState, e: int, cell: int) -> str:
    who = _name(s, e)
    start = s.cell[e]
    y = s.grid[cell]
    if y >= 0 and y != e:
        return (f"{label(cell)} holds {_name(s, y)}: a move may pass through another element where 8.9 allows, "
                f"never end on it (RULES.md 8.9)")
    if cell == s.board.bunker:
        return "no element enters the Command Bunker's cell (RULES.md 16.4)"
    if not can_stand(s, e, cell):
        if s.etype[e] in NO_TRENCH and cell in s.board.trench:
            return f"{who} may not enter a trench (RULES.md 16.1)"
        return f"{who} cannot enter the ground at {label(cell)} (RULES.md 2.1, 3.2)"
    if enemy_wire(s, cell, s.side[e]) and not is_aerial(s.etype[e]) and s.etype[e].name != "TANK":
        return f"enemy wire at {label(cell)} stops it short; it crosses next bound (RULES.md 16.2)"
    best = allowance(move_type(s, e), Going.GOOD) or 0
    if gap(start, cell) + 100 > best + 200:
        return f"{label(cell)} is beyond {who}'s move of {best} paces in good going (RULES.md 3.2, 8.2)"
    return (f"{label(cell)} cannot be reached this move: the going of the path, a zone of control, a trench or "
            f"wire on the way, or other elements bar it (RULES.md 8.2, 8.5, 8.9, 16.1, 16.2)")


__all__ = ["STAGE_QUESTIONS", "decision_note", "why_illegal"]
