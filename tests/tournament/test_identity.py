"""A stored game is known by its content (seats, specs, seed, scenario, rules, clock), never by its schedule position.

Reordering the entrants changes nothing, adding one plays only its pairings, removing one
drops it from the report (its games stay stored), a changed spec is refused by name or,
with --allow-changed, enters as a new entrant; old databases are migrated to the keys;
each tournament keeps its dealer's secret.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter

import pytest

import cardwar.tournament.runner as runner_module
from cardwar.tournament.config import config_from_dict
from cardwar.tournament.report import build_report, to_markdown
from cardwar.tournament.runner import current_rows, pairing_name, results_of, run_tournament
from cardwar.tournament.schedule import schedule
from cardwar.tournament.store import ConfigChanged, Store

ENTRANTS = {"r1": "random", "r2": "random", "r3": "random"}


def _config(entrants=None, **extra):
    return config_from_dict({"name": "t", "game": "naval", "entrants": entrants or ENTRANTS, "pairs": 2, "seed": 5,
                             "time": {"move_ms": 60_000}, **extra})


def _check_pairs(rows):
    """Every pair of the result holds its two games, seats swapped, on one seed."""
    pairs = Counter((r.pairing, r.pair) for r in rows)
    assert set(pairs.values()) == {2}
    for r in rows:
        assert r.key is not None
    assert len({r.key for r in rows}) == len(rows)


def test_reordering_the_entrants_plays_nothing_and_changes_nothing(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        first = run_tournament(_config(), store)
        before = sorted((r.first, r.second, r.seed, r.score_first) for r in current_rows(_config(), store))
        reordered = _config({k: ENTRANTS[k] for k in ("r3", "r1", "r2")})
        again = run_tournament(reordered, store)  # no --allow-changed needed: nothing changed
        rows = current_rows(reordered, store)
        assert len(store.games("t")) == 12
    assert (first.played, again.played, again.already) == (6, 0, 6)
    assert sorted((r.first, r.second, r.seed, r.score_first) for r in rows) == before
    _check_pairs(rows)
    for r in rows:  # placed by the reordered schedule: its pairing's entrants, its pair's seed
        a, b = reordered.pairings()[r.pairing]
        assert {r.first, r.second} == {a, b} and r.seed == 5 + r.pair
    build_report(reordered, rows, rounds=20)


def test_adding_an_entrant_plays_only_its_pairings(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        grown = _config({"r4": "random", **ENTRANTS})  # first in the list: every position moves
        with pytest.raises(ConfigChanged, match="entrant 'r4' added"):
            run_tournament(grown, store)
        summary = run_tournament(grown, store, allow_changed=True)
        rows = current_rows(grown, store)
    assert (summary.played, summary.already) == (3 * 2, 3 * 2)  # r4 against three, two pairs each
    assert len(rows) == 24
    _check_pairs(rows)
    assert Counter(n for r in rows for n in (r.first, r.second))["r4"] == 12
    build_report(grown, rows, rounds=20)


def test_removing_an_entrant_drops_it_from_the_report_and_keeps_its_games(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        smaller = _config({"r1": "random", "r3": "random"})
        with pytest.raises(ConfigChanged, match="entrant 'r2' removed"):
            run_tournament(smaller, store)
        summary = run_tournament(smaller, store, allow_changed=True)
        rows = current_rows(smaller, store)
        stored = store.games("t")
    assert summary.played == 0 and len(rows) == 4 and len(stored) == 12
    assert all("r2" not in (r.first, r.second) for r in rows)
    report = build_report(smaller, rows, rounds=20)
    assert "r2" not in {e.name for e in report.ratings.entrants}


def test_a_changed_spec_is_refused_by_name_and_enters_as_a_new_entrant_when_allowed(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        changed = _config({**ENTRANTS, "r2": "heuristic"})
        with pytest.raises(ConfigChanged) as err:
            run_tournament(changed, store)
        assert "entrant 'r2' changed its spec: random -> heuristic; pass --allow-changed to enter it as a new " \
               "entrant" in str(err.value)
        assert "\n" not in str(err.value)
        summary = run_tournament(changed, store, allow_changed=True)
        rows = current_rows(changed, store)
        stored = store.games("t")
    assert summary.played == 4 and summary.already == 2  # r2's two pairings again; r1-r3 stays
    assert len(rows) == 12 and len(stored) == 12 + 8
    for r in rows:  # never pooled: r2's games in the result are all under its new spec
        specs = dict(((r.first, r.first_spec), (r.second, r.second_spec)))
        assert specs.get("r2", "heuristic") == "heuristic"
    _check_pairs(rows)


def test_allow_changed_without_a_change_is_harmless(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        secret, config = store.secret("t"), store.config("t")
        summary = run_tournament(_config(), store, allow_changed=True)
        assert (summary.played, summary.already) == (0, 6)
        assert (store.secret("t"), store.config("t")) == (secret, config)


def test_names_with_dashes_keep_their_pairings_apart(tmp_path):
    entrants = {"a-b": "random", "c": "random", "a": "random", "b-c": "random"}
    config = _config(entrants, pairs=1)
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(config, store)
        rows = current_rows(config, store)
    names = {g.pairing for g in results_of(rows)}
    assert len(names) == 6 and pairing_name("a-b", "c") != pairing_name("a", "b-c")
    report = build_report(config, rows, rounds=20)  # once "more than two games in pair a-b-c"
    assert len(report.pentanomials) == 6


def test_a_changed_clock_or_rule_keys_new_games(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        with pytest.raises(ConfigChanged, match="move_ms: 60000 -> 30000"):
            run_tournament(_config(time={"move_ms": 30_000}), store)
        summary = run_tournament(_config(time={"move_ms": 30_000}), store, allow_changed=True)
    assert summary.played == 6  # games under another clock are other games


# ---------------------------------------------------------------- the dealer's secret
def test_the_secret_is_drawn_once_kept_out_of_the_config_and_dealt_on_every_resume(tmp_path, monkeypatch):
    secrets_seen = []
    real = runner_module.play_pair

    def spy(job):
        secrets_seen.append(job.secret)
        return real(job)

    monkeypatch.setattr(runner_module, "play_pair", spy)
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(pairs=1), store)
        secret = store.secret("t")
        run_tournament(_config(pairs=2), store, allow_changed=True)
        assert store.seeds("t") == "pairing" and store.secret("t") == secret  # keyed, and per pairing
        row = store.db.execute("SELECT config, config_hash FROM tournaments").fetchone()
    assert secret and len(set(secrets_seen)) == 1 and secrets_seen[0] == secret and len(secrets_seen) == 6
    assert secret not in row[0] and secret not in row[1] and "secret" not in json.loads(row[0])
    assert secret not in _config().digest()


def test_reproducible_seeds_store_no_secret_and_a_tournament_keeps_its_dealing(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(pairs=1), store, reproducible_seeds=True)
        assert store.secret("t") is None and store.seeds("t") == "reproducible"
        with pytest.raises(ValueError, match="add it to go on"):
            run_tournament(_config(pairs=1), store)
        run_tournament(_config(pairs=1, name="u"), store)
        with pytest.raises(ValueError, match="--reproducible-seeds would deal other games"):
            run_tournament(_config(pairs=1, name="u"), store, reproducible_seeds=True)


# ---------------------------------------------------------------- old databases
OLD_SCHEMA = """
CREATE TABLE tournaments (name TEXT PRIMARY KEY, config TEXT NOT NULL, config_hash TEXT NOT NULL,
    created REAL NOT NULL);
CREATE TABLE games (
    id INTEGER PRIMARY KEY, tournament TEXT NOT NULL REFERENCES tournaments(name), pairing INTEGER NOT NULL,
    pair INTEGER NOT NULL, game_in_pair INTEGER NOT NULL, seed INTEGER NOT NULL, scenario TEXT, first TEXT NOT NULL,
    second TEXT NOT NULL, first_spec TEXT NOT NULL, second_spec TEXT NOT NULL, score_first REAL NOT NULL,
    returns TEXT NOT NULL, length INTEGER NOT NULL, move_times TEXT NOT NULL, forfeit_seat INTEGER,
    forfeit_reason TEXT, forfeit_detail TEXT, record TEXT NOT NULL, finished REAL NOT NULL,
    UNIQUE (tournament, pairing, pair, game_in_pair));
"""


def _old_database(path, config, rows, extra=()):
    """A database as cardwar wrote it before game keys and secrets: ``rows`` (and ``extra``) under their positions."""
    con = sqlite3.connect(path)
    con.executescript(OLD_SCHEMA)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("INSERT INTO tournaments VALUES (?, ?, ?, 0)",
                ("t", json.dumps(config.to_dict(), sort_keys=True), config.digest()))
    for r in [*rows, *extra]:
        con.execute("INSERT INTO games (tournament, pairing, pair, game_in_pair, seed, scenario, first, second, "
                    "first_spec, second_spec, score_first, returns, length, move_times, forfeit_seat, forfeit_reason, "
                    "forfeit_detail, record, finished) VALUES (" + "?, " * 18 + "0)",
                    ("t", r.pairing, r.pair, r.game_in_pair, r.seed, r.scenario, r.first, r.second, r.first_spec,
                     r.second_spec, r.score_first, json.dumps(r.returns), r.length, json.dumps(r.move_times),
                     r.forfeit_seat, r.forfeit_reason, r.forfeit_detail, r.record))
    con.commit()
    con.close()


def test_an_old_database_is_migrated_to_keys_and_resumes_without_replaying(tmp_path):
    config = _config()
    with Store(tmp_path / "new.sqlite") as store:
        run_tournament(config, store, reproducible_seeds=True)
        rows = store.games("t")
    # an old run misfiled one pair: the same game stored twice under another position
    dup = [r.__class__(**{**r.__dict__, "pairing": 9}) for r in rows[:2]]
    _old_database(tmp_path / "old.sqlite", config, rows, dup)
    before = (tmp_path / "old.sqlite").read_bytes()
    with Store(tmp_path / "old.sqlite", readonly=True) as store:  # read-only: migrated in memory, never written
        assert len(current_rows(config, store)) == 12
    assert (tmp_path / "old.sqlite").read_bytes() == before
    with Store(tmp_path / "old.sqlite") as store:
        assert store.secret("t") is None and store.seeds("t") == "legacy"  # dealt from the plain seeds
        assert {r.id: r.key for r in store.games("t")} == {r.id: r.key for r in rows} | {13: None, 14: None}
        summary = run_tournament(config, store)  # legacy: no --reproducible-seeds needed
        assert (summary.played, summary.already) == (0, 6)
        assert len(current_rows(config, store)) == 12 and len(store.games("t")) == 14  # none lost
        assert store.db.execute("PRAGMA user_version").fetchone()[0] == 2


def test_schedule_keys_do_not_depend_on_positions():
    a = {tuple(sorted(j.keys())) for j in schedule(_config())}
    b = {tuple(sorted(j.keys())) for j in schedule(_config({k: ENTRANTS[k] for k in ("r2", "r3", "r1")}))}
    assert a == b and len(a) == 6


def test_the_report_of_a_resumed_changed_tournament_counts_each_game_once(tmp_path):
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        grown = _config({"r0": "random", **{k: ENTRANTS[k] for k in ("r3", "r2", "r1")}})
        run_tournament(grown, store, allow_changed=True)
        rows = current_rows(grown, store)
    text = to_markdown(build_report(grown, rows, rounds=20))
    assert f"{len(rows)} games in {len(rows) // 2} duplicate pairs" in text and len(rows) == 24


def test_the_anchor_key_chooses_the_reports_zero_and_changes_no_game(tmp_path):
    from cardwar.tournament.config import TournamentConfigError

    with pytest.raises(TournamentConfigError, match="anchor: 'nobody' is not an entrant"):
        _config(anchor="nobody")
    with Store(tmp_path / "t.sqlite") as store:
        run_tournament(_config(), store)
        summary = run_tournament(_config(anchor="r2"), store)  # no --allow-changed: the games are the same
    assert (summary.played, summary.already) == (0, 6)


def test_a_migrated_game_is_keyed_by_the_rules_its_record_was_played_under(tmp_path):
    """An old database whose early games were played under other rules (before an --allow-changed): migrated,
    those games keep their rules and never count as games of the rules in force now."""
    config = _config()
    with Store(tmp_path / "new.sqlite") as store:
        run_tournament(config, store, reproducible_seeds=True)
        rows = store.games("t")
    other = []
    for r in rows[:2]:  # the first pair, as if played with hand_size 5
        rec = json.loads(r.record)
        rec["rules"] = {**rec["rules"], "hand_size": 5}
        other.append(r.__class__(**{**r.__dict__, "record": json.dumps(rec)}))
    _old_database(tmp_path / "old.sqlite", config, other + rows[2:])
    with Store(tmp_path / "old.sqlite") as store:
        counted = current_rows(config, store)
        assert len(counted) == 10 and len(store.games("t")) == 12
        assert {r.id for r in store.games("t")} - {r.id for r in counted} == {1, 2}
        summary = run_tournament(config, store)
        assert summary.played == 1  # that pair is played again under today's rules
