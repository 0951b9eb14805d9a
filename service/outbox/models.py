"""The mail tables: the outbox (every email, written in the transaction that causes it) and
per-game mutes. What each address has asked for or done (confirmed, bounced, unsubscribed,
refuses invitations) is ``service.models.AddressStatus``, read with a game's seats.

Imported by ``service/migrations/env.py`` so that Alembic and the schema test see these tables.
"""

from __future__ import annotations

import enum
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from service.models import UTCDateTime, utcnow


class OutboxStatus(enum.StrEnum):
    """Where an outbox row stands."""

    QUEUED = "queued"
    """Waiting for a worker (a first try, or another after a temporary SMTP failure)."""
    SENDING = "sending"
    """Claimed by a worker at ``claimed_at``, which is talking to the SMTP server with no
    transaction open. A claim older than ``MAIL_SENDING_LEASE_S`` belongs to a worker that died
    (or lost the database): the sweep puts the row back in the queue."""
    SENT = "sent"
    """Accepted by the SMTP server; never sent again."""
    FAILED = "failed"
    """Refused for good (a 5xx answer) or given up after ``MAIL_GIVE_UP_AFTER_H``."""


QUEUED_ONLY = "status = 'queued'"
"""The condition of the queue's partial index; the claims state it in the same words
(``service.mail.delivery``), so that the planner can use the index whatever plan it keeps."""
SENDING_ONLY = "status = 'sending'"
SENT_WITH_BODIES = "status = 'sent' AND mime IS NOT NULL"
"""The rows whose bodies the pruning may drop, once sent long enough ago
(``service.outbox.prune``): its index holds those alone, not the rows pruned already."""
TOAST_TUPLE_TARGET = 128


def _now_column(*, nullable: bool = False, index: bool = False) -> Any:
    if nullable:
        return Field(default=None, sa_type=UTCDateTime, nullable=True, index=index)
    return Field(
        default_factory=utcnow,
        sa_type=UTCDateTime,
        sa_column_kwargs={"server_default": sa.func.now()},
        nullable=False,
        index=index,
    )


class OutboxMessage(SQLModel, table=True):
    """One email, fully rendered: a worker only reads it and sends it."""

    __tablename__ = "outbox"
    __table_args__ = (
        sa.CheckConstraint("status IN ('queued', 'sending', 'sent', 'failed')", name="status"),
        # The queue, in the order rows become due (claims, the sweep). Partial: the sent rows,
        # nearly all of them, never enter it, and marking a row sent adds nothing to it.
        sa.Index(
            "ix_outbox_queued_next_attempt_at",
            "next_attempt_at",
            "id",
            postgresql_where=sa.text(QUEUED_ONLY),
            sqlite_where=sa.text(QUEUED_ONLY),
        ),
        # The sweep's reclaim: rows left "sending" by a worker that died, claimed long ago.
        sa.Index(
            "ix_outbox_sending_claimed_at",
            "claimed_at",
            postgresql_where=sa.text(SENDING_ONLY),
            sqlite_where=sa.text(SENDING_ONLY),
        ),
        # The pruning's search (service.outbox.prune): the sent rows that still have bodies,
        # oldest sent first; a pruned row leaves it.
        sa.Index(
            "ix_outbox_sent_with_bodies",
            "sent_at",
            postgresql_where=sa.text(SENT_WITH_BODIES),
            sqlite_where=sa.text(SENT_WITH_BODIES),
        ),
        # The thread root of a game for one recipient.
        sa.Index("ix_outbox_game_id_player_id", "game_id", "player_id"),
        # The bodies (several KB) out of line, in the TOAST table: a change of status then
        # rewrites a row of a hundred bytes, not the whole email (less write-ahead log and CPU
        # of PostgreSQL per email: docs/architecture.md).
        {"postgresql_with": {"toast_tuple_target": TOAST_TUPLE_TARGET}},
    )

    id: int | None = Field(default=None, primary_key=True)
    recipient: str = Field(max_length=254)
    """The address the email goes to."""
    recipient_name: str = Field(max_length=40)
    player_id: int | None = Field(default=None, foreign_key="players.id")
    game_id: int | None = Field(default=None, foreign_key="games.id")
    kind: str = Field(max_length=32)
    """A ``service.outbox.kinds.MailKind`` value."""
    subject: str = Field(max_length=200)
    text_body: str | None = Field(sa_type=sa.Text, nullable=True)
    """The text part; None once the row was sent ``OUTBOX_KEEP_BODIES_DAYS`` ago (pruned, as
    ``html_body`` and ``mime``)."""
    html_body: str | None = Field(sa_type=sa.Text, nullable=True)
    message_id: str = Field(max_length=250, unique=True)
    """``<...@domain>``; the same on every attempt, so a receiver can drop a repeat."""
    headers: dict[str, str] = Field(default_factory=dict, sa_type=sa.JSON, nullable=False)
    """Every header besides From, To, Subject, Date and Message-ID (threading, unsubscribe,
    Auto-Submitted), each checked for line breaks when queued."""
    mime: str | None = Field(sa_type=sa.Text, nullable=True)
    """The whole message as it goes over the wire (ASCII), built when queued: every attempt
    sends exactly these bytes (``service.outbox.mime``). Only a sent row loses it (pruned)."""
    status: str = Field(default=OutboxStatus.QUEUED, max_length=16)
    attempts: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    """Claims so far (each claim is one attempt, also one cut short by a dead worker)."""
    last_error: str | None = Field(default=None, sa_type=sa.Text)
    created_at: datetime = _now_column()
    next_attempt_at: datetime = _now_column()
    """When the sweep may try this row (again): a little after creation (the row's own deliver
    task goes first), then by backoff after each temporary failure."""
    sent_at: datetime | None = _now_column(nullable=True)
    claimed_at: datetime | None = _now_column(nullable=True)
    """When a worker last claimed the row (status ``sending``) to send it; kept afterwards."""
    ply: int | None = Field(default=None)
    """The game's ply when this email was queued (emails of a game): a reply to it by email is
    meant for that position (``service.inbound``), and is stale once the game has moved on."""


class GameMute(SQLModel, table=True):
    """A player wants no more email about one game (the pages still work)."""

    __tablename__ = "game_mutes"

    player_id: int = Field(foreign_key="players.id", primary_key=True)
    game_id: int = Field(foreign_key="games.id", primary_key=True)
    created_at: datetime = _now_column()


class NoticeDay(SQLModel, table=True):
    """A notice one person caused another to receive (``kind``) about a game on a day (UTC):
    the primary key lets one through a day (``service.outbox.notice_days``)."""

    __tablename__ = "notice_days"

    kind: str = Field(max_length=32, primary_key=True)
    recipient_id: int = Field(foreign_key="players.id", primary_key=True)
    game_id: int = Field(foreign_key="games.id", primary_key=True)
    day: date = Field(primary_key=True)
