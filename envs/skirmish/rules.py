"""Rule options of the skirmish; each is a reading of the seeds (RULES.md §12)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cardwar.envs.rule_options import check_options, options_from_dict

_CHOICES: dict[str, tuple[str, ...]] = {
    "sequence": ("phases", "deck"),
    "opportunity_fire": ("interrupt", "after_move"),
    "rounds": ("ammunition", "draws"),
    "ammunition": ("tracked", "unlimited"),
    "melee": ("strike", "opposed"),
    "thrown_cover": ("hex", "none"),
    "skills": ("drawn", "generic"),
    "visibility": ("line_of_sight", "open"),
    "edge_sight": ("either_side", "both_sides"),
    "free_move": ("team", "figure"),
    "deck_cards": ("teams", "figures"),
}


class SkirmishRulesError(ValueError):
    """A rule option that does not exist or has a value it cannot take."""


@dataclass(frozen=True)
class SkirmishRules:
    """Rule options of the skirmish, defaults first (RULES.md §12)."""

    sequence: str = "phases"
    """Hit the Deck!'s Movement and Combat phases, or the WW2 seed's activation "deck" (§7)."""
    opportunity_fire: str = "interrupt"
    """Opportunity fire meets a mover tick by tick ("interrupt") or picks a hex of its path afterwards (§5.5)."""
    rounds: str = "ammunition"
    """Rounds per turn are ammunition spent by one draw ("ammunition") or one draw each ("draws") (§2.2)."""
    ammunition: str = "tracked"
    """Magazines, reserves and reloading ("tracked"), or none of it ("unlimited") (§2.2)."""
    auto_one_target: bool = False
    """Full-automatic fire at a single target: three draws at 0, -1, -2 (§5.4)."""
    melee: str = "strike"
    """One draw by the attacker ("strike") or both draw ("opposed") (§5.6)."""
    thrown_cover: str = "hex"
    """A grenade thrown at a hex deducts that hex's cover ("hex") or nothing ("none") (§6.1)."""
    prone_cover: bool = False
    """A prone figure has light cover against fire from more than 2 hexes (§2.1)."""
    skills: str = "drawn"
    """Skills drawn by the seed's procedure ("drawn") or the generic number of the quality (§2.1)."""
    visibility: str = "line_of_sight"
    """A side sees only enemies in its figures' sight ("line_of_sight") or every figure ("open") (§1.4)."""
    edge_sight: str = "either_side"
    """A sight line along hex edges is clear if "either_side" is, or only if "both_sides" are (§1.4)."""
    reveal_destinations: bool = False
    """The reveal shows the enemy each seen mover's mode only (HtD declares a "Movement Mode"), or its declared
    destination too (§9.1)."""
    free_move: str = "team"
    """A Free Move card activates a fire team of the side's choice ("team") or one figure ("figure") (§7.2)."""
    deck_cards: str = "teams"
    """Activation deck: 3 cards a fire team and a Free Move per team ("teams"), or 2-3 per figure (§7.2);
    "figures" replaces a scenario's own deck too."""
    deck_opportunity_fire: bool = False
    """In the deck sequence, a figure may spend its activity watching, to fire at a mover later (§7.2)."""
    knave_events: bool = False
    """Jacks in the packs: the Knave's events (§3.2)."""
    lady_luck: bool = False
    """Queens in the packs: Lady Luck on skill draws (§3.3)."""
    king_and_country: bool = False
    """Kings in the packs, kept for a courageous act (§3.4)."""

    def __post_init__(self) -> None:
        check_options(self, "skirmish", _CHOICES, SkirmishRulesError)

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> SkirmishRules:
        """Build from a mapping; unknown keys are an error naming the known ones."""
        return options_from_dict(cls, options, "skirmish", SkirmishRulesError)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
