"""When a series ends and who wins it (R23, docs/rules.md 28): pure functions of the points."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import series_leaders, series_over, series_winner


def test_r23_a_series_to_points_ends_when_one_player_alone_reaches_them() -> None:
    # "First to 15": 5 for a win, one a flag for the loser (R23).
    assert not series_over({"A": 10, "B": 4}, 2, target_points=15)
    assert series_over({"A": 15, "B": 4}, 3, target_points=15)
    assert series_winner({"A": 15, "B": 4}, 3, target_points=15) == "A"
    # Past the target, the one ahead wins even when the other reached it too.
    assert series_winner({"A": 16, "B": 19}, 4, target_points=15) == "B"


def test_r23_players_level_at_or_past_the_target_play_on() -> None:
    assert not series_over({"A": 15, "B": 15}, 4, target_points=15)
    assert series_winner({"A": 15, "B": 15}, 4, target_points=15) is None
    assert not series_over({"A": 17, "B": 17, "C": 3}, 6, target_points=15)


def test_a_series_of_a_number_of_games_ends_after_the_last_one() -> None:
    assert not series_over({"A": 5, "B": 2}, 2, games_planned=3)
    assert series_winner({"A": 5, "B": 2}, 2, games_planned=3) is None  # still playing
    assert series_winner({"A": 7, "B": 8}, 3, games_planned=3) == "B"


def test_level_leaders_after_the_last_game_draw_the_series() -> None:
    assert series_over({"A": 8, "B": 8, "C": 2}, 3, games_planned=3)
    assert series_winner({"A": 8, "B": 8, "C": 2}, 3, games_planned=3) is None


def test_a_series_needs_a_goal() -> None:
    with pytest.raises(ValueError, match="number of points or"):
        series_over({"A": 0, "B": 0}, 0)


totals = st.dictionaries(st.sampled_from("ABC"), st.integers(0, 40), min_size=2, max_size=3)


@given(totals, st.integers(1, 30))
def test_a_series_to_points_is_won_by_its_only_leader(points: dict[str, int], target: int) -> None:
    winner = series_winner(points, 0, target_points=target)
    leaders = series_leaders(points)
    if winner is None:
        assert not series_over(points, 0, target_points=target)
    else:
        assert leaders == [winner] and points[winner] >= target


@given(totals, st.integers(0, 9), st.integers(1, 9))
def test_a_series_of_games_ends_exactly_at_its_last_game(
    points: dict[str, int], finished: int, planned: int
) -> None:
    assert series_over(points, finished, games_planned=planned) == (finished >= planned)
    winner = series_winner(points, finished, games_planned=planned)
    assert winner is None or (finished >= planned and series_leaders(points) == [winner])
