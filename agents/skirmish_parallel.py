"""Root parallelism for the skirmish search (``mcts:workers=2``, issue 31): the paired comparison's rows
(one determinization each, every plan played on it) shared between this process and helper processes.

A row depends only on its seed, the view, the seat's memory of its own answers and the plans, so with a
fixed ``iterations`` the rows are the same whoever plays them and the choice is the serial search's; with
``seconds`` each process plays rows from its own seeds until the deadline, so more rows fit. Each helper
keeps one search object per option set and one public scenario per map (its sight tables are built once).
Only the seat's view and its own answers cross to a helper: nothing the seat may not know.
"""

from __future__ import annotations

import hashlib
import pickle
import time
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

import numpy as np

_SEARCHES: dict[tuple, Any] = {}
_SCENARIOS: dict[str, Any] = {}


def _rows(options: tuple, scenario_key: str, scenario_bytes: bytes | None, view: Any, memory: Any,
          plans: list[list[int]], seeds: list[int] | None, base_seed: int, deadline: float | None) -> list[list[float]]:
    """In a helper: the rows of ``seeds``, or (with ``seeds`` None) rows from ``base_seed``'s stream until
    ``deadline`` (``time.time()``, the same clock in every process)."""
    from cardwar.agents.skirmish_search import SkirmishSearch

    search = _SEARCHES.get(options)
    if search is None:
        search = _SEARCHES[options] = SkirmishSearch(seed=0, seconds=None, iterations=1, **dict(options))
    scenario = _SCENARIOS.get(scenario_key)
    if scenario is None:
        if scenario_bytes is None:
            raise KeyError("scenario not sent")
        if len(_SCENARIOS) > 16:
            _SCENARIOS.clear()
        scenario = _SCENARIOS[scenario_key] = pickle.loads(scenario_bytes)
    search._scenario, search._plans, search.memory = scenario, plans, memory
    n = len(plans)
    if seeds is not None:
        return [[search._play(view, k, s) for k in range(n)] for s in seeds]
    rng = np.random.default_rng(base_seed)
    out: list[list[float]] = []
    while deadline is not None and time.time() < deadline:
        s = int(rng.integers(2**63))
        out.append([search._play(view, k, s) for k in range(n)])
    return out


class RowPool:
    """Helper processes (``workers - 1`` of them: this process plays its share too), started on first use."""

    def __init__(self, workers: int, options: dict[str, Any]) -> None:
        self.helpers = max(0, workers - 1)
        self.options = tuple(sorted(options.items()))
        self._pool: ProcessPoolExecutor | None = None
        self._sent: set[str] = set()

    def _scenario(self, scenario: Any) -> tuple[str, bytes | None]:
        data = pickle.dumps(scenario)
        key = hashlib.blake2b(data, digest_size=16).hexdigest()
        return key, (None if key in self._sent else data)

    def submit(self, scenario: Any, view: Any, memory: Any, plans: list[list[int]], seeds_each: list[list[int]] | None,
               base_seeds: list[int], deadline: float | None) -> list[Future]:
        """Start each helper on its share: ``seeds_each[i]`` (fixed rows) or rows until ``deadline``."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.helpers)
            self._sent = set()
        key, data = self._scenario(scenario)
        # every helper must get the map once: until all have, send it with each job
        futures = [self._pool.submit(_rows, self.options, key, data, view, memory, plans,
                                     None if seeds_each is None else seeds_each[i], base_seeds[i], deadline)
                   for i in range(self.helpers)]
        return futures

    def mark_sent(self, scenario: Any) -> None:
        """Every helper has the map (after a round in which each one answered)."""
        if self.helpers == 1:
            self._sent.add(self._scenario(scenario)[0])

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
            self._sent = set()
