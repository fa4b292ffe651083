"""Agents that play one seat from what that seat may know.

An agent gets the seat's observation dict (``observation`` and ``action_mask``)
and the engine's information view of that seat, and returns a legal action
id. It never reads the full state: the other hand, the deck order, hidden
units and future dice are out of its reach by construction.

Agents are named by spec strings (:mod:`cardwar.agents.spec`); :func:`make` builds one:

    agents.make("heuristic", "naval", seed=1)
    agents.make("random", "hexwar")

Which agents a game has, and the options each takes there, is the game's registry entry
(:mod:`cardwar.games`); this module holds the agents every game shares and the spec checks.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from cardwar.agents.spec import AgentSpecError, Option, coerce_options, parse_spec

class Agent(Protocol):
    """One seat's player."""

    name: str

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """Choose a legal action id from the seat's observation and information view."""


class RandomAgent:
    """Uniform over the legal actions, from its own seeded Generator."""

    def __init__(self, game: str, seed: int | None = None) -> None:
        self.name = "random"
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], view: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("no legal action in the mask")
        return int(legal[self.rng.integers(legal.size)])


def make_ppo(game: str, seed: int | None = None, path: str | None = None, deterministic: bool = True) -> Agent:
    """The MaskablePPO agent of ``game`` (the shipped model unless ``path`` names another)."""
    from cardwar.agents.ppo_agent import PPOAgent

    return PPOAgent(game, path=path, deterministic=deterministic, seed=seed)


def mcts_options(rollout_depth: int, extra: tuple[Option, ...] = ()) -> tuple[Option, ...]:
    return (
        Option("seconds", float, 0.2, "thinking time per move", minimum=0, min_exclusive=True, maximum=3600,
               nullable=True),
        Option("iterations", int, None, "search iterations per move (alone: reproducible)", minimum=1,
               maximum=10**7, nullable=True),
        Option("exploration", float, 0.8, "UCT exploration constant", minimum=0, maximum=100),
        Option("rollout_depth", int, rollout_depth, "moves per play-out before the evaluation", minimum=1,
               maximum=10_000),
        Option("model", str, None, "a trained network guides the search (PUCT priors, leaf values): "
               "ppo (the shipped model) or a model file", nullable=True),
        *extra,
    )


PPO_OPTIONS = (Option("path", str, None, "model file (default: the shipped model of the game)", nullable=True),
               Option("deterministic", bool, True, "play the most likely move (false: sample the policy)"))
NAVAL_HEURISTIC_OPTIONS = (
    Option("samples", int, 32, "deals of the unseen cards per battle estimate", minimum=1, maximum=100_000),
    Option("attack_threshold", float, 0.45, "least win chance to attack", minimum=0, maximum=1))
NAVAL_MCTS_OPTIONS = mcts_options(16)
HEX_MCTS_OPTIONS = mcts_options(8, (Option("margin", float, 0.05, "value margin to override the heuristic's move",
                                           minimum=0, maximum=2),))

SUMMARIES = {"random": "uniform over the legal moves", "heuristic": "hand-written rules of thumb",
             "mcts": "information-set Monte Carlo tree search over determinizations of the seat's view",
             "ppo": "a MaskablePPO model trained by cardwar train",
             "level": "an opponent at a chosen strength: level:elo=N on the game's ladder (random 0), the base bot's "
                      "move or a random one",
             "rllib": "a policy trained by cardwar train --backend rllib: rllib:RUN (its final/) or a checkpoint"}


class _OptionsByGame(Mapping):
    """``REGISTRY[name].options[game]``: the options ``name`` takes in ``game``, read from the game registry."""

    def __init__(self, agent: str) -> None:
        self.agent = agent

    def __getitem__(self, game: str) -> tuple[Option, ...]:
        from cardwar import games

        entry = games.get(game).agents.get(self.agent) if games.known(game) else None
        if entry is None:
            raise KeyError(game)
        return entry.declared()

    def __iter__(self) -> Iterator[str]:
        from cardwar import games

        return iter([g for g in games.names() if self.agent in games.get(g).agents])

    def __len__(self) -> int:
        return sum(1 for _ in self)


@dataclass(frozen=True)
class AgentInfo:
    """An agent name :func:`make` knows: what it does, and the options it takes in each game (by the
    game registry, :mod:`cardwar.games`, where each game lists its agents)."""

    name: str
    summary: str

    @property
    def options(self) -> Mapping[str, tuple[Option, ...]]:
        return _OptionsByGame(self.name)

    def factory(self, game: str, seed: int | None = None, **options: Any) -> Agent:
        from cardwar import games

        return games.get(game).agents[self.name].build(game, seed, **options)

    def to_dict(self, game: str) -> dict[str, Any]:
        """A JSON-friendly description (for ``cardwar agents`` and the server's discovery)."""
        from cardwar import games

        summary = games.get(game).agents[self.name].summary or self.summary
        return {"name": self.name, "summary": summary,
                "options": [{"name": o.name, "type": o.kind.__name__, "default": o.default, "help": o.help,
                             "range": o.bounds() or None, "nullable": o.nullable} for o in self.options[game]]}


class _Registry(Mapping):
    """Every agent name some registered game offers (``REGISTRY["mcts"]``)."""

    def _names(self) -> list[str]:
        from cardwar import games

        return sorted({a for g in games.names() for a in games.get(g).agents})

    def __getitem__(self, name: str) -> AgentInfo:
        if name not in self._names():
            raise KeyError(name)
        return AgentInfo(name, SUMMARIES.get(name, name))

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


REGISTRY: Mapping[str, AgentInfo] = _Registry()


def __getattr__(name: str) -> Any:
    if name == "GAMES":  # the registered games, read when asked (a plug-in registered later is in it)
        from cardwar import games

        return games.names()
    raise AttributeError(name)


def available() -> list[str]:
    """Names of the agents :func:`make` knows."""
    return sorted(REGISTRY)


def check_spec(spec: str, game: str) -> tuple[str, dict[str, Any]]:
    """``(name, typed options)`` of ``spec`` for ``game``; one-line :class:`AgentSpecError` if anything is wrong.

    Cheap (no model is loaded), so callers check every spec before a game, a worker or a run starts.
    """
    from cardwar import games

    if not games.known(game):
        raise AgentSpecError(f"unknown game {game!r}; games: {', '.join(games.names())}")
    name, given = parse_spec(spec)
    offered = games.get(game).agent_names()
    if name not in offered:
        close = difflib.get_close_matches(name, offered, n=1)
        hint = f" (did you mean {close[0]}?)" if close else ""
        raise AgentSpecError(f"unknown agent {spec!r}{hint}; agents: {', '.join(offered)}")
    options = coerce_options(name, games.get(game).agents[name].declared(), given)
    if name == "mcts" and "iterations" in options and "seconds" not in options:
        options["seconds"] = None  # an iteration budget alone makes the agent reproducible
    if name == "mcts" and options.get("iterations", None) is None and options.get("seconds", 0.2) is None:
        raise AgentSpecError(f"mcts needs a budget: give iterations=N or seconds=S (in {spec!r})")
    if name == "ppo" and options.get("path"):
        from pathlib import Path

        if not Path(options["path"]).is_file():
            raise AgentSpecError(f"ppo: no model file at {options['path']!r} (train one with `cardwar train`, "
                                 f"or use the shipped `ppo`)")
    if name == "rllib":
        from cardwar.agents.rllib_agent import check_options

        check_options(options, game)  # a checkpoint of this game is named (no model loaded, no Ray imported)
    if name == "level":
        from cardwar.agents.levels import check_options as check_level

        check_level(options, game)  # one of elo and skill, a base of this game, elo only with the table's base
    return name, options


def make(spec: str, game: str, seed: int | None = None) -> Agent:
    """Build the agent named by ``spec`` for ``game``; a clear one-line error lists what exists."""
    from cardwar import games

    name, options = check_spec(spec, game)
    return games.get(game).agents[name].build(game, seed, **options)


__all__ = ["REGISTRY", "Agent", "AgentInfo", "AgentSpecError", "Option", "RandomAgent", "available", "check_spec",
           "make", "make_ppo", "mcts_options", "parse_spec"]
