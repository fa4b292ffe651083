"""The protocol's pieces: engine commands, views as JSON both ways, ``cardwar engine`` and the example bot
driven by hand."""

from __future__ import annotations

import json
import re
import sys

import numpy as np
import pytest

from cardwar.agents.spec import AgentSpecError
from cardwar.players import check_player_spec
from cardwar.engine import protocol
from cardwar.engine.client import parse_engine_command
from cardwar.envs import make_raw_env
from cardwar.envs.hexwar.view import HexView, public_map_from_dict
from cardwar.envs.naval.view import NavalView
from tests.engine.conftest import EXAMPLE_BOT
from tests.subprocesses import run_command


def test_an_engine_command_is_split_like_a_shell_line_without_a_shell():
    assert parse_engine_command(f"{sys.executable} 'my bot.py' --depth 3") == [sys.executable, "my bot.py",
                                                                              "--depth", "3"]


@pytest.mark.parametrize("spec, words", [
    ("engine:", "needs a command"),
    ("engine:   ", "needs a command"),
    ("engine:python 'bot.py", "no closing quotation"),
    ("engine:no-such-program-xyz --go", "no program 'no-such-program-xyz' (not found on PATH)"),
    ("engine:./nowhere/bot", "not an executable file"),
])
def test_a_bad_engine_command_is_one_line_before_anything_starts(spec, words):
    with pytest.raises(AgentSpecError, match=re.escape(words)) as err:
        check_player_spec(spec, "naval")
    assert "\n" not in str(err.value)


def _positions(game: str, setup: dict, seeds: range):
    env = make_raw_env(game, **setup)
    for seed in seeds:
        env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        while not env.game.is_terminal():
            yield env.game
            env.step(int(rng.choice(env.game.legal_actions())))
        yield env.game


def test_a_naval_view_comes_back_from_its_json():
    for s in _positions("naval", {}, range(4)):
        for seat in (0, 1, None):
            v = s.information_view(seat)
            back = NavalView.from_dict(json.loads(json.dumps(v.to_dict())), v.config.to_dict())
            assert back == v._replace(hand=tuple(sorted(v.hand)))


def test_a_hex_view_comes_back_from_its_json_on_the_public_map():
    setup = {"scenario": "random", "rules": {"hidden_units": True, "joint_activation": True}}
    for s in _positions("hexwar", setup, range(2)):
        for side in (0, 1):
            v = s.information_view(side)
            public = public_map_from_dict(json.loads(json.dumps(v.map.to_dict())))
            assert public == v.map and public.units == ()
            assert HexView.from_dict(json.loads(json.dumps(v.to_dict())), public, v.config.to_dict()) == v


def test_messages_are_one_line_of_json_with_a_type():
    assert protocol.encode({"type": "quit"}) == b'{"type":"quit"}\n'
    with pytest.raises(protocol.ProtocolError, match="not JSON"):
        protocol.decode(b"bestmove e2e4")
    with pytest.raises(protocol.ProtocolError, match="with a \"type\""):
        protocol.decode(b'["move"]')
    with pytest.raises(protocol.ProtocolError, match="speaks protocol 2"):
        protocol.check_engine_hello({"type": "hello", "protocol": 2, "name": "x"})


def _session(game: str, argv: list[str], seed: int = 0) -> list[str]:
    """Lines of a hello, new_game, one move request and quit, from a real position of ``game``."""
    env = make_raw_env(game)
    env.reset(seed=seed)
    agent = env.agent_selection
    view = env.view(agent)
    legal = np.flatnonzero(env.observe(agent)["action_mask"]).tolist()
    lines = [protocol.hello(game, view.config.to_dict()), protocol.new_game(game, view, 7),
             protocol.move_request(game, view, [], legal, 1000), protocol.game_over(None), protocol.QUIT]
    done = run_command(argv, timeout=120, input="".join(protocol.encode(m).decode() for m in lines))
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.mark.parametrize("game", ["naval", "hexwar"])
def test_cardwar_engine_answers_the_hello_and_a_move_and_exits_on_quit(game):
    hello, move = (json.loads(x) for x in _session(game, [sys.executable, "-m", "cardwar", "engine", "--game", game,
                                                          "--agent", "heuristic"]))
    assert hello == {"type": "hello", "protocol": 1, "name": "cardwar heuristic", "author": hello["author"]}
    assert move["type"] == "move" and isinstance(move["move"], str)


def test_the_example_bot_answers_the_hello_and_a_move_and_exits_on_quit():
    hello, move = (json.loads(x) for x in _session("naval", [sys.executable, str(EXAMPLE_BOT)]))
    assert hello["name"] == "attack-first bot" and move["move"] in ("keep", "mulligan")
    refused = run_command([sys.executable, str(EXAMPLE_BOT)], timeout=60,
                          input='{"type": "hello", "protocol": 2, "game": "naval", "rules": {}}\n')
    assert refused.returncode == 1 and refused.stdout == "" and "protocol 1" in refused.stderr


@pytest.mark.parametrize("args, status, words", [
    (["--game", "naval", "--agent", "heurstic"], 2, "did you mean heuristic?"),
    (["--game", "hexwar", "--agent", "mcts:seconds=-1"], 2, "seconds"),
    (["--game", "chess", "--agent", "random"], 2, "invalid choice"),
])
def test_cardwar_engine_refuses_a_bad_agent_in_one_line(args, status, words):
    done = run_command([sys.executable, "-m", "cardwar", "engine", *args], timeout=60, input="")
    assert done.returncode == status and words in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr


def test_cardwar_engine_exits_on_end_of_input_and_stops_at_a_wrong_protocol():
    argv = [sys.executable, "-m", "cardwar", "engine", "--game", "naval", "--agent", "random"]
    assert run_command(argv, timeout=60, input="").returncode == 0
    done = run_command(argv, timeout=60, input='{"type": "hello", "protocol": 9, "game": "naval"}\n')
    assert done.returncode == 1 and done.stdout == ""
    assert "the dealer speaks protocol 9; this engine speaks protocol 1" in done.stderr


SERVE_AFTER_HELLO = """
import json, sys
from cardwar.engine.server import AgentServer
from cardwar.envs.naval import hands
sent = [json.loads(line[2:]) for line in open(sys.argv[1]) if line.startswith("> ")]
server = AgentServer(sys.argv[2], sys.argv[3], sys.stderr)
assert server.handle(sent[0])["type"] == "hello"
before, tables = set(sys.modules), len(hands._STRENGTH)
answers = [server.handle(m) for m in sent[1:] if m["type"] != "quit"]
print(json.dumps({"tables": tables, "imported": sorted(set(sys.modules) - before),
                  "answers": [a for a in answers if a is not None], "requests": [m for m in sent if m["type"] == "move"]}))
"""


@pytest.mark.parametrize("game, setup", [("naval", {}), ("hexwar", {"scenario": "random", "rules": {"hidden_units": True}})])
def test_cardwar_engine_does_all_its_set_up_before_its_hello(engines, tmp_path, game, setup):
    """No module is imported and no naval hand table built after the hello: nothing is left to a move's clock
    (the served random agent builds nothing itself, so the views' own lazy work would show)."""
    from cardwar import agents
    from cardwar.arena import play_game
    from tests.engine.conftest import bot_spec

    transcript = tmp_path / "game.jsonl"
    bot = engines(bot_spec(), game, seed=3, transcript=transcript)
    for seed in (3, 4):  # two games, sea battles and hidden units among them
        out = play_game(make_raw_env(game, **setup), (bot, agents.make("heuristic", game, seed=seed)), seed, game=game)
        bot.game_over(out.record.result)
    bot.close()
    script = tmp_path / "serve.py"
    script.write_text(SERVE_AFTER_HELLO)
    done = run_command([sys.executable, str(script), str(transcript), game, "random"], timeout=120)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert found["imported"] == [] and (game != "naval" or found["tables"] == 23478)
    assert [a["request"] for a in found["answers"]] == [r["request"] for r in found["requests"]]  # echoed
