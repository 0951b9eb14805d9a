"""Received emails are remembered ``INBOUND_KEEP_DAYS`` (a repeat within that time changes
nothing), then deleted in bounded batches by a beat task, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import timedelta

import pytest
import sqlalchemy as sa
from flask import Flask

from service.db import get_engine
from service.inbound import prune
from service.inbound.receive import Outcome, receive
from service.models import utcnow
from tests.service.conftest import empty_and_close, make_test_app
from tests.service.replies import inbound_rows
from worker import PRUNE_INBOUND_TASK

KEEP_DAYS = 30


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(database_url, INBOUND_KEEP_DAYS=KEEP_DAYS, INBOUND_PRUNE_BATCH=2)
    yield app
    empty_and_close(app)


def message(number: int) -> bytes:
    return (
        f"From: someone@example.org\r\nTo: play+nokey@localhost\r\n"
        f"Message-ID: <m{number}@mail.example.org>\r\nSubject: hi\r\n\r\nhello\r\n"
    ).encode()


def test_old_received_emails_are_deleted_in_batches_and_recent_ones_kept(app: Flask) -> None:
    now = utcnow()
    with app.app_context():
        for number in range(5):
            receive(message(number), now=now - timedelta(days=KEEP_DAYS + 1 + number))
        receive(message(5), now=now - timedelta(days=KEEP_DAYS - 1))
        first = prune.prune_received(now)
        assert first.pruned == 2 and first.more  # this app's batch: 2 rows
        assert prune.prune_due().pruned == 3
        assert prune.prune_received(now).pruned == 0
        # Within the kept time a repeat is still found.
        assert receive(message(5)).outcome is Outcome.DUPLICATE
    assert [r.message_id for r in inbound_rows(app)] == ["<m5@mail.example.org>"]


def test_the_beat_prunes_the_received_emails(app: Flask) -> None:
    assert prune.PRUNE_TASK == PRUNE_INBOUND_TASK
    schedule = app.extensions["celery"].conf.beat_schedule
    assert any(entry["task"] == prune.PRUNE_TASK for entry in schedule.values())
    with app.app_context():
        receive(message(1), now=utcnow() - timedelta(days=KEEP_DAYS + 1))
        app.extensions["celery"].tasks[prune.PRUNE_TASK].apply()
    assert inbound_rows(app) == []


def test_both_databases_have_the_index_of_received_times(app: Flask) -> None:
    with get_engine(app).connect() as connection:
        names = {i["name"] for i in sa.inspect(connection).get_indexes("inbound_messages")}
    assert "ix_inbound_messages_received_at" in names
