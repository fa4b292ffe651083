"""No response of the server shows the person's seat (or a spectator) what it may not know.

Many games of both games, hidden units on, against the heuristic; after every response
the full state on the server is read and the response scanned against it: the other
hand, the deck, a face-down card, a hidden unit. (The event streams send the same
state, built by the same function: tests/serve/test_server_process.py scans them.)
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter

from cardwar.envs.hexwar.hexgrid import label
from cardwar.envs.hexwar.scenario import SIDES, hex_of
from cardwar.envs.hexwar.state import ELIMINATED
from cardwar.envs.hexwar.units import STATS, type_name
from cardwar.envs.naval.cards import card_to_str

CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[2-9AJQK])[CDHS](?![A-Za-z0-9])")


def responses_of_a_game(api, rng, **body):
    """Play a game with random legal moves; yields (response json, seat the response is for, state then)."""
    r = api.new(agent="heuristic", **body)
    assert r.status_code == 201, r.text
    data = r.json()
    sid, auth = data["id"], {"Authorization": f"Bearer {data['token']}"}
    watch = {"Authorization": f"Bearer {data['watch_token']}"}
    session = api.manager.get(sid)
    human = session.human
    yield data, human, session.table.state
    state = data["state"]
    while state["status"] == "your_turn":
        pick = rng.choice(state["legal"])
        r = api.move(sid, auth, move=pick["move"], version=state["version"])
        assert r.status_code == 200, r.text
        state = r.json()["state"]
        yield r.json(), human, session.table.state
        yield api.client.get(f"/api/sessions/{sid}/spectate", headers=watch).json(), None, session.table.state


def naval_secret(s, seat):
    """Cards ``seat`` may not know now (None: a spectator): hands not its own, the deck, face-down cards."""
    hidden = set(s.deck) | {c for p in (0, 1) if p != seat for c in s.hands[p]}
    if s.pending is not None and s.pending.attacker != seat:
        hidden.add(s.pending.attack_card)
    if s.pending is not None and s.pending.deck_card >= 0:
        hidden.add(s.pending.deck_card)
    return {card_to_str(c) for c in hidden}


def without_mulligan_shown(response):
    """The hands shown at the mulligan are public, then shuffled back: any may be drawn again."""
    text = json.dumps(response)
    text = re.sub(r'"mulligan_shown": \[[^\]]*\]', "", text)
    return re.sub(r"shown and reshuffled: [^\"]*", "", text)


def test_no_response_shows_the_other_hand_the_deck_or_a_face_down_card(api):
    rng, checked = random.Random(0), 0
    for game in range(10):
        seat = ("captain_a", "captain_b")[game % 2]
        for response, who, s in responses_of_a_game(api, rng, game="naval", seed=100 + game, seat=seat):
            leaked = set(CARD.findall(without_mulligan_shown(response))) & naval_secret(s, who)
            assert not leaked, (game, leaked, response)
            checked += 1
    assert checked > 300


def hex_hidden(s, seat):
    """Units ``seat`` may not see now: the other side's hidden units (a spectator: every hidden unit)."""
    return [u for u in range(len(s.cell)) if s.cell[u] != ELIMINATED and s.hidden[u] and s.side[u] != seat]


def test_no_response_shows_a_hidden_unit(api):
    rng, hidden_seen, placed_visible = random.Random(1), 0, 0
    for game in range(8):
        seat = SIDES[game % 2]
        body = {"game": "hexwar", "scenario": "random", "rules": {"hidden_units": True}, "seed": 200 + game,
                "seat": seat}
        for response, who, s in responses_of_a_game(api, rng, **body):
            state = response.get("state", response)
            view = state["view"]
            assert view == s.information_view(who).to_dict()  # the engine's information view, nothing more
            hidden = hex_hidden(s, who)
            hidden_seen += bool(hidden)
            mine = None if who is None else SIDES[who]
            shown = Counter((u["hex"], u["type"]) for u in view["units"] if u["side"] != mine)
            visible = Counter((_hex(s.cell[u]), type_name(s.utype[u])) for u in range(len(s.cell))
                              if s.cell[u] != ELIMINATED and s.side[u] != who and u not in hidden)
            assert shown == visible, (game, shown, visible)
            assert all(not side["units"] for side in state["map"]["sides"].values())  # the map: no forces
            for u in hidden:  # a hidden unit never acted while hidden: no log line places it
                where = _hex(s.cell[u]) or "off-table"
                name = f"{SIDES[s.side[u]]} {STATS[s.utype[u]].name}"
                placed = [line for line in state["log"] if f"{name} at {where}" in line]
                assert not placed, (game, name, where, placed)
            for u in range(len(s.cell)):  # the same pattern does place units that acted in sight
                if s.cell[u] >= 0 and u not in hidden:
                    placed_visible += any(f"{SIDES[s.side[u]]} {STATS[s.utype[u]].name} at {_hex(s.cell[u])}" in line
                                          for line in state["log"])
            assert all(set(h) == {"side", "card", "played"} for h in view["hidden_cards"])  # whose: not said
            assert "random-" not in json.dumps(response)  # the generator's seed would rebuild the forces
    assert hidden_seen > 100 and placed_visible > 100


def _hex(cell: int) -> str | None:
    return None if cell < 0 else label(hex_of(cell))  # off-table artillery has no hex
