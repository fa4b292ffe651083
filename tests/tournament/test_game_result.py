"""The game record every statistic reads: validation, scores by entrant, duplicate pairs."""

import pytest

from cardwar.tournament.game_result import GameResult, entrant_names, group_pairs, is_complete_pair
from tests.tournament.pairs import duplicate_pair


def test_score_of_gives_each_entrant_its_own_result():
    game = GameResult("a-b", 0, "a", "b", 1.0)
    assert game.score_of("a") == 1.0 and game.score_of("b") == 0.0
    assert GameResult("a-b", 0, "a", "b", 0.5).score_of("b") == 0.5
    with pytest.raises(KeyError):
        game.score_of("c")


@pytest.mark.parametrize("score", [2.0, -1.0, 0.25])
def test_a_score_other_than_win_draw_loss_is_refused(score):
    with pytest.raises(ValueError, match="score"):
        GameResult("a-b", 0, "a", "b", score)


def test_an_entrant_cannot_play_itself():
    with pytest.raises(ValueError, match="itself"):
        GameResult("a-a", 0, "a", "a", 1.0)


def test_pairs_are_grouped_by_pairing_and_index():
    games = duplicate_pair("a-b", 0, "a", "b", 1, 0) + duplicate_pair("a-b", 1, "a", "b", 1, 1)
    games += duplicate_pair("a-c", 0, "a", "c", 0.5, 0.5)
    pairs = group_pairs(games)
    assert list(pairs) == [("a-b", 0), ("a-b", 1), ("a-c", 0)]
    assert all(is_complete_pair(pair) for pair in pairs.values())
    assert entrant_names(games) == ["a", "b", "c"]


def test_a_pair_cut_short_or_without_the_seat_swap_is_incomplete():
    one_game = [GameResult("a-b", 0, "a", "b", 1.0)]
    same_seats = [GameResult("a-b", 0, "a", "b", 1.0), GameResult("a-b", 0, "a", "b", 0.0)]
    assert not is_complete_pair(one_game)
    assert not is_complete_pair(same_seats)


def test_a_pair_id_reused_for_a_third_game_is_refused():
    games = duplicate_pair("a-b", 0, "a", "b", 1, 0) + duplicate_pair("a-b", 0, "a", "b", 1, 1)
    with pytest.raises(ValueError, match="more than two games"):
        group_pairs(games)
