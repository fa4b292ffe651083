"""A naval game between two agents through the AEC env, narrated move by move."""

from __future__ import annotations

import agents
from envs import naval_v0
from envs.naval import NavalConfig, action_to_string
from envs.naval.render import narrate, render_state
from envs.naval.scoring import describe_result

_VIEWERS = {"spectator": None, "omniscient": "omniscient", "A": 0, "B": 1}


def play_naval(config: NavalConfig, seed: int, spec_a: str, spec_b: str, viewer: str = "spectator",
               quiet: bool = False, out=print) -> dict:
    """Play one seeded game; print the board each turn and a public log line per move.

    The printout shows what ``viewer`` may know: a spectator sees no hand, ``A``
    or ``B`` sees that captain's hand, ``omniscient`` sees everything and the
    face-down cards in the move list.
    """
    players = {"captain_a": agents.make(spec_a, "naval", seed=seed * 2 + 1),
               "captain_b": agents.make(spec_b, "naval", seed=seed * 2 + 2)}
    env = naval_v0.raw_env(rules=config)
    env.reset(seed=seed)
    who = _VIEWERS[viewer]
    last_turn = 0
    moves = 0
    if not quiet:
        out(f"Hit the Deck! seed {seed}: Captain A = {spec_a}, Captain B = {spec_b}")
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.state
        if not quiet and state.turn != last_turn and state.phase.name == "ACTION":
            if state.turn == 1:
                out(f"Captain {'AB'[state.first_player]} goes first")
            out("\n" + render_state(state, who))
            last_turn = state.turn
        action = players[agent].act(obs, env.view(agent))
        before = state.clone()
        env.step(action)
        moves += 1
        if not quiet:
            if who == "omniscient":
                out(f"  {moves:3d}. Captain {'AB'[before.current]}: {action_to_string(action)}")
            for line in narrate(before, action, env.state):
                out("       " + line)
    s = env.state
    if not quiet:
        out("\n" + render_state(s, who))
    summary = describe_result(s.result, s.winner)
    out(f"Result: {summary}")
    return {"seed": seed, "winner": None if s.winner is None else "AB"[s.winner], "moves": moves,
            "turns": s.turn, "result": s.result, "returns": s.returns()}
