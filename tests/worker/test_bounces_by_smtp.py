"""Bounces over real SMTP: each email leaves with its own signed envelope sender (VERP) at the
outgoing server (aiosmtpd), and a bounce sent to that address through the real SMTP receiver
(``service.inbound.smtp``) marks that email's recipient bouncing; one that knows only a
Message-ID changes nothing."""

from __future__ import annotations

import smtplib
from collections.abc import Iterator

import pytest
from flask import Flask
from sqlmodel import col, select

from service.db import session_scope
from service.inbound.smtp import receiver
from service.inbound_models import InboundMessage
from service.models import AddressStatus, Player
from service.outbox.bounce_address import outbox_id_of
from tests.service.conftest import VALID_FORM, empty_and_close, make_test_app
from tests.worker.conftest import SMTPServer, free_port, wait_for
from tests.worker.outbox_rows import rows
from tests.worker.turn_games import create_confirm_accept

BOB = "bob@example.org"


@pytest.fixture
def mail_app(database_url: str, smtp: SMTPServer) -> Iterator[Flask]:
    app = make_test_app(
        database_url,
        MAIL_SERVER="127.0.0.1",
        MAIL_PORT=smtp.port,
        MAIL_SUPPRESS_SEND=False,
        INBOUND_DOMAIN="in.bl.test",
    )
    yield app
    empty_and_close(app)


@pytest.fixture
def inbound_port(mail_app: Flask) -> Iterator[int]:
    controller = receiver(mail_app, host="127.0.0.1", port=free_port())
    controller.start()
    yield controller.port
    controller.stop()


def qmail_bounce(to: str, message_id: str) -> bytes:
    return (
        f"From: MAILER-DAEMON@mx.example.net\r\nTo: {to}\r\nSubject: failure notice\r\n"
        f"Message-ID: <qmail.{abs(hash(to))}@mx.example.net>\r\n\r\n"
        "Hi. This is the qmail-send program at mx.example.net.\r\n"
        "I'm afraid I wasn't able to deliver your message to the following addresses.\r\n"
        "This is a permanent error; I've given up. Sorry it didn't work out.\r\n\r\n"
        f"<{BOB}>:\r\nSorry, no mailbox here by that name. (#5.1.1)\r\n\r\n"
        f"--- Below this line is a copy of the message.\r\n\r\nMessage-ID: {message_id}\r\n"
    ).encode()


def bouncing(app: Flask) -> list[str]:
    with app.app_context(), session_scope() as session:
        found = select(Player.email).join(AddressStatus)
        return list(session.exec(found.where(col(AddressStatus.bounced_at).is_not(None))).all())


def outcomes(app: Flask) -> list[str]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(select(InboundMessage.outcome).order_by(InboundMessage.id)).all())


def test_a_bounce_counts_only_at_the_emails_own_signed_address(
    mail_app: Flask, smtp: SMTPServer, inbound_port: int
) -> None:
    create_confirm_accept(mail_app, mail_app.test_client(), VALID_FORM, seed="seed0")
    queued = rows(mail_app)
    wait_for(lambda: len(smtp.mailbox.arrived) >= len(queued), 20, "every email at the server")
    by_id = {row.message_id: row for row in queued}
    senders = set()
    for arrived in smtp.mailbox.arrived:
        row = by_id[str(arrived.message["Message-ID"])]
        assert arrived.mail_from is not None
        senders.add(arrived.mail_from)
        assert arrived.mail_from.startswith("bounces+")
        assert arrived.mail_from.endswith("@in.bl.test")
        assert len(arrived.mail_from.partition("@")[0]) <= 64
        with mail_app.app_context():
            assert outbox_id_of(mail_app.config, arrived.mail_from) == row.id
    assert len(senders) == len(smtp.mailbox.arrived)  # one per email
    to_bob = next(a for a in smtp.mailbox.arrived if a.rcpt_tos == [BOB])
    assert to_bob.mail_from is not None
    reply_to = str(to_bob.message["Reply-To"])
    message_id = str(to_bob.message["Message-ID"])

    with smtplib.SMTP("127.0.0.1", inbound_port, timeout=30) as client:
        # Knowing the Message-ID and the reply address is not enough.
        client.sendmail("", [reply_to], qmail_bounce(reply_to, message_id))
        forged = to_bob.mail_from.replace("bounces+", "bounces+1", 1)
        with pytest.raises(smtplib.SMTPRecipientsRefused):
            client.sendmail("", ["bounces@in.bl.test"], b"Subject: x\r\n\r\nx\r\n")
        client.sendmail("", [forged], qmail_bounce(forged, message_id))
        assert bouncing(mail_app) == []
        client.sendmail("", [to_bob.mail_from], qmail_bounce(to_bob.mail_from, message_id))
    assert bouncing(mail_app) == [BOB]
    assert outcomes(mail_app)[-3:] == ["automatic", "bounce_unmatched", "bounce"]
