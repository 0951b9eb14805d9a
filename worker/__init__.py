"""The Celery worker: one Celery app per Flask app, every task run inside the Flask app's context
(Flask's Celery pattern). Tasks live in ``worker.tasks``; ``worker.celery_app`` is the entry point
of ``celery -A worker.celery_app:celery_app worker`` and ``... beat``.

With no ``REDIS_URL`` (the embedded default, ``scripts/run``) tasks run eagerly in the web process
and need no Redis: every email lands in the outbox, shown at /dev/outbox, and the server process
runs the beat schedule below itself (``service.embedded_beat``).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import sqlalchemy as sa
from celery import Celery, Task
from flask import Flask

from service import after_commit
from service.outbox.prune import PRUNE_TASK
from service.outbox.queue import DELIVER_TASK, SWEEP_TASK

logger = logging.getLogger(__name__)
_T = TypeVar("_T")

SCAN_TASK = "worker.scan_deadlines"
"""``service.turns.scan.SCAN_TASK`` (not imported here: that module needs the app's models)."""
DIGEST_TASK = "worker.send_digests"
"""``service.turns.digest.DIGEST_TASK``."""
INBOUND_POLL_TASK = "worker.poll_inbound_mailbox"
"""``worker.inbound_tasks.poll_inbound_mailbox``: one pass over the IMAP mailbox of replies."""
PRUNE_INBOUND_TASK = "worker.prune_inbound"
"""``service.inbound.prune.PRUNE_TASK`` (not imported here: the inbound area needs the app's
models)."""
RENEW_TASK = "worker.renew_standing_requests"
"""``service.lobby.automatch.RENEW_TASK``."""
TOURNAMENT_TASK = "worker.sweep_tournaments"
"""``service.tournaments.beat.SWEEP_TASK``."""
START_TURN_TASK = "worker.start_turn"
"""``service.turns.start.START_TURN_TASK``."""
CHECK_TASK = "worker.check_games"
"""``service.turns.scan.CHECK_TASK``."""
COMPUTER_TURN_TASK = "worker.start_computer_turn"
"""``service.turns.start.COMPUTER_TURN_TASK``."""
COMPUTER_CHECK_TASK = "worker.check_computer_games"
"""``service.turns.scan.COMPUTER_CHECK_TASK``."""

MAIL_QUEUE, TURNS_QUEUE, COMPUTER_QUEUE = "mail", "turns", "computer"
"""The queues, each with worker processes of its own (the Procfile; ``docs/deployment.md``):
mail delivery never waits behind the computer's search, nor a person's turn start."""
QUEUES = (MAIL_QUEUE, TURNS_QUEUE, COMPUTER_QUEUE)
TASK_QUEUES = {
    DELIVER_TASK: MAIL_QUEUE,
    SWEEP_TASK: MAIL_QUEUE,
    START_TURN_TASK: TURNS_QUEUE,
    SCAN_TASK: TURNS_QUEUE,
    CHECK_TASK: TURNS_QUEUE,
    DIGEST_TASK: TURNS_QUEUE,
    INBOUND_POLL_TASK: TURNS_QUEUE,
    PRUNE_TASK: TURNS_QUEUE,
    PRUNE_INBOUND_TASK: TURNS_QUEUE,
    RENEW_TASK: TURNS_QUEUE,
    TOURNAMENT_TASK: TURNS_QUEUE,
    COMPUTER_TURN_TASK: COMPUTER_QUEUE,
    COMPUTER_CHECK_TASK: COMPUTER_QUEUE,
}
"""Which queue each task goes to (``task_routes``)."""


def queue_name(config: Mapping[str, Any], queue: str) -> str:
    """The broker's name of one of ``QUEUES``: ``CELERY_QUEUE_PREFIX`` then the name, so that
    deployments (or test runs) sharing one Redis keep their tasks apart."""
    return f"{config.get('CELERY_QUEUE_PREFIX') or ''}{queue}"


def broker_publish_settings(config: Mapping[str, Any]) -> dict[str, Any]:
    """How tasks are published after a commit (``service.after_commit``): on connections of
    their own (a pool) with short timeouts and no retries, the caller waiting at most
    ``BROKER_PUBLISH_TIMEOUT_S`` (default 1 s) in all, then nothing published for
    ``BROKER_PUBLISH_PAUSE_S`` after a failure. A stalled Redis (connects succeed, nothing
    answers) would hold a move without a socket timeout; what is not published is found by the
    outbox sweep and the turn scan.

    Only that connection gets these timeouts: ``broker_transport_options`` (the worker's
    consuming connection, whose BRPOP waits on the server by design and is watched by kombu's
    health checks; beat) are left as they were. ``max_retries: 0`` stops kombu's
    ``ensure_connection`` from retrying a refused connect for ``broker_connection_timeout``
    (which kombu's Redis transport otherwise ignores: its connect timeout is the
    ``socket_connect_timeout`` transport option)."""
    timeout = float(config.get("BROKER_PUBLISH_TIMEOUT_S", 1.0))
    return {
        after_commit.TIMEOUT_SETTING: timeout,
        after_commit.PAUSE_SETTING: float(config.get("BROKER_PUBLISH_PAUSE_S", 5.0)),
        after_commit.TRANSPORT_OPTIONS_SETTING: {
            "socket_connect_timeout": timeout,
            "socket_timeout": timeout,
            # No retries of a timed-out command (redis-py) or of the publish (kombu: the
            # publish is made with retry=False).
            "retry_on_timeout": False,
            "max_retries": 0,
        },
    }


def celery_config(app: Flask) -> dict[str, Any]:
    """Celery settings from the Flask app's config; ``CELERY`` (a dict) overrides any of them."""
    config = app.config
    redis_url: str | None = config.get("REDIS_URL")
    eager = not redis_url
    sweep_every = float(config["MAIL_SWEEP_EVERY_S"])
    scan_every = float(config["TURN_SCAN_EVERY_S"])
    digest_every = float(config["DIGEST_CHECK_EVERY_S"])
    prune_every = float(config["OUTBOX_PRUNE_EVERY_S"])
    prune_inbound_every = float(config["INBOUND_PRUNE_EVERY_S"])
    renew_every = float(config["CHALLENGE_RENEW_EVERY_S"])
    tournaments_every = float(config["TOURNAMENT_SWEEP_EVERY_S"])
    settings: dict[str, Any] = {
        "broker_url": redis_url or "memory://",
        "task_ignore_result": True,
        "task_always_eager": eager,
        # Without this an eager task's exception vanishes.
        "task_eager_propagates": True,
        # acks_late tasks (idempotent ones only) must not sit prefetched in a worker that dies.
        "worker_prefetch_multiplier": 1,
        "task_reject_on_worker_lost": True,
        "broker_connection_retry_on_startup": True,
        "worker_cancel_long_running_tasks_on_connection_loss": True,
        # Tasks of an older release, queued before the routes: the turns workers take them.
        "task_default_queue": config["CELERY_DEFAULT_QUEUE"],
        "task_routes": {
            task: {"queue": queue_name(config, queue)} for task, queue in TASK_QUEUES.items()
        },
        # No task is scheduled ahead (no countdowns, no eta); long waits are rows in the
        # database that a beat task finds: Redis redelivers a task unacknowledged for an hour.
        "broker_transport_options": {"visibility_timeout": 3600},
        **broker_publish_settings(config),
        "beat_schedule": {
            # The only retry of an email: the deliver task tries once, and rows that failed wait
            # in the database for their next attempt time (no Celery retries with a countdown).
            "sweep-outbox": {
                "task": SWEEP_TASK,
                "schedule": sweep_every,
                # A sweep that waited longer than one period is stale: the next one is coming.
                "options": {"expires": sweep_every},
            },
            # Deadlines live in the database; this finds what is due.
            "scan-deadlines": {
                "task": SCAN_TASK,
                "schedule": scan_every,
                "options": {"expires": scan_every},
            },
            "send-digests": {
                "task": DIGEST_TASK,
                "schedule": digest_every,
                "options": {"expires": digest_every},
            },
            # Old sent emails lose their bodies (service.outbox.prune), a few batches a run.
            "prune-outbox": {
                "task": PRUNE_TASK,
                "schedule": prune_every,
                "options": {"expires": prune_every},
            },
            # Received emails older than what dedupe needs (service.inbound.prune).
            "prune-inbound": {
                "task": PRUNE_INBOUND_TASK,
                "schedule": prune_inbound_every,
                "options": {"expires": prune_inbound_every},
            },
            # Standing requests that keep one game going (service.lobby.automatch).
            "renew-standing-requests": {
                "task": RENEW_TASK,
                "schedule": renew_every,
                "options": {"expires": renew_every},
            },
            # Tournaments due to start, round deadlines passed (service.tournaments.beat).
            "sweep-tournaments": {
                "task": TOURNAMENT_TASK,
                "schedule": tournaments_every,
                "options": {"expires": tournaments_every},
            },
        },
    }
    if config.get("INBOUND_IMAP_HOST"):
        # Play by reply from a hosted mailbox (service.inbound.imap): one pass per period.
        poll_every = float(config["INBOUND_IMAP_POLL_S"])
        settings["beat_schedule"]["poll-inbound-mailbox"] = {
            "task": INBOUND_POLL_TASK,
            "schedule": poll_every,
            "options": {"expires": poll_every},
        }
    settings.update(config.get("CELERY") or {})
    return settings


def run_once_more_if_dropped(name: str, run: Callable[[], _T]) -> _T:
    """``run()`` (a task's body), and once more at once if the database dropped its connection
    (a restart, a failover): SQLAlchemy has then replaced the pool's connections, and every
    task may run twice without harm (``worker.tasks``), its transaction having been rolled back
    with the connection. Not Celery's ``autoretry_for``: that publishes the task again, with a
    countdown, through a broker that may be the one down, and never in eager mode."""
    try:
        return run()
    except sa.exc.DBAPIError as error:
        if not error.connection_invalidated:
            raise
        logger.warning("task %s lost its database connection (%s): running it again", name, error)
    return run()


def celery_init_app(app: Flask) -> Celery[Any]:
    """Make the Celery app of ``app``: ``app.extensions["celery"]``, also Celery's default app."""

    class FlaskTask(Task):  # type: ignore[type-arg]
        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            with app.app_context():
                return run_once_more_if_dropped(self.name, lambda: self.run(*args, **kwargs))

    celery_app: Celery[Any] = Celery(app.name, task_cls=FlaskTask)
    celery_app.config_from_object(celery_config(app))
    celery_app.set_default()
    app.extensions["celery"] = celery_app
    import worker.inbound_tasks
    import worker.tasks  # noqa: F401  (registers the shared tasks)

    return celery_app
