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
    """The hands shown at the mulligan are public, then shuffled back: any may be drawn again. The session's
    random tokens are left out too (a token like "-7C_k7oQ..." reads as a card to the pattern)."""
    if isinstance(response, dict):
        response = {k: v for k, v in response.items() if k not in ("id", "token", "watch_token")}
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


# ------------------------------------------------------------------ the squad skirmish
def _int_lists(value, out):
    """Every list of ints in a JSON value (the places a pack's or the deck's order could hide)."""
    if isinstance(value, list):
        if value and all(isinstance(x, int) and not isinstance(x, bool) for x in value):
            out.append(value)
        for x in value:
            _int_lists(x, out)
    elif isinstance(value, dict):
        for x in value.values():
            _int_lists(x, out)
    return out


def _has_run(seq, lists, n=3, public=()):
    """Whether some list holds ``n`` consecutive items of ``seq`` in its order (a pack's order). Runs that are also
    in one of the ``public`` sequences (the cards every pack has shown, in the order drawn) are not counted: a
    response may show another pack's drawn cards, which by chance can match three cards of this pack's order."""
    runs = {tuple(seq[i:i + n]) for i in range(len(seq) - n + 1)}
    runs -= {tuple(xs[i:i + n]) for xs in public for i in range(len(xs) - n + 1)}
    return any(tuple(xs[i:i + n]) in runs for xs in lists for i in range(len(xs) - n + 1))


def skirmish_checks(response, who, s, session):
    """One response for seat ``who`` (None: a spectator) against the full state ``s``: the view is the engine's
    information view (a spectator's: each side as its enemy sees it), no enemy order before its reveal, no
    figure the reader has never seen, no pack's or the activation deck's order, no seed."""
    from cardwar.envs.skirmish.public_map import spectator_view

    state = response.get("state", response)
    view, text = state["view"], json.dumps(response)
    expected = spectator_view(s) if who is None else s.information_view(who)
    assert view == expected.to_dict()  # what the engine says the reader may know, nothing more
    readers = (0, 1) if who is None else (who,)
    for u in s.units:  # an enemy figure the reader has never seen: not in the view, its name nowhere
        if u.side in readers:
            continue
        knower = 1 - u.side  # who would know of it: the reader, or (a spectator) the other side
        if u.uid not in s.seen[knower] and u.uid not in s.last_seen[knower]:
            assert all(x["uid"] != u.uid for x in view["units"]), (u.name, "never seen, yet in the view")
            assert u.name not in text, (u.name, "never seen, yet named")
    for x in view["units"]:  # enemy orders: the movement part after the reveal only, the combat part likewise
        if x["side"] in readers or x["order"] is None:
            continue
        if s.rules.sequence == "phases":
            assert s.moves_revealed or "mode" not in x["order"]
            assert s.combat_revealed or "action" not in x["order"]
        assert x["skills"] is None and x["ammo"] is None and x["grenades"] is None  # an enemy's kit is unknown
    seats = ("player_0", "player_1")
    for line, seat in zip(state["log"], state["log_seats"]):  # another seat's steps: what they caused, never the step
        if who is None or seat != seats[who]:
            assert line.startswith(f"{seat} decides"), line
    lists = _int_lists(response, [])
    shown = [pack.discards for pack in s.packs]  # drawn, in order: public
    for pack in s.packs:
        assert not _has_run(pack.draw_pile, lists, public=shown), "a pack's order"
    deck = [list(c) for c in s.deck]
    assert not any(deck[i:i + 2] == deck_ for i in range(len(deck) - 1) for deck_ in _pairs(response))
    assert str(session.table.seed) not in text or session.table.seed < 1000  # a small seed is a client's own
    if s.scenario.name.startswith("generated_"):  # the generator's seed rebuilds every figure
        seed = s.scenario.name.rsplit("_", 1)[1]
        assert s.scenario.name not in text and f"seed {seed}" not in text and f"skirmish {seed}" not in text


def _pairs(value):
    """Every two consecutive lists in a list (where two activation cards in the deck's order would be)."""
    out = []
    if isinstance(value, list):
        out += [value[i:i + 2] for i in range(len(value) - 1) if all(isinstance(x, list) for x in value[i:i + 2])]
        for x in value:
            out += _pairs(x)
    elif isinstance(value, dict):
        for x in value.values():
            out += _pairs(x)
    return out


def told_counts(record, who):
    """How many moves of each seat ``who`` (None: a spectator) is told of, replaying the record afresh with the
    game's own notation hook (an independent count of what the log may hold)."""
    from cardwar.arena.table import Table
    from cardwar.envs.skirmish.notation import seen_notation
    from cardwar.record import make_env

    table = Table(make_env(record), record.game, record.seed)
    counts = Counter()
    for m in record.moves:
        before, action = table.state.clone(), table.parse(m.move)
        mover = table.to_move
        table.play(action)
        viewer = (1 - mover) if who is None else who
        if seen_notation(before, action, table.state, viewer) is not None:
            counts[m.seat] += 1
    return counts


def test_no_skirmish_response_shows_an_enemy_order_an_unseen_figure_a_pack_or_a_seed(tmp_path):
    """Skirmish games from both seats, both sequences and a generated map, against random; every response and
    every spectator read is scanned against the full state on the server, and at the end the log of each
    reader holds exactly the moves the game's notation hook tells it of."""
    from tests.serve.conftest import make_api

    games = [({"scenario": "duel", "seat": "player_0"}, True),
             ({"scenario": "duel", "seat": "player_1", "rules": {"sequence": "deck", "king_and_country": True}}, False),
             ({"scenario": "random", "seat": "player_1"}, True)]
    rng, checked, unseen = random.Random(4), 0, 0
    for i, (body, reproducible) in enumerate(games):
        api_gen = make_api(tmp_path / str(i), extra={"reproducible_seeds": reproducible})
        api = next(api_gen)
        try:
            last = {}
            for response, who, s in responses_of_a_game_with(api, rng, "random", game="skirmish", seed=300 + i,
                                                              **body):
                session = api.manager.get(response.get("state", response)["session"])
                skirmish_checks(response, who, s, session)
                unseen += any(u.uid not in s.seen[1 - u.side] for u in s.units if u.side != who)
                last[who] = response.get("state", response)
                checked += 1
            record = session.record()
            for who, state in last.items():
                assert state["status"] == "over"
                counts = told_counts(record, who)
                assert Counter(state["log_seats"]) == counts, (i, who)
        finally:
            api_gen.close()
    assert checked > 150 and unseen > 20


def responses_of_a_game_with(api, rng, agent, **body):
    """As :func:`responses_of_a_game`, against ``agent``."""
    r = api.new(**{**body, "agent": agent})
    assert r.status_code == 201, r.text
    data = r.json()
    sid, auth = data["id"], {"Authorization": f"Bearer {data['token']}"}
    watch = {"Authorization": f"Bearer {data['watch_token']}"}
    session = api.manager.get(sid)
    human = session.human
    yield data, human, session.table.state
    yield api.client.get(f"/api/sessions/{sid}/spectate", headers=watch).json(), None, session.table.state
    state = data["state"]
    while state["status"] == "your_turn":
        pick = rng.choice(state["legal"])
        r = api.move(sid, auth, move=pick["move"], version=state["version"])
        assert r.status_code == 200, r.text
        state = r.json()["state"]
        yield r.json(), human, session.table.state
        yield api.client.get(f"/api/sessions/{sid}/spectate", headers=watch).json(), None, session.table.state
