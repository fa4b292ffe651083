"""Which agents a client may play against, with which options, within the session's move time.

A client names an agent and options as in a spec (``mcts``, ``heuristic:samples=64``);
the server refuses what would let a client reach outside its game or hold the CPU:
a model ``path`` (a file on the server), ``engine:`` programs, an iteration count
(unbounded time), and its own ``seconds`` - the session's ``move_ms`` sets that. A search
may be guided by the shipped network (``model=ppo``), by no other file.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from functools import lru_cache

from cardwar import agents, games
from cardwar.agents.spec import AgentSpecError

log = logging.getLogger("cardwar.serve")

REFUSED_OPTIONS = frozenset({"path", "iterations", "seconds", "base"})
"""Options a client may not set: the server chooses the model and the thinking time (and a level's base bot:
its calibration is for the shipped one)."""

LIMITS: dict[str, float] = {"samples": 256, "rollout_depth": 64, "workers": 1}
"""Options a client may set only up to a bound (their cost grows with the value; ``workers``: the skirmish
search's helper processes, none on a server)."""


@lru_cache(maxsize=64)
def playable(game: str, name: str) -> bool:
    """Whether ``game``'s registry lists agent ``name`` and it can be built here: its module imports, and a
    ``ppo`` bot has the game's shipped model (the server offers no other)."""
    from cardwar.agents.levels import LevelTableError

    entry = games.get(game).agents.get(name)
    if entry is None:
        return False
    try:
        entry.declared()
        games.resolve(entry.factory)
    except (ImportError, AttributeError):  # an agent the registry names but this install does not hold (yet)
        return False
    except LevelTableError as err:  # a cut or hand-edited level table: no levels, every other bot still served
        log.warning("%s: levels not offered: %s", game, err)
        return False
    if name == "ppo":
        from cardwar.agents.ppo_agent import pretrained_path

        return pretrained_path(game).is_file()
    if name == "rllib":  # it plays a checkpoint named by its path, which a client may not set
        return False
    if name == "level":  # offered as levels: only with a calibration, whose base bot plays here
        from cardwar.agents.levels import calibration

        table = calibration(game)
        return table is not None and playable(game, table.base.split(":", 1)[0])
    return True


def bot_names(game: str) -> list[str]:
    """The agents a session of ``game`` may play against."""
    return [name for name in games.get(game).agent_names() if playable(game, name)]


def bot_catalogue(game: str) -> list[dict[str, Any]]:
    """The agents a session of ``game`` may choose, with the options a client may set."""
    out = []
    for name in bot_names(game):
        info = agents.REGISTRY[name].to_dict(game)
        info["options"] = [o for o in info["options"] if o["name"] not in REFUSED_OPTIONS]
        for o in info["options"]:
            if o["name"] in LIMITS:  # the server's cap, with the agent's lower bound
                cap = f"<= {LIMITS[o['name']]:g}"
                o["range"] = re.sub(r"<= \S+", cap, o["range"]) if "<=" in (o.get("range") or "") else cap
            if o["name"] == "model":  # no file on the server: the shipped network only
                o["choices"] = ["ppo"]
                o["help"] = "ppo: the shipped network guides the search (PUCT priors, leaf values); null: play-outs"
        info["thinks_for_move_ms"] = thinks_for_move_ms(game, name)
        if name == "level":  # the calibrated levels (issue 31.4): send {"agent": "level", "options": {"elo": N}}
            from cardwar.agents.levels import calibration

            table = calibration(game)
            info["levels"] = table.levels() if table is not None else []
            info["base"] = table.base if table is not None else None
        out.append(info)
    return out


def thinks_for_move_ms(game: str, agent: str) -> bool:
    """Whether ``agent`` spends the session's ``move_ms`` on a move (a timed search) rather than answering at once."""
    return any(o.name == "seconds" for o in agents.REGISTRY[agent].options.get(game, ()))


def _check_cap(key: str, value: Any) -> None:
    """:class:`AgentSpecError` quoting this server's cap when a capped option's value is a number above it."""
    if key not in LIMITS or isinstance(value, bool):
        return
    try:
        number = float(value)
    except (TypeError, ValueError):
        return  # not a number: the option's own typing says so
    if number > LIMITS[key]:
        raise AgentSpecError(f"option {key}={value} is above this server's limit {LIMITS[key]:g}")


def _server_caps_quoted(message: str) -> str:
    """An agent's message about a capped option, with this server's cap in place of the agent's own bound."""
    for key, cap in LIMITS.items():
        if f"option {key}=" in message:
            return re.sub(r"<= [0-9.e+]+", f"<= {cap:g} (this server's limit)", message)
    return message


def bot_spec(game: str, agent: str, options: dict[str, Any], move_ms: int) -> str:
    """The agent spec the server builds the bot from; :class:`AgentSpecError` (one line) if not allowed.

    Each value is typed by the option it names first (a number sent as text is a number, so
    the caps hold), checked, and only then written into the spec; no text of a client's ever
    reaches the spec unchecked, so a value cannot smuggle in another option.
    """
    from cardwar.agents.spec import coerce_options

    if not isinstance(agent, str) or agent not in bot_names(game):
        raise AgentSpecError(f"unknown agent {agent!r} for {game}; agents: {', '.join(bot_names(game))}")
    declared = agents.REGISTRY[agent].options.get(game, ())
    allowed = tuple(o for o in declared if o.name not in REFUSED_OPTIONS)
    given: dict[str, Any] = {}
    for key, value in options.items():
        if key in REFUSED_OPTIONS and any(o.name == key for o in declared):
            raise AgentSpecError(f"option {key!r} is set by the server, not a client"
                                 + (" (give move_ms for the thinking time)" if key == "seconds" else ""))
        if value is None:  # the option's default
            continue
        if isinstance(value, bool):
            value = str(value).lower()
        if not isinstance(value, (str, int, float)) or any(ch in str(value) for ch in ",=:"):
            raise AgentSpecError(f"option {key!r}: give a number, true/false or a name, got {value!r}")
        given[key] = value
        _check_cap(key, value)  # the server's cap first: it is the one a client must keep to (an agent's is higher)
    try:
        typed = coerce_options(agent, allowed, {k: str(v) for k, v in given.items()})
    except AgentSpecError as err:
        raise AgentSpecError(_server_caps_quoted(str(err))) from None
    for key, value in typed.items():
        if key == "model" and value is not None and value != "ppo":  # a file on the server: only the shipped one
            raise AgentSpecError("option model: this server offers model=ppo (the shipped model) only")
        if key in LIMITS and value is not None and value > LIMITS[key]:
            raise AgentSpecError(f"option {key}={value} is above this server's limit {LIMITS[key]:g}")
    if any(o.name == "seconds" for o in declared):  # search: the session's move time, with room for the server
        typed["seconds"] = round(max(0.001, move_ms / 1000 * 0.8), 4)
    text = ",".join(f"{k}={str(v).lower() if isinstance(v, bool) else v}" for k, v in typed.items() if v is not None)
    spec = f"{agent}:{text}" if text else agent
    agents.check_spec(spec, game)
    return spec
