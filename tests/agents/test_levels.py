"""Opponents at a chosen strength (issue 31.4): ``level:elo=N`` and ``level:skill=P``.

A level plays its base bot's move with probability ``skill`` and a uniformly random legal move otherwise, so at a
decision with ``k`` legal moves it plays the base's move with probability ``skill + (1 - skill) / k``: the tests
count that over whole games and compare it with the sum of those probabilities. The shipped tables are checked
against the ladder they came from, and the ``elo`` to ``skill`` mapping against its own inverse.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.optimize import isotonic_regression, minimize_scalar

from cardwar import agents, games
from cardwar.agents.levels import LEVELS, Calibration, LevelAgent, calibration, from_dict, monotone
from cardwar.agents.spec import AgentSpecError
from cardwar.cli import main
from cardwar.cli.match import make_env, play_agents
from cardwar.tournament.levels import fixed_scale_rating, rating_against_fixed, shipped_models

BUILT_IN = ("naval", "hexwar", "skirmish", "tankattack")


def _table(elos: list[float], skills: list[float] | None = None) -> Calibration:
    skills = skills or [0.0, 0.25, 0.5, 0.75, 1.0]
    return from_dict({"game": "hexwar", "base": "heuristic",
                      "points": [{"skill": s, "elo": e} for s, e in zip(skills, elos)]})


# ---------------------------------------------------------------------------- the table
def test_a_noisy_table_is_made_monotone_by_least_squares() -> None:
    """A tournament rated skill 0.5 above skill 0.75: both take their mean, the fit nearest the measurements."""
    assert monotone([0.0, 100.0, 300.0, 250.0, 400.0]) == [0.0, 100.0, 275.0, 275.0, 400.0]
    rng = np.random.default_rng(3)
    for _ in range(50):
        raw = np.concatenate([[0.0], np.cumsum(rng.normal(50, 80, size=5))])  # random, the anchor, first
        fit = monotone(raw.tolist())
        assert fit[0] == 0.0 and np.all(np.diff(fit) >= -1e-9)
        # the least-squares monotone fit with the anchor held: the same as weighing the anchor beyond all else
        held = isotonic_regression(raw, weights=np.r_[1e12, np.ones(5)]).x
        assert np.allclose(fit, held, atol=1e-3)


def test_a_level_measured_below_random_does_not_move_the_anchor() -> None:
    """random is the scale's zero by construction: a noisy point below it is raised to it, and every other point
    stays where it was measured (pooling it with the anchor would shift every level by half the noise)."""
    table = _table([0.0, -20.0, 100.0, 200.0, 420.0])
    assert table.elos == (0.0, 0.0, 100.0, 200.0, 420.0)
    assert table.elo_for(0.5) == 100.0


def test_the_rating_asked_for_is_the_rating_the_table_gives_the_skill_chosen() -> None:
    table = _table([0.0, 80.0, 200.0, 200.0, 420.0])  # a flat stretch between skills 0.5 and 0.75
    for elo in np.linspace(0.0, 420.0, 43):
        assert table.elo_for(table.skill_for(float(elo))) == pytest.approx(float(elo), abs=1e-6)
    assert table.skill_for(200.0) == 0.5  # the least skill that reaches it
    assert table.skill_for(0.0) == 0.0 and table.skill_for(420.0) == 1.0
    assert table.skill_for(40.0) == pytest.approx(0.125)  # halfway between the points (0, 0) and (0.25, 80)


def test_a_table_must_hold_random_and_the_base_bot() -> None:
    with pytest.raises(ValueError, match="skill=0 and skill=1"):
        _table([0.0, 100.0], skills=[0.0, 0.5])


def test_the_servers_levels_are_evenly_spaced_up_to_the_base_bot() -> None:
    table = _table([0.0, 80.0, 200.0, 300.0, 480.0])
    levels = table.levels()
    assert [lv["level"] for lv in levels] == list(range(1, LEVELS + 1))
    assert [lv["elo"] for lv in levels] == [60, 120, 180, 240, 300, 360, 420, 480]
    assert levels[-1]["spec"] == "level:elo=480"


def test_a_top_that_is_no_whole_number_is_still_a_level_and_the_bound_is_its_ceiling() -> None:
    """The top 630.6 (hexwar's shipped table): level 8 is listed as 631, above the top, and plays the base bot;
    632 is refused with the bound the option declares."""
    table = _table([0.0, 80.0, 200.0, 400.0, 630.6])
    assert table.bound == 631 and [lv["elo"] for lv in table.levels()][-1] == 631
    assert table.skill_for(631.0) == 1.0 and table.skill_for(630.6) == 1.0
    assert table.skill_for(630.0) < 1.0
    with pytest.raises(AgentSpecError, match="<= 631"):
        table.skill_for(631.01)
    pooled = _table([0.0, 80.0, 200.0, 210.9, 210.6])  # the top pooled to 210.75: 210.8, 211 both allowed
    assert pooled.top == pytest.approx(210.75) and pooled.skill_for(211.0) == 1.0


@pytest.mark.parametrize("game", BUILT_IN)
def test_every_game_ships_a_table_made_from_its_ladder(game: str) -> None:
    """The shipped table: random at 0, the base bot at the top, each point the rating its entrant got in the
    calibration tournament, whose entrants are the ladder's untimed bots; its command is given."""
    table = calibration(game)
    assert table is not None and table.game == game
    raw = table.raw
    ladder = {r["name"]: r for r in raw["ladder"]}
    assert ladder["random"]["elo"] == 0.0
    for point in raw["points"]:
        assert ladder[point["entrant"]]["elo"] == point["elo"]
    base_entrant = raw["points"][-1]["entrant"]
    assert raw["points"][-1]["skill"] == 1.0 and ladder[base_entrant]["spec"] == table.base
    assert table.top <= ladder[base_entrant]["elo"] + 1e-6  # the monotone fit may pull the top down, never up
    assert list(table.elos) == sorted(table.elos) and table.elos[0] == 0.0 and table.top > 100
    assert raw["command"].startswith(f"cardwar levels calibrate {game}")
    assert raw["tournament"]["game"] == game and raw["games"] >= 200
    made_with = shipped_models(game, list(raw["tournament"]["entrants"].values()))
    assert raw["models"] == made_with, (f"the {game} table was made with other models than the shipped ones: "
                                        f"run `{raw['command']}` again")
    options = {o.name: o for o in agents.REGISTRY["level"].options[game]}
    assert options["elo"].maximum == math.ceil(table.top)
    for level in table.levels():  # every level the server lists is one the agent plays (the top: the base bot)
        name, typed = agents.check_spec(level["spec"], game)
        assert name == "level" and typed["elo"] == level["elo"] <= options["elo"].maximum
    top = agents.make(table.levels()[-1]["spec"], game, seed=0)
    assert top.skill == 1.0


# ---------------------------------------------------------------------------- the agent
def _decisions(spec: str, game: str, scenario: str | None, games_: int, seed: int) -> tuple[int, float, float]:
    """Whole games of ``spec`` against random: how often the level played its base's move, the expected count
    (``sum(skill + (1 - skill) / k)``) and its variance."""
    played, expected, variance = 0, 0.0, 0.0
    for g in range(games_):
        level = agents.make(spec, game, seed=seed + g)
        assert isinstance(level, LevelAgent)
        asked: list[int] = []
        real_act = level.base.act

        def base_act(observation, view=None, real_act=real_act, asked=asked):
            asked.append(int(real_act(observation, view)))
            return asked[-1]

        level.base.act = base_act
        skill = level.skill
        seen: list[tuple[int, int, int]] = []  # (played, legal moves, the base's move)
        real_level_act = level.act

        def level_act(observation, view=None):
            before = len(asked)
            a = real_level_act(observation, view)
            assert len(asked) == before + 1  # the base is asked at every decision, once
            seen.append((a, int(np.count_nonzero(observation["action_mask"])), asked[-1]))
            return a

        level.act = level_act
        other = agents.make("random", game, seed=10_000 + g)
        players = (level, other) if g % 2 == 0 else (other, level)
        play_agents(make_env(game, scenario, None), *players, seed + g)
        for a, k, base_move in seen:
            q = skill + (1 - skill) / k
            played += a == base_move
            expected += q
            variance += q * (1 - q)
    return played, expected, variance


@pytest.mark.parametrize("game, scenario", [("hexwar", "random:test"), ("naval", None)])
def test_a_level_plays_its_base_bots_move_as_often_as_its_skill_says(game: str, scenario: str | None) -> None:
    played, expected, variance = _decisions("level:skill=0.6", game, scenario, 6, 40)
    assert variance > 20  # enough decisions to tell
    assert abs(played - expected) < 4 * math.sqrt(variance), (played, expected, variance)


def test_skill_one_is_the_base_bot_and_skill_zero_is_uniform() -> None:
    played, expected, _ = _decisions("level:skill=1", "hexwar", "random:test", 2, 7)
    assert played == expected  # every move the base's
    played, expected, variance = _decisions("level:skill=0", "hexwar", "random:test", 4, 7)
    assert abs(played - expected) < 4 * math.sqrt(variance)  # the base's move only as often as chance gives it


def test_a_rating_is_played_by_the_skill_the_table_gives() -> None:
    table = calibration("hexwar")
    elo = round(table.top / 2)
    level = agents.make(f"level:elo={elo}", "hexwar", seed=1)
    assert level.skill == pytest.approx(table.skill_for(elo)) and 0 < level.skill < 1
    assert level.name == f"level:elo={elo}"


@pytest.mark.parametrize("spec, message", [
    ("level", "give one of elo=N"),
    ("level:elo=100,skill=0.5", "give one of elo=N"),
    ("level:elo=-5", "must be >= 0"),
    ("level:skill=1.5", "must be >= 0 and <= 1"),
    ("level:skill=0.5,base=level:skill=1", "cannot itself be a level"),
    ("level:skill=0.5,base=nobody", "unknown agent 'nobody'"),
])
def test_a_bad_level_is_refused_in_one_line(spec: str, message: str) -> None:
    with pytest.raises(AgentSpecError, match=message) as err:
        agents.make(spec, "hexwar", seed=0)
    assert "\n" not in str(err.value)


def test_a_rating_above_the_base_bot_is_refused_at_the_terminal(capsys: pytest.CaptureFixture) -> None:
    top = calibration("hexwar").top
    assert main(["match", "hexwar", f"level:elo={top + 500:.0f}", "random", "--games", "2"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "must be >= 0 and <=" in err and "Traceback" not in err


def test_a_game_without_a_table_has_levels_by_skill_only(monkeypatch) -> None:
    """No table: skill=P plays the default base (the heuristic), elo=N is refused by the sentence that says
    what to do, not by a range of 0 to 0."""
    import cardwar.agents.levels as levels

    assert calibration("no-such-game") is None
    monkeypatch.setattr(levels, "calibration", lambda game: None)
    options = {o.name: o for o in levels.OPTIONS.hexwar}
    assert options["elo"].maximum is None
    level = agents.make("level:skill=0.5", "hexwar", seed=1)
    assert level.skill == 0.5 and type(level.base).__name__ == type(agents.make("heuristic", "hexwar")).__name__
    with pytest.raises(AgentSpecError, match="has no calibration; give skill=P"):
        agents.check_spec("level:elo=100", "hexwar")


def test_a_bad_level_spec_is_refused_before_anything_is_built() -> None:
    """check_spec (what `cardwar engine` and every command run first) holds the level's own rules."""
    for spec, says in (("level", "give one of elo=N"), ("level:elo=100,skill=0.2", "give one of elo=N"),
                       ("level:skill=0.5,base=nobody", "base=nobody: unknown agent"),
                       ("level:skill=0.5,base=level", "cannot itself be a level"),
                       ("level:elo=100,base=random", "calibrated with base=heuristic")):
        with pytest.raises(AgentSpecError, match=says):
            agents.check_spec(spec, "hexwar")


def test_a_cut_table_is_one_clear_error_naming_its_file(monkeypatch, tmp_path) -> None:
    import cardwar.agents.levels as levels

    cut = tmp_path / "hexwar.json"
    cut.write_text('{"game": "hexwar", "po')
    monkeypatch.setattr(levels, "table_path", lambda game: cut)
    levels.calibration.cache_clear()
    try:
        with pytest.raises(levels.LevelTableError, match=f"{cut}: not a readable level table"):
            levels.calibration("hexwar")
    finally:
        levels.calibration.cache_clear()


# ---------------------------------------------------------------------------- the commands
def test_calibrate_and_bench_play_their_tournaments_and_write_what_they_measured(tmp_path, capsys) -> None:
    """One pair per pairing on the hex game (seconds): the table's points are the report's ratings, and the
    bench prints requested against measured with each interval."""
    table = tmp_path / "hexwar.json"
    rc = main(["levels", "calibrate", "hexwar", "--pairs", "1", "--quiet", "--skills", "0.5",
               "--db", str(tmp_path / "c.sqlite"), "--out", str(tmp_path / "c"), "--write", str(table)])
    assert rc == 0
    data = json.loads(table.read_text())
    report = {r["name"]: r for r in json.loads((tmp_path / "c" / "report.json").read_text())["ratings"]}
    assert [p["skill"] for p in data["points"]] == [0.0, 0.5, 1.0]
    assert all(report[p["entrant"]]["elo"] == p["elo"] for p in data["points"])
    assert data["base"] == "heuristic" and data["command"].startswith("cardwar levels calibrate hexwar")
    capsys.readouterr()
    table_now = calibration("hexwar")
    elo = round(table_now.top / 2)
    rc = main(["levels", "bench", "hexwar", "--pairs", "1", "--quiet", "--elo", str(elo), "--rounds", "50",
               "--db", str(tmp_path / "b.sqlite"), "--out", str(tmp_path / "b")])
    assert rc == 0
    out = capsys.readouterr().out
    assert "| requested | measured | 95% interval | score | within |" in out and (tmp_path / "b" / "levels.png").is_file()
    (row,) = json.loads((tmp_path / "b" / "levels.json").read_text())["rows"]
    ladder = table_now.raw["ladder"]
    assert row["requested"] == elo and row["games"] == 2 * len(ladder)  # one pair against each ladder entrant
    # the rating against the ladder's fixed ratings, computed again from the gauntlet's crosstable: the maximum of
    # the logistic likelihood with one virtual draw against each opponent
    crosstable = json.loads((tmp_path / "b" / f"elo_{elo}" / "report.json").read_text())["crosstable"]
    names, points, played = crosstable["names"], np.array(crosstable["points"]), np.array(crosstable["games"])
    hero = names.index(f"elo_{elo}")
    rated = {r["name"]: r["elo"] for r in ladder}

    def minus_log_likelihood(e: float) -> float:
        total = 0.0
        for j, name in enumerate(names):
            if j == hero:
                continue
            p = 1 / (1 + 10 ** (-(e - rated[name]) / 400))
            won = points[hero, j] + 0.5
            total -= won * math.log(p) + (played[hero, j] + 1 - won) * math.log(1 - p)
        return total

    best = minimize_scalar(minus_log_likelihood, bounds=(-3000, 3000), method="bounded", options={"xatol": 1e-4})
    assert row["measured"] == pytest.approx(best.x, abs=0.1)
    assert row["lower"] <= row["measured"] <= row["upper"]


def test_the_fixed_scale_rating_of_a_player_who_scores_as_expected_is_its_own() -> None:
    """Pairs that score exactly what a 250 player expects against 0, 200 and 400 (and one virtual draw each, which
    a 250 player against these three also expects to score about even on) give back about 250."""
    opponents = np.array([0.0, 200.0, 400.0])
    expected = 1 / (1 + 10 ** (-(250 - opponents) / 400))
    elo = rating_against_fixed(np.repeat(opponents, 1000), np.repeat(2 * expected, 1000))
    assert elo == pytest.approx(250, abs=1.0)
    scores = np.random.default_rng(1).choice([0.0, 0.5, 1.0, 1.5, 2.0], size=90)  # pairs that differ: a spread
    mid, low, high = fixed_scale_rating(np.repeat(opponents, 30), scores, rounds=200)
    assert low < mid < high and mid == rating_against_fixed(np.repeat(opponents, 30), scores)


def test_a_bench_outside_the_range_is_one_line(capsys) -> None:
    assert main(["levels", "bench", "hexwar", "--elo", "999999"]) == 2
    assert "outside hexwar's range" in capsys.readouterr().err
