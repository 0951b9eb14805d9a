"""Outbox rows that one statement changes, picked by a subquery that locks them and skips the
rows other transactions hold: workers claiming, recording and the beat pruning never wait for
each other's rows. Core, on the table: the ORM adds nothing to single UPDATE statements."""

from __future__ import annotations

from typing import Any

import sqlalchemy as sa

from service.outbox.models import OutboxMessage, OutboxStatus

OUTBOX: sa.Table = OutboxMessage.__table__  # type: ignore[attr-defined]
ROW = OUTBOX.c
"""The columns of the rows a statement changes."""
PICK = OUTBOX.alias("candidate").c
"""The columns of the rows a statement's locking subquery picks."""


def status_is(status: OutboxStatus) -> Any:
    """``candidate.status = '<status>'`` with the value written in the statement, as the partial
    indexes' conditions say it: with a bound parameter instead, a plan PostgreSQL keeps for the
    statement could not use those indexes."""
    return PICK.status == sa.literal(status.value, literal_execute=True)


def picked(*conditions: Any, order_by: tuple[Any, ...] = (), batch: bool = False) -> Any:
    """``id IN`` the locking subquery: the rows meeting ``conditions``, in ``order_by``, the
    first ``batch`` of them (the bound parameter) when ``batch`` is set."""
    chosen = sa.select(PICK.id).where(*conditions).order_by(*order_by)
    if batch:
        chosen = chosen.limit(sa.bindparam("batch"))
    return ROW.id.in_(chosen.with_for_update(skip_locked=True))
