"""The arena: the one game loop (clocks, forfeits, records) and the table it keeps.

Players are made above the arena (:mod:`cardwar.players`: agents, engines, OpenSpiel bots); the
arena only asks each for a move.

Used by ``cardwar match``, tournaments, training's evaluation and the server, so
a forfeit rule, a clock or a record format is written once.
"""

from cardwar.arena.game import FORFEIT_REASONS, Clock, Forfeit, GameOutcome, PlayerFailure, play_agents, play_game
from cardwar.arena.table import Table

__all__ = ["FORFEIT_REASONS", "Clock", "Forfeit", "GameOutcome", "PlayerFailure", "play_agents", "play_game", "Table"]
