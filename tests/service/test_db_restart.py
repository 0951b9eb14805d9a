"""A database restart, on the real PostgreSQL (its backends terminated, as a restart does): the
next request on each pooled connection succeeds, also on a connection used a moment ago, and a
worker task that loses its connection in the middle runs once more and does its work once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, col, func, select
from sqlmodel.orm.session import Session as SQLModelSession

from service.db import get_engine, make_engine, upgrade_schema
from service.models import Game
from service.outbox.models import OutboxMessage
from service.turns import start
from tests.service.conftest import PostgresServer, empty_and_close, make_test_app
from tests.service.play_driver import create_and_accept


@pytest.fixture
def url(postgres: PostgresServer) -> str:
    url = postgres.new_database()
    upgrade_schema(url)
    return url


@pytest.fixture
def app(url: str) -> Iterator[Flask]:
    app = make_test_app(url)
    yield app
    empty_and_close(app)


def database_of(url: str) -> str:
    return sa.engine.make_url(url).database or ""


def restart(postgres: PostgresServer, url: str) -> int:
    """Terminate every backend of the database (as a restart does to every connection) and wait
    until each has exited. Returns how many there were."""
    rows = postgres.admin.execute(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
        " WHERE datname = %s AND pid <> pg_backend_pid()",
        (database_of(url),),
    ).fetchall()
    return len(rows)


def backend_pid(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    assert isinstance(pid, int)
    return pid


def test_a_connection_used_a_moment_ago_is_replaced_when_the_server_dropped_it(
    url: str, postgres: PostgresServer
) -> None:
    engine = make_engine(url)  # the default: pinged only after resting 10 s
    try:
        dropped = backend_pid(engine)
        assert restart(postgres, url) == 1
        assert backend_pid(engine) != dropped
    finally:
        engine.dispose()


def test_the_first_requests_after_a_restart_succeed(
    app: Flask, client: FlaskClient, postgres: PostgresServer, url: str
) -> None:
    game = create_and_accept(app, client)
    private = f"/p/{game['token']['A']}"
    public = f"/games/{game['public_id']}"
    for _ in range(2):
        assert client.get(private).status_code == 200
        assert client.get(public).status_code == 200
        assert restart(postgres, url) >= 1
        assert client.get(public).status_code == 200  # a page that reads without a transaction
        assert client.get(private).status_code == 200
        assert restart(postgres, url) >= 1
        # A POST: a setting of the game saved, in a transaction.
        answer = client.post(f"{private}/preferences", data={"digest": "on"})
        assert answer.status_code == 303, answer.get_data(as_text=True)


def test_a_task_that_loses_its_connection_runs_once_more(
    app: Flask, client: FlaskClient, postgres: PostgresServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The turn's start is not dispatched after the deal's commit: the test runs it.
    monkeypatch.setattr(start, "dispatch", lambda pending: None)
    game = create_and_accept(app, client)
    with app.app_context(), Session(get_engine(app)) as session:
        row = session.get(Game, game["id"])
        assert row is not None and row.turn_notified < row.current_turn
        turn = row.current_turn

    real = start.turn_preferences
    dropped: list[int] = []

    def preferences_after_a_drop(player: Any, seat: Any) -> Any:
        # In the middle of the task's transaction (the game is locked): the server drops it.
        session = SQLModelSession.object_session(seat)
        assert session is not None
        if not dropped:
            pid = session.connection().exec_driver_sql("SELECT pg_backend_pid()").scalar()
            assert isinstance(pid, int)
            postgres.admin.execute("SELECT pg_terminate_backend(%s, 5000)", (pid,))
            dropped.append(pid)
        return real(player, seat)

    monkeypatch.setattr(start, "turn_preferences", preferences_after_a_drop)
    task = app.extensions["celery"].tasks[start.START_TURN_TASK]
    # ``.result``, not ``.get()``: Celery's "inside a task" flag is one global, which the
    # after-commit thread's eager tasks set while they run.
    assert task.apply(args=(game["id"], turn)).result == start.Started.STARTED.value
    assert dropped, "the connection was dropped"
    with app.app_context(), Session(get_engine(app)) as session:
        your_turn = session.exec(
            select(func.count())
            .select_from(OutboxMessage)
            .where(OutboxMessage.game_id == game["id"], col(OutboxMessage.kind) == "your_turn")
        ).one()
        row = session.get(Game, game["id"])
        assert row is not None and row.turn_notified == turn
    assert your_turn == 1
    # Run again (the broker delivered it twice): nothing more.
    assert task.apply(args=(game["id"], turn)).result == start.Started.ALREADY.value
