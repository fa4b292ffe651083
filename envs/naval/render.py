"""Text pictures of the Seemap and public narration of moves.

Everything here is drawn from an information view, so a picture or a log line
shows a seat (or a spectator) nothing it may not know. ``omniscient`` pictures,
for debugging only, add both hands from the full state.
"""

from __future__ import annotations

from cardwar.envs.naval.actions import DECODED, ActionKind
from cardwar.envs.naval.cards import card_suit, card_to_str, cards_to_str
from cardwar.envs.naval.scoring import describe_result
from cardwar.envs.naval.seemap import CAPTAIN_NAMES, zone_letter
from cardwar.envs.naval.state import NavalState, Phase
from cardwar.envs.naval.view import NavalView

_PHASE_WORDS = {Phase.MULLIGAN: "mulligan decision", Phase.ACTION: "action", Phase.DEFEND: "defence",
                Phase.ROYAL_FLUSH: "High Royal Flush: choose a ship to sink", Phase.GAME_OVER: "game over"}


def _cell(v: NavalView, z: int) -> str:
    o = v.board_owner[z]
    ship = f"{CAPTAIN_NAMES[o]}:{card_to_str(v.board_card[z]):>3}" if o >= 0 else "  .  "
    return f"{zone_letter(z)} [{ship}]"


def discard_line(discards: tuple[int, ...] | list[int]) -> str:
    """The discard pile, face up and public (Post-Battle Cleanup), by suit (clubs, diamonds,
    hearts, spades) and rank, so a player can count what is gone."""
    if not discards:
        return "none"
    by_suit: dict[int, list[int]] = {}
    for c in sorted(discards):
        by_suit.setdefault(card_suit(c), []).append(c)
    return " | ".join(cards_to_str(cs) for _, cs in sorted(by_suit.items()))


def render_view(v: NavalView, hands: tuple[list[int], list[int]] | None = None) -> str:
    """The board as ``v.seat`` sees it; ``hands`` (omniscient debugging) shows both hands."""
    def hand_line(p: int) -> str:
        if hands is not None:
            return cards_to_str(sorted(hands[p]))
        if v.seat == p:
            return cards_to_str(sorted(v.hand))
        return f"{v.hand_counts[p]} cards (hidden)"

    if v.phase == Phase.MULLIGAN:
        header = "Setup: mulligan decisions (who moves first is chosen afterwards)"
    else:
        header = f"Turn {v.turn}  Captain {CAPTAIN_NAMES[v.active]}'s turn, action {min(v.actions_taken + 1, 2)}/2"
    lines = [f"{header}  |  deck {v.deck_count}  discards {len(v.discards)}"]
    lines.append(f"  Captain A  hand: {hand_line(0)}")
    for row in (2, 1, 0):
        lines.append("    " + "  ".join(_cell(v, row * 3 + c) for c in range(3)))
    lines.append(f"  Captain B  hand: {hand_line(1)}")
    lines.append(f"  Discards: {discard_line(v.discards)}")
    if v.pending is not None:
        p = v.pending
        extra = " + a face-down card drawn from the deck" if p.deck_card_drawn else ""
        own = f" (your card {card_to_str(p.own_card)})" if p.own_card >= 0 else ""
        lines.append(f"  Pending: Captain {CAPTAIN_NAMES[p.attacker]} {p.style.name.lower()} attack "
                     f"{zone_letter(p.src)}>{zone_letter(p.dst)} with a face-down card{own}{extra}")
    if v.phase == Phase.GAME_OVER:
        lines.append("  " + describe_result(v.result, v.winner))
    else:
        lines.append(f"  Waiting for Captain {CAPTAIN_NAMES[v.current]}: {_PHASE_WORDS[v.phase]}")
    return "\n".join(lines)


def render_state(s: NavalState, viewer: int | None | str = None) -> str:
    """Board text for a seat (0/1), a spectator (None) or ``"omniscient"`` (both hands)."""
    if viewer == "omniscient":
        return render_view(s.information_view(None), hands=(s.hands[0], s.hands[1]))
    return render_view(s.information_view(viewer))  # type: ignore[arg-type]


def narrate(before: NavalState, action: int, after: NavalState) -> list[str]:
    """Public log lines for ``action`` played in ``before`` leading to ``after``.

    Face-down cards and mulligan choices are not named until they are revealed.
    """
    a = DECODED[action]
    who = f"Captain {CAPTAIN_NAMES[before.current]}"
    lines: list[str] = []
    if a.kind == ActionKind.DEPLOY:
        lines.append(f"{who} deploys {card_to_str(a.card)} at {zone_letter(a.zone)}")
    elif a.kind == ActionKind.ATTACK:
        lines.append(f"{who} makes a {a.style.name.lower()} attack {zone_letter(a.src)}>{zone_letter(a.dst)} "
                     "with a face-down card")
    elif a.kind in (ActionKind.DEFEND, ActionKind.NODEFEND):
        lines.append(f"{who} " + ("adds a face-down defending card" if a.kind == ActionKind.DEFEND
                                  else "adds no defending card"))
    elif a.kind == ActionKind.SINK:
        lines.append(f"{who} uses the High Royal Flush to sink the ship at {zone_letter(a.zone)}")
    elif a.kind == ActionKind.PASS:
        lines.append(f"{who} passes")
    else:
        lines.append(f"{who} has made a mulligan decision")
    if after.last_battle is not None and after.last_battle is not before.last_battle and \
            a.kind in (ActionKind.DEFEND, ActionKind.NODEFEND):
        b = after.last_battle
        w = "attacker" if b.attacker_won else "defender"
        lines.append(f"  Sea Battle: {cards_to_str(b.attack_hand)} ({b.attack_category.name.replace('_', ' ').lower()})"
                     f" vs {cards_to_str(b.defence_hand)} ({b.defence_category.name.replace('_', ' ').lower()}):"
                     f" the {w} wins")
        if b.destroyed:
            lines.append("  Sunk: " + ", ".join(f"{card_to_str(c)} at {zone_letter(z)}" for z, c in b.destroyed))
    if before.phase == Phase.MULLIGAN and after.phase != Phase.MULLIGAN:
        choices = ", ".join(f"{CAPTAIN_NAMES[p]} {'redrew' if after.mulligan_choices[p] else 'kept'}"
                            for p in (0, 1))
        shown = f"; shown and reshuffled: {cards_to_str(after.mulligan_shown)}" if after.mulligan_shown else ""
        lines.append(f"  Mulligans: {choices}{shown}")
    if after.is_terminal():
        lines.append("  " + describe_result(after.result, after.winner))
    return lines
