"""Fixtures for the service: ``app``, ``client`` and ``runner`` on SQLite and on PostgreSQL.

Every test that uses ``app`` runs twice: once on a SQLite file, once on a PostgreSQL database made
for this test session (dropped at the end). PostgreSQL must be reachable at 127.0.0.1:5432 as
user ``postgres``; if it is not, the fixtures try to start the cluster and otherwise fail with a
clear message: these tests never skip silently.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import psycopg
import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlmodel import SQLModel

from service import create_app
from service.db import get_engine, upgrade_schema

PG_ADMIN_DSN = "postgresql://postgres@127.0.0.1:5432/postgres"
TEST_SECRET_KEY = "test-secret-key-for-the-service-tests"
TEST_BASE_URL = "http://bl.test"
PRODUCTION_TEST_KEY = "uT3vZ9qLw0rXb7Kc1YdN5sHe8GjA2mPf_R4oWi6Ez-Qk"
"""A key as random as production asks for (``service.secret_keys``)."""
PRODUCTION_SETTINGS: dict[str, Any] = {
    "APP_ENV": "production",
    "SECRET_KEY": PRODUCTION_TEST_KEY,
    "BASE_URL": "https://battleline.example",
    "MAIL_SERVER": "127.0.0.1",
    "MAIL_SUPPRESS_SEND": False,
    # Nobody listens on the discard port: a task is not published, its row waits for a sweep.
    "REDIS_URL": "redis://127.0.0.1:9/0",
}
"""What production refuses to start without, for a test app served as in production."""


def _connect_admin() -> psycopg.Connection[Any]:
    return psycopg.connect(PG_ADMIN_DSN, autocommit=True, connect_timeout=3)


def _ensure_postgres() -> psycopg.Connection[Any]:
    """A connection to the postgres database; starts the local cluster if needed, or fails."""
    try:
        return _connect_admin()
    except psycopg.OperationalError as first_error:
        error: Exception = first_error
    versions = sorted(os.listdir("/etc/postgresql")) if os.path.isdir("/etc/postgresql") else []
    for version in versions:
        subprocess.run(
            ["pg_ctlcluster", "--skip-systemctl-redirect", version, "main", "start"],
            capture_output=True,
            check=False,
        )
    for _ in range(20):
        try:
            return _connect_admin()
        except psycopg.OperationalError as retry_error:
            error = retry_error
            time.sleep(0.5)
    pytest.fail(
        "PostgreSQL is not reachable at 127.0.0.1:5432 as user postgres, and "
        "`pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start` did not "
        f"help. The service tests need it. Last error: {error}",
        pytrace=False,
    )


class PostgresServer:
    """Makes and drops databases on the local PostgreSQL for one test session."""

    def __init__(self) -> None:
        self.admin = _ensure_postgres()
        self.made: list[str] = []

    def new_database(self) -> str:
        name = f"battleline_test_{secrets.token_hex(6)}"
        self.admin.execute(f'CREATE DATABASE "{name}"')
        self.made.append(name)
        return f"postgresql+psycopg://postgres@127.0.0.1:5432/{name}"

    def drop_all(self) -> None:
        for name in self.made:
            self.admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        self.admin.close()


@pytest.fixture(scope="session")
def postgres() -> Iterator[PostgresServer]:
    server = PostgresServer()
    yield server
    server.drop_all()


@pytest.fixture(scope="session", params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> str:
    """A migrated database of each kind, shared by the tests of the session (emptied after each)."""
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('sqlite') / 'service.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres").new_database()
    upgrade_schema(url)
    return url


@pytest.fixture
def fresh_database_url(request: pytest.FixtureRequest, database_url: str, tmp_path: Path) -> str:
    """An empty database (no schema) of the same kind as ``database_url``."""
    if database_url.startswith("sqlite"):
        return f"sqlite:///{tmp_path / 'fresh.sqlite3'}"
    server: PostgresServer = request.getfixturevalue("postgres")
    return server.new_database()


def make_test_app(database_url: str, **overrides: Any) -> Flask:
    config = {
        "TESTING": True,
        "APP_ENV": "testing",
        "DATABASE_URL": database_url,
        "SECRET_KEY": TEST_SECRET_KEY,
        "SECRET_KEY_FALLBACKS": [],
        "BASE_URL": TEST_BASE_URL,
        # Tests make many games from one client address; the limit tests turn this back on.
        "RATELIMIT_ENABLED": False,
    }
    config.update(overrides)
    return create_app(config)


def empty_and_close(app: Flask) -> None:
    """Delete every row an app's test wrote (the database is shared by the session's tests) and
    close its pool."""
    db_engine = get_engine(app)
    with db_engine.begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    db_engine.dispose()


@pytest.fixture
def app(database_url: str) -> Iterator[Flask]:
    app = make_test_app(database_url)
    yield app
    empty_and_close(app)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


@pytest.fixture
def bare_app(tmp_path: Path) -> Iterator[Flask]:
    """An app whose database is never touched (tokens, templates): runs once, not per database."""
    app = make_test_app(f"sqlite:///{tmp_path / 'unused.sqlite3'}")
    with app.app_context():
        yield app
    get_engine(app).dispose()


VALID_FORM = {
    "a_name": "Alice",
    "a_email": "alice@example.org",
    "b_name": "Bob",
    "b_email": "bob@example.org",
    "ruleset": "battleline",
    "claims": "advanced",
    "days_per_move": "3",
    "visibility": "unlisted",
}


def sign_in_as(app: Flask, client: FlaskClient, email: str, name: str = "Alice") -> None:
    """Sign ``client`` in as the player with ``email`` (made if new) the way a person does:
    the button of their emailed "my games" link."""
    from service import tokens
    from service.db import session_scope
    from service.games.players import find_or_add_player

    with app.app_context(), session_scope() as session:
        player = find_or_add_player(session, email, name)
        assert player.id is not None
        token = tokens.make_games_token(player.id, player.token_generation)
    response = client.post(f"/me/{token}/sign-in")
    assert response.status_code == 303, response.get_data(as_text=True)


@pytest.fixture
def valid_form() -> dict[str, str]:
    """A new-game form that passes validation (a fresh copy to change)."""
    return dict(VALID_FORM)


@pytest.fixture
def new_game(app: Flask) -> SimpleNamespace:
    """A game just created (B invited), with each seat's private-page token."""
    from service import tokens
    from service.db import session_scope
    from service.lobby.forms import parse_new_game
    from service.lobby.lifecycle import create_game

    with app.app_context(), session_scope() as session:
        game, seats = create_game(session, parse_new_game(VALID_FORM))
        assert game.id is not None
        return SimpleNamespace(
            id=game.id,
            public_id=game.public_id,
            token={s: tokens.make_private_token(game.id, s, 0) for s in seats},
        )
