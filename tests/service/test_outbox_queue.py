"""The outbox as a queue on PostgreSQL: the claims and the reclaim read the partial indexes of
the rows they serve, however many sent rows lie beside them, and the bodies lie out of line so
that a change of status rewrites a small row. (Rates are measured by ``bench/mail.py``.)"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from service.db import upgrade_schema
from service.mail.delivery import claims, recorder, recording
from service.outbox import prune
from service.outbox.models import OutboxStatus
from tests.service.conftest import PostgresServer

SENT_ROWS = 5000
BODY = "Your turn at Battle Line. " * 120
"""About 3 KB, as an email: compressed, it would still fit in its row."""


@pytest.fixture(scope="module")
def engine(postgres: PostgresServer) -> Any:
    url = postgres.new_database()
    upgrade_schema(url)
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.exec_driver_sql(
            "INSERT INTO outbox (recipient, recipient_name, kind, subject, text_body, html_body,"
            " message_id, headers, mime, status, attempts, created_at, next_attempt_at, sent_at)"
            " SELECT 'p' || n || '@example.org', 'P', 'my_games', 'Your games', %(body)s,"
            " %(body)s, '<' || n || '@bl.example>', '{}', %(body)s || n,"
            " CASE WHEN n %% 100 = 0 THEN 'queued' ELSE 'sent' END, 1, now(), now(), now()"
            f" FROM generate_series(1, {SENT_ROWS}) AS n",
            {"body": BODY},
        )
        connection.exec_driver_sql("ANALYZE outbox")
    yield engine
    engine.dispose()


def plan(engine: sa.Engine, statement: Any, **params: Any) -> str:
    """PostgreSQL's plan for ``statement`` as the driver got it, run with ``params`` (and rolled
    back)."""
    sent: list[tuple[str, Any]] = []

    def keep(_conn: Any, _cursor: Any, sql: str, values: Any, _context: Any, _many: bool) -> None:
        sent.append((sql, values))

    with engine.connect() as connection:
        sa.event.listen(connection, "before_cursor_execute", keep)
        with connection.begin() as transaction:
            connection.execute(statement, params)
            transaction.rollback()
        ((sql, values),) = sent
        rows = connection.exec_driver_sql(f"EXPLAIN {sql}", values)
        return "\n".join(row[0] for row in rows)


@pytest.mark.parametrize(
    ("statement", "index"),
    [
        (claims._CLAIM_DUE, "ix_outbox_queued_next_attempt_at"),
        (claims._CLAIM_UNTRIED, "ix_outbox_queued_next_attempt_at"),
        (recording._PULL_FORWARD, "ix_outbox_queued_next_attempt_at"),
        (claims._RECLAIM, "ix_outbox_sending_claimed_at"),
    ],
    ids=["claim-due", "claim-untried", "pull-forward", "reclaim"],
)
def test_the_queue_statements_read_their_partial_index(
    engine: sa.Engine, statement: Any, index: str
) -> None:
    moment = datetime(2026, 11, 25, tzinfo=UTC)
    params = {
        "claim_time": moment, "due_by": moment, "batch": 20, "expired_before": moment,
        "waiting_after": moment, "due_time": moment,
    }  # fmt: skip
    found = plan(engine, statement, **params)
    assert f"using {index} on outbox candidate" in found, found


def test_the_sent_mark_is_one_statement_on_either_path(engine: sa.Engine) -> None:
    """The recorder's straight psycopg path sends the very text SQLAlchemy sends for the mark."""
    text, constants = recorder._driver_statement(engine.dialect)
    moment = datetime(2026, 11, 25, tzinfo=UTC)
    sent: list[str] = []

    def keep(_conn: Any, _cursor: Any, sql: str, *_rest: Any) -> None:
        sent.append(sql)

    with engine.connect() as connection:
        sa.event.listen(connection, "before_cursor_execute", keep)
        with connection.begin() as transaction:
            connection.execute(recorder._MARK_SENT, {"row_id": -1, "sent_time": moment})
            transaction.rollback()
    assert sent == [text]
    assert constants == {
        "status": OutboxStatus.SENT, "last_error": None, "status_1": OutboxStatus.SENT
    }  # fmt: skip


def test_the_bodies_lie_out_of_line(engine: sa.Engine) -> None:
    with engine.connect() as connection:
        options = connection.exec_driver_sql(
            "SELECT reloptions FROM pg_class WHERE relname = 'outbox'"
        ).scalar_one()
        toast_bytes = connection.exec_driver_sql(
            "SELECT pg_relation_size(reltoastrelid) FROM pg_class WHERE relname = 'outbox'"
        ).scalar_one()
        row_bytes = connection.exec_driver_sql(
            "SELECT pg_relation_size('outbox') / count(*) FROM outbox"
        ).scalar_one()
    assert "toast_tuple_target=128" in options
    assert toast_bytes > 0
    assert row_bytes < 400  # a heap page holds some 20 rows and more, not 3 or 4


def test_the_pruning_reads_the_index_of_rows_with_bodies(engine: sa.Engine) -> None:
    moment = datetime(2026, 11, 25, tzinfo=UTC)
    found = plan(engine, prune._PRUNE, before=moment, batch=500)
    assert "using ix_outbox_sent_with_bodies on outbox candidate" in found, found
