"""Rule options of Hit the Deck! (naval). Every field is one reading of the seed.

The defaults are the readings argued for in ``envs/naval/RULES.md``; each
alternative is the other serious reading of the same passage.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from cardwar.envs.rule_options import check_options, options_from_dict

_CHOICES: dict[str, tuple[str, ...]] = {
    "supply_cut": ("broadside", "always"),
    "sealane_control": ("enemy_seaport", "majority"),
    "deck_out": ("end_of_turn", "immediate"),
    "broadside_empty_deck": ("forbidden", "two_cards"),
    "royal_flush": ("loser_and_adjacent", "any_pair", "winner_adjacent", "off"),
    "bastion": ("ramming", "any_attack"),
    "blockade": ("seaports", "all_zones"),
    "first_player": ("random", "A", "B"),
}


class ConfigError(ValueError):
    """A rule option that does not exist or has a value it cannot take."""


@dataclass(frozen=True)
class NavalConfig:
    """Rule options; see RULES.md for the seed text behind each one."""

    supply_cut: str = "broadside"
    """"broadside": only a successful Broadside Attack cuts the supply of the ships
    further forward (Results of Combat); "always": every destroyed ship does
    (Terminology, "Cutting Supply Routes")."""

    sealane_control: str = "enemy_seaport"
    """At deck exhaustion a Sealane counts for a captain when "enemy_seaport": their
    ship holds the enemy Seaport of that lane; "majority": they have more ships in it."""

    deck_out: str = "end_of_turn"
    """"end_of_turn": the game ends when a turn ends with the deck empty;
    "immediate": as soon as the deck is empty (after a battle resolves)."""

    broadside_empty_deck: str = "forbidden"
    """With an empty deck a Broadside is "forbidden", or fought with "two_cards"."""

    royal_flush: str = "loser_and_adjacent"
    """High Royal Flush winner destroys "loser_and_adjacent": the losing ship and
    one enemy ship next to it; "any_pair": any two adjacent enemy ships, or
    "winner_adjacent": up to two enemy ships next to the winning ship, instead of
    the normal result; "off": no extra effect."""

    royal_flush_defender: bool = True
    """Whether a defender winning with a High Royal Flush also gets the double kill
    (the seed says "A Captain winning a battle")."""

    bastion: str = "ramming"
    """Bastion Defence (a neighbouring ship joins the defence) against "ramming" only
    (the Ramming table), or against "any_attack" on a Seaport (the glossary)."""

    blockade: str = "seaports"
    """Blockade Victory by holding the three enemy "seaports", or "all_zones": all nine."""

    alternate_win: bool = False
    """The seed's Alternate Win Condition: after Sealanes, most Seazones controlled
    breaks the tie before cards in hand."""

    mulligan: bool = True
    """Setup step 3: each captain may once discard the 7 cards and draw 7 new."""

    first_player: str = "random"
    """Who takes the first turn: "random" (seeded), "A" or "B"."""

    hand_size: int = 7
    """Cards drawn by each captain at setup (at most 13, so that both can mulligan)."""

    def __post_init__(self) -> None:
        check_options(self, "naval", _CHOICES, ConfigError)
        if not isinstance(self.hand_size, int) or isinstance(self.hand_size, bool) or not 1 <= self.hand_size <= 13:
            raise ConfigError(f"naval rule option hand_size must be an integer 1..13, got {self.hand_size!r}")

    @classmethod
    def from_dict(cls, options: dict[str, Any] | None) -> NavalConfig:
        """Build from a mapping; unknown keys are a :class:`ConfigError` naming the known ones."""
        return options_from_dict(cls, options, "naval", ConfigError)

    def to_dict(self) -> dict[str, Any]:
        """Plain mapping of every option."""
        return asdict(self)
