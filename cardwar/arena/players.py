"""Players from spec strings: our agents (``cardwar.agents``) and external engines (``engine:CMD``).

``engine:python mybot.py`` runs a program that speaks the JSON-lines engine
protocol (``docs/engine-protocol.md``); everything else is an agent spec. This is
the one place that turns a spec into a player, for every caller above the agents.
"""

from __future__ import annotations

from typing import Any

from cardwar import agents
from cardwar.agents.spec import AgentSpecError

ENGINE_PREFIX = "engine:"


def is_engine_spec(spec: str) -> bool:
    """``engine:CMD`` names an external program."""
    return isinstance(spec, str) and spec.strip().lower().startswith(ENGINE_PREFIX)


def check_player_spec(spec: str, game: str) -> None:
    """One-line :class:`AgentSpecError` if ``spec`` cannot name a player of ``game``; nothing is started."""
    if is_engine_spec(spec):
        from cardwar.engine.client import parse_engine_command

        parse_engine_command(spec.strip()[len(ENGINE_PREFIX):])
        if game not in agents.GAMES:
            raise AgentSpecError(f"unknown game {game!r}; games: {', '.join(agents.GAMES)}")
        return
    agents.check_spec(spec, game)


def make_player(spec: str, game: str, seed: int | None = None, **engine_options: Any) -> Any:
    """The player ``spec`` names: an agent, or an engine process driven over the protocol."""
    if is_engine_spec(spec):
        from cardwar.engine.client import EngineAgent

        return EngineAgent(spec.strip()[len(ENGINE_PREFIX):], game, seed=seed, **engine_options)
    return agents.make(spec, game, seed=seed)
