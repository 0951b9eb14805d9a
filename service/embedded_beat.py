"""Beat's schedule on the embedded default: in the server process, or one pass by hand.

With no Redis there is no beat process, so ``flask run`` (``scripts/run``) runs the same
schedule in a thread of the process that serves the requests: ``EmbeddedBeat``. It reads the
Celery app's ``beat_schedule`` (``worker.celery_config``, the one definition beat uses too) and
lets Celery's own ``celery.beat.Scheduler`` decide what is due, so the two cannot drift; the tasks
run eagerly in the thread. A thread with a stop event rather than a scheduling library: Celery's
scheduler already reads the schedule, and a library (APScheduler) would need it translated.

- One scheduler per database: the thread runs the schedule only while it holds a file lock under
  ``instance/`` named after ``DATABASE_URL`` (a second server on the same database waits, and
  takes over when the first stops).
- Only in the process that serves ``flask run``'s requests: not in the reloader's watcher
  (``--debug`` loads the app there too), not in another command (``flask db upgrade``), never
  under gunicorn, in tests or with ``REDIS_URL`` (beat runs there): ``EMBEDDED_BEAT``.
- A game whose next check has come is checked within a second (``MAX_WAIT_S``), not at the
  scan's next period: the computer's turn on the embedded default waits a few seconds.

``flask --app service mail sweep`` (``scripts/flask mail sweep``) does one pass of everything at
once: it sends every email still unsent, starts turns whose start was lost, runs the deadline scan
(reminders, vacation days, timeouts) and the daily digest. It sits above the areas (mail and
turns), like the app factory that registers both.
"""

from __future__ import annotations

import atexit
import fcntl
import hashlib
import logging
import os
import threading
from datetime import timedelta
from pathlib import Path
from typing import IO, Any

import click
from celery import Celery
from celery.beat import Scheduler
from flask import Flask
from flask.cli import AppGroup
from flask.helpers import get_debug_flag

from service import clock
from service.db import read_scope
from service.lobby.automatch import renew_due
from service.mail import delivery
from service.models import utcnow
from service.tournaments.beat import sweep as sweep_tournaments
from service.turns.digest import send_digests
from service.turns.scan import SCAN_TASK, due_games_query, scan_deadlines

logger = logging.getLogger(__name__)

MAX_WAIT_S = 1
"""The longest the thread sleeps: how soon it sees a due game, and stops."""


def serves_flask_run(environ: dict[str, str] | None = None) -> bool:
    """Whether this process serves the requests of ``flask run``: the server process that the
    reloader starts (``WERKZEUG_RUN_MAIN``), or ``flask run`` without the reloader. False in the
    reloader's watcher, in any other command, and outside the flask command (gunicorn, tests)."""
    env = os.environ if environ is None else environ
    context = click.get_current_context(silent=True)
    if context is None or context.info_name != "run":
        return False
    if env.get("WERKZEUG_RUN_MAIN") == "true":
        return True
    reload: bool | None = context.params.get("reload")
    return not (get_debug_flag() if reload is None else reload)


def lock_path(app: Flask) -> Path:
    """The file whose lock makes one scheduler per database: beside a SQLite file, else under
    ``instance/``."""
    url = str(app.config["DATABASE_URL"])
    if url.startswith("sqlite:///") and len(url) > len("sqlite:///"):
        return Path(url.removeprefix("sqlite:///") + ".beat-lock")
    digest = hashlib.sha256(url.encode()).hexdigest()[:16]
    return Path(app.instance_path) / f"embedded-beat-{digest}.lock"


class EmbeddedBeat:
    """A thread that runs the Celery app's beat schedule while it holds ``lock``."""

    def __init__(self, app: Flask, lock: Path, *, max_wait_s: int = MAX_WAIT_S) -> None:
        self.app = app
        self.lock = lock
        self.max_wait_s = max_wait_s
        self.stopping = threading.Event()
        self.running = threading.Event()
        """Set while this thread holds the lock and runs the schedule."""
        self._lock_file: IO[bytes] | None = None
        self._thread = threading.Thread(target=self._run, name="embedded-beat", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def stop(self) -> None:
        """Stop after the task running now, and let another process take the lock."""
        self.stopping.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    def _take_lock(self) -> bool:
        self.lock.parent.mkdir(parents=True, exist_ok=True)
        handle = open(self.lock, "a+b")  # noqa: SIM115  (held while the schedule runs)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return False
        self._lock_file = handle
        return True

    def _release_lock(self) -> None:
        if self._lock_file is not None:
            fcntl.flock(self._lock_file, fcntl.LOCK_UN)
            self._lock_file.close()
            self._lock_file = None

    def _run(self) -> None:
        told = False
        while not self._take_lock():
            if not told:
                logger.info("another process runs the schedule of this database: waiting")
                told = True
            if self.stopping.wait(self.max_wait_s):
                return
        try:
            self.running.set()
            celery_app: Celery[Any] = self.app.extensions["celery"]
            scheduler = Scheduler(app=celery_app, max_interval=self.max_wait_s)
            logger.info("embedded beat started: %s", ", ".join(sorted(scheduler.schedule)))
            wait = 0.0
            while not self.stopping.wait(wait):
                try:
                    wait = scheduler.tick()
                except Exception:  # beat logs a failed task and goes on; so does this thread
                    logger.exception("the embedded beat's tick failed")
                    wait = self.max_wait_s
                self._check_due_games(celery_app)
            scheduler.close()
        finally:
            self.running.clear()
            self._release_lock()
            logger.info("embedded beat stopped")

    def _check_due_games(self, celery_app: Celery[Any]) -> None:
        """Run the deadline scan now when a game's next check has come (as its task, so that
        the code is beat's)."""
        try:
            with self.app.app_context(), read_scope() as session:
                due = session.exec(due_games_query(clock.now(), 1)).first() is not None
            if due:
                celery_app.tasks[SCAN_TASK].apply_async()
        except Exception:  # the thread must outlive one failed pass, as beat outlives a task
            logger.exception("the embedded beat's check of due games failed")


def init_app(app: Flask) -> EmbeddedBeat | None:
    """Start the embedded beat of ``app`` when this process should run it (``EMBEDDED_BEAT``
    and ``serves_flask_run``); it stops when the process exits."""
    if not app.config["EMBEDDED_BEAT"] or not serves_flask_run():
        return None
    app.logger.info("this process runs beat's schedule (EMBEDDED_BEAT)")  # Flask's handler
    beat = EmbeddedBeat(app, lock_path(app))
    beat.start()
    atexit.register(beat.stop)
    return beat


mail_cli = AppGroup("mail", help="The outbox and the scheduled mail (embedded mode).")


@mail_cli.command("sweep")
def sweep_command() -> None:
    """Send what is unsent and do what is due now (deadlines, lost turn starts, digests, standing
    requests, tournaments)."""
    report = scan_deadlines()
    digests = send_digests()
    renewed = renew_due()
    tournaments = sweep_tournaments()
    # Every queued row, whatever its next attempt time: someone asked for it now.
    mail = delivery.sweep(due_by=utcnow() + timedelta(days=36500))
    click.echo(
        f"turns started {len(report.turns_started)}, games checked for deadlines "
        f"{len(report.checked)}, digests {len(digests)}, standing requests renewed "
        f"{len(renewed.renewed)}, tournaments started {len(tournaments.started)}; "
        f"emails sent {mail.sent}, failed {mail.failed}, to retry {mail.retry}"
    )
