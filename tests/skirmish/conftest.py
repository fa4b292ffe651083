"""Tiny skirmish scenarios built in code, stacked packs, and short ways to answer the engine's steps.

A scenario here is a few hexes of open ground and a handful of figures with every skill fixed, so a test
knows each number a card is drawn against; ``stack(s, side, "5H 10S ...")`` puts known cards on top of a
side's pack (RULES.md §3.1: every draw of an action comes from the acting side's pack).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import pytest

from cardwar.envs.skirmish.actions import CHOICE, N_ACTIONS, Step, action_name, parse_action
from cardwar.envs.skirmish.cards import Pack
from cardwar.envs.skirmish.rules import SkirmishRules
from cardwar.envs.skirmish.scenario import Scenario, load_scenario, scenario_from_dict
from cardwar.envs.skirmish.state import SkirmishState, new_state

BLUE, RED = 0, 1
OPEN = """
. . . . . . . . . .
 . . . . . . . . . .
. . . . . . . . . .
 . . . . . . . . . .
. . . . . . . . . .
 . . . . . . . . . .
"""
"""A 10 x 6 field of clear ground (A1 top left, J6 bottom right)."""


# ------------------------------------------------------------------ scenarios in code
def fig(name: str, hex: str, weapon: str = "rifle", skills: int | dict | tuple = 5, **more) -> dict:
    """A figure with every core skill fixed (an int: all four the same; a tuple: shoot, throw, melee, field craft)."""
    if isinstance(skills, int):
        skills = (skills,) * 4
    if isinstance(skills, tuple):
        skills = dict(zip(("shoot", "throw", "melee", "field_craft"), skills))
    return {"name": name, "hex": hex, "weapon": weapon, "quality": "regular", "skills": dict(skills), **more}


def scenario(blue: Iterable[dict], red: Iterable[dict], *, map: str = OPEN, turns: int = 3,
             victory: dict | None = None, edges: list | None = None, deck: list | None = None,
             mines: list | None = None, blue_vehicles: list | None = None, red_vehicles: list | None = None,
             blue_teams: list | None = None, red_teams: list | None = None) -> Scenario:
    def side(figures, vehicles, teams):
        out: dict[str, Any] = {"figures": list(figures)}
        if vehicles:
            out["vehicles"] = vehicles
        if teams:
            out["teams"] = teams
        return out

    data: dict[str, Any] = {
        "map": map, "turns": turns, "victory": victory or {"kind": "casualties"},
        "sides": {"Blue": side(blue, blue_vehicles, blue_teams), "Red": side(red, red_vehicles, red_teams)},
    }
    if edges:
        data["edges"] = edges
    if deck:
        data["deck"] = deck
    if mines:
        data["mines"] = mines
    return scenario_from_dict(data, name="test")


def start(sc: Scenario, seed: int = 0, **rules) -> SkirmishState:
    return new_state(sc, SkirmishRules.from_dict(rules), seed=seed)


def stack(s: SkirmishState, side: int, cards: str | Iterable[str]) -> None:
    """Put these cards, in order, on top of ``side``'s pack (the rest of the pack keeps its order below)."""
    if isinstance(cards, str):
        cards = cards.split()
    top = Pack.stacked(list(cards)).draw_pile
    rest = [c for c in s.packs[side].draw_pile + s.packs[side].discards if c not in top]
    s.packs[side] = Pack(draw_pile=top + rest)


# ------------------------------------------------------------------ answering steps
def act(s: SkirmishState, *words: str | int) -> SkirmishState:
    """Answer the current steps in turn: hex labels (``"C5"``) or choice names (``"walk"``)."""
    for w in words:
        a = w if isinstance(w, int) else parse_action(w)
        s.apply(a)
    return s


def legal(s: SkirmishState) -> set[str]:
    return {action_name(a) for a in s.legal()}


def uid(s: SkirmishState, name: str) -> int:
    return next(u.uid for u in s.units if u.name == name)


def unit(s: SkirmishState, name: str):
    return s.units[uid(s, name)]


def at(s: SkirmishState, name: str) -> str:
    return action_name(unit(s, name).cell)


def stay(s: SkirmishState, stance: str | None = None, watch: bool = False) -> SkirmishState:
    """The unit to declare stays (keeping its stance unless told), with or without opportunity fire."""
    assert s.decision.step == Step.MODE, s.decision
    u = s.units[s.decision.unit]
    if CHOICE["speed_0"] in s.decision.legal:  # a vehicle: stationary (RULES.md §8.1)
        act(s, "speed_0")
        if s.decision is not None and s.decision.unit == u.uid and s.decision.step == Step.DESTINATION:
            s.apply(min(s.decision.legal))
        return s
    act(s, "stay")
    act(s, stance or ("prone", "kneeling", "standing")[int(u.fig.stance)])
    if s.decision is not None and s.decision.step == Step.WATCH:
        act(s, "watch" if watch else "no_watch")
    return s


def stay_until_combat(s: SkirmishState) -> SkirmishState:
    """Every remaining movement declaration: stay, no opportunity fire; then movement runs to combat."""
    while s.stage == "declare_move" and not s.over:
        stay(s)
    return s


def finish_turn(s: SkirmishState) -> SkirmishState:
    """Answer "nothing" (stay, hold, done) to every step until the next turn begins or the game ends."""
    turn, guard = s.turn, 0
    while not s.over and s.turn == turn:
        d = s.decision
        if d.step == Step.MODE:
            stay(s)
        elif CHOICE["nothing"] in d.legal:
            s.apply(CHOICE["nothing"])
        elif CHOICE["hold"] in d.legal:
            s.apply(CHOICE["hold"])
        elif CHOICE["done"] in d.legal:
            s.apply(CHOICE["done"])
        else:
            s.apply(min(d.legal))
        guard += 1
        assert guard < 1000
    return s


def random_play(s: SkirmishState, rng: np.random.Generator, steps: int | None = None) -> SkirmishState:
    n = 0
    while not s.over and (steps is None or n < steps):
        legal_ids = s.legal()
        s.apply(legal_ids[int(rng.integers(len(legal_ids)))])
        n += 1
    return s


SHIPPED = ("duel", "ww2_squads", "woods_and_craters", "panzer_road")
_CACHE: dict[str, Scenario] = {}


def shipped(name: str) -> Scenario:
    if name not in _CACHE:
        _CACHE[name] = load_scenario(name)
    return _CACHE[name]


__all__ = ["BLUE", "N_ACTIONS", "OPEN", "RED", "act", "at", "fig", "legal", "finish_turn", "random_play",
           "scenario", "shipped", "stack", "start", "stay", "stay_until_combat", "uid", "unit"]
