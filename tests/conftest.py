"""Suite-wide: which ``slow`` tests the default run leaves out.

The thousand-game scans of the skirmish and the long agent matches are marked ``slow`` and skipped by default;
``-m slow`` (or ``CARDWAR_SLOW=1``) runs them. Elsewhere ``slow`` only says a test takes more than about 20 s
(the real ``cardwar train`` processes of tests/training): those stay in the default run.
"""

from __future__ import annotations

import os

import pytest

SKIPPED_UNLESS_ASKED = tuple(os.path.join(os.path.dirname(__file__), d) for d in ("skirmish", "agents"))


def pytest_collection_modifyitems(config, items) -> None:
    if "slow" in (config.getoption("markexpr", "") or "") or os.environ.get("CARDWAR_SLOW"):
        return
    skip = pytest.mark.skip(reason="thousands of games: run with -m slow or CARDWAR_SLOW=1")
    for item in items:
        if "slow" in item.keywords and str(item.fspath).startswith(SKIPPED_UNLESS_ASKED):
            item.add_marker(skip)
