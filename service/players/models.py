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
