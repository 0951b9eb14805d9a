"""Sending outbox rows through Flask-Mail: every email reaches the SMTP server, and only once
except in one narrow window, where a repeat carries the same Message-ID and bytes.

One delivery is three steps, and no database transaction is open while the worker talks to the
SMTP server:

1. **Claim** (one short transaction): the row, if it is ``queued`` (or ``sending`` under a claim
   older than ``MAIL_SENDING_LEASE_S``), is locked with ``SELECT ... FOR UPDATE SKIP LOCKED``
   (PostgreSQL; on SQLite every transaction begins with ``BEGIN IMMEDIATE``) and set to
   ``sending`` with ``claimed_at`` and ``attempts + 1``; commit. Other workers leave it alone.
2. **Send** the row's stored bytes (``OutboxMessage.mime``, Message-ID included; never rebuilt).
   The worker stops the exchange a little before its lease runs out (``_SMTP``), so two workers
   never talk to the server about one row at the same time.
3. **Record** the result, each in its own short transaction: ``sent`` right after the server's
   250 (tried again a few times on a database error: it is idempotent); back to ``queued`` with
   its next attempt time after a temporary failure; ``failed`` after a permanent 5xx (and the
   address marked bouncing).

The guarantee. The SMTP server accepts each email exactly once, except when the worker dies, or
loses its connection to the SMTP server (also by a timeout) or to the database, between sending
the end of the message body (the final ".") and the commit of ``sent``: the server may then have
accepted the email while the row still says ``sending`` (or ``queued`` again, after a lost
reply). The row is then sent again, after the lease (or its backoff), with the same Message-ID
and bytes, so a receiver can drop the repeat. A worker lost at any other point leaves a
``queued`` row, or a ``sending`` row the server never accepted, and that row is sent once, later.
No email is lost: the sweep puts a ``sending`` row whose lease is over back in the queue
(``reclaim_expired``). tests/worker/test_kill_points.py kills a worker at 20 points.

Retries. The ``deliver`` task makes one attempt; the beat sweep (every ``MAIL_SWEEP_EVERY_S``) is
the only retry. After a temporary failure a row waits ``backoff`` (capped at
``MAIL_RETRY_BACKOFF_MAX_S``); a sweep stops at its first temporary failure (one probe per sweep
while the server is down), and the first success after failures makes every waiting row due at
once (``pull_forward``). So mail flows again at most ``MAIL_RETRY_BACKOFF_MAX_S +
MAIL_SWEEP_EVERY_S`` (plus the sweep's own run) after the server's return.
"""

from __future__ import annotations

import enum
import logging
import smtplib
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import flask_mail
import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session

from service.db import session_scope
from service.models import utcnow
from service.outbox.addresses import mark_bouncing
from service.outbox.mime import stored_message
from service.outbox.models import OutboxMessage, OutboxStatus

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

DB_ERRORS: tuple[type[Exception], ...] = (sa.exc.OperationalError, sa.exc.InterfaceError)
"""A lost or refused database connection, a deadlock, a busy SQLite: worth one more try."""
RECORD_TRIES = 5
"""How often a result (sent, queued again, failed) is tried on database errors, pausing 0.1 s,
0.2 s, 0.4 s, 0.8 s in between."""


class TransientMailError(Exception):
    """The SMTP server is unreachable or said "try later" (4xx): the row waits for the sweep."""


class LeaseEnding(smtplib.SMTPException):
    """The claim's lease is nearly over: the worker stops talking to the server (temporary)."""


class Outcome(enum.StrEnum):
    """What one attempt at one row came to."""

    SENT = "sent"
    FAILED = "failed"
    """Refused for good; not retried."""
    RETRY = "retry"
    """A temporary failure; the row waits for its ``next_attempt_at``."""
    SKIPPED = "skipped"
    """Not queued any more (sent, failed, or claimed by another worker)."""


@dataclass(frozen=True)
class Refused:
    """A permanent refusal: the row fails; ``bounce`` says the address itself is bad."""

    reason: str
    bounce: bool


def _permanent(error: BaseException) -> Refused | None:
    """A Refused for a 5xx answer about the recipient or the message, else None (try again).

    Connection failures, 4xx answers, and 5xx answers about our own login or sender address are
    temporary for the row: they need the server back or an operator, not a different recipient.
    """
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        if codes and all(code >= 500 for code in codes):
            detail = "; ".join(
                f"{code} {message.decode(errors='replace')}"
                for code, message in error.recipients.values()
            )
            return Refused(reason=f"recipient refused: {detail}", bounce=True)
        return None
    if isinstance(error, smtplib.SMTPDataError) and error.smtp_code >= 500:
        raw = error.smtp_error
        text = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
        return Refused(reason=f"message refused: {error.smtp_code} {text}", bounce=False)
    return None


class _SMTP(smtplib.SMTP):
    """smtplib's client with two additions: every command and reply waits at most until
    ``deadline`` (``time.monotonic()``; None: ``timeout`` alone), and ``data_begun`` says whether
    the DATA command of the current message was sent (after which the server may have it)."""

    deadline: float | None = None
    data_begun: bool = False

    def _bound(self) -> None:
        if self.deadline is None or self.sock is None:
            return
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise LeaseEnding("the claim's lease is nearly over: stopped talking to the server")
        self.sock.settimeout(min(self.timeout, left))

    def send(self, s: ReadableBuffer | str) -> None:
        self._bound()
        super().send(s)

    def getreply(self) -> tuple[int, bytes]:
        self._bound()
        return super().getreply()

    def data(self, msg: ReadableBuffer | str) -> tuple[int, bytes]:
        self.data_begun = True
        return super().data(msg)


class _SMTPSSL(_SMTP, smtplib.SMTP_SSL):
    """``_SMTP`` over implicit TLS (``MAIL_USE_SSL``)."""


# A reused connection the server has dropped fails at once, before any message was accepted.
_STALE_CONNECTION = (smtplib.SMTPServerDisconnected, ConnectionResetError, BrokenPipeError)


class Postman:
    """One SMTP connection, opened on the first send and reused until an error, ``close``, or
    ``keepalive_s`` idle seconds (servers drop idle clients; Postfix after 300 s)."""

    def __init__(self, keepalive_s: float = 0.0) -> None:
        self._connection: flask_mail.Connection | None = None
        self._last_used = 0.0
        self._data_begun = False
        self.keepalive_s = keepalive_s

    def _open(self, deadline: float | None) -> flask_mail.Connection:
        state = current_app.extensions["mail"]
        connection = flask_mail.Connection(state)
        if state.suppress:
            connection.host = None
            return connection
        # Flask-Mail's own configure_host sets no timeout: a stuck server would hold a worker.
        timeout = float(current_app.config["MAIL_TIMEOUT_S"])
        host = _SMTPSSL(timeout=timeout) if state.use_ssl else _SMTP(timeout=timeout)
        host.deadline = deadline
        try:
            host.connect(state.server, state.port or 0)
            if state.use_tls:
                host.starttls()
            if state.username and state.password:
                host.login(state.username, state.password)
        except BaseException:
            host.close()
            raise
        connection.host = host
        return connection

    def send(self, message: flask_mail.Message, *, deadline: float | None = None) -> None:
        """Send one message; any error closes the connection (the next send reconnects).

        A kept connection that the server dropped is replaced once, at once, if it failed before
        the message's DATA command (after it, the server may have the message). ``deadline``
        (``time.monotonic()``) ends the exchange with LeaseEnding when it comes.
        """
        now = time.monotonic()
        if self._connection is not None and now - self._last_used > self.keepalive_s:
            self.close()
        reused = self._connection is not None
        try:
            self._send(message, deadline)
        except _STALE_CONNECTION:
            if not reused or self._data_begun:
                raise
            self._send(message, deadline)
        self._last_used = time.monotonic()

    def _send(self, message: flask_mail.Message, deadline: float | None) -> None:
        self._data_begun = False
        if self._connection is None:
            self._connection = self._open(deadline)
        host = self._connection.host
        if isinstance(host, _SMTP):
            host.deadline = deadline
            host.data_begun = False
        try:
            self._connection.send(message)
        except BaseException:
            self._data_begun = isinstance(host, _SMTP) and host.data_begun
            self.close()
            raise
        finally:
            if isinstance(host, _SMTP):
                host.deadline = None
                if host.sock is not None:
                    host.sock.settimeout(host.timeout)  # a kept connection: timeout alone again

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is None or connection.host is None:
            return
        try:
            connection.host.quit()
        except (smtplib.SMTPException, OSError):
            connection.host.close()

    def __enter__(self) -> Postman:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


_worker_postman: Postman | None = None


def worker_postman() -> Postman:
    """The connection a worker process keeps between its deliveries (``MAIL_KEEPALIVE_S``)."""
    global _worker_postman
    if _worker_postman is None:
        _worker_postman = Postman(float(current_app.config["MAIL_KEEPALIVE_S"]))
    return _worker_postman


def backoff(attempts: int) -> timedelta:
    """How long a row waits after its ``attempts``-th temporary failure."""
    config = current_app.config
    base = float(config["MAIL_RETRY_BACKOFF_S"])
    ceiling = float(config["MAIL_RETRY_BACKOFF_MAX_S"])
    return timedelta(seconds=min(ceiling, base * 2 ** max(0, attempts - 1)))


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


# The statements of a delivery, built once (building them per call cost more than running them).
# Core, on the table: the ORM adds nothing to single UPDATE ... RETURNING statements.
_OUTBOX: sa.Table = OutboxMessage.__table__  # type: ignore[attr-defined]
_ROW = _OUTBOX.c
_CANDIDATE = _OUTBOX.alias("candidate")
_PICK = _CANDIDATE.c


_CLAIMED = ("id", "attempts", "player_id", "recipient", "recipient_name", "mime", "created_at")
"""The columns a Claim needs, in its order."""


def _claiming(chosen: Any) -> Any:
    """Claim the row whose id ``chosen`` (a locking subquery) gives: params ``claim_time``."""
    return (
        sa.update(_OUTBOX)
        .where(_ROW.id == chosen)
        .values(
            status=OutboxStatus.SENDING,
            claimed_at=sa.bindparam("claim_time"),
            attempts=_ROW.attempts + 1,
        )
        .returning(*(_ROW[name] for name in _CLAIMED))
    )


_CLAIM_ROW = _claiming(
    sa.select(_PICK.id)
    .where(
        _PICK.id == sa.bindparam("row_id"),
        sa.or_(
            _PICK.status == OutboxStatus.QUEUED,
            sa.and_(
                _PICK.status == OutboxStatus.SENDING,
                _PICK.claimed_at <= sa.bindparam("expired_before"),
            ),
        ),
    )
    .limit(1)
    .with_for_update(skip_locked=True)
    .scalar_subquery()
)
"""Claim one row if it is queued or its claim expired."""

_CLAIM_NEXT_DUE = _claiming(
    sa.select(_PICK.id)
    .where(_PICK.status == OutboxStatus.QUEUED, _PICK.next_attempt_at <= sa.bindparam("due_by"))
    .order_by(_PICK.next_attempt_at, _PICK.id)
    .limit(1)
    .with_for_update(skip_locked=True)
    .scalar_subquery()
)
"""Claim the queued row due first (the index on (status, next_attempt_at))."""

_RECLAIM = (
    sa.update(_OUTBOX)
    .where(
        _ROW.id.in_(
            sa.select(_PICK.id)
            .where(
                _PICK.status == OutboxStatus.SENDING,
                _PICK.claimed_at <= sa.bindparam("expired_before"),
            )
            .with_for_update(skip_locked=True)
        )
    )
    .values(
        status=OutboxStatus.QUEUED,
        last_error="claim expired: the worker did not finish within the lease",
    )
    .returning(_ROW.id)
)
"""Queue again the rows left ``sending`` past the lease (the index on (status, claimed_at))."""

_PULL_FORWARD = (
    sa.update(_OUTBOX)
    .where(
        _ROW.id.in_(
            sa.select(_PICK.id)
            .where(
                _PICK.status == OutboxStatus.QUEUED,
                _PICK.next_attempt_at > sa.bindparam("waiting_after"),
                _PICK.attempts > 0,
            )
            .with_for_update(skip_locked=True)
        )
    )
    .values(next_attempt_at=sa.bindparam("due_time"))
)
"""Make due the queued rows that wait on a backoff (rows being claimed are skipped)."""

_MARK_SENT = (
    sa.update(_OUTBOX)
    .where(_ROW.id == sa.bindparam("row_id"), _ROW.status != OutboxStatus.SENT)
    .values(status=OutboxStatus.SENT, sent_at=sa.bindparam("sent_time"), last_error=None)
)
"""Whatever happened to the row meanwhile, the server has accepted it now."""

_STILL_OURS = (
    _ROW.id == sa.bindparam("row_id"),
    _ROW.status == OutboxStatus.SENDING,
    _ROW.attempts == sa.bindparam("claim_attempts"),
)
"""The row, still under one claim (not reclaimed and claimed again since)."""

_REQUEUE = (
    sa.update(_OUTBOX)
    .where(*_STILL_OURS)
    .values(
        status=OutboxStatus.QUEUED,
        last_error=sa.bindparam("error"),
        next_attempt_at=sa.bindparam("next_attempt"),
    )
)

_FAIL = (
    sa.update(_OUTBOX)
    .where(*_STILL_OURS)
    .values(status=OutboxStatus.FAILED, last_error=sa.bindparam("error"))
)


def _claim(statement: Any, **params: Any) -> Claim | None:
    """Run a claiming statement in one short transaction; the Claim, or None."""
    now = utcnow()
    started = time.monotonic()
    held = lease().total_seconds()
    with session_scope() as session:
        found = session.exec(statement, params={"claim_time": now, **params}).one_or_none()
    if found is None:
        return None
    row_id, attempts, player_id, recipient, name, mime, created_at = found
    return Claim(
        id=row_id, attempts=attempts, player_id=player_id, recipient=recipient,
        recipient_name=name, mime=mime, created_at=created_at, claimed_at=now,
        deadline=started + held - min(5.0, held / 10),
    )  # fmt: skip


def claim_row(outbox_id: int) -> Claim | None:
    """Claim one row if it is queued (whatever its next attempt time) or its claim expired."""
    return _claim(_CLAIM_ROW, row_id=outbox_id, expired_before=utcnow() - lease())


def claim_next_due(due_by: datetime | None = None) -> Claim | None:
    """Claim the queued row due first (``next_attempt_at`` by ``due_by``, default now)."""
    return _claim(_CLAIM_NEXT_DUE, due_by=due_by or utcnow())


def reclaim_expired() -> list[int]:
    """Put back in the queue every ``sending`` row whose claim is older than the lease (its
    worker died or lost the database), keeping its next attempt time (long past: it goes first).
    Served by the index on (status, claimed_at)."""
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
    pause = 0.1
    for tries_left in range(RECORD_TRIES - 1, -1, -1):
        try:
            with session_scope() as session:
                return change(session)
        except DB_ERRORS as error:
            if not tries_left:
                raise
            logger.warning("could not record %s (%s); trying again", what, error)
            time.sleep(pause)
            pause *= 2
    raise AssertionError("unreachable")


# A worker process that saw a temporary failure pulls the waiting rows forward at its next
# success (rows that failed elsewhere do it themselves: their attempts are above 1).
_failed_since_success = False


def _sent(claim: Claim) -> None:
    now = utcnow()

    def mark(session: Session) -> None:
        session.exec(_MARK_SENT, params={"row_id": claim.id, "sent_time": now})

    try:
        _record(f"outbox row {claim.id} as sent", mark)
    except DB_ERRORS:
        logger.exception(
            "outbox row %s was accepted by the SMTP server but could not be marked sent: it is "
            "sent again after the lease, with the same Message-ID",
            claim.id,
        )
        return
    global _failed_since_success
    if claim.attempts > 1 or _failed_since_success:
        _failed_since_success = False
        try:
            moved = pull_forward()
        except DB_ERRORS:
            logger.exception("could not pull the waiting outbox rows forward")
        else:
            if moved:
                logger.info("SMTP answers again: %s waiting outbox rows are due now", moved)


def _not_sent(claim: Claim, error: BaseException) -> tuple[Outcome, str]:
    global _failed_since_success
    now = utcnow()
    message = f"{type(error).__name__}: {error}"[:2000]
    refused = _permanent(error)
    give_up = timedelta(hours=float(current_app.config["MAIL_GIVE_UP_AFTER_H"]))
    ours = {"row_id": claim.id, "claim_attempts": claim.attempts}
    if refused is not None:
        outcome, reason = Outcome.FAILED, refused.reason[:2000]
        statement, params = _FAIL, {**ours, "error": reason}
        logger.warning("outbox row %s refused for good: %s", claim.id, reason)
    elif now - claim.created_at > give_up:
        outcome, reason = Outcome.FAILED, message
        statement, params = _FAIL, {**ours, "error": message}
        logger.error("outbox row %s given up after %s attempts", claim.id, claim.attempts)
    else:
        _failed_since_success = True
        outcome, reason = Outcome.RETRY, message
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
    return outcome, reason


def _attempt(claim: Claim, postman: Postman) -> tuple[Outcome, str | None]:
    message = stored_message(
        current_app.config["MAIL_DEFAULT_SENDER"], claim.recipient_name, claim.recipient,
        claim.mime,
    )  # fmt: skip
    try:
        postman.send(message, deadline=claim.deadline)
    except (smtplib.SMTPException, OSError) as error:
        return _not_sent(claim, error)
    _sent(claim)
    return Outcome.SENT, None


def send_claimed(claim: Claim, postman: Postman) -> Outcome:
    """Send a claimed row with no transaction open, then record the result (short commits).
    Raises nothing for SMTP trouble: the outcome says what happened."""
    return _attempt(claim, postman)[0]


def deliver_one(outbox_id: int, postman: Postman | None = None) -> Outcome:
    """Send one outbox row if it is still queued (or its claim expired). Raises
    TransientMailError after recording a temporary failure on the row (the sweep retries it)."""
    own = postman is None
    postman = postman or Postman()
    try:
        claim = claim_row(outbox_id)
        if claim is None:
            return Outcome.SKIPPED
        outcome, error = _attempt(claim, postman)
    finally:
        if own:
            postman.close()
    if outcome is Outcome.RETRY:
        raise TransientMailError(error or "temporary failure")
    return outcome


@dataclass
class SweepReport:
    """What one sweep did."""

    sent: int = 0
    failed: int = 0
    retry: int = 0
    reclaimed: int = 0
    """Rows left ``sending`` past the lease, queued again (and sent by this sweep if due)."""
    more: bool = False
    """The sweep stopped at its batch size: more rows may be due."""


def sweep(limit: int | None = None, *, due_by: datetime | None = None) -> SweepReport:
    """Queue again the rows whose claim expired, then send queued rows whose ``next_attempt_at``
    has come (by ``due_by``, default now), oldest first, each claimed in its own transaction.

    Rows another worker holds are skipped (SKIP LOCKED). Stops at the first temporary failure:
    the server is likely down, and every row keeps its own next attempt time.
    """
    report = SweepReport(reclaimed=len(reclaim_expired()))
    batch = int(current_app.config["MAIL_SWEEP_BATCH"]) if limit is None else limit
    with Postman() as postman:
        for _ in range(batch):
            claim = claim_next_due(due_by)
            if claim is None:
                break
            outcome = send_claimed(claim, postman)
            if outcome is Outcome.SENT:
                report.sent += 1
            elif outcome is Outcome.FAILED:
                report.failed += 1
            else:
                report.retry += 1
                break
        else:
            report.more = batch > 0
    return report
