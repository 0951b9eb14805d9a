"""The rating arithmetic against published Glicko-2 figures, and the growth of the deviation
with time (no database)."""

from __future__ import annotations

import math
from datetime import UTC, datetime, timedelta

import pytest
from elote import Glicko2Competitor
from elote.competitors.glicko2 import _MatchResult
from hypothesis import given
from hypothesis import strategies as st

import engine
from service.ratings.glicko import (
    PROVISIONAL_DEVIATION,
    RATING_PERIODS_PER_DAY,
    START_DEVIATION,
    Standing,
    deviation_at,
    is_provisional,
    rate_pair,
    rate_ranked,
)
from service.ratings.pools import POOL_OF_RULESET

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def test_glickmans_worked_example() -> None:
    """Glickman, "Example of the Glicko-2 system" (2012): 1500/200/0.06 against 1400/30,
    1550/100 and 1700/300, winning the first and losing the others, in one rating period with
    tau 0.5, becomes 1464.06 / 151.52 / 0.05999. The three games are one period, which elote's
    public calls (one game at a time) do not make: they are put in its period directly."""
    player = Glicko2Competitor(1500, 200, 0.06, initial_time=T0)
    for rating, deviation, score in ((1400, 30, 1.0), (1550, 100, 0.0), (1700, 300, 0.0)):
        opponent = Glicko2Competitor(rating, deviation, 0.06, initial_time=T0)
        player._match_results.append(_MatchResult(opponent, score, T0, opponent._mu, opponent._phi))
    player.update_ratings()
    assert round(player.rating, 2) == 1464.05  # the paper rounds mu' -0.2069 first: 1464.06
    assert abs(player.rating - 1464.06) < 0.02
    assert round(player.rd, 2) == 151.52
    assert player.volatility == pytest.approx(0.05999, abs=1e-5)  # 0.059996, shown truncated


def test_two_new_players_one_game() -> None:
    """Two new players (1500/350): the winner gains what the loser loses, about 162 points, and
    both deviations shrink to about 290 (the Glicko-2 figures for one game from the start)."""
    winner, loser = rate_pair(Standing.new(T0), Standing.new(T0), 1.0, T0)
    assert winner.rating == pytest.approx(1662.3, abs=0.5)
    assert loser.rating == pytest.approx(1337.7, abs=0.5)
    assert winner.deviation == pytest.approx(290.3, abs=0.5)
    assert loser.deviation == pytest.approx(winner.deviation)


def test_a_draw_between_equals_changes_no_rating() -> None:
    a, b = rate_pair(Standing.new(T0), Standing.new(T0), 0.5, T0)
    assert a.rating == pytest.approx(1500) and b.rating == pytest.approx(1500)


def test_deviation_grows_per_rating_period() -> None:
    """Glickman's step 6 per period, ``RATING_PERIODS_PER_DAY`` periods a day (lichess)."""
    standing = Standing(1700, 50, 0.06, T0)
    periods = 100 * RATING_PERIODS_PER_DAY
    expected = math.sqrt(50**2 + periods * (0.06 * 173.7178) ** 2)
    assert deviation_at(standing, T0 + timedelta(days=100)) == pytest.approx(expected)
    assert deviation_at(standing, T0) == pytest.approx(50)


def test_deviation_grows_to_the_start_at_most() -> None:
    standing = Standing(1700, 300, 0.06, T0)
    assert deviation_at(standing, T0 + timedelta(days=3650)) == START_DEVIATION


def test_provisional_from_110() -> None:
    assert is_provisional(Standing(1500, PROVISIONAL_DEVIATION, 0.06, T0), T0)
    assert not is_provisional(Standing(1500, PROVISIONAL_DEVIATION - 0.01, 0.06, T0), T0)
    # Established today, provisional again after a long rest.
    resting = Standing(1500, 80, 0.06, T0)
    assert not is_provisional(resting, T0)
    assert is_provisional(resting, T0 + timedelta(days=365))


def test_three_players_ranks() -> None:
    """The winner gains, the two others sharing second place lose alike; a draw shared by all
    three changes no rating."""
    three = [Standing.new(T0)] * 3
    first, second, third = rate_ranked(three, [1, 2, 2], T0)
    assert first.rating > 1500 > second.rating
    assert second.rating == pytest.approx(third.rating)
    assert all(s.deviation < START_DEVIATION for s in (first, second, third))
    assert [s.rating for s in rate_ranked(three, [1, 1, 1], T0)] == pytest.approx([1500] * 3)
    a, b, c = rate_ranked(three, [1, 1, 2], T0)
    assert a.rating == pytest.approx(b.rating) and a.rating > 1500 > c.rating


@given(
    st.floats(800, 2600),
    st.floats(30, 350),
    st.floats(800, 2600),
    st.floats(30, 350),
    st.sampled_from([0.0, 0.5, 1.0]),
)
def test_a_result_moves_ratings_its_way(
    a: float, da: float, b: float, db: float, score: float
) -> None:
    """A win never lowers a rating, a loss never raises it."""
    new_a, new_b = rate_pair(Standing(a, da, 0.06, T0), Standing(b, db, 0.06, T0), score, T0)
    if score == 1.0:
        assert new_a.rating >= a and new_b.rating <= b
    if score == 0.0:
        assert new_a.rating <= a and new_b.rating >= b


def test_every_ruleset_has_a_pool() -> None:
    assert set(POOL_OF_RULESET) == set(engine.RULESETS)
