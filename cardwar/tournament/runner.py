"""Running a tournament: the scheduler's pairs, played by a backend, stored as they finish.

Backends, same rows for the same seeds (timings aside):

- ``local``: ``workers`` forked processes (:class:`cardwar.training.workers.WorkerPool`:
  they die with this process and report a failure in one line), or this process alone;
- ``ray``: Ray tasks on a cluster (``ray_address``) or on a local Ray started on the spot.

Pairs already in the store are skipped, so running the same command again after a
kill resumes the tournament; a gauntlet with ``sprt`` stops a pairing once its
pentanomial SPRT crosses a bound (checked after each round of pairs).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from cardwar.tournament.config import TournamentConfig
from cardwar.tournament.game_result import GameResult
from cardwar.tournament.play import play_pair
from cardwar.tournament.schedule import PairJob, schedule
from cardwar.tournament.store import GameRow, Store

BACKENDS = ("local", "ray")


@dataclass
class RunSummary:
    """What a run did: pairs played now and before, pairings stopped by SPRT, seconds."""

    played: int = 0
    already: int = 0
    skipped_by_sprt: int = 0
    sprt: dict[int, str] = field(default_factory=dict)
    seconds: float = 0.0


def results_of(rows: Iterable[GameRow]) -> list[GameResult]:
    """Store rows as the statistics' input."""
    return [GameResult(f"{min(r.first, r.second)}-{max(r.first, r.second)}", r.pair, r.first, r.second,
                       r.score_first) for r in rows]


def sprt_decision(config: TournamentConfig, rows: list[GameRow], a: str, b: str):
    """The SPRT result of ``a`` against ``b`` on the stored pairs (None without ``sprt``)."""
    if config.sprt is None:
        return None
    from cardwar.tournament.pentanomial import pentanomial
    from cardwar.tournament.sprt import sprt

    s = config.sprt
    return sprt(pentanomial(results_of(rows), a, b), s.elo0, s.elo1, s.alpha, s.beta)


def _local(jobs: list[PairJob], workers: int) -> Iterator[list[GameRow]]:
    if workers <= 1:
        yield from map(play_pair, jobs)
        return
    from cardwar.training.workers import WorkerPool

    with WorkerPool(play_pair, min(workers, len(jobs)), name="tournament") as pool:
        for _, rows in pool.imap_unordered(jobs):
            yield rows


def _ray(jobs: list[PairJob], workers: int, address: str | None) -> Iterator[list[GameRow]]:
    try:
        import ray
    except ImportError:
        raise ValueError("--backend ray needs Ray: pip install 'cardwar[ray]'") from None
    started = not ray.is_initialized()
    if started:
        ray.init(address=address, num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    try:
        task = ray.remote(num_cpus=1)(play_pair)
        pending = [task.remote(j) for j in jobs]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def run_tournament(config: TournamentConfig, store: Store, workers: int = 1, backend: str = "local",
                   ray_address: str | None = None, allow_changed: bool = False,
                   on_pair: Callable[[int, int], None] | None = None) -> RunSummary:
    """Play every pair not yet stored; ``on_pair(done, total)`` after each stored pair."""
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    start = time.perf_counter()
    store.open_tournament(config.name, config.to_dict(), config.digest(), allow_changed=allow_changed)
    jobs = schedule(config)
    done = store.done_pairs(config.name)
    summary = RunSummary(already=sum((j.pairing, j.pair) in done for j in jobs))
    todo = [j for j in jobs if (j.pairing, j.pair) not in done]
    total = len(jobs)
    rounds = _rounds(todo) if config.sprt is not None else [todo]
    pairings = config.pairings()
    for batch in rounds:
        batch = [j for j in batch if j.pairing not in summary.sprt]
        if not batch:
            continue
        feed = _ray(batch, workers, ray_address) if backend == "ray" else _local(batch, workers)
        for rows in feed:
            store.add_pair(config.name, rows)
            summary.played += 1
            if on_pair is not None:
                on_pair(summary.already + summary.played, total)
        if config.sprt is not None:
            stored = store.games(config.name)
            for p, (a, b) in enumerate(pairings):
                if p in summary.sprt:
                    continue
                res = sprt_decision(config, [r for r in stored if r.pairing == p], a, b)
                if res is not None and res.decision is not None:
                    summary.sprt[p] = res.decision
    stored = store.done_pairs(config.name)
    summary.skipped_by_sprt = sum(1 for j in todo if j.pairing in summary.sprt and (j.pairing, j.pair) not in stored)
    summary.seconds = time.perf_counter() - start
    return summary


def _rounds(jobs: list[PairJob]) -> list[list[PairJob]]:
    by_pair: dict[int, list[PairJob]] = {}
    for j in jobs:
        by_pair.setdefault(j.pair, []).append(j)
    return [by_pair[k] for k in sorted(by_pair)]
