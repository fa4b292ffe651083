#!/usr/bin/env python3
"""A spying engine that remembers every game it is dealt, to recognise a deal it has seen before.

It keeps every ``new_game`` and every view it is sent, for the life of its process, and
fingerprints each game by what its seat is dealt: naval, its seat and starting hand; the hex
game and skirmish, the map ``new_game`` describes (a procedural map is drawn with the deal)
and its seat's units where the first view puts them. Had its process been dealt that game before,
it would know the other seat's cards, or where the hidden units stand, from the first time
(issue 27: 207 of 210 cards, 37 of 37 hidden units). For each game it writes a JSON line to
the file named by its argument (and one when it starts): its pid, the game's number in this process, the seat and seed
``new_game`` sent, the fingerprint and whether it recognised it. It plays the first legal move.
"""

import hashlib
import json
import os
import sys


def fingerprint(game: str, new_game: dict, view: dict) -> str:
    if game == "naval":
        text = json.dumps([new_game["seat"], sorted(view["hand"])])
    else:
        own = sorted((u.get("type"), u.get("hex")) for u in view.get("units", []) if u.get("side") == view.get("side"))
        text = json.dumps([new_game.get("seat"), new_game.get("scenario"), own], sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def main() -> int:
    log = open(sys.argv[1], "a")
    log.write(json.dumps({"pid": os.getpid(), "start": True}) + "\n")
    log.flush()
    memory: list[dict] = []  # every new_game and view, kept across games
    seen: set[str] = set()
    current: dict | None = None
    games = 0
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "deal spy"}), flush=True)
        elif msg["type"] == "new_game":
            games += 1
            current = msg
            memory.append(msg)
        elif msg["type"] == "move":
            memory.append(msg["view"])
            if current is not None:  # the first move of the game: what the seat was dealt
                mark = fingerprint(current["game"], current, msg["view"])
                log.write(json.dumps({"pid": os.getpid(), "game": games, "seat": current["seat"],
                                      "seed": current["seed"], "fingerprint": mark, "recognised": mark in seen,
                                      "remembered": len(memory)}) + "\n")
                log.flush()
                seen.add(mark)
                current = None
            answer = {"type": "move", "move": msg["legal"][0]["move"]}
            if "request" in msg:
                answer["request"] = msg["request"]
            print(json.dumps(answer), flush=True)
        elif msg["type"] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
