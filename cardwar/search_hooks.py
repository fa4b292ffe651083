"""Registry hooks for searches that run outside cardwar's own agents (the OpenSpiel bridge's bots).

The registry (:mod:`cardwar.games`) names these in a game's ``extra``:

- ``state_from_view``: ``(observation, view, rng) -> engine state``: a full state built from the seat's
  information view alone (cardwar's determinization: unseen cards dealt at random, the dice from ``rng``),
  at the decision in hand, so its legal moves are the seat's mask. A game without it has no search bot
  that starts from a view.
- ``evaluate``: ``(engine state, seat) -> float`` in [-1, 1]: cardwar's search evaluation of an
  unfinished game, for short play-outs.
- ``max_game_length``: ``(engine state) -> int``: an upper bound on the decisions of a game of that
  scenario and rules (OpenSpiel's ``max_game_length``).

This module imports no optional package: the registry may name it from anywhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def naval_state_from_view(observation: Any, view: Any, rng: np.random.Generator) -> Any:
    """Naval: cardwar's determinization (``naval_search.determinize``), plus the one thing it leaves open:
    during the mulligans the second captain cannot see the first one's choice, which was made (RULES.md,
    the mulligan): a fair coin stands in for it."""
    from cardwar.agents.naval_search import determinize
    from cardwar.envs.naval.state import Phase

    s = determinize(view, rng)
    if s.phase == Phase.MULLIGAN and view.seat == 1 and s.mulligan_choices[0] is None:
        s.mulligan_choices[0] = bool(rng.integers(2))
    return s


def hex_state_from_view(observation: Any, view: Any, rng: np.random.Generator) -> Any:
    """Hex game: cardwar's determinization (``hexwar_search.determinize``: hidden enemy units left out),
    keeping the view's public unit ids, so the sample's view names its units as the seat's view did."""
    from cardwar.agents.hexwar_search import determinize

    s = determinize(view, rng)
    s.public_id = [u.uid for u in view.units]
    return s


def naval_max_game_length(state: Any) -> int:
    """Naval: ``max_game_steps`` of the rules in force (deck size, turns and decisions a turn)."""
    from cardwar.envs.naval.state import max_game_steps

    return int(max_game_steps(state.config))


def hex_max_game_length(state: Any) -> int:
    """Hex game: a turn deals one card per unit, and an activation is one decision plus perhaps the target's
    evasion (RULES.md 4, 7): two decisions per unit per turn."""
    return 2 * len(state.scenario.units) * int(state.scenario.turns)


__all__ = ["hex_max_game_length", "hex_state_from_view", "naval_max_game_length", "naval_state_from_view"]
