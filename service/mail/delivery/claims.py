"""Claiming outbox rows: each claim is one short transaction that sets the rows it takes to
``sending`` (``claimed_at``, ``attempts + 1``) under ``SELECT ... FOR UPDATE SKIP LOCKED``
(PostgreSQL; on SQLite every transaction begins with ``BEGIN IMMEDIATE``), so that other workers
leave them alone until the lease is over; and taking back the rows whose lease is over."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import sqlalchemy as sa
from flask import current_app

from service.db import get_engine, session_scope
from service.models import utcnow
from service.outbox.models import OutboxStatus
from service.outbox.picked_rows import OUTBOX, PICK, ROW, picked, status_is

logger = logging.getLogger(__name__)


def lease() -> timedelta:
    """How long a claim (``sending``) is good for: ``MAIL_SENDING_LEASE_S``.

    It must exceed the longest SMTP exchange, plus the clock difference between worker hosts
    (``claimed_at`` is the claiming worker's clock, compared with the sweeping worker's).
    """
    return timedelta(seconds=float(current_app.config["MAIL_SENDING_LEASE_S"]))


@dataclass(frozen=True)
class Claim:
    """A row this worker has claimed (committed as ``sending``), with what sending it needs."""

    id: int
    attempts: int
    """The row's attempts after this claim: it tells this claim from a later one."""
    player_id: int | None
    recipient: str
    recipient_name: str
    mime: str
    created_at: datetime
    claimed_at: datetime
    deadline: float
    """``time.monotonic()`` at which the exchange stops: a tenth of the lease (at most 5 s) before
    the lease ends, to leave time for recording the result."""
    start_by: float = float("inf")
    """``time.monotonic()`` after which the row, if not started yet, is released rather than
    sent (half the lease): a batch's later rows still get most of their lease."""


CLAIM_BATCH = 20
"""The most rows claimed in one transaction (by a deliver task, a sweep or a drain) and sent one
after the other over one SMTP connection: one commit for several rows, and few enough that two
workers share a backlog and that the last row of a claim starts well within its lease."""


# The statements of a delivery (here and in ``recording``, ``recorder``), built once (building
# them per call cost more than running them).
QUEUED = status_is(OutboxStatus.QUEUED)
"""A picked row is queued (the condition of ``ix_outbox_queued_next_attempt_at``)."""
_SENDING = status_is(OutboxStatus.SENDING)

_CLAIMED = ("id", "attempts", "player_id", "recipient", "recipient_name", "mime", "created_at")
"""The columns a Claim needs, in its order (after ``next_attempt_at``: claimed rows go in the
order they became due)."""


def _claiming(chosen: Any) -> Any:
    """Claim the rows that ``chosen`` (a condition on the id: a locking subquery) gives: params
    ``claim_time``."""
    return (
        sa.update(OUTBOX)
        .where(chosen)
        .values(
            status=OutboxStatus.SENDING,
            claimed_at=sa.bindparam("claim_time"),
            attempts=ROW.attempts + 1,
        )
        .returning(ROW.next_attempt_at, *(ROW[name] for name in _CLAIMED))
    )


_CLAIMABLE = sa.or_(
    QUEUED,
    sa.and_(
        _SENDING,
        PICK.claimed_at <= sa.bindparam("expired_before"),
    ),
)
"""Queued, or its claim expired."""

_CLAIM_LISTED = _claiming(
    picked(
        PICK.id.in_(sa.bindparam("row_ids", expanding=True)),
        _CLAIMABLE,
        order_by=(PICK.id,),
        batch=True,
    )
)
"""Claim the first ``batch`` of the listed rows that are queued or whose claim expired."""

_CLAIM_DUE = _claiming(
    picked(
        QUEUED,
        PICK.next_attempt_at <= sa.bindparam("due_by"),
        order_by=(PICK.next_attempt_at, PICK.id),
        batch=True,
    )
)
"""Claim the ``batch`` queued rows due first."""

_CLAIM_UNTRIED = _claiming(
    picked(QUEUED, PICK.attempts == 0, order_by=(PICK.next_attempt_at, PICK.id), batch=True)
)
"""Claim the ``batch`` oldest queued rows never tried, whatever their next attempt time (their
own deliver tasks are on their way: those will find them taken). In the order of the queue's
index (``ix_outbox_queued_next_attempt_at``), which is the order they were queued in."""

_RECLAIM = (
    sa.update(OUTBOX)
    .where(picked(_SENDING, PICK.claimed_at <= sa.bindparam("expired_before")))
    .values(
        status=OutboxStatus.QUEUED,
        last_error="claim expired: the worker did not finish within the lease",
    )
    .returning(ROW.id)
)
"""Queue again the rows left ``sending`` past the lease (``ix_outbox_sending_claimed_at``)."""


def _claim_all(statement: Any, **params: Any) -> list[Claim]:
    """Run a claiming statement in one short transaction; the Claims, due first."""
    now = utcnow()
    started = time.monotonic()
    held = lease().total_seconds()
    # A Core connection, not an ORM session: the statement returns plain rows, and a session
    # costs much of a delivery's own CPU (docs/architecture.md, measured).
    with get_engine().begin() as connection:
        found = connection.execute(statement, {"claim_time": now, **params}).all()
    deadline = started + held - min(5.0, held / 10)
    claims = []
    for _, row_id, attempts, player_id, recipient, name, mime, created_at in sorted(found):
        claims.append(Claim(
            id=row_id, attempts=attempts, player_id=player_id, recipient=recipient,
            recipient_name=name, mime=mime, created_at=created_at, claimed_at=now,
            deadline=deadline, start_by=started + held / 2,
        ))  # fmt: skip
    return claims


def reclaim_expired() -> list[int]:
    """Put back in the queue every ``sending`` row whose claim is older than the lease (its
    worker died or lost the database), keeping its next attempt time (long past: it goes first).
    Served by ``ix_outbox_sending_claimed_at``."""
    with session_scope() as session:
        ids = [
            row_id
            for (row_id,) in session.exec(_RECLAIM, params={"expired_before": utcnow() - lease()})
        ]
    if ids:
        logger.warning(
            "outbox rows %s were left 'sending' past the lease: queued again (same Message-ID)",
            ids,
        )
    return ids


def claim_listed(row_ids: Sequence[int], batch: int) -> list[Claim]:
    """Claim the first ``batch`` of the listed rows that are queued (whatever their next attempt
    time) or whose claim expired."""
    return _claim_all(
        _CLAIM_LISTED, row_ids=list(row_ids), batch=batch, expired_before=utcnow() - lease()
    )


def claim_due(due_by: datetime, batch: int) -> list[Claim]:
    """Claim the ``batch`` queued rows due first (``next_attempt_at`` by ``due_by``)."""
    return _claim_all(_CLAIM_DUE, due_by=due_by, batch=batch)


def claim_untried(batch: int) -> list[Claim]:
    """Claim the ``batch`` oldest queued rows never tried, whatever their next attempt time."""
    return _claim_all(_CLAIM_UNTRIED, batch=batch)
