"""Old sent emails lose their bodies, on SQLite and PostgreSQL: a row sent longer ago than
``OUTBOX_KEEP_BODIES_DAYS`` keeps what the mail guarantee, the limits, threading and replies
read (its Message-ID, headers, subject, kind, recipient, game and ply) and drops its text, HTML
and MIME, in bounded batches, by a beat task; the development outbox shows such a row."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import col, select

from service.db import get_engine, session_scope
from service.games.seats import read_seats
from service.mail import delivery
from service.models import utcnow
from service.outbox.kinds import MailKind
from service.outbox.models import OutboxMessage, OutboxStatus
from service.outbox.prune import PRUNE_TASK, prune_bodies
from service.outbox.queue import emails_queued_since, queue_email, thread_root
from tests.service.conftest import empty_and_close, make_test_app
from tests.service.play_driver import create_and_accept
from tests.worker.delivery_steps import claim_row

KEEP_DAYS = 30


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(database_url, OUTBOX_KEEP_BODIES_DAYS=KEEP_DAYS, OUTBOX_PRUNE_BATCH=2)
    yield app
    empty_and_close(app)


def rows(app: Flask) -> list[OutboxMessage]:
    with app.app_context(), session_scope() as session:
        return list(session.exec(select(OutboxMessage).order_by(col(OutboxMessage.id))).all())


def age(app: Flask, ids: list[int], *, sent_days_ago: float) -> None:
    """Make these rows sent (and queued) that many days ago."""
    when = utcnow() - timedelta(days=sent_days_ago)
    with app.app_context(), session_scope() as session:
        for row_id in ids:
            row = session.get(OutboxMessage, row_id)
            assert row is not None
            row.created_at = row.next_attempt_at = row.claimed_at = when
            if row.status == OutboxStatus.SENT:
                row.sent_at = when
            session.add(row)


@pytest.fixture
def game_emails(app: Flask, client: FlaskClient) -> dict[str, list[OutboxMessage]]:
    """A game's emails (all sent: the tests suppress sending, and mark them sent), most of them
    sent 31 days ago, the newest one a day ago; and one queued long ago, never sent."""
    game = create_and_accept(app, client)
    sent = rows(app)
    assert len(sent) >= 4 and {r.status for r in sent} == {OutboxStatus.SENT}
    old, recent = sent[:-1], sent[-1:]
    with app.app_context(), session_scope() as session:
        _, player = read_seats(session, game["id"])["A"]
        unsent = queue_email(session, MailKind.MY_GAMES, player, subject="Your games", context={})
        assert unsent is not None and unsent.id is not None
        unsent_id = unsent.id
    # The row's own delivery has not run (nothing dispatched after this test's commit).
    with app.app_context(), session_scope() as session:
        row = session.get(OutboxMessage, unsent_id)
        assert row is not None
        row.status = OutboxStatus.QUEUED
        session.add(row)
    age(app, [r.id for r in old if r.id is not None], sent_days_ago=KEEP_DAYS + 1)
    age(app, [r.id for r in recent if r.id is not None], sent_days_ago=1)
    age(app, [unsent_id], sent_days_ago=KEEP_DAYS + 5)
    unsent_row = next(r for r in rows(app) if r.id == unsent_id)
    return {"old": old, "recent": recent, "unsent": [unsent_row], "game": [game]}  # type: ignore[list-item]


def test_bodies_of_rows_sent_long_ago_are_dropped_in_batches(
    app: Flask, game_emails: dict[str, list[OutboxMessage]]
) -> None:
    old_ids = {r.id for r in game_emails["old"]}
    with app.app_context():
        first = prune_bodies()
        assert first.pruned == 2 and first.more  # the batch of this app: 2 rows
        total = first.pruned
        while True:
            report = prune_bodies()
            total += report.pruned
            if not report.more:
                break
        assert total == len(old_ids)
        assert prune_bodies().pruned == 0  # again: nothing
    after = {r.id: r for r in rows(app)}
    for before in game_emails["old"]:
        row = after[before.id]
        assert (row.text_body, row.html_body, row.mime) == (None, None, None)
        # What the guarantee, the limits, threads and replies read is kept.
        assert row.status == OutboxStatus.SENT and row.sent_at is not None
        assert (row.message_id, row.headers, row.subject, row.kind) == (
            before.message_id,
            before.headers,
            before.subject,
            before.kind,
        )
        assert (row.recipient, row.player_id, row.game_id, row.ply) == (
            before.recipient,
            before.player_id,
            before.game_id,
            before.ply,
        )
    for kept in game_emails["recent"] + game_emails["unsent"]:
        row = after[kept.id]
        assert row.mime == kept.mime and row.text_body and row.html_body


def test_a_pruned_row_still_threads_counts_and_is_never_sent_again(
    app: Flask, game_emails: dict[str, list[OutboxMessage]]
) -> None:
    with app.app_context():
        while prune_bodies().more:
            pass
        first = game_emails["old"][0]
        assert first.id is not None and first.game_id is not None and first.player_id is not None
        with session_scope() as session:
            assert thread_root(session, first.game_id, first.player_id) == first.message_id
            since = utcnow() - timedelta(days=KEEP_DAYS + 2)
            kind = MailKind(first.kind)
            assert emails_queued_since(session, kind, since, player_id=first.player_id) >= 1
        assert claim_row(first.id) is None
        assert delivery.sweep(due_by=utcnow() + timedelta(days=400)).sent == 1  # the unsent one
    assert {r.status for r in rows(app)} == {OutboxStatus.SENT}


def test_the_development_outbox_shows_a_pruned_row(
    app: Flask, client: FlaskClient, game_emails: dict[str, list[OutboxMessage]]
) -> None:
    with app.app_context():
        while prune_bodies().more:
            pass
    row = game_emails["old"][0]
    assert client.get("/dev/outbox").status_code == 200
    page = client.get(f"/dev/outbox/{row.id}")
    assert page.status_code == 200
    text = page.get_data(as_text=True)
    assert "body was dropped" in text and row.subject in text
    html = client.get(f"/dev/outbox/{row.id}/html")
    assert html.status_code == 410 and "body was dropped" in html.get_data(as_text=True)
    if row.headers.get("Reply-To"):
        answer = client.post(f"/dev/outbox/{row.id}/reply", data={"reply": "resign"})
        assert answer.status_code < 500


def test_the_beat_prunes_and_the_setting_keeps_bodies_longer(
    app: Flask, game_emails: dict[str, list[OutboxMessage]]
) -> None:
    schedule = app.extensions["celery"].conf.beat_schedule
    assert any(entry["task"] == PRUNE_TASK for entry in schedule.values())
    with app.app_context():
        assert prune_bodies(keep=timedelta(days=KEEP_DAYS + 2)).pruned == 0
        task = app.extensions["celery"].tasks[PRUNE_TASK]
        task.apply()
    pruned = [r for r in rows(app) if r.mime is None]
    assert len(pruned) == len(game_emails["old"])


def test_both_databases_have_the_index_of_rows_with_bodies(app: Flask) -> None:
    engine = get_engine(app)
    with engine.connect() as connection:
        names = {index["name"] for index in sa.inspect(connection).get_indexes("outbox")}
    assert "ix_outbox_sent_with_bodies" in names
