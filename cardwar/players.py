"""Players from spec strings: our agents (``cardwar.agents``) and external engines (``engine:CMD``).

``engine:python mybot.py`` runs a program that speaks the JSON-lines engine
protocol (``docs/engine-protocol.md``); ``openspiel:ismcts,iterations=200`` is an OpenSpiel
bot over the bridge (:mod:`cardwar.openspiel`, the ``openspiel`` extra); everything else is an
agent spec. This is the one place that turns a spec into a player, for every caller above the agents.

For games played one after another (a tournament's worker, a match), :func:`seat_player`
and :func:`release_player` keep **one engine process per entrant per process** across
games, as fastchess and cutechess keep an engine for a whole match: the engine is told
each game with ``new_game`` (its own seat seed) and ``game_over``, and restarted only
after it failed (``error``, or a ``timeout`` that killed it). **No process is dealt a game it
has seen**: a caller names each game's deal (``deal=``, the seed the env is reset with), the kept
engine remembers the deals it was dealt, and one that would be dealt a deal again is passed over for
another kept engine of the same key that has not seen it, or a fresh process (it stays kept for deals
it has not seen). A tournament deals each pairing its own games (:mod:`cardwar.arena.seeds`), so
there this only bites where deals are shared on purpose. The idle engines are closed
(``quit``, then their process groups killed) by :func:`close_engines`, which runs at
exit: ``atexit`` in the main process, and multiprocessing's exit finalizers in a pool's
worker (``ProcessPoolExecutor`` and ``multiprocessing.Pool`` run them at shutdown). A
process forked from one holding engines does not inherit them.
"""

from __future__ import annotations

import atexit
import json
import os
import threading
import weakref
from collections.abc import Sequence
from typing import Any

from cardwar import agents, games
from cardwar.agents.spec import AgentSpecError

ENGINE_PREFIX = "engine:"
OPENSPIEL_PREFIX = "openspiel:"


def is_engine_spec(spec: str) -> bool:
    """``engine:CMD`` names an external program."""
    return isinstance(spec, str) and spec.strip().lower().startswith(ENGINE_PREFIX)


def is_openspiel_spec(spec: str) -> bool:
    """``openspiel:BOT,...`` names an OpenSpiel bot (:mod:`cardwar.openspiel.bots`)."""
    return isinstance(spec, str) and spec.strip().lower().startswith(OPENSPIEL_PREFIX)


def _openspiel_bots(spec: str) -> Any:
    """:mod:`cardwar.openspiel.bots`, or a one-line :class:`AgentSpecError` naming the extra it needs."""
    try:
        from cardwar.openspiel import bots
    except ImportError:
        raise AgentSpecError(f"{spec.strip()!r} needs OpenSpiel: pip install 'cardwar[openspiel]'") from None
    return bots


def _check_game(game: str) -> None:
    if not games.known(game):
        raise AgentSpecError(f"unknown game {game!r}; games: {', '.join(games.names())}")


def check_player_spec(spec: str, game: str) -> None:
    """One-line :class:`AgentSpecError` if ``spec`` cannot name a player of ``game``; nothing is started."""
    if is_engine_spec(spec):
        from cardwar.engine.client import parse_engine_command

        parse_engine_command(spec.strip()[len(ENGINE_PREFIX):])
        _check_game(game)
        return
    if is_openspiel_spec(spec):
        _check_game(game)
        bots = _openspiel_bots(spec)
        from cardwar.openspiel.games import GAME_NAMES

        if game not in GAME_NAMES:
            raise AgentSpecError(f"{spec.strip()!r}: the OpenSpiel bridge plays {', '.join(GAME_NAMES)}, "
                                 f"not {game}")
        bots.check_openspiel_spec(spec, game)
        return
    agents.check_spec(spec, game)


def make_player(spec: str, game: str, seed: int | None = None, **engine_options: Any) -> Any:
    """The player ``spec`` names: an agent, or an engine process driven over the protocol (a new one)."""
    if is_engine_spec(spec):
        from cardwar.engine.client import EngineAgent

        return EngineAgent(spec.strip()[len(ENGINE_PREFIX):], game, seed=seed, **engine_options)
    if is_openspiel_spec(spec):
        check_player_spec(spec, game)
        return _openspiel_bots(spec).make_agent(spec, game, seed=seed)
    return agents.make(spec, game, seed=seed)


# ------------------------------------------------------------------ engines kept across games
_lock = threading.Lock()
_idle: dict[tuple, list[Any]] = {}  # key -> engines waiting for their next game
_busy: dict[int, tuple] = {}  # id(engine) -> its key, while it plays a game
_dealt: weakref.WeakKeyDictionary[Any, set] = weakref.WeakKeyDictionary()  # engine -> the deals it was dealt
_hooked = False
KEEP_PER_KEY = 4
"""Idle engines kept for one key: more than one only where deals repeat (shared deals); beyond this many,
an engine given back is closed, and the next game of a deal they have all seen gets a fresh process."""


def _key(spec: str, game: str, seat: int | None, options: dict[str, Any]) -> tuple:
    return spec.strip(), game, seat, json.dumps(options, sort_keys=True, default=str)


def seat_player(spec: str, game: str, seed: int | None = None, seat: int | None = None, *,
                deal: Any = None, **engine_options: Any) -> Any:
    """The player for one game: a fresh agent, or this process's engine for ``(spec, game, seat, options)``.

    An engine waiting from an earlier game in the same ``seat`` is reused (``new_game`` with this ``seed``,
    which restarts it if it failed); if none waits, one is started. A process keeps to one seat because a
    duplicate pair deals the same cards twice, seats swapped: a process that sat in both games of a pair
    would remember the other seat's hand from the first. ``deal`` names the game's deal (the seed the env
    is reset with): an engine that was dealt it before is never reused for it; another that was not, or a
    fresh process, plays it (None: the caller vouches that the deal is new to every kept engine). Give it
    back with :func:`release_player`.
    """
    if not is_engine_spec(spec):
        return make_player(spec, game, seed=seed)
    key = _key(spec, game, seat, engine_options)
    _hook_exit()
    with _lock:
        waiting = _idle.get(key) or []
        player = next((p for p in reversed(waiting) if not _has_seen(p, deal)), None)
        if player is not None:
            waiting.remove(player)
    if player is None:
        player = make_player(spec, game, seed=seed, **engine_options)
    else:
        player.new_game(seed=seed)
    with _lock:
        _busy[id(player)] = key
        if deal is not None:
            _dealt.setdefault(player, set()).add(deal)
    return player


def _has_seen(player: Any, deal: Any) -> bool:
    """Whether ``player`` (a kept engine) was dealt ``deal`` before (its process may remember it)."""
    return deal is not None and deal in _dealt.get(player, ())


def release_player(player: Any, result: Any = None) -> None:
    """The game is over: tell an engine its ``result`` (a result dict or a :class:`GameOutcome`) and keep
    it for the next game. With no result (the game was abandoned, by an exception) the engine is closed:
    it may be in the middle of a move. An agent has nothing to give back."""
    result = getattr(getattr(result, "record", None), "result", result)
    with _lock:
        key = _busy.pop(id(player), None)
    if key is None:  # an agent, or an engine not from seat_player: told the result, then closed
        over, close = getattr(player, "game_over", None), getattr(player, "close", None)
        try:
            if over is not None and result is not None:
                over(result)
        except Exception:  # noqa: BLE001 - an engine that fails here has already played its game
            pass
        if close is not None:
            close()
        return
    if result is None:
        player.close()
        return
    try:
        player.game_over(result)
    except Exception:  # noqa: BLE001 - an engine that fails here has already played its game
        player.close()
        return
    with _lock:
        waiting = _idle.setdefault(key, [])
        full = len(waiting) >= KEEP_PER_KEY
        if not full:
            waiting.append(player)
    if full:  # deals repeat here more often than engines are worth keeping: a fresh one when needed
        player.close()


def release_players(players: Sequence[Any], result: Any = None) -> None:
    """:func:`release_player` for each player of a game."""
    for p in players:
        release_player(p, result)


def kept_engines() -> list[Any]:
    """The engines this process keeps between games (idle ones)."""
    with _lock:
        return [p for ps in _idle.values() for p in ps]


def close_engines() -> None:
    """Close every engine kept between games (``quit``, then its process group killed); idempotent.

    They are closed side by side, so the whole takes one engine's quit time (about a second) however many
    there are, and a pool worker that must leave in a few seconds ends them all.
    """
    with _lock:
        engines = [p for ps in _idle.values() for p in ps]
        _idle.clear()

    def close(p: Any) -> None:
        try:
            p.close()
        except Exception:  # noqa: BLE001 - closing the others matters more
            pass

    threads = [threading.Thread(target=close, args=(p,), daemon=True) for p in engines]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15.0)


def _forget_inherited() -> None:
    """In a forked child: the parent's engines are the parent's (close our copies of their pipes only)."""
    global _lock, _hooked
    _lock = threading.Lock()
    for ps in _idle.values():
        for p in ps:
            p.abandon()
    _idle.clear()
    _busy.clear()
    _dealt.clear()
    _hooked = False


def _hook_exit() -> None:
    """Close the kept engines at exit: atexit here, multiprocessing's finalizers in a pool's worker."""
    global _hooked
    if _hooked:
        return
    _hooked = True
    atexit.register(close_engines)
    import multiprocessing.util

    multiprocessing.util.Finalize(None, close_engines, exitpriority=100)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_inherited)
