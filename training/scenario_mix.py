"""Training on several scenarios at once: ``env.scenario: "random:train*12,duel,panzer_road"``.

A scenario setting with commas is a mix: each entry is a scenario as the game's env takes it (a
shipped name, a path, ``random``, ``random:train``, ``random:test``), optionally followed by
``*WEIGHT`` (a whole number, 1 if left out). Each game draws one entry by weight, from the game's
own reset seed, so the same seed gives the same scenario and the same game. Without a comma the
setting is passed to the game's env as it is.

:func:`make_env` is the one place training makes its raw AEC envs (self-play, imitation and
evaluation games), each through the game registry (:mod:`cardwar.games`: a plug-in game trains with no edit
here); :class:`MixedScenarioEnv` is a raw env of one of the mix's envs at a time.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from cardwar.envs import make_raw_env


class ScenarioMixError(ValueError):
    """A scenario mix that cannot be read."""


def parse_mix(spec: str) -> list[tuple[str, int]]:
    """``"random:train*12,duel"`` -> ``[("random:train", 12), ("duel", 1)]``; one line on a mistake."""
    entries = []
    for part in spec.split(","):
        name, star, weight = part.strip().rpartition("*") if "*" in part else (part.strip(), "", "1")
        name = name.strip()
        if not name:
            raise ScenarioMixError(f"scenario mix {spec!r}: an entry has no scenario name")
        try:
            w = int(weight)
        except ValueError:
            raise ScenarioMixError(f"scenario mix {spec!r}: weight {weight!r} of {name!r} is not a whole number") \
                from None
        if w < 1:
            raise ScenarioMixError(f"scenario mix {spec!r}: weight of {name!r} must be at least 1")
        entries.append((name, w))
    return entries


def is_mix(scenario: str | None) -> bool:
    """Whether ``scenario`` names several scenarios."""
    return isinstance(scenario, str) and "," in scenario


def raw_env(game: str, scenario: str | None = None, rules: dict | None = None, actions: str = "moves") -> Any:
    """The raw AEC env of the registered ``game`` on one scenario (ignored by a game without scenarios);
    ``actions`` one of the entry's action spaces (:func:`cardwar.envs.make_raw_env`: ``"steps"`` is naval-v1's).
    An unknown game is :class:`cardwar.games.UnknownGame` (a ValueError naming the games)."""
    return make_raw_env(game, scenario, rules, actions)


def make_env(game: str, scenario: str | None = None, rules: dict | None = None, actions: str = "moves") -> Any:
    """The raw AEC env of ``game``: :func:`raw_env`, or a :class:`MixedScenarioEnv`."""
    if not is_mix(scenario):
        return raw_env(game, scenario, rules, actions)
    return MixedScenarioEnv(game, scenario, rules, actions)


class MixedScenarioEnv:
    """A raw AEC env that plays each game on one scenario of a mix (see the module docstring).

    Everything but ``reset`` and the render settings is the current scenario's env's.
    """

    def __init__(self, game: str, scenario: str, rules: dict | None = None, actions: str = "moves") -> None:
        entries = parse_mix(scenario)
        envs = [raw_env(game, name, rules, actions) for name, _ in entries]
        weights = np.array([w for _, w in entries], dtype=float)
        # the game's name is game_name: ``game`` is the current env's engine, as on every AEC env (env.game)
        self.__dict__.update(game_name=game, spec=scenario, names=[n for n, _ in entries], envs=envs,
                             weights=weights / weights.sum(), current=0, _rng=np.random.default_rng())

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.__dict__["envs"][self.__dict__["current"]], name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name in self.__dict__:
            self.__dict__[name] = value
            return
        for env in self.envs:  # render_mode, render_viewer...: every scenario's env
            setattr(env, name, value)

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """A new game: a scenario drawn by weight from ``seed`` (or from the env's own generator)."""
        rng = np.random.default_rng(seed) if seed is not None else self._rng
        self.__dict__["current"] = int(rng.choice(len(self.envs), p=self.weights))
        return self.envs[self.current].reset(seed=seed, options=options)

    @property
    def scenario_name(self) -> str:
        """The mix entry the current game plays."""
        return self.names[self.current]
