"""Dropping the bodies of old sent emails (``OUTBOX_KEEP_BODIES_DAYS``, 30 by default).

Each outbox row keeps its text, its HTML and its MIME bytes, most of what a finished game takes
on disk (docs/architecture.md). Once a row is ``sent`` they are never read
again by the delivery: a sent row is never claimed, and the mail guarantee's repeats come only
from rows that are not ``sent`` (docs/security.md). So a row sent longer ago than the setting
keeps what the rest of the service reads, and only that: the Message-ID (unique: threads and a
receiver's dedupe of repeats), the headers, subject, kind, recipient, player, game and ply
(threading, the limits, replies by email, bounce reports), the status and the times. Its
``text_body``, ``html_body`` and ``mime`` become NULL.

The beat task (``worker.prune_outbox``) does it in short transactions of at most
``OUTBOX_PRUNE_BATCH`` rows, found by the partial index ``ix_outbox_sent_with_bodies`` (the sent
rows that still have bodies, by ``sent_at``), so that it never holds many rows or a long
transaction. On PostgreSQL the space freed is reused by later rows once (auto)vacuum has passed.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from flask import current_app

from service.models import utcnow
from service.outbox.models import OutboxStatus
from service.outbox.picked_rows import OUTBOX, PICK, picked, status_is
from service.pruning import PruneReport, prune_batch, prune_batches

PRUNE_TASK = "worker.prune_outbox"
"""The Celery name of the beat task that prunes (``worker.tasks.prune_outbox``)."""

_PRUNE = (
    sa.update(OUTBOX)
    .where(
        picked(
            # In the words of the index's condition (SENT_WITH_BODIES), so that the planner
            # uses it whatever plan it keeps for the statement.
            status_is(OutboxStatus.SENT),
            PICK.mime.is_not(None),
            PICK.sent_at < sa.bindparam("before"),
            order_by=(PICK.sent_at,),
            batch=True,
        )
    )
    .values(text_body=None, html_body=None, mime=None)
)


def keep_bodies() -> timedelta:
    """How long a sent row keeps its bodies: ``OUTBOX_KEEP_BODIES_DAYS``."""
    return timedelta(days=float(current_app.config["OUTBOX_KEEP_BODIES_DAYS"]))


def prune_bodies(
    now: datetime | None = None, *, keep: timedelta | None = None, batch: int | None = None
) -> PruneReport:
    """Drop the bodies of at most ``batch`` rows (``OUTBOX_PRUNE_BATCH``) sent before ``now``
    (default: the clock) minus ``keep`` (``OUTBOX_KEEP_BODIES_DAYS``), oldest sent first, in
    one short transaction. Rows another transaction holds are skipped (PostgreSQL)."""
    size = int(current_app.config["OUTBOX_PRUNE_BATCH"]) if batch is None else batch
    before = (now or utcnow()) - (keep_bodies() if keep is None else keep)
    return prune_batch(_PRUNE, before, size)


def prune_due(batches: int | None = None) -> PruneReport:
    """``prune_bodies`` batch after batch while batches are full, at most ``batches``
    (``OUTBOX_PRUNE_BATCHES_PER_RUN``) of them: what the beat task does in one run."""
    most = int(current_app.config["OUTBOX_PRUNE_BATCHES_PER_RUN"]) if batches is None else batches
    return prune_batches(prune_bodies, most)
