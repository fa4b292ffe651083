#!/usr/bin/env python3
"""A complete cardwar engine: it attacks (naval) or shoots (hexwar) when it can, else plays a random legal move.

It speaks the JSON-lines engine protocol (docs/engine-protocol.md) on stdin/stdout
and imports nothing from cardwar, so it is a template for a bot in any language:

    cardwar tournament --game naval --entrant h=heuristic \\
        --entrant bot='engine:python docs/examples/engine_bot.py' --pairs 20

Everything it needs comes in the messages: its seat's view, the moves it has seen
(``moves``, in notation) and the legal moves, each with its notation. Logs go to stderr, never stdout.
"""

import json
import random
import sys

ATTACKS = ("attack", "shoot", "joint shoot")  # naval attacks, hex shots


def send(message: dict) -> None:
    """One message, one line, flushed at once (the dealer is waiting for it)."""
    print(json.dumps(message), flush=True)


def choose(request: dict, rng: random.Random) -> str:
    """The move to play: an attack or a shot if there is one, else any legal move."""
    moves = [legal["move"] for legal in request["legal"]]
    attacks = [m for m in moves if m.startswith(ATTACKS)]
    return rng.choice(attacks or moves)


def main() -> int:
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message["type"]
        if kind == "hello":
            if message["protocol"] != 1:
                print(f"engine_bot speaks protocol 1, not {message['protocol']}", file=sys.stderr)
                return 1
            send({"type": "hello", "protocol": 1, "name": "attack-first bot", "author": "cardwar docs"})
        elif kind == "new_game":
            rng = random.Random(message["seed"])  # our own seed: the same games give the same moves
            print(f"new {message['game']} game as {message['seat']}", file=sys.stderr)
        elif kind == "move":  # echo the request's number: the dealer then knows this answers it
            send({"type": "move", "move": choose(message, rng), "request": message.get("request")})
        elif kind == "game_over":
            print(f"game over: {message['result'].get('winner')} won", file=sys.stderr)
        elif kind == "quit":
            return 0
    return 0  # the dealer closed our input: the same as quit


if __name__ == "__main__":
    sys.exit(main())
