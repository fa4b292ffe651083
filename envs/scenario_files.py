"""Scenario files shared by the hex games: a shipped name or a path, read as UTF-8 YAML with one-line errors.

Each game keeps its own folder of shipped scenarios, its own error class and its own wording for an
unknown name; the file handling (which path a name means, what a folder, a missing file, a binary or
unreadable file, or YAML that does not parse says) is the same and lives here once, and so does the
start of the field reader (:class:`FieldReader`) that checks the parsed mapping. Pure Python (YAML is
imported only when a file is parsed), no game rules.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from typing import Any


def shipped_names(folder: pathlib.Path) -> list[str]:
    """The names (file stems) of the ``.yaml`` files in ``folder``, sorted."""
    return sorted(p.stem for p in folder.glob("*.yaml"))


def yaml_error_line(err: Exception) -> str:
    """A YAML parser error as one line: what is wrong and where (line, column)."""
    mark = getattr(err, "problem_mark", None) or getattr(err, "context_mark", None)
    what = getattr(err, "problem", None) or getattr(err, "context", None)
    if mark is None or what is None:
        return " ".join(str(err).split())
    return " ".join(f"{what} at line {mark.line + 1}, column {mark.column + 1}".split())


def resolve_path(name_or_path: str, folder: pathlib.Path, error: type[Exception],
                 unknown: Callable[[str], str]) -> pathlib.Path:
    """The file of a shipped name in ``folder``, or ``name_or_path`` itself when it names a file or folder.

    A string with a ``.yaml``/``.yml`` suffix, one that exists, or one with a folder part is a path; any
    other string must be a shipped name, else ``error(unknown(name_or_path))``.
    """
    path = pathlib.Path(name_or_path)
    shipped = folder / f"{name_or_path}.yaml"
    if path.suffix in (".yaml", ".yml") or path.exists() or len(path.parts) > 1:
        return path
    if shipped.is_file():
        return shipped
    raise error(unknown(name_or_path))


def read_text(path: pathlib.Path, error: type[Exception], what: str = "scenario") -> str:
    """The UTF-8 text of the ``what`` file at ``path``; a folder, a missing, binary or unreadable file is
    ``error`` with one line naming the file."""
    if path.is_dir():
        raise error(f"{path}: is a folder, not a {what} file (give a .yaml file)")
    if not path.exists():
        raise error(f"{path}: no such {what} file")
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: not a text file (a {what} is UTF-8 YAML text)") from None
    except OSError as err:
        raise error(f"{path}: cannot be read: {err.strerror or err}") from None
    if "\x00" in text:
        raise error(f"{path}: not a text file (a {what} is UTF-8 YAML text)")
    return text


def load_yaml(path: pathlib.Path, error: type[Exception], what: str = "scenario") -> Any:
    """The YAML data of the ``what`` file at ``path``; every failure (see :func:`read_text`, or YAML that
    does not parse) is ``error`` with one line naming the file."""
    import yaml

    text = read_text(path, error, what)
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise error(f"{path}: not valid YAML: {yaml_error_line(err)}") from None


class FieldReader:
    """Field access that reports the file and the field path on any mistake.

    A game subclasses it with its ``error`` class (and ``one_line = True`` to fold every message's
    white space, values included, into one line) and adds the field kinds it needs."""

    error: type[Exception] = ValueError
    one_line = False

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, msg: str) -> Exception:
        text = f"{self.source}: {where}: {msg}"
        return self.error(" ".join(text.split()) if self.one_line else text)

    def mapping(self, data: Any, where: str, required: set[str], optional: set[str]) -> dict:
        if not isinstance(data, dict):
            raise self.fail(where, f"expected a mapping, got {type(data).__name__}")
        missing = required - set(data)
        if missing:
            raise self.fail(where, f"missing field(s) {', '.join(sorted(missing))}")
        unknown = set(data) - required - optional
        if unknown:
            raise self.fail(where, f"unknown field(s) {', '.join(sorted(map(str, unknown)))}; "
                                   f"known: {', '.join(sorted(required | optional))}")
        return data

    def integer(self, value: Any, where: str, lo: int, hi: int) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= hi:
            raise self.fail(where, f"expected an integer {lo}..{hi}, got {value!r}")
        return value
