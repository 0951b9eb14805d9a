"""The table of open challenges and standing requests (posted and taken in
``service.lobby.challenges``). In the foundation, so that closing an account (``withdraw_all``)
and suspending a player (``withdraw_open``) can withdraw theirs.

Imported by ``service/migrations/env.py`` so that Alembic and the schema test see them.
"""

from __future__ import annotations

import enum
from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, Session, SQLModel, col, select

from service.models import UTCDateTime, utcnow


class ChallengeKind(enum.StrEnum):
    OPEN = "open"
    """Listed in the lobby until someone accepts it."""
    AUTOMATCH = "automatch"
    """Not listed: paired with the next compatible standing request ("find me an opponent")."""


class ChallengeStatus(enum.StrEnum):
    OPEN = "open"
    """Waiting (until ``expires_at``)."""
    TAKEN = "taken"
    """Accepted or paired: ``game_id`` is the game it made."""
    WITHDRAWN = "withdrawn"
    """Taken back by its poster."""
    EXPIRED = "expired"
    """Past ``expires_at`` untaken, as the beat task marks it (until then the lobby's WHERE on
    ``expires_at`` already hides it)."""


class Challenge(SQLModel, table=True):
    """A player's offer of a game to anyone: the settings, and who took it."""

    __tablename__ = "challenges"
    __table_args__ = (
        # The lobby's page: open challenges of a variant, newest first, not expired.
        sa.Index("ix_challenges_lobby", "kind", "status", "ruleset", "days_per_move", "id"),
        sa.Index("ix_challenges_poster_status", "poster_id", "status"),
        sa.Index("ix_challenges_renew", "renew_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    kind: str = Field(max_length=16)
    """A ``ChallengeKind``."""
    status: str = Field(max_length=16)
    """A ``ChallengeStatus``; an open challenge past ``expires_at`` counts as gone."""
    poster_id: int = Field(foreign_key="players.id")
    ruleset: str = Field(max_length=32)
    claims: str = Field(max_length=16)
    days_per_move: int
    message: str | None = Field(default=None, max_length=500)
    """Plain text, escaped wherever it is shown."""
    played_only: bool = False
    """Only a player the poster has played before may accept it."""
    keep_going: bool = False
    """A standing request renewed when its game ends ("always keep one game going")."""
    rated: bool = Field(default=False, sa_column_kwargs={"server_default": sa.false()})
    """The game it makes is rated (``service.ratings``), else casual."""
    expires_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    taken_by_id: int | None = Field(default=None, foreign_key="players.id")
    game_id: int | None = Field(default=None, foreign_key="games.id")
    renew_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """Set on a taken ``keep_going`` request: when the beat sweep next checks whether its game
    ended (then a fresh request is posted and this is cleared)."""
    created_at: datetime = Field(
        default_factory=utcnow,
        sa_type=UTCDateTime,
        sa_column_kwargs={"server_default": sa.func.now()},
        nullable=False,
    )


def withdraw_open(session: Session, player_id: int) -> int:
    """A player's open challenges and standing requests withdrawn, and none of theirs renewed
    again (a suspension, or a closing account); the number withdrawn."""
    withdrawn = 0
    for row in session.exec(select(Challenge).where(col(Challenge.poster_id) == player_id)):
        if row.status == ChallengeStatus.OPEN:
            row.status = ChallengeStatus.WITHDRAWN
            withdrawn += 1
        row.keep_going, row.renew_at = False, None
        session.add(row)
    return withdrawn


def withdraw_all(session: Session, player_id: int) -> int:
    """A closing account's challenges: withdrawn as by ``withdraw_open``, and every message
    erased; the number withdrawn."""
    withdrawn = withdraw_open(session, player_id)
    for row in session.exec(select(Challenge).where(col(Challenge.poster_id) == player_id)):
        row.message = None
        session.add(row)
    return withdrawn
