"""Comparing totals and the seed's outcome rows, rebuilt (RULES.md 13.2 and 14).

Pure functions of a few facts about one combat, so the tables can be tested line by line.
"""

from __future__ import annotations

from enum import Enum
from typing import NamedTuple

from cardwar.envs.tankattack.elements import ARTILLERY, FAST_AIR, GUNS, RIFLE_LIKE, EType, is_aerial


class Result(Enum):
    """13.2: how a total compares with the enemy's."""

    WIN = "win"
    EQUAL = "equal"
    BEATEN = "beaten"
    DOUBLED = "doubled"


def compare(own: int, enemy: int) -> Result:
    """Equal; lower but more than half the enemy's: beaten; at most half (2 x own <= enemy): doubled."""
    if own > enemy:
        return Result.WIN
    if own == enemy:
        return Result.EQUAL
    return Result.DOUBLED if 2 * own <= enemy else Result.BEATEN


class Outcome(Enum):
    """What happens to a loser (14)."""

    NONE = "no effect"
    RECOIL = "recoil"
    RECOIL_OR_SUPPRESS = "recoil or suppression"
    SUPPRESSED = "suppressed"
    FLEE = "flee"
    FLEE_600 = "flee 600p"
    DESTROYED = "destroyed"
    TO_RESERVE = "to reserve"
    LOST_OFF = "fled off the battlefield"


BUNKER = -1
"""The Command Bunker as an enemy "type" in :class:`Fight`."""


class Fight(NamedTuple):
    """The facts an outcome row asks about, from the loser's side."""

    loser: EType | int
    """An element type, or :data:`BUNKER`."""
    enemy: EType | int
    """The winner's type (or :data:`BUNKER`)."""
    close: bool
    """Close combat (True) or shot at (False)."""
    enemy_initiated: bool = False
    """The enemy moved into contact with the loser this bound (8.3)."""
    loser_initiated: bool = False
    """The loser moved into contact with the enemy this bound (the Armoured Car's rows)."""
    loser_good_going: bool = True
    """The loser's own cell is good going for its rows (14.4; a trench is good going for its occupant)."""
    contact_bad_going: bool = False
    """The contact is in bad going: either cell, or a trench attacked from outside (14.4)."""
    in_trench: bool = False
    """The loser occupies a trench cell (an emplacement counts)."""
    in_strongpoint: bool = False
    ground_aided: bool = False
    """A ground element of the winner's side aids (the Bunker's and Strongpoint's exception)."""
    foot_bad_going: str = "hold"
    sniper_returns: bool = False


def _is_off_board_fire(t: EType | int) -> bool:
    return t in (EType.BARRAGE, EType.GAS)


def _unaided_non_ground(f: Fight) -> bool:
    """An Aerial, Barrage or Gas with no ground element of its side aiding (2.2, 16.4)."""
    e = f.enemy
    return e != BUNKER and (is_aerial(e) or _is_off_board_fire(e)) and not f.ground_aided


def outcome(f: Fight, result: Result) -> Outcome:
    """The loser's outcome for a beaten or doubled ``result`` (14.1, 14.2); equal and win give NONE."""
    if result is Result.DOUBLED:
        return _doubled(f)
    if result is Result.BEATEN:
        out = _beaten(f)
        if f.in_strongpoint and _unaided_non_ground(f):
            return Outcome.NONE
        return out
    return Outcome.NONE


def _doubled(f: Fight) -> Outcome:
    t, e = f.loser, f.enemy
    if t in (EType.FIGHTER, EType.SCOUT):
        if (e != BUNKER and is_aerial(e) and e is not EType.BALLOON) or e in RIFLE_LIKE:
            return Outcome.DESTROYED
        return Outcome.FLEE_600
    if t == BUNKER or f.in_strongpoint:
        return Outcome.NONE if _unaided_non_ground(f) else Outcome.DESTROYED
    return Outcome.DESTROYED


def _beaten(f: Fight) -> Outcome:
    t, e = f.loser, f.enemy
    close = f.close
    if t == BUNKER:
        if e == BUNKER or _is_off_board_fire(e):
            return Outcome.NONE
        if is_aerial(e):
            return Outcome.DESTROYED if f.ground_aided else Outcome.NONE
        return Outcome.DESTROYED
    if t in RIFLE_LIKE:
        if close and e in (EType.STURMTRUPPE, EType.TANK) and f.enemy_initiated:
            return Outcome.DESTROYED
        if not close and e is EType.MG and f.loser_good_going:
            return Outcome.DESTROYED
        return _foot_recoil(f)
    if t is EType.STURMTRUPPE:
        if not close and e is EType.MG and f.loser_good_going:
            return Outcome.DESTROYED
        return _foot_recoil(f)
    if t in GUNS:
        if close and _is_off_board_fire(e):
            return Outcome.SUPPRESSED if f.in_trench else Outcome.RECOIL
        if close:
            return Outcome.DESTROYED
        return Outcome.NONE
    if t is EType.TANK:
        if close and e is EType.STURMTRUPPE and f.enemy_initiated:
            return Outcome.DESTROYED
        if not close and e in ARTILLERY:
            return Outcome.FLEE
        return Outcome.RECOIL
    if t is EType.ARMOURED_CAR:
        if e in (EType.BARRAGE, EType.TANK):
            return Outcome.DESTROYED
        if close and f.loser_initiated and (e in GUNS or e in RIFLE_LIKE or e is EType.STURMTRUPPE):
            return Outcome.DESTROYED
        if close and f.loser_initiated and f.contact_bad_going:
            return Outcome.DESTROYED
        if close or (e in ARTILLERY or e is EType.MG):
            return Outcome.RECOIL
        return Outcome.NONE
    if t is EType.CAVALRY:
        if close and e in (EType.BARRAGE, EType.TANK):
            return Outcome.DESTROYED
        if close and f.contact_bad_going:
            return Outcome.DESTROYED
        if not close and e is EType.MG and f.loser_good_going:
            return Outcome.DESTROYED
        return Outcome.RECOIL
    if t in (EType.BALLOON, EType.FORWARD_OBSERVER):
        if close or e in ARTILLERY or e is EType.MG:
            return Outcome.DESTROYED
        return Outcome.RECOIL
    if t in (EType.FIGHTER, EType.SCOUT, EType.BOMBER):
        if close and (e is EType.BOMBER or e in FAST_AIR or e in ARTILLERY):
            return Outcome.DESTROYED
        if close or e is EType.AAA:
            return Outcome.FLEE
        return Outcome.RECOIL
    if t is EType.AIR_ACE:
        if close and (e is EType.AIR_ACE or e in ARTILLERY):
            return Outcome.DESTROYED
        if (close and e == BUNKER) or e is EType.AAA:
            return Outcome.FLEE
        return Outcome.RECOIL
    if t is EType.BARRAGE:
        return Outcome.TO_RESERVE if e is EType.BARRAGE else Outcome.NONE
    if t is EType.GAS:
        return Outcome.NONE
    if t is EType.SNIPER:
        return Outcome.TO_RESERVE if f.sniper_returns else Outcome.LOST_OFF
    if t is EType.MINEFIELD:
        return Outcome.TO_RESERVE
    return Outcome.RECOIL  # 14.4: no row fits -> HotT's recoil


def _foot_recoil(f: Fight) -> Outcome:
    """"Recoil from others in good going" (14.1); in bad going hold unless ``foot_bad_going="recoil"``
    (14.4). Trench infantry beaten by an Aerial or Barrage may choose Suppression (16.3)."""
    if not f.loser_good_going and f.foot_bad_going == "hold":
        return Outcome.NONE
    if f.in_trench and (f.enemy == EType.BARRAGE or (f.enemy != BUNKER and is_aerial(f.enemy))):
        return Outcome.RECOIL_OR_SUPPRESS
    return Outcome.RECOIL
