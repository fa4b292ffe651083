"""The README's Python examples run as written (a quickstart that fails is worse than none)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from tests.subprocesses import run_command

README = Path(__file__).resolve().parents[1] / "README.md"
BLOCKS = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.S)


def test_the_readme_has_python_examples():
    assert len(BLOCKS) >= 3


@pytest.mark.parametrize("index", range(len(BLOCKS)))
def test_readme_python_example_runs(index, tmp_path):
    done = run_command([sys.executable, "-c", BLOCKS[index]], cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
