"""The server's load benchmark runs end to end on a tiny load, a hard restart included (no timing asserted)."""

from __future__ import annotations

import json

from cardwar.serve import bench


def test_tiny_load_with_a_hard_restart_loses_no_session(capsys) -> None:
    code = bench.main(["--sessions", "3", "--game", "naval", "--agent", "random", "--restart",
                       "--seconds", "60", "--json"])
    out, err = capsys.readouterr()
    report = json.loads(out)
    assert code == 0, report["problems"]
    assert report["ok"] and report["problems"] == []
    assert report["games_finished"] == report["games_total"] == 3
    assert report["sessions_finished"] == 3
    assert report["errors"] == 0 and report["sessions_lost"] == 0 and report["sessions_checked"] == 3
    assert report["moves"] > 0 and report["moves_per_s"] > 0
    for figure in ("server_ms", "round_trip_ms"):
        assert set(report[figure]) == {"p50", "p99", "max"} and report[figure]["p99"] is not None
    assert isinstance(report["target_met"], bool) and report["target_p99_ms"] == 50.0
    restart = report["restart"]
    assert restart["done"] and restart["downtime_s"] > 0
    assert restart["sessions_recovered"] == restart["sessions_mid_game"] > 0
    assert "hard restart" in err  # the progress lines go to stderr


def test_report_reads_as_text() -> None:
    load = bench.Load(restart=False)
    load.server_ms["naval"] += [1.0, 2.0, 3.0]
    load.round_trip_ms["naval"] += [5.0, 6.0, 70.0]
    load.bot_ms["naval"] += [0.5, 0.5, 0.5]
    result = bench.SessionResult(0, "naval", ids=["a"], tokens=["t"], finished=1)
    report = bench.make_report(load, [result], elapsed=1.0, client_cpu_s=0.1, seconds=10, sessions=1,
                               games_per_session=1, game="naval", agent="random", restart=False, restart_info={},
                               checked=1, lost=[], open_at_end=0)
    assert report["ok"] and report["target_met"] and report["round_trip_ms"]["p99"] == 70.0
    text = bench.format_report(report)
    assert "target p99 < 50 ms: met" in text and "result             OK" in text
    assert bench.server_timing("server;dur=1.250, bot;dur=3.5") == {"server": 1.25, "bot": 3.5}
    assert bench.percentile([3.0, 1.0, 2.0], 50) == 2.0 and bench.percentile([], 99) is None
