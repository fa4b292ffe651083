"""The agents training plays against and learns from, by spec (``random``, ``heuristic``, ``ppo:PATH``...).

:func:`make` and :func:`check_spec` are :func:`cardwar.agents.make` and :func:`cardwar.agents.check_spec`.
Until the game registry (:mod:`cardwar.games`) wires the skirmish's agents into them, a skirmish spec
that they refuse as an unknown game is built here directly: ``random``, ``heuristic``
(:class:`cardwar.agents.skirmish_heuristic.SkirmishHeuristic`) and ``ppo`` / ``ppo:PATH``.
"""

from __future__ import annotations

from typing import Any

from cardwar import agents
from cardwar.agents.spec import AgentSpecError, parse_spec

_DIRECT = ("random", "heuristic", "ppo")


def _registry_knows(game: str) -> bool:
    known = getattr(agents, "GAMES", None)
    return known is None or game in known


def check_spec(spec: str, game: str) -> tuple[str, dict[str, Any]]:
    """``(name, options)`` of ``spec`` for ``game``; one-line :class:`AgentSpecError` if it is wrong."""
    if game != "skirmish" or _registry_knows(game):
        return agents.check_spec(spec, game)
    name, options = parse_spec(spec)
    if name not in _DIRECT:
        raise AgentSpecError(f"unknown skirmish agent {spec!r}; agents: {', '.join(_DIRECT)}")
    allowed = {"random": set(), "heuristic": None, "ppo": {"path", "deterministic"}}[name]
    if allowed is not None and set(options) - allowed:
        raise AgentSpecError(f"{name} takes no option {sorted(set(options) - allowed)[0]!r} in the skirmish")
    if name == "ppo":
        if "deterministic" in options:
            options["deterministic"] = str(options["deterministic"]).strip().lower() in ("1", "true", "yes")
        if options.get("path"):
            from pathlib import Path

            if not Path(options["path"]).is_file():
                raise AgentSpecError(f"ppo: no model file at {options['path']!r}")
    return name, options


def make(spec: str, game: str, seed: int | None = None) -> Any:
    """The agent ``spec`` names for ``game``, seeded."""
    if game != "skirmish" or _registry_knows(game):
        return agents.make(spec, game, seed=seed)
    name, options = check_spec(spec, game)
    if name == "random":
        return agents.RandomAgent(game, seed=seed)
    if name == "heuristic":
        from cardwar.agents.skirmish_heuristic import SkirmishHeuristic

        return SkirmishHeuristic(seed=seed, **options)
    from cardwar.agents.ppo_agent import PPOAgent

    return PPOAgent(game, path=options.get("path"), deterministic=options.get("deterministic", True), seed=seed)
