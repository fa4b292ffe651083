"""Games between two players (agents or a person) through the AEC envs, narrated move by move."""

from __future__ import annotations

from cardwar import agents
from cardwar.human import HumanPlayer, QuitGame
from cardwar.envs import naval_v0
from cardwar.envs.naval import NavalConfig, action_to_string
from cardwar.envs.naval.render import narrate, render_state, render_view
from cardwar.envs.naval.scoring import describe_result

_VIEWERS = {"spectator": None, "omniscient": "omniscient", "A": 0, "B": 1}


def _narrated_game(env, players: dict, board, narrate_fn, new_turn, out, quiet: bool, move_line=None) -> int | None:
    """Drive ``env`` with ``players``; print ``board(state)`` when ``new_turn(state)`` says so and the
    public narration of every move. Returns the number of moves, or None if a person quit."""
    moves = 0
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        if not quiet and new_turn(env.state):
            out("\n" + board(env.state))
        try:
            action = players[agent].act(obs, env.view(agent))
        except QuitGame as stop:
            out(f"Game abandoned: {stop}")
            return None
        before = env.state.clone()
        env.step(action)
        moves += 1
        if not quiet:
            if move_line is not None:
                out(move_line(moves, before, action))
            for line in narrate_fn(before, action, env.state):
                out("       " + line)
    return moves


def play_naval(config: NavalConfig, seed: int, spec_a: str, spec_b: str, viewer: str = "spectator",
               quiet: bool = False, out=print, read=input) -> dict:
    """Play one seeded game; print the board each turn and a public log line per move.

    The printout shows what ``viewer`` may know: a spectator sees no hand, ``A``
    or ``B`` sees that captain's hand, ``omniscient`` sees everything and the
    face-down cards in the move list.
    """
    if viewer not in _VIEWERS:
        raise ValueError(f"viewer {viewer!r} is not one of {', '.join(_VIEWERS)} for the naval game")
    who = _VIEWERS[viewer]
    players = {}
    for i, (name, spec) in enumerate((("captain_a", spec_a), ("captain_b", spec_b))):
        if spec == "human":
            players[name] = HumanPlayer("naval", i, show=render_view, read=read, out=out)
            who = i  # a person at the table sees only their own seat's view
        else:
            players[name] = agents.make(spec, "naval", seed=seed * 2 + 1 + i)
    env = naval_v0.raw_env(rules=config)
    env.reset(seed=seed)
    if not quiet:
        out(f"Hit the Deck! seed {seed}: Captain A = {spec_a}, Captain B = {spec_b}")
    seen_turns: set[int] = set()

    def new_turn(state) -> bool:
        if state.phase.name != "ACTION" or state.turn in seen_turns:
            return False
        seen_turns.add(state.turn)
        if state.turn == 1:
            out(f"Captain {'AB'[state.first_player]} goes first")
        return True

    def move_line(n: int, before, action: int) -> str:
        return f"  {n:3d}. Captain {'AB'[before.current]}: {action_to_string(action)}"

    moves = _narrated_game(env, players, lambda st: render_state(st, who), narrate, new_turn, out, quiet,
                           move_line if who == "omniscient" else None)
    if moves is None:
        return {"seed": seed, "winner": None, "moves": 0, "abandoned": True}
    s = env.state
    if not quiet:
        out("\n" + render_state(s, who))
    summary = describe_result(s.result, s.winner)
    out(f"Result: {summary}")
    return {"seed": seed, "winner": None if s.winner is None else "AB"[s.winner], "moves": moves,
            "turns": s.turn, "result": s.result, "returns": s.returns()}


def play_hexwar(scenario: str, rules: dict, seed: int, spec_blue: str, spec_red: str, viewer: str = "spectator",
                quiet: bool = False, png: str | None = None, out=print, read=input) -> dict:
    """Play one seeded hex game between two agents; print the map each turn and a line per move.

    ``png`` writes the final map picture (as ``viewer`` sees it) to that path.
    """
    from cardwar.envs import hexwar_v0
    from cardwar.envs.hexwar.picture import render_rgb
    from cardwar.envs.hexwar.text import describe_result, narrate, render_state
    from cardwar.envs.hexwar.text import render_view as hex_view_text

    who = {"spectator": None, "omniscient": "omniscient", "blue": 0, "red": 1}[viewer]
    env = hexwar_v0.raw_env(scenario=scenario, rules=rules)
    env.reset(seed=seed)

    def picture_for(seat: int):
        def write(path: str) -> str:
            from PIL import Image

            Image.fromarray(render_rgb(env.state, seat)).save(path)
            return path
        return write

    players = {}
    for i, (name, spec) in enumerate((("blue", spec_blue), ("red", spec_red))):
        if spec == "human":
            players[name] = HumanPlayer("hexwar", i, show=lambda v: hex_view_text(v, env.scenario), read=read,
                                        out=out, picture=picture_for(i))
            who = i
        else:
            players[name] = agents.make(spec, "hexwar", seed=seed * 2 + 1 + i)
    if not quiet:
        out(f"{env.scenario.title} (seed {seed}): blue = {spec_blue}, red = {spec_red}")
        if env.scenario.description:
            out(env.scenario.description)
    seen_turns: set[int] = set()

    def new_turn(state) -> bool:
        fresh = state.turn not in seen_turns
        seen_turns.add(state.turn)
        return fresh

    moves = _narrated_game(env, players, lambda st: render_state(st, who), narrate, new_turn, out, quiet)
    if moves is None:
        return {"seed": seed, "winner": None, "moves": 0, "abandoned": True}
    s = env.state
    out(f"Result: {describe_result(s.result, s.winner)}")
    if png:
        from PIL import Image

        from cardwar.envs.hexwar.picture import render_rgb

        Image.fromarray(render_rgb(s, who)).save(png)
        out(f"Picture written to {png}")
    return {"seed": seed, "scenario": s.scenario.name, "winner": None if s.winner is None else ("blue", "red")[s.winner],
            "moves": moves, "turns": s.turn, "result": s.result, "returns": s.returns()}
