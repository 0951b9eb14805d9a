"""Recording ``sent``: right after the server's 250, in a thread of its own (``Recorder``), so that
the commit of one row's result overlaps the SMTP exchange of the next row. At most
``UNRECORDED_MAX`` rows of a batch are in the window of a repeat at one moment (see
``service.mail.delivery``); a success that follows failures of the server makes the rows waiting
on a backoff due at once (``recording.pull_forward``)."""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

import sqlalchemy as sa
from flask import current_app

from service.db import get_engine
from service.mail.delivery.claims import Claim
from service.mail.delivery.recording import DB_ERRORS, pull_forward, retry_on_db_errors
from service.mail.delivery.state import DeliveryState
from service.models import utcnow
from service.outbox.models import OutboxStatus
from service.outbox.picked_rows import OUTBOX, ROW

logger = logging.getLogger(__name__)


_MARK_SENT = (
    sa.update(OUTBOX)
    .where(ROW.id == sa.bindparam("row_id"), ROW.status != OutboxStatus.SENT)
    .values(status=OutboxStatus.SENT, sent_at=sa.bindparam("sent_time"), last_error=None)
)
"""Whatever happened to the row meanwhile, the server has accepted it now."""


@functools.lru_cache(maxsize=4)
def _driver_statement(dialect: sa.Dialect) -> tuple[str, dict[str, object]]:
    """``_MARK_SENT`` as the driver takes it (``Recorder._mark_psycopg``), compiled once: its
    text, and the values of its parameters but ``row_id`` and ``sent_time``."""
    compiled = _MARK_SENT.compile(dialect=dialect)
    values = compiled.construct_params({"row_id": 0, "sent_time": None})
    return compiled.string, {
        name: value for name, value in values.items() if name not in ("row_id", "sent_time")
    }


@dataclass(frozen=True)
class _Accepted:
    """A claimed row the server accepted (its 250), to be recorded sent."""

    claim: Claim
    sent_time: datetime
    pull: bool
    """Its success follows failures: pull the waiting rows forward once it is recorded."""


def _accept(claim: Claim, state: DeliveryState) -> _Accepted:
    """The server accepted ``claim`` now (decided here, in the sending thread: a failure of the
    next row must not be pulled forward by this row's record)."""
    return _Accepted(claim, utcnow(), state.server_accepted(claim.attempts))


class _SentRow(TypedDict):
    """The bound parameters of ``_MARK_SENT`` for one row."""

    row_id: int
    sent_time: datetime


_Params = list[_SentRow]


def _record_sent(
    accepted: list[_Accepted],
    state: DeliveryState,
    mark: Callable[[_Params], None],
) -> bool:
    """Record rows sent (``mark``: one short transaction, tried again on database errors);
    whether that was recorded."""
    params = [_SentRow(row_id=item.claim.id, sent_time=item.sent_time) for item in accepted]
    ids = [item.claim.id for item in accepted]
    pull = any(item.pull for item in accepted)
    try:
        retry_on_db_errors(f"outbox rows {ids} as sent", lambda: mark(params))
    except DB_ERRORS:
        logger.exception(
            "outbox rows %s were accepted by the SMTP server but could not be marked sent: they "
            "are sent again after the lease, with the same Message-IDs",
            ids,
        )
        if pull:
            state.pull_not_done()
        return False
    if pull:
        try:
            moved = pull_forward()
        except DB_ERRORS:
            logger.exception("could not pull the waiting outbox rows forward")
        else:
            if moved:
                logger.info("SMTP answers again: %s waiting outbox rows are due now", moved)
    return True


UNRECORDED_MAX = 2
"""The most rows of a batch in the window of a repeat at one moment: the row being sent and the
rows the server accepted before it whose ``sent`` is not committed yet (before each row the
worker waits until at most ``UNRECORDED_MAX - 1`` are). 2: one row's ``sent`` is committed while
the next row goes."""


class Recorder:
    """Records ``sent`` for a batch's rows in a thread of its own, so that the commit of one
    row's result (a round trip to the database and a disk flush) overlaps the SMTP
    exchange of the next row instead of following it. Each row goes in the first transaction
    that starts after its 250 (the rows that came meanwhile, if ``UNRECORDED_MAX`` lets more
    than one wait, go together). Before each row the sender waits until at most
    ``UNRECORDED_MAX - 1`` rows are unrecorded, and it stops once a record failed
    (``failed``)."""

    def __init__(self, state: DeliveryState) -> None:
        self._app = current_app._get_current_object()  # type: ignore[attr-defined]
        self.state = state
        self._changed = threading.Condition()
        self._waiting: list[_Accepted] = []
        self._recording = 0
        self._closing = False
        self._thread: threading.Thread | None = None
        self._connection: sa.Connection | None = None
        self._raw: Any = None  # the pool's psycopg connection, only on that driver
        self.failed = False

    def accepted(self, claim: Claim) -> None:
        """The server accepted this row: record it sent as soon as possible."""
        item = _accept(claim, self.state)
        with self._changed:
            if self._thread is None:
                self._thread = threading.Thread(
                    target=self._run, name="outbox-recorder", daemon=True
                )
                self._thread.start()
            self._waiting.append(item)
            self._changed.notify_all()

    def settle(self, most: int = 0) -> bool:
        """Wait until at most ``most`` accepted rows are unrecorded; whether every record so far
        was committed."""
        with self._changed:
            self._changed.wait_for(lambda: len(self._waiting) + self._recording <= most)
            return not self.failed

    def close(self) -> bool:
        """Record what is left and end the thread; whether every record was committed."""
        recorded = self.settle()
        with self._changed:
            self._closing = True
            self._changed.notify_all()
        if self._thread is not None:
            self._thread.join()
        return recorded

    def _mark(self, params: _Params) -> None:
        """One transaction on a connection kept for the batch (no ORM session, no pool check
        per record: cheaper than ``session_scope``, docs/architecture.md); a new connection after
        a database error. On psycopg, straight on the driver (``_mark_psycopg``)."""
        engine = get_engine()
        if engine.dialect.name == "postgresql" and engine.dialect.driver == "psycopg":
            self._mark_psycopg(engine, params)
            return
        if self._connection is None:
            self._connection = engine.connect()
        try:
            with self._connection.begin():
                self._connection.execute(_MARK_SENT, params[0] if len(params) == 1 else params)
        except BaseException:
            self._connection.close()
            self._connection = None
            raise

    def _mark_psycopg(self, engine: sa.Engine, params: _Params) -> None:
        """``_MARK_SENT`` straight on psycopg, compiled once (``_driver_statement``): the recorder
        holds the interpreter lock for less time than through SQLAlchemy's execution, and the
        sender, which needs it at each SMTP reply, waits less (docs/architecture.md).
        Database errors come out as SQLAlchemy's, as from ``_mark``.

        The connection is in autocommit while the recorder has it: each mark is one statement,
        its own transaction, in one round trip instead of three (BEGIN, UPDATE, COMMIT). Several
        rows go as several such statements (``executemany``): each mark stands alone."""
        if self._raw is None:
            self._raw = engine.raw_connection()
            self._raw.driver_connection.autocommit = True
        connection = self._raw.driver_connection
        process = ROW.sent_at.type.bind_processor(engine.dialect)
        text, constants = _driver_statement(engine.dialect)
        rows = [
            {
                **constants,
                "row_id": row["row_id"],
                "sent_time": process(row["sent_time"]) if process else row["sent_time"],
            }
            for row in params
        ]
        dbapi = engine.dialect.loaded_dbapi
        try:
            with connection.cursor() as cursor:
                if len(rows) == 1:
                    cursor.execute(text, rows[0])
                else:
                    cursor.executemany(text, rows)
        except (dbapi.OperationalError, dbapi.InterfaceError) as error:
            self._raw.invalidate()
            self._raw = None
            raise sa.exc.OperationalError(text, rows, error) from error

    def _give_back_raw(self) -> None:
        """Return the driver's connection to the pool as the pool lent it (not in autocommit)."""
        raw, self._raw = self._raw, None
        try:
            raw.driver_connection.autocommit = False
        except Exception:  # a broken connection: the pool must not lend it again
            logger.warning("the outbox recorder's connection is broken: discarded", exc_info=True)
            raw.invalidate()
        raw.close()

    def _run(self) -> None:
        with self._app.app_context():
            try:
                self._record_all()
            finally:
                if self._connection is not None:
                    self._connection.close()
                if self._raw is not None:
                    self._give_back_raw()

    def _record_all(self) -> None:
        while True:
            with self._changed:
                self._changed.wait_for(lambda: bool(self._waiting) or self._closing)
                if not self._waiting:
                    return
                group, self._waiting = self._waiting, []
                self._recording = len(group)
            recorded = False
            try:
                recorded = _record_sent(group, self.state, self._mark)
            except BaseException:
                logger.exception("recording outbox rows %s failed", [a.claim.id for a in group])
            finally:
                with self._changed:
                    self._recording = 0
                    self.failed = self.failed or not recorded
                    self._changed.notify_all()
