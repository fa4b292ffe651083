"""Agent spec strings: ``random``, ``heuristic``, ``mcts:iterations=400,seconds=0.5``, ``ppo:PATH``.

One parser for every place that names an agent (CLI, matches, tournaments,
the bot server). Options are ``key=value`` pairs after a colon, separated by
commas; values become int, float or bool when they look like one.
"""

from __future__ import annotations

from typing import Any


class AgentSpecError(ValueError):
    """A spec that names no agent, or an option the agent does not take."""


def _value(text: str) -> Any:
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(text)
        except ValueError:
            pass
    return text


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:iterations=400,seconds=0.5"`` -> ``("mcts", {"iterations": 400, "seconds": 0.5})``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError("an agent spec is a name such as random, heuristic or mcts:iterations=400")
    name, _, rest = spec.strip().partition(":")
    options: dict[str, Any] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                if name.strip().lower() == "ppo" and not options:  # ppo:PATH
                    options["path"] = rest
                    break
                raise AgentSpecError(f"agent option {part!r} in {spec!r} is not KEY=VALUE")
            options[key.strip()] = _value(value.strip())
    return name.strip().lower(), options
