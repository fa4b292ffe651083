"""Bot-vs-bot tournaments: scheduling, the result store, ratings and reports.

Each part is its own module, as fastchess splits its matchmaking: the statistics
(``game_result``, ``ratings``, ``openskill_ratings``, ``crosstable``, ``pentanomial``,
``sprt``) are pure functions of a list of :class:`~cardwar.tournament.game_result.GameResult`
and import nothing from the game engines.
"""
