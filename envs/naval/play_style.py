"""How ``cardwar play`` and ``cardwar replay`` present naval (the registry entry's ``extra["play_style"]``):
the captains' names, a person's board from their view, the result in words, and a turn's board with its first
action (after the mulligans)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def turn_starts(out: Callable[[str], None]) -> Callable[[Any], bool]:
    """A turn's board comes with its first action (after the mulligans), saying who goes first on turn 1."""
    seen: set[int] = set()

    def first_action(state: Any) -> bool:
        if state.phase.name != "ACTION" or state.turn in seen:
            return False
        seen.add(state.turn)
        if state.turn == 1:
            out(f"Captain {'AB'[state.first_player]} goes first")
        return True

    return first_action


def style() -> dict[str, Any]:
    """The fields of the game's :class:`cardwar.cli.play.PlayStyle` (the game imports nothing of the cli)."""
    from cardwar.envs.naval.render import render_view
    from cardwar.envs.naval.scoring import describe_result

    names = ("Captain A", "Captain B")
    return dict(
        seat_names=names, winner_names=names, json_names=("A", "B"), viewers={"captain_a": 0, "captain_b": 1},
        intro=lambda env, specs: [f"Hit the Deck!: Captain A = {specs[0]}, Captain B = {specs[1]}"],
        person_view=lambda env: render_view, describe=lambda detail, winner, state: describe_result(detail, winner),
        turn_starts=turn_starts, omniscient_move_lines=True)
