"""No engine process is ever dealt a game it has seen (issue 27, item 2).

A process is kept from game to game for its entrant and seat, so before this a spy in a round
robin met every opponent on the same deals (pair ``k`` of every pairing was dealt seed
``seed + k``) and knew the new opponent's cards, or where its hidden units stood, from the first
time. The spy here (``deal_spy.py``, a real engine process speaking the protocol) keeps every
``new_game`` and view it is sent and fingerprints each deal by what its seat is dealt; it must
never recognise one, and, checked against the deals the store kept, no spy process is ever dealt
one deal twice: in a round robin of three entrants on two workers (naval and the hex game), a
gauntlet under the SPRT, on Ray, with deals shared across pairings on purpose (``shared_deals``,
``--reproducible-seeds``), and in a match.
Every process the tests start is ended.
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

import pytest

import cardwar.players as players
from cardwar.arena.seeds import Dealer
from cardwar.cli.match import run_match
from cardwar.players import close_engines
from cardwar.record import GameRecord
from cardwar.tournament.config import config_from_dict
from cardwar.tournament.runner import run_tournament
from cardwar.tournament.store import Store
from tests.engine.conftest import group_members, kill_groups

SPY = Path(__file__).with_name("deal_spy.py")
SEATS = {"naval": ("captain_a", "captain_b"), "hexwar": ("blue", "red")}
HEX = {"scenarios": ["random:test"], "rules": {"hidden_units": True}}


def spy_spec(log: Path) -> str:
    return f"engine:{sys.executable} {SPY} {log}"


def spy_lines(log: Path) -> list[dict]:
    return [json.loads(x) for x in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def spy_log(tmp_path):
    """The spies' log; every spy process noted in it is killed with its group when the test ends."""
    log = tmp_path / "spy.jsonl"
    try:
        yield log
    finally:
        close_engines()
        kill_groups({d["pid"] for d in spy_lines(log)})


def assert_all_ended(log: Path, seconds: float = 10.0) -> None:
    pids = {d["pid"] for d in spy_lines(log)}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and any(group_members(p) for p in pids):
        time.sleep(0.05)
    assert not [p for p in pids if group_members(p)], "a spy outlived its run"


def dealt_per_process(log: Path, games: list[tuple[int, str, int]]) -> dict[int, list[int]]:
    """The deals each spy process was dealt, in order: its log lines matched to ``games`` ((seat seed, seat, deal))
    by the seed ``new_game`` sent it (keyed with the deal: one seat seed, one deal)."""
    deal_of: dict[tuple[int, str], int] = {}
    for seed, seat, deal in games:
        assert deal_of.setdefault((seed, seat), deal) == deal
    out: dict[int, list[int]] = defaultdict(list)
    played = [d for d in spy_lines(log) if "game" in d]
    for d in played:
        out[d["pid"]].append(deal_of[(d["seed"], d["seat"])])
    assert len(played) == len(games)  # every game a spy sat in is in its log, once
    return out


def tournament_games(store: Store, name: str, game: str) -> list[tuple[int, str, int]]:
    """(seat seed, seat, deal) of every seat a spy sat in, from the store (the deal: the record's seed)."""
    out = []
    for row in store.games(name):
        # (Store.dealer came with issue 27; before, every pairing was dealt Dealer(secret): kept to show the test bites)
        dealer = store.dealer(name, row) if hasattr(store, "dealer") else Dealer(store.secret(name))
        deal = GameRecord.from_json(row.record).seed
        assert deal == dealer.deal(row.seed)
        for i, (entrant, spec) in enumerate(((row.first, row.first_spec), (row.second, row.second_spec))):
            if spec.startswith("engine:"):
                out.append((dealer.seat(row.seed, i), SEATS[game][i], deal))
    return out


def run_spied(tmp_path: Path, log: Path, game: str, pairs: int, workers: int, extra: dict | None = None,
              **options) -> tuple[list, str]:
    """A tournament of the spy, a second spy entrant (its own processes) and random; every seat a spy sat in."""
    spy = spy_spec(log)
    config = config_from_dict({"name": "spied", "game": game, "pairs": pairs, "seed": 3, "time": {"move_ms": None},
                               "entrants": {"spy": spy, "spy2": spy, "rnd": "random"},
                               **(HEX if game == "hexwar" else {}), **(extra or {})})
    with Store(tmp_path / "spied.sqlite") as store:
        run_tournament(config, store, workers=workers, **options)
        games = tournament_games(store, "spied", game)
        seeds = store.seeds("spied")
    if config.format == "round_robin":
        assert len(games) == pairs * (4 + 2 + 2)  # spy against spy2: both seats of both games; against rnd: one
    return games, seeds


def assert_never_dealt_twice(log: Path, games: list) -> dict[int, list[int]]:
    per_process = dealt_per_process(log, games)
    for pid, deals in per_process.items():
        assert len(deals) == len(set(deals)), f"spy process {pid} was dealt a deal twice: {deals}"
    recognised = [d for d in spy_lines(log) if d.get("recognised")]
    assert not recognised, f"the spy recognised {len(recognised)} deals: {recognised[:3]}"
    return per_process


@pytest.mark.parametrize("game,pairs", [("naval", 8), ("hexwar", 5)])  # on the old code: 4-12 and 2-6 deals met again
def test_a_spy_in_a_round_robin_on_two_workers_never_meets_a_deal_again(tmp_path, spy_log, game, pairs):
    games, seeds = run_spied(tmp_path, spy_log, game, pairs, workers=2)
    per_process = assert_never_dealt_twice(spy_log, games)
    assert seeds == "pairing"
    # the deals are the pairings' own, so no process was started for it: one per entrant, seat and worker at most
    assert 4 <= len({d["pid"] for d in spy_lines(spy_log)}) <= 8
    assert sum(map(len, per_process.values())) == len(games)
    assert_all_ended(spy_log)


def test_a_spy_in_a_gauntlet_under_the_sprt_never_meets_a_deal_again(tmp_path, spy_log):
    games, _ = run_spied(tmp_path, spy_log, "naval", 12, workers=2,
                         extra={"format": "gauntlet", "gauntlet": "spy",
                                "sprt": {"elo0": 0, "elo1": 150, "alpha": 0.05, "beta": 0.05}})
    assert len(games) >= 3 * (4 + 2)  # three rounds at least, of spy against spy2 and rnd
    assert_never_dealt_twice(spy_log, games)
    assert_all_ended(spy_log)


def test_a_spy_on_the_ray_backend_never_meets_a_deal_again(tmp_path, spy_log):
    pytest.importorskip("ray", reason="the ray extra is installed by ./dev.sh")
    games, _ = run_spied(tmp_path, spy_log, "naval", 3, workers=2, backend="ray")
    assert_never_dealt_twice(spy_log, games)
    assert_all_ended(spy_log)


@pytest.mark.parametrize("mode", ["shared_deals", "reproducible_seeds"])
def test_where_deals_are_shared_a_deal_an_engine_has_seen_goes_to_another_process(tmp_path, spy_log, mode):
    games, seeds = run_spied(tmp_path, spy_log, "naval", 3, workers=2, **{mode: True})
    assert seeds == {"shared_deals": "keyed", "reproducible_seeds": "reproducible"}[mode]
    assert len({deal for _, _, deal in games}) == 3  # every pairing is dealt pair k's one deal
    assert_never_dealt_twice(spy_log, games)
    assert_all_ended(spy_log)


def test_the_spy_recognises_a_deal_it_meets_again(tmp_path, spy_log, monkeypatch):
    """The check bites: deals shared across pairings and no guard (the code before issue 27) give the spy,
    one process an entrant and seat, every deal again at its second opponent, and it knows it."""
    monkeypatch.setattr(players, "_has_seen", lambda player, deal: False)
    games, _ = run_spied(tmp_path, spy_log, "naval", 3, workers=1, shared_deals=True)
    recognised = [d for d in spy_lines(spy_log) if d.get("recognised")]
    assert len(recognised) == 3 * 2 * 2  # spy and spy2, both seats, every pair, at the second opponent
    with pytest.raises(AssertionError, match="dealt a deal twice"):
        assert_never_dealt_twice(spy_log, games)


def test_a_match_of_the_spy_against_itself_and_again_on_the_same_deals(tmp_path, spy_log):
    """One spec in both seats shares its processes' key, and a second match on the same dealer and seeds meets
    the kept processes again: neither deals a process a game it has seen."""
    dealer, seed = Dealer.fresh(), 40
    spy = spy_spec(spy_log)
    for _ in range(2):
        assert run_match("naval", spy, spy, 6, seed=seed, progress=False, dealer=dealer).games == 6
    # each game of pair k: both seats are the spy, sent the seat's seed, on pair k's deal; 2 games a pair, 2 matches
    games = [(dealer.seat(seed + k, i), SEATS["naval"][i], dealer.deal(seed + k))
             for k in range(3) for i in (0, 1) for _game_and_match in range(4)]
    assert_never_dealt_twice(spy_log, games)
    close_engines()
    assert_all_ended(spy_log)


def test_the_keeper_never_hands_a_kept_engine_a_deal_it_was_dealt(spy_log):
    """cardwar.players.seat_player on its own: a deal comes round again -> another process; a new deal -> a kept
    one; more repeats than are worth keeping -> the extra processes are closed when given back."""
    from cardwar.players import kept_engines, release_player, seat_player

    spy = spy_spec(spy_log)
    over = {"winner": None, "returns": [0, 0], "turns": 0}
    first = seat_player(spy, "naval", 1, seat=0, deal=7)
    release_player(first, over)
    again = seat_player(spy, "naval", 2, seat=0, deal=7)
    assert again is not first and again.pid != first.pid  # a fresh process for the deal `first` has seen
    release_player(again, over)
    new = seat_player(spy, "naval", 3, seat=0, deal=8)
    assert new in (first, again)  # a kept one for a deal neither has seen
    release_player(new, over)
    many = [seat_player(spy, "naval", 4, seat=0, deal=9) for _ in range(players.KEEP_PER_KEY + 2)]
    for p in many:
        release_player(p, over)
    assert len(kept_engines()) == players.KEEP_PER_KEY  # the rest closed, not kept
    closed = [p for p in many if p not in kept_engines()]
    assert len(closed) >= 2 and all(not p.alive for p in closed)
    close_engines()
    assert_all_ended(spy_log)
