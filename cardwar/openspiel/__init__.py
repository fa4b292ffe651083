"""The OpenSpiel bridge: cardwar's games as OpenSpiel games, and OpenSpiel bots as cardwar agents.

It sits above the envs and the agents (it reuses their encoders and cardwar's determinization)
and below the arena, which seats its bots from ``openspiel:...`` specs. It needs the optional
extra: ``pip install 'cardwar[openspiel]'`` (``open_spiel``, imported as ``pyspiel``).

    import pyspiel
    import cardwar.openspiel                       # registers python_cardwar_<game> for every registered game
    game = pyspiel.load_game("python_cardwar_hexwar", {"seed": 7, "scenario": "hill_and_hedgerows",
                                                       "hidden_units": True})

See ``docs/openspiel.md`` for what the bridge can and cannot do.
"""

from __future__ import annotations

from typing import Any

MISSING = "the OpenSpiel bridge needs open_spiel: pip install 'cardwar[openspiel]'"


def missing_open_spiel() -> bool:
    """Whether open_spiel is not installed; if so, one line on stderr says how to get it (a command then exits 2)."""
    import importlib.util
    import sys

    if importlib.util.find_spec("pyspiel") is not None:
        return False
    print(f"error: {MISSING}", file=sys.stderr)
    return True


try:
    import pyspiel  # noqa: F401
except ImportError:  # pragma: no cover - depends on the environment
    # The package still imports, so ``python -m cardwar.openspiel.train`` can say this in one line; every name
    # of the bridge raises ImportError with it (``from cardwar.openspiel import load``).
    def __getattr__(name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        raise ImportError(MISSING)
else:
    from cardwar.openspiel.games import GAME_NAMES, PREFIX, CardwarGame, CardwarState, load, register

    register()

__all__ = ["GAME_NAMES", "PREFIX", "CardwarGame", "CardwarState", "load", "missing_open_spiel", "register"]
