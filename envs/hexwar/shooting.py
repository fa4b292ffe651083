"""Effects of shooting: the D3 and its modifiers (seed, "Assess the effects of shooting").

"Units roll a D3 and modify the score" - the modified score is the number of hits,
never below zero.
"""

from __future__ import annotations

from cardwar.envs.hexwar.units import STATS, FireClass, TargetClass, UnitType

D3_FACES = (1, 1, 2, 2, 3, 3)
"""'a D3 dice (1,1,2,2,3,3)'."""


def type_modifier(shooter: UnitType, target: UnitType) -> int:
    """The modifiers that depend on who shoots at whom."""
    fire, tgt = STATS[shooter].fire, STATS[target].target
    m = 0
    if fire == FireClass.INFANTRY and tgt == TargetClass.ARMOUR:
        m -= 1  # "-1 for infantry and A/Cars shooting armoured (tanks/SPG) units"
    if fire == FireClass.ANTI_TANK and tgt == TargetClass.INFANTRY:
        m -= 1  # "-1 for AT or SPG units shooting at infantry units (all types)"
    if fire in (FireClass.ANTI_TANK, FireClass.TANK) and tgt == TargetClass.ARMOUR:
        m += 1  # "+1 for AT, tank, or SPG units shooting at armoured (tanks/SPG) units"
    if fire == FireClass.INDIRECT and tgt == TargetClass.INFANTRY:
        m += 1  # "+1 for mortars and artillery shooting at infantry units (all types)"
    return m


def shot_modifier(shooter: UnitType, target: UnitType, distance: int, cover: bool, evading: bool,
                  double_count: bool = False) -> int:
    """The total modifier to the D3 roll of one shot.

    "-1 if target can take evasive action", "-1 if target is in cover", "-1 if the target
    is at long range 2 hexes (this does not apply to artillery and mortars)". With
    ``double_count`` cover and evasive action also take one more hit off (the Cover
    section's "-1 from the registered hits").
    """
    m = type_modifier(shooter, target)
    per = 2 if double_count else 1
    if evading:
        m -= per
    if cover:
        m -= per
    if distance >= 2 and STATS[shooter].fire != FireClass.INDIRECT:
        m -= 1
    return m


def hits_from(roll: int, modifier: int) -> int:
    """Hits registered by a modified roll (never negative)."""
    return max(0, roll + modifier)
