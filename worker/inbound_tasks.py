"""The task of play by reply: one pass over the IMAP mailbox of replies (beat runs it every
``INBOUND_IMAP_POLL_S`` when ``INBOUND_IMAP_HOST`` is set). Idempotent: a message is marked
handled only after ``receive`` committed, and a message received twice (two passes at once, or a
crash before the mark) is found by its Message-ID and changes nothing, so it may be
``acks_late``."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from celery import shared_task

from service.inbound import imap
from worker import INBOUND_POLL_TASK


@shared_task(name=INBOUND_POLL_TASK, acks_late=True)
def poll_inbound_mailbox() -> dict[str, Any]:
    """Hand every message of the mailbox not handled yet to ``service.inbound.receive``."""
    return asdict(imap.poll_mailbox())
