"""The skirmish's action ids and decision kinds (RULES.md §9.1).

Every decision is factored into small steps, each answered by one id of a single flat space: ids
``0 .. N_CELLS-1`` name a hex (a destination, a target, the figure to activate), the ids after them
name a choice (a movement mode, a stance, an action, ``done``, ``hold``, a speed, a fire team). Which
ids are legal at a step is the step's mask.
"""

from __future__ import annotations

from enum import IntEnum

from cardwar.envs.hexmap.cells import CellGrid

WIDTH, HEIGHT = 24, 16
N_CELLS = WIDTH * HEIGHT
GRID = CellGrid(WIDTH, HEIGHT)

CHOICES: tuple[str, ...] = (
    # movement modes (§4.1); "move" is the deck sequence's movement activity (§7.2)
    "stay", "crawl", "search", "walk", "run", "move", "all_out_run",
    # stances (§2.3)
    "prone", "kneeling", "standing",
    # opportunity fire (§5.5): declare a watch or not
    "watch", "no_watch",
    # combat actions (§5.7) and deck activities (§7.2)
    "nothing", "fire", "burst", "grenade", "petrol_bomb", "knife", "melee", "reload", "clear_jam", "work",
    "extinguish", "anti_tank", "he",
    # control; "king": play a King on this figure for a courageous act (§3.4)
    "done", "hold", "king",
    # vehicle speeds (§8.1)
    "speed_0", "speed_1", "speed_2", "speed_3",
    # fire teams, for a Free Move card (§7.2)
    "team_0", "team_1", "team_2", "team_3",
)
CHOICE: dict[str, int] = {name: N_CELLS + i for i, name in enumerate(CHOICES)}
"""Action id of each named choice."""
N_ACTIONS = N_CELLS + len(CHOICES)

MODES = ("stay", "crawl", "search", "walk", "run")
STANCES = ("prone", "kneeling", "standing")
COMBAT_ACTIONS = ("nothing", "fire", "burst", "grenade", "petrol_bomb", "knife", "melee", "reload", "clear_jam",
                  "work", "extinguish", "anti_tank", "he")
TARGETED = {"fire", "burst", "grenade", "petrol_bomb", "knife", "melee", "anti_tank", "he", "extinguish"}
"""Actions followed by a target hex."""


class Step(IntEnum):
    """What the seat to move is asked."""

    MODE = 0         # a figure's movement mode, or stay (phases); a vehicle: its speed
    DESTINATION = 1  # where it moves (a hex)
    STANCE = 2       # the stance it ends in
    WATCH = 3        # a figure that stays: opportunity fire or not
    ACTION = 4       # a combat action (phases) or an activity (deck)
    TARGET = 5       # the action's target hex; a burst's later targets, or done
    INTERRUPT = 6    # opportunity fire during movement: a mover's hex, or hold
    ACTIVATE = 7     # deck: which figure of the activated team acts next (its hex), or done
    TEAM = 8         # deck, Free Move: which fire team


STEP_NAMES = tuple(s.name.lower() for s in Step)


def action_name(action: int) -> str:
    """A readable name: a hex label or the choice's name."""
    if 0 <= action < N_CELLS:
        return GRID.label(action)
    if N_CELLS <= action < N_ACTIONS:
        return CHOICES[action - N_CELLS]
    raise ValueError(f"no action {action}: ids run 0..{N_ACTIONS - 1}")


def parse_action(text: str) -> int:
    """The id of a hex label (``"C5"``) or a choice name (``"walk"``); ValueError otherwise."""
    word = text.strip()
    if word.lower() in CHOICE:
        return CHOICE[word.lower()]
    try:
        return GRID.parse(word.upper())
    except (ValueError, KeyError, IndexError):
        raise ValueError(f"{text!r} is neither a hex (like C5) nor a choice ({', '.join(CHOICES)})") from None
