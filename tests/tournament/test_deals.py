"""How a tournament deals: each pairing its own games, so no engine process is dealt a game twice (issue 27).

An engine is one process per entrant, seat and worker, kept from game to game, so the deals
that matter are those of every game one (entrant, seat) plays: here they are all distinct, for
any worker's share of the schedule, while the two games of a duplicate pair still share theirs.
The deals are keyed by the pairing's content, so a reordered config or a resume deals the same
games; a store keeps how it was dealt, and those stored before go on as they were dealt.
"""

from __future__ import annotations

import json
from collections import defaultdict

import pytest

from cardwar.arena.seeds import Dealer
from cardwar.record import GameRecord
from cardwar.tournament.config import config_from_dict
from cardwar.tournament.runner import run_tournament
from cardwar.tournament.schedule import schedule
from cardwar.tournament.store import Store

SECRET = "00112233445566778899aabbccddeeff"
ENTRANTS = {"a": "random", "b": "random", "c": "heuristic:samples=2", "d": "engine:python bot.py"}


def _config(entrants=None, **extra):
    return config_from_dict({"name": "t", "game": "naval", "entrants": entrants or ENTRANTS, "pairs": 6, "seed": 5,
                             "time": {"move_ms": None}, **extra})


def _dealer(job) -> Dealer:  # as play_pair deals (written so that it also runs on the code before issue 27)
    context = getattr(job, "deal_context", None)
    return Dealer(job.secret) if context is None else Dealer(job.secret, context)


def dealt_per_process(jobs) -> dict[tuple[str, int], list[tuple[int, int]]]:
    """(deal, seat seed) of every game each (entrant, seat) plays: what one engine process is dealt, at most."""
    out: dict[tuple[str, int], list[tuple[int, int]]] = defaultdict(list)
    for job in jobs:
        dealer = _dealer(job)
        for first, second, _, _ in job.seats():
            for seat, entrant in enumerate((first, second)):
                out[(entrant, seat)].append((dealer.deal(job.seed), dealer.seat(job.seed, seat)))
    return out


@pytest.mark.parametrize("extra", [{}, {"format": "gauntlet", "gauntlet": "d"}])
def test_no_entrant_and_seat_is_dealt_a_deal_or_a_seat_seed_twice_in_a_schedule(extra):
    jobs = schedule(_config(**extra), SECRET)
    per_process = dealt_per_process(jobs)
    assert len(per_process) == 8
    for (entrant, seat), dealt in per_process.items():
        deals, seeds = zip(*dealt)
        assert len(set(deals)) == len(deals), f"{entrant} in seat {seat} is dealt a deal twice"
        assert len(set(seeds)) == len(seeds), f"{entrant} in seat {seat} is sent a seed twice"
    # the duplicate structure is kept: a pair's two games share their deal, and no (entrant, seat) plays both
    for job in jobs:
        (f0, s0, *_), (f1, s1, *_) = job.seats()
        assert {(f0, 0), (s0, 1)}.isdisjoint({(f1, 0), (s1, 1)})
    assert len({_dealer(j).deal(j.seed) for j in jobs}) == len(jobs)  # every pair its own deal


def test_shared_deals_give_an_entrant_and_seat_each_deal_once_per_opponent():
    """What per_pairing=False (shared_deals, stores from before) schedules: seat_player must step in."""
    jobs = schedule(_config(), SECRET, per_pairing=False)
    assert all(j.deal_context is None for j in jobs)
    for (entrant, seat), dealt in dealt_per_process(jobs).items():
        assert len({d for d, _ in dealt}) == 6 and len(dealt) == 6 * 3  # three opponents, the same six deals
    assert _dealer(jobs[0]).deal(5) == Dealer(SECRET).deal(5)  # the deal of the code before issue 27


def test_deals_follow_the_pairing_not_its_place_in_the_schedule():
    def deals(config):
        return {k: (_dealer(j).deal(j.seed), _dealer(j).seat(j.seed, 0)) for j in schedule(config, SECRET)
                for k in j.keys()}

    base = deals(_config())
    reordered = deals(_config({k: ENTRANTS[k] for k in ("d", "c", "b", "a")}))
    assert base == reordered  # a reordered config (or a resume) deals every game as before
    fewer = deals(_config({k: ENTRANTS[k] for k in ("a", "c", "d")}))
    assert all(base[k] == v for k, v in fewer.items())  # removing an entrant changes no other pairing's deals
    renamed = deals(_config({**{k: v for k, v in ENTRANTS.items() if k != "b"}, "b2": "random"}))
    assert set(renamed.values()) - set(base.values())  # a new entrant (name or spec) gets deals of its own


def test_a_new_tournament_deals_per_pairing_and_keeps_it_on_resume(tmp_path):
    config = _config({"a": "random", "b": "random", "c": "random"}, pairs=1)
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(config, store)
        assert store.seeds("t") == "pairing"
        with pytest.raises(ValueError, match="deals each pairing its own games; --shared-deals") as err:
            run_tournament(config, store, shared_deals=True)
        assert "\n" not in str(err.value)
        more = _config({"a": "random", "b": "random", "c": "random"}, pairs=2)
        summary = run_tournament(more, store, allow_changed=True)
        assert (summary.played, summary.already) == (3, 3)
        rows = store.games("t")
        deals = [GameRecord.from_json(r.record).seed for r in rows]
        assert all(d == store.dealer("t", r).deal(r.seed) for d, r in zip(deals, rows))
        assert len(set(deals)) == 6  # three pairings, two pairs each: six deals, each played twice (seats swapped)


def test_a_tournament_stored_before_resumes_exactly_with_its_shared_deals(tmp_path):
    """A store written before issue 27 says ``seeds = 'keyed'``: it goes on dealing the pair seed's one deal, as
    its games were dealt (no flag needed), and seat_player keeps a deal an engine has seen from it."""
    config = _config({"a": "random", "b": "random", "c": "random"}, pairs=1)
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(config, store, shared_deals=True)  # how a keyed store of the code before was dealt
        assert store.seeds("t") == "keyed"
        old = {r.key for r in store.games("t")}
        run_tournament(_config({"a": "random", "b": "random", "c": "random"}, pairs=2), store, allow_changed=True)
        assert store.seeds("t") == "keyed"
        rows = store.games("t")
        secret = store.secret("t")
    assert len(rows) == 12 and old < {r.key for r in rows}
    for r in rows:  # every game, old or new, on the deal the code before issue 27 dealt
        assert GameRecord.from_json(r.record).seed == Dealer(secret).deal(r.seed)


def test_a_store_dealt_in_an_unknown_way_is_refused_in_one_line(tmp_path):
    config = _config({"a": "random", "b": "random"}, pairs=1)
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(config, store)
        store.db.execute("UPDATE tournaments SET seeds = 'per-move' WHERE name = 't'")
        with pytest.raises(ValueError, match="does not know") as err:
            run_tournament(config, store)
    assert "\n" not in str(err.value) and "newer cardwar" in str(err.value)


def test_the_command_takes_shared_deals_when_a_tournament_is_created(tmp_path, capsys):
    from cardwar.cli import main

    db = tmp_path / "t.sqlite"
    args = ["tournament", "--game", "naval", "--entrant", "a=random", "--entrant", "b=random", "--pairs", "1",
            "--db", str(db), "--out", str(tmp_path / "out"), "--quiet", "--rounds", "10"]
    assert main([*args, "--shared-deals"]) == 0
    with Store(db, readonly=True) as store:
        assert store.seeds("naval-tournament") == "keyed"
    assert main([*args, "--report-only", "--shared-deals"]) == 2
    assert "--shared-deals sets how a new tournament deals" in capsys.readouterr().err
    assert json.loads((tmp_path / "out" / "report.json").read_text())["ratings"]
