"""Recording what became of a claimed row, each record its own short transaction, tried again a
few times on a database error (each is idempotent): failed for good or queued again after its
backoff (``record_failure``), given back untried (``release``), and the rows waiting on a backoff
made due after a success (``pull_forward``). A record touches the row only while the claim it
was made under still holds it (``_STILL_OURS``)."""

from __future__ import annotations

import enum
import logging
import time
from collections.abc import Callable
from datetime import timedelta
from typing import TypeVar

import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session

from service.db import session_scope
from service.mail.delivery.claims import QUEUED, Claim
from service.mail.delivery.smtp import permanent_refusal, row_only
from service.mail.delivery.state import DeliveryState
from service.models import utcnow
from service.outbox.addresses import mark_bouncing
from service.outbox.models import OutboxStatus
from service.outbox.picked_rows import OUTBOX, PICK, ROW, picked

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

DB_ERRORS: tuple[type[Exception], ...] = (sa.exc.OperationalError, sa.exc.InterfaceError)
"""A lost or refused database connection, a deadlock, a busy SQLite: worth one more try."""
RECORD_TRIES = 5
"""How often a result (sent, queued again, failed) is tried on database errors, pausing 0.1 s,
0.2 s, 0.4 s, 0.8 s in between."""


class Outcome(enum.StrEnum):
    """What one attempt at one row came to."""

    SENT = "sent"
    FAILED = "failed"
    """Refused for good; not retried."""
    RETRY = "retry"
    """A temporary failure; the row waits for its ``next_attempt_at``."""
    SKIPPED = "skipped"
    """Not queued any more (sent, failed, or claimed by another worker)."""


def backoff(attempts: int) -> timedelta:
    """How long a row waits after its ``attempts``-th temporary failure."""
    config = current_app.config
    base = float(config["MAIL_RETRY_BACKOFF_S"])
    ceiling = float(config["MAIL_RETRY_BACKOFF_MAX_S"])
    return timedelta(seconds=min(ceiling, base * 2 ** max(0, attempts - 1)))


_PULL_FORWARD = (
    sa.update(OUTBOX)
    .where(picked(QUEUED, PICK.next_attempt_at > sa.bindparam("waiting_after"), PICK.attempts > 0))
    .values(next_attempt_at=sa.bindparam("due_time"))
)
"""Make due the queued rows that wait on a backoff (rows being claimed are skipped)."""

_STILL_OURS = (
    ROW.id == sa.bindparam("row_id"),
    ROW.status == OutboxStatus.SENDING,
    ROW.attempts == sa.bindparam("claim_attempts"),
)
"""The row, still under one claim (not reclaimed and claimed again since)."""

_REQUEUE = (
    sa.update(OUTBOX)
    .where(*_STILL_OURS)
    .values(
        status=OutboxStatus.QUEUED,
        last_error=sa.bindparam("error"),
        next_attempt_at=sa.bindparam("next_attempt"),
    )
)

_FAIL = (
    sa.update(OUTBOX)
    .where(*_STILL_OURS)
    .values(status=OutboxStatus.FAILED, last_error=sa.bindparam("error"))
)

_RELEASE = (
    sa.update(OUTBOX)
    .where(*_STILL_OURS)
    .values(status=OutboxStatus.QUEUED, attempts=ROW.attempts - 1)
)
"""Give back a claimed row that was not tried: queued as it was before the claim."""


def pull_forward() -> int:
    """Make every queued row that waits on a backoff due now (the server answers again); rows
    another worker is claiming are skipped. Returns how many rows moved."""
    now = utcnow()
    with session_scope() as session:
        result = session.exec(_PULL_FORWARD, params={"waiting_after": now, "due_time": now})
        return int(result.rowcount)


def _record(what: str, change: Callable[[Session], _T]) -> _T:
    """Run ``change`` (idempotent) in its own short transaction, up to RECORD_TRIES times while
    the database fails."""

    def attempt() -> _T:
        with session_scope() as session:
            return change(session)

    return retry_on_db_errors(what, attempt)


def retry_on_db_errors(what: str, attempt: Callable[[], _T]) -> _T:
    """``attempt()`` (one idempotent transaction), up to RECORD_TRIES times while the database
    fails."""
    pause = 0.1
    for tries_left in range(RECORD_TRIES - 1, -1, -1):
        try:
            return attempt()
        except DB_ERRORS as error:
            if not tries_left:
                raise
            logger.warning("could not record %s (%s); trying again", what, error)
            time.sleep(pause)
            pause *= 2
    raise AssertionError("unreachable")


def record_failure(
    claim: Claim, error: BaseException, state: DeliveryState
) -> tuple[Outcome, bool]:
    """Record a failure (its own short transaction): the outcome, and whether it was
    recorded."""
    now = utcnow()
    message = f"{type(error).__name__}: {error}"[:2000]
    refused = permanent_refusal(error)
    give_up = timedelta(hours=float(current_app.config["MAIL_GIVE_UP_AFTER_H"]))
    ours = {"row_id": claim.id, "claim_attempts": claim.attempts}
    if refused is not None:
        outcome, reason = Outcome.FAILED, refused.reason[:2000]
        statement, params = _FAIL, {**ours, "error": reason}
        logger.warning("outbox row %s refused for good: %s", claim.id, reason)
    elif now - claim.created_at > give_up:
        outcome = Outcome.FAILED
        statement, params = _FAIL, {**ours, "error": message}
        logger.error("outbox row %s given up after %s attempts", claim.id, claim.attempts)
    else:
        # A temporary refusal of this row alone (greylisting, a full mailbox) says nothing of
        # the server: the next success must not make the row due again at once.
        if not row_only(error):
            state.server_failed()
        outcome = Outcome.RETRY
        next_attempt = now + backoff(claim.attempts)
        statement, params = _REQUEUE, {**ours, "error": message, "next_attempt": next_attempt}
        logger.info("outbox row %s not sent yet (%s)", claim.id, message)

    def put(session: Session) -> None:
        session.exec(statement, params=params)
        if refused is not None and refused.bounce and claim.player_id is not None:
            mark_bouncing(session, claim.player_id, refused.reason)

    try:
        _record(f"outbox row {claim.id} as {outcome.value}", put)
    except DB_ERRORS:
        logger.exception(
            "could not record the result of outbox row %s: it is tried again after the lease",
            claim.id,
        )
        return outcome, False
    return outcome, True


def release(claims: list[Claim]) -> int:
    """Give back claimed rows that were not tried (one short transaction): queued again, their
    attempts and next attempt time as before the claim; how many. On a database error they stay
    ``sending`` until the lease is over, then the sweep queues them again (0)."""
    if not claims:
        return 0
    params = [{"row_id": claim.id, "claim_attempts": claim.attempts} for claim in claims]

    def put(session: Session) -> None:
        session.exec(_RELEASE, params=params)

    ids = [claim.id for claim in claims]
    try:
        _record(f"outbox rows {ids} as released", put)
    except DB_ERRORS:
        logger.exception("could not release outbox rows %s: queued again after the lease", ids)
        return 0
    return len(claims)
