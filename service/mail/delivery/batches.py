"""The delivery loop: a ``deliver`` task's rows (``deliver_rows``) or a sweep's (``sweep``),
claimed a few at a time (``claims``), sent one after the other over one SMTP connection
(``smtp.Postman``), each result recorded (``recorder`` for ``sent``, ``recording`` for the rest);
it stops at a failure of the server and gives back what it did not try. The guarantee this keeps
is in ``service.mail.delivery``."""

from __future__ import annotations

import smtplib
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from flask import current_app

from service.mail.delivery.claims import (
    CLAIM_BATCH,
    Claim,
    claim_due,
    claim_listed,
    claim_untried,
    reclaim_expired,
)
from service.mail.delivery.recorder import UNRECORDED_MAX, Recorder
from service.mail.delivery.recording import Outcome, record_failure, release
from service.mail.delivery.smtp import Postman, Wire, envelope_address, kept_postman, row_only
from service.mail.delivery.state import delivery_state
from service.models import utcnow
from service.outbox.bounce_address import bounce_address


def worker_postman() -> Postman:
    """The connection a worker process keeps between its deliveries (``MAIL_KEEPALIVE_S``)."""
    return delivery_state().worker_postman()


def _attempt(claim: Claim, postman: Postman, recorder: Recorder) -> tuple[Outcome, bool]:
    """Send one claimed row and record the result (``sent`` through ``recorder``): the outcome,
    and whether the next rows of a batch may follow (the result recorded, and no failure of the
    server)."""
    config = current_app.config
    # VERP: the row's own signed bounce address, so a bounce says which email failed.
    sender = bounce_address(config, claim.id) or envelope_address(config["MAIL_DEFAULT_SENDER"])
    try:
        message = Wire(sender, envelope_address(claim.recipient), claim.mime.encode("ascii"))
    except UnicodeError as error:  # no server could take this row: failed, the batch goes on
        return record_failure(claim, error, recorder.state)
    try:
        postman.send(message, deadline=claim.deadline)
    except (smtplib.SMTPException, OSError) as error:
        outcome, recorded = record_failure(claim, error, recorder.state)
        return outcome, recorded and row_only(error)
    recorder.accepted(claim)
    return Outcome.SENT, True


@dataclass
class Tally:
    """What a deliver task or a sweep did with the rows it claimed."""

    sent: int = 0
    failed: int = 0
    retry: int = 0
    released: int = 0
    """Claimed and not tried (a batch stopped, or half the lease went by): queued as before."""
    skipped: int = 0
    """Listed rows not claimed: sent, failed, or held by another worker."""
    stopped: bool = False
    """Stopped at a failure of the server or of the database: the rest waits for the sweep."""

    def claim_size(self, most: int) -> int:
        """How many rows to claim next: one until the server accepted a row of this batch (a
        probe: a server that is down costs one row's attempt), then up to CLAIM_BATCH (at most
        ``most``)."""
        return min(CLAIM_BATCH if self.sent else 1, most)

    def add(self, outcome: Outcome) -> None:
        if outcome is Outcome.SENT:
            self.sent += 1
        elif outcome is Outcome.FAILED:
            self.failed += 1
        elif outcome is Outcome.RETRY:
            self.retry += 1


def send_claims(
    claims: list[Claim], postman: Postman, recorder: Recorder, tally: Tally
) -> list[int]:
    """Send claimed rows one after the other over ``postman``, each ``sent`` recorded by
    ``recorder`` as soon as it can while the next one goes (a failure: recorded at once). A row
    not started before half its lease went by is released with the rest (returned: claim them
    again); at a failure that is not the row's own (``row_only``) or a result not recorded, the
    rest is released and ``tally.stopped`` set."""
    for index, claim in enumerate(claims):
        if index and time.monotonic() > claim.start_by:
            tally.released += release(claims[index:])
            return [later.id for later in claims[index:]]
        if not recorder.settle(UNRECORDED_MAX - 1):
            tally.stopped = True
            tally.released += release(claims[index:])
            return []
        outcome, go_on = _attempt(claim, postman, recorder)
        tally.add(outcome)
        if not go_on:
            tally.stopped = True
            tally.released += release(claims[index + 1 :])
            return []
    return []


def deliver_rows(
    outbox_ids: Sequence[int], postman: Postman | None = None, *, drain: int = 0
) -> Tally:
    """Send the listed outbox rows that are still queued (or whose claim expired), each once,
    claimed CLAIM_BATCH at a time (``Tally.claim_size``) and sent over one SMTP connection;
    then up to ``drain`` more rows never tried (``attempts`` 0, whatever their next attempt
    time: committed rows whose own deliver tasks are queued behind this one, and will find them
    taken).

    Stops at a failure of the server (``row_only``): the rows claimed and not tried are given
    back (``recording.release``) and wait for the sweep, like the rest. A temporary refusal of one
    row (4xx) or a permanent one (5xx) is recorded on that row and the others go on."""
    own = postman is None
    postman = postman or kept_postman()
    recorder = Recorder(delivery_state())
    tally = Tally()
    try:
        pending = sorted(set(outbox_ids))
        while pending and not tally.stopped:
            window = pending[:CLAIM_BATCH]  # a short IN list: a long one costs more than it saves
            size = tally.claim_size(len(window))
            claims = claim_listed(window, size)
            taken = {claim.id for claim in claims}
            if len(claims) < size:  # none of the others in the window can be claimed now
                tally.skipped += len(window) - len(claims)
                pending = pending[len(window) :]
            else:
                pending = [row_id for row_id in pending if row_id not in taken]
            released = send_claims(claims, postman, recorder, tally)
            pending = sorted(pending + released)
        left = drain
        while left > 0 and not tally.stopped:
            claims = claim_untried(tally.claim_size(left))
            if not claims:
                break
            left -= len(claims) - len(send_claims(claims, postman, recorder, tally))
    finally:
        if not recorder.close():
            tally.stopped = True
        if own:
            postman.close()
    return tally


@dataclass
class SweepReport(Tally):
    """What one sweep did."""

    reclaimed: int = 0
    """Rows left ``sending`` past the lease, queued again (and sent by this sweep if due)."""
    more: bool = False
    """The sweep stopped at its batch size: more rows may be due."""


def sweep(limit: int | None = None, *, due_by: datetime | None = None) -> SweepReport:
    """Queue again the rows whose claim expired, then send queued rows whose ``next_attempt_at``
    has come (by ``due_by``, default now), oldest first, claimed CLAIM_BATCH at a time
    (``Tally.claim_size``) and sent over one SMTP connection.

    Rows another worker holds are skipped (SKIP LOCKED). Stops at the first failure of the server
    (``row_only``): it is likely down (one probe per sweep), and every row keeps its own next
    attempt time. A refusal of one recipient or message does not stop it.
    """
    report = SweepReport(reclaimed=len(reclaim_expired()))
    batch = int(current_app.config["MAIL_SWEEP_BATCH"]) if limit is None else limit
    left = batch
    postman, recorder = kept_postman(), Recorder(delivery_state())
    try:
        while left > 0:
            claims = claim_due(due_by or utcnow(), report.claim_size(left))
            if not claims:
                break
            left -= len(claims) - len(send_claims(claims, postman, recorder, report))
            if report.stopped:
                break
        else:
            report.more = batch > 0
    finally:
        if not recorder.close():
            report.stopped = True
        postman.close()
    return report
