"""Rule options of Tank Attack; each is a reading of the seed (RULES.md section 22, default first)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cardwar.envs.rule_options import check_options, options_from_dict

_CHOICES: dict[str, tuple[Any, ...]] = {
    "trench_occupant": ("good", "bad"),
    "foot_bad_going": ("hold", "recoil"),
    "shooting_bounds": ("both", "active"),
    "arc": ("cone", "box"),
    "going": ("worst", "per_cell"),
    "lifted_barrage": ("reserve", "gone"),
    "aerial_contact_cells": (1, 0),
    "bomber_deploy_pips": (1, 6),
    "general_loss": ("pips", "hott"),
    "turn_limit_result": ("defender", "draw"),
    "deployment": ("scenario", "players"),
}


class TankAttackRulesError(ValueError):
    """A rule option that does not exist or has a value it cannot take."""


@dataclass(frozen=True)
class TankAttackRules:
    """Rule options (RULES.md 22), each built: an option the engine did not play would be refused, never
    accepted without effect."""

    sturm_trench_penalty: bool = False
    """13.1: Sturmtruppe take the -2 "Close Attack on Trench"."""
    tank_trench_penalty: bool = False
    """13.1: Tanks take "Mounted near Bad Going" -2 against trench occupants."""
    trench_occupant: str = "good"
    """16.1: "bad" puts occupants in bad going for their own outcome rows too."""
    trench_factor_target: bool = False
    """13.1: the -2 for fire on a trench lowers the occupant instead of the shooter."""
    foot_bad_going: str = "hold"
    """14.4: beaten Rifles and Sturmtruppe in bad going hold ("hold") or recoil ("recoil")."""
    shooting_bounds: str = "both"
    """11.1: both sides shoot in step 4, or only the "active" player's elements."""
    arc: str = "cone"
    """11.2: the shooting arc is a 90-degree "cone" or a three-cell-wide "box"."""
    going: str = "worst"
    """8.2: a move's allowance is set by its worst going, or each step costs "per_cell"."""
    lifted_barrage: str = "reserve"
    """9.2: a counter-batteried or beaten Barrage returns to reserve, or is "gone"."""
    gas_hits_both: bool = False
    """9.4: Gas fights any ground element its front touches."""
    sniper_returns: bool = False
    """9.6: a beaten Sniper returns to reserve like a Minefield."""
    aerial_contact_cells: int = 1
    """10: the free aerial contact's reach in cells (0: none)."""
    bomber_deploy_pips: int = 1
    """7.2: PIPs to bring a Bomber on."""
    general_loss: str = "pips"
    """17.3: a Lost General costs PIPs ("pips") or also ends the game as in HotT ("hott")."""
    turn_limit_result: str = "defender"
    """17.3: at the turn limit the defender wins, or it is a "draw"."""
    deployment: str = "scenario"
    """5: the scenario places both armies, or the "players" do in a set-up phase (``setup.py``)."""

    def __post_init__(self) -> None:
        check_options(self, "tankattack", _CHOICES, TankAttackRulesError)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> TankAttackRules:
        """Build from a mapping; unknown keys are an error naming the known ones."""
        return options_from_dict(cls, options, "tankattack", TankAttackRulesError)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
