"""How ``cardwar play`` and ``cardwar replay`` present the hex game (the registry entry's ``extra["play_style"]``):
the scenario's title and description (a procedural map with hidden units never shows its generator seed), a
person's board from their view, the result in words."""

from __future__ import annotations

from typing import Any


def intro(env: Any, specs: tuple[str, str]) -> list[str]:
    from cardwar.envs.hexwar.view import public_map

    shown = public_map(env.scenario)  # a procedural map with hidden units does not show its generator seed
    return [f"{shown.title}: blue = {specs[0]}, red = {specs[1]}"] + ([shown.description] if shown.description else [])


def header(state: Any, viewer_name: str, record: Any) -> list[str]:
    """A replay's scenario lines."""
    import textwrap

    from cardwar.envs.hexwar.view import public_map

    sc = state.scenario
    shown = sc if viewer_name == "omniscient" else public_map(sc)  # no generator seed of a hidden-unit map
    lines = [f"Scenario: {record.scenario or 'meeting_engagement'} - {shown.title}"]
    if shown.description:
        lines += textwrap.wrap(shown.description, 100, initial_indent="  ", subsequent_indent="  ")
    return lines


def style() -> dict[str, Any]:
    """The fields of the game's :class:`cardwar.cli.play.PlayStyle` (the game imports nothing of the cli)."""
    from cardwar.envs.hexwar.text import describe_result
    from cardwar.envs.hexwar.text import render_view as hex_view_text

    return dict(
        seat_names=("blue", "red"), winner_names=("Blue", "Red"), json_names=("blue", "red"),
        viewers={"blue": 0, "red": 1}, intro=intro,
        person_view=lambda env: (lambda v: hex_view_text(v, env.scenario)),
        describe=lambda detail, winner, state: describe_result(detail, winner), header=header)
