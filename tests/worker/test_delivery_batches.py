"""Batches: a deliver task or a sweep claims several rows and sends them over one SMTP connection,
each ``sent`` committed by a recorder thread while the next row goes (``service.mail.delivery``).

First at unit level, on SQLite and PostgreSQL: refused rows (5xx, 4xx) do not stop the others
and each is recorded as it should be; a failure of the server stops the batch and gives back the
rows not tried; a server that is down costs one row's attempt; two batches at once send each row
once; a commit of many rows publishes one task per ``TASK_BATCH`` rows. Then with real workers
(PostgreSQL, Redis, ``celery worker`` processes): two workers given the same rows send each once;
a worker killed in the middle of a batch loses nothing and sends again only rows in the window,
at most ``UNRECORDED_MAX`` of them, with their own Message-IDs.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from flask import Flask
from sqlmodel import col, select

from service.db import session_scope
from service.mail import delivery
from service.mail.delivery.recording import backoff
from service.models import AddressStatus, Player, utcnow
from service.outbox import MailKind, queue_email
from service.outbox import queue as outbox_queue
from service.outbox.models import OutboxMessage
from service.outbox.queue import DELIVER_TASK, TASK_BATCH
from tests.worker.conftest import SMTPServer, Stack, Stop, WorkerProcess, wait_for
from tests.worker.outbox_rows import rows
from tests.worker.test_kill_points import LEASE_S, Rig, mail_app, queue_one, rig, row_of

FIXTURES = (mail_app, rig)
"""Fixtures of tests/worker/test_kill_points.py that these tests use too (module-scoped ``rig``:
one of its own here)."""

_serial = iter(range(1_000_000))


def recipients(app: Flask, ids: list[int]) -> dict[int, str]:
    return {row_id: row_of(app, row_id).recipient for row_id in ids}


def commit_rows(app: Flask, count: int) -> list[int]:
    """Queue ``count`` "my games" emails in one commit (its deliver tasks are published)."""
    with app.app_context(), session_scope() as session:
        ids = []
        for _ in range(count):
            number = next(_serial)
            player = Player(email=f"batch{number}@example.org", display_name=f"Batch {number}")
            session.add(player)
            session.flush()
            row = queue_email(
                session, MailKind.MY_GAMES, player, subject="Your Battle Line games",
                context={"games_url": f"http://bl.test/me/b{number}"},
            )  # fmt: skip
            assert row is not None and row.id is not None
            ids.append(row.id)
    return ids


def copies(smtp: SMTPServer) -> Counter[str]:
    """How often the server accepted each Message-ID."""
    return Counter(smtp.mailbox.message_ids())


# ---------------------------------------------------------------- one worker, both databases


def test_a_batch_goes_on_past_refused_rows_and_records_each(
    mail_app: Flask, smtp: SMTPServer
) -> None:
    ids = [queue_one(mail_app, due_now=True) for _ in range(5)]
    to = recipients(mail_app, ids)
    smtp.mailbox.refuse[to[ids[1]]] = "550 5.1.1 No such user here"
    smtp.mailbox.refuse[to[ids[3]]] = "451 4.2.1 Mailbox busy, try again later"
    before = utcnow()
    tally = delivery.deliver_rows(ids)
    assert (tally.sent, tally.failed, tally.retry) == (3, 1, 1)
    assert (tally.released, tally.skipped, tally.stopped) == (0, 0, False)
    sent = [row_of(mail_app, row_id) for row_id in (ids[0], ids[2], ids[4])]
    assert all(row.status == "sent" and row.attempts == 1 and row.sent_at for row in sent)
    refused = row_of(mail_app, ids[1])
    assert refused.status == "failed" and refused.attempts == 1
    assert "550" in (refused.last_error or "")
    with session_scope() as session:
        status = session.get(AddressStatus, refused.player_id)
        assert status is not None and status.bounced_at is not None
    later = row_of(mail_app, ids[3])
    assert later.status == "queued" and later.attempts == 1
    # Put off by the backoff from its attempt (1 s here), not against the clock now: on a
    # loaded machine more than a second may pass before this line.
    assert later.next_attempt_at >= before + backoff(1) > before
    assert "451" in (later.last_error or "")
    assert copies(smtp) == Counter(row.message_id for row in sent)
    # One SMTP connection for the whole batch: a refusal of one row leaves it open.
    assert len({arrived.peer for arrived in smtp.mailbox.arrived}) == 1


def test_a_failure_of_the_server_stops_the_batch_and_gives_back_the_rest(
    mail_app: Flask, smtp: SMTPServer
) -> None:
    ids = [queue_one(mail_app) for _ in range(4)]  # not due yet: what a deliver task finds
    due = {row_id: row_of(mail_app, row_id).next_attempt_at for row_id in ids}
    smtp.mailbox.refuse[recipients(mail_app, ids)[ids[1]]] = "421 4.3.2 Going down"
    tally = delivery.deliver_rows(ids)
    assert (tally.sent, tally.retry, tally.released, tally.stopped) == (1, 1, 2, True)
    assert row_of(mail_app, ids[0]).status == "sent"
    down = row_of(mail_app, ids[1])
    assert down.status == "queued" and down.attempts == 1 and "421" in (down.last_error or "")
    for row_id in ids[2:]:  # claimed with the 421's row, not tried: as they were
        row = row_of(mail_app, row_id)
        assert row.status == "queued" and row.attempts == 0
        assert row.next_attempt_at == due[row_id]
    assert len(smtp.mailbox.arrived) == 1


def test_a_server_that_is_down_costs_one_attempt_per_batch(
    mail_app: Flask, smtp: SMTPServer
) -> None:
    ids = [queue_one(mail_app, due_now=True) for _ in range(3)]
    smtp.stop()
    tally = delivery.deliver_rows(ids)
    assert (tally.sent, tally.retry, tally.released, tally.stopped) == (0, 1, 0, True)
    assert [row_of(mail_app, row_id).attempts for row_id in ids] == [1, 0, 0]
    assert row_of(mail_app, ids[2]).claimed_at is None  # never claimed: a probe is one row
    report = delivery.sweep()
    assert (report.sent, report.retry, report.released, report.stopped) == (0, 1, 0, True)
    assert [row_of(mail_app, row_id).attempts for row_id in ids] == [1, 1, 0]


def test_two_batches_at_once_send_each_row_once(mail_app: Flask, smtp: SMTPServer) -> None:
    """A deliver task's batch and a sweep over the same 30 rows, in two threads: each row is
    claimed by one of them (SKIP LOCKED on PostgreSQL, BEGIN IMMEDIATE on SQLite)."""
    smtp.mailbox.delay_s = 0.005
    ids = [queue_one(mail_app, due_now=True) for _ in range(30)]
    start = threading.Barrier(2)
    tallies: dict[str, delivery.Tally] = {}

    def run(name: str, work: Callable[[], delivery.Tally]) -> None:
        with mail_app.app_context():
            start.wait()
            tallies[name] = work()

    threads = [
        threading.Thread(target=run, args=("deliver", lambda: delivery.deliver_rows(ids))),
        threading.Thread(target=run, args=("sweep", delivery.sweep)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert set(tallies) == {"deliver", "sweep"}
    assert sum(tally.sent for tally in tallies.values()) == len(ids)
    assert all(tally.sent > 0 for tally in tallies.values()), tallies
    assert all(row.status == "sent" and row.attempts == 1 for row in rows(mail_app))
    assert sorted(copies(smtp).values()) == [1] * len(ids)


def test_a_commit_of_many_rows_publishes_one_task_per_batch(
    mail_app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    published: list[tuple[str, tuple[Any, ...]]] = []

    def publish(celery_app: Any, sends: list[tuple[str, tuple[Any, ...]]], what: str) -> bool:
        published.extend(sends)
        return True

    monkeypatch.setattr(outbox_queue, "publish_after_commit", publish)
    count = 2 * TASK_BATCH + 7
    ids = commit_rows(mail_app, count)
    assert [name for name, _ in published] == [DELIVER_TASK] * 3
    assert [len(args) for _, args in published] == [TASK_BATCH, TASK_BATCH, 7]
    assert [row_id for _, args in published for row_id in args] == ids


# ---------------------------------------------------------------- real workers


def test_two_workers_given_the_same_rows_send_each_once(
    web: Flask, smtp: SMTPServer, stack: Stack, start_worker: Callable[..., WorkerProcess]
) -> None:
    smtp.mailbox.delay_s = 0.01
    with web.app_context(), session_scope() as session:  # committed, nothing published
        ids = []
        for number in range(40):
            player = Player(email=f"two{number}@example.org", display_name=f"Two {number}")
            session.add(player)
            session.flush()
            row = queue_email(
                session, MailKind.MY_GAMES, player, subject="Your Battle Line games",
                context={"games_url": f"http://bl.test/me/two{number}"},
            )  # fmt: skip
            assert row is not None and row.id is not None
            ids.append(row.id)
        session.info.pop(outbox_queue.PENDING_KEY, None)
    start_worker(beat=False, queues=[stack.queue + "-w1"], name="w1")
    start_worker(beat=False, queues=[stack.queue + "-w2"], name="w2")
    deliver = web.extensions["celery"].tasks[DELIVER_TASK]
    deliver.apply_async(args=ids, queue=stack.queue + "-w1")
    deliver.apply_async(args=ids[::-1], queue=stack.queue + "-w2")

    def all_sent() -> bool:
        with web.app_context(), session_scope() as session:
            found = session.exec(select(OutboxMessage).where(col(OutboxMessage.id).in_(ids))).all()
            return len(found) == len(ids) and all(row.status == "sent" for row in found)

    wait_for(all_sent, 30, "every row to be sent")
    time.sleep(0.5)
    assert sorted(copies(smtp).values()) == [1] * len(ids)
    assert all(row.attempts == 1 for row in rows(web))
    peers = {arrived.peer for arrived in smtp.mailbox.arrived}
    assert len(peers) == 2, "each worker sends some of the rows, over one connection"


def rescue_all(rig: Rig, ids: list[int]) -> None:
    """The next worker sweeps until every row is sent (after the dead worker's lease)."""
    rescuer = rig.next_worker()
    for row_id in ids:
        rig.rescue(rescuer, row_id, LEASE_S + 20)
    rig.current = rescuer


def test_a_worker_killed_at_the_second_row_of_a_batch(rig: Rig) -> None:
    """The server has the second row (its final "."), not yet answered: that row is in the
    window and is sent again; the first was recorded sent, the third claimed and never sent."""
    mailbox = rig.stack.smtp.mailbox
    victim = rig.victim()
    ids = [queue_one(rig.web) for _ in range(3)]
    stop = Stop("received", passes=1)
    mailbox.stop = stop
    rig.send(DELIVER_TASK, victim, *ids)
    wait_for(stop.reached.is_set, 20, "the second row at the SMTP server")
    wait_for(lambda: row_of(rig.web, ids[0]).status == "sent", 20, "the first row recorded")
    assert [row_of(rig.web, row_id).status for row_id in ids[1:]] == ["sending", "sending"]
    victim.kill()
    wait_for(stop.abandoned.is_set, 20, "the SMTP server to see the worker gone")
    stop.release.set()
    rescue_all(rig, ids)
    first, second, third = (row_of(rig.web, row_id) for row_id in ids)
    assert (first.attempts, second.attempts, third.attempts) == (1, 2, 2)
    expected = {first.message_id: 1, second.message_id: 2, third.message_id: 1}
    assert {mid: copies(rig.stack.smtp)[mid] for mid in expected} == expected


def test_a_worker_killed_while_a_record_waits_sends_again_at_most_unrecorded_max(
    rig: Rig,
) -> None:
    """The first row's ``sent`` waits for a lock the test holds: the worker sends the next rows
    meanwhile, up to ``UNRECORDED_MAX`` rows not recorded, then waits. Killed there, the rows
    after the first are sent again (each with its Message-ID), the rest once: the first row's
    statement was sent before the worker died, and it commits once the lock is free."""
    most = delivery.UNRECORDED_MAX
    mailbox = rig.stack.smtp.mailbox
    victim = rig.victim()
    ids = [queue_one(rig.web) for _ in range(most + 2)]
    batch = set(recipients(rig.web, ids).values())
    stop = Stop("received")
    mailbox.stop = stop
    rig.send(DELIVER_TASK, victim, *ids)
    wait_for(stop.reached.is_set, 20, "the first row at the SMTP server")
    holder = psycopg.connect(rig.plain_url)
    try:
        holder.execute("SELECT id FROM outbox WHERE id = %s FOR UPDATE", (ids[0],))
        stop.release.set()
        wait_for(lambda: rig.waiting("mark-sent"), 20, "the recorder waiting for the lock")

        def arrived() -> int:
            return sum(1 for a in mailbox.arrived if a.rcpt_tos[0] in batch)

        wait_for(lambda: arrived() == most, 20, f"{most} rows at the SMTP server")
        time.sleep(0.5)
        assert arrived() == most  # the worker waits for the recorder
        assert {row_of(rig.web, row_id).status for row_id in ids} == {"sending"}
        victim.kill()
    finally:
        holder.rollback()
        holder.close()
    rescue_all(rig, ids)
    found = [row_of(rig.web, row_id) for row_id in ids]
    expected = {row.message_id: 2 if 0 < index < most else 1 for index, row in enumerate(found)}
    assert {mid: copies(rig.stack.smtp)[mid] for mid in expected} == expected
