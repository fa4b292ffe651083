"""``cardwar match``: two agents play N games, seats swapped in pairs on the same seed.

Game ``2k`` gives agent A the first seat and game ``2k+1`` the second, both with
seed ``S + k``, so luck of the deal cancels out within a pair. Results report A's
score rate (win 1, draw 1/2) with a 95% Wilson interval.

The dealer (:mod:`cardwar.arena.seeds`) keys the deal and each seat's seed with a secret
drawn for the match (or given as ``--secret``), so no player can rebuild the deal from
what it is sent; the secret is reported once the match is over, to rerun it exactly.

An engine is one process per seat (per worker) from game to game, and never dealt a game it
has seen (:func:`cardwar.players.seat_player` is told each game's deal): the two games of a
pair are played by different processes, and a deal that comes round again (the same engine
in both seats, a second match on the same seeds and dealer) goes to a fresh one.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor

from cardwar import agents
from cardwar.arena import play_agents  # noqa: F401 - re-exported for old callers
from cardwar.arena.match_result import MatchResult  # noqa: F401 - re-exported
from cardwar.arena.seeds import Dealer
from cardwar import games


def make_env(game: str, scenario: str | None = None, rules: dict | None = None):
    """The raw AEC env of ``game`` from its registry entry (:mod:`cardwar.games`)."""
    return games.get(game).make_env(scenario, rules)


def play_game(game: str, spec_first: str, spec_second: str, seed: int, scenario: str | None = None,
              rules: dict | None = None, dealer: Dealer | None = None) -> list[float]:
    """One game; returns the two seats' returns. Each player sees only its seat's observation and view.

    A spec may name one of our agents or an external engine (``engine:CMD``); an engine
    that misbehaves forfeits, as in a tournament, and one process plays game after game. ``dealer`` turns ``seed`` into the deal
    and the seats' seeds; without one, a fresh secret (pass ``Dealer(None)`` for the research seeds).
    """
    from cardwar.arena import play_game as arena_game
    from cardwar.players import is_engine_spec
    from cardwar.players import release_players, seat_player

    dealer = dealer or Dealer.fresh()
    specs = (spec_first, spec_second)
    deal = dealer.deal(seed)
    players = [seat_player(spec, game, dealer.seat(seed, i), seat=i, deal=deal)  # kept, never dealt a deal twice
               for i, spec in enumerate(specs)]
    if "torch" in sys.modules:  # after the players (a model imports torch): one move at a time needs one thread,
        sys.modules["torch"].set_num_threads(1)  # and two stall for up to 1 s on busy cores (issue 28)
    outcome = None
    try:
        outcome = arena_game(make_env(game, scenario, rules), players, deal, game=game, specs=specs,
                             scenario=scenario, forfeits=any(is_engine_spec(s) for s in specs))
        return outcome.returns
    finally:
        release_players(players, outcome)  # an engine is told the result and kept for the next game


def _pair(args: tuple) -> tuple[list[float], list[float]]:
    game, a, b, seed, scenario, rules, dealer = args
    return (play_game(game, a, b, seed, scenario, rules, dealer),
            play_game(game, b, a, seed, scenario, rules, dealer))


def run_match(game: str, spec_a: str, spec_b: str, games: int, seed: int = 0, scenario: str | None = None,
              rules: dict | None = None, workers: int = 1, progress: bool = True,
              dealer: Dealer | None = None) -> MatchResult:
    """Play ``games`` games (rounded up to pairs) and total them from A's side.

    ``dealer`` keys the deals (default: a fresh secret, kept in the result to rerun the match exactly).
    """
    from cardwar.players import check_player_spec, is_engine_spec, make_player

    for spec in (spec_a, spec_b):  # fail fast on a bad spec, before any process starts
        check_player_spec(spec, game)
        if not is_engine_spec(spec):
            make_player(spec, game)  # also loads a ppo model once, to check it fits the game
    make_env(game, scenario, rules)  # a bad scenario or rule option: its one line now, before any bar or worker
    dealer = dealer or Dealer.fresh()
    pairs = [(game, spec_a, spec_b, seed + k, scenario, rules, dealer) for k in range((games + 1) // 2)]
    res = MatchResult(game, spec_a, spec_b, secret=dealer.secret)
    start = time.perf_counter()
    from tqdm import tqdm

    bar = tqdm(total=len(pairs) * 2, unit="game", disable=not progress, desc=f"{spec_a} vs {spec_b}")
    if workers > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            outcomes = pool.map(_pair, pairs, chunksize=max(1, len(pairs) // (workers * 8)))
            _tally(res, outcomes, bar)
    else:
        _tally(res, map(_pair, pairs), bar)
    bar.close()
    res.seconds = time.perf_counter() - start
    return res


def _tally(res: MatchResult, outcomes, bar) -> None:
    for first, second in outcomes:
        for key, ret_a in (("a_first", first[0]), ("a_second", second[1])):
            res.games += 1
            slot = 0 if ret_a > 0 else 1 if ret_a < 0 else 2
            res.per_seat[key][slot] += 1
            if ret_a > 0:
                res.wins_a += 1
            elif ret_a < 0:
                res.wins_b += 1
            else:
                res.draws += 1
        bar.update(2)
