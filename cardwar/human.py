"""A person at the terminal, playing one seat as an agent would: from that seat's view only.

Moves are typed in the game's notation. ``help`` (or ``?``) lists the legal
moves, ``board`` shows the position again, ``png [FILE]`` writes the hex map
picture, ``quit`` ends the game. Anything mistyped or illegal gets a message
and the question again; end of input ends the game quietly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


class QuitGame(Exception):
    """The person asked to stop (``quit`` or end of input)."""


class HumanPlayer:
    """Reads moves from ``read`` (default :func:`input`) and shows the seat's view with ``out``."""

    def __init__(self, game: str, seat: int, show: Callable[[Any], str], read: Callable[[str], str] = input,
                 out: Callable[[str], None] = print, picture: Callable[[str], str] | None = None) -> None:
        self.name = "human"
        self.game, self.seat, self.show, self.read, self.out, self.picture = game, seat, show, read, out, picture
        if game == "naval":
            from cardwar.envs.naval import NotationError, action_to_string, string_to_action
        else:
            from cardwar.envs.hexwar.actions import HexNotationError as NotationError  # type: ignore[assignment]
            from cardwar.envs.hexwar.actions import action_to_string, string_to_action  # type: ignore[assignment]
        self._to_str, self._parse, self._error = action_to_string, string_to_action, NotationError

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        self.out("\n" + self.show(view))
        while True:
            try:
                text = self.read("your move (help for the list)> ").strip()
            except EOFError:
                raise QuitGame("input ended") from None
            if not text:
                continue
            word = text.lower().split()[0]
            if word in ("quit", "exit"):
                raise QuitGame("you left the game")
            if word in ("help", "?", "moves"):
                self.out("Legal moves: " + ", ".join(self._to_str(a) for a in legal))
                continue
            if word == "board":
                self.out(self.show(view))
                continue
            if word == "png":
                if self.picture is None:
                    self.out("png: this game has no picture")
                else:
                    path = text.split(maxsplit=1)[1] if len(text.split()) > 1 else "cardwar_map.png"
                    self.out(f"picture written to {self.picture(path)}")
                continue
            try:
                action = self._parse(text)
            except self._error as err:
                self.out(f"cannot read that: {err}")
                continue
            if action not in legal:
                self.out(f"{self._to_str(action)!r} is not legal now; type help for the legal moves")
                continue
            return action
