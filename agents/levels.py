"""Opponents at a chosen strength (issue 31.4): ``level:elo=600`` plays at about 600 Elo on the game's ladder.

The anchor is Stockfish's ``UCI_LimitStrength`` / ``UCI_Elo``: one option asks for a rating, and the engine
weakens itself to it. Here the weakening is the simplest one that stays monotone and costs nothing: at every
decision the agent asks the game's *base* bot (its strongest cheap bot, named in the calibration) for its move,
and plays it with probability ``skill``, else a uniformly random legal move. ``skill=0`` is ``random`` and
``skill=1`` is the base bot. The base is asked at every decision, so a base that keeps a plan between decisions
sees every position, and the time a decision takes does not tell which of the two moves was played.

Both come from the seat's own observation and information view and the agent's own seeded generator:
nothing hidden reaches a level any more than it reaches its base.

The scale is the shipped ladder's: Bradley-Terry Elo with ``random`` at 0 (:mod:`cardwar.tournament.ratings`).
``elo`` is turned into a ``skill`` by the game's calibration table (``agents/level_tables/<game>.json``), made by
``cardwar levels calibrate GAME``: a round robin among ``random``, the base, the game's other cheap bots and
``level:skill=p`` for a grid of ``p``; each ``p``'s rating, made monotone, is interpolated linearly.
``cardwar levels bench GAME`` plays requested ratings against the ladder and prints requested against measured.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from cardwar.agents.spec import AgentSpecError, Option

DEFAULT_BASE = "heuristic"
"""The base bot of a game with no calibration table yet."""

LEVELS = 8
"""How many levels the server offers (level 1 the weakest above random, level 8 the base bot)."""


class LevelTableError(ValueError):
    """A shipped calibration table that cannot be read (cut short, edited by hand): one line naming the file."""


@dataclass(frozen=True)
class Calibration:
    """A game's calibration: its base bot, and the rating each ``skill`` measured, made monotone."""

    game: str
    base: str
    skills: tuple[float, ...]
    elos: tuple[float, ...]  # non-decreasing, elos[0] == 0 (skill 0 is random, the scale's zero)
    raw: dict[str, Any]  # the whole file: the tournament, its command, the intervals, the other bots

    @property
    def top(self) -> float:
        """The strongest rating a level reaches: the base bot's."""
        return self.elos[-1]

    @property
    def bound(self) -> int:
        """The largest ``elo`` one may ask for: the top rounded up to a whole number (which plays the base bot),
        so that every level :meth:`levels` lists, the top rounded, is within it. One bound for the option, this
        class and the server."""
        return math.ceil(self.top)

    def skill_for(self, elo: float) -> float:
        """The ``skill`` whose interpolated rating is ``elo`` (the least such skill on a flat stretch); from the
        top to :attr:`bound`, the base bot (skill 1)."""
        if not 0.0 <= elo <= self.bound:
            raise AgentSpecError(f"level option elo={elo:g}: must be >= 0 and <= {self.bound} for {self.game} "
                                 f"(0 is random, {self.bound} its {self.base})")
        if elo > self.top:  # up to the bound: the base bot itself
            return 1.0
        elos, skills = np.asarray(self.elos), np.asarray(self.skills)
        k = int(np.searchsorted(elos, elo, side="left"))
        if k == 0:
            return float(skills[0])
        if elos[k] == elos[k - 1]:
            return float(skills[k - 1])
        t = (elo - elos[k - 1]) / (elos[k] - elos[k - 1])
        return float(skills[k - 1] + t * (skills[k] - skills[k - 1]))

    def elo_for(self, skill: float) -> float:
        """The calibrated rating of ``skill`` (linear between the measured points)."""
        return float(np.interp(skill, self.skills, self.elos))

    def levels(self) -> list[dict[str, Any]]:
        """The server's levels: ``LEVELS`` ratings evenly spaced from ``top / LEVELS`` to ``top``, rounded; the
        last is :attr:`bound`, which plays the base bot itself."""
        elos = [round(self.top * k / LEVELS) for k in range(1, LEVELS)] + [self.bound]
        return [{"level": k, "elo": elo, "spec": f"level:elo={elo}"} for k, elo in enumerate(elos, 1)]


def monotone(elos: list[float]) -> list[float]:
    """The least-squares non-decreasing fit of ``elos`` (ordered by skill, the first ``random``'s, the scale's
    zero): a tournament's noise may rate a higher skill a little lower, and the mapping must stay invertible
    (scipy's pool-adjacent-violators). The first point is the anchor and stays where it is: a point measured
    below it is raised to it, and no other point moves because of it."""
    from scipy.optimize import isotonic_regression

    y = np.asarray(elos, dtype=float)
    if y.size < 2:
        return [float(x) for x in y]
    rest = np.maximum(isotonic_regression(y[1:]).x, y[0])
    return [float(y[0]), *(float(x) for x in rest)]


def table_path(game: str) -> Any:
    """Where ``game``'s shipped calibration lives (a package resource; it may not exist)."""
    return resources.files("cardwar.agents").joinpath("level_tables", f"{game}.json")


@lru_cache(maxsize=None)
def calibration(game: str) -> Calibration | None:
    """``game``'s shipped calibration, or None if it has none; :class:`LevelTableError` if it cannot be read."""
    path = table_path(game)
    if not path.is_file():
        return None
    try:
        return from_dict(json.loads(path.read_text()))
    except (ValueError, KeyError, TypeError) as err:
        raise LevelTableError(f"{path}: not a readable level table ({type(err).__name__}: {err}); make it again "
                              f"with `cardwar levels calibrate {game} --base BOT`") from None


def from_dict(data: dict[str, Any]) -> Calibration:
    """A :class:`Calibration` from a table's data (``points``: skill and elo, ``skill`` 0 and 1 among them)."""
    points = sorted(data["points"], key=lambda p: p["skill"])
    skills = [float(p["skill"]) for p in points]
    if not skills or skills[0] != 0.0 or skills[-1] != 1.0:
        raise ValueError(f"{data.get('game')}: a calibration needs the points skill=0 and skill=1")
    elos = monotone([float(p["elo"]) for p in points])
    zero = elos[0]
    return Calibration(data["game"], data["base"], tuple(skills), tuple(e - zero for e in elos), data)


class _Options:
    """``OPTIONS.<game>``: the ``level`` agent's options in that game, its ``elo`` range read from the table."""

    def __getattr__(self, game: str) -> tuple[Option, ...]:
        if game.startswith("__"):
            raise AttributeError(game)
        table = calibration(game)
        return (
            Option("elo", float, None, "the strength asked for, on the game's ladder (random 0; the top is the "
                   "base bot's)", minimum=0, maximum=table.bound if table is not None else None, nullable=True),
            Option("skill", float, None, "instead of elo: the share of decisions the base bot makes (the rest are "
                   "random); what the calibration measures", minimum=0, maximum=1, nullable=True),
            Option("base", str, None, "with skill: the bot whose moves are played (default: the calibration's, "
                   f"{table.base if table is not None else DEFAULT_BASE})", nullable=True),
        )


OPTIONS = _Options()


def check_options(options: dict[str, Any], game: str) -> str:
    """The level's cross-option rules, checked without building anything (``check_spec`` calls it, so a bad
    level spec is one line before a game starts); the base bot's spec it will play."""
    from cardwar import agents

    elo, skill, base = options.get("elo"), options.get("skill"), options.get("base")
    if (elo is None) == (skill is None):
        raise AgentSpecError("level: give one of elo=N (a rating on the game's ladder) or skill=P (0 to 1)")
    table = calibration(game)
    if elo is not None and table is None:
        raise AgentSpecError(f"level: {game} has no calibration; give skill=P, or run "
                             f"`cardwar levels calibrate {game}`")
    if base is None:
        return table.base if table is not None else DEFAULT_BASE
    if elo is not None and base != table.base:
        raise AgentSpecError(f"level: elo is calibrated with base={table.base}; give skill=P with another base")
    if base.split(":", 1)[0].strip() == "level":
        raise AgentSpecError("level: the base bot cannot itself be a level")
    try:
        agents.check_spec(base, game)
    except AgentSpecError as err:
        raise AgentSpecError(f"level: base={base}: {err}") from None
    return base


class LevelAgent:
    """Plays the base bot's move with probability ``skill``, else a random legal move (module docstring)."""

    def __init__(self, game: str, seed: int | None = None, elo: float | None = None,
                 skill: float | None = None, base: str | None = None) -> None:
        from cardwar import agents

        base = check_options({"elo": elo, "skill": skill, "base": base}, game)
        if elo is not None:
            skill = calibration(game).skill_for(float(elo))
        rng = np.random.default_rng(seed)
        self.game, self.skill, self.elo = game, float(skill), elo
        self.base = agents.make(base, game, seed=int(rng.integers(2**31)))
        self.rng = rng
        self.name = f"level:elo={elo:g}" if elo is not None else f"level:skill={skill:g}"

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        move = self.base.act(observation, view)  # always asked: its plans follow the game, its time is spent
        legal = np.flatnonzero(observation["action_mask"])
        pick = int(legal[self.rng.integers(legal.size)])  # drawn whichever is played: the same work, either way
        return int(move) if self.rng.random() < self.skill else pick

    def prepare(self, observation: dict[str, np.ndarray], view: Any = None) -> None:
        ready = getattr(self.base, "prepare", None)
        if callable(ready):
            ready(observation, view)

    def close(self) -> None:
        close = getattr(self.base, "close", None)
        if callable(close):
            close()


def make_level(game: str, seed: int | None = None, elo: float | None = None, skill: float | None = None,
               base: str | None = None) -> LevelAgent:
    """The ``level`` agent of ``game`` (``level:elo=600``, or ``level:skill=0.5,base=heuristic``)."""
    return LevelAgent(game, seed=seed, elo=elo, skill=skill, base=base)
