"""Play by reply from a hosted mailbox: Debian's dovecot as the IMAP server (started by the test
in a folder of its own), the replies APPENDed into its mailbox as a mail server delivers them,
and the real worker's beat polling it (``worker.poll_inbound_mailbox``). A whole game is played
by replies alone; then the IDLE watcher (``service.inbound.imap.watch``) reads a reply within
moments, and every message is marked handled once, after it was received."""

from __future__ import annotations

import email.message
import threading
import time
from collections.abc import Callable, Iterator

import pytest
from flask import Flask
from imapclient import IMAPClient
from sqlmodel import select

from service.db import session_scope
from service.inbound import imap
from service.inbound_models import InboundMessage
from service.models import Game
from tests.service.conftest import make_test_app
from tests.service.replies import nested
from tests.worker.conftest import SMTPServer, WorkerProcess, _empty, close_app, wait_for
from tests.worker.reply_servers import (
    IMAP_PASSWORD,
    IMAP_USER,
    Dovecot,
    ReplyStack,
    dovecot,  # noqa: F401  (the fixture)
    play_by_replies,
    reply_to,
    what_it_asks,
)
from tests.worker.test_game_by_mail import Inbox
from tests.worker.test_reply_by_smtp import start_game


@pytest.fixture
def imap_stack(
    worker_db: str,
    redis_url: str,
    smtp: SMTPServer,
    dovecot: Dovecot,  # noqa: F811
) -> Iterator[ReplyStack]:
    stack = ReplyStack(database_url=worker_db, redis_url=redis_url, smtp=smtp)
    stack.inbound = {**dovecot.settings(), "INBOUND_IMAP_POLL_S": "0.5"}
    yield stack
    stack.forget()


@pytest.fixture
def imap_web(imap_stack: ReplyStack) -> Iterator[Flask]:
    config = {**imap_stack.app_config(), **imap_stack.inbound}
    config["INBOUND_IMAP_PORT"] = int(config["INBOUND_IMAP_PORT"])
    config["INBOUND_IMAP_SSL"] = False
    config["INBOUND_IMAP_POLL_S"] = 0.5
    config["INBOUND_IMAP_TIMEOUT_S"] = 10.0
    flask_app = make_test_app(imap_stack.database_url, **config)
    _empty(flask_app)
    yield flask_app
    close_app(flask_app)


def mailbox(server: Dovecot) -> IMAPClient:
    client = IMAPClient("127.0.0.1", port=server.port, ssl=False, timeout=10)
    client.login(IMAP_USER, IMAP_PASSWORD)
    client.select_folder("INBOX")
    return client


def deliver(server: Dovecot) -> Callable[[email.message.EmailMessage, bytes], None]:
    """A mail server delivering each reply into the mailbox (APPEND)."""

    def append(_message: email.message.EmailMessage, raw: bytes) -> None:
        client = mailbox(server)
        try:
            client.append("INBOX", raw)
        finally:
            client.logout()

    return append


def test_a_whole_game_played_by_replies_through_an_imap_mailbox(
    imap_web: Flask,
    imap_stack: ReplyStack,
    smtp: SMTPServer,
    dovecot: Dovecot,  # noqa: F811
    start_worker: Callable[..., WorkerProcess],
) -> None:
    worker = start_worker(beat=True, stack_=imap_stack)
    inbox = Inbox(smtp, worker)
    start_game(imap_web, inbox)
    started = time.monotonic()
    kinds = play_by_replies(imap_web, inbox.next, deliver(dovecot))
    elapsed = time.monotonic() - started

    with imap_web.app_context(), session_scope() as session:
        game = session.exec(select(Game)).one()
        assert game.status == "finished" and game.result is not None
        outcomes = [r.outcome for r in session.exec(select(InboundMessage)).all()]
    assert outcomes == ["applied"] * kinds["replies"]
    assert kinds["reply_receipt"] == kinds["replies"]
    # Every message of the mailbox is marked handled, and none was taken twice.
    client = mailbox(dovecot)
    try:
        assert client.search(["NOT", "KEYWORD", imap.HANDLED]) == []
        assert len(client.search(["KEYWORD", imap.HANDLED])) == kinds["replies"]
    finally:
        client.logout()
    print(f"\n{kinds['replies']} replies by IMAP in {elapsed:.1f}s: {kinds}")


def test_the_idle_watcher_reads_a_reply_at_once_and_marks_it_after_receiving(
    imap_web: Flask,
    smtp: SMTPServer,
    dovecot: Dovecot,  # noqa: F811
    start_worker: Callable[..., WorkerProcess],
    imap_stack: ReplyStack,
) -> None:
    # A worker without beat: only the watcher reads the mailbox.
    worker = start_worker(beat=False, stack_=imap_stack)
    inbox = Inbox(smtp, worker)
    start_game(imap_web, inbox)
    stop = threading.Event()

    def watch() -> None:
        with imap_web.app_context():
            imap.watch(stop, retry_s=0.5)

    watcher = threading.Thread(target=watch, name="imap-idle", daemon=True)
    watcher.start()
    try:
        while True:
            message = inbox.next()
            asked = what_it_asks(imap_web, message)
            if asked.text is not None:
                break
        time.sleep(0.5)  # the watcher is idling now
        sent = time.monotonic()
        deliver(dovecot)(message, reply_to(message, asked.text))
        receipt = inbox.next(timeout=20)
        waited = time.monotonic() - sent
        assert what_it_asks(imap_web, receipt).kind == "reply_receipt"
        # The reply came by IDLE, not by a poll: well within a poll period of the beat's.
        assert waited < 10, waited
        # Delivered a second time (a mail server's retry): received, found to be a repeat.
        deliver(dovecot)(message, reply_to(message, asked.text).replace(b"R", b"R", 1))
        wait_for(lambda: _handled(dovecot) == 2, 20, "the second message to be marked handled")
    finally:
        stop.set()
        watcher.join(timeout=30)
    with imap_web.app_context(), session_scope() as session:
        outcomes = [r.outcome for r in session.exec(select(InboundMessage)).all()]
    assert outcomes[0] == "applied"
    assert len(outcomes) == 2


def _handled(server: Dovecot) -> int:
    client = mailbox(server)
    try:
        return len(client.search(["KEYWORD", imap.HANDLED]))
    finally:
        client.logout()


def test_a_poll_marks_only_what_was_received(
    imap_web: Flask,
    dovecot: Dovecot,  # noqa: F811
) -> None:
    """A message ``receive`` fails on stays unmarked, for the next pass; the others are marked."""
    client = mailbox(dovecot)
    try:
        client.append("INBOX", b"From: a@example.org\r\nTo: play+x@localhost\r\n\r\nhi\r\n")
    finally:
        client.logout()
    with imap_web.app_context():
        report = imap.poll_mailbox()
        assert report.received == 1 and report.outcomes == {"unknown_key": 1}
        again = imap.poll_mailbox()
        assert again.received == 0
    assert _handled(dovecot) == 1


def test_a_message_too_deep_to_parse_is_marked_handled_and_not_fetched_again(
    imap_web: Flask,
    dovecot: Dovecot,  # noqa: F811
) -> None:
    """A poison message (MIME nested a thousand deep) is kept as malformed and marked: it is
    not handed over again at every pass."""
    client = mailbox(dovecot)
    try:
        client.append("INBOX", nested(1000))
    finally:
        client.logout()
    with imap_web.app_context():
        report = imap.poll_mailbox()
        assert report.failed == 0 and report.outcomes == {"malformed": 1}
        assert imap.poll_mailbox().received == 0
    assert _handled(dovecot) == 1
