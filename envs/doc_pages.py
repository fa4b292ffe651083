"""Doc pages assembled from the code: the encoders' tables, put into module docstrings at import.

A page (a module docstring) holds markers such as ``{{ACTION_TABLE}}`` on lines of their own;
:func:`fill` replaces each with a Markdown table that the encoding module builds from the very
constants and names its encoder uses, so a page shows the encoding that runs and cannot drift
from it. Pure Python: the rules engines use it for their own module docstrings too.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_MARKER = re.compile(r"\{\{([A-Z_]+)\}\}")


def id_range(first: int, last: int) -> str:
    """``"3"`` for one id, ``"0..467"`` for a range (both ends included)."""
    return str(first) if first == last else f"{first}..{last}"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A Markdown table of ``rows`` under ``header``, columns padded to line up in plain text."""
    lines = [[str(h) for h in header]] + [[str(c).replace("|", "\\|") for c in row] for row in rows]
    widths = [max(len(line[k]) for line in lines) for k in range(len(header))]

    def fmt(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    return "\n".join([fmt(lines[0]), "|" + "|".join("-" * (w + 2) for w in widths) + "|"] + [fmt(x) for x in lines[1:]])


def fill(doc: str | None, **tables: str) -> str | None:
    """``doc`` with each ``{{NAME}}`` replaced by ``tables[NAME]``; every marker and every table must be used.

    ``None`` (docstrings stripped by ``python -OO``) stays ``None``."""
    if doc is None:
        return None
    used = set(_MARKER.findall(doc))
    if used != set(tables):
        raise ValueError(f"page markers {sorted(used)} do not match the tables given {sorted(tables)}")
    return _MARKER.sub(lambda m: tables[m.group(1)], doc)
