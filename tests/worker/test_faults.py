"""Faults with real parts: SMTP down, a worker killed mid-delivery, Redis restarted, PostgreSQL
restarted, two workers sweeping at once. Every email arrives, and none twice once it was marked
sent.
(tests/worker/test_kill_points.py kills a worker at each step of one delivery.)"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from datetime import timedelta

import sqlalchemy as sa
from flask import Flask
from sqlmodel import select

from service.db import session_scope
from service.models import Player, utcnow
from service.outbox import MailKind, queue_email
from service.outbox.models import OutboxMessage
from service.outbox.queue import PENDING_KEY, SWEEP_TASK
from tests.service.conftest import PostgresServer, make_test_app
from tests.worker.conftest import (
    FAST_MAIL_SETTINGS,
    PrivateRedis,
    SMTPServer,
    Stack,
    WorkerProcess,
    close_app,
    wait_for,
)
from tests.worker.outbox_rows import rows


def queue(web: Flask, count: int, *, dispatch: bool = True, start: int = 0) -> list[int]:
    """Queue ``count`` "my games" emails to distinct players, committed in one transaction."""
    with web.app_context(), session_scope() as session:
        ids = []
        for number in range(start, start + count):
            player = Player(email=f"p{number}@example.org", display_name=f"Player {number}")
            session.add(player)
            session.flush()
            row = queue_email(
                session, MailKind.MY_GAMES, player, subject="Your Battle Line games",
                context={"games_url": f"http://bl.test/me/t{number}"},
            )  # fmt: skip
            assert row is not None and row.id is not None
            ids.append(row.id)
        if not dispatch:
            # As if the web process died right after its commit: only the sweep can send them.
            session.info.pop(PENDING_KEY, None)
            for row_id in ids:
                stored = session.get(OutboxMessage, row_id)
                assert stored is not None
                stored.next_attempt_at = utcnow()
        return ids


def all_sent(web: Flask, ids: list[int]) -> bool:
    with web.app_context(), session_scope() as session:
        found = session.exec(select(OutboxMessage).where(OutboxMessage.id.in_(ids))).all()  # type: ignore[union-attr]
        return len(found) == len(ids) and all(row.status == "sent" for row in found)


def assert_each_arrived_once(web: Flask, smtp: SMTPServer, ids: list[int]) -> None:
    expected = {row.message_id for row in rows(web) if row.id in ids}
    counts = Counter(smtp.mailbox.message_ids())
    assert set(counts) == expected
    assert max(counts.values()) == 1, counts


def test_smtp_down_for_a_while(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    start_worker()
    smtp.stop()
    ids = queue(web, 5)

    def failed_twice_and_waiting() -> bool:
        # One read for both: the worker retries every second, and a row read again later may
        # be in the middle of its next attempt ("sending").
        return all(
            row.attempts >= 2
            and row.status == "queued"
            and "Connection refused" in (row.last_error or "")
            for row in rows(web)
        )

    wait_for(
        failed_twice_and_waiting,
        30,
        "every row to have failed twice while SMTP is down, and to wait in the queue",
    )
    smtp.start()
    wait_for(lambda: all_sent(web, ids), 30, "every email to be sent once SMTP is back")
    time.sleep(1.5)  # a few more sweeps and retries: nothing is sent again
    assert_each_arrived_once(web, smtp, ids)


def test_worker_killed_mid_delivery(
    web: Flask, smtp: SMTPServer, start_worker: Callable[..., WorkerProcess]
) -> None:
    worker = start_worker()
    release = threading.Event()
    smtp.mailbox.hold = release
    ids = queue(web, 1)
    wait_for(smtp.mailbox.holding.is_set, 20, "the worker to be in the middle of sending")
    worker.kill()
    release.set()  # the server's answer goes to a dead connection
    (claimed,) = rows(web)
    # The claim was committed before the SMTP exchange began; the dead worker never finished it.
    assert claimed.status == "sending" and claimed.attempts == 1
    assert claimed.claimed_at is not None
    worker.start()
    wait_for(lambda: all_sent(web, ids), 30, "the email to be sent after the restart")
    time.sleep(1.5)
    assert_each_arrived_once(web, smtp, ids)
    (row,) = rows(web)
    assert row.attempts == 2  # the killed attempt counts: it was claimed
    # Not before the claim's lease was over (the new worker took it back from the sweep).
    lease = timedelta(seconds=float(FAST_MAIL_SETTINGS["MAIL_SENDING_LEASE_S"]))
    assert row.claimed_at is not None and row.claimed_at - claimed.claimed_at >= lease


def test_redis_restarted(
    web: Flask,
    smtp: SMTPServer,
    private_redis: PrivateRedis,
    stack: Stack,
    start_worker: Callable[..., WorkerProcess],
) -> None:
    own = Stack(database_url=stack.database_url, redis_url=private_redis.url, smtp=smtp)
    own_web = make_test_app(own.database_url, **own.app_config())
    try:
        start_worker(stack_=own)
        first = queue(own_web, 1)
        wait_for(lambda: all_sent(own_web, first), 20, "the first email")
        private_redis.stop()
        during = queue(own_web, 2, start=1)  # the commit stands; queueing the task fails
        private_redis.start()
        after = queue(own_web, 2, start=3)
        ids = first + during + after
        wait_for(lambda: all_sent(own_web, ids), 60, "every email after Redis came back")
        time.sleep(1.5)
        assert_each_arrived_once(own_web, smtp, ids)
    finally:
        close_app(own_web)


def test_database_restarted(
    web: Flask,
    smtp: SMTPServer,
    stack: Stack,
    postgres: PostgresServer,
    start_worker: Callable[..., WorkerProcess],
) -> None:
    """Every backend of the database terminated, as a restart does, while the worker's and the
    web's pooled connections were used a moment ago: the next emails go by their own deliver
    tasks (no beat runs here to sweep them up), and no task fails."""
    worker = start_worker(beat=False)
    first = queue(web, 1)
    wait_for(lambda: all_sent(web, first), 20, "the first email")
    database = sa.engine.make_url(stack.database_url).database
    terminated = postgres.admin.execute(
        "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
        " WHERE datname = %s AND pid <> pg_backend_pid()",
        (database,),
    ).fetchall()
    assert len(terminated) >= 2, "the web's and the worker's connections"
    after = queue(web, 2, start=1)
    wait_for(lambda: all_sent(web, after), 20, "the emails after the restart, by their tasks")
    assert "OperationalError" not in worker.log_text()
    time.sleep(0.5)
    assert_each_arrived_once(web, smtp, first + after)


def test_two_workers_sweeping_at_once(
    web: Flask, smtp: SMTPServer, stack: Stack, start_worker: Callable[..., WorkerProcess]
) -> None:
    smtp.mailbox.delay_s = 0.02
    # A lease long enough that no exchange here runs into its deadline, even on a loaded
    # machine: FAST_MAIL_SETTINGS' 2 s leave a batch's last row under a second, and an exchange
    # stopped by its deadline after the final "." is the documented window of a repeat
    # (service.mail.delivery), not what this test is about.
    own = Stack(
        stack.database_url, stack.redis_url, smtp, queue=stack.queue,
        settings={"MAIL_SENDING_LEASE_S": "60"},
    )  # fmt: skip
    ids = queue(web, 40, dispatch=False)
    start_worker(stack_=own, beat=False, queues=[stack.queue + "-w1"], name="w1")
    start_worker(stack_=own, beat=False, queues=[stack.queue + "-w2"], name="w2")
    sweep = web.extensions["celery"].tasks[SWEEP_TASK]
    for _ in range(3):
        # Both at the same moment, each to its own worker's queue.
        sweep.apply_async(queue=stack.queue + "-w1")
        sweep.apply_async(queue=stack.queue + "-w2")
        time.sleep(0.3)
    wait_for(lambda: all_sent(web, ids), 30, "every row to be swept")
    assert_each_arrived_once(web, smtp, ids)
    peers = {arrived.peer for arrived in smtp.mailbox.arrived}
    assert len(peers) >= 2, "both workers should have sent some of the rows"


def test_mail_flows_soon_after_an_outage(
    web: Flask, smtp: SMTPServer, stack: Stack, start_worker: Callable[..., WorkerProcess]
) -> None:
    """After an outage long enough for every row to reach the backoff ceiling, mail flows again
    within MAIL_RETRY_BACKOFF_MAX_S + MAIL_SWEEP_EVERY_S of the server's return (plus a margin
    for a busy machine), all of it at once, and meanwhile each sweep probed the server once."""
    settings = {
        "MAIL_RETRY_BACKOFF_S": "0.25",
        "MAIL_RETRY_BACKOFF_MAX_S": "1",
        "MAIL_SWEEP_EVERY_S": "0.5",
        # No exchange runs into its deadline on a loaded machine (see the two workers' test).
        "MAIL_SENDING_LEASE_S": "60",
    }
    own = Stack(stack.database_url, stack.redis_url, smtp, queue=stack.queue, settings=settings)
    start_worker(stack_=own)
    smtp.stop()
    ids = queue(web, 6)
    # Each row fails once in its deliver task, then twice in sweeps (one probe per sweep):
    # waits of 0.25, 0.5 and then 1 s, the ceiling.
    outage_started = time.monotonic()
    wait_for(
        lambda: all(row.attempts >= 3 for row in rows(web)),
        60,
        "every row to have failed three times while SMTP is down",
    )
    probes = sum(row.attempts for row in rows(web)) - len(ids)
    sweeps = (time.monotonic() - outage_started) / float(settings["MAIL_SWEEP_EVERY_S"])
    assert probes <= sweeps + 2, f"{probes} probes in about {sweeps:.0f} sweeps"
    assert all(row.status == "queued" for row in rows(web))
    smtp.start()
    back = time.monotonic()
    wait_for(lambda: all_sent(web, ids), 60, "every email to be sent once SMTP is back")
    took = time.monotonic() - back
    bound = float(settings["MAIL_RETRY_BACKOFF_MAX_S"]) + float(settings["MAIL_SWEEP_EVERY_S"])
    assert took <= bound + 2.0, f"{took:.1f} s after the server's return (bound {bound} s)"
    sent_at = [row.sent_at for row in rows(web) if row.sent_at is not None]
    # The first success pulled every waiting row forward: one sweep sent them all.
    assert (max(sent_at) - min(sent_at)).total_seconds() < float(settings["MAIL_SWEEP_EVERY_S"])
    time.sleep(1.5)
    assert_each_arrived_once(web, smtp, ids)
