"""Suite-wide: which ``slow`` tests the default run leaves out.

The thousand-game scans of the skirmish and Tank Attack, the long agent matches, the skirmish through OpenSpiel,
whole Tank Attack games on its 16 x 24 maps in Chromium and the two-node Ray cluster are marked ``slow`` and
skipped by default;
``-m slow`` (or ``CARDWAR_SLOW=1``) runs them. Elsewhere ``slow`` only says a test takes more than about 20 s
(the real ``cardwar train`` processes of tests/training): those stay in the default run.
"""

from __future__ import annotations

import os

import pytest

SKIPPED_UNLESS_ASKED = {os.path.join(os.path.dirname(__file__), d): why for d, why in [
    ("skirmish", "thousands of games"), ("agents", "thousands of games"), ("tankattack", "thousands of games"),
    ("openspiel", "the skirmish's long games through the OpenSpiel bridge"),
    ("serve/test_tankattack_decisions.py", "whole Tank Attack games on the 16 x 24 maps in Chromium (minutes)"),
    ("training/test_rllib_cluster.py", "a two-node Ray cluster with token authentication (about 80 s)")]}


def pytest_collection_modifyitems(config, items) -> None:
    if "slow" in (config.getoption("markexpr", "") or "") or os.environ.get("CARDWAR_SLOW"):
        return
    for item in items:
        if "slow" not in item.keywords:
            continue
        for where, why in SKIPPED_UNLESS_ASKED.items():
            if str(item.fspath).startswith(where):
                item.add_marker(pytest.mark.skip(reason=f"{why}: run with -m slow or CARDWAR_SLOW=1"))
