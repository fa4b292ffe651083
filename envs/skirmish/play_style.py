"""How ``cardwar play`` and ``cardwar replay`` present the skirmish (the registry entry's
``extra["play_style"]``): a person's board drawn from their side's view alone (RULES.md §9.2), the scenario's
lines, the result in words (RULES.md §10)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any


class _SeatOnly:
    """What a person at one seat of the skirmish has on the table: the public scenario (map, names, victory)
    and their own information view, nothing else (RULES.md §9.2). The text render asks it for the view."""

    def __init__(self, view: Any, scenario: Any) -> None:
        self.view, self.scenario = view, scenario

    def information_view(self, seat: int) -> Any:
        if seat != self.view.seat:
            raise ValueError("a person sees only their own side's view")
        return self.view


def _seat_board(view: Any, scenario: Any) -> str:
    """A seat's skirmish board from its view alone, without the step in front (the question under the board
    says it, :func:`cardwar.envs.skirmish.explain.decision_note`): so it is printed again only when something
    on it has changed, not at every small step of a declaration."""
    from cardwar.envs.skirmish.text import render_scene, scene

    calm = replace(view, step=None, unit=None, partial={})
    return render_scene(scene(_SeatOnly(calm, scenario), view.seat))


def person_view(env: Any) -> Callable[[Any], str]:
    """A person's skirmish board, drawn from their view alone (RULES.md §9.2)."""
    return lambda view: _seat_board(view, env.game.scenario)


def board(state: Any, viewer: Any) -> str:
    """The printout's board: a seat's as its person sees it (:func:`_seat_board`), else the env's text render."""
    from cardwar.envs.skirmish.text import render_text

    if viewer in (0, 1):
        return _seat_board(state.information_view(viewer), state.scenario)
    return render_text(state, viewer)


def describe(detail: dict | None, winner: int | None, state: Any) -> str:
    """The skirmish's result in words (RULES.md §10): the winner by side name, the turns, then the figures the
    scenario's victory counts (objective points held first for an objectives scenario), then casualty points."""
    if detail is None:
        return "game in progress"
    sides = tuple(state.scenario.sides) if state is not None else ("player_0", "player_1")
    who = "A draw" if winner is None else f"{sides[winner]} (player_{winner}) win"
    pts = detail.get("casualty_points") or [0, 0]
    parts = [f"casualty points scored {sides[0]} {pts[0]} - {sides[1]} {pts[1]}"]
    victory = getattr(getattr(state, "scenario", None), "victory", None)
    if getattr(victory, "kind", None) == "objectives":
        worth = {int(c): p for c, p in (victory.objectives or {}).items()}
        held = [sum(worth.get(int(c), 0) for c, side in (detail.get("objective_owner") or {}).items() if side == k)
                for k in (0, 1)]
        parts.insert(0, f"objective points {sides[0]} {held[0]} - {sides[1]} {held[1]}")
    return f"{who} after {detail.get('turns', '?')} turns ({', '.join(parts)})"


def intro(env: Any, specs: tuple[str, str]) -> list[str]:
    from cardwar.envs.skirmish.text import victory_text

    sc = env.game.scenario
    return [f"{sc.title or sc.name}: player_0 ({sc.sides[0]}) = {specs[0]}, player_1 ({sc.sides[1]}) = {specs[1]}",
            f"Sequence {env.config.sequence}; victory: {victory_text(sc)}; turn limit {sc.turn_limit}"]


def header(state: Any, viewer_name: str, record: Any) -> list[str]:
    """A replay's scenario lines."""
    import textwrap

    sc = state.scenario
    lines = [f"Scenario: {record.scenario or sc.name} - {sc.title or sc.name} "
             f"(player_0 {sc.sides[0]}, player_1 {sc.sides[1]})"]
    if sc.description:
        lines += textwrap.wrap(sc.description, 100, initial_indent="  ", subsequent_indent="  ")
    return lines


def style() -> dict[str, Any]:
    """The fields of the game's :class:`cardwar.cli.play.PlayStyle` (the game imports nothing of the cli)."""
    seats = ("player_0", "player_1")
    return dict(
        seat_names=seats, winner_names=seats, json_names=seats, viewers={"player_0": 0, "player_1": 1}, intro=intro,
        person_view=person_view, describe=describe, header=header, omniscient_move_lines=True, board=board)
