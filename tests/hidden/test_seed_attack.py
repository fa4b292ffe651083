"""An engine that tries to rebuild the hidden game from the seed it is sent learns nothing (issue 18, item 1).

The attacker (``seed_attacker.py``, a real engine process) inverts the old seeding
(``2 * game_seed + 1 + seat``), rebuilds the game and writes down the other seat's hand
(naval), the hexes of the enemy's hidden units (hexwar) or the dice (tankattack, whose only secret is
the future dice, RULES.md 18). Scored against the truth, its
guesses are perfect under ``--reproducible-seeds`` (so the test bites) and no better than
chance under the dealer's keyed seeds.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

import pytest

from cardwar.players import close_engines
from cardwar.arena.seeds import Dealer
from cardwar.envs import make_raw_env
from cardwar.cli.match import run_match

ATTACKER = Path(__file__).with_name("seed_attacker.py")
SEATS = {"naval": ("captain_a", "captain_b"), "hexwar": ("blue", "red"), "tankattack": ("defender", "attacker")}
TANK = ("trench_raid", None)
HEX = ("random:test", {"hidden_units": True})


def truth(game: str, deal_seed: int, me: int) -> list:
    """What the attacker wants to know, read from the real deal."""
    env = make_raw_env(game, *{"hexwar": HEX, "tankattack": TANK}.get(game, (None, None)))
    env.reset(seed=deal_seed)
    s = env.game
    if game == "tankattack":
        return [s.pip_roll]  # the first die of the game, rolled before any move
    if game == "naval":
        return sorted(s.hands[1 - me])
    return sorted(s.cell[u] for u in range(len(s.side)) if s.side[u] != me and s.hidden[u])


def hit_rate(guesses: list[list], truths: list[list]) -> float:
    """Share of the hidden values (cards, or hidden units' hexes) the guesses name."""
    hits = sum(len(set(g) & set(t)) for g, t in zip(guesses, truths))
    return hits / max(1, sum(len(t) for t in truths))


def attack(tmp_path: Path, game: str, dealer: Dealer, games: int, seed: int) -> tuple[list, list]:
    """Play the attacker (one process, kept from game to game) against random; its guesses and the truths."""
    log = tmp_path / f"attack-{game}-{dealer.secret}.jsonl"
    scenario, rules = {"hexwar": HEX, "tankattack": TANK}.get(game, (None, None))
    try:
        res = run_match(game, f"engine:{sys.executable} {ATTACKER} {log}", "random", games, seed=seed,
                        scenario=scenario, rules=rules, progress=False, dealer=dealer)
    finally:
        close_engines()
    assert res.games == games
    said = {(d["seed"], d["seat"]): d["guess"] for d in map(json.loads, log.read_text().splitlines())}
    guesses, truths = [], []
    for k in range(games // 2):  # game 2k: the attacker sits first; game 2k+1: second
        for me in (0, 1):
            key = (dealer.seat(seed + k, me), SEATS[game][me])
            guesses.append(said[key])
            truths.append(truth(game, dealer.deal(seed + k), me))
    return guesses, truths


@pytest.mark.parametrize("game", ["naval", "hexwar", "tankattack"])
def test_the_old_seeds_gave_the_game_away(tmp_path, game):
    guesses, truths = attack(tmp_path, game, Dealer(None), 4, seed=300)
    assert sum(map(len, truths)) > 0 and hit_rate(guesses, truths) == 1.0  # the attack works: the test bites


def test_a_naval_engine_cannot_read_the_other_hand_from_its_seed(tmp_path):
    guesses, truths = attack(tmp_path, "naval", Dealer.fresh(), 60, seed=300)
    hand = len(truths[0])
    chance = hand / (52 - hand)  # a hand drawn blind from the cards the attacker does not hold
    n = sum(map(len, truths))
    sd = (chance * (1 - chance) / n) ** 0.5
    assert hit_rate(guesses, truths) < chance + 4 * sd, (hit_rate(guesses, truths), chance)


def test_a_hex_engine_cannot_find_the_hidden_units_from_its_seed(tmp_path):
    guesses, truths = attack(tmp_path, "hexwar", Dealer.fresh(), 40, seed=300)
    # chance: the same guesser fed seeds that have nothing to do with the game
    rng = random.Random(7)
    blind = [truth("hexwar", rng.randrange(10**6, 10**9), i % 2) for i in range(len(truths))]
    chance = hit_rate(blind, truths)
    n = sum(map(len, truths))
    assert n >= 12
    sd = (max(chance, 1 / n) * (1 - chance) / n) ** 0.5
    assert hit_rate(guesses, truths) < chance + 4 * sd + 0.02, (hit_rate(guesses, truths), chance)


def test_a_tank_attack_engine_cannot_foresee_the_dice_from_its_seed(tmp_path):
    guesses, truths = attack(tmp_path, "tankattack", Dealer.fresh(), 40, seed=300)
    n = len(truths)  # one d6 a game and seat: a blind guess names it one time in six
    chance = 1 / 6
    sd = (chance * (1 - chance) / n) ** 0.5
    assert hit_rate(guesses, truths) < chance + 4 * sd, (hit_rate(guesses, truths), chance)


def test_a_cheating_entrant_in_a_real_tournament_learns_nothing(tmp_path):
    """The attack as it was found: the cheat entered in a tournament (run by the command, as an organiser
    would), scored game by game against the deals the database kept."""
    import json as _json

    import yaml

    from cardwar.record import GameRecord
    from cardwar.tournament.store import Store
    from tests.subprocesses import run_command

    log = tmp_path / "attack.jsonl"
    cfg = tmp_path / "t.yaml"
    cfg.write_text(yaml.safe_dump({"name": "t", "game": "naval", "pairs": 15, "entrants": {
        "random": "random", "cheat": f"engine:{sys.executable} {ATTACKER} {log}"}}))
    done = run_command([sys.executable, "-m", "cardwar", "tournament", str(cfg), "--quiet", "--rounds", "10"],
                       timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    said = {(d["seed"], d["seat"]): d["guess"] for d in map(_json.loads, log.read_text().splitlines())}
    with Store(tmp_path / "tournaments" / "t.sqlite", readonly=True) as store:
        rows = store.games("t")
        dealer = store.dealer("t", rows[0])  # the one pairing's dealer: the secret, keyed by the pairing
    assert dealer.secret is not None and len(rows) == 30
    assert dealer.secret not in done.stdout + done.stderr  # never printed
    guesses, truths = [], []
    for row in rows:
        me = 0 if row.first == "cheat" else 1
        deal = GameRecord.from_json(row.record).seed
        assert deal == dealer.deal(row.seed)
        guesses.append(said[(dealer.seat(row.seed, me), SEATS["naval"][me])])
        truths.append(truth("naval", deal, me))
    hand = len(truths[0])
    chance = hand / (52 - hand)
    n = sum(map(len, truths))
    assert hit_rate(guesses, truths) < chance + 4 * (chance * (1 - chance) / n) ** 0.5


MEMORY = Path(__file__).with_name("memory_attacker.py")


def memory_attack(tmp_path: Path, games: int) -> float:
    """The remembering engine against random; the share of the other hand its guesses name."""
    from cardwar.envs.naval.cards import card_to_str

    log, dealer, seed = tmp_path / "memory.jsonl", Dealer.fresh(), 500
    try:
        run_match("naval", f"engine:{sys.executable} {MEMORY} {log}", "random", games, seed=seed, progress=False,
                  dealer=dealer)
    finally:
        close_engines()
    said = {(d["seed"], d["seat"]): d["guess"] for d in map(json.loads, log.read_text().splitlines())}
    guesses, truths = [], []
    for k in range(games // 2):
        for me in (0, 1):
            guesses.append(said[(dealer.seat(seed + k, me), SEATS["naval"][me])])
            truths.append([card_to_str(c) for c in truth("naval", dealer.deal(seed + k), me)])
    return hit_rate(guesses, truths)


def test_an_engine_process_never_sits_in_both_games_of_a_pair(tmp_path, monkeypatch):
    """With one process for both seats (as first built) the mirror game gives the other hand away; a process
    kept to one seat has only other deals to remember, and so has one that is never dealt a deal twice
    (cardwar.players.seat_player): each protection alone holds the attack to chance."""
    import cardwar.players as players

    kept_to_a_seat = memory_attack(tmp_path / "a", 20) if (tmp_path / "a").mkdir() is None else 0.0
    chance = 7 / 45
    assert kept_to_a_seat < chance + 4 * (chance * (1 - chance) / 140) ** 0.5, kept_to_a_seat
    seatless = players._key
    monkeypatch.setattr(players, "_key", lambda spec, game, seat, options: seatless(spec, game, None, options))
    # one process for both seats is still never dealt a deal twice: the mirror game goes to another process
    (tmp_path / "c").mkdir()
    assert memory_attack(tmp_path / "c", 20) < chance + 4 * (chance * (1 - chance) / 140) ** 0.5
    monkeypatch.setattr(players, "_has_seen", lambda player, deal: False)  # and without that guard either:
    (tmp_path / "b").mkdir()
    assert memory_attack(tmp_path / "b", 20) >= 0.45  # the second game of every pair: the whole hand
