"""The worker's tasks. Each takes ids, re-loads what it needs, and may run twice without harm:
that is what lets them be ``acks_late``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import Task, shared_task

from service.mail import delivery
from service.outbox.queue import DELIVER_TASK, SWEEP_TASK
from service.turns import digest, scan, start


@shared_task(name=DELIVER_TASK, bind=True, acks_late=True)
def deliver(self: Task, outbox_id: int) -> str:  # type: ignore[type-arg]
    """Send one outbox row if it is still queued, once. A temporary SMTP failure is recorded on
    the row (its next attempt time) and the beat sweep retries it: no Celery retry here."""
    # A worker keeps its SMTP connection between tasks; an eager run (in a web request) does not.
    postman = None if self.request.is_eager else delivery.worker_postman()
    try:
        return delivery.deliver_one(outbox_id, postman).value
    except delivery.TransientMailError:
        return delivery.Outcome.RETRY.value


@shared_task(name=SWEEP_TASK, bind=True, acks_late=True)
def sweep_outbox(self: Task) -> dict[str, Any]:  # type: ignore[type-arg]
    """Queue again the rows whose claim expired and send every queued row whose next attempt is
    due (the beat schedule runs this). A sweep that stopped at its batch size queues the next
    one at once, so a backlog drains without waiting for the beat."""
    report = delivery.sweep()
    if report.more and not self.request.is_eager:
        self.apply_async()
    return asdict(report)


@shared_task(name=start.START_TURN_TASK, acks_late=True)
def start_turn(game_id: int, turn: int) -> str:
    """The start of a turn: automatic claims, then the "your turn" email. Idempotent through
    ``games.turn_notified`` (a second run for the same turn does nothing)."""
    return start.start_turn(game_id, turn).value


@shared_task(name=scan.SCAN_TASK, acks_late=True)
def scan_deadlines() -> dict[str, Any]:
    """Reminders, running-late notes, vacation days and timeouts due now, and lost turn starts
    (the beat schedule runs this every minute). Idempotent: each game is changed under its lock
    and only when its ``next_check_at`` has come."""
    return asdict(scan.scan_deadlines())


@shared_task(name=digest.DIGEST_TASK, acks_late=True)
def send_digests() -> int:
    """Today's digests not sent yet (``players.digest_sent_at`` keeps it to one a day)."""
    return len(digest.send_digests())
