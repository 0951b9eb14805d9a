"""A worker killed at each of 20 points of a delivery loses no email, and sends one twice only
in the window that ``service.mail.delivery`` states (the server has the whole message, the row
is not marked sent yet), then with the same Message-ID and bytes.

First, the claim, its lease and the reclaim at unit level, on SQLite and PostgreSQL. Then the
kill points, with real parts: PostgreSQL, Redis, ``celery worker`` processes and an aiosmtpd
server that can stop a session at any SMTP stage (``Stop`` in conftest). A point is reached
deterministically: the SMTP server waits at a stage, or the test holds a PostgreSQL lock that the
worker's next statement needs (seen waiting in ``pg_stat_activity``). Then the worker gets
SIGKILL, the next worker (started in the background meanwhile, so that no point waits for a
start) sweeps until the row is sent, and the mailbox is checked. Each worker listens on its own
queue and runs no beat: the test sends its deliver and sweep tasks.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from flask import Flask
from sqlmodel import SQLModel

from service.config import mail_config_from_env
from service.db import get_engine, session_scope
from service.mail import delivery
from service.models import Player, utcnow
from service.outbox import MailKind, queue_email
from service.outbox.models import OutboxMessage
from service.outbox.queue import DELIVER_TASK, PENDING_KEY, SWEEP_TASK
from tests.service.conftest import make_test_app
from tests.worker.conftest import (
    SMTPServer,
    Stack,
    Stop,
    WorkerProcess,
    close_app,
    wait_for,
)
from tests.worker.outbox_rows import rows

LEASE_S = 1.0
"""The claim lease of the kill points' workers: a killed claim is taken back this long after it
was made. Their SMTP exchanges take milliseconds, and a stop is cut short by SIGKILL well before
the lease's end (where the worker would stop the exchange by itself)."""

_serial = iter(range(1_000_000))


def queue_one(app: Flask, *, due_now: bool = False) -> int:
    """Commit one "my games" email to a new player, without publishing its deliver task. Due for
    the sweep MAIL_SWEEP_AFTER_S after now (as if its deliver task went first), or ``due_now``."""
    number = next(_serial)
    with app.app_context(), session_scope() as session:
        player = Player(email=f"kp{number}@example.org", display_name=f"Kill {number}")
        session.add(player)
        session.flush()
        row = queue_email(
            session, MailKind.MY_GAMES, player, subject="Your Battle Line games",
            context={"games_url": f"http://bl.test/me/k{number}"},
        )  # fmt: skip
        assert row is not None and row.id is not None
        session.info.pop(PENDING_KEY, None)
        if due_now:
            row.next_attempt_at = utcnow()
        return row.id


def pad(app: Flask, row_id: int, size: int) -> None:
    """Make the row's message ``size`` bytes longer: an epilogue after its closing boundary,
    which mail readers ignore."""
    line = "x" * 996 + "\r\n"  # long lines (SMTP allows 1000): few for the server to read
    with app.app_context(), session_scope() as session:
        row = session.get(OutboxMessage, row_id)
        assert row is not None
        row.mime = row.mime.rstrip("\r\n") + "\r\n" + line * (size // len(line))


def row_of(app: Flask, row_id: int) -> OutboxMessage:
    (row,) = rows(app, id=row_id)
    return row


# ---------------------------------------------------------------- the claim, on both databases


@pytest.fixture
def mail_app(database_url: str, smtp: SMTPServer) -> Iterator[Flask]:
    """The service on SQLite or PostgreSQL, sending to ``smtp``; delivery called directly."""
    app = make_test_app(
        database_url,
        MAIL_SERVER="127.0.0.1", MAIL_PORT=smtp.port, MAIL_SUPPRESS_SEND=False,
        MAIL_TIMEOUT_S=5.0, MAIL_SENDING_LEASE_S=60.0, MAIL_RETRY_BACKOFF_S=1.0,
        MAIL_RETRY_BACKOFF_MAX_S=1.0,
    )  # fmt: skip
    with app.app_context():
        yield app
    engine = get_engine(app)
    with engine.begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    engine.dispose()


def rewind_claim(app: Flask, row_id: int, seconds: float) -> None:
    """Make the row's claim older, as if its worker had died that long ago."""
    with session_scope() as session:
        row = session.get(OutboxMessage, row_id)
        assert row is not None and row.claimed_at is not None
        row.claimed_at -= timedelta(seconds=seconds)


def test_the_lease_defaults_above_the_smtp_timeout() -> None:
    assert mail_config_from_env({})["MAIL_SENDING_LEASE_S"] == 2 * 30 + 30
    assert mail_config_from_env({"MAIL_TIMEOUT_S": "10"})["MAIL_SENDING_LEASE_S"] == 50
    assert mail_config_from_env({"MAIL_SENDING_LEASE_S": "7"})["MAIL_SENDING_LEASE_S"] == 7
    # Mail flows within MAIL_RETRY_BACKOFF_MAX_S + MAIL_SWEEP_EVERY_S of the server's return.
    defaults = mail_config_from_env({})
    assert defaults["MAIL_RETRY_BACKOFF_MAX_S"] + defaults["MAIL_SWEEP_EVERY_S"] <= 30


def test_a_claim_is_committed_before_smtp_and_excludes_others(
    mail_app: Flask, smtp: SMTPServer
) -> None:
    row_id = queue_one(mail_app, due_now=True)
    claim = delivery.claim_row(row_id)
    assert claim is not None and claim.id == row_id and claim.attempts == 1
    row = row_of(mail_app, row_id)  # another session: the claim is committed
    assert row.status == "sending" and row.attempts == 1 and row.claimed_at is not None
    assert abs((row.claimed_at - claim.claimed_at).total_seconds()) < 0.001
    # Held: not claimed again, not due for a sweep, not expired.
    assert delivery.claim_row(row_id) is None
    assert delivery.claim_next_due() is None
    assert delivery.reclaim_expired() == []
    assert smtp.mailbox.messages() == []
    with delivery.Postman() as postman:
        assert delivery.send_claimed(claim, postman) is delivery.Outcome.SENT
    row = row_of(mail_app, row_id)
    assert row.status == "sent" and row.sent_at is not None and row.attempts == 1
    (arrived,) = smtp.mailbox.arrived
    assert arrived.message["Message-ID"] == row.message_id
    assert arrived.raw.rstrip(b"\r\n") == row.mime.encode("ascii").rstrip(b"\r\n")
    assert delivery.deliver_one(row_id) is delivery.Outcome.SKIPPED


def test_an_expired_claim_is_queued_again_and_sent_with_the_same_bytes(
    mail_app: Flask, smtp: SMTPServer
) -> None:
    row_id = queue_one(mail_app, due_now=True)
    dead = delivery.claim_row(row_id)
    assert dead is not None
    due = row_of(mail_app, row_id).next_attempt_at
    # 50 s: still within the 60 s lease, with room for a slow machine between the two lines.
    rewind_claim(mail_app, row_id, 50)
    assert delivery.reclaim_expired() == []
    rewind_claim(mail_app, row_id, 11)
    assert delivery.reclaim_expired() == [row_id]
    row = row_of(mail_app, row_id)
    assert row.status == "queued" and row.next_attempt_at == due and row.attempts == 1
    assert "claim expired" in (row.last_error or "")
    report = delivery.sweep()
    assert (report.sent, report.retry, report.reclaimed) == (1, 0, 0)
    row = row_of(mail_app, row_id)
    assert row.status == "sent" and row.attempts == 2
    (arrived,) = smtp.mailbox.arrived
    assert arrived.message["Message-ID"] == row.message_id
    assert arrived.raw.rstrip(b"\r\n") == row.mime.encode("ascii").rstrip(b"\r\n")
    # The dead claim's worker, were it only slow, stops before talking to the server.
    late = dataclasses.replace(dead, deadline=time.monotonic() - 1)
    with delivery.Postman() as postman:
        assert delivery.send_claimed(late, postman) is delivery.Outcome.RETRY
    assert len(smtp.mailbox.arrived) == 1
    assert row_of(mail_app, row_id).status == "sent"  # its failure did not touch the row


def test_a_stale_result_leaves_a_newer_claim_alone(mail_app: Flask, smtp: SMTPServer) -> None:
    row_id = queue_one(mail_app, due_now=True)
    first = delivery.claim_row(row_id)
    assert first is not None
    rewind_claim(mail_app, row_id, 61)
    second = delivery.claim_row(row_id)  # a deliver task may take an expired claim directly
    assert second is not None and second.attempts == 2
    recipient = row_of(mail_app, row_id).recipient
    smtp.mailbox.refuse[recipient] = "451 4.7.1 Try again later"
    with delivery.Postman() as postman:
        assert delivery.send_claimed(first, postman) is delivery.Outcome.RETRY
    row = row_of(mail_app, row_id)
    assert row.status == "sending" and row.attempts == 2  # still the second claim's
    del smtp.mailbox.refuse[recipient]
    with delivery.Postman() as postman:
        assert delivery.send_claimed(second, postman) is delivery.Outcome.SENT
    assert row_of(mail_app, row_id).status == "sent"
    assert len(smtp.mailbox.arrived) == 1


def test_a_claim_skips_a_locked_row(mail_app: Flask, database_url: str) -> None:
    """PostgreSQL: SKIP LOCKED passes a row another transaction holds. SQLite has no row locks:
    the claim waits for the other writer (BEGIN IMMEDIATE), then claims."""
    row_id = queue_one(mail_app, due_now=True)
    found: list[delivery.Claim | None] = []
    with get_engine(mail_app).connect() as other:
        if database_url.startswith("sqlite"):
            other.exec_driver_sql("UPDATE outbox SET attempts = attempts WHERE id = ?", (row_id,))
        else:
            other.exec_driver_sql("SELECT id FROM outbox WHERE id = %s FOR UPDATE", (row_id,))

        def claim() -> None:
            with mail_app.app_context():
                found.append(delivery.claim_row(row_id))

        claiming = threading.Thread(target=claim)
        claiming.start()
        claiming.join(0.5)
        if database_url.startswith("sqlite"):
            assert claiming.is_alive()  # waiting for the write lock
            other.commit()
            claiming.join(10)
            assert found and found[0] is not None
        else:
            assert not claiming.is_alive() and found == [None]
            assert delivery.claim_next_due() is None
            other.rollback()
            assert delivery.claim_row(row_id) is not None


def test_one_probe_per_sweep_and_a_success_pulls_the_waiting_rows_forward(
    mail_app: Flask, smtp: SMTPServer
) -> None:
    ids = [queue_one(mail_app, due_now=True) for _ in range(3)]
    down = {row_of(mail_app, row_id).recipient: "421 4.3.2 Going down" for row_id in ids}
    smtp.mailbox.refuse.update(down)
    report = delivery.sweep()
    assert (report.sent, report.retry) == (0, 1)  # stopped at the first temporary failure
    assert sorted(row.attempts for row in rows(mail_app)) == [0, 0, 1]
    for row_id in ids[1:]:
        with pytest.raises(delivery.TransientMailError):
            delivery.deliver_one(row_id)
    waiting = rows(mail_app)
    assert all(row.status == "queued" and row.next_attempt_at > utcnow() for row in waiting)
    assert delivery.sweep().sent == 0  # nobody due
    smtp.mailbox.refuse.clear()
    assert delivery.deliver_one(ids[0]) is delivery.Outcome.SENT  # its second attempt
    assert all(row.next_attempt_at <= utcnow() for row in rows(mail_app, status="queued"))
    assert delivery.sweep().sent == 2
    assert len(smtp.mailbox.arrived) == 3


def test_a_slow_server_is_left_before_the_lease_ends(mail_app: Flask, smtp: SMTPServer) -> None:
    """A server slower than the lease: the worker stops waiting for its reply a tenth of the
    lease before the end, so no other worker can take the row over while it still talks.
    The server keeps the message (its reply is lost): the window of a possible repeat."""
    mail_app.config["MAIL_SENDING_LEASE_S"] = 2.0
    smtp.mailbox.delay_s = 8.0
    row_id = queue_one(mail_app, due_now=True)
    started = time.monotonic()
    with pytest.raises(delivery.TransientMailError):
        delivery.deliver_one(row_id)
    # It did not wait for the reply (8 s away); a loaded machine may take a while to get there.
    assert time.monotonic() - started < smtp.mailbox.delay_s
    row = row_of(mail_app, row_id)
    # Requeued by this worker under its own claim: the lease had not run out (no reclaim).
    assert row.status == "queued" and row.attempts == 1


# ---------------------------------------------------------------- the kill points


@dataclass(frozen=True)
class Point:
    """One place to kill a worker in the middle of a delivery."""

    path: str
    """``task``: the row's deliver task on a new SMTP connection; ``reused``: on the connection
    the worker kept from the email before; ``sweep``: a sweep; ``reclaim``: the delivery of a
    row taken back from a killed worker (killed again)."""
    stop: str | None = None
    """The SMTP stage where the server waits (``Stop``)."""
    keep: bool = True
    reply: str | None = None
    lock: str | None = None
    """The statement the worker is made to wait for: ``claim``/``reclaim`` (the test holds
    ``LOCK TABLE outbox``), ``mark-sent``/``requeue`` (the test holds the row's lock)."""
    at_kill: str = "sending"
    """The row's status when the worker dies."""
    settles: str | None = None
    """The status it comes to with no worker, once the test lets go of its lock (default
    ``at_kill``): a statement the worker had sent before it died still runs, alone."""
    arrivals: int = 1
    """How often the server accepts the email in all: 2 in the window (same Message-ID)."""
    padding: int = 0
    """Bytes added to the message (an epilogue after its last MIME boundary): 6 MiB do not fit
    in the socket buffers (the server's 64 KiB, the client's 4 MiB at most), so a worker
    sending it to a session stopped at ``body`` dies with the rest of the message unsent."""


# A fragment of each locked statement as pg_stat_activity shows it.
STATEMENTS = {
    "claim": "attempts=(outbox.attempts",
    "reclaim": "WHERE outbox.id IN",
    "mark-sent": "sent_at=",
    "requeue": "next_attempt_at=",
}

POINTS = {
    "task-claim-waits-for-lock": Point("task", lock="claim", at_kill="queued"),
    "task-connect-before-greeting": Point("task", stop="connect"),
    "task-ehlo": Point("task", stop="ehlo"),
    "task-mail-from": Point("task", stop="mail"),
    "task-rcpt-to": Point("task", stop="rcpt"),
    "task-data-command": Point("task", stop="data"),
    "task-body-part-way": Point("task", stop="body", padding=6 * 1024 * 1024),
    "task-body-received-server-keeps-it": Point("task", stop="received", arrivals=2),
    "task-body-received-server-drops-it": Point("task", stop="received", keep=False),
    # The mark is one statement in autocommit: sent before the worker died, it commits once the
    # lock is free, so the server's copy stays the only one.
    "task-mark-sent-waits-for-lock": Point(
        "task", stop="received", lock="mark-sent", settles="sent"
    ),
    "task-requeue-after-451-waits-for-lock": Point(
        "task", stop="rcpt", reply="451 4.3.0 Try again later", lock="requeue"
    ),
    "task-after-sent-connection-kept": Point("task", at_kill="sent"),
    "reused-mail-from": Point("reused", stop="mail"),
    "reused-data-command": Point("reused", stop="data"),
    "reused-body-received-server-keeps-it": Point("reused", stop="received", arrivals=2),
    "sweep-reclaim-waits-for-lock": Point("sweep", lock="reclaim", at_kill="queued"),
    "sweep-rcpt-to": Point("sweep", stop="rcpt"),
    "sweep-mark-sent-waits-for-lock": Point(
        "sweep", stop="received", lock="mark-sent", settles="sent"
    ),
    "sweep-quit-after-sent": Point("sweep", stop="quit", at_kill="sent"),
    "reclaim-data-command-killed-again": Point("reclaim", stop="data"),
}
assert len(POINTS) == 20


class Rig:
    """The kill points' stack: PostgreSQL, Redis, an SMTP server, the web app that queues, and
    workers started one ahead in the background."""

    def __init__(self, stack: Stack, web: Flask, logs: Path) -> None:
        self.stack = stack
        self.web = web
        self.logs = logs
        self.tasks = web.extensions["celery"].tasks
        self.plain_url = stack.database_url.replace("postgresql+psycopg://", "postgresql://")
        self.monitor = psycopg.connect(self.plain_url, autocommit=True)
        self.current: WorkerProcess | None = None
        self._spare: list[tuple[WorkerProcess, threading.Thread]] = []
        self._started = 0
        self.all_workers: list[WorkerProcess] = []

    def _launch(self) -> None:
        self._started += 1
        worker = WorkerProcess(
            self.stack, self.logs / f"worker{self._started}.log", beat=False,
            queues=[f"{self.stack.queue}-w{self._started}"],
        )  # fmt: skip
        self.all_workers.append(worker)
        thread = threading.Thread(target=worker.start, daemon=True)
        thread.start()
        self._spare.append((worker, thread))

    def next_worker(self) -> WorkerProcess:
        """A ready worker; the one after it starts meanwhile."""
        if not self._spare:
            self._launch()
        worker, thread = self._spare.pop(0)
        self._launch()
        thread.join(90)
        assert worker.process is not None and worker.process.poll() is None, worker.log_text()
        return worker

    def victim(self) -> WorkerProcess:
        if self.current is None or self.current.process is None:
            self.current = self.next_worker()
        return self.current

    def send(self, task: str, worker: WorkerProcess, *args: Any) -> None:
        self.tasks[task].apply_async(args=args, queue=worker.queues[0])

    def waiting(self, statement: str) -> bool:
        """Some connection waits for a lock in the statement named ``statement``."""
        queries = self.monitor.execute(
            "SELECT query FROM pg_stat_activity "
            "WHERE datname = current_database() AND wait_event_type = 'Lock'"
        ).fetchall()
        return any(STATEMENTS[statement] in query for (query,) in queries)

    def busy_connections(self) -> list[tuple[Any, ...]]:
        """Connections inside a transaction or a statement, besides the monitor's own."""
        return self.monitor.execute(
            "SELECT pid, state, query FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid() "
            "AND state IN ('active', 'idle in transaction', 'idle in transaction (aborted)')"
        ).fetchall()

    def rescue(self, worker: WorkerProcess, row_id: int, timeout: float) -> None:
        """Sweep on ``worker`` (as its beat would) until the row is sent."""
        deadline = time.monotonic() + timeout
        while row_of(self.web, row_id).status != "sent":
            if time.monotonic() > deadline:
                pytest.fail(f"row {row_id} not sent by {worker.log}:\n{worker.log_text()[-3000:]}")
            self.send(SWEEP_TASK, worker)
            time.sleep(0.2)

    def close(self) -> None:
        for _worker, thread in self._spare:
            thread.join(90)
        for worker in self.all_workers:
            worker.kill()  # idle by now: nothing to finish
        self.monitor.close()
        self.stack.forget([queue for worker in self.all_workers for queue in worker.queues])


@pytest.fixture(scope="module")
def rig(worker_db: str, redis_url: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    server = SMTPServer()
    server.start()
    settings = {"MAIL_SENDING_LEASE_S": str(LEASE_S), "MAIL_SWEEP_AFTER_S": str(LEASE_S)}
    stack = Stack(database_url=worker_db, redis_url=redis_url, smtp=server, settings=settings)
    web = make_test_app(stack.database_url, **stack.app_config())
    with get_engine(web).begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())
    rig = Rig(stack, web, tmp_path_factory.mktemp("kill-points"))
    try:
        yield rig
    finally:
        rig.close()
        close_app(web)
        server.stop()


@pytest.mark.parametrize("name", list(POINTS))
def test_kill_point(rig: Rig, name: str) -> None:
    point = POINTS[name]
    mailbox = rig.stack.smtp.mailbox
    victim = rig.victim()
    if point.path == "reused":
        # An email first, so that the worker keeps its connection for the next one.
        warm = queue_one(rig.web)
        rig.send(DELIVER_TASK, victim, warm)
        wait_for(lambda: row_of(rig.web, warm).status == "sent", 20, "the first email sent")
    row_id = queue_one(rig.web, due_now=point.path == "sweep")
    if point.padding:
        pad(rig.web, row_id, point.padding)
    recipient = row_of(rig.web, row_id).recipient
    stop = Stop(point.stop, reply=point.reply, keep=point.keep) if point.stop else None
    mailbox.stop = stop
    holder: psycopg.Connection[Any] | None = None
    if point.lock in ("claim", "reclaim"):
        holder = psycopg.connect(rig.plain_url)
        holder.execute("LOCK TABLE outbox IN EXCLUSIVE MODE")
    if point.path == "sweep":
        rig.send(SWEEP_TASK, victim)
    else:
        rig.send(DELIVER_TASK, victim, row_id)

    if stop is not None:
        wait_for(stop.reached.is_set, 20, f"the worker at the SMTP stage {point.stop}")
        if point.at_kill == "sending":
            # Claimed and committed; nothing of the worker's open in the database.
            assert row_of(rig.web, row_id).status == "sending"
            assert rig.busy_connections() == []
    if point.lock in ("mark-sent", "requeue"):
        assert stop is not None
        holder = psycopg.connect(rig.plain_url)
        holder.execute("SELECT id FROM outbox WHERE id = %s FOR UPDATE", (row_id,))
        stop.release.set()
    if point.lock is not None:
        wait_for(lambda: rig.waiting(point.lock or ""), 20, f"the worker waiting in {point.lock}")
    if point.at_kill == "sent":
        wait_for(lambda: row_of(rig.web, row_id).status == "sent", 20, "the row marked sent")
    killed = row_of(rig.web, row_id)
    victim.kill()
    if stop is not None and not stop.release.is_set():
        if not point.padding:
            # The server sees the connection end while it waits, before it reads or answers
            # more (else it could still find the final "." of a message already in its buffers).
            wait_for(stop.abandoned.is_set, 20, "the SMTP server to see the worker gone")
        # A padded message's end was never sent: the server reads on, up to the lost connection.
        stop.release.set()
    if holder is not None:
        holder.rollback()
        holder.close()
    assert killed.status == point.at_kill
    settles = point.settles or point.at_kill
    wait_for(lambda: row_of(rig.web, row_id).status == settles, 20, f"the row {settles}")
    attempts = {"queued": 1, "sending": 2, "sent": 1}[settles]

    rescuer = rig.next_worker()
    if point.path == "reclaim":
        # The rescuer takes the row back after the lease, and dies in the same place.
        again = Stop(point.stop or "data")
        mailbox.stop = again
        rig.send(SWEEP_TASK, rescuer)
        deadline = time.monotonic() + LEASE_S + 20
        while not again.reached.is_set():
            assert time.monotonic() < deadline, "the reclaimed row's delivery to stop"
            rig.send(SWEEP_TASK, rescuer)
            again.reached.wait(0.2)
        assert row_of(rig.web, row_id).attempts == 2
        rescuer.kill()
        wait_for(again.abandoned.is_set, 20, "the SMTP server to see the rescuer gone")
        again.release.set()
        rescuer = rig.next_worker()
        attempts = 3
    rig.rescue(rescuer, row_id, LEASE_S + 20)
    rig.current = rescuer

    row = row_of(rig.web, row_id)
    assert row.attempts == attempts
    if settles == "sending":
        # Taken back only once the lease of the dead worker's claim was over.
        assert killed.claimed_at is not None and row.claimed_at is not None
        assert row.claimed_at - killed.claimed_at >= timedelta(seconds=LEASE_S)
    copies = [arrived for arrived in mailbox.arrived if recipient in arrived.rcpt_tos]
    assert len(copies) == point.arrivals, [str(c.message["Message-ID"]) for c in copies]
    assert {str(copy.message["Message-ID"]) for copy in copies} == {row.message_id}
    assert len({copy.raw for copy in copies}) == 1  # the same bytes each time


def test_after_every_kill_point_no_email_is_lost(rig: Rig) -> None:
    """Every row of the kill points is sent; the server has each at least once, twice only for
    the points in the window, always with the row's Message-ID."""
    # Long enough for any claim to expire, were one left behind; then a sweep would send it.
    time.sleep(LEASE_S + 0.2)
    rig.send(SWEEP_TASK, rig.victim())
    wait_for(lambda: all(r.status == "sent" for r in rows(rig.web)), 20, "the sweep to end")
    every = rows(rig.web)
    assert every and all(row.status == "sent" for row in every), [
        (row.id, row.status) for row in every
    ]
    expected_twice = sum(1 for point in POINTS.values() if point.arrivals == 2)
    counts = {row.message_id: 0 for row in every}
    for arrived in rig.stack.smtp.mailbox.arrived:
        counts[str(arrived.message["Message-ID"])] += 1
    assert min(counts.values()) == 1
    assert sorted(counts.values()).count(2) == expected_twice
    assert max(counts.values()) == 2
