"""The SMTP receiver: a small SMTP server (aiosmtpd) that a site's mail server relays the reply
addresses to. Run it with ``flask --app service inbound smtp`` (the Procfile's ``inbound``), on
``INBOUND_SMTP_HOST:INBOUND_SMTP_PORT``.

It takes ``RCPT TO`` only for ``INBOUND_LOCAL_PART+...@INBOUND_DOMAIN`` and the bounce addresses
``bounces+...@INBOUND_DOMAIN`` (550 for anything else: it relays nothing), refuses a message
over ``INBOUND_MAX_BYTES`` while it arrives (552), and answers 250 only after ``receive`` has
committed what came of the message: a 250 means that the move was played and its answer queued,
or the message was kept as dropped. A message that cannot be parsed (``malformed``: nested too
deep, too many parts) is kept as dropped and refused for good (554), so the sending server returns
it to its sender instead of retrying it for days. Any other failure is a 451, so the sending
server keeps the message and tries again (a repeat of a message already committed is found by its
Message-ID and changes nothing).

With ``INBOUND_AUTHSERV_ID`` set it is a receiving server of its own: it verifies the
message's DKIM signatures (dkimpy; ``dnsfunc`` is the DNS lookup, a test's resolver in tests)
and puts its ``Authentication-Results`` on top under that id, after removing any that claim
it (``service.inbound.authentication``, docs/security.md).
"""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask

from service.inbound import headers
from service.inbound.outcomes import Outcome
from service.inbound.receive import receive
from service.inbound.verify import DnsLookup, stamp
from service.outbox.bounce_address import is_bounce_address

logger = logging.getLogger(__name__)

MAX_RECIPIENTS = 10
"""A reply goes to one reply address; a handful covers a Cc to the other seat's."""


class ReplyHandler:
    """aiosmtpd's handler: which recipients are taken, and what is done with a message."""

    def __init__(self, app: Flask, dnsfunc: DnsLookup | None = None) -> None:
        self.app = app
        self.dnsfunc = dnsfunc
        self.authserv_id = str(app.config.get("INBOUND_AUTHSERV_ID") or "")
        self.local_part = str(app.config["INBOUND_LOCAL_PART"])
        self.domain = str(app.config["INBOUND_DOMAIN"] or "")

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        if not self.domain or not (
            headers.is_reply_address(address, self.local_part, self.domain)
            or is_bounce_address(address, self.domain)
        ):
            return "550 5.1.1 No such recipient here"
        if len(envelope.rcpt_tos) >= MAX_RECIPIENTS:
            return "452 4.5.3 Too many recipients"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or envelope.content
        if isinstance(raw, str):
            raw = raw.encode("utf-8", errors="surrogateescape")
        assert isinstance(raw, bytes)
        recipients = list(envelope.rcpt_tos)
        sender = envelope.mail_from if envelope.mail_from is not None else ""
        loop = asyncio.get_running_loop()
        try:
            # The database work runs in a thread: the receiver keeps talking to other clients.
            outcome = await loop.run_in_executor(None, self._receive, raw, recipients, sender)
        except Exception:  # answered 451: the sending server keeps the message and retries
            logger.exception("could not receive a message for %s; answered 451", recipients)
            return "451 4.3.0 The message could not be stored; please try again later"
        if outcome == Outcome.MALFORMED:
            return "554 5.6.0 The message is nested too deep or has too many parts to be read"
        return f"250 2.0.0 Received ({outcome})"

    def _receive(self, raw: bytes, recipients: list[str], sender: str) -> str:
        size = len(raw)
        if self.authserv_id:
            raw = stamp(raw, self.authserv_id, self.dnsfunc)
        with self.app.app_context():
            received = receive(raw, recipients=recipients, envelope_sender=sender, size=size)
            return received.outcome.value


def receiver(
    app: Flask,
    *,
    host: str | None = None,
    port: int | None = None,
    dnsfunc: DnsLookup | None = None,
) -> Controller:
    """The SMTP receiver of ``app`` (not started): on ``INBOUND_SMTP_HOST``/``PORT`` unless
    given; DKIM keys looked up with ``dnsfunc`` (the DNS by default)."""
    config = app.config
    return Controller(
        ReplyHandler(app, dnsfunc),
        hostname=host or str(config["INBOUND_SMTP_HOST"]),
        port=int(port if port is not None else config["INBOUND_SMTP_PORT"]),
        data_size_limit=int(config["INBOUND_MAX_BYTES"]),
        enable_SMTPUTF8=True,
        decode_data=False,
        ident="Battle Line by mail",
    )


def serve(app: Flask, stop: threading.Event) -> None:
    """Run the SMTP receiver until ``stop`` is set."""
    if not app.config.get("INBOUND_DOMAIN"):
        raise RuntimeError("INBOUND_DOMAIN is not set: there is no reply address to receive for")
    if not app.config.get("INBOUND_AUTHSERV_ID"):
        logger.warning(
            "INBOUND_AUTHSERV_ID is not set: no DKIM verdict is recorded, and replies act only "
            "if INBOUND_TRUST_FROM is on (else each waits for its owner's confirmation)"
        )
    controller = receiver(app)
    controller.start()
    logger.info(
        "receiving replies for %s+...@%s on %s:%s",
        app.config["INBOUND_LOCAL_PART"], app.config["INBOUND_DOMAIN"],
        controller.hostname, controller.port,
    )  # fmt: skip
    try:
        stop.wait()
    finally:
        controller.stop()
