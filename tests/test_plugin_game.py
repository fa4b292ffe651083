"""A game is a plug-in (issue 21): a tiny fourth game, defined only here, registers itself with
:mod:`cardwar.games` and is then played by ``cardwar match``, in a tournament and over the engine protocol,
with no change anywhere else.

The game is "take the last": a pile of 9 counters, each player in turn takes 1, 2 or 3, and whoever takes
the last counter wins. Each player also holds a secret number (0-9) that no rule uses and no other seat may
see; the tests check that it never reaches the other seat, an engine or the log.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from cardwar import games
from cardwar.cli import main
from cardwar.envs.turn_based_env import TurnBasedEnv
from tests.engine.conftest import bot_spec

PILE = 9
SEATS = ("left", "right")


class PileRulesError(ValueError):
    """A rule option the tiny game does not have."""


@dataclass(frozen=True)
class PileRules:
    pile: int = PILE

    @classmethod
    def from_dict(cls, d: dict | None) -> PileRules:
        d = dict(d or {})
        unknown = set(d) - {"pile"}
        if unknown:
            raise PileRulesError(f"unknown pile rule option {sorted(unknown)[0]!r}; options: pile")
        return cls(**d)

    def to_dict(self) -> dict:
        return {"pile": self.pile}


@dataclass(frozen=True)
class PileView:
    seat: int
    pile: int
    to_move: int | None
    secret: int
    config: PileRules

    def to_dict(self) -> dict:
        return {"seat": self.seat, "pile": self.pile, "to_move": self.to_move, "my_secret": self.secret}


class PileState:
    """The rules engine: the pile, the player to move and each player's secret."""

    def __init__(self, rules: PileRules, rng: np.random.Generator) -> None:
        self.rules, self.pile, self.current_player, self.move_number = rules, rules.pile, 0, 0
        self.secrets = [int(x) for x in rng.integers(0, 10, size=2)]
        self.winner: int | None = None

    @property
    def turn(self) -> int:
        return self.move_number // 2 + 1

    @property
    def result(self) -> dict:
        return {"counters_left": self.pile}

    def is_terminal(self) -> bool:
        return self.pile == 0

    def legal_actions(self) -> list[int]:
        return [] if self.is_terminal() else [a for a in range(3) if a + 1 <= self.pile]

    def apply_action(self, action: int, validate: bool = True) -> None:
        if validate and action not in self.legal_actions():
            raise ValueError(f"take {action + 1} is not legal with {self.pile} left")
        self.pile -= action + 1
        self.move_number += 1
        if self.pile == 0:
            self.winner = self.current_player
        else:
            self.current_player = 1 - self.current_player

    def returns(self) -> list[float]:
        if self.winner is None:
            return [0.0, 0.0]
        return [1.0 if s == self.winner else -1.0 for s in (0, 1)]

    def clone(self) -> PileState:
        other = PileState.__new__(PileState)
        other.__dict__.update(self.__dict__, secrets=list(self.secrets))
        return other

    def information_view(self, seat: int | None) -> PileView:
        mine = -1 if seat is None else self.secrets[seat]
        return PileView(-1 if seat is None else seat, self.pile, None if self.is_terminal() else self.current_player,
                        mine, self.rules)


class PileEnv(TurnBasedEnv):
    """The tiny game's AEC env, on the same base as the shipped games."""

    metadata = {"name": "pile_v0", "render_modes": ["ansi"], "is_parallelizable": False}
    AGENTS = list(SEATS)
    NUM_ACTIONS = 3
    OBS_SHAPE = (2,)

    def __init__(self, rules: dict | None = None, render_mode: str | None = None) -> None:
        self.config = PileRules.from_dict(rules)
        self._setup(render_mode, None)

    def _new_state(self, seeder: np.random.Generator) -> PileState:
        return PileState(self.config, seeder)

    def _encode(self, seat: int) -> np.ndarray:
        s = self.game
        return np.array([s.pile / PILE, s.secrets[seat] / 9], dtype=np.float32)

    def _render_text(self, viewer: Any) -> str:
        return f"pile: {self.game.pile}"


def _to_string(action: int) -> str:
    return f"take {action + 1}"


def _parse(text: str) -> int:
    words = str(text).split()
    if len(words) != 2 or words[0] != "take" or words[1] not in ("1", "2", "3"):
        raise ValueError(f"{text!r} is not a move: take 1, take 2 or take 3")
    return int(words[1]) - 1


def _resample(state: PileState, seat: int | None, rng: np.random.Generator) -> PileState:
    """The ``resample_hidden`` hook: the other player's secret is all a seat does not know (no chance is left)."""
    other = state.clone()
    for p in (0, 1):
        if p != seat:
            other.secrets[p] = int(rng.integers(0, 10))
    return other


def _narrate(before: PileState, action: int, after: PileState) -> list[str]:
    return [f"{SEATS[before.current_player]} takes {action + 1}, {after.pile} left"]


class TakeTheRest:
    """The tiny game's own hand-written agent: take the pile down to a multiple of 4 when it can."""

    name = "heuristic"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict, view: PileView) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        best = [a for a in legal if (view.pile - (a + 1)) % 4 == 0]
        return int(best[0] if best else legal[self.rng.integers(legal.size)])


PILE_GAME = games.Game(
    name="pile", title="Take the last (a test plug-in)", seats=SEATS, env=PileEnv, num_actions=3,
    action_to_string=_to_string, string_to_action=_parse, rules=PileRules, narrate=_narrate,
    render_text=lambda state, viewer: f"pile: {state.pile}", resample_hidden=_resample,
    agents={"random": games.AgentEntry("cardwar.agents:RandomAgent", takes_game=True),
            "heuristic": games.AgentEntry(TakeTheRest)})


@pytest.fixture
def pile_game() -> Iterator[games.Game]:
    games.register(PILE_GAME)
    try:
        yield PILE_GAME
    finally:
        games.unregister("pile")
        from cardwar.players import close_engines

        close_engines()


def _last_json(text: str) -> dict:
    return json.loads(text.strip().splitlines()[-1])


def test_the_registry_lists_it_and_it_refuses_what_it_does_not_know(pile_game: games.Game) -> None:
    assert "pile" in games.names()
    from cardwar import agents

    assert agents.check_spec("heuristic", "pile") == ("heuristic", {})
    with pytest.raises(agents.AgentSpecError, match="unknown agent 'mcts'.*agents: heuristic, random"):
        agents.check_spec("mcts", "pile")
    with pytest.raises(games.UnknownGame, match="did you mean pile"):
        games.get("piles")


def test_cardwar_match_plays_it_and_the_perfect_strategy_wins(pile_game: games.Game, capsys) -> None:
    # 9 counters: the first player wins by taking 1 (leaving 8), then answering k with 4 - k; the second
    # seat can only win if the first blunders. Heuristic vs heuristic: the first seat always wins, so a pair
    # is one win each; against random the perfect player wins each game it sits first.
    assert main(["match", "pile", "heuristic", "heuristic", "--games", "6", "--reproducible-seeds", "--json"]) == 0
    res = _last_json(capsys.readouterr().out)
    assert (res["games"], res["wins_a"], res["wins_b"], res["draws"]) == (6, 3, 3, 0)
    assert res["per_seat"]["a_first"] == [3, 0, 0] and res["per_seat"]["a_second"] == [0, 3, 0]
    assert main(["match", "pile", "heuristic", "random", "--games", "40", "--json"]) == 0
    res = _last_json(capsys.readouterr().out)
    assert res["per_seat"]["a_first"][0] == 20 and res["score_a"] > 0.6


def test_a_tournament_rates_it(pile_game: games.Game, tmp_path: Path, capsys) -> None:
    db, out = tmp_path / "pile.sqlite", tmp_path / "report"
    code = main(["tournament", "--game", "pile", "--name", "pile-cup", "--entrant", "perfect=heuristic",
                 "--entrant", "random=random", "--pairs", "6", "--db", str(db), "--out", str(out), "--quiet",
                 "--rounds", "50"])
    assert code == 0
    text = capsys.readouterr().out
    assert "perfect" in text and "random" in text
    import sqlite3

    with sqlite3.connect(db) as con:
        tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
        table = "games_v2" if "games_v2" in tables else "games"
        rows = con.execute(f"select count(*) from {table}").fetchone()[0]
    assert rows == 12


def test_an_engine_plays_it_over_the_protocol(pile_game: games.Game, capsys) -> None:
    """The example engine (docs/examples/engine_bot.py) knows nothing of the game: it reads the legal moves
    from each request. The dealer never sends the other seat's secret."""
    spec = bot_spec()
    assert main(["match", "pile", spec, "heuristic", "--games", "4", "--json"]) == 0
    res = _last_json(capsys.readouterr().out)
    assert res["games"] == 4 and res["wins_a"] + res["wins_b"] == 4


def test_an_engine_request_carries_only_the_seat_s_own_secret(pile_game: games.Game) -> None:
    from cardwar.engine import protocol

    env = pile_game.make_env()
    env.reset(seed=5)
    s = env.game
    s.secrets = [3, 7]
    view = s.information_view(0)
    msg = protocol.move_request("pile", view, [], s.legal_actions(), None, request=0)
    text = json.dumps(msg)
    assert '"my_secret": 3' in text and "7" not in text.replace('"request": 0', "")
    assert protocol.new_game("pile", view, 11)["seat"] == "left"
    assert [m["move"] for m in msg["legal"]] == ["take 1", "take 2", "take 3"]


def test_a_tiny_game_needs_no_change_elsewhere() -> None:
    """Nothing outside this file names the tiny game."""
    root = Path(__file__).resolve().parents[1]
    for folder in ("cardwar", "agents", "training", "envs"):
        for path in (root / folder).rglob("*.py"):
            assert "pile_v0" not in path.read_text(encoding="utf-8"), path


def test_an_installed_package_s_game_is_found_by_its_entry_point_and_a_broken_one_only_warns(monkeypatch) -> None:
    from importlib import metadata

    found = [metadata.EntryPoint("pile", "tests.test_plugin_game:PILE_GAME", games.ENTRY_POINT_GROUP),
             metadata.EntryPoint("broken", "no_such_module_here:GAME", games.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(metadata, "entry_points", lambda group: [ep for ep in found if ep.group == group])
    try:
        with pytest.warns(UserWarning, match="plug-in 'broken'.*did not load"):
            games._load_installed()
        assert games.get("pile") is PILE_GAME and games.names()[:3] == ("naval", "hexwar", "skirmish")
    finally:
        games.unregister("pile")


def test_it_trains_through_the_registry_with_cardwar_train(pile_game: games.Game, tmp_path: Path) -> None:
    """``cardwar train pile --config`` with nothing but the registry entry (issue 30 item 4): the self-play env,
    the opponents (the game's own heuristic, random, snapshots) and the evaluation all come from the entry. The
    trained model then plays whole games through SelfPlayEnv, and its every move is legal."""
    import yaml
    from sb3_contrib import MaskablePPO

    from cardwar.training import SelfPlayEnv
    from cardwar.training.trainer import latest_checkpoint

    config = {"game": "pile", "name": "tiny", "seed": 3, "total_steps": 128, "checkpoint_every": 64,
              "env": {"n_envs": 2, "vec_env": "dummy"}, "policy": {"features": "mlp", "net_arch": [16]},
              "ppo": {"n_steps": 32, "batch_size": 64, "n_epochs": 1},
              "opponents": {"snapshot_every": 64, "max_snapshots": 2,
                            "schedule": [{"from_step": 0, "mix": {"heuristic": 0.5, "random": 0.5}},
                                         {"from_step": 64, "mix": {"snapshots": 0.5, "random": 0.5}}]},
              "eval": {"every": 64, "games": 2, "opponents": ["random", "heuristic"]}}
    path = tmp_path / "pile.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["train", "pile", "--config", str(path), "--runs", str(tmp_path / "runs"), "--quiet"]) == 0
    (run,) = (tmp_path / "runs").iterdir()
    assert run.name.startswith("pile__tiny__3__")
    checkpoint, state = latest_checkpoint(run)
    assert state["num_timesteps"] == 128 and state["snapshots"] == ["snapshot_000000064.zip"]
    rows = [r.split(",") for r in (run / "eval.csv").read_text().splitlines()[1:]]
    assert sorted({(r[0], r[1]) for r in rows}) == [(s, o) for s in ("0", "128", "64") for o in ("heuristic", "random")]

    model = MaskablePPO.load(run / "final.zip", device="cpu")
    env = SelfPlayEnv("pile", opponent="heuristic")
    for seed in range(4):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            mask = env.action_masks()
            action, _ = model.predict(obs, action_masks=mask, deterministic=True)
            assert mask[int(action)]
            obs, reward, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
        assert reward in (-1.0, 1.0)  # someone takes the last counter: no draws in this game


def test_its_self_play_env_is_a_gymnasium_id_once_registered(pile_game: games.Game) -> None:
    import gymnasium

    from cardwar import training

    training.register()
    env = gymnasium.make("cardwar/PileSelfPlay-v0", opponent="random")
    obs, _ = env.reset(seed=1)
    assert obs.shape == (2,) and env.unwrapped.action_masks().tolist() == [True, True, True]
    env.close()


def test_an_action_space_it_does_not_list_is_one_line(pile_game: games.Game) -> None:
    from cardwar.envs import make_raw_env
    from cardwar.training.config import TrainConfigError, config_from_dict

    assert pile_game.action_spaces() == ("moves",) and games.get("naval").action_spaces() == ("moves", "steps")
    with pytest.raises(ValueError, match="actions 'steps': the pile game has moves"):
        make_raw_env("pile", actions="steps")
    with pytest.raises(TrainConfigError, match="env.actions: 'steps': pile has moves only"):
        config_from_dict({"game": "pile", "env": {"actions": "steps"}})
