"""SMTP talk: one connection kept from one row to the next (``Postman``), every exchange bounded
by the claim's lease (``DeadlineSMTP``), the stored bytes sent as they are (``Wire``), and what an
SMTP error says about the row and the server (``permanent_refusal``, ``row_only``)."""

from __future__ import annotations

import functools
import re
import smtplib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import TYPE_CHECKING

import flask_mail
from flask import current_app

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


class LeaseEnding(smtplib.SMTPException):
    """The claim's lease is nearly over: the worker stops talking to the server (temporary)."""


@dataclass(frozen=True)
class Refused:
    """A permanent refusal: the row fails; ``bounce`` says the address itself is bad."""

    reason: str
    bounce: bool


def permanent_refusal(error: BaseException) -> Refused | None:
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


def row_only(error: BaseException) -> bool:
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


PLAIN_ADDRESS = re.compile(r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]+@[A-Za-z0-9.-]+")
"""An ASCII address with no name, which Flask-Mail's ``sanitize_address`` leaves as it is."""


class DeadlineSMTP(smtplib.SMTP):
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
    # which is a noticeable part of a delivery's own CPU (docs/architecture.md).
    def mail(self, sender: str, options: Sequence[str] = ()) -> tuple[int, bytes]:
        if not PLAIN_ADDRESS.fullmatch(sender) or any(
            option.lower() == "smtputf8" for option in options
        ):
            return super().mail(sender, options)
        extra = " " + " ".join(options) if options and self.does_esmtp else ""
        self.putcmd("mail", f"FROM:<{sender}>{extra}")
        return self.getreply()

    def rcpt(self, recip: str, options: Sequence[str] = ()) -> tuple[int, bytes]:
        if not PLAIN_ADDRESS.fullmatch(recip):
            return super().rcpt(recip, options)
        extra = " " + " ".join(options) if options and self.does_esmtp else ""
        self.putcmd("rcpt", f"TO:<{recip}>{extra}")
        return self.getreply()


class DeadlineSMTPSSL(DeadlineSMTP, smtplib.SMTP_SSL):
    """``DeadlineSMTP`` over implicit TLS (``MAIL_USE_SSL``)."""


# A reused connection the server has dropped fails at once, before any message was accepted.
_STALE_CONNECTION = (smtplib.SMTPServerDisconnected, ConnectionResetError, BrokenPipeError)


def envelope_address(address: str) -> str:
    """An address for MAIL FROM or RCPT TO, as Flask-Mail would give it (IDNA domain, encoded
    name). Raises UnicodeError for an address no server could take (a non-ASCII local part)."""
    if PLAIN_ADDRESS.fullmatch(address):
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
        self._host: DeadlineSMTP | None = None
        self._open_ = False
        self._last_used = 0.0
        self._data_begun = False
        self.keepalive_s = keepalive_s

    def _open(self, deadline: float | None) -> DeadlineSMTP | None:
        state = current_app.extensions["mail"]
        if state.suppress:
            return None
        # Flask-Mail's own configure_host sets no timeout: a stuck server would hold a worker.
        timeout = float(current_app.config["MAIL_TIMEOUT_S"])
        host = DeadlineSMTPSSL(timeout=timeout) if state.use_ssl else DeadlineSMTP(timeout=timeout)
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
        a refusal of this message or its recipient alone (``row_only``).

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
            if not row_only(error):  # a refusal of this row alone: smtplib reset the session
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


def kept_postman() -> Postman:
    """A connection kept from one row to the next (``MAIL_KEEPALIVE_S``): a batch's."""
    return Postman(float(current_app.config["MAIL_KEEPALIVE_S"]))
