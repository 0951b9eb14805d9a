"""Publishing tasks after a commit: never raising, never holding the caller longer than a bound.

    publish_after_commit([(DELIVER_TASK, (outbox_id,))], "delivery of outbox rows [7]")

When this runs, the change is saved; the tasks only speed up what the beat jobs would do anyway
(the outbox sweep sends unsent rows, the turn scan starts lost turns). So a broker that is down or
stalled must neither turn the answer into an error page nor hold the request:

- The publish uses connections of its own (a pool), with short connect and socket timeouts
  (``BROKER_PUBLISH_TIMEOUT_S``) and no retries. The worker's consuming connection keeps
  ``broker_transport_options``: its BRPOP waits for the server by design.
- It runs in the process's publishing thread, which the caller waits for at most
  ``BROKER_PUBLISH_TIMEOUT_S`` in all, however many tasks and round trips it takes (a stalled
  Redis accepts TCP connections and then never answers). One thread for the process, not
  one started per publish: starting a thread costs a move POST CPU (docs/architecture.md). A publish
  its caller stopped waiting for is dropped if it has not begun.
- After a failure (or a wait cut short) this process publishes nothing for
  ``BROKER_PUBLISH_PAUSE_S``: the next requests do not each wait for the same stalled broker.

Eager mode (no ``REDIS_URL``) runs the tasks here, in the committing thread; a failure is logged.
"""

from __future__ import annotations

import logging
import os
import queue
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sqlalchemy as sa
from celery import Celery
from sqlmodel import Session

logger = logging.getLogger(__name__)

_DISPATCHERS: dict[str, Callable[[list[Any]], None]] = {}
"""What to do after a commit with the items a transaction noted under each key."""


def on_commit(key: str, dispatcher: Callable[[list[Any]], None]) -> None:
    """After every commit of a session that noted items under ``key`` (``note_for_commit``),
    call ``dispatcher`` with them; a rollback forgets them. Registered once, at import."""
    _DISPATCHERS[key] = dispatcher


def note_for_commit(session: Session, key: str, *items: Any) -> None:
    """Note ``items`` for the dispatcher of ``key``, to run once this transaction commits."""
    session.info.setdefault(key, []).extend(items)


@sa.event.listens_for(Session, "after_commit")
def _after_commit(session: Session) -> None:
    # SQLAlchemy 2.1 calls after_commit when a savepoint is released too (begin_nested), while
    # the transaction and its locks go on: only the real commit may publish.
    if session.in_nested_transaction():
        return
    for key, dispatcher in _DISPATCHERS.items():
        items: list[Any] | None = session.info.pop(key, None)
        if items:
            dispatcher(items)


@sa.event.listens_for(Session, "after_rollback")
def _after_rollback(session: Session) -> None:
    # A savepoint rolled back (a concurrent insert lost, say) leaves the transaction's own
    # notes standing.
    if session.in_nested_transaction():
        return
    for key in _DISPATCHERS:
        session.info.pop(key, None)


TIMEOUT_SETTING = "battleline_publish_timeout"
"""Celery setting (from ``BROKER_PUBLISH_TIMEOUT_S``): the longest a caller waits, in seconds."""
PAUSE_SETTING = "battleline_publish_pause"
"""Celery setting (from ``BROKER_PUBLISH_PAUSE_S``): no publishing this long after a failure."""
TRANSPORT_OPTIONS_SETTING = "battleline_publish_transport_options"
"""Celery setting: the transport options of the publishing connection (its timeouts)."""

Send = tuple[str, tuple[Any, ...]]
"""A task's name and its arguments."""


IDLE_THREAD_S = 30.0
"""A publishing thread with nothing to publish this long ends (the next publish starts one)."""


@dataclass
class _Job:
    """One caller's tasks, for the publishing thread."""

    celery_app: Celery[Any]
    sends: Sequence[Send]
    what: str
    timeout: float
    done: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None
    published: bool = False
    abandoned: bool = False
    """The caller stopped waiting: not begun by then, the job is dropped."""


@dataclass
class _Publisher:
    """One process's publishing state for one Celery app."""

    pid: int
    connections: Any
    """A kombu connection pool, with the short timeouts (``TRANSPORT_OPTIONS_SETTING``)."""
    paused_until: float = 0.0
    jobs: queue.SimpleQueue[_Job] = field(default_factory=queue.SimpleQueue)
    thread: threading.Thread | None = None
    """The publishing thread, while there is one (guarded by ``_lock``)."""


_publishers: weakref.WeakKeyDictionary[Celery[Any], _Publisher] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def _publisher(celery_app: Celery[Any], timeout: float) -> _Publisher:
    """This process's publisher for ``celery_app`` (a new one after a fork: sockets are not
    shared with the parent)."""
    with _lock:
        publisher = _publishers.get(celery_app)
        if publisher is None or publisher.pid != os.getpid():
            options = dict(celery_app.conf.get(TRANSPORT_OPTIONS_SETTING) or {})
            connection = celery_app.connection_for_write(
                transport_options=options, connect_timeout=timeout
            )
            limit = celery_app.conf.broker_pool_limit or 10
            publisher = _Publisher(os.getpid(), connection.Pool(limit=limit))
            _publishers[celery_app] = publisher
        return publisher


def publish_after_commit(celery_app: Celery[Any], sends: Sequence[Send], what: str) -> bool:
    """Publish ``sends`` (run them, in eager mode); ``what`` names them in the log. Returns
    whether all were published; never raises (a failure is logged: the sweep or scan will)."""
    if not sends:
        return True
    conf = celery_app.conf
    if conf.task_always_eager:
        return _run_eagerly(celery_app, sends, what)
    timeout = float(conf.get(TIMEOUT_SETTING) or 1.0)
    try:
        publisher = _publisher(celery_app, timeout)
    except Exception:
        logger.exception("could not queue %s; the sweep will", what)
        return False
    if publisher.paused_until > time.monotonic():
        logger.warning("not queueing %s: the broker failed moments ago; the sweep will", what)
        return False
    job = _Job(celery_app, sends, what, timeout)
    with _lock:
        publisher.jobs.put(job)
        if publisher.thread is None:
            publisher.thread = threading.Thread(
                target=_publishing, args=(publisher,), name="after-commit-publish", daemon=True
            )
            publisher.thread.start()
    finished = job.done.wait(timeout)
    if job.published:
        return True
    job.abandoned = True
    publisher.paused_until = time.monotonic() + float(conf.get(PAUSE_SETTING) or 0.0)
    if not finished:
        logger.warning(
            "queueing %s took longer than %ss (broker stalled?); going on: the sweep will",
            what,
            timeout,
        )
    else:
        logger.warning("could not queue %s; the sweep will", what, exc_info=job.error)
    return False


def _publishing(publisher: _Publisher) -> None:
    """The publishing thread: the jobs in order, until none came for ``IDLE_THREAD_S``."""
    while True:
        try:
            job = publisher.jobs.get(timeout=IDLE_THREAD_S)
        except queue.Empty:
            with _lock:
                if publisher.jobs.empty():  # a job put meanwhile finds this thread still on
                    publisher.thread = None
                    return
            continue
        if not job.abandoned:
            _publish(publisher, job)
        job.done.set()


def _publish(publisher: _Publisher, job: _Job) -> None:
    """One job: a pooled connection with short timeouts, and no retries."""
    celery_app = job.celery_app
    try:
        connection = publisher.connections.acquire(block=True, timeout=job.timeout)
        try:
            # What apply_async(connection=...) does; the declares it makes use this connection.
            producer = celery_app.amqp.Producer(connection, auto_declare=False)
            for name, args in job.sends:
                celery_app.tasks[name].apply_async(args, producer=producer, retry=False)
        except Exception:
            # Drop its sockets without a word to the broker; its next use connects afresh.
            connection.collect()
            raise
        finally:
            connection.release()
        job.published = True
    except Exception as error:
        job.error = error
        logger.debug("publishing %s failed", job.what, exc_info=True)


def _run_eagerly(celery_app: Celery[Any], sends: Sequence[Send], what: str) -> bool:
    ok = True
    for name, args in sends:
        try:
            celery_app.tasks[name].delay(*args)
        # The change is committed and the sweep or scan will do this; a failure (an SMTP error
        # in an eager delivery) must not turn the change just made into an error page.
        except Exception:
            logger.exception("could not run %s%r (part of %s); the sweep will", name, args, what)
            ok = False
    return ok
