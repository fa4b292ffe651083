"""``cardwar engine``: one of our agents as an engine process, speaking the protocol on stdin/stdout.

Each move request is answered from what it carries: the view is rebuilt with
``NavalView.from_dict`` / ``HexView.from_dict`` (on the public map ``new_game``
sent), the observation with the game's ``encode_observation`` (only when the
agent reads it), the action mask from the legal ids. ``new_game`` builds a fresh
agent from the spec with the seed it carries, exactly as ``agents.make(spec, game,
seed=seed)`` does in process, so a served agent plays the same moves. Before the
hello is answered, all set-up is done (:meth:`AgentServer.warm_up`): the naval hand
tables are built, one game is played through this server's own move path (views
rebuilt from JSON, observations encoded, the hex game on a procedural map with
hidden units), and the agent itself answers its first position, so no import,
table or model load is left to a move's clock. Each answer echoes the request's
``request`` number. Only protocol lines go to stdout; anything else (a stray
print included) goes to stderr. The server exits 0 on ``quit`` or at the end of
its input, 1 on a message it cannot serve.
"""

from __future__ import annotations

import os
import sys
from typing import IO, Any

import numpy as np

from cardwar import __version__, agents, games
from cardwar.engine import protocol


class ServeError(Exception):
    """A message this engine cannot serve (the protocol version, the game, a broken view)."""


class AgentServer:
    """The state of one served agent between messages: its rules, map and the agent of the current game."""

    def __init__(self, game: str, spec: str, log: IO[str]) -> None:
        agents.check_spec(spec, game)
        self.game, self.spec, self.log = game, spec, log
        self.agent: Any = None
        self.config: Any = None
        self.scenario: Any = None
        self.names = protocol.notation_table(game)
        self._warming = False

    def handle(self, msg: dict[str, Any]) -> dict[str, Any] | None:
        """The answer to one dealer message (None: no answer)."""
        kind = msg["type"]
        if kind == "hello":
            if msg.get("protocol") != protocol.PROTOCOL_VERSION:
                raise ServeError(f"the dealer speaks protocol {msg.get('protocol')!r}; this engine speaks "
                                 f"protocol {protocol.PROTOCOL_VERSION}")
            if msg.get("game", self.game) != self.game:
                raise ServeError(f"the dealer plays {msg.get('game')!r}; this engine was started with "
                                 f"--game {self.game}")
            self.warm_up(msg.get("rules"))  # all set-up now, before the first clock runs
            return protocol.engine_hello(f"cardwar {self.spec}", f"cardwar {__version__}")
        if kind == "new_game":
            self._new_game(msg)
        elif kind == "move":
            return self._move(msg)
        elif kind not in ("game_over", "quit"):
            print(f"cardwar engine: ignored a {kind!r} message", file=self.log)
        return None

    def warm_up(self, rules: Any = None) -> None:
        """Do now whatever a first move would otherwise do lazily (imports, tables, a model load, the
        first forward pass): one game played to its end through :meth:`handle`, from JSON messages
        built as the dealer builds them, the agent answering the first position and random moves the
        rest. The hex game is played on a procedural map with hidden units. State is reset after."""
        import json

        g = games.get(self.game)
        g.warm()
        setup = g.extra.get("engine_bench_setup", {})  # e.g. the hex game on a procedural map, hidden units
        try:
            env = g.make_env(setup.get("scenario"), {**(rules if isinstance(rules, dict) else {}),
                                                     **setup.get("rules", {})})
        except (KeyError, TypeError, ValueError):  # rules this build does not know: the defaults
            env = g.make_env(setup.get("scenario"))
        env.reset(seed=0)
        stand_in = agents.make("random", self.game, seed=0)
        mover = lambda: env.possible_agents.index(env.agent_selection)  # noqa: E731
        self.handle(json.loads(protocol.encode(protocol.new_game(self.game, env.game.information_view(mover()), 0))))
        self._warming, moves = True, 0  # new_game made the agent (imports, a model loaded): it answers first
        try:
            while not env.game.is_terminal():
                view = env.game.information_view(mover())
                request = protocol.move_request(self.game, view, [], list(env.game.legal_actions()), None,
                                                request=moves)
                reply = self.handle(json.loads(protocol.encode(request)))
                assert reply is not None and reply["request"] == moves
                env.step(protocol.parse_move(self.game, reply["move"]))
                self.agent, moves = stand_in, moves + 1
        finally:
            self._warming = False
        self.agent = self.config = self.scenario = None

    def _new_game(self, msg: dict[str, Any]) -> None:
        g = games.get(self.game)
        self.config = g.rules_from_dict(msg.get("rules"))
        try:
            self.scenario = g.read(msg.get("scenario"))
        except ValueError as err:
            raise ServeError(str(err)) from None
        self.agent = agents.make(self.spec, self.game, seed=protocol.new_game_seed(msg))

    def _move(self, msg: dict[str, Any]) -> dict[str, Any]:
        if self.agent is None:
            raise ServeError("a move request before any new_game")
        legal = [m["id"] for m in msg["legal"]]
        g = games.get(self.game)
        view: Any = g.hook("view_from_dict")(msg["view"], self.scenario, self.config)
        encode: Any = lambda: g.hook("encode_observation")(view)  # noqa: E731
        mask = np.zeros(g.actions(), dtype=np.int8)
        mask[legal] = 1
        obs = _Observation(encode, action_mask=mask)
        if self._warming:
            obs["observation"]  # encoded in the warm-up, whether the agent reads it or not
        action = int(self.agent.act(obs, view))
        answer: dict[str, Any] = {"type": "move", "move": self.names[action]}
        if "request" in msg:
            answer["request"] = msg["request"]
        return answer


class _Observation(dict):
    """The env's observation dict, its tensor encoded only if the agent reads it (the rule-based agents
    read only the mask and the view: the tensor was a third of a served hex move)."""

    def __init__(self, encode: Any, **items: Any) -> None:
        super().__init__(**items)
        self._encode = encode

    def __missing__(self, key: str) -> Any:
        if key != "observation":
            raise KeyError(key)
        self["observation"] = value = self._encode()
        return value

    def get(self, key: str, default: Any = None) -> Any:
        return self[key] if key in self else default

    def __contains__(self, key: object) -> bool:
        return key == "observation" or super().__contains__(key)


def serve(game: str, spec: str, inp: IO[bytes], out: IO[bytes], log: IO[str]) -> int:
    """Answer the dealer's messages on ``inp`` until ``quit`` or the end of input; the exit status."""
    server = AgentServer(game, spec, log)
    for raw in iter(inp.readline, b""):
        if not raw.strip():
            continue
        try:
            msg = protocol.decode(raw)
        except protocol.ProtocolError as err:
            print(f"cardwar engine: ignored a line: {err}", file=log)
            continue
        if msg["type"] == "quit":
            return 0
        try:
            reply = server.handle(msg)
        except ServeError as err:
            print(f"cardwar engine: error: {err}", file=log)
            return 1
        except (KeyError, TypeError, ValueError, IndexError) as err:
            print(f"cardwar engine: error: cannot serve this {msg['type']} message: {type(err).__name__}: {err}",
                  file=log)
            return 1
        if reply is not None:
            out.write(protocol.encode(reply))
            out.flush()
    return 0


def serve_stdio(game: str, spec: str) -> int:
    """:func:`serve` on this process's stdin/stdout; fd 1 is pointed at stderr, so a stray print cannot
    break the protocol (the protocol keeps its own copy of the original stdout)."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    try:
        return serve(game, spec, sys.stdin.buffer, out, sys.stderr)
    finally:
        try:
            out.close()
        except BrokenPipeError:
            pass
