"""Agent spec strings: ``random``, ``heuristic``, ``mcts:iterations=400,seconds=0.5``, ``ppo:PATH``.

One parser for every place that names an agent (CLI, matches, tournaments,
training opponents, the bot server). Options are ``key=value`` pairs after a
colon, separated by commas. :func:`parse_spec` only splits the text; each agent
declares its options as :class:`Option` values (type, default, range), and
:func:`coerce_options` turns the text into typed, range-checked values, so a
bad option is refused when the spec is read, before any game or worker starts.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass
from typing import Any


class AgentSpecError(ValueError):
    """A spec that names no agent, or an option the agent does not take or cannot use."""


def _number(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:g}"


@dataclass(frozen=True)
class Option:
    """One option an agent takes in its spec (``heuristic:samples=64``)."""

    name: str
    kind: type  # int, float, bool or str
    default: Any
    help: str
    minimum: float | None = None
    maximum: float | None = None
    min_exclusive: bool = False
    nullable: bool = False  # ``none`` switches it off (``mcts:seconds=none,iterations=400``)

    def bounds(self) -> str:
        """``>= 1 and <= 64``, or ``""`` for an option with no range."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.min_exclusive else '>='} {_number(self.minimum)}")
        if self.maximum is not None:
            parts.append(f"<= {_number(self.maximum)}")
        return " and ".join(parts)

    def describe(self) -> str:
        """``samples (int >= 1, default 32)``: the option as an error message lists it."""
        kind = " ".join(x for x in (self.kind.__name__, self.bounds()) if x) + (" or none" if self.nullable else "")
        return f"{self.name} ({kind}, default {self.default})"

    def coerce(self, text: Any, agent: str) -> Any:
        """The typed value of ``text``; :class:`AgentSpecError` names the option and the rule it broke."""
        raw = str(text).strip()
        if self.nullable and raw.lower() in ("none", "null", "off"):
            return None
        where = f"{agent} option {self.name}={raw!r}"
        if self.kind is bool:
            low = raw.lower()
            if low in ("true", "yes", "on", "1"):
                return True
            if low in ("false", "no", "off", "0"):
                return False
            raise AgentSpecError(f"{where}: expected true or false")
        if self.kind is str:
            if not raw:
                raise AgentSpecError(f"{where}: expected a value")
            return raw
        try:
            value = self.kind(raw)
        except ValueError:
            article = "an integer" if self.kind is int else "a number"
            raise AgentSpecError(f"{where}: expected {article}") from None
        if isinstance(value, float) and not math.isfinite(value):
            raise AgentSpecError(f"{where}: expected a finite number")
        low_bad = self.minimum is not None and (value <= self.minimum if self.min_exclusive else value < self.minimum)
        if low_bad or (self.maximum is not None and value > self.maximum):
            raise AgentSpecError(f"{where}: must be {self.bounds()}")
        return value


def parse_spec(spec: str) -> tuple[str, dict[str, str]]:
    """``"mcts:iterations=400,seconds=0.5"`` -> ``("mcts", {"iterations": "400", "seconds": "0.5"})``.

    ``ppo:PATH`` is short for ``ppo:path=PATH`` (``rllib:PATH`` for ``rllib:path=PATH``). Values stay text;
    :func:`coerce_options` types them.
    """
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError("an agent spec is a name such as random, heuristic or mcts:iterations=400")
    name, _, rest = spec.strip().partition(":")
    name = name.strip().lower()
    options: dict[str, str] = {}
    if rest:
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            if not eq or not key.strip():
                if name in ("ppo", "rllib") and not options:  # ppo:PATH, rllib:PATH
                    options["path"] = rest
                    break
                raise AgentSpecError(f"agent option {part!r} in {spec!r} is not KEY=VALUE")
            if key.strip() in options:
                raise AgentSpecError(f"agent option {key.strip()!r} is given twice in {spec!r}")
            options[key.strip()] = value.strip()
    return name, options


def coerce_options(agent: str, declared: tuple[Option, ...], given: dict[str, Any]) -> dict[str, Any]:
    """Typed values of the ``given`` options; unknown names get the closest match and the list of options."""
    known = {o.name: o for o in declared}
    out: dict[str, Any] = {}
    for key, text in given.items():
        if key not in known:
            close = difflib.get_close_matches(key, list(known), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            listed = "; ".join(o.describe() for o in declared) or "none"
            raise AgentSpecError(f"agent {agent!r} does not take the option {key!r}{hint}; its options: {listed}")
        out[key] = known[key].coerce(text, agent)
    return out
