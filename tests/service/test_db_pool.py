"""Pooled PostgreSQL connections: pinged only after resting or when the server dropped them,
then replaced (a real server, a backend really terminated); sessions that only read."""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace

import pytest
import sqlalchemy as sa
from flask import Flask

from service.db import ReadOnlyError, make_engine, read_scope, session_scope, upgrade_schema
from service.games.rows import get_game
from service.lobby.forms import parse_new_game
from service.lobby.lifecycle import create_game
from tests.service.conftest import VALID_FORM, PostgresServer, empty_and_close, make_test_app


@pytest.fixture
def url(postgres: PostgresServer) -> str:
    return postgres.new_database()


def backend_pid(engine: sa.Engine) -> int:
    with engine.connect() as connection:
        pid = connection.exec_driver_sql("SELECT pg_backend_pid()").scalar()
    assert isinstance(pid, int)
    return pid


def counted_pings(engine: sa.Engine, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    pings: list[int] = []
    real = engine.dialect.do_ping

    def ping(dbapi_connection: object) -> bool:
        pings.append(1)
        return real(dbapi_connection)

    monkeypatch.setattr(engine.dialect, "do_ping", ping)
    return pings


@pytest.fixture
def engines() -> Iterator[list[sa.Engine]]:
    made: list[sa.Engine] = []
    yield made
    for engine in made:
        engine.dispose()


def test_a_connection_used_a_moment_ago_is_not_pinged(
    url: str, engines: list[sa.Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(url, idle_ping_s=60)
    engines.append(engine)
    pings = counted_pings(engine, monkeypatch)
    first = backend_pid(engine)
    assert [backend_pid(engine) for _ in range(5)] == [first] * 5
    assert pings == []


def test_a_rested_connection_the_server_dropped_is_replaced_unseen(
    url: str, postgres: PostgresServer, engines: list[sa.Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = make_engine(url, idle_ping_s=0)
    engines.append(engine)
    pings = counted_pings(engine, monkeypatch)
    dropped = backend_pid(engine)
    postgres.admin.execute("SELECT pg_terminate_backend(%s)", (dropped,))
    assert backend_pid(engine) != dropped
    assert pings, "the rested connection was pinged"


def test_a_connection_dropped_a_moment_ago_is_pinged_once_and_replaced(
    url: str, postgres: PostgresServer, engines: list[sa.Engine], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Not rested, but the server's goodbye waits on its socket: the kernel tells, the ping
    # confirms (tests/service/test_db_restart.py: the whole database, requests and tasks).
    engine = make_engine(url, idle_ping_s=3600)
    engines.append(engine)
    pings = counted_pings(engine, monkeypatch)
    dropped = backend_pid(engine)
    postgres.admin.execute("SELECT pg_terminate_backend(%s, 5000)", (dropped,))
    assert backend_pid(engine) != dropped
    assert len(pings) == 1
    backend_pid(engine)
    assert len(pings) == 1  # the new connection is used as it is


def test_a_read_scope_refuses_to_write(app: Flask, new_game: SimpleNamespace) -> None:
    with app.app_context():
        with session_scope() as session:
            days = get_game(session, new_game.id).days_per_move
        with pytest.raises(ReadOnlyError), read_scope() as session:
            game = get_game(session, new_game.id)
            game.days_per_move += 1
            session.add(game)
            session.flush()
        with read_scope() as session:
            assert get_game(session, new_game.id).days_per_move == days


def test_a_read_scope_reads_each_latest_commit(url: str) -> None:
    # On PostgreSQL there is no transaction: each query sees the latest commit. The page reads
    # the game row first, and its ply bounds what it reads after. (SQLite keeps BEGIN
    # IMMEDIATE: a writer waits for the reader there.)
    upgrade_schema(url)
    app = make_test_app(url)
    try:
        with app.app_context():
            with session_scope() as session:
                game, _ = create_game(session, parse_new_game(VALID_FORM))
                game_id, before = game.id, game.days_per_move
            assert game_id is not None
            with read_scope() as reader:
                assert get_game(reader, game_id).days_per_move == before
                with session_scope() as writer:
                    game = get_game(writer, game_id)
                    game.days_per_move = before + 1
                    writer.add(game)
                reader.expire_all()
                assert get_game(reader, game_id).days_per_move == before + 1
    finally:
        empty_and_close(app)
