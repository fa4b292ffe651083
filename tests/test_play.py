"""Terminal play: why a move is illegal, the evade question, typo suggestions, `cardwar play` options."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from cardwar.cli import main
from cardwar.explain import decision_note, why_illegal
from cardwar.cli.human import HumanPlayer, closest_moves
from cardwar.envs.hexwar.actions import EVADE, string_to_action as hex_action
from cardwar.envs.hexwar.config import HexConfig
from cardwar.envs.hexwar.diagram import position, scenario_from_text
from cardwar.envs.hexwar.state import HexPhase
from cardwar.envs.naval import string_to_action as naval_action
from cardwar.envs.naval.diagram import state_from_diagram
from tests.subprocesses import run_command


def naval_why(s, move: str) -> str | None:
    return why_illegal("naval", s.information_view(s.current_player), naval_action(move))


def hex_why(s, move: str) -> str | None:
    return why_illegal("hexwar", s.information_view(s.current_player), hex_action(move))


# ------------------------------------------------------------------ naval reasons (RULES.md 3-4)
BOARD = """
A:5S . .
B:7D . .
B:9C . .
"""


def naval_position():
    return state_from_diagram(BOARD, hands={"A": ["2C", "3H", "KD"], "B": ["4S"]})


@pytest.mark.parametrize("move, reason", [
    ("deploy 2C D", "D already holds an enemy ship"),
    ("deploy 2C E", "E is out of reach: ships deploy in your Seaport first"),  # H, A's Seaport of lane B-E-H, is empty
    ("deploy 9H H", "you do not hold 9H"),
    ("attack G>D ram 2C", "Ramming needs 2 of your ships in the Sealane of the ship attacked; you have 1 there"),
    ("attack H>E normal 2C", "you have no ship at H to attack from"),
    ("attack G>H broadside 2C", "there is no enemy ship at H"),
    ("keep", "mulligans are decided before the first turn"),
    ("nodefend", "no attack is waiting"),
    ("sink D", "sink follows a Sea Battle won with a High Royal Flush"),
])
def test_illegal_naval_move_gets_the_rule(move, reason):
    assert reason in naval_why(naval_position(), move)


def test_naval_once_per_turn_and_defence_reasons():
    s = naval_position()
    assert naval_why(s, "deploy 2C H") is None
    s.apply_action(naval_action("deploy 2C H"))
    assert "one Deploy per turn" in naval_why(s, "deploy 3H I")
    s = naval_position()
    s.apply_action(naval_action("attack G>D normal 2C"))  # now Captain B answers
    assert "Captain A attacks your ship at D" in naval_why(s, "deploy 4S B")
    assert "you do not hold KD" in naval_why(s, "defend KD")  # A's card: B cannot defend with it
    assert naval_why(s, "defend 4S") is None


def test_broadside_with_an_empty_deck_names_the_rule_option():
    s = state_from_diagram("A:5S B:8H .\n. . .\n. . .", hands={"A": ["2C"], "B": ["4S"]})
    assert naval_why(s, "attack G>H broadside 2C") is None
    s.discards, s.deck = s.deck, []  # every card still somewhere: the deck went to the discard pile
    assert "deck is empty (rule broadside_empty_deck=forbidden)" in naval_why(s, "attack G>H broadside 2C")


def test_defence_question_shows_the_face_up_part_of_the_sea_battle():
    # Normal: attacking ship + face-down card against the attacked ship + the defending card.
    s = naval_position()
    s.apply_action(naval_action("attack G>D normal 2C"))
    note = decision_note("naval", s.information_view(1))
    assert "Captain A's normal attack G>D: their hand is 5S + a face-down card; yours is 7D + the card" in note
    # Broadside: one more face-down card from the deck; Broadside Defence: a neighbour in the same Row.
    s = state_from_diagram("A:5S B:8H B:9C\n. . .\n. . .", hands={"A": ["2C"], "B": ["4S"]})
    s.apply_action(naval_action("attack G>H broadside 2C"))
    note = decision_note("naval", s.information_view(1))
    assert "their hand is 5S + a face-down card + a face-down card from the deck" in note
    assert "yours is 8H + the best of your supporting ships 9C + the card you defend with" in note
    assert "2C" not in note  # the attacker's face-down card stays hidden


# ------------------------------------------------------------------ hex reasons (RULES.md 4-6)
MAP = """
. W . H . .
. . ~ . . .
. . . . . .
"""


@pytest.mark.parametrize("blue, red, move, reason", [
    ([("foot", "A1")], [("foot", "F3")], "move C1", "C1 is 2 hexes away; your foot infantry (A1) moves at most 1"),
    ([("tank", "B2")], [("foot", "F3")], "move C2", "C2 is river: impassable"),
    ([("tank", "A3")], [("foot", "E3")], "shoot E3", "E3 is 4 hexes from your tank (A3); direct fire reaches 2"),
    ([("tank", "A1")], [("foot", "C1")], "shoot C1", "no line of sight to C1"),  # the woods at B1 between
    ([("mortar", "A3")], [("foot", "B3")], "shoot B3", "minimum range 2"),
    ([("artillery", None), ("foot", "D3")], [("foot", "E3")], "shoot E3",
     "cannot target a unit next to one of your units"),
    ([("foot", "A3")], [("foot", "F3")], "smoke B3", "only mortars and artillery lay smoke"),
    ([("mortar", "D3")], [("foot", "F3")], "smoke B1", "smoke goes on open terrain, and B1 is woods"),
    ([("mortar", "A2"), ("foot", "E1")], [("foot", "F3")], "smoke D1", "smoke goes on open terrain, and D1 is hill"),
    ([("tank", "D3"), ("foot", "D1")], [("foot", "F3")], "move D1", "D1 has no room: hill holds 1 unit(s)"),
    ([("foot", "A3")], [("foot", "F3")], "shoot D3", "you know of no unit at D3"),
    ([("foot", "A3")], [("foot", "F3")], "joint move A2", "joint activation is an optional rule that is off"),
    ([("foot", "A3")], [("foot", "F3")], "evade", "evade and no evade answer an enemy shot"),
])
def test_illegal_hex_move_gets_the_rule(blue, red, move, reason):
    s = position(scenario_from_text(MAP, blue=blue, red=red), order=[0])
    assert reason in hex_why(s, move)


def test_a_hidden_unit_is_explained_like_an_empty_hex():
    """'Hidden units cannot be shot at until they are revealed': the reason says only what blue knows."""
    sc = scenario_from_text(MAP, blue=[("tank", "A3")], red=[("foot", "B3"), ("foot", "F1")], hidden={1})
    s = position(sc, order=[0], config=HexConfig(hidden_units=True))
    assert hex_why(s, "shoot B3") == "you know of no unit at B3" == hex_why(s, "shoot C3").replace("C3", "B3")
    assert hex_why(s, "move B3") is None  # legal for blue: the move would be cut short by the reveal


def _random_positions(game: str, games: int, every: int):
    from cardwar.envs.hexwar.generator import generate_scenario
    from cardwar.envs.hexwar.state import HexState
    from cardwar.envs.naval import NavalConfig, NavalState

    rng = np.random.default_rng(7)
    for g in range(games):
        if game == "naval":
            s = NavalState.new_game(NavalConfig(royal_flush="any_pair"), seed=g)
        else:
            s = HexState.new_game(generate_scenario(g), HexConfig(hidden_units=True, joint_activation=True), seed=g)
        k = 0
        while not s.is_terminal():
            if k % every == 0:
                yield s
            s.apply_action(int(rng.choice(s.legal_actions())))
            k += 1


@pytest.mark.parametrize("game, size", [("naval", 3029), ("hexwar", 843)])
def test_every_reason_agrees_with_the_engine(game, size):
    """Over random positions: no reason for exactly the moves the engine allows, and a specific
    reason (not a catch-all) for every other one."""
    rng = np.random.default_rng(1)
    checked = 0
    for s in _random_positions(game, 3, 9):
        view = s.information_view(s.current_player)
        for a in rng.choice(size, 120, replace=False).tolist() + s.legal_actions():
            why = why_illegal(game, view, a)
            assert (why is None) == s.is_legal(a), (game, a, why)
            assert why is None or "not allowed now" not in why
            checked += 1
    assert checked > 2000


# ------------------------------------------------------------------ the evade question (RULES.md 6.4)
def evade_position(**config):
    sc = scenario_from_text(MAP, blue=[("foot", "D3")], red=[("tank", "E3")])
    s = position(sc, order=[1, 0], config=HexConfig(**config))  # the red tank acts first, blue has not acted
    s.apply_action(hex_action("shoot D3"))
    assert s.phase == HexPhase.EVADE and s.current_player == 0
    return s


def test_evade_question_names_target_shooter_and_cost():
    # Tank at foot infantry, adjacent, in the open: no modifier; evading -1. D3 = 1,1,2,2,3,3.
    note = decision_note("hexwar", evade_position().information_view(0))
    assert "Your foot infantry at D3 is shot at by the red tank at E3" in note
    assert "no evade: D3 +0 -> 1-3 hits (2.0 on average)" in note
    assert "evade   : D3 -1 -> 0-2 hits (1.0 on average); your foot infantry loses its action this turn" in note
    doubled = decision_note("hexwar", evade_position(double_count=True).information_view(0))
    assert "evade   : D3 -2 -> 0-1 hits (0.3 on average)" in doubled  # double_count: evasion named twice


def test_person_is_asked_the_evade_question_and_answers_it():
    s = evade_position()
    out: list[str] = []
    answers = iter(["pass", "evade"])
    p = HumanPlayer("hexwar", 0, show=lambda v: "BOARD", read=lambda _: next(answers), out=out.append)
    action = p.act({"action_mask": s.legal_action_mask()}, s.information_view(0))
    assert action == EVADE
    text = "\n".join(out)
    assert "shot at by the red tank at E3" in text
    assert "'pass' is not legal: first answer the shot at your foot infantry (D3)" in text


# ------------------------------------------------------------------ typos
def test_a_typo_gets_the_closest_legal_moves():
    legal = ["deploy 7H G", "deploy 7H H", "deploy 2C G", "attack G>D normal 7H", "pass"]
    assert closest_moves("deplyo 7h g", legal)[0] == "deploy 7H G"
    assert closest_moves("atack G>D normal 7H", legal) == ["attack G>D normal 7H"]
    assert closest_moves("fire the cannons!", legal) == []


def test_an_illegal_cell_gets_the_nearest_legal_cells_on_the_map():
    """Tank Attack's trench_raid, bound 2 of seed 1: the attacker may move D2, B3, D3 or E3 and types A1. B3 is
    two cells away (one column, two rows), D2 and D3 three (D2 nearer in a straight line): where the cells lie,
    not how their names are spelt."""
    legal = ["D2", "B3", "D3", "E3", "end"]
    assert closest_moves("A1", legal) == ["B3", "D2", "D3"]
    assert closest_moves("e4", legal, n=1) == ["E3"]
    assert closest_moves("AA30", legal, n=1) == ["E3"]  # column 27, row 30: E3 is the nearest of them
    assert closest_moves("end", legal) == ["end"]  # an answer that is spelt right is still itself


def test_person_typing_a_typo_and_an_illegal_move_is_told_why_and_what_is_close():
    s = naval_position()
    out: list[str] = []
    answers = iter(["deplyo 2C H", "deploy 2C E", "deploy 2C H"])
    p = HumanPlayer("naval", 0, show=lambda v: "BOARD", read=lambda _: next(answers), out=out.append)
    assert p.act({"action_mask": s.legal_action_mask()}, s.information_view(0)) == naval_action("deploy 2C H")
    text = "\n".join(out)
    assert "cannot read that" in text and "closest legal moves: deploy 2C H" in text
    assert "'deploy 2C E' is not legal: E is out of reach" in text
    assert re.search(r"closest legal moves: deploy 2C [GH]", text)


def test_png_that_cannot_be_written_is_a_message_and_the_question_again(tmp_path):
    s = naval_position()
    out: list[str] = []

    def refuse(path: str) -> str:
        raise PermissionError(13, "Permission denied", path)

    (tmp_path / "maps.png").mkdir()
    answers = iter([f"png {tmp_path}/no/such/folder/a.png", f"png {tmp_path}/maps.png", "png map.txt",
                    f"png {tmp_path}/a.png", "pass"])
    p = HumanPlayer("naval", 0, show=lambda v: "BOARD", read=lambda _: next(answers), out=out.append, picture=refuse)
    assert p.act({"action_mask": s.legal_action_mask()}, s.information_view(0)) == naval_action("pass")
    text = "\n".join(out)
    assert f"no folder {tmp_path}/no/such/folder" in text and "is a folder" in text and "ending in .png" in text
    assert f"png: cannot write {tmp_path}/a.png: Permission denied" in text


# ------------------------------------------------------------------ `cardwar play` options
def run_cli(*args: str) -> subprocess.CompletedProcess:
    return run_command([sys.executable, "-m", "cardwar.cli", *args], timeout=300)


@pytest.mark.parametrize("args, message", [
    (["naval", "--save", "/no/such/folder/game.json"], "--save: cannot write /no/such/folder/game.json: no folder"),
    (["naval", "--save", "."], "--save: . is a folder"),
    (["naval", "--png", "map.png"], "--png draws the map; the naval game has no picture"),
    (["hexwar", "--png", "/no/such/folder/map.png"], "--png: cannot write"),
    (["hexwar", "--png", "map.jpg"], "ending in .png"),
])
def test_bad_output_paths_are_one_line_and_status_2_before_the_game(args, message):
    r = run_cli("play", *args)
    assert r.returncode == 2 and r.stdout == ""  # refused before a single move
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_play_json_includes_the_moves(capsys):
    assert main(["play", "naval", "--seed", "5", "--quiet", "--json"]) == 0
    data = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    moves = data["record"]["moves"]
    assert len(moves) == data["moves"] > 0
    assert {m["seat"] for m in moves} == {"captain_a", "captain_b"} and moves[0]["move"] in ("keep", "mulligan")
    assert data["record"]["result"]["returns"] == data["returns"]


# ------------------------------------------------------------------ the skirmish
def _skirmish_game(tmp_path, viewer: str, seed: int = 2):
    from cardwar.arena.seeds import Dealer
    from cardwar.cli.play import play_game

    out: list[str] = []
    result = play_game("skirmish", seed, "random", "random", viewer, scenario="duel", out=out.append,
                       save=str(tmp_path / f"{viewer}.json"), dealer=Dealer(None))
    return result, out


def test_skirmish_omniscient_printout_lists_every_move_and_ends_with_the_result(tmp_path):
    from cardwar.record import GameRecord, final_state

    result, out = _skirmish_game(tmp_path, "omniscient")
    rec = GameRecord.load(tmp_path / "omniscient.json")
    lines = [t for t in out if re.match(r"^\s+\d+\. player_[01]: ", t)]
    assert [t.split(": ", 1)[1] for t in lines] == [m.move for m in rec.moves]
    end = final_state(rec)
    pts = end.casualty_points
    held = [sum(p for c, p in end.scenario.victory.objectives.items() if end.objective_owner.get(c) == k)
            for k in (0, 1)]  # the duel is won on objectives (RULES.md §10)
    who = "A draw" if end.winner is None else f"{end.scenario.sides[end.winner]} (player_{end.winner}) win"
    assert out[-1] == (f"Result: {who} after {end.turn} turns (objective points American {held[0]} - German "
                       f"{held[1]}, casualty points scored American {pts[0]} - German {pts[1]})")
    assert result["winner"] == (None if end.winner is None else f"player_{end.winner}")
    assert result["scenario"] == "duel" and result["moves"] == len(rec.moves)


def test_skirmish_spectator_is_told_no_hidden_declaration_step(tmp_path):
    """A spectator reads a line for a move only when the seat not moving is told of it (RULES.md §9.1): the
    number of "decides" lines is the number of such moves, counted here from the record's positions."""
    from cardwar.envs.skirmish.notation import seen_notation, string_to_action
    from cardwar.record import GameRecord, replay_states

    _, out = _skirmish_game(tmp_path, "spectator")
    rec = GameRecord.load(tmp_path / "spectator.json")
    states = list(replay_states(rec))
    told = sum(seen_notation(states[i], string_to_action(m.move), states[i + 1], 1 - states[i].current_player)
               is not None for i, m in enumerate(rec.moves))
    decides = sum(1 for t in out if re.fullmatch(r"\s+player_[01] decides", t))
    assert 0 < decides == told < len(rec.moves)
    assert not any(re.match(r"^\s+\d+\. player_", t) for t in out)  # no notation for a spectator


def test_skirmish_person_is_told_the_rule_and_the_closest_answers(tmp_path):
    from cardwar.envs.skirmish.notation import string_to_action as sk_action
    from cardwar.envs.skirmish.picture import render_rgb
    from cardwar.envs.skirmish.state import new_state

    s = new_state("duel", None, 3)
    out: list[str] = []
    answers = iter(["wlak", "C5", "king", "X16", f"png {tmp_path}/me.png", "walk"])

    def picture(path: str) -> str:
        from PIL import Image

        Image.fromarray(render_rgb(s, 0)).save(path)
        return path

    p = HumanPlayer("skirmish", 0, show=lambda v: "BOARD", read=lambda _: next(answers), out=out.append,
                    picture=picture)
    assert p.act({"action_mask": s.mask()}, s.information_view(0)) == sk_action("walk")
    text = "\n".join(out)
    assert "cannot read that: 'wlak'" in text and "closest legal moves: walk" in text
    assert "'C5' is not legal: the mode step for Cpl. Grant at A3 asks its movement mode" in text
    assert "'king' is not legal: For King and Country is an optional rule, off in this game" in text
    assert "'X16' is not legal: the mode step" in text  # a hex, at the mode step: the kind comes first
    assert "Decide for Cpl. Grant at A3" in text and (tmp_path / "me.png").stat().st_size > 1000


def test_cardwar_play_skirmish_writes_the_final_picture(tmp_path, capsys):
    png = tmp_path / "end.png"
    assert main(["play", "skirmish", "--scenario", "duel", "--seed", "1", "--quiet", "--png", str(png),
                 "--rule", "visibility=open"]) == 0
    assert f"Picture written to {png}" in capsys.readouterr().out and png.stat().st_size > 1000


def test_cardwar_play_skirmish_refuses_a_bad_rule_in_one_line():
    r = run_cli("play", "skirmish", "--rule", "sequence=chaos")
    assert r.returncode == 2 and r.stdout == "" and len(r.stderr.strip().splitlines()) == 1
    assert "sequence" in r.stderr and "Traceback" not in r.stderr


# ------------------------------------------------------------------ a plug-in game: play and replay read the registry
from tests.test_plugin_game import pile_game  # noqa: E402,F401  (the lead's tiny "take the last" game, as a fixture)


def test_a_plug_in_game_is_played_by_a_person_and_replayed_through_the_registry_alone(pile_game, monkeypatch,
                                                                                      capsys, tmp_path):
    """No line of play.py, human.py or replay.py names it: notation, narration, board, seats, the record and the
    replay all come from its registry entry. The person types a typo, then takes 1 at a time, and once tries to
    take 3 from a pile of fewer (refused: the game gives no reason of its own)."""
    from cardwar.record import GameRecord

    printed: list[str] = []

    def person(prompt: str) -> str:
        printed.append(capsys.readouterr().out)
        text = "".join(printed)
        pile = [int(m) for m in re.findall(r"pile: (\d+)", text)]
        if "cannot read that" not in text:
            return "tkae 2"
        return "take 3" if pile[-1] < 3 and "is not legal" not in text else "take 1"

    monkeypatch.setattr("builtins.input", person)
    save = tmp_path / "pile.json"
    assert main(["play", "pile", "--opponent", "random", "--seed", "1", "--save", str(save),
                 "--reproducible-seeds"]) == 0
    text = "".join(printed) + capsys.readouterr().out
    assert "Take the last (a test plug-in): left = human, right = random" in text
    assert "cannot read that: 'tkae 2' is not a move: take 1, take 2 or take 3" in text
    assert "'take 3' is not legal: not allowed now" in text  # the game gives no reason of its own
    assert "closest legal moves: take 2" in text and "pile: 9" in text and re.search(r"left takes \d, \d+ left", text)
    rec = GameRecord.load(save)
    assert rec.game == "pile" and rec.players == {"left": "human", "right": "random"} and rec.finished
    code = main(["replay", str(save), "--viewer", "left"])
    replayed = capsys.readouterr().out
    assert code == 0 and replayed.startswith("Replay: Take the last (a test plug-in), record of cardwar")
    winner = rec.result["winner"]
    assert replayed.splitlines()[-1] == f"Result: {winner} wins"
    assert [int(n) for n in re.findall(r"^\s+(\d+)\. (?:left|right)", replayed, re.M)] == \
        list(range(1, len(rec.moves) + 1))
