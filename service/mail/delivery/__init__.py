"""Sending outbox rows to the SMTP server: every email reaches it, and only once except in one
narrow window, where a repeat carries the same Message-ID and bytes.

Rows go in batches: a ``deliver`` task takes the rows of one commit (and then the other rows never
tried, ``batches.deliver_rows``), a sweep the rows that are due, and each sends them one after the
other over one SMTP connection. One delivery is three steps, and no database transaction is open
while the worker talks to the SMTP server:

1. **Claim** (one short transaction for up to ``CLAIM_BATCH`` rows; a single row until the server
   accepted one of the batch, so that a server that is down costs one row's attempt): each row,
   if it is ``queued`` (or ``sending`` under a claim older than ``MAIL_SENDING_LEASE_S``), is
   locked with ``SELECT ... FOR UPDATE SKIP LOCKED`` (PostgreSQL; on SQLite every transaction
   begins with ``BEGIN IMMEDIATE``) and set to ``sending`` with ``claimed_at`` and ``attempts +
   1``; commit. Other workers leave these rows alone.
2. **Send** each row's stored bytes (``OutboxMessage.mime``, Message-ID included; never rebuilt).
   The worker stops an exchange a little before the row's lease runs out
   (``smtp.DeadlineSMTP``), so two workers never talk to the server about one row at the same
   time, and a row not started within half its lease is given back (``recording.release``:
   queued as before its claim).
3. **Record** each result in a short transaction: ``sent`` right after the server's 250, by a
   recorder thread (``recorder.Recorder``) while the worker goes on with the next row (tried again a
   few times on a database error: it is idempotent); back to ``queued`` with its next attempt
   time after a temporary failure; ``failed`` after a permanent 5xx (and the address marked
   bouncing), both at once, before the next row. A refusal of one row (4xx or 5xx to its
   recipient or its message) does not stop the batch; a failure of the server (the connection
   lost or refused, a timeout, a 421, our sender or login refused) or of the database does: the
   rows claimed and not tried are given back, and wait for the sweep.

The guarantee. The SMTP server accepts each email exactly once, except when the worker dies, or
loses its connection to the SMTP server (also by a timeout) or to the database, between sending
the end of a message body (the final ".") and sending that row's ``sent`` to the database (one
statement in autocommit, which PostgreSQL commits even if the worker is gone): the server may
then have accepted the email while the row still says ``sending`` (or ``queued`` again, after a
lost reply). The row is then sent again, after the lease (or its backoff), with the same
Message-ID and bytes, so a receiver can drop the repeat. As ``sent`` is committed while the next
row goes, up to ``UNRECORDED_MAX`` rows of a batch can be in that window at one moment (the row
being sent and the rows whose ``sent`` is not committed yet; the worker waits for the recorder
before going further): a worker lost then can have that many rows sent twice, each with its own
Message-ID, never any other row. A worker lost at any other point leaves ``queued`` rows, or
``sending`` rows the server never accepted, and each is sent once, later. No email is lost: the
sweep puts a ``sending`` row whose lease is over back in the queue (``claims.reclaim_expired``).
tests/worker/test_kill_points.py kills a worker at 20 points of one delivery,
tests/worker/test_delivery_batches.py in the middle of batches.

Retries. A delivery makes one attempt at a row; the beat sweep (every ``MAIL_SWEEP_EVERY_S``) is the
only retry. After a temporary failure a row waits ``recording.backoff`` (capped at
``MAIL_RETRY_BACKOFF_MAX_S``); a sweep stops at its first failure of the server (one probe per sweep
while the server is down), and the first success after failures of the server makes every waiting
row due at once (``recording.pull_forward``; a refusal of one recipient says nothing of the server).
So mail flows again at most ``MAIL_RETRY_BACKOFF_MAX_S + MAIL_SWEEP_EVERY_S`` (plus the sweep's own
run) after the server's return.

The parts, one concept a module: ``smtp`` (the SMTP talk: the lease-bounded client, the kept
connection, what an SMTP error says), ``claims`` (claiming rows and taking back expired claims),
``recorder`` (the thread that records ``sent``), ``recording`` (the other results, in short
transactions tried again on database errors), ``batches`` (the delivery loop: ``deliver_rows``,
``sweep``), ``state`` (what one process's deliveries share: ``DeliveryState``).
"""

from service.mail.delivery.batches import SweepReport, Tally, deliver_rows, sweep, worker_postman
from service.mail.delivery.claims import Claim, reclaim_expired
from service.mail.delivery.recorder import UNRECORDED_MAX
from service.mail.delivery.recording import Outcome
from service.mail.delivery.smtp import Postman

__all__ = [
    "UNRECORDED_MAX",
    "Claim",
    "Outcome",
    "Postman",
    "SweepReport",
    "Tally",
    "deliver_rows",
    "reclaim_expired",
    "sweep",
    "worker_postman",
]
