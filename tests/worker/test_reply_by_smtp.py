"""A whole game played by replies alone, through the real SMTP receiver: PostgreSQL, Redis, a
``celery worker`` process with its beat, aiosmtpd as the outgoing server (the players' inboxes)
and ``flask --app service inbound smtp`` as the incoming one, a process of its own. After the
invitation, both players only reply to the emails that arrive: each "your turn" email gets a
whole turn in short codes ("R7>3 troops"), sent over SMTP to its Reply-To, until both game-over
emails arrive."""

from __future__ import annotations

import email.message
import smtplib
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import pytest
from flask import Flask
from sqlmodel import select

from service.db import session_scope
from service.games.move_log import move_log
from service.inbound_models import InboundMessage
from service.models import Game
from tests.service.conftest import VALID_FORM, make_test_app
from tests.worker.conftest import SMTPServer, WorkerProcess, _empty, close_app
from tests.worker.outbox_rows import link_to, path_of
from tests.worker.reply_servers import ReplyStack, SMTPReceiver, play_by_replies
from tests.worker.test_delivery import bodies
from tests.worker.test_game_by_mail import SEED, Inbox


@pytest.fixture
def reply_stack(worker_db: str, redis_url: str, smtp: SMTPServer) -> Iterator[ReplyStack]:
    made = ReplyStack(database_url=worker_db, redis_url=redis_url, smtp=smtp)
    yield made
    made.forget()


@pytest.fixture
def reply_web(reply_stack: ReplyStack) -> Iterator[Flask]:
    flask_app = make_test_app(reply_stack.database_url, **reply_stack.app_config())
    _empty(flask_app)
    yield flask_app
    close_app(flask_app)


@pytest.fixture
def receiver(reply_stack: ReplyStack, tmp_path: Path) -> Iterator[SMTPReceiver]:
    server = SMTPReceiver(reply_stack, tmp_path / "inbound.log")
    server.start()
    yield server
    server.stop()


def start_game(web: Flask, inbox: Inbox) -> None:
    """Create, confirm and accept a game by the links of its first emails."""
    client = web.test_client()
    with mock.patch("service.lobby.lifecycle.secrets.token_hex", lambda _n: SEED):
        assert client.post("/games/new", data=VALID_FORM).status_code == 303
    text, _ = bodies(inbox.next())
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303
    text, _ = bodies(inbox.next())
    assert client.post(path_of(link_to(text, "/accept"))).status_code == 303


def test_a_whole_game_played_by_replies_through_the_smtp_receiver(
    reply_web: Flask,
    reply_stack: ReplyStack,
    smtp: SMTPServer,
    receiver: SMTPReceiver,
    start_worker: Callable[..., WorkerProcess],
) -> None:
    worker = start_worker(beat=True, stack_=reply_stack)
    inbox = Inbox(smtp, worker)
    started = time.monotonic()
    start_game(reply_web, inbox)

    def send(message: email.message.EmailMessage, raw: bytes) -> None:
        sender = message["To"].addresses[0].addr_spec
        with smtplib.SMTP("127.0.0.1", receiver.port, timeout=30) as client:
            refused = client.sendmail(sender, [str(message["Reply-To"])], raw)
        assert refused == {}

    kinds = play_by_replies(reply_web, inbox.next, send)
    elapsed = time.monotonic() - started

    with reply_web.app_context(), session_scope() as session:
        game = session.exec(select(Game)).one()
        assert game.id is not None and game.status == "finished" and game.result is not None
        entries = move_log(session, game.id)
        received = session.exec(select(InboundMessage)).all()
    # Every reply was received once and played; each got its receipt by email.
    assert [r.outcome for r in received] == ["applied"] * kinds["replies"]
    assert kinds["reply_receipt"] == kinds["replies"]
    assert kinds.get("reply_refused", 0) == 0
    ids = smtp.mailbox.message_ids()
    assert len(ids) == len(set(ids))
    # The receiver takes nothing but reply addresses: it relays nothing.
    with smtplib.SMTP("127.0.0.1", receiver.port, timeout=30) as client:
        client.ehlo()
        code, _ = client.docmd("MAIL FROM:<x@example.org>")
        assert code == 250
        code, _ = client.docmd("RCPT TO:<somebody@example.org>")
        assert code == 550
    print(
        f"\n{kinds['replies']} replies, {len(entries)} moves, {len(ids)} emails in "
        f"{elapsed:.1f}s: {kinds}"
    )
