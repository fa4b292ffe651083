"""`cardwar replay`: saved games and tournament games play back move by move, to their recorded result,
as each viewer saw them (a seat never sees the other hand or a hidden unit), as PNG frames and a GIF."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import sys
from pathlib import Path

import numpy as np
import pytest

from cardwar import agents
from cardwar.arena import play_game
from cardwar.cli import main
from cardwar.envs import make_raw_env
from cardwar.envs.naval.cards import card_to_str
from cardwar.record import SEATS, GameRecord, final_state, replay_states
from cardwar.tournament.store import GameRow, Store
from tests.subprocesses import run_command
from tests.misbehaving_agents import Crashing

MOVE_LINE = re.compile(r"^\s+(\d+)\. (Captain [AB]|blue|red)(?:: (.*))?$")
CARD = re.compile(r"(?<![\w])(?:10|[2-9AJQK])[CDHS](?![\w])")
SEAT_NAMES = {"naval": ("Captain A", "Captain B"), "hexwar": ("blue", "red")}


def cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``cardwar ARGV`` in this process: exit status, stdout, stderr."""
    try:
        code = main([str(a) for a in argv])
    except SystemExit as stop:  # argparse's own mistakes
        code = stop.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, Path]:
    """Records made the ways users make them: `cardwar play --save`, `--json` output, and arena forfeits."""
    d = tmp_path_factory.mktemp("replay")
    files = {"dir": d, "naval": d / "naval.json", "hexwar": d / "hexwar.json", "hidden": d / "hidden.json"}
    assert main(["play", "naval", "--seed", "3", "--a", "heuristic", "--quiet", "--reproducible-seeds", "--save", str(files["naval"])]) == 0
    assert main(["play", "hexwar", "--seed", "2", "--a", "heuristic", "--quiet", "--reproducible-seeds", "--save", str(files["hexwar"])]) == 0
    assert main(["play", "hexwar", "--scenario", "hill_and_hedgerows", "--rule", "hidden_units=true", "--seed", "1",
                 "--a", "heuristic", "--quiet", "--reproducible-seeds", "--save", str(files["hidden"])]) == 0
    for game, at in (("naval", 9), ("hexwar", 6)):
        out = play_game(make_raw_env(game), (agents.make("random", game, seed=1), Crashing(at)), 7, game=game,
                        specs=("random", "crasher"))
        assert out.forfeit is not None
        files[f"{game}_forfeit"] = out.record.save(d / f"{game}_forfeit.json")
    return files


def move_lines(text: str) -> list[tuple[int, str, str | None]]:
    return [(int(m[1]), m[2], m[3]) for m in map(MOVE_LINE.match, text.splitlines()) if m]


def expected_result_line(rec: GameRecord) -> str:
    seats = SEATS[rec.game]
    winner = None if rec.result["winner"] is None else seats.index(rec.result["winner"])
    if rec.game == "naval":
        from cardwar.envs.naval.scoring import describe_result
    else:
        from cardwar.envs.hexwar.text import describe_result  # type: ignore[assignment]
    return f"Result: {describe_result(rec.result['detail'], winner)}"


# ---------------------------------------------------------------- whole games
@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_a_saved_game_replays_every_move_in_order_to_the_recorded_result(capsys, games, game):
    rec = GameRecord.load(games[game])
    code, out, err = cli(capsys, "replay", games[game])
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[-1] == expected_result_line(rec)
    names = SEAT_NAMES[game]
    assert move_lines(out) == [(i + 1, names[SEATS[game].index(m.seat)], m.move) for i, m in enumerate(rec.moves)]
    assert f"Seed: {rec.seed}" in lines
    players = ", ".join(f"{names[i]} = {rec.players[s]}" for i, s in enumerate(SEATS[game]))
    assert f"Players: {players}" in lines and "Viewer: omniscient" in out
    if game == "hexwar":
        assert lines[1].startswith("Scenario: meeting_engagement - ")


def test_the_json_printout_of_cardwar_play_replays_as_its_record(capsys, games, tmp_path):
    code, printed, _ = cli(capsys, "play", "naval", "--seed", "5", "--quiet", "--json")
    assert code == 0
    whole = tmp_path / "printout.json"
    whole.write_text(printed)  # `cardwar play naval --json > printout.json`: the result line, then the JSON
    field = tmp_path / "record.json"
    field.write_text(json.dumps(json.loads(printed.splitlines()[-1])["record"]))
    outs = [cli(capsys, "replay", path) for path in (whole, field)]
    assert outs[0] == outs[1] and outs[0][0] == 0
    assert outs[0][1].splitlines()[-1] == expected_result_line(GameRecord.load(field))


def test_to_stops_after_move_n_and_quiet_prints_only_the_end(capsys, games):
    rec = GameRecord.load(games["naval"])
    code, out, _ = cli(capsys, "replay", games["naval"], "--to", "5")
    assert code == 0 and [n for n, _, _ in move_lines(out)] == [1, 2, 3, 4, 5]
    assert out.splitlines()[-1] == f"Stopped after move 5 of {len(rec.moves)} (--to)" and "Result:" not in out
    code, out, _ = cli(capsys, "replay", games["naval"], "--quiet")
    assert code == 0 and out.splitlines() == [expected_result_line(rec)]
    code, out, _ = cli(capsys, "replay", games["naval"], "--to", "100000")  # past the end: the whole game
    assert code == 0 and out.splitlines()[-1] == expected_result_line(rec)


def test_step_waits_for_enter_between_moves_and_q_stops(games):
    from cardwar.cli.replay import load_record, prepare, replay_text

    g = prepare(load_record(games["naval"]))
    prompts: list[str] = []
    answers = iter(["", "", "q"])
    lines: list[str] = []
    shown = replay_text(g, "omniscient", step=True, out=lines.append,
                        read=lambda prompt: prompts.append(prompt) or next(answers))
    assert shown == 3 and len(prompts) == 3 and lines[-1].startswith("Stopped after move 3 of")
    # no terminal (a pipe, a test): --step is ignored
    code = run_command([sys.executable, "-m", "cardwar", "replay", str(games["naval"]), "--step", "--quiet"],
                       timeout=120, input="")
    assert code.returncode == 0 and code.stdout.startswith("Result:") and "Enter" not in code.stdout


@pytest.mark.skipif(sys.platform == "win32", reason="a pseudo-terminal")
def test_step_on_a_terminal_waits_for_enter(games):
    import pty
    import subprocess

    master, slave = pty.openpty()
    proc = subprocess.Popen([sys.executable, "-m", "cardwar", "replay", str(games["naval"]), "--step"], stdin=slave,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    os.close(slave)
    try:
        os.write(master, b"\n\nq\n")  # two moves on, then stop
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
        os.close(master)
    assert proc.returncode == 0 and err == ""
    prompt = "-- Enter: next move, q: stop -- "  # a terminal echoes the Enter after it; a pipe does not
    assert out.count(prompt) == 3 and [n for n, _, _ in move_lines(out.replace(prompt, ""))] == [1, 2, 3]
    assert out.splitlines()[-1].startswith("Stopped after move 3 of")


def test_a_forfeit_replays_to_where_it_happened_and_shows_its_reason(capsys, games):
    for game in ("naval", "hexwar"):
        rec = GameRecord.load(games[f"{game}_forfeit"])
        code, out, err = cli(capsys, "replay", games[f"{game}_forfeit"])
        assert code == 0 and err == ""
        assert len(move_lines(out)) == len(rec.moves) and "ended by a forfeit" in out
        names = ("Captain A", "Captain B") if game == "naval" else ("Blue", "Red")
        assert out.splitlines()[-1] == (f"Result: {names[0]} wins by forfeit, {names[1]} forfeited after move "
                                        f"{len(rec.moves)} (error: RuntimeError: segfault in my evaluation function)")


def test_an_abandoned_game_replays_as_the_spectator_saw_it(capsys, games, tmp_path):
    import dataclasses

    rec = GameRecord.load(games["naval"])
    cut = dataclasses.replace(rec, moves=rec.moves[:10], finished=False, result=None, quit_by="captain_b")
    cut.save(tmp_path / "quit.json")
    code, out, _ = cli(capsys, "replay", tmp_path / "quit.json")
    assert code == 0 and "Viewer: spectator" in out and "cards (hidden)" in out
    assert out.splitlines()[-1] == "Result: none, the game was abandoned after 10 moves (Captain B quit)"


# ---------------------------------------------------------------- tournament databases
def row_of(out, pairing: int, pair: int, game_in_pair: int, names: tuple[str, str], specs: tuple[str, str]) -> GameRow:
    f = out.forfeit
    return GameRow(pairing=pairing, pair=pair, game_in_pair=game_in_pair, seed=out.record.seed, scenario=None,
                   first=names[0], second=names[1], first_spec=specs[0], second_spec=specs[1],
                   score_first=(out.returns[0] + 1) / 2, returns=out.returns, length=out.length,
                   move_times=out.times, forfeit_seat=None if f is None else f.seat,
                   forfeit_reason=None if f is None else f.reason, forfeit_detail=None if f is None else f.detail,
                   record=out.record.to_json())


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    """A tournament database with one naval pair (seats swapped) and a hex pair with a forfeit."""
    path = tmp_path_factory.mktemp("db") / "t.sqlite"
    with Store(path) as store:
        store.open_tournament("league", {"game": "naval"}, "h1")
        pair = []
        for k, (a, b) in enumerate((("heuristic", "random"), ("random", "heuristic"))):
            out = play_game(make_raw_env("naval"), (agents.make(a, "naval", seed=1), agents.make(b, "naval", seed=2)),
                            11, game="naval", specs=(a, b))
            pair.append(row_of(out, 0, 0, k, (a, b), (a, b)))
        store.add_pair("league", pair)
        store.open_tournament("hexcup", {"game": "hexwar"}, "h2")
        crash = play_game(make_raw_env("hexwar"), (agents.make("random", "hexwar", seed=1), Crashing(4)), 3,
                          game="hexwar", specs=("random", "crasher"))
        fine = play_game(make_raw_env("hexwar"), (agents.make("random", "hexwar", seed=1),
                                                  agents.make("random", "hexwar", seed=2)), 3, game="hexwar",
                         specs=("random", "random"))
        store.add_pair("hexcup", [row_of(crash, 0, 0, 0, ("rnd", "crasher"), ("random", "crasher")),
                                  row_of(fine, 0, 0, 1, ("crasher", "rnd"), ("random", "random"))])
    return path


def test_list_shows_every_stored_game_with_pairing_seats_result_length_and_forfeit(capsys, db):
    with Store(db) as store:
        rows = {t: store.games(t) for t in ("league", "hexcup")}
    code, out, err = cli(capsys, "replay", "--db", db, "--list")
    assert code == 0 and err == ""
    assert "tournament league: 2 games" in out and "tournament hexcup: 2 games" in out
    for t, rs in rows.items():
        for r in rs:
            line = next(x for x in out.splitlines() if x.split()[:1] == [str(r.id)])
            assert f"{r.first} (" in line and f"vs {r.second} (" in line and f" {r.length} " in f"{line} "
            assert {1.0: "1-0", 0.0: "0-1", 0.5: "1/2-1/2"}[r.score_first] in line
            assert (r.forfeit_reason is None) == line.rstrip().endswith("-")
    crash_line = next(x for x in out.splitlines() if x.split()[:1] == [str(rows["hexcup"][0].id)])
    assert "red error: RuntimeError: segfault" in crash_line
    code, out, _ = cli(capsys, "replay", "--db", db, "--list", "--tournament", "league")
    assert code == 0 and "league" in out and "hexcup" not in out


def test_a_stored_game_replays_from_the_database_to_its_result(capsys, db):
    with Store(db) as store:
        rows = store.games("league") + store.games("hexcup")
        records = {r.id: store.record(r.id) for r in rows}
    for row in rows:
        rec = records[row.id]
        code, out, err = cli(capsys, "replay", "--db", db, "--game", row.id)
        assert code == 0 and err == ""
        assert f"{db} game {row.id}" in out.splitlines()[0]
        names = SEAT_NAMES[rec.game]
        assert move_lines(out) == [(i + 1, names[SEATS[rec.game].index(m.seat)], m.move)
                                   for i, m in enumerate(rec.moves)]
        last = out.splitlines()[-1]
        if row.forfeit_reason is None:
            assert last == expected_result_line(rec)
        else:
            assert "by forfeit" in last and f"({row.forfeit_reason}: {row.forfeit_detail})" in last


# ---------------------------------------------------------------- what each viewer sees
def segments(text: str) -> list[str]:
    """The printout cut at each move line: segment k holds move k and what is shown after it."""
    out: list[list[str]] = [[]]
    for line in text.splitlines():
        if MOVE_LINE.match(line):
            out.append([])
        out[-1].append(line)
    return ["\n".join(s) for s in out]


def test_captain_a_never_sees_a_card_of_captain_bs_hand_it_has_not_been_shown(capsys, games):
    rec = GameRecord.load(games["naval"])
    states = list(replay_states(rec))
    views = {}
    for viewer in ("A", "spectator", "omniscient"):
        code, out, _ = cli(capsys, "replay", games["naval"], "--viewer", viewer)
        assert code == 0
        views[viewer] = segments(out)
        assert len(views[viewer]) == len(states)
    assert "Captain A  hand: 7 cards (hidden)" not in "".join(views["A"])  # A's own hand is shown to A
    public: set[str] = set()
    had_a: set[str] = set()
    secrets_seen_by_omniscient = 0
    for k, state in enumerate(states):
        public |= set(CARD.findall(views["spectator"][k]))
        had_a |= {card_to_str(c) for c in state.hands[0]}
        secret = {card_to_str(c) for c in state.hands[1]} - public - had_a
        shown_to_a = set(CARD.findall("\n".join(views["A"][:k + 1])))
        assert not secret & shown_to_a, f"after move {k}, A was shown B's unseen cards {secret & shown_to_a}"
        secrets_seen_by_omniscient += len(secret & set(CARD.findall("\n".join(views["omniscient"][:k + 1]))))
    assert secrets_seen_by_omniscient > 0  # the scan would see a leak: the omniscient replay names them


def test_blue_never_sees_a_hidden_red_unit_before_it_is_revealed(capsys, games):
    from cardwar.envs.hexwar.text import render_state

    rec = GameRecord.load(games["hidden"])
    states = list(replay_states(rec))
    code, out, _ = cli(capsys, "replay", games["hidden"], "--viewer", "blue")
    assert code == 0
    blue = [render_state(s, 0) for s in states]
    omniscient = [render_state(s, "omniscient") for s in states]
    chunks = out.split("\n\n")[1:]  # each board follows a blank line
    assert len(chunks) > rec.result["turns"]
    k, hidden_boards = 0, 0
    for chunk in chunks:
        while k < len(states) and not (chunk == blue[k] or chunk.startswith(blue[k] + "\n")):
            k += 1
        assert k < len(states), f"a board that is not blue's view of any position:\n{chunk[:400]}"
        red_hidden = any(s_hidden and side == 1 for s_hidden, side in zip(states[k].hidden, states[k].side))
        if red_hidden:
            hidden_boards += 1
            assert blue[k] != omniscient[k]
    assert hidden_boards >= 3  # hidden red units were on the table while boards were shown
    for n, seat, notation in move_lines(out):  # red's moves reach blue only as the public log tells them
        assert (notation is None) == (seat == "red")


def test_stopped_anywhere_blue_is_shown_its_own_view_of_the_position(games):
    """``--to N`` after every move made while red had hidden units: the board shown is blue's view."""
    from cardwar.envs.hexwar.text import render_state
    from cardwar.cli.replay import load_record, prepare, replay_text

    g = prepare(load_record(games["hidden"]))
    hidden_at = [k for k, s in enumerate(g.states) if any(h and side == 1 for h, side in zip(s.hidden, s.side))]
    assert len(hidden_at) > 20
    for k in hidden_at:
        lines: list[str] = []
        replay_text(g, "blue", to=k, out=lines.append)
        board = render_state(g.states[k], 0)
        assert lines[-1].startswith(f"Stopped after move {k} of") or k == 0
        assert lines[-2] == "\n" + board and board != render_state(g.states[k], "omniscient")


# ---------------------------------------------------------------- pictures
def test_png_frames_are_one_per_position_and_the_gif_has_as_many_frames(capsys, games, tmp_path):
    from PIL import Image

    from cardwar.envs.hexwar.picture import render_rgb

    rec = GameRecord.load(games["hexwar_forfeit"])
    states = list(replay_states(rec))
    frames, gif = tmp_path / "frames", tmp_path / "game.gif"
    code, out, err = cli(capsys, "replay", games["hexwar_forfeit"], "--viewer", "red", "--quiet",
                         "--png-frames", frames, "--gif", gif, "--fps", "5")
    assert code == 0 and err == ""
    names = sorted(p.name for p in frames.iterdir())
    assert names == [f"frame_{k:04d}.png" for k in range(len(rec.moves) + 1)]
    for k in (0, len(states) - 1):
        assert np.array_equal(np.asarray(Image.open(frames / names[k]).convert("RGB")), render_rgb(states[k], 1))
    with Image.open(gif) as im:
        assert im.n_frames == len(rec.moves) + 1 and im.info["duration"] == 200 and im.info["loop"] == 0
    # a shorter replay into the same folder leaves exactly its own frames
    code, out, _ = cli(capsys, "replay", games["hexwar_forfeit"], "--to", "2", "--quiet", "--png-frames", frames)
    assert code == 0 and sorted(p.name for p in frames.iterdir()) == ["frame_0000.png", "frame_0001.png",
                                                                      "frame_0002.png"]


def test_equal_consecutive_positions_still_get_a_gif_frame_each(tmp_path):
    from PIL import Image

    from cardwar.cli.replay import write_pictures

    env = make_raw_env("hexwar")
    env.reset(seed=0)
    state = env.game.clone()
    write_pictures([state, state, state], None, gif=tmp_path / "same.gif", game="hexwar")
    with Image.open(tmp_path / "same.gif") as im:
        assert im.n_frames == 3


# ---------------------------------------------------------------- mistakes: one line, exit 2
@pytest.fixture(scope="module")
def bad(games) -> dict[str, Path]:
    d = games["dir"] / "bad"
    d.mkdir()
    data = json.loads(games["naval"].read_text())
    (d / "seed.json").write_text(json.dumps({**data, "seed": "seven"}))
    moves = list(data["moves"])
    moves[3] = {"seat": moves[3]["seat"], "move": "sink A"}
    (d / "move.json").write_text(json.dumps({**data, "moves": moves}))
    (d / "text.json").write_text("these are not the moves you are looking for\n")
    (d / "notadb.sqlite").write_text("plain text\n")
    con = sqlite3.connect(d / "other.sqlite")
    con.execute("CREATE TABLE birds (name TEXT)")
    con.commit()
    con.close()
    (d / "a_file").write_text("x")
    (d / "folder.json").mkdir()
    (d / "folder.gif").mkdir()
    return {"dir": d}


ERRORS = [
    (["{dir}/missing.json"], "missing.json: no such file"),
    (["{dir}/folder.json"], "is a folder"),
    (["{dir}/seed.json"], "seed: expected an integer"),
    (["{dir}/move.json"], "moves[3] 'sink A'"),
    (["{dir}/text.json"], "text.json: not JSON"),
    (["--db", "{db}", "--game", "999"], "no game with id 999"),
    (["--db", "{dir}/notadb.sqlite", "--game", "1"], "not a cardwar tournament database"),
    (["--db", "{dir}/other.sqlite", "--list"], "not a cardwar tournament database"),
    (["--db", "{dir}/missing.sqlite", "--list"], "missing.sqlite: no such file"),
    (["--db", "{db}", "--list", "--tournament", "nope"], "no tournament 'nope' (tournaments: league, hexcup)"),
    (["--db", "{db}"], "--db needs --game ID"),
    (["--game", "1"], "give --db FILE too"),
    (["--list"], "give --db FILE"),
    (["{naval}", "--db", "{db}", "--game", "1"], "not both"),
    ([], "give a record FILE"),
    (["{naval}", "--gif", "{dir}/x.gif"], "--gif draws the map; the naval game has no picture"),
    (["{naval}", "--png-frames", "{dir}/frames"], "--png-frames draws the map; the naval game has no picture"),
    (["{naval}", "--viewer", "player_3"], "--viewer 'player_3': give a seat of naval: captain_a, captain_b"),
    (["{hexwar}", "--gif", "{dir}/x.png"], "ending in .gif"),
    (["{hexwar}", "--gif", "{dir}/no/such/x.gif"], "no folder"),
    (["{hexwar}", "--gif", "{dir}/folder.gif"], "is a folder"),
    (["{hexwar}", "--png-frames", "{dir}/a_file"], "is a file; give a folder"),
    (["{hexwar}", "--png-frames", "{dir}/a_file/frames"], "cannot make folder"),
    (["{hexwar}", "--fps", "8"], "--fps sets the speed of --gif"),
    (["{hexwar}", "--gif", "{dir}/x.gif", "--fps", "500"], "--fps must be between"),
    (["{hexwar}", "--fps", "0"], "--fps must be at least 0.1"),
    (["{naval}", "--to", "-1"], "--to must be at least 0"),
    (["{naval}", "--viewer", "C"], "--viewer 'C': give a seat of naval"),
]


@pytest.mark.parametrize("argv, message", ERRORS, ids=[" ".join(a) or "nothing" for a, _ in ERRORS])
def test_a_mistake_is_one_line_and_exit_status_2(capsys, games, db, bad, argv, message):
    values = {"dir": bad["dir"], "db": db, "naval": games["naval"], "hexwar": games["hexwar"]}
    code, out, err = cli(capsys, "replay", *[a.format(**values) for a in argv])
    assert code == 2 and out == "", out
    assert len(err.splitlines()) == 1 and message in err and "Traceback" not in err, err
    assert not (bad["dir"] / "missing.sqlite").exists()  # a db that is not there is not created


def test_a_database_of_something_else_is_left_as_it_was(capsys, bad):
    before = (bad["dir"] / "other.sqlite").read_bytes()
    cli(capsys, "replay", "--db", bad["dir"] / "other.sqlite", "--game", "1")
    assert (bad["dir"] / "other.sqlite").read_bytes() == before


def test_a_folder_that_cannot_be_written_is_one_line(capsys, games, tmp_path):
    """A locked folder (or, for root, who may write anywhere, /proc): the frames and the GIF are refused in one
    line, whether the check before the replay or the writing itself finds it."""
    if os.geteuid() == 0:
        locked = Path("/proc")
    else:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
    try:
        for argv in (["--png-frames", locked], ["--gif", locked / "g.gif"], ["--png-frames", locked / "sub"]):
            code, out, err = cli(capsys, "replay", games["hexwar_forfeit"], "--quiet", *argv)
            assert code == 2 and out == "" and len(err.splitlines()) == 1 and "Traceback" not in err, err
            assert re.search(r"cannot (write|make folder)", err) and str(locked) in err, err
        assert not list(Path(tmp_path).glob("**/*.tmp"))
    finally:
        if locked != Path("/proc"):
            locked.chmod(0o700)


def test_the_real_command_refuses_a_missing_file_in_one_line(tmp_path):
    res = run_command([sys.executable, "-m", "cardwar", "replay", str(tmp_path / "gone.json")], timeout=120)
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.splitlines() == [f"cardwar replay: error: {tmp_path / 'gone.json'}: no such file"]


# ---------------------------------------------------------------- the skirmish
@pytest.fixture(scope="module")
def skirmish(tmp_path_factory) -> Path:
    """A skirmish saved by `cardwar play skirmish` (the duel: hidden declarations, line-of-sight visibility)."""
    path = tmp_path_factory.mktemp("skirmish") / "duel.json"
    assert main(["play", "skirmish", "--scenario", "duel", "--seed", "2", "--quiet", "--reproducible-seeds",
                 "--save", str(path)]) == 0
    return path


SKIRMISH_MOVE = re.compile(r"^\s+(\d+)\. (player_[01])(?:: (.*))?$")


def test_a_skirmish_replays_every_move_to_its_recorded_result(capsys, skirmish):
    from cardwar.envs.skirmish.play_style import describe as skirmish_describe

    rec = GameRecord.load(skirmish)
    code, out, err = cli(capsys, "replay", skirmish)
    assert code == 0 and err == ""
    lines = out.splitlines()
    shown = [(int(m[1]), m[2], m[3]) for m in map(SKIRMISH_MOVE.match, lines) if m]
    assert shown == [(i + 1, m.seat, m.move) for i, m in enumerate(rec.moves)]
    end = final_state(rec)
    winner = None if rec.result["winner"] is None else SEATS["skirmish"].index(rec.result["winner"])
    assert lines[-1] == f"Result: {skirmish_describe(rec.result['detail'], winner, end)}"
    assert lines[1] == "Scenario: duel - Duel (player_0 American, player_1 German)"
    assert "Players: player_0 = random, player_1 = random" in lines


def test_a_skirmish_seat_sees_its_own_steps_and_only_the_others_it_is_told_of(capsys, skirmish):
    """player_0's replay: its own moves in notation; of player_1's only those the game tells it of (a hidden
    declaration step is not shown at all, RULES.md §9.1), counted independently from the notation's rule."""
    from cardwar.envs.skirmish.notation import seen_notation, string_to_action
    from cardwar.envs.skirmish.text import render_text

    rec = GameRecord.load(skirmish)
    states = list(replay_states(rec))
    code, out, _ = cli(capsys, "replay", skirmish, "--viewer", "player_0")
    assert code == 0
    shown = [(int(m[1]), m[2], m[3]) for m in map(SKIRMISH_MOVE.match, out.splitlines()) if m]
    expected = []
    for i, m in enumerate(rec.moves):
        seen = seen_notation(states[i], string_to_action(m.move), states[i + 1], 0)
        if seen is not None:
            expected.append((i + 1, m.seat, m.move if m.seat == "player_0" else None))
    assert shown == expected and len(expected) < len(rec.moves)
    assert any(seat == "player_1" for _, seat, _ in shown)
    assert "Viewer: player_0 (what that seat saw" in out
    assert render_text(states[-1], "omniscient") not in out


def test_skirmish_frames_and_gif_are_the_seats_pictures_one_per_position(capsys, skirmish, tmp_path):
    from PIL import Image

    from cardwar.envs.skirmish.picture import render_rgb

    rec = GameRecord.load(skirmish)
    states = list(replay_states(rec))
    frames, gif = tmp_path / "frames", tmp_path / "duel.gif"
    code, out, err = cli(capsys, "replay", skirmish, "--viewer", "player_1", "--quiet", "--png-frames", frames,
                         "--gif", gif)
    assert code == 0 and err == ""
    names = sorted(p.name for p in frames.iterdir())
    assert names == [f"frame_{k:04d}.png" for k in range(len(rec.moves) + 1)]
    for k in (0, len(states) // 2, len(states) - 1):
        assert np.array_equal(np.asarray(Image.open(frames / names[k]).convert("RGB")), render_rgb(states[k], 1))
    with Image.open(gif) as im:
        assert im.n_frames == len(rec.moves) + 1 and im.size == Image.open(frames / names[0]).size
    assert f"GIF written to {gif} ({len(states)} frames" in out
