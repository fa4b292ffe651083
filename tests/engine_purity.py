"""Shared check: a rules-engine package imports no RL library (the architecture's one-way data flow)."""

from __future__ import annotations

import ast
import pathlib

BANNED = {"gymnasium", "pettingzoo", "torch", "stable_baselines3", "sb3_contrib"}


def rl_imports(package_dir: pathlib.Path) -> list[str]:
    """``"file.py imports X"`` for every banned import under ``package_dir`` (and the rule-option helper)."""
    found = []
    for path in sorted(package_dir.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name} imports {n}" for n in names if n.split(".")[0] in BANNED]
    return found
