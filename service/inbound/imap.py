"""A hosted mailbox as the way in: fetch the messages not handled yet over IMAP (IMAPClient),
hand each to ``receive``, and mark it handled only after ``receive`` committed.

- ``poll_mailbox()``: one pass (beat runs it every ``INBOUND_IMAP_POLL_S``, in
  ``worker.inbound_tasks``).
- ``watch(stop)``: a long-running pass-and-wait loop with IDLE where the server has it, so a
  reply is read within a second or two (``flask --app service inbound imap-idle``).

A message is marked with the keyword ``$BattleLineHandled`` (or ``\\Seen`` on a server that
takes no keywords) after ``receive`` returned: a crash in between leaves it unmarked, the next
pass hands it over again, and its Message-ID makes that repeat change nothing. A message that
``receive`` fails on stays unmarked and is tried at the next pass. Nothing is deleted or moved:
the mailbox keeps every email received.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from flask import current_app
from imapclient import IMAPClient
from imapclient.exceptions import IMAPClientError

from service.inbound.receive import receive

logger = logging.getLogger(__name__)

HANDLED = "$BattleLineHandled"
"""The keyword a handled message gets (IMAP keywords may begin with ``$``)."""
SEEN = "\\Seen"
FETCH_BATCH = 25
IDLE_CHECK_S = 5.0
"""How long one wait for news lasts while idling (the stop event is looked at in between)."""
IDLE_RENEW_S = 25 * 60
"""IDLE is renewed before the 29 minutes servers keep it (RFC 2177)."""


class MailboxNotConfiguredError(RuntimeError):
    """``INBOUND_IMAP_HOST`` (and its user and password) are not set."""


@dataclass
class PollReport:
    """What one pass over the mailbox did."""

    received: int = 0
    failed: int = 0
    """Messages ``receive`` failed on: left unmarked, tried again at the next pass."""
    outcomes: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class MailboxSettings:
    host: str
    port: int
    ssl: bool
    user: str
    password: str
    folder: str
    timeout_s: float
    max_bytes: int


def settings() -> MailboxSettings:
    """The mailbox of the app's settings. Raises MailboxNotConfiguredError."""
    config = current_app.config
    host, user = config.get("INBOUND_IMAP_HOST"), config.get("INBOUND_IMAP_USER")
    password = config.get("INBOUND_IMAP_PASSWORD")
    if not host or not user or password is None:
        raise MailboxNotConfiguredError(
            "set INBOUND_IMAP_HOST, INBOUND_IMAP_USER and INBOUND_IMAP_PASSWORD to poll a mailbox"
        )
    return MailboxSettings(
        host=str(host),
        port=int(config["INBOUND_IMAP_PORT"]),
        ssl=bool(config["INBOUND_IMAP_SSL"]),
        user=str(user),
        password=str(password),
        folder=str(config["INBOUND_IMAP_FOLDER"]),
        timeout_s=float(config["INBOUND_IMAP_TIMEOUT_S"]),
        max_bytes=int(config["INBOUND_MAX_BYTES"]),
    )


class Mailbox:
    """One logged-in connection to the mailbox's folder."""

    def __init__(self, chosen: MailboxSettings) -> None:
        self.settings = chosen
        self.client = IMAPClient(
            chosen.host, port=chosen.port, ssl=chosen.ssl, timeout=chosen.timeout_s
        )
        try:
            self.client.login(chosen.user, chosen.password)
            selected: dict[bytes, Any] = self.client.select_folder(chosen.folder)
        except BaseException:
            self.close()
            raise
        permanent = selected.get(b"PERMANENTFLAGS") or ()
        # "\*" among the permanent flags: the server keeps keywords of our own.
        self.keywords = b"\\*" in permanent
        self.mark = HANDLED if self.keywords else SEEN

    def unhandled(self) -> list[int]:
        criteria = ["NOT", "KEYWORD", HANDLED] if self.keywords else ["UNSEEN"]
        return sorted(self.client.search(criteria))

    def pass_over(self) -> PollReport:
        """Hand every message not handled yet to ``receive``, oldest first; mark each one
        handled after ``receive`` returned."""
        report = PollReport()
        uids = self.unhandled()
        for start in range(0, len(uids), FETCH_BATCH):
            batch = uids[start : start + FETCH_BATCH]
            sizes = self.client.fetch(batch, ["RFC822.SIZE"])
            for uid in batch:
                if uid not in sizes:  # expunged meanwhile
                    continue
                self._one(uid, int(sizes[uid][b"RFC822.SIZE"]), report)
        return report

    def _one(self, uid: int, size: int, report: PollReport) -> None:
        whole = size <= self.settings.max_bytes
        # PEEK: fetching does not set \Seen; only the mark after receive says "handled".
        item, key = ("BODY.PEEK[]", b"BODY[]") if whole else ("BODY.PEEK[HEADER]", b"BODY[HEADER]")
        fetched = self.client.fetch([uid], [item]).get(uid, {})
        raw = fetched.get(key)
        if not isinstance(raw, bytes):
            logger.warning("message %s of the mailbox could not be fetched; next pass", uid)
            report.failed += 1
            return
        try:
            received = receive(raw, size=size)
        except Exception:  # the message stays unmarked: the next pass offers it again
            logger.exception("could not receive message %s of the mailbox; next pass", uid)
            report.failed += 1
            return
        self.client.add_flags([uid], [self.mark])
        report.received += 1
        outcome = received.outcome.value
        report.outcomes[outcome] = report.outcomes.get(outcome, 0) + 1

    def close(self) -> None:
        try:
            self.client.logout()
        except (IMAPClientError, OSError):
            self.client.shutdown()


def poll_mailbox() -> PollReport:
    """One pass over the configured mailbox. Raises MailboxNotConfiguredError, and IMAP or
    network errors (the next pass tries again)."""
    mailbox = Mailbox(settings())
    try:
        return mailbox.pass_over()
    finally:
        mailbox.close()


def watch(stop: threading.Event, *, retry_s: float = 10.0) -> None:
    """Pass over the mailbox, then wait for news with IDLE (or poll every
    ``INBOUND_IMAP_POLL_S`` on a server without it), until ``stop`` is set. A lost connection
    is made again after ``retry_s``."""
    chosen = settings()
    poll_s = float(current_app.config["INBOUND_IMAP_POLL_S"])
    while not stop.is_set():
        try:
            mailbox = Mailbox(chosen)
            try:
                _watch(mailbox, stop, poll_s)
            finally:
                mailbox.close()
        except (IMAPClientError, OSError):
            logger.exception("the mailbox connection failed; again in %ss", retry_s)
            stop.wait(retry_s)


def _watch(mailbox: Mailbox, stop: threading.Event, poll_s: float) -> None:
    idle = mailbox.client.has_capability("IDLE")
    while not stop.is_set():
        report = mailbox.pass_over()
        if report.received or report.failed:
            logger.info("mailbox pass: %s", report)
        if not idle:
            stop.wait(poll_s)
            continue
        mailbox.client.idle()
        began = time.monotonic()
        try:
            while not stop.is_set() and time.monotonic() - began < IDLE_RENEW_S:
                if mailbox.client.idle_check(timeout=IDLE_CHECK_S):
                    break
        finally:
            mailbox.client.idle_done()
