"""Game records: written by `cardwar play --save`, read back, replayed move by move to the same result."""

from __future__ import annotations

import json

import pytest

from cardwar import __version__
from cardwar.arena.seeds import Dealer
from cardwar.envs.naval import NavalConfig
from cardwar.cli.match import play_game
from cardwar.cli.play import play_game as play_one
from cardwar.record import FORMAT, GameRecord, Move, RecordError, final_state, replay_states


DEALER = Dealer.fresh()  # every game here is dealt by one secret, so play, match and replay deal alike


def quiet_naval(seed: int, a: str, b: str, path, read=input, rules: dict | None = None) -> dict:
    return play_one("naval", seed, a, b, rules=NavalConfig.from_dict(rules), quiet=True, out=lambda *_: None,
                    read=read, save=str(path), dealer=DEALER)


def quiet_hex(scenario: str, rules: dict, seed: int, a: str, b: str, path) -> dict:
    return play_one("hexwar", seed, a, b, scenario=scenario, rules=rules, quiet=True, out=lambda *_: None,
                    save=str(path), dealer=DEALER)


@pytest.mark.parametrize("seed, a, b", [(0, "random", "random"), (1, "heuristic", "random"),
                                        (2, "random", "heuristic"), (3, "heuristic", "heuristic")])
def test_a_saved_naval_game_replays_to_the_same_result(tmp_path, seed, a, b):
    path = tmp_path / "game.json"
    summary = quiet_naval(seed, a, b, path)
    rec = GameRecord.load(path)
    assert rec.game == "naval" and rec.seed == DEALER.deal(seed) and rec.players == {"captain_a": a, "captain_b": b}
    assert rec.finished and rec.quit_by is None and rec.cardwar_version == __version__
    assert len(rec.moves) == summary["moves"] and rec.rules == NavalConfig().to_dict()
    end = final_state(rec)
    assert end.is_terminal() and end.returns() == summary["returns"] == rec.result["returns"]
    assert play_game("naval", a, b, seed, dealer=DEALER) == summary["returns"]  # the match loop plays the same game


@pytest.mark.parametrize("scenario, rules, seed", [
    ("meeting_engagement", {}, 0), ("meeting_engagement", {"joint_activation": True}, 1),
    ("random", {}, 2), ("random", {}, 3),
    ("hill_and_hedgerows", {"hidden_units": True}, 0), ("hill_and_hedgerows", {"hidden_units": True}, 1),
    ("hill_and_hedgerows", {"hidden_units": True}, 2),
])
def test_a_saved_hex_game_replays_to_the_same_result(tmp_path, scenario, rules, seed):
    from cardwar.envs.hexwar.config import HexConfig

    full_rules = HexConfig.from_dict(rules).to_dict()
    path = tmp_path / "game.json"
    summary = quiet_hex(scenario, full_rules, seed, "heuristic", "random", path)
    rec = GameRecord.load(path)
    assert rec.scenario == scenario and rec.rules == full_rules and rec.scenario_data["turns"] > 0
    states = list(replay_states(rec))
    assert len(states) == len(rec.moves) + 1 and states[-1].returns() == summary["returns"]
    assert rec.result["winner"] == summary["winner"] and rec.result["turns"] == summary["turns"]
    assert play_game("hexwar", "heuristic", "random", seed, scenario, full_rules, DEALER) == summary["returns"]
    if rules.get("hidden_units"):
        assert any(u.get("hidden") for side in rec.scenario_data["sides"].values() for u in side["units"])
        assert any(s.hidden[u] for s in states[:5] for u in range(len(s.hidden)))  # hidden units were in play


def test_a_record_keeps_the_scenario_it_was_played_on(tmp_path):
    """A procedural map is stored whole, so the replay needs neither the generator's seed nor a file."""
    from cardwar.envs.hexwar.scenario import scenario_from_dict

    path = tmp_path / "game.json"
    quiet_hex("random", {}, 5, "random", "random", path)
    rec = GameRecord.load(path)
    played = final_state(rec).scenario
    assert scenario_from_dict(rec.scenario_data) == played and played.name.startswith("random")


def test_a_record_without_the_map_replays_from_the_scenario_name(tmp_path):
    import dataclasses

    for scenario, seed in (("random", 5), ("river_crossing", 1)):
        quiet_hex(scenario, {}, seed, "random", "heuristic", tmp_path / "g.json")
        rec = dataclasses.replace(GameRecord.load(tmp_path / "g.json"), scenario_data=None)
        assert final_state(rec).returns() == rec.result["returns"]


def test_a_record_round_trips_through_json_and_a_file(tmp_path):
    quiet_naval(4, "random", "random", tmp_path / "a.json")
    rec = GameRecord.load(tmp_path / "a.json")
    assert GameRecord.from_json(rec.to_json()) == rec
    assert GameRecord.load(rec.save(tmp_path / "b.json")) == rec
    data = json.loads((tmp_path / "a.json").read_text())
    assert data["format"] == FORMAT and data["format_version"] == 1
    assert list(data)[:5] == ["format", "format_version", "cardwar_version", "game", "rules"]
    assert all(set(m) == {"seat", "move"} for m in data["moves"])


def valid_data(tmp_path) -> dict:
    quiet_naval(6, "random", "random", tmp_path / "a.json")
    return json.loads((tmp_path / "a.json").read_text())


@pytest.mark.parametrize("change, message", [
    (lambda d: d.update(format="chess-pgn"), "format: expected 'cardwar-game-record'"),
    (lambda d: d.update(format_version=99), "format_version: this cardwar reads version 1..1, got 99"),
    (lambda d: d.update(game="chess"), "game: expected one of naval, hexwar"),
    (lambda d: d.update(seed="7.5"), "seed: expected an integer"),
    (lambda d: d.update(players={"captain_a": "random"}), "players: expected"),
    (lambda d: d.pop("moves"), "moves: expected a list"),
    (lambda d: d["moves"].__setitem__(2, {"seat": "captain_c", "move": "pass"}), "moves[2]: expected"),
    (lambda d: d.update(result=None), "result: a finished game needs its result object"),
    (lambda d: d.update(colour="blue"), "colour: unknown field"),
    (lambda d: d.update(quit_by="nobody"), "quit_by: expected a seat or null"),
])
def test_a_malformed_record_is_refused_with_the_field_named(tmp_path, change, message):
    data = valid_data(tmp_path)
    change(data)
    with pytest.raises(RecordError) as err:
        GameRecord.from_json(json.dumps(data))
    assert message in str(err.value)


def test_a_file_that_is_no_record_names_the_file(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{\"format\": \"cardwar-game-record\",")
    with pytest.raises(RecordError, match=r"bad\.json: not JSON: .* line 1"):
        GameRecord.load(bad)
    with pytest.raises(RecordError, match=r"missing\.json: cannot read: No such file"):
        GameRecord.load(tmp_path / "missing.json")


def tampered(rec: GameRecord, **changes) -> GameRecord:
    import dataclasses

    return dataclasses.replace(rec, **changes)


def test_a_record_that_does_not_match_its_game_does_not_replay(tmp_path):
    quiet_naval(8, "heuristic", "random", tmp_path / "a.json")
    rec = GameRecord.load(tmp_path / "a.json")
    moves = list(rec.moves)
    i = next(k for k, m in enumerate(moves) if m.move.startswith("deploy"))
    bad = moves[:i] + [Move(moves[i].seat, "sink E")] + moves[i + 1:]
    with pytest.raises(RecordError, match=rf"moves\[{i}\] 'sink E': not legal: sink follows a Sea Battle"):
        final_state(tampered(rec, moves=tuple(bad)))
    other = "captain_b" if moves[i].seat == "captain_a" else "captain_a"
    with pytest.raises(RecordError, match=rf"moves\[{i}\] .*recorded for {other}, but {moves[i].seat} is to move"):
        final_state(tampered(rec, moves=tuple(moves[:i] + [Move(other, moves[i].move)] + moves[i + 1:])))
    with pytest.raises(RecordError, match=r"moves\[0\] 'fire!': cannot read it"):
        final_state(tampered(rec, moves=(Move("captain_a", "fire!"),) + rec.moves[1:]))
    flipped = {**rec.result, "returns": [-r for r in rec.result["returns"]]}
    with pytest.raises(RecordError, match="result: the moves give"):
        final_state(tampered(rec, result=flipped))
    with pytest.raises(RecordError, match="the game is not over after 10 moves"):
        final_state(tampered(rec, moves=rec.moves[:10]))
    with pytest.raises(RecordError, match="the record says unfinished"):
        final_state(tampered(rec, finished=False, result=None))


def test_a_person_who_quits_leaves_an_unfinished_record_that_replays(tmp_path):
    answers = iter(["keep", "quit"])
    summary = quiet_naval(3, "human", "random", tmp_path / "q.json", read=lambda _: next(answers))
    rec = GameRecord.load(tmp_path / "q.json")
    assert summary["abandoned"] and not rec.finished and rec.result is None and rec.quit_by == "captain_a"
    assert rec.moves[0] == Move("captain_a", "keep") and rec.players["captain_a"] == "human"
    assert not final_state(rec).is_terminal()
    assert summary["record"] == rec.to_dict() and summary["moves"] == len(rec.moves)


def test_ctrl_c_at_the_prompt_still_writes_the_record(tmp_path):
    def interrupt(_: str) -> str:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        quiet_naval(3, "random", "human", tmp_path / "i.json", read=interrupt)
    rec = GameRecord.load(tmp_path / "i.json")
    assert not rec.finished and rec.quit_by is None and len(rec.moves) >= 1
    final_state(rec)
