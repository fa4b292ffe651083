"""Pure combat resolution (RULES.md §2.4, §5, §6, §8.4): effective skills, full-auto bursts, scatter, blasts,
melee, fire and HE.

Nothing here holds game state. A function takes the cards already drawn, or a ``draw: Callable[[], int]``
that returns the acting side's next card (RULES.md §3.1: "Every draw for an action is made from the acting
side's pack"); the caller's ``draw`` handles the Knave and reshuffles. The map is anything with the methods of
:class:`BoardLike` (``envs/skirmish/board.py``'s ``Board``), so this module does not import the board.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol, TypeVar

from cardwar.envs.skirmish.cards import QUEEN, card_rank, is_picture, is_red, test_skill
from cardwar.envs.skirmish.figures import halve
from cardwar.envs.skirmish.weapons import (
    AT_WEAPONS, FIREARMS, FIRE_WOUND_EVERY, FULL_AUTO_MAX_TARGETS, FULL_AUTO_PENALTY, FULL_AUTO_ROUNDS, HIGH_EXPLOSIVE,
    METRES_PER_HEX, AntiTank, HighExplosive,
)

Draw = Callable[[], int]
"""Returns the next card of the acting side's pack."""


class BoardLike(Protocol):
    """What combat needs of a map (``board.Board`` provides it; tests use a small fake)."""

    def neighbours(self, cell: int) -> tuple[int, ...]: ...

    def distance(self, a: int, b: int) -> int: ...

    def step(self, cell: int, direction: int) -> int | None: ...

    def sees(self, a: int, b: int, *, blockers: frozenset[int] = ..., open_doors: frozenset = ...,
             edge_sight: str = ...) -> bool: ...

    def hex_cover(self, cell: int) -> int: ...

    def cover(self, target: int, firer: int, *, open_doors: frozenset = ...) -> int: ...

    def blast(self, landing: int, radius: int, *, open_doors: frozenset = ...) -> tuple[int, ...]: ...

    def scatter_landing(self, target: int, direction: int, hexes: int, *,
                        open_doors: frozenset = ...) -> int | None: ...


# ---------------------------------------------------------------- skill draws (§2.4, §3.1)

def effective_skill(base: int, *, wounded: bool, ran: bool = False, cover: int = 0, penalty: int = 0) -> int:
    """The number a card is drawn against.

    RULES.md §2.4: "Order of modifiers: halvings first (wound, then running), each rounding up, then the
    subtractions (cover, full-auto penalty). A wounded runner with shoot 7 fires at 7 -> 4 -> 2." The seed:
    "One wound - all skills halved (rounding up)", Run "Fire skill halved", "An allowance for cover should be
    deducted from the firer's skill number". ``base`` is the figure's *unwounded* skill (``Figure.skills``,
    not ``Figure.skill()``, which already halves). May be 0 or negative: such a number never succeeds."""
    value = base
    if wounded:
        value = halve(value)
    if ran:
        value = halve(value)
    return value - cover - penalty


def succeeds(effective: int, card: int) -> bool:
    """Whether ``card`` drawn against ``effective`` succeeds: "if it is equal or below the target number then
    the desired action is performed"; "drawing 10 is always a failure" (:func:`cards.test_skill`). An effective
    skill of 0 or less never succeeds (RULES.md §2.4); a picture card is a failure here (its optional rule,
    if on, is the caller's)."""
    return effective > 0 and test_skill(effective, card)


def rounds_used(weapon: str, *, full_auto: bool = False) -> int:
    """Rounds one fire takes from the magazine (RULES.md §2.2, ``rounds="ammunition"``): the weapon's rounds per
    turn; "Automatic fire expends three times the number of rounds as normal fire"."""
    rounds = FIREARMS[weapon].rounds_per_turn
    return rounds * FULL_AUTO_ROUNDS if full_auto else rounds


KNIFE_RANGE = 2
"""RULES.md §5.3: "A knife (range: the seed gives none; *reading:* 2 hexes, 1 when prone or crawling, "Thrown
weapons ranges halved")"."""


def knife_range(prone_or_crawling: bool) -> int:
    """A thrown knife's range in hexes (:data:`KNIFE_RANGE`, halved when prone or crawling)."""
    return KNIFE_RANGE // 2 if prone_or_crawling else KNIFE_RANGE


K = TypeVar("K", bound=Hashable)


def combat_order(actions: Mapping[K, tuple[int, int | None]]) -> list[list[K]]:
    """The combat phase's order (RULES.md §5.7): ``{action: (effective skill, card or None)}`` -> groups that
    resolve at the same instant, first group first.

    The seed: "Where order of firing is significant this is determined by Skill number - highest first. In the
    event of tied Skill numbers the lowest card drawn occurs first." Same skill and same card rank: one group
    ("at the same instant"). Actions with no draw (``card`` None: reload, work, nothing) come last, together."""
    drawn = sorted((k for k, (_, card) in actions.items() if card is not None),
                   key=lambda k: (-actions[k][0], card_rank(actions[k][1])))  # type: ignore[arg-type]
    groups: list[list[K]] = []
    last = None
    for k in drawn:
        key = (actions[k][0], card_rank(actions[k][1]))  # type: ignore[arg-type]
        if groups and key == last:
            groups[-1].append(k)
        else:
            groups.append([k])
        last = key
    rest = [k for k, (_, card) in actions.items() if card is None]
    return groups + ([rest] if rest else [])


# ---------------------------------------------------------------- full automatic (§5.4)

def burst_slots(board: BoardLike, firer: int, targets: Sequence[int], *,
                one_target: bool = False) -> list[int | None] | None:
    """The slots of a full-auto burst, in order, or ``None`` if the chain is not allowed.

    The seed: "Up to three targets may be engaged but they must be adjacent. Adjacent means within 4m (2
    inches). Two targets within 8m may be engaged, this is achieved by carrying out the procedure as if there
    were another target between them (those shots are used but miss!)". RULES.md §5.4: 2 or 3 target cells in
    order, each adjacent (1 hex) to the one before; two targets 2 hexes apart give ``[a, None, b]`` (``None``
    is the phantom middle target: no draw, the far target is third at -2). Slot ``i`` draws at
    ``FULL_AUTO_PENALTY[i]`` (0, 1, 2) less its target's cover. ``one_target`` (option ``auto_one_target``)
    allows one target, engaged three times: ``[a, a, a]``. Sight and range are the caller's (they depend on
    the weapon and the board's openings); the firer's own hex is never a target."""
    targets = list(targets)
    if firer in targets or len(set(targets)) != len(targets):
        return None
    if len(targets) == 1:
        return [targets[0]] * FULL_AUTO_MAX_TARGETS if one_target else None
    if len(targets) == 2:
        gap = board.distance(targets[0], targets[1])
        if gap == 1:
            return [targets[0], targets[1]]
        if gap == 2:
            return [targets[0], None, targets[1]]
        return None
    if len(targets) == 3:
        if board.distance(targets[0], targets[1]) == 1 and board.distance(targets[1], targets[2]) == 1:
            return list(targets)
        return None
    return None


def burst_penalty(slot: int) -> int:
    """"The Fire skill number is as normal for the first target, but is reduced by 1 for the second target,
    and reduced by 2 for the third target"."""
    return FULL_AUTO_PENALTY[slot]


# ---------------------------------------------------------------- scatter and blast (§6.2, §6.3)

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


def blast(board: BoardLike, landing: int | None, radius: int, figures: Mapping[int, int], draw: Draw, *,
          open_doors: frozenset = frozenset()) -> dict[int, int]:
    """One colour card for every figure in the blast: ``{figure id: card}``.

    The seed: "Red card - wound", "Black card - no effect" (grenade), "Red card - on fire" (petrol bomb), HE
    "As grenade". RULES.md §6.3: every figure within the radius of the landing hex that is in line of sight
    of it (``board.blast``) gets one effect draw, friends, the thrower and incapacitated figures included;
    cover does not change the effect. ``figures`` maps an id to its hex; unarmoured vehicles may be put in the
    same mapping under ids of their own (red: 1 damage point, §6.3, 8.2). Draws are made in id order. A
    landing of ``None`` (off the map) touches no one."""
    if landing is None:
        return {}
    cells = set(board.blast(landing, radius, open_doors=open_doors))
    return {fid: draw() for fid in sorted(figures) if figures[fid] in cells}


def blast_wounds(card: int) -> bool:
    """"Red card - wound" / "Red card - on fire"; "Black card - no effect"."""
    return is_red(card)


@dataclass(frozen=True)
class AreaResult:
    """A thrown grenade or petrol bomb, or an HE round: where it landed and the effect cards."""

    hit: bool
    """The skill card succeeded: it lands on the point of aim."""
    landing: int | None
    scatter: ScatterResult | None
    effects: dict[int, int]
    """``{figure id: colour card}`` (:func:`blast`)."""


def area_attack(board: BoardLike, aim: int, effective: int, card: int, radius: int, figures: Mapping[int, int],
                draw: Draw, *, open_doors: frozenset = frozenset()) -> AreaResult:
    """A grenade, petrol bomb or HE round after its skill card ``card`` (RULES.md §6.1, §8.4): "Success: it
    lands on the target hex. Failure: it scatters (6.2)", then the blast (6.3). ``effective`` is the Throw or
    Shoot number with its deductions already made (§6.1 ``thrown_cover``; HE has none)."""
    if succeeds(effective, card):
        return AreaResult(True, aim, None, blast(board, aim, radius, figures, draw, open_doors=open_doors))
    result = scatter(board, aim, draw, open_doors=open_doors)
    return AreaResult(False, result.landing, result,
                      blast(board, result.landing, radius, figures, draw, open_doors=open_doors))


# ---------------------------------------------------------------- melee (§5.6)

def melee_strike(att_skill: int, att_card: int) -> bool:
    """``melee="strike"`` (default): "a figure may attack an enemy figure in an adjacent hex ... drawing
    against its Melee skill; success wounds" (RULES.md §5.6). ``att_skill`` is the effective Melee (halved by
    a wound; running does not halve Melee; no cover). Returns whether the defender is wounded."""
    return succeeds(att_skill, att_card)


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


# ---------------------------------------------------------------- fire (§6.4)

def fire_wound_due(ends_of_turn: int) -> bool:
    """Whether a burning figure takes its wound at this end of turn.

    The seed: "Red card - on fire (1 wound / 2 rounds if not extinguished*)". RULES.md §6.4: "A burning
    figure takes 1 wound at the end of every second turn it burns (the second end of turn after it caught
    fire, then the fourth, ...)". ``ends_of_turn`` counts the ends of turn reached while burning, this one
    included (1 at the first end of turn after catching fire)."""
    return ends_of_turn > 0 and ends_of_turn % FIRE_WOUND_EVERY == 0


def extinguished(card: int) -> bool:
    """"To extinguish draw a card for each attempt (1 per round per character attempting) - if black fire is
    put out." (RULES.md §6.4; colour only, picture cards included.)"""
    return not is_red(card)


@dataclass
class Burning:
    """A figure on fire: counts the ends of turn it has burnt through (RULES.md §6.4)."""

    ends_of_turn: int = 0

    def end_turn(self) -> bool:
        """Another end of turn while burning; returns whether a wound is due now (:func:`fire_wound_due`)."""
        self.ends_of_turn += 1
        return fire_wound_due(self.ends_of_turn)


# ---------------------------------------------------------------- HE (§8.4)

MORTARS: dict[str, AntiTank] = {"light_mortar": AntiTank.L, "medium_mortar": AntiTank.M}
"""Mortars by key and HE category: "| L | 10m | As grenade | Light Mortar |", "| M | 15m | Ditto | Med.
Mortar / Light Gun |"."""

HE_WEAPONS: dict[str, AntiTank] = {**AT_WEAPONS, **MORTARS}
"""Every weapon that fires HE and its category. RULES.md §8.4: "the anti-tank weapons of 8.3 and mortars (and
tank guns); each fires HE of its own category (its AT category: Panzerfaust L, bazooka, Panzerschreck and 37mm
PAK M, 75mm PAK H; light mortar L, medium mortar M)". A tank's main gun is an AT weapon key."""


def he_round(weapon: str) -> HighExplosive | None:
    """The HE a weapon fires (its category and blast radius: L 2, M 3, H 5 hexes), or ``None`` if none."""
    category = HE_WEAPONS.get(weapon)
    return HIGH_EXPLOSIVE[category] if category is not None else None


def he_radius(weapon: str) -> int:
    """Blast radius in hexes of ``weapon``'s HE; KeyError if it fires none."""
    he = he_round(weapon)
    if he is None:
        raise KeyError(f"{weapon!r} fires no HE: one of {', '.join(sorted(HE_WEAPONS))}")
    return he.radius_hexes


def is_mortar(weapon: str) -> bool:
    """RULES.md §8.4: "direct-fire guns need sight of the aim hex; mortars need it seen by the mortar or by any
    friendly figure (a spotter)"."""
    return weapon in MORTARS
