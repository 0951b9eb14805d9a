"""Forgetting old received emails (``INBOUND_KEEP_DAYS``, 30 by default).

A row of ``inbound_messages`` is read for three things: its Message-ID, so that a message
delivered again (a sending server retries for up to about five days; a mailbox whose mark was
lost) is received once; its sender and time, for the per-address hourly limit; and the operator's
note of what came of it. Past the setting none of them needs it, so the beat task
(``worker.prune_inbound``) deletes rows received before then, in short transactions of at most
``INBOUND_PRUNE_BATCH`` rows, oldest first, found by the index ``ix_inbound_messages_received_at``.
"""

from __future__ import annotations

from datetime import datetime, timedelta

import sqlalchemy as sa
from flask import current_app

from service.inbound_models import InboundMessage
from service.models import utcnow
from service.pruning import PruneReport, prune_batch, prune_batches

PRUNE_TASK = "worker.prune_inbound"
"""The Celery name of the beat task that prunes (``worker.inbound_tasks.prune_inbound``)."""

_INBOUND: sa.Table = InboundMessage.__table__  # type: ignore[attr-defined]
_PICK = _INBOUND.alias("candidate").c

_PRUNE = sa.delete(_INBOUND).where(
    _INBOUND.c.id.in_(
        sa.select(_PICK.id)
        .where(_PICK.received_at < sa.bindparam("before"))
        .order_by(_PICK.received_at)
        .limit(sa.bindparam("batch"))
        .with_for_update(skip_locked=True)
    )
)


def keep_received() -> timedelta:
    """How long a received email's row is kept: ``INBOUND_KEEP_DAYS``."""
    return timedelta(days=float(current_app.config["INBOUND_KEEP_DAYS"]))


def prune_received(
    now: datetime | None = None, *, keep: timedelta | None = None, batch: int | None = None
) -> PruneReport:
    """Delete at most ``batch`` rows (``INBOUND_PRUNE_BATCH``) received before ``now`` (default:
    the clock) minus ``keep`` (``INBOUND_KEEP_DAYS``), oldest first, in one short transaction.
    Rows another transaction holds are skipped (PostgreSQL)."""
    size = int(current_app.config["INBOUND_PRUNE_BATCH"]) if batch is None else batch
    before = (now or utcnow()) - (keep_received() if keep is None else keep)
    return prune_batch(_PRUNE, before, size)


def prune_due(batches: int | None = None) -> PruneReport:
    """``prune_received`` batch after batch while batches are full, at most ``batches``
    (``INBOUND_PRUNE_BATCHES_PER_RUN``): what the beat task does in one run."""
    most = int(current_app.config["INBOUND_PRUNE_BATCHES_PER_RUN"]) if batches is None else batches
    return prune_batches(prune_received, most)
