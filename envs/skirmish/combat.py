"""The pure parts of combat the engine calls (RULES.md §2.4, §3.3, §5.6, §6.2): the skill test, scatter and
opposed melee.

Nothing here holds game state. :func:`scatter` takes a ``draw: Callable[[], int]`` that returns the acting side's
next card (RULES.md §3.1: "Every draw for an action is made from the acting side's pack"); the caller's ``draw``
handles the Knave and reshuffles. The map is anything with the method of :class:`BoardLike`
(``envs/skirmish/board.py``'s ``Board``), so this module does not import the board.

The rest of combat is the engine's own, one function a rule: the number a card is drawn against
(``resolve.base_skill``, ``resolve.effective``), fire, bursts, throws, blasts, knives, melee, anti-tank and HE
fire, fire-fighting and rounds spent (``resolve.py``), the combat order (``flow._resolve_combat``) and burning
(``flow._end_turn``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from cardwar.envs.skirmish.cards import QUEEN, card_rank, is_picture, is_red, test_skill
from cardwar.envs.skirmish.weapons import METRES_PER_HEX

Draw = Callable[[], int]
"""Returns the next card of the acting side's pack."""


class BoardLike(Protocol):
    """What :func:`scatter` needs of a map (``board.Board`` provides it; tests use a small fake)."""

    def scatter_landing(self, target: int, direction: int, hexes: int, *,
                        open_doors: frozenset = ...) -> int | None: ...


# ---------------------------------------------------------------- skill draws (§2.4, §3.1)

def succeeds(effective: int, card: int) -> bool:
    """Whether ``card`` drawn against ``effective`` succeeds: "if it is equal or below the target number then
    the desired action is performed"; "drawing 10 is always a failure" (:func:`cards.test_skill`). An effective
    skill of 0 or less never succeeds (RULES.md §2.4); a picture card is a failure here (its optional rule,
    if on, is the caller's)."""
    return effective > 0 and test_skill(effective, card)


# ---------------------------------------------------------------- scatter (§6.2)

SCATTER_DIRECTION_RANKS = range(1, 7)
"""RULES.md §6.2: a direction card of 1 to 6 gives one of the six hex directions (1 east, 2 north-east,
3 north-west, 4 west, 5 south-west, 6 south-east, i.e. direction ``rank - 1``); 7 to 10 are drawn again."""


def scatter_direction(card: int) -> int | None:
    """The hex direction (0 E .. 5 SE) a direction card gives, or ``None`` if it must be drawn again."""
    rank = card_rank(card)
    return rank - 1 if rank in SCATTER_DIRECTION_RANKS else None


def scatter_hexes(metres: int) -> int:
    """A scatter distance in metres to hexes, "to the nearest, halves up: 1 m -> 0, 2-5 m -> 1, 6-9 m -> 2,
    10 m -> 3" (RULES.md §6.2)."""
    return (metres + METRES_PER_HEX // 2) // METRES_PER_HEX


@dataclass(frozen=True)
class ScatterResult:
    """Where a missed area weapon lands, and the cards that said so."""

    landing: int | None
    """The landing hex; ``None`` off the map (lost, no effect)."""
    direction_cards: tuple[int, ...]
    """Every direction card drawn, the redrawn ones first; the last one gave the direction."""
    distance_card: int
    """The distance card (its rank in metres)."""
    direction: int
    hexes: int
    redrawn_distance_cards: tuple[int, ...] = ()
    """Picture cards drawn for the distance and drawn again."""


def scatter(board: BoardLike, target: int, draw: Draw, *, open_doors: frozenset = frozenset()) -> ScatterResult:
    """Scatter a miss from ``target``.

    The seed: "Where one of these weapons misses an additional two cards are drawn. The first card indicates
    the direction (from the target) and the second the distance." "The second card simply represents the
    distance in metres." RULES.md §6.2: the direction card is drawn until it shows 1 to 6; the distance is
    :func:`scatter_hexes` of the second card; the landing is that many steps from the target
    (``board.scatter_landing``: off the map is ``None``; a head-high wall, building wall or closed door stops
    it at the hex before).

    Picture cards (in the pack only with an optional rule): drawn again, for the direction and for the
    distance alike (a Jack or King gives no direction 1-6 and no distance 1-10; RULES.md §3.3 redraws a Queen
    in a direction or distance draw)."""
    direction_cards: list[int] = []
    while True:
        card = draw()
        direction_cards.append(card)
        direction = None if is_picture(card) else scatter_direction(card)
        if direction is not None:
            break
    redrawn: list[int] = []
    distance_card = draw()
    while is_picture(distance_card):
        redrawn.append(distance_card)
        distance_card = draw()
    hexes = scatter_hexes(card_rank(distance_card))
    landing = target if hexes == 0 else board.scatter_landing(target, direction, hexes, open_doors=open_doors)
    return ScatterResult(landing, tuple(direction_cards), distance_card, direction, hexes, tuple(redrawn))


# ---------------------------------------------------------------- melee (§5.6)

def melee_opposed(att_skill: int, def_skill: int, att_card: int, def_card: int) -> tuple[bool, bool]:
    """``melee="opposed"``: "both draw against Melee; if one succeeds it wounds the other; if both succeed the
    lower card wounds the other (equal cards: both wounded); both fail: nothing" (RULES.md §5.6).

    Returns ``(attacker_wounded, defender_wounded)``; cards compare by rank ("Aces are low and low is
    good!").

    Lady Luck (RULES.md §3.3) applies to the attacker's card only: a red Queen succeeds whatever the skill and
    compares as an Ace ("as if an Ace"); a black Queen is the caller's mishap (it never gets here). The
    defender's Queen, like any picture card, is a failed card."""
    lucky = card_rank(att_card) == QUEEN and is_red(att_card)
    att_ok, def_ok = lucky or succeeds(att_skill, att_card), succeeds(def_skill, def_card)
    if att_ok and def_ok:
        a, d = 1 if lucky else card_rank(att_card), card_rank(def_card)
        return (a >= d, d >= a)
    return (def_ok, att_ok)
