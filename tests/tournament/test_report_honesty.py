"""Reports that say what they know: the anchor and why, n/a for intervals from too few pairs,
SPRT pairings marked and corrected, every forfeit's seat, reason and detail in every file.

Store rows are made by hand (no game is played), so each test takes a fraction of a second.
"""

from __future__ import annotations

import csv
import json
import math
import re

import numpy as np
import pytest

from cardwar.tournament.config import config_from_dict
from cardwar.tournament.report import build_report, pairing_name, to_json, to_markdown, write_reports
from cardwar.tournament.sprt import llr
from cardwar.tournament.store import GameRow

RECORD = json.dumps({"players": {"first": "x", "second": "y"}, "moves": []})


def rows_for(config, outcomes, forfeits=None):
    """Rows of every pairing's pairs: ``outcomes[(a, b)]`` lists a's (first-seat, second-seat) scores.

    ``forfeits[(a, b, pair, game_in_pair)] = (seat, reason, detail)`` marks a game forfeited.
    """
    forfeits = forfeits or {}
    rows, game_id = [], 1
    for p, (a, b) in enumerate(config.pairings()):
        for k, (s1, s2) in enumerate(outcomes.get((a, b), [])):
            for g, (first, second, score) in enumerate([(a, b, s1), (b, a, 1.0 - s2)]):
                seat, reason, detail = forfeits.get((a, b, k, g), (None, None, None))
                rows.append(GameRow(pairing=p, pair=k, game_in_pair=g, seed=k, scenario=None, first=first,
                                    second=second, first_spec=config.entrants[first],
                                    second_spec=config.entrants[second], score_first=score, returns=[0.0, 0.0],
                                    length=10, move_times=[], forfeit_seat=seat, forfeit_reason=reason,
                                    forfeit_detail=detail, record=RECORD, id=game_id))
                game_id += 1
    return rows


def random_outcomes(n, p, seed):
    rng = np.random.default_rng(seed)
    return [tuple(float(v) for v in rng.random(2) < p) for _ in range(n)]


def ladder(entrants, pairs=20, **extra):
    config = config_from_dict({"name": "t", "game": "naval", "entrants": entrants, "pairs": pairs, **extra})
    outcomes = {(a, b): random_outcomes(pairs, 0.3 + 0.1 * k, k) for k, (a, b) in enumerate(config.pairings())}
    return config, rows_for(config, outcomes)


def test_the_anchor_is_the_entrant_whose_spec_is_random_not_whoever_is_named_random():
    config, rows = ladder({"baseline": "random", "random": "heuristic", "h2": "heuristic:samples=2"})
    rep = build_report(config, rows, rounds=50)
    assert rep.ratings.anchor == "baseline" and rep.ratings["baseline"].elo == 0.0
    assert rep.ratings["random"].elo != 0.0
    data = to_json(rep)
    assert (data["anchor"], data["anchor_spec"]) == ("baseline", "random") and "spec is random" in data["anchor_rule"]
    text = to_markdown(rep)
    assert "Anchor: **baseline** = 0 (its spec is random)." in text and "baseline = 0;" in text


def test_an_anchor_parameter_overrides_and_without_one_the_mean_is_zero():
    config, rows = ladder({"r": "random", "h": "heuristic", "h2": "heuristic:samples=2"})
    by_key = build_report(config, rows, rounds=50, anchor="h2")
    assert by_key.ratings.anchor == "h2" and by_key.ratings["h2"].elo == 0.0
    assert "Anchor: **h2** = 0 (the tournament's anchor key)." in to_markdown(by_key)
    with pytest.raises(ValueError, match="not an entrant"):
        build_report(config, rows, rounds=50, anchor="nobody")
    config, rows = ladder({"h": "heuristic", "h2": "heuristic:samples=2", "h3": "heuristic:samples=3"})
    rep = build_report(config, rows, rounds=50)
    assert rep.ratings.anchor is None and to_json(rep)["anchor"] is None
    assert sum(e.elo for e in rep.ratings.entrants) == pytest.approx(0.0, abs=1e-6)
    assert "Anchor: none (no anchor key and no entrant with spec random: the ratings' mean is 0)." in to_markdown(rep)
    # The differences between entrants do not depend on the anchor.
    other = build_report(config, rows, rounds=50, anchor="h3")
    assert other.ratings["h"].elo - other.ratings["h2"].elo == pytest.approx(
        rep.ratings["h"].elo - rep.ratings["h2"].elo, abs=1e-6)


def test_intervals_from_few_pairs_read_na_and_never_as_zero_width(tmp_path):
    config, rows = ladder({"random": "random", "h": "heuristic", "h2": "heuristic:samples=2"}, pairs=1)
    rep = build_report(config, rows, rounds=200)
    text = to_markdown(rep)
    for e in rep.ratings.entrants:
        assert e.pairs == 2 and not e.reliable or e.name == "random"
    assert text.count("n/a (2 pairs)") == 2 and "anchor (0 by definition)" in text
    assert not re.search(r"\| (-?\d+) \.\. \1 \|", text)  # no "-254 .. -254"
    data = to_json(rep)
    for row in data["ratings"]:
        assert row["lower"] is None and row["upper"] is None and row["los_next"] is None
    write_reports(rep, tmp_path)
    with (tmp_path / "ratings.csv").open() as f:
        assert all(r["lower"] == "" and r["upper"] == "" for r in csv.DictReader(f))
    # With enough varied pairs the interval is shown, around the estimate.
    config, rows = ladder({"random": "random", "h": "heuristic", "h2": "heuristic:samples=2"}, pairs=20)
    rep = build_report(config, rows, rounds=200)
    h = rep.ratings["h"]
    assert h.reliable and h.lower < h.elo < h.upper
    assert f"| {h.lower:.0f} .. {h.upper:.0f} |" in to_markdown(rep)


def test_forfeit_details_reach_report_md_report_json_and_games_csv(tmp_path):
    config = config_from_dict({"name": "t", "game": "naval", "pairs": 12,
                               "entrants": {"random": "random", "bot": "engine:python bot.py"}})
    long_detail = "Traceback (most recent call last):\n" + "  File 'bot.py', line 3, in act\n" * 10 + "KeyError: 7"
    forfeits = {("random", "bot", 2, 0): (1, "timeout", "over the 2000 ms move time | answered after 2412 ms"),
                ("random", "bot", 5, 1): (0, "illegal", "move 99 is not legal"),
                ("random", "bot", 7, 1): (0, "error", long_detail)}
    rows = rows_for(config, {("random", "bot"): random_outcomes(12, 0.5, 1)}, forfeits)
    rep = build_report(config, rows, rounds=50)
    paths = write_reports(rep, tmp_path)
    expected = [(2, 0, 1, "bot", "timeout", forfeits[("random", "bot", 2, 0)][2]),
                (5, 1, 0, "bot", "illegal", "move 99 is not legal"),
                (7, 1, 0, "bot", "error", long_detail)]
    data = json.loads((tmp_path / "report.json").read_text())
    assert [(f["pair"], f["game_in_pair"], f["seat"], f["entrant"], f["reason"], f["detail"])
            for f in data["forfeits"]] == expected
    with (tmp_path / "games.csv").open(newline="") as f:
        got = [(int(r["pair"]), int(r["game_in_pair"]), int(r["forfeit_seat"]), r["forfeit_entrant"],
                r["forfeit_reason"], r["forfeit_detail"]) for r in csv.DictReader(f) if r["forfeit_seat"]]
    assert got == expected
    text = paths[0].read_text()
    assert "## Forfeits (3 games; the forfeiting seat loses)" in text
    assert "| 1 | bot | timeout | over the 2000 ms move time \\| answered after 2412 ms |" in text
    assert "| 0 | bot | illegal | move 99 is not legal |" in text
    assert "Traceback (most recent call last): File 'bot.py'" in text and "KeyError: 7" not in text
    assert "report.json and games.csv hold them whole" in text
    assert data["ratings"][[r["name"] for r in data["ratings"]].index("bot")]["forfeits"] == {
        "error": 1, "illegal": 1, "timeout": 1}


def test_sprt_pairings_are_marked_with_llr_bounds_and_the_corrected_elo():
    # A gauntlet whose hero is no stronger than random but starts on a lucky run: H1 on [0, 100]
    # after 12 pairs. The report marks the pairing, shows the LLR and bounds, and rates it by the
    # corrected Elo: on a star of pairings the hero's rating is that pairing's alone, the closed
    # form 400 log10((n s + 1/2) / (n (1 - s) + 1/2)) at the corrected score rate s.
    config = config_from_dict({"name": "g", "game": "naval", "format": "gauntlet", "gauntlet": "hero", "pairs": 50,
                               "entrants": {"hero": "heuristic", "rnd": "random"},
                               "sprt": {"elo0": 0, "elo1": 100, "alpha": 0.05, "beta": 0.05}})
    lucky = [(1.0, 1.0)] * 9 + [(1.0, 0.5)] * 2 + [(1.0, 0.0)]
    rows = rows_for(config, {("hero", "rnd"): lucky})
    rep = build_report(config, rows, rounds=200)
    test = rep.sprt[pairing_name("hero", "rnd")]
    assert test.stopped and test.decision == "H1" and test.pairs == 12
    assert test.result.llr == pytest.approx(llr([0, 0, 1, 2, 9], 0, 100))
    s = 1 / (1 + 10 ** (-test.corrected.elo / 400))
    n = len(rows)
    assert rep.ratings["hero"].elo == pytest.approx(400 * math.log10((n * s + 0.5) / (n * (1 - s) + 0.5)), abs=1e-2)
    assert rep.ratings["hero"].elo < 400 * math.log10((n * 0.9375 + 0.5) / (n * 0.0625 + 0.5))  # as played
    assert rep.ratings["hero"].sequential and rep.ratings["rnd"].sequential
    text = to_markdown(rep)
    assert "| 1 | hero † |" in text and "| hero vs rnd † | 12 |" in text
    assert (f"| hero vs rnd | 12 | 0, 100 | {test.result.llr:.2f} | -2.94 .. 2.94 | H1 accepted (upper bound crossed), "
            f"stopped after 12 of 50 pairs | {test.naive_elo:.0f} | {test.corrected.elo:.0f} ") in text
    entry = to_json(rep)["sprt"]["hero vs rnd"]
    assert entry["stopped"] and entry["decision"] == "H1" and (entry["lower"], entry["upper"]) == pytest.approx(
        (-math.log(19), math.log(19)))
    assert entry["elo_corrected"]["elo"] < entry["elo_as_played"]


def test_a_rounded_zero_elo_has_no_minus_sign():
    from cardwar.tournament.report import _fmt

    assert (_fmt(-0.2), _fmt(-0.6), _fmt(-0.0004, ".3f"), _fmt(None)) == ("0", "-1", "0.000", "-")


def test_entrant_names_holding_vs_never_merge_two_pairings():
    """`a vs b` against `c`, and `a` against `b vs c`: one label apart, two pairings (issue 18 item 2)."""
    from cardwar.tournament.config import config_from_dict
    from cardwar.tournament.report import build_report
    from cardwar.tournament.store import GameRow

    config = config_from_dict({"name": "vs", "game": "naval", "pairs": 1, "entrants": {
        "a vs b": "random", "c": "random", "a": "random", "b vs c": "random"}})
    rows = []
    for p, (x, y) in enumerate(config.pairings()):
        for g, (first, second) in enumerate(((x, y), (y, x))):
            record = '{"players": {"captain_a": "random", "captain_b": "random"}, "moves": []}'
            rows.append(GameRow(p, 0, g, 0, None, first, second, "random", "random", 1.0, [1.0, -1.0], 10, [],
                                None, None, None, record))
    rep = build_report(config, rows, rounds=20)
    assert len(rep.pentanomials) == len(config.pairings()) == 6
    assert all(p.pairs == 1 for p in rep.pentanomials)
