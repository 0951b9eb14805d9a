"""The tables of play by reply (``service.inbound``): the secret reply address of each seat and
every email received. In the foundation, so that the game store can make reply keys
(``service.games.reply_keys``) and closing an account (``service.history.closure``) can erase
what came from the player.

Imported by ``service/migrations/env.py`` so that Alembic and the schema test see them.
"""

from __future__ import annotations

from datetime import datetime

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from service.models import UTCDateTime, timestamp_field


class ReplyKey(SQLModel, table=True):
    """The secret of a seat's reply address, ``play+<key>@INBOUND_DOMAIN`` (service.inbound).

    Made for the seat's token generation when its first email of that generation is queued:
    revoking a seat's links (bumping ``Seat.token_generation``) revokes its reply address too,
    and the next email carries a new one."""

    __tablename__ = "reply_keys"
    __table_args__ = (
        sa.UniqueConstraint("seat_id", "generation", name="uq_reply_keys_seat_id_generation"),
    )

    id: int | None = Field(default=None, primary_key=True)
    key: str = Field(max_length=16, unique=True)
    """Short, random, lower case (mail servers may lower-case an address's local part)."""
    seat_id: int = Field(foreign_key="seats.id")
    generation: int
    """The seat's ``token_generation`` this key was made for; any other generation revokes it."""
    created_at: datetime = timestamp_field()


class InboundMessage(SQLModel, table=True):
    """One email received by ``service.inbound.receive``, whatever came of it: the same Message-ID
    is handled once (a second delivery finds its row), and the rows of one sender in the last
    hour are what the per-address limit counts. Kept ``INBOUND_KEEP_DAYS`` (``inbound.prune``)."""

    __tablename__ = "inbound_messages"
    __table_args__ = (
        sa.Index("ix_inbound_messages_sender_received_at", "sender", "received_at"),
        # The pruning of old rows (service.inbound.prune) takes the oldest first.
        sa.Index("ix_inbound_messages_received_at", "received_at"),
        sa.Index("ix_inbound_messages_rate_key_received_at", "rate_key", "received_at"),
    )

    id: int | None = Field(default=None, primary_key=True)
    message_id: str = Field(max_length=250, unique=True)
    """The sender's Message-ID, or ``<sha256 of the bytes@inbound.invalid>`` when it has none."""
    sender: str = Field(default="", max_length=254)
    """The From address, normalised (lower case, no display name); empty when unreadable."""
    received_at: datetime = Field(sa_type=UTCDateTime, nullable=False)
    outcome: str = Field(max_length=32)
    """A ``service.inbound.receive.Outcome`` value: what was done with it."""
    game_id: int | None = Field(default=None, foreign_key="games.id")
    seat: str | None = Field(default=None, max_length=1)
    detail: str = Field(default="", max_length=500)
    """A short note for the operator (the moves applied, the reason of a refusal)."""
    rate_key: str = Field(default="", max_length=64, sa_column_kwargs={"server_default": ""})
    """What the hourly limit counts per (``service.inbound.authentication.rate_key``): sender,
    reply key and whether it was authenticated."""
    held_moves: str | None = Field(default=None, max_length=500)
    """The moves read in a reply whose sender was not proven (notations, a line each): they
    wait for the seat's owner to confirm them by link (``service.inbound.confirm``)."""
    held_message: str | None = Field(default=None, max_length=500)
    """The message that came with ``held_moves`` (``service.present.reply_chat``): kept with
    them once they are confirmed."""
