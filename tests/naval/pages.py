"""Reading an env's documentation page (its module docstring) as a user would: its tables and its code."""

from __future__ import annotations

import re


def page_tables(doc: str) -> list[list[dict[str, str]]]:
    """Every Markdown table of ``doc``, as a list of rows keyed by the header's cells."""
    tables, lines = [], doc.splitlines()
    k = 0
    while k < len(lines):
        if lines[k].startswith("|") and k + 1 < len(lines) and re.fullmatch(r"\|[-|\s]+\|", lines[k + 1]):
            header = [c.strip() for c in lines[k].strip("|").split("|")]
            rows, k = [], k + 2
            while k < len(lines) and lines[k].startswith("|"):
                rows.append(dict(zip(header, (c.strip() for c in lines[k].strip("|").split("|")))))
                k += 1
            tables.append(rows)
        else:
            k += 1
    return tables


def table_with(doc: str, column: str) -> list[dict[str, str]]:
    """The one table of ``doc`` that has ``column``."""
    found = [t for t in page_tables(doc) if t and column in t[0]]
    assert len(found) == 1, f"{len(found)} tables with a {column!r} column"
    return found[0]


def id_span(text: str) -> range:
    """``"0..467"`` or ``"3016"`` as the range of ids it names."""
    first, _, last = text.partition("..")
    return range(int(first), int(last or first) + 1)


def code_blocks(doc: str) -> list[str]:
    """The page's fenced ```python blocks and its reST ``::`` literal blocks, dedented."""
    blocks = re.findall(r"```python\n(.*?)```", doc, flags=re.S)
    for match in re.finditer(r"::\n\n((?:(?: {4,}.*)?\n)+)", doc):
        lines = match.group(1).rstrip().splitlines()
        indent = min(len(x) - len(x.lstrip()) for x in lines if x.strip())
        blocks.append("\n".join(x[indent:] for x in lines))
    return blocks


def header_code(doc: str) -> list[str]:
    """The code in the page's header table: the ``Import`` line and the ``pettingzoo.make`` call."""
    found = re.findall(r"`(from [\w.]+ import \w+)`", doc) + re.findall(r"`(pettingzoo\.make\([^`]*\))`", doc)
    return found


def run_page_code(name: str, doc: str) -> None:
    """Run every line of code the page of env module ``name`` shows (its import line, its make call and its
    code blocks), as a user pasting them would; the page must be fully filled in and import ``name``."""
    assert "{{" not in doc
    lines = header_code(doc)
    assert f"from cardwar.envs import {name}" in lines
    for code in lines + code_blocks(doc):
        exec(compile("import pettingzoo\nimport cardwar.envs\n" + code, name, "exec"), {})
    assert len(code_blocks(doc)) >= 1
