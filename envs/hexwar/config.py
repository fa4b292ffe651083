"""Rule options of the hex WW2 game; each is a reading of the seed (see RULES.md)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cardwar.envs.rule_options import check_options, options_from_dict

_CHOICES: dict[str, tuple[str, ...]] = {
    "cover_applies_to": ("infantry", "soft"),
    "los_blocked_by": ("any_unit", "enemy_units"),
    "edge_sight": ("either_side", "both_sides"),
    "open_terrain": ("clear", "no_cover"),
}


class HexConfigError(ValueError):
    """A rule option that does not exist or has a value it cannot take."""


@dataclass(frozen=True)
class HexConfig:
    """Rule options of the hex game."""

    hidden_units: bool = False
    """Optional rule 'Hidden Units': units marked hidden in the scenario start hidden."""

    joint_activation: bool = False
    """Optional rule 'Joint Activation': two friendly units in a hex may act together."""

    cover_applies_to: str = "infantry"
    """Terrain cover for "infantry" only (the seed's words) or all "soft" units (guns too)."""

    double_count: bool = False
    """Cover and evasive action are listed twice (as D3 modifiers and as hits removed);
    False: each counts once; True: each counts twice."""

    los_blocked_by: str = "any_unit"
    """Units between shooter and target block sight: "any_unit" (Sighting: "other units")
    or only "enemy_units" (Shooting: "enemy units")."""

    edge_sight: str = "either_side"
    """A line of sight running exactly along hex edges is clear if "either_side" is clear,
    or only if "both_sides" are."""

    smoke_blocks_sight: bool = False
    """Smoke gives cover to units in its hex; with True it also blocks lines of sight."""

    open_terrain: str = "clear"
    """Which hexes are "open terrain" - for stacking (two units), evasive action and smoke
    alike: "clear" hexes only (every terrain feature, hills, fords and bridges included, is a
    "terrain hex"), or "no_cover": also hills, fords and bridges (no cover for infantry)."""

    def __post_init__(self) -> None:
        check_options(self, "hexwar", _CHOICES, HexConfigError)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> HexConfig:
        """Build from a mapping; unknown keys are an error naming the known ones."""
        return options_from_dict(cls, options, "hexwar", HexConfigError)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
