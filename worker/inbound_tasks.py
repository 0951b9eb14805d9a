"""The tasks of play by reply: one pass over the IMAP mailbox of replies (beat runs it every
``INBOUND_IMAP_POLL_S`` when ``INBOUND_IMAP_HOST`` is set). Idempotent: a message is marked
handled only after ``receive`` committed, and a message received twice (two passes at once, or a
crash before the mark) is found by its Message-ID and changes nothing, so it may be
``acks_late``. And the pruning of old received emails (``service.inbound.prune``)."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import Task, shared_task

from service.inbound import imap, prune
from worker import INBOUND_POLL_TASK


@shared_task(name=INBOUND_POLL_TASK, acks_late=True)
def poll_inbound_mailbox() -> dict[str, Any]:
    """Hand every message of the mailbox not handled yet to ``service.inbound.receive``."""
    return asdict(imap.poll_mailbox())


@shared_task(name=prune.PRUNE_TASK, bind=True, acks_late=True)
def prune_inbound(self: Task) -> dict[str, Any]:  # type: ignore[type-arg]
    """Delete the received emails older than ``INBOUND_KEEP_DAYS``, in short batches (the beat
    schedule runs this); a run that stopped at its number of batches queues the next one at
    once. Idempotent: a deleted row is not there to delete again."""
    report = prune.prune_due()
    if report.more and not self.request.is_eager:
        self.apply_async()
    return asdict(report)
