#!/usr/bin/env python3
"""A cheating engine: it tries to rebuild the hidden game from the seed ``new_game`` sends it.

Under the old seeding a seat got ``2 * game_seed + 1 + seat``, so ``(seed - 1 - seat) // 2``
was the game seed: reset the env with it and read the other seat's hand (naval) or the
hexes of the enemy's hidden units (hexwar), or foresee the dice (tankattack: the first bound's PIP roll,
the first die of the game's stream, drawn before any move). It writes each guess as a JSON line to the file
named by its argument and plays the first legal move. The test scores the guesses against the truth.
"""

import json
import sys


def guess(game: str, seat: str, seed: int, scenario: dict | None) -> list:
    from cardwar.envs import make_raw_env

    me = 0 if seat in ("captain_a", "blue", "defender") else 1
    game_seed = (seed - 1 - me) // 2  # inverts the old 2*s+1 / 2*s+2
    if game == "naval":
        env = make_raw_env("naval")
        env.reset(seed=game_seed)
        return sorted(env.game.hands[1 - me])
    if game == "tankattack":
        env = make_raw_env("tankattack", "trench_raid")
        env.reset(seed=game_seed)
        return [env.game.pip_roll]
    env = make_raw_env("hexwar", "random:test", {"hidden_units": True})
    env.reset(seed=game_seed)
    s = env.game
    return sorted(s.cell[u] for u in range(len(s.side)) if s.side[u] != me and s.hidden[u])


def main() -> int:
    log = open(sys.argv[1], "a")
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": 1, "name": "seed attacker"}), flush=True)
        elif msg["type"] == "new_game":
            log.write(json.dumps({"seed": msg["seed"], "seat": msg["seat"],
                                  "guess": guess(msg["game"], msg["seat"], msg["seed"], msg["scenario"])}) + "\n")
            log.flush()
        elif msg["type"] == "move":
            print(json.dumps({"type": "move", "move": msg["legal"][0]["move"]}), flush=True)
        elif msg["type"] == "quit":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
