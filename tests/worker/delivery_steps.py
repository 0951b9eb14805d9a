"""A delivery one row at a time, for the tests that take its steps one by one
(tests/worker/test_kill_points.py): claim a row, send a claimed row, deliver one row. The
service delivers in batches only (``service.mail.delivery``); these steps are made of its API."""

from __future__ import annotations

from datetime import datetime

from service.mail.delivery.batches import Tally, deliver_rows, send_claims
from service.mail.delivery.claims import Claim, claim_due, claim_listed
from service.mail.delivery.recorder import Recorder
from service.mail.delivery.recording import Outcome
from service.mail.delivery.smtp import Postman
from service.mail.delivery.state import delivery_state
from service.models import utcnow

STEPS = ("TransientMailError", "claim_next_due", "claim_row", "deliver_one", "send_claimed")
"""The names test_kill_points.py calls as ``delivery.NAME`` (tests/worker/conftest.py)."""


class TransientMailError(Exception):
    """The SMTP server is unreachable or said "try later" (4xx): the row waits for the sweep."""


def claim_row(outbox_id: int) -> Claim | None:
    """Claim one row if it is queued (whatever its next attempt time) or its claim expired."""
    claims = claim_listed([outbox_id], 1)
    return claims[0] if claims else None


def claim_next_due(due_by: datetime | None = None) -> Claim | None:
    """Claim the queued row due first (``next_attempt_at`` by ``due_by``, default now)."""
    claims = claim_due(due_by or utcnow(), 1)
    return claims[0] if claims else None


def _outcome(tally: Tally) -> Outcome:
    """What became of the one row of ``tally``."""
    if tally.sent:
        return Outcome.SENT
    if tally.failed:
        return Outcome.FAILED
    if tally.retry:
        return Outcome.RETRY
    return Outcome.SKIPPED


def send_claimed(claim: Claim, postman: Postman) -> Outcome:
    """Send a claimed row as a batch of one, and wait until its result is recorded."""
    recorder, tally = Recorder(delivery_state()), Tally()
    try:
        send_claims([claim], postman, recorder, tally)
    finally:
        recorder.close()
    return _outcome(tally)


def deliver_one(outbox_id: int) -> Outcome:
    """Deliver one row if it is still queued (or its claim expired). Raises TransientMailError
    after a temporary failure was recorded on the row."""
    with Postman() as postman:
        outcome = _outcome(deliver_rows([outbox_id], postman))
    if outcome is Outcome.RETRY:
        raise TransientMailError(f"outbox row {outbox_id} not sent yet (its last_error says why)")
    return outcome
