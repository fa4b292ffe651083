"""The arena: the one game loop (clocks, forfeits, records) and the players it seats.

Used by ``cardwar match``, tournaments, training's evaluation and the server, so
a forfeit rule, a clock or a record format is written once.
"""

from cardwar.arena.game import FORFEIT_REASONS, Clock, Forfeit, GameOutcome, PlayerFailure, play_game
from cardwar.arena.table import Table
from cardwar.arena.players import check_player_spec, is_engine_spec, make_player

__all__ = ["FORFEIT_REASONS", "Clock", "Forfeit", "GameOutcome", "PlayerFailure", "check_player_spec", "is_engine_spec", "make_player",
           "play_game", "Table"]
