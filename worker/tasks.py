"""The worker's tasks. Each takes ids, re-loads what it needs, and may run twice without harm:
that is what lets them be ``acks_late``."""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime
from typing import Any

from celery import Task, shared_task
from flask import current_app

from service.lobby import automatch
from service.mail import delivery
from service.outbox import prune
from service.outbox.queue import DELIVER_TASK, SWEEP_TASK
from service.tournaments import beat as tournament_beat
from service.turns import digest, scan, start


@shared_task(name=DELIVER_TASK, bind=True, acks_late=True)
def deliver(self: Task, *outbox_ids: int) -> dict[str, Any]:  # type: ignore[type-arg]
    """Send these outbox rows (the rows of one commit) if they are still queued, each once, over
    one SMTP connection; then, in a worker, the other rows never tried yet (at most
    ``MAIL_SWEEP_BATCH``), so that a backlog goes in batches and the tasks queued behind this
    one find their rows taken. A temporary SMTP failure is recorded on the row (its next attempt
    time) and the beat sweep retries it: no Celery retry here."""
    if self.request.is_eager:  # in a web request: its own connection, only its own rows
        return asdict(delivery.deliver_rows(outbox_ids))
    # A worker keeps its SMTP connection between tasks.
    drain = int(current_app.config["MAIL_SWEEP_BATCH"])
    return asdict(delivery.deliver_rows(outbox_ids, delivery.worker_postman(), drain=drain))


@shared_task(name=SWEEP_TASK, bind=True, acks_late=True)
def sweep_outbox(self: Task) -> dict[str, Any]:  # type: ignore[type-arg]
    """Queue again the rows whose claim expired and send every queued row whose next attempt is
    due (the beat schedule runs this). A sweep that stopped at its batch size queues the next
    one at once, so a backlog drains without waiting for the beat."""
    report = delivery.sweep()
    if report.more and not self.request.is_eager:
        self.apply_async()
    return asdict(report)


@shared_task(name=prune.PRUNE_TASK, bind=True, acks_late=True)
def prune_outbox(self: Task) -> dict[str, Any]:  # type: ignore[type-arg]
    """Drop the bodies of emails sent longer ago than ``OUTBOX_KEEP_BODIES_DAYS``, in short
    batches (the beat schedule runs this); a run that stopped at its number of batches queues
    the next one at once. Idempotent: a pruned row is not pruned again."""
    report = prune.prune_due()
    if report.more and not self.request.is_eager:
        self.apply_async()
    return asdict(report)


@shared_task(name=start.START_TURN_TASK, acks_late=True)
def start_turn(game_id: int, turn: int) -> str:
    """The start of a turn: automatic claims, then the "your turn" email. Idempotent through
    ``games.turn_notified`` (a second run for the same turn does nothing)."""
    return start.start_turn(game_id, turn).value


@shared_task(name=start.COMPUTER_TURN_TASK, acks_late=True)
def start_computer_turn(game_id: int, turn: int) -> str:
    """``start_turn`` of a computer seat's turn: it plays once its delay is over (else the
    deadline scan comes back for it). Idempotent through ``games.turn_notified``."""
    return start.start_turn(game_id, turn, computer=True).value


@shared_task(name=scan.SCAN_TASK, acks_late=True)
def scan_deadlines() -> dict[str, Any]:
    """Find the games where a reminder, a running-late note, a vacation day or a timeout is due
    now and queue a ``check_game`` for each; start lost turns (the beat schedule runs this every
    minute)."""
    return asdict(scan.scan_deadlines())


@shared_task(name=scan.CHECK_TASK, acks_late=True)
def check_games(now: str, *game_ids: int) -> dict[int, str]:
    """Do what is due in each game at the scan's moment ``now`` (ISO 8601), one transaction per
    game. Idempotent: what was done is recorded on the game row in the same transaction."""
    moment = datetime.fromisoformat(now)
    return {game_id: scan.check_game(game_id, moment).value for game_id in game_ids}


@shared_task(name=scan.COMPUTER_CHECK_TASK, acks_late=True)
def check_computer_games(now: str, *game_ids: int) -> dict[int, str]:
    """``check_games`` of games where the computer is to move: it plays there, on its queue."""
    moment = datetime.fromisoformat(now)
    return {game_id: scan.check_game(game_id, moment).value for game_id in game_ids}


@shared_task(name=digest.DIGEST_TASK, acks_late=True)
def send_digests() -> int:
    """Today's digests not sent yet (``players.digest_sent_at`` keeps it to one a day)."""
    return len(digest.send_digests())


@shared_task(name=automatch.RENEW_TASK, acks_late=True)
def renew_standing_requests() -> dict[str, Any]:
    """Post again the kept-going standing requests whose game has ended (the beat schedule runs
    this). Idempotent: a renewed request's due time is cleared with the renewal."""
    return asdict(automatch.renew_due())


@shared_task(name=tournament_beat.SWEEP_TASK, acks_late=True)
def sweep_tournaments() -> dict[str, Any]:
    """Start the tournaments whose start date has come; act on passed round deadlines (the beat
    schedule runs this). Idempotent: each change is made under the tournament's lock, once."""
    return asdict(tournament_beat.sweep())
