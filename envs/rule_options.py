"""Validation shared by the games' rule-option dataclasses (pure Python).

Both games keep their options in a frozen dataclass; these helpers give every
mistake the same clear message: the game, the option, and what is allowed.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, TypeVar

T = TypeVar("T")


def check_options(obj: Any, game: str, choices: dict[str, tuple[str, ...]], error: type[ValueError]) -> None:
    """Every choice field holds one of its values and every ``bool`` field a bool."""
    for name, allowed in choices.items():
        value = getattr(obj, name)
        if value not in allowed:
            raise error(f"{game} rule option {name}={value!r} is not one of {', '.join(map(repr, allowed))}")
    for f in fields(obj):
        if f.type in ("bool", bool) and not isinstance(getattr(obj, f.name), bool):
            raise error(f"{game} rule option {f.name} must be true or false, got {getattr(obj, f.name)!r}")


def options_from_dict(cls: type[T], options: dict[str, Any] | None, game: str, error: type[ValueError]) -> T:
    """Build ``cls`` from a mapping; unknown keys are an ``error`` naming the known ones."""
    options = dict(options or {})
    known = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    unknown = sorted(set(options) - known)
    if unknown:
        raise error(f"unknown {game} rule option(s) {', '.join(unknown)}; known options: {', '.join(sorted(known))}")
    return cls(**options)
