"""Ratings as pages and emails read them: a player's, the computer's levels', a pool's
leaderboard, what a game did (docs/ratings.md)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from flask_babel import LazyString
from sqlmodel import Session, col, select

from service.models import Player
from service.ratings.glicko import PROVISIONAL_DEVIATION, Standing, deviation_at, rounded
from service.ratings.models import Rating, RatingChange
from service.ratings.pools import POOL_WORDS, Pool

LEADERBOARD_SIZE = 100
"""The top of a leaderboard."""
ACTIVE_DAYS = 90
"""A leaderboard lists the players with a rated game in this many days."""
AROUND = 5
"""How many places above and below a player "around me" shows."""


@dataclass(frozen=True, slots=True)
class RatingShown:
    """One rating as a reader sees it."""

    pool: Pool
    pool_words: LazyString
    rating: int
    """Rounded."""
    deviation: int
    """Grown to now, rounded."""
    provisional: bool
    """Deviation of ``PROVISIONAL_DEVIATION`` or more: shown with a ``?``."""
    games: int

    @property
    def text(self) -> str:
        """``1623``, or ``1500?`` while provisional."""
        return f"{self.rating}?" if self.provisional else str(self.rating)


def shown(row: Rating, now: datetime) -> RatingShown:
    """``row`` as read at ``now``."""
    deviation = deviation_at(Standing(row.rating, row.deviation, row.volatility, row.rated_at), now)
    pool = Pool(row.pool)
    return RatingShown(
        pool=pool,
        pool_words=POOL_WORDS[pool],
        rating=rounded(row.rating),
        deviation=rounded(deviation),
        provisional=deviation >= PROVISIONAL_DEVIATION,
        games=row.games,
    )


@dataclass(frozen=True, slots=True)
class ComputerRating:
    level: str
    rating: RatingShown


def computer_ratings(session: Session, now: datetime) -> list[ComputerRating]:
    """The rating of each of the computer's levels that has one, in the Battle Line pool."""
    rows = session.exec(
        select(Rating, Player.computer)
        .join(Player, col(Player.id) == col(Rating.player_id))
        .where(col(Player.computer).is_not(None), Rating.pool == Pool.BATTLE_LINE)
        .order_by(col(Rating.rating))
    ).all()
    return [ComputerRating(level, shown(row, now)) for row, level in rows if level is not None]


@dataclass(frozen=True, slots=True)
class HistoryPoint:
    """A player's rating after one counted game."""

    at: datetime
    rating: int


def history_of(changes: Sequence[RatingChange]) -> list[HistoryPoint]:
    """The history made by these counted changes, oldest first."""
    if not changes:
        return []
    first = changes[0]
    points = [HistoryPoint(first.created_at, rounded(first.before))]
    points += [HistoryPoint(c.created_at, rounded(c.after)) for c in changes]
    return points


@dataclass(frozen=True, slots=True)
class Place:
    """A line of a leaderboard."""

    place: int
    player_id: int
    name: str
    rating: RatingShown
    is_me: bool


@dataclass(frozen=True, slots=True)
class Leaderboard:
    pool: Pool
    pool_words: LazyString
    top: list[Place]
    around_me: list[Place]
    """Empty unless the reader is on it below the top."""


def leaderboard(session: Session, pool: Pool, now: datetime, me: int | None) -> Leaderboard:
    """A pool's established ratings (not provisional) of players with a rated game in the last
    ``ACTIVE_DAYS`` days, best first: the top ``LEADERBOARD_SIZE``, and the places around
    ``me`` when they are on it further down."""
    rows = session.exec(
        select(Rating, Player.display_name)
        .join(Player, col(Player.id) == col(Rating.player_id))
        .where(
            Rating.pool == pool,
            col(Rating.rated_at) >= now - timedelta(days=ACTIVE_DAYS),
            col(Rating.deviation) < PROVISIONAL_DEVIATION,
            col(Player.closed_at).is_(None),
        )
        .order_by(col(Rating.rating).desc(), col(Rating.id))
    ).all()
    places: list[Place] = []
    for row, name in rows:
        rating = shown(row, now)
        if rating.provisional:  # grown past the bound since the last game
            continue
        places.append(Place(len(places) + 1, row.player_id, name, rating, row.player_id == me))
    top = places[:LEADERBOARD_SIZE]
    mine = next((p for p in places if p.is_me), None)
    around: list[Place] = []
    if mine is not None and mine.place > LEADERBOARD_SIZE:
        around = places[max(0, mine.place - 1 - AROUND) : mine.place + AROUND]
    return Leaderboard(pool, POOL_WORDS[pool], top, around)


def game_changes(session: Session, game_id: int) -> dict[int, RatingChange]:
    """What a finished game did to each player's rating, by player id (empty when it was not
    rated)."""
    rows = session.exec(select(RatingChange).where(RatingChange.game_id == game_id)).all()
    return {row.player_id: row for row in rows}


@dataclass(frozen=True, slots=True)
class RatingLine:
    """What a game-over email says of the reader's rating."""

    pool_words: str
    """In the reader's language (made while their email is)."""
    verdict: str
    """``Verdict``: counted, too short or annulled."""
    before: int
    after_text: str
    """The new rating, with a ``?`` while provisional."""
    change_text: str
    """Signed: ``+12``, ``-8``, ``0``."""


def rating_line(change: RatingChange) -> RatingLine:
    """``change`` as the reader's game-over email says it."""
    after = rounded(change.after)
    provisional = change.deviation_after >= PROVISIONAL_DEVIATION
    difference = after - rounded(change.before)
    return RatingLine(
        pool_words=str(POOL_WORDS[Pool(change.pool)]),
        verdict=change.verdict,
        before=rounded(change.before),
        after_text=f"{after}?" if provisional else str(after),
        change_text=f"{difference:+d}" if difference else "0",
    )
