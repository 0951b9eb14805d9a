"""Sending outbox rows through Flask-Mail, at least once towards SMTP and never again once sent.

A row is sent while its transaction holds the row lock (``SELECT ... FOR UPDATE SKIP LOCKED`` on
PostgreSQL; ``BEGIN IMMEDIATE`` on SQLite) and is marked sent in that same transaction. So two
workers never send one row: the second skips it, or (SQLite) waits and then sees it sent. A worker
killed between the SMTP server's "250" and the commit leaves the row queued, and it is sent
again: that one window is the "at least once" (the Message-ID stays the same, so a receiver can
drop the repeat).
"""

from __future__ import annotations

import enum
import logging
import smtplib
import time
from dataclasses import dataclass
from datetime import datetime, timedelta
from types import TracebackType

import flask_mail
from flask import current_app
from sqlmodel import Session, col, select

from service.db import session_scope
from service.mail.addresses import mark_bouncing
from service.mail.mime import stored_message
from service.mail.models import OutboxMessage, OutboxStatus
from service.models import utcnow

logger = logging.getLogger(__name__)


class TransientMailError(Exception):
    """The SMTP server is unreachable or said "try later" (4xx): the row stays queued."""


class Outcome(enum.StrEnum):
    """What one attempt at one row came to."""

    SENT = "sent"
    FAILED = "failed"
    """Refused for good; not retried."""
    RETRY = "retry"
    """A temporary failure; the row waits for its ``next_attempt_at``."""
    SKIPPED = "skipped"
    """Not queued any more (sent or failed already) or another worker holds it."""


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


# A reused connection the server has dropped fails at once, before any message was accepted.
_STALE_CONNECTION = (smtplib.SMTPServerDisconnected, ConnectionResetError, BrokenPipeError)


class Postman:
    """One SMTP connection, opened on the first send and reused until an error, ``close``, or
    ``keepalive_s`` idle seconds (servers drop idle clients; Postfix after 300 s)."""

    def __init__(self, keepalive_s: float = 0.0) -> None:
        self._connection: flask_mail.Connection | None = None
        self._last_used = 0.0
        self.keepalive_s = keepalive_s

    def _open(self) -> flask_mail.Connection:
        state = current_app.extensions["mail"]
        connection = flask_mail.Connection(state)
        if state.suppress:
            connection.host = None
            return connection
        timeout = float(current_app.config["MAIL_TIMEOUT_S"])
        host: smtplib.SMTP
        # Flask-Mail's own configure_host sets no timeout: a stuck server would hold a worker.
        if state.use_ssl:
            host = smtplib.SMTP_SSL(state.server, state.port or 0, timeout=timeout)
        else:
            host = smtplib.SMTP(state.server, state.port or 0, timeout=timeout)
        try:
            if state.use_tls:
                host.starttls()
            if state.username and state.password:
                host.login(state.username, state.password)
        except BaseException:
            host.close()
            raise
        connection.host = host
        return connection

    def send(self, message: flask_mail.Message) -> None:
        """Send one message; any error closes the connection (the next send reconnects).
        A kept connection that the server dropped is replaced once, at once."""
        now = time.monotonic()
        if self._connection is not None and now - self._last_used > self.keepalive_s:
            self.close()
        reused = self._connection is not None
        try:
            self._send(message)
        except _STALE_CONNECTION:
            if not reused:
                raise
            self._send(message)
        self._last_used = time.monotonic()

    def _send(self, message: flask_mail.Message) -> None:
        if self._connection is None:
            self._connection = self._open()
        try:
            self._connection.send(message)
        except BaseException:
            self.close()
            raise

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


def attempt(session: Session, row: OutboxMessage, postman: Postman) -> Outcome:
    """Try to send a locked, queued row, and record the result on it (the caller commits).

    Raises nothing for SMTP trouble: the outcome says what happened.
    """
    now = utcnow()
    row.attempts += 1
    session.add(row)
    try:
        postman.send(
            stored_message(
                current_app.config["MAIL_DEFAULT_SENDER"], row.recipient_name, row.recipient,
                row.mime,
            )
        )  # fmt: skip
    except (smtplib.SMTPException, OSError) as error:
        refused = _permanent(error)
        row.last_error = f"{type(error).__name__}: {error}"[:2000]
        if refused is not None:
            row.status = OutboxStatus.FAILED
            row.last_error = refused.reason[:2000]
            if refused.bounce and row.player_id is not None:
                mark_bouncing(session, row.player_id, refused.reason)
            logger.warning("outbox row %s refused for good: %s", row.id, refused.reason)
            return Outcome.FAILED
        give_up = timedelta(hours=float(current_app.config["MAIL_GIVE_UP_AFTER_H"]))
        if now - row.created_at > give_up:
            row.status = OutboxStatus.FAILED
            logger.error("outbox row %s given up after %s attempts", row.id, row.attempts)
            return Outcome.FAILED
        row.next_attempt_at = now + backoff(row.attempts)
        logger.info("outbox row %s not sent yet (%s)", row.id, row.last_error)
        return Outcome.RETRY
    row.status = OutboxStatus.SENT
    row.sent_at = now
    row.last_error = None
    return Outcome.SENT


def _lock_queued(session: Session, outbox_id: int) -> OutboxMessage | None:
    return session.exec(
        select(OutboxMessage)
        .where(OutboxMessage.id == outbox_id, OutboxMessage.status == OutboxStatus.QUEUED)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).one_or_none()


def _lock_next_due(session: Session, now: datetime) -> OutboxMessage | None:
    return session.exec(
        select(OutboxMessage)
        .where(
            OutboxMessage.status == OutboxStatus.QUEUED,
            col(OutboxMessage.next_attempt_at) <= now,
        )
        .order_by(col(OutboxMessage.next_attempt_at), col(OutboxMessage.id))
        .limit(1)
        .with_for_update(skip_locked=True)
        .execution_options(populate_existing=True)
    ).one_or_none()


def deliver_one(outbox_id: int, postman: Postman | None = None) -> Outcome:
    """Send one outbox row if it is still queued. Raises TransientMailError after recording a
    temporary failure on the row (the task retries with backoff)."""
    own = postman is None
    postman = postman or Postman()
    try:
        with session_scope() as session:
            row = _lock_queued(session, outbox_id)
            if row is None:
                return Outcome.SKIPPED
            outcome = attempt(session, row, postman)
            error = row.last_error
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


def sweep(limit: int | None = None, *, due_by: datetime | None = None) -> SweepReport:
    """Send queued rows whose ``next_attempt_at`` has come (by ``due_by``, default now), oldest
    first, one transaction each.

    Rows another worker holds are skipped (SKIP LOCKED). Stops at the first temporary failure:
    the server is likely down, and every row keeps its own next attempt time.
    """
    report = SweepReport()
    batch = int(current_app.config["MAIL_SWEEP_BATCH"]) if limit is None else limit
    with Postman() as postman:
        for _ in range(batch):
            with session_scope() as session:
                row = _lock_next_due(session, due_by or utcnow())
                if row is None:
                    break
                outcome = attempt(session, row, postman)
            if outcome is Outcome.SENT:
                report.sent += 1
            elif outcome is Outcome.FAILED:
                report.failed += 1
            else:
                report.retry += 1
                break
    return report
