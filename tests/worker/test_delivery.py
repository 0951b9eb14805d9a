"""Delivery through a real ``celery worker`` process, Redis, PostgreSQL and an SMTP server."""

from __future__ import annotations

import email.message
import re
import time
from collections.abc import Callable

import pytest
from flask import Flask
from sqlmodel import select

from service.db import session_scope
from service.games.loaded import load_game
from service.history.my_games import send_my_games_link
from service.models import AddressStatus, Player
from service.outbox import MailKind, bouncing_addresses
from service.outbox.models import OutboxMessage
from tests.service.conftest import VALID_FORM
from tests.worker.conftest import SMTPServer, WorkerProcess, wait_for
from tests.worker.outbox_rows import get_ok, link_to, links, only_row, path_of, rows


def arrived(smtp: SMTPServer, count: int, timeout: float = 30) -> list[email.message.EmailMessage]:
    wait_for(
        lambda: len(smtp.mailbox.messages()) >= count,
        timeout,
        f"{count} email(s) at the SMTP server",
    )
    return smtp.mailbox.messages()


def bodies(message: email.message.EmailMessage) -> tuple[str, str]:
    """The text and HTML parts of a multipart/alternative message."""
    plain = message.get_body(preferencelist=("plain",))
    rich = message.get_body(preferencelist=("html",))
    assert plain is not None and rich is not None
    text, html = plain.get_content(), rich.get_content()
    assert isinstance(text, str) and isinstance(html, str)
    return text.replace("\r\n", "\n"), html.replace("\r\n", "\n")


def play_to_game_started(web: Flask, smtp: SMTPServer) -> None:
    """Create a game, confirm, accept: confirmation, invitation, 2 x game started, your turn."""
    client = web.test_client()
    assert client.post("/games/new", data=VALID_FORM).status_code == 303
    (confirmation,) = arrived(smtp, 1)
    text, _ = bodies(confirmation)
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303
    invitation = arrived(smtp, 2)[1]
    text, _ = bodies(invitation)
    assert client.post(path_of(link_to(text, "/accept"))).status_code == 303
    arrived(smtp, 5)  # "game started" to both, then "your turn" to the first player


def test_an_email_arrives_with_its_headers_and_working_links(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    start_worker()
    play_to_game_started(web, smtp)
    client = web.test_client()
    by_id = {str(m["Message-ID"]): m for m in smtp.mailbox.messages()}
    # The worker records a row sent just after the server took it: wait for that too.
    wait_for(lambda: all(r.status == "sent" for r in rows(web)), 10, "every row recorded sent")
    for row in rows(web):
        assert row.status == "sent" and row.attempts == 1 and row.sent_at is not None
        message = by_id[row.message_id]
        assert [part.get_content_type() for part in message.walk()] == [
            "multipart/alternative",
            "text/plain",
            "text/html",
        ]
        assert message["To"].addresses[0].addr_spec == row.recipient
        assert message["From"].addresses[0].addr_spec == "battleline@bl.test"
        assert message["Subject"] == row.subject
        assert message["Auto-Submitted"] == "auto-generated"
        assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        unsubscribe = str(message["List-Unsubscribe"])
        assert re.fullmatch(r"<http://bl\.test/mail/unsubscribe/[^<>\s]+>", unsubscribe)
        assert len(message.get_all("Message-ID") or []) == 1
        text, html = bodies(message)
        assert text == row.text_body and html == row.html_body
        for url in links(text):
            if "/me/" not in url:
                get_ok(client, url)
        get_ok(client, unsubscribe.strip("<>"))
    # Threading: Bob's "game started" answers his invitation, under the same subject.
    invitation = only_row(web, kind=MailKind.INVITATION)
    bob_started = only_row(web, kind=MailKind.GAME_STARTED, recipient="bob@example.org")
    message = by_id[bob_started.message_id]
    assert message["In-Reply-To"] == invitation.message_id
    assert message["References"] == invitation.message_id
    game_part = f"Battle Line, game {invitation.game_id}"
    assert message["Subject"] == f"Cards dealt: {game_part}"
    assert by_id[invitation.message_id]["Subject"] == f"An invitation to play: {game_part}"
    assert message["List-Id"] == by_id[invitation.message_id]["List-Id"]
    assert message["List-Id"] == f"<game-{invitation.game_id}.bl.test>"


@pytest.mark.parametrize(
    "kind",
    [MailKind.CONFIRM_ADDRESS, MailKind.INVITATION, MailKind.GAME_STARTED, MailKind.MY_GAMES],
)  # the turn emails: tests/worker/test_turn_emails.py
def test_each_kind_of_email_is_delivered(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess], kind: MailKind
) -> None:
    start_worker()
    play_to_game_started(web, smtp)
    if kind is MailKind.MY_GAMES:
        with web.app_context(), session_scope() as session:
            assert send_my_games_link(session, "alice@example.org") is not None
        arrived(smtp, 6)
    row = rows(web, kind=kind)[-1]
    wait_for(lambda: rows(web, id=row.id)[0].status == "sent", 10, "the row marked sent")
    (message,) = [m for m in smtp.mailbox.messages() if m["Message-ID"] == row.message_id]
    text, html = bodies(message)
    expected = {
        MailKind.CONFIRM_ADDRESS: "/p/",
        MailKind.INVITATION: "/accept",
        MailKind.GAME_STARTED: "/p/",
        MailKind.MY_GAMES: "/me/",
    }[kind]
    url = link_to(text, expected)
    assert url in links(html)
    get_ok(web.test_client(), url)


def test_a_permanent_rejection_fails_the_row_and_marks_the_address(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    smtp.mailbox.refuse["bob@example.org"] = "550 5.1.1 No such user here"
    start_worker()
    client = web.test_client()
    assert client.post("/games/new", data=VALID_FORM).status_code == 303
    (confirmation,) = arrived(smtp, 1)
    text, _ = bodies(confirmation)
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303
    wait_for(
        lambda: only_row(web, kind=MailKind.INVITATION).status == "failed",
        20,
        "the invitation to be marked failed",
    )
    row = only_row(web, kind=MailKind.INVITATION)
    assert row.attempts == 1 and row.last_error and "550" in row.last_error
    assert len(smtp.mailbox.messages()) == 1
    with web.app_context(), session_scope() as session:
        bob = session.exec(select(Player).where(Player.email == "bob@example.org")).one()
        status = session.get(AddressStatus, bob.id)
        assert status is not None and status.bounced_at is not None
        assert row.game_id is not None
        assert [b.seat for b in bouncing_addresses(session, load_game(session, row.game_id))] == [
            "B"
        ]
    # Not retried: it stays failed through further sweeps.
    time.sleep(1.5)
    with web.app_context(), session_scope() as session:
        again = session.get(OutboxMessage, row.id)
        assert again is not None and again.status == "failed" and again.attempts == 1
