"""Playing one duplicate pair: the function every backend runs (a local worker or a Ray task)."""

from __future__ import annotations

import sys

from cardwar.tournament.schedule import PairJob
from cardwar.tournament.store import GameRow


def _score(returns: list[float]) -> float:
    return 1.0 if returns[0] > returns[1] else 0.0 if returns[0] < returns[1] else 0.5


def _close(player: object, result: dict | None) -> None:
    """Tell an engine the game is over and end its process (our in-process agents have nothing to close)."""
    over = getattr(player, "game_over", None)
    if over is not None and result is not None:
        try:
            over(result)
        except Exception:  # noqa: BLE001 - an engine that fails here has already played its game
            pass
    close = getattr(player, "close", None)
    if close is not None:
        close()


def play_pair(job: PairJob) -> list[GameRow]:
    """The pair's two games, seats swapped on the same seed, as store rows.

    The dealer (:mod:`cardwar.arena.seeds`) keys the deal and each seat's seed with the
    tournament's secret, so no seat can rebuild the pair's seed or the other seat's cards;
    a tournament's games are a match's games with the same ``--secret``.
    """
    from cardwar.arena import Clock, make_player, play_game
    from cardwar.arena.seeds import Dealer
    from cardwar.envs import make_raw_env

    if "torch" in sys.modules:  # one thread a worker: the workers share the cores
        sys.modules["torch"].set_num_threads(1)
    clock = Clock(None if job.move_ms is None else job.move_ms / 1000, None if job.game_ms is None else job.game_ms / 1000)
    dealer = Dealer(job.secret)
    rows = []
    for g, (first, second, spec_first, spec_second) in enumerate(job.seats()):
        env = make_raw_env(job.game, job.scenario, job.rules)
        players = [make_player(spec_first, job.game, seed=dealer.seat(job.seed, 0)),
                   make_player(spec_second, job.game, seed=dealer.seat(job.seed, 1))]
        outcome = None
        try:
            outcome = play_game(env, players, dealer.deal(job.seed), game=job.game, specs=(spec_first, spec_second),
                                scenario=job.scenario, clock=clock)
        finally:
            result = None if outcome is None or outcome.record is None else outcome.record.result
            for p in players:
                _close(p, result)
        f = outcome.forfeit
        rows.append(GameRow(job.pairing, job.pair, g, job.seed, job.scenario, first, second, spec_first, spec_second,
                            _score(outcome.returns), outcome.returns, outcome.length, outcome.times,
                            None if f is None else f.seat, None if f is None else f.reason,
                            None if f is None else f.detail, outcome.record.to_json()))
    return rows
