#!/usr/bin/env python3
"""A cheating engine that remembers: it guesses that the other seat now holds the hand it held last game.

A duplicate pair deals the same cards twice with the seats swapped, so a process that sat in
both games of a pair would know the other hand in the second. It writes each guess (card names)
as a JSON line to the file named by its argument, and plays the first legal move.
"""

import json
import sys


def main() -> int:
    log = open(sys.argv[1], "a")
    last_hand: list[str] = []
    this_hand: list[str] | None = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "memory attacker"}), flush=True)
        elif msg["type"] == "new_game":
            if this_hand is not None:
                last_hand = this_hand
            this_hand = None
            log.write(json.dumps({"seed": msg["seed"], "seat": msg["seat"], "guess": last_hand}) + "\n")
            log.flush()
        elif msg["type"] == "move":
            if this_hand is None:
                this_hand = msg["view"]["hand"]
            answer = {"type": "move", "move": msg["legal"][0]["move"]}
            if "request" in msg:
                answer["request"] = msg["request"]
            print(json.dumps(answer), flush=True)
        elif msg["type"] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
