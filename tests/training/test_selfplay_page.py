"""The self-play env's page (``help(cardwar.training.selfplay_env)``): its code runs and it names every id."""

from __future__ import annotations

import pytest

from cardwar.training import selfplay_env
from tests.naval.pages import code_blocks

BLOCKS = code_blocks(selfplay_env.__doc__)


def test_the_page_has_its_examples_and_names_every_registered_id():
    assert len(BLOCKS) == 2
    for env_id in [*selfplay_env.IDS, *selfplay_env.RENAMED]:
        assert f"``{env_id}``" in selfplay_env.__doc__


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_every_code_block_of_the_page_runs(index):
    exec(compile(BLOCKS[index], f"selfplay_env page, block {index}", "exec"), {})
