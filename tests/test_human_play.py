"""`cardwar play` with a person at the keyboard, driven through standard input."""

from __future__ import annotations

import re
import subprocess
import sys

import numpy as np
import pytest

from cardwar.record import GameRecord, final_state
from tests.subprocesses import run_command


def run_play(args: list[str], stdin: str) -> subprocess.CompletedProcess:
    return run_command([sys.executable, "-m", "cardwar.cli", "play", *args], input=stdin, timeout=300)


def test_naval_game_through_stdin_survives_garbage_and_finishes():
    # Every prompt gets garbage first; then the first legal answer among keep / nodefend / pass / sink.
    cycle = "fire the cannons!\ndeploy 99Z Q\n\nhelp\nkeep\nnodefend\npass\n"
    r = run_play(["naval", "--opponent", "heuristic", "--seed", "2"], cycle * 400)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "cannot read that" in r.stdout and "Legal moves:" in r.stdout
    assert "Result: " in r.stdout and "Game abandoned" not in r.stdout


def test_naval_player_sees_only_their_own_hand():
    r = run_play(["naval", "--opponent", "heuristic", "--seed", "2", "--viewer", "omniscient"], "quit\n")
    assert r.returncode == 0 and "Game abandoned" in r.stdout
    assert "Captain B  hand: 7 cards (hidden)" in r.stdout  # no omniscience for a player


def test_hex_game_through_stdin_survives_garbage_and_writes_a_picture(tmp_path):
    png = tmp_path / "me.png"
    cycle = f"charge!\nshoot Z99\npng {png}\nno evade\npass\n"
    r = run_play(["hexwar", "--scenario", "meeting_engagement", "--opponent", "heuristic", "--seed", "1"],
                 cycle * 600)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "cannot read that" in r.stdout and "Result: " in r.stdout
    assert png.exists() and png.stat().st_size > 1000


def test_end_of_input_leaves_quietly():
    r = run_play(["hexwar", "--opponent", "heuristic", "--seat", "red"], "")
    assert r.returncode == 0 and "Game abandoned: input ended" in r.stdout


# ------------------------------------------------------------------ in-process games with a scripted person
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9AJQK])[CDHS](?![A-Za-z0-9])")


class RandomPerson:
    """Types ``help``, then one of the legal moves it was shown (seeded); keeps every line printed."""

    def __init__(self, seed: int, on_print=None) -> None:
        self.rng, self.lines, self.on_print = np.random.default_rng(seed), [], on_print

    def out(self, text: str = "") -> None:
        if self.on_print is not None:
            self.on_print(text)
        self.lines.append(text)

    def read(self, prompt: str) -> str:
        last = self.lines[-1] if self.lines else ""
        if last.startswith("Legal moves: "):
            moves = last[len("Legal moves: "):].split(", ")
            return moves[int(self.rng.integers(len(moves)))]
        return "help"


def _seen_by(view) -> set[int]:
    """Cards a captain's view shows: own hand, ships, discards, mulligan-shown, the last battle's hands."""
    seen = set(view.hand) | {c for c in view.board_card if c >= 0} | set(view.discards) | set(view.mulligan_shown)
    if view.last_battle is not None:
        seen |= set(view.last_battle.attack_hand) | set(view.last_battle.defence_hand)
    if view.pending is not None and view.pending.own_card >= 0:
        seen.add(view.pending.own_card)
    return seen


@pytest.mark.parametrize("seat, seed", [(0, 11), (1, 12)])
def test_a_person_is_never_shown_a_card_they_may_not_know(monkeypatch, tmp_path, seat, seed):
    """Every card named on the screen, at the moment it is printed, is one the person's view has shown."""
    from cardwar import games
    from cardwar.envs.naval import NavalConfig
    from cardwar.envs.naval.cards import card_to_str
    from cardwar.cli.play import play_game

    envs = []
    real = games.Game.make_env  # the game's env, as the registry makes it for `cardwar play`
    monkeypatch.setattr(games.Game, "make_env", lambda self, *a, **kw: envs.append(real(self, *a, **kw)) or envs[-1])
    known: set[str] = set()
    named: set[str] = set()

    def check(text: str) -> None:
        if not envs or envs[0].game is None:
            return
        s = envs[0].game
        known.update(card_to_str(c) for c in _seen_by(s.information_view(seat)))
        if s.is_terminal() and s.result.get("best_hands"):
            known.update(CARD.findall(" ".join(s.result["best_hands"])))  # shown when they decide the game
        printed = set(CARD.findall(text))
        assert printed <= known, f"printed {printed - known} to captain {'AB'[seat]}: {text!r}"
        named.update(printed)

    person = RandomPerson(seed, on_print=check)
    specs = ("human", "heuristic") if seat == 0 else ("heuristic", "human")
    play_game("naval", seed, *specs, "omniscient", rules=NavalConfig(), out=person.out, read=person.read,
              save=str(tmp_path / "g.json"))
    end = final_state(GameRecord.load(tmp_path / "g.json"))
    never = {card_to_str(c) for c in range(52)} - known
    assert end.is_terminal() and len(named) > 10
    assert never & {card_to_str(c) for c in end.hands[1 - seat] + end.deck}  # the test had something to hide


def _boards(lines: list[str]) -> list[str]:
    return [t for t in lines if t.startswith("\n")]  # Screen.board prints a board as one text after a blank line


def test_naval_board_is_printed_once_a_turn():
    from cardwar.envs.naval import NavalConfig
    from cardwar.cli.play import play_game

    person = RandomPerson(3)
    play_game("naval", 3, "human", "heuristic", rules=NavalConfig(), out=person.out, read=person.read)
    boards = _boards(person.lines)
    assert all(a != b for a, b in zip(boards, boards[1:]))  # never the same board twice in a row
    # the last board is the final position, printed once the game is over (it may carry the header of
    # the turn whose first action ended it); every board before it opens a turn
    own_turns = [b.split("\n")[1] for b in boards[:-1] if "Captain A's turn, action 1/2" in b]
    assert len(own_turns) == len(set(own_turns)) > 5  # each of the person's turns opens with one board
    assert person.lines[-1].startswith("Result: ")


def test_hex_board_is_not_printed_twice_in_a_row():
    from cardwar.cli.play import play_game

    person = RandomPerson(4)
    play_game("hexwar", 4, "heuristic", "human", scenario="meeting_engagement", rules={}, out=person.out,
              read=person.read)
    boards = _boards(person.lines)
    assert len(boards) > 12 and all(a != b for a, b in zip(boards, boards[1:]))
    assert person.lines[-1].startswith("Result: ")


def test_bad_png_paths_are_messages_and_the_game_goes_on(tmp_path):
    (tmp_path / "folder.png").mkdir()
    bad = f"png {tmp_path}/missing/map.png\npng {tmp_path}/folder.png\npng map.txt\n"
    r = run_play(["hexwar", "--opponent", "heuristic", "--seed", "2"], bad + "no evade\npass\n" * 600)
    assert r.returncode == 0, r.stderr
    assert f"png: cannot write {tmp_path}/missing/map.png: no folder" in r.stdout
    assert f"png: {tmp_path}/folder.png is a folder" in r.stdout and "ending in .png, not map.txt" in r.stdout
    assert "Result: " in r.stdout and "Traceback" not in r.stdout + r.stderr


def test_save_through_stdin_writes_a_record_that_replays(tmp_path):
    path = tmp_path / "mine.json"
    cycle = "keep\nnodefend\npass\n"
    r = run_play(["naval", "--opponent", "random", "--seat", "B", "--seed", "5", "--save", str(path)], cycle * 400)
    assert r.returncode == 0, r.stderr
    rec = GameRecord.load(path)
    assert rec.players == {"captain_a": "random", "captain_b": "human"} and rec.finished
    assert final_state(rec).returns() == rec.result["returns"]
    assert f"Game record written to {path}" in r.stdout
    quit_path = tmp_path / "quit.json"
    r = run_play(["naval", "--opponent", "random", "--seed", "5", "--save", str(quit_path)], "keep\nquit\n")
    rec = GameRecord.load(quit_path)
    assert r.returncode == 0 and not rec.finished and rec.quit_by == "captain_a" and rec.result is None


# ------------------------------------------------------------------ the skirmish at the keyboard
SKIRMISH_CYCLE = "charge!\nZ99\nstya\nstay\nstanding\nno_watch\nnothing\nhold\n"
"""Garbage, an off-grid hex, a typo, then one answer of every kind the phases sequence asks while everyone stays: each
question is answered by the first legal line after some refused ones (RULES.md §9.1's steps)."""


def test_skirmish_game_through_stdin_with_reasons_and_a_record_that_replays(tmp_path):
    save = tmp_path / "sk.json"
    r = run_play(["skirmish", "--scenario", "duel", "--opponent", "random", "--seed", "4", "--save", str(save)],
                 SKIRMISH_CYCLE * 400)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stdout + r.stderr
    assert "Duel: player_0 (American) = human, player_1 (German) = random" in r.stdout
    assert "cannot read that: 'Z99' is neither a hex" in r.stdout
    assert re.search(r"'nothing' is not legal: the mode step for [\w. ]+ at [A-X]\d+ asks its movement mode: stay, "
                     r"crawl, search, walk or run \(RULES\.md §4\.1\)", r.stdout)
    assert "Decide for Cpl. Grant at A3 (standing, SMG (Cat. 2) 30 rounds" in r.stdout
    assert "closest legal moves: stay" in r.stdout and "Result: " in r.stdout and "Game abandoned" not in r.stdout
    rec = GameRecord.load(save)
    assert rec.game == "skirmish" and rec.scenario == "duel" and rec.finished
    assert rec.players == {"player_0": "human", "player_1": "random"}
    people = [m.move for m in rec.moves if m.seat == "player_0"]
    assert set(people) <= {"stay", "standing", "no_watch", "nothing", "hold"} and "stay" in people
    assert final_state(rec).is_terminal()


def test_skirmish_person_at_player_1_leaves_and_the_record_is_unfinished(tmp_path):
    save = tmp_path / "left.json"
    r = run_play(["skirmish", "--scenario", "duel", "--opponent", "random", "--seat", "player_1", "--save",
                  str(save)], "help\nstay\nstanding\nquit\n")
    assert r.returncode == 0 and "Game abandoned: you left the game" in r.stdout, r.stdout[-2000:]
    assert "Legal moves: stay, crawl, search, walk, run" in r.stdout
    rec = GameRecord.load(save)
    assert not rec.finished and rec.quit_by == "player_1"


def test_a_skirmish_player_never_reads_an_enemy_it_has_not_seen(monkeypatch):
    """Every line printed to the person names only enemy figures their side has seen (RULES.md §9.2), and their
    board carries no order of the enemy's before the reveal."""
    from cardwar import games
    from cardwar.cli.play import play_game

    envs = []
    real = games.Game.make_env
    monkeypatch.setattr(games.Game, "make_env", lambda self, *a, **kw: envs.append(real(self, *a, **kw)) or envs[-1])
    known: set[int] = set()
    hidden_once: set[str] = set()

    def check(text: str) -> None:
        if not envs or envs[0].game is None:
            return
        s = envs[0].game
        known.update(s.seen[0] | set(s.last_seen[0]))
        never = {u.name for u in s.units if u.side == 1 and u.uid not in known}
        hidden_once.update(never)
        assert not any(name in text for name in never), f"{never} printed: {text!r}"

    person = RandomPerson(3, on_print=check)
    result = play_game("skirmish", 2, "human", "random", scenario="woods_and_craters", out=person.out,
                       read=person.read)
    assert result["moves"] > 50 and hidden_once  # the test had something to hide
