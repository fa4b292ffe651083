"""A front end in 50 lines: play a whole game against a cardwar bot server, with only the standard library.

    cardwar serve &                                 # http://127.0.0.1:8000
    python docs/examples/serve_client.py naval heuristic
    python docs/examples/serve_client.py hexwar mcts --url http://127.0.0.1:8000
    python docs/examples/serve_client.py skirmish random --scenario duel

It plays any game the server offers (GET /api/games), picks a random legal move each turn (where a real
front end asks its player) and prints the log, then the result and why the game ended.
"""

import argparse
import json
import random
import urllib.error
import urllib.request


def call(url, method="GET", body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None if body is None else json.dumps(body).encode()
    try:
        with urllib.request.urlopen(urllib.request.Request(url, data, headers, method=method)) as r:
            return json.load(r)
    except urllib.error.HTTPError as err:  # every refusal is a 4xx with {"error": "..."}
        raise SystemExit(f"{err.code}: {json.load(err)['error']}") from None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("game", help="a game the server offers: naval, hexwar, skirmish...")
    p.add_argument("agent", nargs="?", default="heuristic")
    p.add_argument("--scenario", help="hexwar and skirmish: a map of GET /api/games (default: the game's own)")
    p.add_argument("--url", default="http://127.0.0.1:8000")
    args = p.parse_args()
    offered = {g["name"]: g for g in call(f"{args.url}/api/games")["games"]}
    if args.game not in offered:
        p.error(f"the server offers {', '.join(offered)}, not {args.game!r}")
    body = {"game": args.game, "agent": args.agent}
    if args.scenario:
        body["scenario"] = args.scenario
    new = call(f"{args.url}/api/sessions", "POST", body)
    session, token, state = new["id"], new["token"], new["state"]
    printed = 0
    while state["status"] == "your_turn":
        move = random.choice(state["legal"])["move"]  # a skirmish is played in small steps: each one a move
        state = call(f"{args.url}/api/sessions/{session}/moves", "POST",
                     {"move": move, "version": state["version"]}, token)["state"]
        print(*state["log"][printed:], sep="\n")
        printed = len(state["log"])
    result = state["result"]
    print("result:", result)
    print("winner:", result.get("winner") or "a draw", "-", (result.get("detail") or {}).get("reason", ""))


if __name__ == "__main__":
    main()
