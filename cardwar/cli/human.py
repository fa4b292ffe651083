"""A person at the terminal, playing one seat as an agent would: from that seat's view only.

Moves are typed in the game's notation. ``help`` (or ``?``, ``moves``) lists the legal moves, ``board`` shows
the position again, ``png [FILE]`` writes the map picture (games with one: the hex game, the skirmish),
``quit`` ends the game. A defence, an evasion or a skirmish step is explained before the question. A mistyped
move gets the closest legal moves, an illegal one the rule that forbids it, and the question comes again; end
of input ends the game quietly.

The game's notation, its reasons for an illegal move and its note on the decision in front
come from the game registry (:mod:`cardwar.games`), so this works for every registered game.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from cardwar import games
from cardwar.record import check_writable

PROMPT = "your move (help for the list)> "


def ask(prompt: str) -> str:
    """:func:`input`, looked up when a question is asked (so a replaced ``input`` is the one used)."""
    return input(prompt)


class QuitGame(Exception):
    """The person asked to stop (``quit`` or end of input)."""


class Screen:
    """The terminal of one game: prints lines, and a board only when it differs from the last one shown."""

    def __init__(self, out: Callable[[str], None] = print) -> None:
        self.out = out
        self.last_board: str | None = None

    def board(self, text: str) -> None:
        """Show ``text`` (a board) unless it is exactly the board shown last."""
        if text != self.last_board:
            self.out("\n" + text)
            self.last_board = text


CELL = re.compile(r"([a-z]+)(\d+)")


def _cell(text: str) -> tuple[int, int] | None:
    """A grid cell's column and row (``E7`` -> (4, 7)), or None when ``text`` is not one cell."""
    m = CELL.fullmatch(text.strip().lower())
    if m is None:
        return None
    col = 0
    for ch in m.group(1):
        col = col * 26 + ord(ch) - ord("a") + 1
    return col - 1, int(m.group(2))


def closest_moves(text: str, legal: list[str], n: int = 3) -> list[str]:
    """The legal moves whose notation is closest to ``text`` (case ignored). A cell that is no legal answer
    (``A1`` where the answers are cells) gets the nearest legal cells on the map instead: spelling says
    nothing about where a cell lies."""
    by_low = {m.lower(): m for m in legal}
    near = [by_low[m] for m in difflib.get_close_matches(" ".join(text.lower().split()), by_low, n=n, cutoff=0.6)]
    asked = _cell(text)
    cells = {m: c for m in legal if (c := _cell(m)) is not None}
    if near or asked is None or not cells:
        return near

    def distance(move: str) -> tuple[int, int]:
        dc, dr = cells[move][0] - asked[0], cells[move][1] - asked[1]
        return max(abs(dc), abs(dr)), dc * dc + dr * dr

    return sorted(cells, key=distance)[:n]


class HumanPlayer:
    """Reads moves from ``read`` (default :func:`ask`, the terminal's :func:`input`) and shows the seat's view
    on ``screen``."""

    def __init__(self, game: str, seat: int, show: Callable[[Any], str], read: Callable[[str], str] = ask,
                 out: Callable[[str], None] = print, picture: Callable[[str], str] | None = None,
                 screen: Screen | None = None) -> None:
        self.name = "human"
        self.game, self.seat, self.show, self.read, self.out, self.picture = game, seat, show, read, out, picture
        self.screen = screen or Screen(out)
        g = games.get(game)
        self._to_str, self._parse = g.to_string, g.parse
        self._why = g.hook("why_illegal") if g.why_illegal is not None else (lambda view, action: None)
        self._note = g.hook("decision_note") if g.decision_note is not None else (lambda view: None)

    def act(self, observation: dict[str, np.ndarray], view: Any) -> int:
        """Ask until the person types a legal move; :class:`QuitGame` if they leave."""
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        self._show(view, again=False)
        while True:
            try:
                text = self.read(PROMPT).strip()
            except EOFError:
                raise QuitGame("input ended") from None
            if not text:
                continue
            word = text.lower().split()[0]
            if word in ("quit", "exit"):
                raise QuitGame("you left the game")
            if word in ("help", "?", "moves"):
                self.out("Legal moves: " + ", ".join(self._to_str(a) for a in legal))
            elif word == "board":
                self._show(view, again=True)
            elif word == "png":
                self._png(text)
            else:
                action = self._read_move(text, legal, view)
                if action is not None:
                    return action

    def _show(self, view: Any, again: bool) -> None:
        """The board (skipped when it is on the screen already, unless asked ``again``) and the question."""
        text = self.show(view)
        if again:
            self.out(text)
            self.screen.last_board = text
        else:
            self.screen.board(text)
        note = self._note(view)
        if note:
            self.out(note)

    def _read_move(self, text: str, legal: list[int], view: Any) -> int | None:
        """The legal action ``text`` names, or None after saying what is wrong with it."""
        names = [self._to_str(a) for a in legal]
        try:
            action = self._parse(text)
        except ValueError as err:  # the game's notation error
            self.out(f"cannot read that: {err}")
            self._suggest(text, names)
            return None
        if action in legal:
            return action
        move = self._to_str(action)
        self.out(f"{move!r} is not legal: {self._why(view, action) or 'not allowed now'}")
        self._suggest(move, names)
        return None

    def _suggest(self, text: str, names: list[str]) -> None:
        near = closest_moves(text, names)
        self.out(f"closest legal moves: {', '.join(near)}" if near else "type help for the legal moves")

    def _png(self, text: str) -> None:
        """``png [FILE]``: write the picture; a path that cannot be written is a message, not an end."""
        if self.picture is None:
            self.out("png: this game has no picture")
            return
        parts = text.split(maxsplit=1)
        path = parts[1].strip() if len(parts) > 1 else "cardwar_map.png"
        if not path.lower().endswith(".png"):
            self.out(f"png: give a file name ending in .png, not {path}")
            return
        try:
            check_writable(path)
            self.out(f"picture written to {self.picture(path)}")
        except OSError as err:
            self.out(f"png: cannot write {path}: {err.strerror or err}")
        except ValueError as err:
            self.out(f"png: {err}")
