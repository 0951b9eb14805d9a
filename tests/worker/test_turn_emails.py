"""Each turn email through the real worker (Redis, PostgreSQL, a ``celery worker`` process, an
aiosmtpd server): its headers, its thread (the game's first email to that person), both parts,
and every link in it working. The service's clock is moved in the test process for the emails
that wait on time; the worker runs no beat here, so only the test's scan acts."""

from __future__ import annotations

import email.message
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest
from flask import Flask

from service import tokens
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from service.turns.digest import send_digests
from service.turns.scan import scan_deadlines
from tests.worker.conftest import SMTPServer, WorkerProcess, wait_for
from tests.worker.outbox_rows import get_ok, links, rows
from tests.worker.test_delivery import bodies, play_to_game_started
from tests.worker.turn_games import at, set_preferences, state_of

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)
EMAILS = {"A": "alice@example.org", "B": "bob@example.org"}
TURN_KINDS = [
    MailKind.YOUR_TURN,
    MailKind.REMINDER,
    MailKind.RUNNING_LATE,
    MailKind.TIMEOUT_NOTICE,
    MailKind.GAME_OVER,
    MailKind.MY_GAMES,
    MailKind.DIGEST,
]


def make(web: Flask, kind: MailKind) -> None:
    """Bring about an email of ``kind`` in a game just started (at T0)."""
    client = web.test_client()
    game_id = rows(web, kind=MailKind.YOUR_TURN)[0].game_id
    assert game_id is not None
    mover = state_of(web, game_id).to_move
    later = {
        MailKind.REMINDER: timedelta(hours=36),
        MailKind.RUNNING_LATE: timedelta(hours=48),
        MailKind.TIMEOUT_NOTICE: timedelta(hours=72),
    }
    if kind in later:
        at(web, T0 + later[kind])
        with web.app_context():
            scan_deadlines()
    elif kind is MailKind.GAME_OVER:
        with web.app_context():
            token = tokens.make_private_token(game_id, mover, 0)
        ply = state_of(web, game_id).ply
        response = client.post(f"/p/{token}/move", data={"ply": str(ply), "move": "resign"})
        assert response.status_code == 303
    elif kind is MailKind.MY_GAMES:
        assert client.post("/me", data={"email": EMAILS[mover]}).status_code == 200
    elif kind is MailKind.DIGEST:
        set_preferences(web, EMAILS[mover], automatic_claims=True, digest=True)
        with web.app_context():
            assert len(send_digests()) == 1


def delivered(web: Flask, smtp: SMTPServer, row: OutboxMessage) -> email.message.EmailMessage:
    def found() -> email.message.EmailMessage | None:
        for message in smtp.mailbox.messages():
            if message["Message-ID"] == row.message_id:
                return message
        return None

    message: email.message.EmailMessage = wait_for(found, 30, f"the {row.kind} email to arrive")
    return message


@pytest.mark.parametrize("kind", TURN_KINDS)
def test_turn_email_headers_thread_parts_and_links(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess], kind: MailKind
) -> None:
    start_worker(beat=False)
    at(web, T0)
    play_to_game_started(web, smtp)
    make(web, kind)
    wait_for(lambda: rows(web, kind=kind), 30, f"a {kind} email in the outbox")
    row = rows(web, kind=kind)[-1]
    message = delivered(web, smtp, row)
    wait_for(lambda: rows(web, id=row.id)[0].status == "sent", 10, "the row marked sent")

    assert message["To"].addresses[0].addr_spec == row.recipient
    assert message["Subject"] == row.subject
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert len(message.get_all("Message-ID") or []) == 1
    assert [part.get_content_type() for part in message.walk()] == [
        "multipart/alternative",
        "text/plain",
        "text/html",
    ]
    if kind.rules.game_thread:
        # The same thread as the game's first email to this person, under the same subject.
        first = rows(web, game_id=row.game_id, recipient=row.recipient)[0]
        assert first.id != row.id
        assert message["In-Reply-To"] == first.message_id
        assert message["References"] == first.message_id
        # The subject says what happened, then the game, as in every email of the game.
        game_part = f": Battle Line, game {row.game_id}"
        assert message["Subject"].endswith(game_part) and first.subject.endswith(game_part)
        assert message["List-Id"] == f"<game-{row.game_id}.bl.test>"
    else:
        assert message["In-Reply-To"] is None
    text, html = bodies(message)
    assert (text, html) == (row.text_body, row.html_body)
    assert "<style" not in html and "class=" not in html and "<script" not in html
    assert all(len(line) < 998 for line in html.splitlines())
    found = links(text)
    assert found
    client = web.test_client()
    for url in found:
        assert url in links(html), url
    before = [(r.kind, r.recipient) for r in rows(web)]
    for url in found:
        get_ok(client, url)
    # Opening them (a mail scanner does) sent nothing and changed nothing.
    assert [(r.kind, r.recipient) for r in rows(web)] == before
