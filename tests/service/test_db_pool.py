"""Pooled PostgreSQL connections: pinged only after resting, replaced when the server dropped
them (a real server, a backend really terminated)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import sqlalchemy as sa

from service.db import make_engine
from tests.service.conftest import PostgresServer


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


def test_without_the_ping_the_dropped_connection_fails_one_request(
    url: str, postgres: PostgresServer, engines: list[sa.Engine]
) -> None:
    # What the ping saves: a connection that rested less than idle_ping_s is used as it is.
    engine = make_engine(url, idle_ping_s=3600)
    engines.append(engine)
    dropped = backend_pid(engine)
    postgres.admin.execute("SELECT pg_terminate_backend(%s)", (dropped,))
    with pytest.raises(sa.exc.OperationalError):
        backend_pid(engine)
    assert backend_pid(engine) != dropped  # the pool was replaced after the failure
