"""``flask --app service mail sweep``: the embedded mode's stand-in for the beat schedule.

With no Redis no beat runs: this sends every email still unsent, starts turns whose start was
lost, runs the deadline scan once (reminders, vacation days, timeouts) and the daily digest.
Run it from cron every few minutes in an embedded deployment. It sits above the areas (mail and
turns), like the app factory that registers it.
"""

from __future__ import annotations

from datetime import timedelta

import click
from flask.cli import AppGroup

from service.mail import delivery
from service.models import utcnow
from service.turns.digest import send_digests
from service.turns.scan import scan_deadlines

mail_cli = AppGroup("mail", help="The outbox and the scheduled mail (embedded mode).")


@mail_cli.command("sweep")
def sweep_command() -> None:
    """Send what is unsent and do what is due now (deadlines, lost turn starts, digests)."""
    report = scan_deadlines()
    digests = send_digests()
    # Every queued row, whatever its next attempt time: someone asked for it now.
    mail = delivery.sweep(due_by=utcnow() + timedelta(days=36500))
    click.echo(
        f"turns started {len(report.turns_started)}, games checked for deadlines "
        f"{len(report.checked)}, digests {len(digests)}; "
        f"emails sent {mail.sent}, failed {mail.failed}, to retry {mail.retry}"
    )
