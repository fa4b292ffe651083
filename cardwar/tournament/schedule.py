"""The scheduler: who plays whom, on which seed and scenario, in which seats.

Every pairing plays duplicate pairs, as the ACPC dealer replays the cards and
fastchess replays an opening with colours reversed: pair ``k`` of every pairing
is played on seed ``seed + k`` (the same deal, dice and activation cards as far as
play allows), once with entrant A in the first seat and once with B there.

The deal of pair ``k`` is keyed by the pairing too (:func:`deal_context`: the two entrants'
names and specs, sorted), so two pairings never share a deal and an engine process, which
plays game after game for its entrant and seat, is never dealt a game it has seen
(``docs/tournaments.md``, "No engine plays a deal twice"). Tournaments stored before that
(``seeds`` ``keyed``, ``reproducible``, ``legacy``) deal every pairing the seed's one deal, as
their games were dealt; so do those started with ``shared_deals``. There
:func:`cardwar.players.seat_player` gives a deal an engine has seen to another process.

A job's ``pairing`` and ``pair`` are positions in this schedule, for progress and reports
only; the store knows a game by its content (:meth:`PairJob.keys`), so reordering the
entrants or adding one never misfiles a stored game.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from cardwar.tournament.config import TournamentConfig
from cardwar.tournament.store import conditions, game_key


@dataclass(frozen=True)
class PairJob:
    """One duplicate pair to play: everything a worker needs, and nothing else."""

    tournament: str
    game: str
    pairing: int
    pair: int
    a: str
    b: str
    spec_a: str
    spec_b: str
    seed: int
    scenario: str | None
    rules: dict
    move_ms: int | None
    game_ms: int | None
    secret: str | None = field(default=None, repr=False)  # the dealer's (cardwar.arena.seeds); None: research seeds
    engine_options: dict | None = None  # engine entrants' tolerances and stderr folder: not part of a game's key
    deal_context: str | None = None  # keys the deal with the pairing (deal_context()); None: the seed's shared deal

    def dealer(self):
        """The pair's dealer (:class:`~cardwar.arena.seeds.Dealer`): the secret and the pairing's context."""
        from cardwar.arena.seeds import Dealer

        return Dealer(self.secret, self.deal_context)

    def seats(self) -> list[tuple[str, str, str, str]]:
        """``(first, second, first_spec, second_spec)`` of the pair's two games: A first, then B first."""
        return [(self.a, self.b, self.spec_a, self.spec_b), (self.b, self.a, self.spec_b, self.spec_a)]

    def keys(self) -> tuple[str, str]:
        """The store's keys of the pair's two games (:func:`~cardwar.tournament.store.game_key`): content, not place."""
        conds = conditions({"game": self.game, "rules": self.rules, "move_ms": self.move_ms, "game_ms": self.game_ms})
        k0, k1 = (game_key(first, spec_first, second, spec_second, self.seed, self.scenario, conds)
                  for first, second, spec_first, spec_second in self.seats())
        return k0, k1


def deal_context(a: str, spec_a: str, b: str, spec_b: str) -> str:
    """What keys a pairing's deals (:class:`~cardwar.arena.seeds.Dealer`'s ``context``): its content, never its place.

    The canonical JSON of the two entrants' ``[name, spec]``, sorted: either order of the entrants, any
    place in the schedule, a resume or a reordered config give the same deals, and every other pairing
    (another opponent, or the same name under another spec) gets unrelated ones.
    """
    return json.dumps(sorted([[a, spec_a], [b, spec_b]]), ensure_ascii=True, separators=(",", ":"))


def schedule(config: TournamentConfig, secret: str | None = None, engine_log_dir: str | None = None,
             per_pairing: bool = True) -> list[PairJob]:
    """Every pair of the tournament, round by round (pair 0 of every pairing, then pair 1, ...).

    ``secret`` is the tournament's dealer secret: the deal and the seats' seeds are keyed by it.
    ``engine_log_dir``: the folder where each engine entrant's stderr is kept (``<entrant>.stderr``).
    ``per_pairing``: each pairing is dealt its own games (:func:`deal_context`); False: every pairing is
    dealt the seed's one deal (shared deals, and every tournament stored before deals were per pairing).
    Neither changes a game's key: how a tournament deals is kept in its store (:meth:`Store.seeds`).
    """
    engine_options = dict(config.engines) | ({"stderr": str(engine_log_dir)} if engine_log_dir else {})
    jobs = []
    pairings = config.pairings()
    for k in range(config.pairs):
        scenario = config.scenarios[k % len(config.scenarios)] if config.scenarios else None
        for p, (a, b) in enumerate(pairings):
            spec_a, spec_b = config.entrants[a], config.entrants[b]
            jobs.append(PairJob(config.name, config.game, p, k, a, b, spec_a, spec_b,
                                config.seed + k, scenario, dict(config.rules), config.move_ms, config.game_ms, secret,
                                engine_options or None,
                                deal_context(a, spec_a, b, spec_b) if per_pairing else None))
    return jobs
