"""Running a tournament: the scheduler's pairs, played by a backend, stored as they finish.

Backends, same rows for the same seeds (timings aside):

- ``local``: ``workers`` forked processes (:class:`cardwar.training.workers.WorkerPool`:
  they die with this process and report a failure in one line), or this process alone;
- ``ray``: Ray tasks on a cluster (``ray_address``) or on a local Ray started on the spot.

Every game names its deal to the engines' keeper (:func:`cardwar.players.seat_player`), so on any
backend and with any number of workers no engine process is dealt a game it has seen: a new
tournament deals each pairing its own games, and where deals are shared (``--shared-deals``,
``--reproducible-seeds``, tournaments stored before) a deal an engine has seen goes to another process.

Pairs whose games are already in the store (matched by content: :func:`cardwar.tournament.store.game_key`)
are skipped, so running the same command again after a kill resumes the tournament, and
reordering, adding or removing entrants plays only the pairs that are new. One process
plays a tournament at a time (:meth:`Store.running`). A gauntlet with ``sprt`` stops a
pairing once its pentanomial SPRT crosses a bound (checked on the stored pairs before the
first round and after each round).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, field, replace

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


RAY_CONNECT_S = 30.0  # a --ray-address that does not answer within this is refused in one line


def pairing_name(a: str, b: str) -> str:
    """The statistics' name of the pairing of ``a`` and ``b``: either order, and unambiguous whatever the names hold.

    (JSON of the two names sorted: ``["a-b", "c"]`` and ``["a", "b-c"]`` stay apart, as ``a-b-c`` would not.)
    """
    return json.dumps(sorted([a, b]), ensure_ascii=False)


def results_of(rows: Iterable[GameRow]) -> list[GameResult]:
    """Store rows as the statistics' input."""
    return [GameResult(pairing_name(r.first, r.second), r.pair, r.first, r.second, r.score_first) for r in rows]


def current_rows(config: TournamentConfig, store: Store) -> list[GameRow]:
    """The stored games of ``config`` as it is now, each given its place in the current schedule.

    A stored game counts when its key (who sat where with which spec, seed, scenario, rules,
    clock) is one the current schedule plays; games of removed entrants, of an entrant's old
    spec, or under an old clock stay in the database but not in the result. Each key is
    stored at most once, so a pair never holds more than its two games.
    """
    place: dict[str, tuple[int, int, int]] = {}
    for job in schedule(config):
        for g, key in enumerate(job.keys()):
            place[key] = (job.pairing, job.pair, g)
    rows = []
    for r in store.games(config.name):
        if r.key in place:
            p, k, g = place[r.key]
            rows.append(replace(r, pairing=p, pair=k, game_in_pair=g))
    return sorted(rows, key=lambda r: (r.pairing, r.pair, r.game_in_pair))


def pairs_done(config: TournamentConfig, store: Store) -> tuple[int, int]:
    """(pairs of the current schedule stored whole, pairs in the schedule)."""
    keys = store.keys(config.name)
    jobs = schedule(config)
    return sum(all(k in keys for k in j.keys()) for j in jobs), len(jobs)


def sprt_decision(config: TournamentConfig, rows: list[GameRow], a: str, b: str):
    """The SPRT result of ``a`` against ``b`` on the stored pairs (None without ``sprt``)."""
    if config.sprt is None:
        return None
    from cardwar.tournament.pentanomial import pentanomial
    from cardwar.tournament.sprt import sprt

    s = config.sprt
    return sprt(pentanomial(results_of(rows), a, b), s.elo0, s.elo1, s.alpha, s.beta)


Feed = Callable[[list[PairJob]], Iterator[list[GameRow]]]
"""A backend, opened once for the whole run: it plays a batch (a round, under the SPRT) and yields rows."""


@contextmanager
def _local(workers: int, jobs: int) -> Iterator[Feed]:
    """This process (``workers`` 1) or a pool of forked workers, kept across SPRT rounds, so each keeps its
    engines from pair to pair; the kept engines end with the run (and with each worker)."""
    from cardwar.players import close_engines

    if workers <= 1:
        try:
            yield lambda batch: map(play_pair, batch)
        finally:
            close_engines()
        return
    from cardwar.training.workers import WorkerPool

    with WorkerPool(play_pair, min(workers, jobs), name="tournament", on_exit=close_engines) as pool:
        yield lambda batch: (rows for _, rows in pool.imap_unordered(batch))


def play_pair_and_close(job: PairJob) -> list[GameRow]:
    """A pair as one Ray task: Ray's workers are killed, not asked to leave, so no engine is kept past it."""
    from cardwar.players import close_engines

    try:
        return play_pair(job)
    finally:
        close_engines()


def _host_port(address: str) -> tuple[str, int] | None:
    rest = address.split("://", 1)[1] if "://" in address else address
    host, colon, port = rest.rpartition(":")
    if not colon or not port.isdigit():
        return None
    return host.strip("[]") or "127.0.0.1", int(port)


def _die_with_parent() -> None:  # runs in the probe's child before exec
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            ctypes.CDLL(None).prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
        except (OSError, AttributeError):
            pass


_PROBE = ("import sys, ray\n"
          "ray.init(address=sys.argv[1], include_dashboard=False, log_to_driver=False, configure_logging=False)\n"
          "ray.shutdown()\n")


def ray_auth_problem(stderr: str, mode: str | None = None) -> str | None:
    """What a driver must do to join, if ``stderr`` (of a failed ``ray.init(address=...)``) says the cluster refused
    its token, else None. Since Ray 2.5x a cluster may run with token authentication, and a driver joins it only
    with ``RAY_AUTH_MODE=token`` and the cluster's token; Ray's own error names neither (``ConnectionError:
    Failed to connect to Ray cluster``, below an ``AuthenticationError``). ``mode``: this process's RAY_AUTH_MODE."""
    text = stderr.lower()
    if not any(k in text for k in ("authenticationerror", "invalidauthtoken", "token authentication is enabled")):
        return None
    mode = (os.environ.get("RAY_AUTH_MODE", "") if mode is None else mode).strip().lower()
    where = ("the head's ~/.ray/auth_token copied to ~/.ray/auth_token here, or RAY_AUTH_TOKEN (or "
             "RAY_AUTH_TOKEN_PATH); docs/training.md, RLlib, 'Scaling env runners across machines'")
    if mode != "token":
        return (f"the cluster uses token authentication and this driver does not (RAY_AUTH_MODE is "
                f"{mode or 'unset'}): set RAY_AUTH_MODE=token and give it the cluster's token: {where}")
    if "no authentication token was found" in text:
        return f"RAY_AUTH_MODE=token is set but no token was found: give the cluster's token: {where}"
    return f"the cluster refused this driver's token (RAY_AUTH_MODE=token): give the cluster's own token: {where}"


def check_ray_address(address: str, timeout: float = RAY_CONNECT_S) -> None:
    """Fail in one line, within about ``timeout`` seconds, unless a Ray cluster answers at ``address``.

    ``ray.init`` retries a wrong address for many minutes and cannot be interrupted, so the
    connection is tried first in a child process that is killed at the deadline (after a
    quick look at the TCP port, which tells a refused or unreachable address at once).
    """
    start = time.monotonic()
    hp = _host_port(address)
    if hp is not None:
        try:
            with socket.create_connection(hp, timeout=min(5.0, timeout)):
                pass
        except OSError as err:
            why = getattr(err, "strerror", None) or str(err) or "timed out"
            raise ValueError(f"--ray-address {address}: nothing answers at {hp[0]}:{hp[1]} ({why}); "
                             "is the Ray head running?") from None
    left = max(1.0, timeout - (time.monotonic() - start))
    proc = subprocess.Popen([sys.executable, "-c", _PROBE, address], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_die_with_parent)  # noqa: PLW1509 - sets only the death signal
    try:
        _, err = proc.communicate(timeout=left)
    except subprocess.TimeoutExpired:
        raise ValueError(f"--ray-address {address}: no Ray cluster answered within {timeout:.0f} s") from None
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        proc.wait()
    if proc.returncode != 0:
        auth = ray_auth_problem(err or "")
        if auth:
            raise ValueError(f"--ray-address {address}: {auth}")
        lines = [x.strip() for x in (err or "").splitlines() if x.strip()]
        why = next((x for x in reversed(lines) if "Error" in x or "error" in x), lines[-1] if lines else "")
        raise ValueError(f"--ray-address {address}: cannot connect to Ray ({why[:300] or f'exit {proc.returncode}'})")


@contextmanager
def _ray(workers: int, address: str | None) -> Iterator[Feed]:
    """Pairs as Ray tasks, on the cluster at ``address`` or a Ray of our own (started once for the run)."""
    import ray

    started = not ray.is_initialized()
    if started:
        ray.init(address=address or "local", num_cpus=None if address else workers, include_dashboard=False,
                 log_to_driver=False, configure_logging=False)
    task = ray.remote(num_cpus=1)(play_pair_and_close)

    def feed(batch: list[PairJob]) -> Iterator[list[GameRow]]:
        pending = [task.remote(j) for j in batch]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)

    try:
        yield feed
    finally:
        if started:
            ray.shutdown()


def run_tournament(config: TournamentConfig, store: Store, workers: int = 1, backend: str = "local",
                   ray_address: str | None = None, allow_changed: bool = False,
                   on_pair: Callable[[int, int], None] | None = None,
                   reproducible_seeds: bool = False, engine_log_dir: str | None = None,
                   shared_deals: bool = False) -> RunSummary:
    """Play every pair whose games are not yet stored; ``on_pair(done, total)`` after each stored pair.

    A new tournament draws its dealer's secret (kept in the store; ``reproducible_seeds``: none,
    the research seeds) and deals each pairing its own games (``shared_deals``: every pairing the
    pair seed's one deal); a resumed one deals as the store says it was dealt. A second process on
    the same tournament is refused (:class:`~cardwar.tournament.store.TournamentBusy`).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}; backends: {', '.join(BACKENDS)}")
    if backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ValueError("--backend ray needs Ray: pip install 'cardwar[ray]'") from None
        if ray_address is not None and not ray.is_initialized():
            check_ray_address(ray_address)
    elif ray_address is not None:
        raise ValueError("--ray-address names a Ray cluster for --backend ray; add --backend ray or leave it out")
    start = time.perf_counter()
    with store.running(config.name):
        store.open_tournament(config.name, config.to_dict(), config.digest(), allow_changed=allow_changed,
                              reproducible=reproducible_seeds, shared_deals=shared_deals)
        jobs = schedule(config, store.secret(config.name), engine_log_dir,
                        per_pairing=store.seeds(config.name) == "pairing")
        done = store.keys(config.name)
        if done:
            store.games(config.name)  # a stored game damaged inside its values is refused before a game is played
        finished = [all(k in done for k in j.keys()) for j in jobs]
        summary = RunSummary(already=sum(finished))
        todo = [j for j, f in zip(jobs, finished) if not f]
        total = len(jobs)
        pairings = config.pairings()

        def check_sprt() -> None:
            stored = current_rows(config, store)
            for p, (a, b) in enumerate(pairings):
                if p not in summary.sprt:
                    res = sprt_decision(config, [r for r in stored if r.pairing == p], a, b)
                    if res is not None and res.decision is not None:
                        summary.sprt[p] = res.decision

        if config.sprt is not None and summary.already:
            check_sprt()
        opened = _ray(workers, ray_address) if backend == "ray" else _local(workers, len(todo))
        with opened if todo else nullcontext() as feed:  # one pool (or Ray) for every round
            for batch in _rounds(todo) if config.sprt is not None else [todo]:
                batch = [j for j in batch if j.pairing not in summary.sprt]
                if not batch:
                    continue
                for rows in feed(batch):
                    store.add_pair(config.name, rows)
                    summary.played += 1
                    if on_pair is not None:
                        on_pair(summary.already + summary.played, total)
                if config.sprt is not None:
                    check_sprt()
        stored = store.keys(config.name)
        summary.skipped_by_sprt = sum(1 for j in todo if j.pairing in summary.sprt
                                      and not all(k in stored for k in j.keys()))
    summary.seconds = time.perf_counter() - start
    return summary


def _rounds(jobs: list[PairJob]) -> list[list[PairJob]]:
    by_pair: dict[int, list[PairJob]] = {}
    for j in jobs:
        by_pair.setdefault(j.pair, []).append(j)
    return [by_pair[k] for k in sorted(by_pair)]
