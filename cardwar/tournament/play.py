"""Playing one duplicate pair: the function every backend runs (a local worker or a Ray task).

Engines (``engine:CMD`` entrants) are kept from pair to pair in the worker process
(:func:`cardwar.players.seat_player`): one process per entrant, seat and worker, told
each game by ``new_game`` and ``game_over``, restarted only after it failed, and closed
when the worker exits. Each game names its deal to ``seat_player``, so no process is
dealt a game it has seen (where deals are shared across pairings, another process plays it).
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

from cardwar.tournament.schedule import PairJob
from cardwar.tournament.store import GameRow

ENGINE_OPTIONS = ("grace_ms", "start_timeout_s", "move_limit_ms", "stderr", "stderr_cap")
"""The tournament options an engine entrant takes (``engine_options``): ``stderr`` is a directory, where
each entrant's engines write ``<entrant>.stderr`` (rotated at ``stderr_cap`` bytes, 1 MiB by default)."""


def _score(returns: list[float]) -> float:
    return 1.0 if returns[0] > returns[1] else 0.0 if returns[0] < returns[1] else 0.5


def stderr_file(directory: str | os.PathLike, entrant: str) -> str:
    """The file an entrant's engine writes its stderr to, in ``directory`` (made if missing)."""
    os.makedirs(directory, exist_ok=True)
    return os.path.join(directory, re.sub(r"[^A-Za-z0-9._-]", "_", entrant) + ".stderr")


def entrant_options(engine_options: dict[str, Any] | None, entrant: str) -> dict[str, Any]:
    """The ``EngineAgent`` options of one entrant: the tournament's, its stderr file, its name in forfeits."""
    options = {k: v for k, v in (engine_options or {}).items() if v is not None}
    unknown = set(options) - set(ENGINE_OPTIONS)
    if unknown:
        raise ValueError(f"unknown engine option(s) {', '.join(sorted(unknown))}; known: {', '.join(ENGINE_OPTIONS)}")
    if "stderr" in options:
        options["stderr"] = stderr_file(options["stderr"], entrant)
    options["label"] = entrant
    return options


def play_pair(job: PairJob, engine_options: dict[str, Any] | None = None) -> list[GameRow]:
    """The pair's two games, seats swapped on the same seed, as store rows.

    The dealer (:mod:`cardwar.arena.seeds`) keys the deal and each seat's seed with the
    tournament's secret and the pairing (``job.deal_context``), so no seat can rebuild the pair's
    seed or the other seat's cards, and no other pairing is dealt the same game; a tournament's
    games are :func:`cardwar.cli.match.play_game`'s games with the job's dealer (:meth:`PairJob.dealer`).
    ``engine_options`` (default: the job's ``engine_options``, if it has them) go to every engine entrant.
    """
    from cardwar.arena import Clock, play_game
    from cardwar.players import is_engine_spec, release_players, seat_player
    from cardwar import games

    if engine_options is None:
        engine_options = getattr(job, "engine_options", None)
    clock = Clock(None if job.move_ms is None else job.move_ms / 1000, None if job.game_ms is None else job.game_ms / 1000)
    dealer = job.dealer()
    deal = dealer.deal(job.seed)
    rows = []
    for g, (first, second, spec_first, spec_second) in enumerate(job.seats()):
        env = games.get(job.game).make_env(job.scenario, job.rules)
        players = [seat_player(spec, job.game, dealer.seat(job.seed, i), seat=i, deal=deal,
                               **(entrant_options(engine_options, name) if is_engine_spec(spec) else {}))
                   for i, (name, spec) in enumerate(((first, spec_first), (second, spec_second)))]
        if "torch" in sys.modules:  # one thread a worker (after the players: a model imports torch): the workers
            sys.modules["torch"].set_num_threads(1)  # share the cores, and two threads each stall for up to 1 s
        outcome = None
        try:
            outcome = play_game(env, players, deal, game=job.game, specs=(spec_first, spec_second),
                                scenario=job.scenario, clock=clock)
        finally:
            release_players(players, outcome)
        f = outcome.forfeit
        rows.append(GameRow(job.pairing, job.pair, g, job.seed, job.scenario, first, second, spec_first, spec_second,
                            _score(outcome.returns), outcome.returns, outcome.length, outcome.times,
                            None if f is None else f.seat, None if f is None else f.reason,
                            None if f is None else f.detail, outcome.record.to_json()))
    return rows
