"""The plug-in proof, read from the source (issue 30 item 4): nothing above ``envs/``, ``agents/`` and ``training/``
names a game, except the game registry (``cardwar/games.py``) and each game's page module
(``cardwar/serve/static/<page>.js``). Everything a layer needs of a game comes from its registry entry.

What counts as naming a game: a shipped game's name (any case) inside an identifier or a string literal of the
code: ``if game == "naval"``, ``naval_steps``, ``"cardwar.envs.naval.codec"``, a help text that lists games.
Docstrings and comments may name a game: they cite an example or the rules, and change no behaviour (a layer
whose docstring says "naval's hand tables" works the same for a fifth game). The game's names are the registry's,
so a game added later is covered with no edit here.

The few files still allowed to name games are listed in :data:`EXCEPTIONS` with the reason; a listed file that
no longer names any game fails :func:`test_every_exception_is_still_needed`, so the list only shrinks.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

import pytest

from cardwar import games

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "cardwar"
STATIC = PACKAGE / "serve" / "static"


EXCEPTIONS: dict[str, str] = {
    "cardwar/cli/bench.py": "`cardwar bench`: steps/s of each of our named envs (naval-v0, naval-v1, hexwar-v1, ...) "
                            "beside PettingZoo's classic envs, a table of fixed rows that docs/benchmarks.md quotes "
                            "(under change for the WW1 game's speed at the time of writing)",
    "cardwar/cli/hexwar_balance.py": "the hex game's own study tool (its map generator's balance, "
                                     "`python -m cardwar.cli.hexwar_balance`, docs/hexwar-balance.md): no layer that "
                                     "another game goes through imports it, and it plays the game's agents, so it "
                                     "sits above them",
    "cardwar/cli/tankattack_balance.py": "the WW1 game's own study tool (its generated maps' balance by seed range, "
                                         "`python -m cardwar.cli.tankattack_balance`, docs/tankattack-balance.md): as "
                                         "hexwar_balance.py",
}


def _names() -> tuple[str, ...]:
    """The shipped games: the registry's entries whose env is one of ours (``cardwar.envs.*``)."""
    return tuple(name for name in games.names()
                 if isinstance(games.get(name).env, str) and games.get(name).env.startswith("cardwar.envs."))


def _pattern() -> re.Pattern[str]:
    return re.compile("|".join(re.escape(n) for n in _names()), re.IGNORECASE)


def _docstrings(tree: ast.AST) -> set[tuple[int, int]]:
    """Where each docstring starts: a string expression standing alone as a statement (a module's, class's or
    function's docstring, or an attribute's docstring under an assignment)."""
    return {(node.lineno, node.col_offset) for node in ast.walk(tree)
            if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}


def python_hits(path: Path) -> list[str]:
    """``"line: token"`` for each identifier or string literal (not a docstring, not a comment) naming a game."""
    source = path.read_text(encoding="utf-8")
    docs = _docstrings(ast.parse(source))
    pattern = _pattern()
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and tok.start in docs:
            continue
        if tok.type in (tokenize.NAME, tokenize.STRING) and pattern.search(tok.string):
            hits.append(f"{tok.start[0]}: {tok.string[:80]}")
    return hits


def static_hits(path: Path) -> list[str]:
    """``"line: text"`` for each line of a page file naming a game."""
    pattern = _pattern()
    return [f"{n}: {line.strip()[:80]}" for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line)]


def _page_modules() -> set[str]:
    return {f"{games.get(name).page}.js" for name in _names() if games.get(name).page}


def _checked() -> list[Path]:
    """Every .py of the package outside the registry, and every page file outside the games' page modules."""
    py = [p for p in sorted(PACKAGE.rglob("*.py")) if p != PACKAGE / "games.py" and "__pycache__" not in p.parts]
    pages = [p for p in sorted(STATIC.iterdir()) if p.is_file() and p.name not in _page_modules()]
    return py + pages


def _hits(path: Path) -> list[str]:
    return python_hits(path) if path.suffix == ".py" else static_hits(path)


def test_the_shipped_games_are_all_checked() -> None:
    assert {"naval", "hexwar", "skirmish", "tankattack"} <= set(_names())


def test_the_checker_sees_names_in_code_and_not_in_docstrings_or_comments(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text('"""The naval game\'s hand tables."""\n\n'
                      'X = 1  # hexwar, in a comment\n'
                      'def f(game):\n    """Skirmish."""\n    return game == "naval" or HEXWAR_STYLE\n'
                      'Y = f"{1}cardwar.envs.tankattack.codec"\n', encoding="utf-8")
    assert [h.split(": ")[1] for h in python_hits(sample)] == ['"naval"', "HEXWAR_STYLE",
                                                              'f"{1}cardwar.envs.tankattack.codec"']


def test_nothing_above_envs_agents_and_training_names_a_game() -> None:
    found = {}
    for path in _checked():
        rel = path.relative_to(ROOT).as_posix()
        if rel in EXCEPTIONS:
            continue
        hits = _hits(path)
        if hits:
            found[rel] = hits[:5]
    assert not found, ("these name a game; move what they know of it into its registry entry (cardwar/games.py, "
                       f"docs/adding-a-game.md): {found}")


@pytest.mark.parametrize("rel", sorted(EXCEPTIONS))
def test_every_exception_is_still_needed(rel: str) -> None:
    path = ROOT / rel
    assert path.is_file() and _hits(path), f"{rel} names no game now (or is gone): take it off EXCEPTIONS"
