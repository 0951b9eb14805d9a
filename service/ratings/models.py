"""The tables of ``service.ratings``.

Imported by ``service/migrations/env.py`` so that Alembic and the schema test see them.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from service.models import UTCDateTime, utcnow


class Rating(SQLModel, table=True):
    """A player's rating in one pool (``service.ratings.pools.Pool``): made at their first rated
    game of that pool, changed by each rated game that ends (``service.ratings.record``)."""

    __tablename__ = "ratings"
    __table_args__ = (
        sa.UniqueConstraint("player_id", "pool"),
        # The leaderboards read a pool's established ratings, best first.
        sa.Index("ix_ratings_pool_rating", "pool", "rating"),
    )

    id: int | None = Field(default=None, primary_key=True)
    player_id: int = Field(foreign_key="players.id")
    pool: str = Field(max_length=16)
    rating: float
    deviation: float
    """Glicko-2's rating deviation (the three-player pool: Weng-Lin's sigma, on the same scale)
    as of ``rated_at``: it grows with the time since (``service.ratings.glicko.deviation_at``)."""
    volatility: float
    games: int = Field(default=0)
    """Rated games that changed this rating."""
    rated_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    """When the last rated game ended (or the row was made)."""


class RatingChange(SQLModel, table=True):
    """What one finished game did to one seat's rating: one row per (game, player), written in
    the transaction that ends the game, so that a second ending (a race with the loss on time)
    can never apply twice. Also a row, with no change, for a rated game that did not count
    (``counted`` False: annulled or too short), so that its reason shows."""

    __tablename__ = "rating_changes"
    __table_args__ = (
        sa.UniqueConstraint("game_id", "player_id"),
        sa.Index("ix_rating_changes_player_id_created_at", "player_id", "created_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id")
    player_id: int = Field(foreign_key="players.id")
    pool: str = Field(max_length=16)
    verdict: str = Field(max_length=16)
    """A ``service.ratings.record.Verdict`` value: counted, or why not."""
    time_loss: bool = Field(default=False)
    """This player lost this game on time (the correspondence annulment rule reads these)."""
    before: float
    after: float
    deviation_after: float
    created_at: datetime = Field(
        default_factory=utcnow,
        sa_type=UTCDateTime,
        sa_column_kwargs={"server_default": sa.func.now()},
        nullable=False,
    )
