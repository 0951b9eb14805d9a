"""The tables of ``service.players``.

Imported by ``service/migrations/env.py`` so that Alembic and the schema test see them.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from service.models import UTCDateTime, utcnow


class Block(SQLModel, table=True):
    """``blocker`` wants nothing more to do with ``blocked``: no challenge, pairing or message
    between them, in either direction (``service.players.blocks``)."""

    __tablename__ = "blocks"
    __table_args__ = (sa.UniqueConstraint("blocker_id", "blocked_id"),)

    id: int | None = Field(default=None, primary_key=True)
    blocker_id: int = Field(foreign_key="players.id", index=True)
    blocked_id: int = Field(foreign_key="players.id", index=True)
    created_at: datetime = Field(
        default_factory=utcnow,
        sa_type=UTCDateTime,
        sa_column_kwargs={"server_default": sa.func.now()},
        nullable=False,
    )


MESSAGE_MAX_CHARS = 500
"""The longest message a player may send with a move."""


class GameMessage(SQLModel, table=True):
    """What a seat's player said to the others with their move at ``ply``: private to the
    game's seats (their pages and emails), never on a public page or record. One per seat and
    ply, written in the transaction of the move, so a move sent twice says it once."""

    __tablename__ = "game_messages"
    __table_args__ = (sa.UniqueConstraint("game_id", "seat", "ply"),)

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="games.id", index=True)
    seat: str = Field(max_length=1)
    player_id: int = Field(foreign_key="players.id", index=True)
    ply: int
    """The game's ply when the move it came with was made."""
    body: str = Field(max_length=MESSAGE_MAX_CHARS)
    """Plain text as the player wrote it (control characters taken out); escaped wherever shown."""
    created_at: datetime = Field(
        default_factory=utcnow,
        sa_type=UTCDateTime,
        sa_column_kwargs={"server_default": sa.func.now()},
        nullable=False,
    )
    hidden_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """An operator hid it (``flask moderation hide``): nobody sees it any more."""


class Mute(SQLModel, table=True):
    """``muter`` reads no message of ``muted``, in any game (the muted player is not told)."""

    __tablename__ = "mutes"
    __table_args__ = (sa.UniqueConstraint("muter_id", "muted_id"),)

    id: int | None = Field(default=None, primary_key=True)
    muter_id: int = Field(foreign_key="players.id", index=True)
    muted_id: int = Field(foreign_key="players.id")


class MessageReport(SQLModel, table=True):
    """A player told the operator about a message they received (``flask moderation reports``)."""

    __tablename__ = "message_reports"
    __table_args__ = (sa.UniqueConstraint("message_id", "reporter_id"),)

    id: int | None = Field(default=None, primary_key=True)
    message_id: int = Field(foreign_key="game_messages.id", index=True)
    reporter_id: int = Field(foreign_key="players.id")
    created_at: datetime = Field(
        default_factory=utcnow,
        sa_type=UTCDateTime,
        sa_column_kwargs={"server_default": sa.func.now()},
        nullable=False,
    )
    reviewed_at: datetime | None = Field(default=None, sa_type=UTCDateTime)
    """When an operator dealt with it (hid the message or dismissed the report)."""
