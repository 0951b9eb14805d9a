"""``flask --app service inbound ...``: the ways in of play by reply, as commands.

- ``smtp``: the SMTP receiver (the Procfile's ``inbound``), until SIGTERM or Ctrl-C.
- ``imap-poll``: one pass over the mailbox (beat runs the same every ``INBOUND_IMAP_POLL_S``).
- ``imap-idle``: watch the mailbox with IDLE, until SIGTERM or Ctrl-C.
- ``receive FILE``: receive one message from a file, or ``-`` for standard input (for a mail
  server's pipe transport); prints what came of it.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType
from typing import IO

import click
from flask import current_app
from flask.cli import AppGroup

from service.inbound import imap, smtp
from service.inbound.receive import receive

inbound_cli = AppGroup("inbound", help="Play by reply: receive emails (SMTP, IMAP, a file).")


def _stop_on_signals() -> threading.Event:
    stop = threading.Event()

    def handler(_signum: int, _frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)
    return stop


@inbound_cli.command("smtp")
def smtp_command() -> None:
    """Run the SMTP receiver on INBOUND_SMTP_HOST:INBOUND_SMTP_PORT."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    config = app.config
    click.echo(
        f"receiving {config['INBOUND_LOCAL_PART']}+...@{config['INBOUND_DOMAIN']} on "
        f"{config['INBOUND_SMTP_HOST']}:{config['INBOUND_SMTP_PORT']}",
    )
    smtp.serve(app, _stop_on_signals())


@inbound_cli.command("imap-poll")
def imap_poll_command() -> None:
    """One pass over the mailbox INBOUND_IMAP_* names."""
    report = imap.poll_mailbox()
    click.echo(f"received {report.received}, failed {report.failed}: {report.outcomes}")


@inbound_cli.command("imap-idle")
def imap_idle_command() -> None:
    """Watch the mailbox with IDLE (or poll it where the server has no IDLE)."""
    imap.watch(_stop_on_signals())


@inbound_cli.command("receive")
@click.argument("source", type=click.File("rb"))
def receive_command(source: IO[bytes]) -> None:
    """Receive one message from SOURCE (a file, or - for standard input)."""
    raw = source.read()
    assert isinstance(raw, bytes)
    received = receive(raw)
    click.echo(f"{received.outcome.value}: {received.detail}")
