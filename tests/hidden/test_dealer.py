"""The dealer's seeds (cardwar.arena.seeds): keyed by a secret, exact with the same secret, and shown late."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from cardwar.arena.seeds import Dealer, check_secret
from cardwar.cli import main


def test_keyed_seeds_are_hmac_sha256_of_the_game_seed():
    d = Dealer("00112233445566778899aabbccddeeff")
    mac = hmac.new(bytes.fromhex(d.secret), b"deal:7", hashlib.sha256).digest()  # an independent computation
    assert d.deal(7) == int.from_bytes(mac[:8], "big") >> 1
    seat = hmac.new(bytes.fromhex(d.secret), b"seat1:7", hashlib.sha256).digest()
    assert d.seat(7, 1) == int.from_bytes(seat[:8], "big") >> 12
    assert d.seat(7, 1) < 2**53  # exact as a JSON number in any language


def test_a_seat_seed_says_nothing_of_the_game_seed_or_the_other_seat():
    d = Dealer.fresh()
    seeds = {d.seat(s, i) for s in range(500) for i in (0, 1)}
    assert len(seeds) == 1000  # no collisions, no pattern like 2*s+1
    assert all(d.seat(s, 0) not in (2 * s + 1, s) and d.seat(s, 1) != d.seat(s, 0) + 1 for s in range(500))
    assert Dealer.fresh().deal(3) != d.deal(3)  # another secret, another deal


def test_reproducible_seeds_are_the_research_mode_of_old():
    d = Dealer(None)
    assert (d.deal(5), d.seat(5, 0), d.seat(5, 1)) == (5, 11, 12) and d.reproducible


@pytest.mark.parametrize("bad", ["", "xyz", "12", "g" * 16])
def test_a_bad_secret_is_one_line(bad, capsys):
    with pytest.raises(ValueError, match="hex digits"):
        check_secret(bad)
    assert main(["match", "naval", "random", "random", "--games", "2", "--secret", bad or "-"]) == 2
    assert "hex digits" in capsys.readouterr().err


def test_secret_and_reproducible_seeds_exclude_each_other(capsys):
    assert main(["match", "naval", "random", "random", "--games", "2", "--secret", "abcdef0123",
                 "--reproducible-seeds"]) == 2
    assert "exclude" in capsys.readouterr().err


def test_match_reports_its_secret_only_at_the_end_and_reruns_exactly(capsys):
    assert main(["match", "naval", "heuristic", "random", "--games", "4", "--seed", "9", "--json"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    first = __import__("json").loads(out[-1])
    assert first["secret"] and not first["reproducible_seeds"]
    assert any(f"--secret {first['secret']}" in line for line in out[:-1])
    assert main(["match", "naval", "heuristic", "random", "--games", "4", "--seed", "9", "--json",
                 "--secret", first["secret"]]) == 0
    again = __import__("json").loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert again["per_seat"] == first["per_seat"]


def test_replay_of_an_unfinished_game_hides_the_seed_from_a_seat(tmp_path):
    from cardwar.record import GameRecord
    from cardwar.cli.replay import header_lines, prepare

    rec = GameRecord(game="naval", seed=123456789, players={"captain_a": "human", "captain_b": "random"}, moves=(),
                     rules={}, finished=False)
    g = prepare(rec)
    seat_lines = "\n".join(header_lines(g, "A"))
    assert "123456789" not in seat_lines and "shown once the game is over" in seat_lines
    assert "123456789" in "\n".join(header_lines(g, "omniscient"))
