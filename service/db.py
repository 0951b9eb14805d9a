"""The database engine, the one session pattern, and schema upgrades through Alembic.

Every unit of work, in a view, a command or (later) a task, is one ``with session_scope() as
session:`` block: it commits when the block ends normally and rolls back on any exception.

SQLite ignores ``SELECT ... FOR UPDATE`` (SQLAlchemy drops it silently), so on SQLite every
transaction starts with ``BEGIN IMMEDIATE``: it takes the write lock up front and a second writer
waits (busy timeout) instead of reading a state that is about to change. WAL lets readers of
other connections go on. On PostgreSQL, ``games.rows.lock_game`` takes a row lock with ``SELECT ...
FOR UPDATE``.
"""

from __future__ import annotations

import json
import select
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from flask import Flask, current_app, g, has_request_context
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, SQLModel

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
EXTENSION_KEY = "battleline.db"


def compact_json(value: Any) -> str:
    """JSON columns without the spaces of ``json.dumps``' defaults: a snapshot is stored for
    every block of plies of every game, and spaces are a tenth of it."""
    return json.dumps(value, separators=(",", ":"))


IDLE_PING_S = 10.0
"""A pooled connection that rested longer than this is pinged before it is used again."""
_RESTING_SINCE = "battleline.resting_since"


def server_has_spoken(dbapi_connection: Any) -> bool:
    """Whether a pooled (idle) connection has something to read, or is closed: the server sent
    it a message (a restart or ``pg_terminate_backend`` sends "terminating connection" and
    closes it) or the connection is gone. An idle connection is sent nothing otherwise (no
    LISTEN here), so this asks the kernel, with no round trip to the server."""
    if getattr(dbapi_connection, "closed", False):
        return True
    try:
        fileno = dbapi_connection.fileno()
    except Exception:  # closed meanwhile, or a driver without a socket: ask the server
        return True
    poller = select.poll()
    poller.register(fileno, select.POLLIN | select.POLLPRI)
    return bool(poller.poll(0))


def ping_when_needed(engine: sa.Engine, idle_s: float) -> None:
    """Ping a pooled connection before use when the server has spoken to it since it was last
    used (``server_has_spoken``: a dropped connection, found with a system call) or when it has
    rested ``idle_s`` or more, and replace it if the ping fails (SQLAlchemy's pessimistic
    disconnect handling, made lazy).

    A ping on every checkout (``pool_pre_ping``) is a round trip per request, a noticeable part
    of a page's CPU (docs/architecture.md). A restart of the server drops connections used a
    moment ago too; they would fail the next request each (tests/service/test_db_restart.py).
    The rest ping catches what the kernel cannot see yet (a connection cut by an idle timeout
    far away)."""

    @sa.event.listens_for(engine, "checkin")
    def _rests(_dbapi_connection: Any, record: Any) -> None:
        record.info[_RESTING_SINCE] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _wakes(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.pop(_RESTING_SINCE, None)
        rested = since is not None and time.monotonic() - since >= idle_s
        if not rested and (since is None or not server_has_spoken(dbapi_connection)):
            return
        try:
            engine.dialect.do_ping(dbapi_connection)
        except Exception as error:
            # The pool discards this connection and checks out another (up to three tries).
            raise sa.exc.DisconnectionError(
                f"a pooled connection failed its ping: {error}"
            ) from error


def make_engine(
    url: str,
    *,
    busy_timeout_s: float = 15.0,
    foreign_keys: bool = True,
    idle_ping_s: float = IDLE_PING_S,
) -> sa.Engine:
    """An engine for ``url``; on SQLite with WAL, a busy timeout and ``BEGIN IMMEDIATE``; on a
    server, pooled connections pinged when the server dropped them or after ``idle_ping_s`` of rest
    (``ping_when_needed``).

    ``foreign_keys=False`` is for migrations: batch mode copies tables, which enforced foreign
    keys would break, and SQLite cannot switch the check inside a transaction.
    """
    if not url.startswith("sqlite"):
        engine = sa.create_engine(url, json_serializer=compact_json)
        ping_when_needed(engine, idle_ping_s)
        return engine
    engine = sa.create_engine(
        url, connect_args={"timeout": busy_timeout_s}, json_serializer=compact_json
    )

    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: sqlite3.Connection, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event, not the driver, decide how a transaction starts.
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={int(busy_timeout_s * 1000)}")
        cursor.execute(f"PRAGMA foreign_keys={'ON' if foreign_keys else 'OFF'}")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: sa.Connection) -> None:
        connection.exec_driver_sql("BEGIN IMMEDIATE")

    return engine


def init_app(app: Flask) -> None:
    """Create the app's engine and dispose of its pool when the app is torn down."""
    app.extensions[EXTENSION_KEY] = make_engine(
        app.config["DATABASE_URL"], busy_timeout_s=app.config["SQLITE_BUSY_TIMEOUT_S"]
    )


def get_engine(app: Flask | None = None) -> sa.Engine:
    """The engine of ``app`` (default: the current app)."""
    engine: sa.Engine = (app or current_app).extensions[EXTENSION_KEY]
    return engine


COMMITTED_KEY = "battleline_committed"
"""On ``flask.g``: True once a request has committed (or begun to commit) a change. An error
after that must not say that nothing was changed (``service.errors``)."""
_WROTE_KEY = "battleline.wrote"


def _note_write(session: Session, _flush_context: Any) -> None:
    session.info[_WROTE_KEY] = True


def committed_in_request() -> bool:
    """True when this request has committed, or begun to commit, a change to the database."""
    return has_request_context() and bool(g.get(COMMITTED_KEY))


@contextmanager
def session_scope() -> Iterator[Session]:
    """One transaction: commit when the block ends, roll back if it raises.

    Objects stay readable after the block (``expire_on_commit=False``), so a view can commit
    and then render what it loaded. In a request, a commit of a change is noted on ``flask.g``
    (``committed_in_request``) just before it is made: once COMMIT is sent, a failure (the
    connection lost, an after-commit hook) leaves the change saved or not, never surely not.
    """
    in_request = has_request_context()
    with Session(get_engine(), expire_on_commit=False) as session:
        if in_request:
            sa.event.listen(session, "after_flush", _note_write)
        try:
            yield session
            if in_request and (
                session.info.get(_WROTE_KEY) or session.new or session.dirty or session.deleted
            ):
                setattr(g, COMMITTED_KEY, True)
            session.commit()
        except BaseException:
            session.rollback()
            raise


class ReadOnlyError(RuntimeError):
    """A ``read_scope`` session was asked to write: a bug in the view, not the person's error."""


def _refuse_write(session: Session, _flush_context: Any, _instances: Any) -> None:
    raise ReadOnlyError("a read_scope session writes nothing; use session_scope")


class _ReadSession(Session):
    """A ``read_scope`` session on a server: its class refuses a flush, so no page pays for
    listening on each one."""


sa.event.listen(_ReadSession, "before_flush", _refuse_write)


@contextmanager
def read_scope() -> Iterator[Session]:
    """A session for a page that only reads: on a server, its queries run without a
    transaction (each sees the latest committed data), which saves the BEGIN and COMMIT round
    trips, a share of a page's CPU (docs/architecture.md, measured). Any write raises ReadOnlyError.

    Only for reads that stay consistent without one snapshot: a game's log is append-only,
    its row's ``ply`` bounds every later read of the log and the snapshots, and a snapshot is
    read at or before that ply. SQLite keeps its one transaction (``BEGIN IMMEDIATE``)."""
    engine = get_engine()
    if engine.dialect.name == "sqlite":
        with session_scope() as session:
            sa.event.listen(session, "before_flush", _refuse_write)
            yield session
        return
    with (
        engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection,
        _ReadSession(bind=connection, expire_on_commit=False) as session,
    ):
        yield session


def read_rows(session: Session, statement: sa.Executable, params: Mapping[str, Any]) -> Any:
    """The result of a Core select of columns (no ORM entities) on the session's connection, in
    its transaction: without the ORM's execution machinery, which is much of a hot page
    query's CPU (docs/architecture.md, measured). Pending ORM changes are flushed first, as
    ``Session.execute`` would."""
    if session.new or session.dirty or session.deleted:
        session.flush()
    return session.connection().execute(statement, params)


def added_once(session: Session, row: SQLModel) -> bool:
    """Add ``row`` in a savepoint; False when a unique index refuses it (the same row made at
    the same moment by another request), and the caller's transaction goes on."""
    try:
        with session.begin_nested():
            session.add(row)
    except IntegrityError:
        return False
    return True


def alembic_config(url: str) -> Any:
    """An Alembic ``Config`` for this project's migrations, pointed at ``url``."""
    from alembic.config import Config

    config = Config(str(MIGRATIONS_DIR / "alembic.ini"))
    config.set_main_option("script_location", str(MIGRATIONS_DIR))
    # Passed as an attribute, not an ini option, so a '%' in a password needs no escaping.
    config.attributes["database_url"] = url
    return config


def upgrade_schema(url: str, revision: str = "head") -> None:
    """Create or upgrade the schema at ``url`` to ``revision`` (what ``flask db upgrade`` runs)."""
    from alembic import command

    command.upgrade(alembic_config(url), revision)
