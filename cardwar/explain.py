"""Words for a person at the table: why a move is illegal, and what a decision costs.

:func:`why_illegal` and :func:`decision_note` ask the game's hooks in the registry
(:mod:`cardwar.games`); each game's hooks are its own (the skirmish's next to its rules, naval's and the hex
game's beside their searches, ``cardwar.agents.<game>_explain``, whose ``determinize`` they use).

Everything here is worked out from the seat's information view only. The verdict
"legal or not" is the engine's own: the view is turned into a state consistent with
it (the search agents' ``determinize``: unseen cards dealt at random, hidden enemy
units left out) and that state's rule helpers are asked which condition fails, so a
reason can never mention a card or a unit the seat does not know of.
"""

from __future__ import annotations

from typing import Any


def why_illegal(game: Any, view: Any, action: int) -> str | None:
    """The rule that forbids ``action`` for the seat of ``view``, or None if it is legal (or the game has
    nothing to say): the game's ``why_illegal`` hook in the registry (:mod:`cardwar.games`); ``game`` is its
    name or its entry, resolved already."""
    from cardwar import games

    g = games.get(game)
    return None if g.why_illegal is None else g.hook("why_illegal")(view, action)


def decision_note(game: Any, view: Any) -> str | None:
    """A few lines that explain the decision in front of the seat (a defence, an evasion, a step), or None: the
    game's ``decision_note`` hook in the registry; ``game`` is its name or its entry."""
    from cardwar import games

    g = games.get(game)
    return None if g.decision_note is None else g.hook("decision_note")(view)
