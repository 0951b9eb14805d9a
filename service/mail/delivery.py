"""Sending outbox rows to the SMTP server: every email reaches it, and only once except in one
narrow window, where a repeat carries the same Message-ID and bytes.

Rows go in batches: a ``deliver`` task takes the rows of one commit (and then the other rows never
tried, ``deliver_rows``), a sweep the rows that are due, and each sends them one after the other
over one SMTP connection. One delivery is three steps, and no database transaction is open while
the worker talks to the SMTP server:

1. **Claim** (one short transaction for up to ``CLAIM_BATCH`` rows; a single row until the server
   accepted one of the batch, so that a server that is down costs one row's attempt): each row,
   if it is ``queued`` (or ``sending`` under a claim older than ``MAIL_SENDING_LEASE_S``), is
   locked with ``SELECT ... FOR UPDATE SKIP LOCKED`` (PostgreSQL; on SQLite every transaction
   begins with ``BEGIN IMMEDIATE``) and set to ``sending`` with ``claimed_at`` and ``attempts +
   1``; commit. Other workers leave these rows alone.
2. **Send** each row's stored bytes (``OutboxMessage.mime``, Message-ID included; never rebuilt).
   The worker stops an exchange a little before the row's lease runs out (``_SMTP``), so two
   workers never talk to the server about one row at the same time, and a row not started
   within half its lease is given back (``_release``: queued as before its claim).
3. **Record** each result in a short transaction: ``sent`` right after the server's 250, by a
   recorder thread (``_Recorder``) while the worker goes on with the next row (tried again a
   few times on a database error: it is idempotent); back to ``queued`` with its next attempt
   time after a temporary failure; ``failed`` after a permanent 5xx (and the address marked
   bouncing), both at once, before the next row. A refusal of one row (4xx or 5xx to its
   recipient or its message) does not stop the batch; a failure of the server (the connection
   lost or refused, a timeout, a 421, our sender or login refused) or of the database does: the
   rows claimed and not tried are given back, and wait for the sweep.

The guarantee. The SMTP server accepts each email exactly once, except when the worker dies, or
loses its connection to the SMTP server (also by a timeout) or to the database, between sending
the end of a message body (the final ".") and sending that row's ``sent`` to the database (one
statement in autocommit, which PostgreSQL commits even if the worker is gone): the server may
then have accepted the email while the row still says ``sending`` (or ``queued`` again, after a
lost reply). The row is then sent again, after the lease (or its backoff), with the same
Message-ID and bytes, so a receiver can drop the repeat. As ``sent`` is committed while the next
row goes, up to ``UNRECORDED_MAX`` rows of a batch can be in that window at one moment (the row
being sent and the rows whose ``sent`` is not committed yet; the worker waits for the recorder
before going further): a worker lost then can have that many rows sent twice, each with its own
Message-ID, never any other row. A worker lost at any other point leaves ``queued`` rows, or
``sending`` rows the server never accepted, and each is sent once, later. No email is lost: the
sweep puts a ``sending`` row whose lease is over back in the queue (``reclaim_expired``).
tests/worker/test_kill_points.py kills a worker at 20 points of one delivery,
tests/worker/test_delivery_batches.py in the middle of batches.

Retries. A delivery makes one attempt at a row; the beat sweep (every ``MAIL_SWEEP_EVERY_S``) is
the only retry. After a temporary failure a row waits ``backoff`` (capped at
``MAIL_RETRY_BACKOFF_MAX_S``); a sweep stops at its first failure of the server (one probe per
sweep while the server is down), and the first success after failures of the server makes every
waiting row due at once (``pull_forward``; a refusal of one recipient says nothing of the server).
So mail flows again at most ``MAIL_RETRY_BACKOFF_MAX_S + MAIL_SWEEP_EVERY_S`` (plus the sweep's
own run) after the server's return.
"""

from __future__ import annotations

import enum
import functools
import logging
import re
import smtplib
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, Any, TypeVar

import flask_mail
import sqlalchemy as sa
from flask import current_app
from sqlmodel import Session

from service.db import get_engine, session_scope
from service.models import utcnow
from service.outbox.addresses import mark_bouncing
from service.outbox.bounce_address import bounce_address
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
    if isinstance(error, UnicodeError):
        return Refused(reason=f"cannot be sent (not ASCII): {error}", bounce=False)
    if isinstance(error, smtplib.SMTPDataError) and error.smtp_code >= 500:
        raw = error.smtp_error
        text = raw.decode(errors="replace") if isinstance(raw, bytes) else raw
        return Refused(reason=f"message refused: {error.smtp_code} {text}", bounce=False)
    return None


_PLAIN_ADDRESS = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+")
"""An ASCII address with no name, which Flask-Mail's ``sanitize_address`` leaves as it is."""


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
        wanted = min(self.timeout, left)
        if self.sock.gettimeout() != wanted:  # far from the deadline: no system call
            self.sock.settimeout(wanted)

    def send(self, s: ReadableBuffer | str) -> None:
        self._bound()
        super().send(s)

    def getreply(self) -> tuple[int, bytes]:
        self._bound()
        return super().getreply()

    def data(self, msg: ReadableBuffer | str) -> tuple[int, bytes]:
        self.data_begun = True
        return super().data(msg)

    # MAIL FROM and RCPT TO as smtplib sends them, but a plain address (``envelope_address``
    # gives one but for a name or an IDNA domain) is quoted without ``email.utils.parseaddr``,
    # which cost a seventh of a delivery's own CPU (py-spy, bench/mail.py).
    def mail(self, sender: str, options: Sequence[str] = ()) -> tuple[int, bytes]:
        if not _PLAIN_ADDRESS.fullmatch(sender) or any(
            option.lower() == "smtputf8" for option in options
        ):
            return super().mail(sender, options)
        extra = " " + " ".join(options) if options and self.does_esmtp else ""
        self.putcmd("mail", f"FROM:<{sender}>{extra}")
        return self.getreply()

    def rcpt(self, recip: str, options: Sequence[str] = ()) -> tuple[int, bytes]:
        if not _PLAIN_ADDRESS.fullmatch(recip):
            return super().rcpt(recip, options)
        extra = " " + " ".join(options) if options and self.does_esmtp else ""
        self.putcmd("rcpt", f"TO:<{recip}>{extra}")
        return self.getreply()


class _SMTPSSL(_SMTP, smtplib.SMTP_SSL):
    """``_SMTP`` over implicit TLS (``MAIL_USE_SSL``)."""


# A reused connection the server has dropped fails at once, before any message was accepted.
_STALE_CONNECTION = (smtplib.SMTPServerDisconnected, ConnectionResetError, BrokenPipeError)


def envelope_address(address: str) -> str:
    """An address for MAIL FROM or RCPT TO, as Flask-Mail would give it (IDNA domain, encoded
    name). Raises UnicodeError for an address no server could take (a non-ASCII local part)."""
    if _PLAIN_ADDRESS.fullmatch(address):
        return address
    return _sanitized(address)


@functools.lru_cache(maxsize=64)
def _sanitized(address: str) -> str:
    return flask_mail.sanitize_address(address)


@dataclass(frozen=True)
class Wire:
    """A stored message as the server gets it: the envelope and the row's bytes, unchanged."""

    sender: str
    recipient: str
    data: bytes


class Postman:
    """One SMTP connection, opened on the first send and reused until a failure (but a refusal
    of one message), ``close``, or ``keepalive_s`` idle seconds (servers drop idle clients;
    Postfix after 300 s).

    It hands the stored bytes to smtplib itself: Flask-Mail's ``Connection.send`` would build a
    ``Message`` for each (a Message-ID and a DNS lookup of our own name each time, the addresses
    encoded again) only to send the same bytes, a quarter of an exchange's time on loopback.
    ``MAIL_SUPPRESS_SEND`` sends nothing, as there."""

    def __init__(self, keepalive_s: float = 0.0) -> None:
        self._host: _SMTP | None = None
        self._open_ = False
        self._last_used = 0.0
        self._data_begun = False
        self.keepalive_s = keepalive_s

    def _open(self, deadline: float | None) -> _SMTP | None:
        state = current_app.extensions["mail"]
        if state.suppress:
            return None
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
        return host

    def send(self, message: Wire, *, deadline: float | None = None) -> None:
        """Send one message; an error closes the connection (the next send reconnects), but for
        a refusal of this message or its recipient alone (``_row_only``).

        A kept connection that the server dropped is replaced once, at once, if it failed before
        the message's DATA command (after it, the server may have the message). ``deadline``
        (``time.monotonic()``) ends the exchange with LeaseEnding when it comes.
        """
        now = time.monotonic()
        if self._open_ and now - self._last_used > self.keepalive_s:
            self.close()
        reused = self._open_
        try:
            self._send(message, deadline)
        except _STALE_CONNECTION:
            if not reused or self._data_begun:
                raise
            self._send(message, deadline)
        self._last_used = time.monotonic()

    def _send(self, message: Wire, deadline: float | None) -> None:
        self._data_begun = False
        if not self._open_:
            self._host = self._open(deadline)
            self._open_ = True
        host = self._host
        if host is None:
            return  # MAIL_SUPPRESS_SEND
        host.deadline = deadline
        host.data_begun = False
        try:
            host.sendmail(message.sender, [message.recipient], message.data)
        except BaseException as error:
            self._data_begun = host.data_begun
            if not _row_only(error):  # a refusal of this row alone: smtplib reset the session
                self.close()
            raise
        finally:
            host.deadline = None
            if host.sock is not None and host.sock.gettimeout() != host.timeout:
                host.sock.settimeout(host.timeout)  # a kept connection: timeout alone again

    def close(self) -> None:
        host, self._host, self._open_ = self._host, None, False
        if host is None:
            return
        try:
            host.quit()
        except (smtplib.SMTPException, OSError):
            host.close()

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
        _worker_postman = kept_postman()
    return _worker_postman


def kept_postman() -> Postman:
    """A connection kept from one row to the next (``MAIL_KEEPALIVE_S``): a batch's."""
    return Postman(float(current_app.config["MAIL_KEEPALIVE_S"]))


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
    start_by: float = float("inf")
    """``time.monotonic()`` after which the row, if not started yet, is released rather than
    sent (half the lease): a batch's later rows still get most of their lease."""


CLAIM_BATCH = 20
"""The most rows claimed in one transaction (by a deliver task, a sweep or a drain) and sent one
after the other over one SMTP connection: one commit for several rows, and few enough that two
workers share a backlog and that the last row of a claim starts well within its lease."""


# The statements of a delivery, built once (building them per call cost more than running them).
# Core, on the table: the ORM adds nothing to single UPDATE ... RETURNING statements.
_OUTBOX: sa.Table = OutboxMessage.__table__  # type: ignore[attr-defined]
_ROW = _OUTBOX.c
_CANDIDATE = _OUTBOX.alias("candidate")
_PICK = _CANDIDATE.c


def _status_is(status: OutboxStatus) -> Any:
    """``candidate.status = '<status>'`` with the value written in the statement, as the partial
    indexes' conditions say it (``QUEUED_ONLY``, ``SENDING_ONLY``): with a bound parameter
    instead, a plan PostgreSQL keeps for the statement could not use those indexes."""
    return _PICK.status == sa.literal(status.value, literal_execute=True)


_QUEUED = _status_is(OutboxStatus.QUEUED)
_SENDING = _status_is(OutboxStatus.SENDING)

_CLAIMED = ("id", "attempts", "player_id", "recipient", "recipient_name", "mime", "created_at")
"""The columns a Claim needs, in its order (after ``next_attempt_at``: claimed rows go in the
order they became due)."""


def _claiming(chosen: Any) -> Any:
    """Claim the rows that ``chosen`` (a condition on the id: a locking subquery) gives: params
    ``claim_time``."""
    return (
        sa.update(_OUTBOX)
        .where(chosen)
        .values(
            status=OutboxStatus.SENDING,
            claimed_at=sa.bindparam("claim_time"),
            attempts=_ROW.attempts + 1,
        )
        .returning(_ROW.next_attempt_at, *(_ROW[name] for name in _CLAIMED))
    )


_CLAIMABLE = sa.or_(
    _QUEUED,
    sa.and_(
        _SENDING,
        _PICK.claimed_at <= sa.bindparam("expired_before"),
    ),
)
"""Queued, or its claim expired."""

_CLAIM_ROW = _claiming(
    _ROW.id
    == sa.select(_PICK.id)
    .where(_PICK.id == sa.bindparam("row_id"), _CLAIMABLE)
    .limit(1)
    .with_for_update(skip_locked=True)
    .scalar_subquery()
)
"""Claim one row if it is queued or its claim expired."""

_CLAIM_LISTED = _claiming(
    _ROW.id.in_(
        sa.select(_PICK.id)
        .where(_PICK.id.in_(sa.bindparam("row_ids", expanding=True)), _CLAIMABLE)
        .order_by(_PICK.id)
        .limit(sa.bindparam("batch"))
        .with_for_update(skip_locked=True)
    )
)
"""Claim the first ``batch`` of the listed rows that are queued or whose claim expired."""

_CLAIM_NEXT_DUE = _claiming(
    _ROW.id
    == sa.select(_PICK.id)
    .where(_QUEUED, _PICK.next_attempt_at <= sa.bindparam("due_by"))
    .order_by(_PICK.next_attempt_at, _PICK.id)
    .limit(1)
    .with_for_update(skip_locked=True)
    .scalar_subquery()
)
"""Claim the queued row due first (the queue's index, ``ix_outbox_queued_next_attempt_at``)."""

_CLAIM_DUE = _claiming(
    _ROW.id.in_(
        sa.select(_PICK.id)
        .where(_QUEUED, _PICK.next_attempt_at <= sa.bindparam("due_by"))
        .order_by(_PICK.next_attempt_at, _PICK.id)
        .limit(sa.bindparam("batch"))
        .with_for_update(skip_locked=True)
    )
)
"""Claim the ``batch`` queued rows due first."""

_CLAIM_UNTRIED = _claiming(
    _ROW.id.in_(
        sa.select(_PICK.id)
        .where(_QUEUED, _PICK.attempts == 0)
        .order_by(_PICK.next_attempt_at, _PICK.id)
        .limit(sa.bindparam("batch"))
        .with_for_update(skip_locked=True)
    )
)
"""Claim the ``batch`` oldest queued rows never tried, whatever their next attempt time (their
own deliver tasks are on their way: those will find them taken). In the order of the queue's
index (``ix_outbox_queued_next_attempt_at``), which is the order they were queued in."""

_RECLAIM = (
    sa.update(_OUTBOX)
    .where(
        _ROW.id.in_(
            sa.select(_PICK.id)
            .where(
                _SENDING,
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
"""Queue again the rows left ``sending`` past the lease (``ix_outbox_sending_claimed_at``)."""

_PULL_FORWARD = (
    sa.update(_OUTBOX)
    .where(
        _ROW.id.in_(
            sa.select(_PICK.id)
            .where(
                _QUEUED,
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
_MARK_SENT_SQL = (
    f"UPDATE outbox SET status='{OutboxStatus.SENT.value}', sent_at=%(sent_time)s, "
    f"last_error=NULL WHERE id=%(row_id)s AND status <> '{OutboxStatus.SENT.value}'"
)
"""``_MARK_SENT`` as psycopg takes it (``_Recorder._mark_psycopg``; the same change)."""

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

_RELEASE = (
    sa.update(_OUTBOX)
    .where(*_STILL_OURS)
    .values(status=OutboxStatus.QUEUED, attempts=_ROW.attempts - 1)
)
"""Give back a claimed row that was not tried: queued as it was before the claim."""


def _claim_all(statement: Any, **params: Any) -> list[Claim]:
    """Run a claiming statement in one short transaction; the Claims, due first."""
    now = utcnow()
    started = time.monotonic()
    held = lease().total_seconds()
    # A Core connection, not an ORM session: the statement returns plain rows, and the session
    # cost a fifth of a delivery's own CPU (py-spy, bench/mail.py).
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


def _claim(statement: Any, **params: Any) -> Claim | None:
    """Run a statement that claims one row at most; the Claim, or None."""
    claims = _claim_all(statement, **params)
    return claims[0] if claims else None


def claim_row(outbox_id: int) -> Claim | None:
    """Claim one row if it is queued (whatever its next attempt time) or its claim expired."""
    return _claim(_CLAIM_ROW, row_id=outbox_id, expired_before=utcnow() - lease())


def claim_next_due(due_by: datetime | None = None) -> Claim | None:
    """Claim the queued row due first (``next_attempt_at`` by ``due_by``, default now)."""
    return _claim(_CLAIM_NEXT_DUE, due_by=due_by or utcnow())


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

    return _retry(what, attempt)


def _retry(what: str, attempt: Callable[[], _T]) -> _T:
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


# A worker process that saw a temporary failure of the server pulls the waiting rows forward at
# its next success (rows that failed elsewhere do it themselves: their attempts are above 1).
_failed_since_success = False


@dataclass(frozen=True)
class _Accepted:
    """A claimed row the server accepted (its 250), to be recorded sent."""

    claim: Claim
    sent_time: datetime
    pull: bool
    """Its success follows failures: pull the waiting rows forward once it is recorded."""


def _accept(claim: Claim) -> _Accepted:
    """The server accepted ``claim`` now (decided here, in the sending thread: a failure of the
    next row must not be pulled forward by this row's record)."""
    global _failed_since_success
    pull = _failed_since_success or claim.attempts > 1
    _failed_since_success = False
    return _Accepted(claim, utcnow(), pull)


_Params = list[dict[str, Any]]


def _mark_in_session(params: _Params) -> None:
    with session_scope() as session:
        session.exec(_MARK_SENT, params=params)


def _record_sent(
    accepted: list[_Accepted], mark: Callable[[_Params], None] = _mark_in_session
) -> bool:
    """Record rows sent (``mark``: one short transaction, tried again on database errors);
    whether that was recorded."""
    params = [{"row_id": item.claim.id, "sent_time": item.sent_time} for item in accepted]
    ids = [item.claim.id for item in accepted]
    global _failed_since_success
    pull = any(item.pull for item in accepted)
    try:
        _retry(f"outbox rows {ids} as sent", lambda: mark(params))
    except DB_ERRORS:
        logger.exception(
            "outbox rows %s were accepted by the SMTP server but could not be marked sent: they "
            "are sent again after the lease, with the same Message-IDs",
            ids,
        )
        _failed_since_success = _failed_since_success or pull
        return False
    if pull:
        try:
            moved = pull_forward()
        except DB_ERRORS:
            logger.exception("could not pull the waiting outbox rows forward")
        else:
            if moved:
                logger.info("SMTP answers again: %s waiting outbox rows are due now", moved)
    return True


def _sent(claim: Claim) -> bool:
    """Record the row sent (its own short transaction); whether that was recorded."""
    return _record_sent([_accept(claim)])


UNRECORDED_MAX = 2
"""The most rows of a batch in the window of a repeat at one moment: the row being sent and the
rows the server accepted before it whose ``sent`` is not committed yet (before each row the
worker waits until at most ``UNRECORDED_MAX - 1`` are). 2: one row's ``sent`` is committed while
the next row goes."""


class _Recorder:
    """Records ``sent`` for a batch's rows in a thread of its own, so that the commit of one
    row's result (a round trip to the database and a disk flush) overlaps the SMTP
    exchange of the next row instead of following it. Each row goes in the first transaction
    that starts after its 250 (the rows that came meanwhile, if ``UNRECORDED_MAX`` lets more
    than one wait, go together). Before each row the sender waits until at most
    ``UNRECORDED_MAX - 1`` rows are unrecorded, and it stops once a record failed
    (``failed``)."""

    def __init__(self) -> None:
        self._app = current_app._get_current_object()  # type: ignore[attr-defined]
        self._changed = threading.Condition()
        self._waiting: list[_Accepted] = []
        self._recording = 0
        self._closing = False
        self._thread: threading.Thread | None = None
        self._connection: sa.Connection | None = None
        self._raw: Any = None
        self.failed = False

    def accepted(self, claim: Claim) -> None:
        """The server accepted this row: record it sent as soon as possible."""
        item = _accept(claim)
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="outbox-recorder", daemon=True
                )
                self._thread.start()
            self._waiting.append(item)
            self._changed.notify_all()

    def settle(self, most: int = 0) -> bool:
        """Wait until at most ``most`` accepted rows are unrecorded; whether every record so far
        was committed."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._waiting) + self._recording <= most)
            return not self.failed

    def close(self) -> bool:
        """Record what is left and end the thread; whether every record was committed."""
        recorded = self.settle()
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join()
        return recorded

    def _mark(self, params: _Params) -> None:
        """One transaction on a connection kept for the batch (no ORM session, no pool check
        per record: less than half the time of ``session_scope``); a new connection after a
        database error. On psycopg, straight on the driver (``_mark_psycopg``)."""
        engine = get_engine()
        if engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg":
            self._mark_psycopg(engine, params)
            return
        if self._connection is None:
            self._connection = engine.connect()
        try:
            with self._connection.begin():
                self._connection.execute(_MARK_SENT, params[0] if len(params) == 1 else params)
        except BaseException:
            self._connection.close()
            self._connection = None
            raise

    def _mark_psycopg(self, engine: sa.Engine, params: _Params) -> None:
        """``_MARK_SENT_SQL`` straight on psycopg: the recorder holds the interpreter lock little
        more than half as long as through SQLAlchemy's execution, and the sender, which needs it
        at each SMTP reply, waits less (bench/mail.py). Database errors come out as
        SQLAlchemy's, as from ``_mark``.

        The connection is in autocommit while the recorder has it: each mark is one statement,
        its own transaction, in one round trip instead of three (BEGIN, UPDATE, COMMIT). Several
        rows go as several such statements (``executemany``): each mark stands alone."""
        if self._raw is None:
            self._raw = engine.raw_connection()
            self._raw.driver_connection.autocommit = True
        connection = self._raw.driver_connection
        process = _ROW.sent_at.type.bind_processor(engine.dialect)
        rows = [
            {
                "row_id": row["row_id"],
                "sent_time": process(row["sent_time"]) if process else row["sent_time"],
            }
            for row in params
        ]
        dbapi = engine.dialect.loaded_dbapi
        try:
            with connection.cursor() as cursor:
                if len(rows) == 1:
                    cursor.execute(_MARK_SENT_SQL, rows[0])
                else:
                    cursor.executemany(_MARK_SENT_SQL, rows)
        except (dbapi.OperationalError, dbapi.InterfaceError) as error:
            self._raw.invalidate()
            self._raw = None
            raise sa.exc.OperationalError(_MARK_SENT_SQL, rows, error) from error

    def _give_back_raw(self) -> None:
        """Return the driver's connection to the pool as the pool lent it (not in autocommit)."""
        raw, self._raw = self._raw, None
        try:
            raw.driver_connection.autocommit = False
        except Exception:  # a broken connection: the pool must not lend it again
            logger.warning("the outbox recorder's connection is broken: discarded", exc_info=True)
            raw.invalidate()
        raw.close()

    def _run(self) -> None:
        with self._app.app_context():
            try:
                self._record_all()
            finally:
                if self._connection is not None:
                    self._connection.close()
                if self._raw is not None:
                    self._give_back_raw()

    def _record_all(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._waiting) or self._closing)
                if not self._waiting:
                    return
                group, self._waiting = self._waiting, []
                self._recording = len(group)
            recorded = False
            try:
                recorded = _record_sent(group, self._mark)
            except BaseException:
                logger.exception("recording outbox rows %s failed", [a.claim.id for a in group])
            finally:
                with self._changed:
                    self._recording = 0
                    self.failed = self.failed or not recorded
                    self._changed.notify_all()


def _not_sent(claim: Claim, error: BaseException) -> tuple[Outcome, str, bool]:
    """Record a failure (its own short transaction): the outcome, the reason, and whether it
    was recorded."""
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
        # A temporary refusal of this row alone (greylisting, a full mailbox) says nothing of
        # the server: the next success must not make the row due again at once.
        _failed_since_success = _failed_since_success or not _row_only(error)
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
        return outcome, reason, False
    return outcome, reason, True


def _row_only(error: BaseException) -> bool:
    """Whether ``error`` is about this row alone (its recipient or its message refused, for now
    or for good), the server answering otherwise: the next rows may go on. A lost or timed-out
    connection, a 421 (the server closes the session), a refused sender or login, the lease
    nearly over: the server (or this worker) as a whole, so a batch stops there."""
    if isinstance(error, smtplib.SMTPRecipientsRefused):
        codes = [code for code, _ in error.recipients.values()]
        return bool(codes) and 421 not in codes
    if isinstance(error, smtplib.SMTPDataError):
        return error.smtp_code != 421
    return False


def _attempt(
    claim: Claim, postman: Postman, recorder: _Recorder | None = None
) -> tuple[Outcome, str | None, bool]:
    """Send one claimed row and record the result (``sent`` through ``recorder`` if given): the
    outcome, the error, and whether the next rows of a batch may follow (the result recorded,
    and no failure of the server)."""
    config = current_app.config
    # VERP: the row's own signed bounce address, so a bounce says which email failed.
    sender = bounce_address(config, claim.id) or envelope_address(config["MAIL_DEFAULT_SENDER"])
    try:
        message = Wire(sender, envelope_address(claim.recipient), claim.mime.encode("ascii"))
    except UnicodeError as error:  # no server could take this row: failed, the batch goes on
        outcome, reason, recorded = _not_sent(claim, error)
        return outcome, reason, recorded
    try:
        postman.send(message, deadline=claim.deadline)
    except (smtplib.SMTPException, OSError) as error:
        outcome, reason, recorded = _not_sent(claim, error)
        return outcome, reason, recorded and _row_only(error)
    if recorder is None:
        return Outcome.SENT, None, _sent(claim)
    recorder.accepted(claim)
    return Outcome.SENT, None, True


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
        outcome, error, _ = _attempt(claim, postman)
    finally:
        if own:
            postman.close()
    if outcome is Outcome.RETRY:
        raise TransientMailError(error or "temporary failure")
    return outcome


@dataclass
class Tally:
    """What a deliver task or a sweep did with the rows it claimed."""

    sent: int = 0
    failed: int = 0
    retry: int = 0
    released: int = 0
    """Claimed and not tried (a batch stopped, or half the lease went by): queued as before."""
    skipped: int = 0
    """Listed rows not claimed: sent, failed, or held by another worker."""
    stopped: bool = False
    """Stopped at a failure of the server or of the database: the rest waits for the sweep."""

    def claim_size(self, most: int) -> int:
        """How many rows to claim next: one until the server accepted a row of this batch (a
        probe: a server that is down costs one row's attempt, as before batches), then up to
        CLAIM_BATCH (at most ``most``)."""
        return min(CLAIM_BATCH if self.sent else 1, most)

    def add(self, outcome: Outcome) -> None:
        if outcome is Outcome.SENT:
            self.sent += 1
        elif outcome is Outcome.FAILED:
            self.failed += 1
        elif outcome is Outcome.RETRY:
            self.retry += 1


def _release(claims: list[Claim], tally: Tally) -> None:
    """Give back claimed rows that were not tried (one short transaction): queued again, their
    attempts and next attempt time as before the claim. On a database error they stay
    ``sending`` until the lease is over, then the sweep queues them again."""
    if not claims:
        return
    params = [{"row_id": claim.id, "claim_attempts": claim.attempts} for claim in claims]

    def put(session: Session) -> None:
        session.exec(_RELEASE, params=params)

    ids = [claim.id for claim in claims]
    try:
        _record(f"outbox rows {ids} as released", put)
    except DB_ERRORS:
        logger.exception("could not release outbox rows %s: queued again after the lease", ids)
        return
    tally.released += len(claims)


def _send_claims(
    claims: list[Claim], postman: Postman, recorder: _Recorder, tally: Tally
) -> list[int]:
    """Send claimed rows one after the other over ``postman``, each ``sent`` recorded by
    ``recorder`` as soon as it can while the next one goes (a failure: recorded at once). A row
    not started before half its lease went by is released with the rest (returned: claim them
    again); at a failure that is not the row's own (``_row_only``) or a result not recorded, the
    rest is released and ``tally.stopped`` set."""
    for index, claim in enumerate(claims):
        if index and time.monotonic() > claim.start_by:
            _release(claims[index:], tally)
            return [later.id for later in claims[index:]]
        if not recorder.settle(UNRECORDED_MAX - 1):
            tally.stopped = True
            _release(claims[index:], tally)
            return []
        outcome, _, go_on = _attempt(claim, postman, recorder)
        tally.add(outcome)
        if not go_on:
            tally.stopped = True
            _release(claims[index + 1 :], tally)
            return []
    return []


def deliver_rows(
    outbox_ids: Sequence[int], postman: Postman | None = None, *, drain: int = 0
) -> Tally:
    """Send the listed outbox rows that are still queued (or whose claim expired), each once,
    claimed CLAIM_BATCH at a time (``Tally.claim_size``) and sent over one SMTP connection;
    then up to ``drain`` more rows never tried (``attempts`` 0, whatever their next attempt
    time: committed rows whose own deliver tasks are queued behind this one, and will find them
    taken).

    Stops at a failure of the server (``_row_only``): the rows claimed and not tried are given
    back (``_release``) and wait for the sweep, like the rest. A temporary refusal of one row
    (4xx) or a permanent one (5xx) is recorded on that row and the others go on."""
    own = postman is None
    postman = postman or kept_postman()
    recorder = _Recorder()
    tally = Tally()
    try:
        pending = sorted(set(outbox_ids))
        while pending and not tally.stopped:
            window = pending[:CLAIM_BATCH]  # a short IN list: a long one costs more than it saves
            size = tally.claim_size(len(window))
            claims = _claim_all(
                _CLAIM_LISTED, row_ids=window, batch=size, expired_before=utcnow() - lease()
            )
            taken = {claim.id for claim in claims}
            if len(claims) < size:  # none of the others in the window can be claimed now
                tally.skipped += len(window) - len(claims)
                pending = pending[len(window) :]
            else:
                pending = [row_id for row_id in pending if row_id not in taken]
            released = _send_claims(claims, postman, recorder, tally)
            pending = sorted(pending + released)
        left = drain
        while left > 0 and not tally.stopped:
            claims = _claim_all(_CLAIM_UNTRIED, batch=tally.claim_size(left))
            if not claims:
                break
            left -= len(claims) - len(_send_claims(claims, postman, recorder, tally))
    finally:
        if not recorder.close():
            tally.stopped = True
        if own:
            postman.close()
    return tally


@dataclass
class SweepReport(Tally):
    """What one sweep did."""

    reclaimed: int = 0
    """Rows left ``sending`` past the lease, queued again (and sent by this sweep if due)."""
    more: bool = False
    """The sweep stopped at its batch size: more rows may be due."""


def sweep(limit: int | None = None, *, due_by: datetime | None = None) -> SweepReport:
    """Queue again the rows whose claim expired, then send queued rows whose ``next_attempt_at``
    has come (by ``due_by``, default now), oldest first, claimed CLAIM_BATCH at a time
    (``Tally.claim_size``) and sent over one SMTP connection.

    Rows another worker holds are skipped (SKIP LOCKED). Stops at the first failure of the server
    (``_row_only``): it is likely down (one probe per sweep), and every row keeps its own next
    attempt time. A refusal of one recipient or message does not stop it.
    """
    report = SweepReport(reclaimed=len(reclaim_expired()))
    batch = int(current_app.config["MAIL_SWEEP_BATCH"]) if limit is None else limit
    left = batch
    postman, recorder = kept_postman(), _Recorder()
    try:
        while left > 0:
            claims = _claim_all(
                _CLAIM_DUE, due_by=due_by or utcnow(), batch=report.claim_size(left)
            )
            if not claims:
                break
            left -= len(claims) - len(_send_claims(claims, postman, recorder, report))
            if report.stopped:
                break
        else:
            report.more = batch > 0
    finally:
        if not recorder.close():
            report.stopped = True
        postman.close()
    return report
