"""Pruning old rows in short batches: the loop the outbox's and the inbound mailbox's beat tasks
share. Each batch is one statement in its own short transaction (rows another transaction holds
are skipped on PostgreSQL), and a run stops at the first batch that was not full."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa

from service.db import get_engine
from service.models import utcnow


@dataclass(frozen=True)
class PruneReport:
    """What pruning did."""

    pruned: int
    """Rows pruned."""
    more: bool
    """The last batch was full: more rows may be due."""


def prune_batch(statement: sa.Executable, before: datetime, size: int) -> PruneReport:
    """Run ``statement`` (bound parameters ``before`` and ``batch``) in one transaction."""
    with get_engine().begin() as connection:
        pruned = int(connection.execute(statement, {"before": before, "batch": size}).rowcount)
    return PruneReport(pruned=pruned, more=pruned >= size > 0)


def prune_batches(prune: Callable[[datetime], PruneReport], most: int) -> PruneReport:
    """``prune`` (one batch up to a moment) batch after batch while batches are full, at most
    ``most`` of them, all up to the same moment: what a beat task does in one run."""
    now = utcnow()
    total, more = 0, False
    for _ in range(most):
        report = prune(now)
        total += report.pruned
        more = report.more
        if not more:
            break
    return PruneReport(pruned=total, more=more)
