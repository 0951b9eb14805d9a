"""The rating arithmetic, without a database: Glicko-2 for two players (elote's), a Weng-Lin
rating from ranks for three (openskill's Plackett-Luce), and the growth of the deviation with
time, in lichess's rating periods (docs/ratings.md).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from elote import Glicko2Competitor
from openskill.models import PlackettLuce

START_RATING = 1500.0
START_DEVIATION = 350.0
"""Also the most a deviation grows to."""
START_VOLATILITY = 0.06
PROVISIONAL_DEVIATION = 110.0
"""A rating whose deviation is this or more is provisional: shown with a ``?``, on no
leaderboard."""
RATING_PERIODS_PER_DAY = 0.21436
"""lichess's ``ratingPeriodsPerDay``: the deviation grows by a rating period's volatility about
every 4.7 days without a rated game."""
TAU = 0.75
"""Glicko-2's system constant, as lichess's: how fast the volatility may change."""


@dataclass(frozen=True, slots=True)
class Standing:
    """A rating at a moment."""

    rating: float
    deviation: float
    """As of ``rated_at``."""
    volatility: float
    rated_at: datetime
    """When it was last changed by a game (or first made)."""

    @classmethod
    def new(cls, now: datetime) -> Standing:
        """A player's rating before their first rated game of a pool."""
        return cls(START_RATING, START_DEVIATION, START_VOLATILITY, now)


class PoolGlicko2(Glicko2Competitor):
    """elote's Glicko-2 with lichess's constants: a rating period is 1/0.21436 days, counted in
    fractions (so each game is rated when it ends, not at the end of a period)."""

    _tau = TAU
    _rating_period_days = 1 / RATING_PERIODS_PER_DAY


def _competitor(standing: Standing) -> PoolGlicko2:
    return PoolGlicko2(
        initial_rating=standing.rating,
        initial_rd=standing.deviation,
        initial_volatility=standing.volatility,
        initial_time=standing.rated_at,
    )


def deviation_at(standing: Standing, now: datetime) -> float:
    """The deviation at ``now``: grown since ``rated_at`` by the volatility, once per rating
    period (Glickman's step 6 for a period without games), at most ``START_DEVIATION``."""
    competitor = _competitor(standing)
    competitor.update_rd_for_inactivity(max(now, standing.rated_at))
    return float(competitor.rd)


def is_provisional(standing: Standing, now: datetime) -> bool:
    """Whether the rating is shown with a ``?`` and kept off the leaderboards."""
    return deviation_at(standing, now) >= PROVISIONAL_DEVIATION


def rate_pair(
    first: Standing, second: Standing, score: float, now: datetime
) -> tuple[Standing, Standing]:
    """Both ratings after one game that ended at ``now``; ``score`` is the first player's:
    1 a win, 0.5 a draw, 0 a loss. Each is rated against the other's rating before the game."""
    a, b = _competitor(first), _competitor(second)
    when = max(now, first.rated_at, second.rated_at)
    if score == 1:
        a.beat(b, match_time=when)
    elif score == 0:
        b.beat(a, match_time=when)
    else:
        a.tied(b, match_time=when)
    return (
        Standing(float(a.rating), float(a.rd), float(a.volatility), when),
        Standing(float(b.rating), float(b.rd), float(b.volatility), when),
    )


_RANKED = PlackettLuce(
    mu=START_RATING, sigma=START_DEVIATION, beta=START_DEVIATION / 2, tau=0.0, limit_sigma=True
)
"""Weng-Lin on the Glicko scale (beta half the starting deviation, as openskill's defaults);
no additive dynamics: the deviation grows with time instead, as in the two-player pools."""


def rate_ranked(
    standings: Sequence[Standing], ranks: Sequence[int], now: datetime
) -> list[Standing]:
    """Every seat's rating after one multiplayer game that ended at ``now``; ``ranks``: 1 the
    best, equal ranks a tie (a shared draw)."""
    when = max([now, *(s.rated_at for s in standings)])
    teams = [[_RANKED.rating(mu=s.rating, sigma=deviation_at(s, when))] for s in standings]
    rated = _RANKED.rate(teams, ranks=list(ranks))
    return [
        Standing(
            float(team[0].mu),
            min(float(team[0].sigma), START_DEVIATION),
            START_VOLATILITY,
            when,
        )
        for team in rated
    ]


def rounded(value: float) -> int:
    """A rating as shown: to the nearest whole number."""
    return math.floor(value + 0.5)
