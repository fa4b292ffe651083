"""Each seat's history in notation (``Table.history[seat].moves``): its own moves whole, the other's with
only what the seat may know (naval's face-down cards and a mulligan choice not yet shown are ``?``)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from cardwar.arena.table import SeatHistory, Table
from cardwar.envs.naval.codec import HIDDEN
from cardwar.envs import make_raw_env
from cardwar.record import SEATS

SETUPS = {"naval": {}, "hexwar": {"scenario": "random", "rules": {"hidden_units": True}}}


def random_table(game: str, seed: int) -> Table:
    table = Table(make_raw_env(game, **SETUPS[game]), game, seed)
    rng = np.random.default_rng(seed)
    while not table.over:
        table.play(int(rng.choice(table.legal())))
    return table


def test_naval_moves_in_notation_hide_the_other_captains_face_down_cards_and_first_mulligan_choice():
    kinds = set()
    for seed in range(6):
        table = random_table("naval", seed)
        for k in (0, 1):
            history = table.history[k]
            assert isinstance(history, SeatHistory) and len(history.moves) == len(history) == len(table.moves)
            for i, (entry, move) in enumerate(zip(history.moves, table.moves)):
                assert entry["seat"] == move.seat
                if move.seat == SEATS["naval"][k]:
                    assert entry["move"] == move.move  # its own move, whole
                    continue
                verb = move.move.split()[0]
                kinds.add(verb)
                if verb == "attack":
                    assert entry["move"] == move.move.rsplit(" ", 1)[0] + " " + HIDDEN  # the face-down card
                elif verb == "defend":
                    assert entry["move"] == "defend " + HIDDEN
                elif verb in ("keep", "mulligan"):  # the first choice is shown only once both are made
                    assert entry["move"] == (HIDDEN if i == 0 else move.move), (i, entry)
                else:
                    assert entry["move"] == move.move
    assert {"attack", "defend", "keep", "mulligan", "deploy", "pass"} <= kinds


def test_hex_moves_in_notation_are_the_moves_made_and_what_the_public_log_says():
    for seed in range(3):
        table = random_table("hexwar", seed)
        for k in (0, 1):
            history = table.history[k]
            assert [e["move"] for e in history.moves] == [m.move for m in table.moves]
            for entry, line in zip(history.moves, history):  # the notation adds nothing to the public log
                said = {"pass": ("pass", "a hidden unit holds its position"), "evade": ("evade", "takes evasive"),
                        "no evade": ("no evade", "does not take evasive")}.get(entry["move"], (entry["move"],))
                assert any(words in line for words in said), (entry, line)


def test_a_seat_history_pickles_with_its_moves():
    table = random_table("naval", 1)
    back = pickle.loads(pickle.dumps(table.history[0]))
    assert back == table.history[0] and back.moves == table.history[0].moves


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_a_table_rebuilt_from_its_record_has_the_same_histories(game):
    table = random_table(game, 2)
    again = Table.from_record(table.record())
    assert [h.moves for h in again.history] == [h.moves for h in table.history]


def test_tank_attack_the_mover_reads_every_event_its_own_move_caused():
    """Nothing is hidden in Tank Attack (RULES.md 18): each seat's history line of a move holds every event
    the move caused, the mover's as much as the other's (the mover's line once lost the first event, read as
    the move's own description), and the public log is the move, then those events."""
    table = Table(make_raw_env("tankattack", scenario="trench_raid"), "tankattack", 3)
    rng = np.random.default_rng(3)
    caused = 0
    while not table.over:
        state = table.state
        n, events, mover = len(state.events), state.events, table.to_move
        move = table.to_str(int(action := int(rng.choice(table.legal()))))
        table.play(action)
        after = table.state
        told = events[n:] + (after.events if after.events is not events else [])  # independently of the hook
        caused += bool(told)
        assert table.log[-1] == "; ".join([f"{SEATS['tankattack'][mover]}: {move}", *told])
        assert table.history[mover][-1] == "; ".join([move, *told])
        assert table.history[1 - mover][-1] == table.log[-1]
    assert caused > 20  # moves that caused events were told whole (45 of this game's)
