"""After-commit publishing (``service.after_commit``) through the real Redis: one thread kept for
the process publishes every caller's tasks, and ends when it has been idle a while; the next
publish starts another."""

from __future__ import annotations

import secrets
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from celery import Celery

from bench.bench_stack import delete_queues
from service import after_commit
from service.after_commit import publish_after_commit

THREAD_NAME = "after-commit-publish"


@pytest.fixture
def publishing(redis_url: str) -> Iterator[tuple[Celery[Any], str]]:
    """A Celery app with one task, sending to a queue of this test's own (deleted after)."""
    queue = f"tests-publishing-{secrets.token_hex(4)}"
    app: Celery[Any] = Celery("tests-publishing", broker=redis_url, set_as_current=False)
    app.conf.task_default_queue = queue

    @app.task(name="tests.noop", shared=False)
    def noop(*_args: Any) -> None: ...

    try:
        yield app, queue
    finally:
        delete_queues(redis_url, [queue])
        app.close()


def publishing_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == THREAD_NAME and t.is_alive()]


def queued(redis_url: str, queue: str) -> int:
    client = redis.Redis.from_url(redis_url)
    try:
        length: Any = client.llen(queue)
        return int(length)
    finally:
        client.close()


def test_one_thread_publishes_every_callers_tasks(
    publishing: tuple[Celery[Any], str], redis_url: str
) -> None:
    app, queue = publishing
    before = len(publishing_threads())
    for number in range(5):
        assert publish_after_commit(app, [("tests.noop", (number,))], f"send {number}")
    assert publish_after_commit(app, [("tests.noop", (5,)), ("tests.noop", (6,))], "two at once")
    assert queued(redis_url, queue) == 7
    assert len(publishing_threads()) == before + 1


def test_an_idle_thread_ends_and_the_next_publish_starts_one(
    publishing: tuple[Celery[Any], str], redis_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, queue = publishing
    monkeypatch.setattr(after_commit, "IDLE_THREAD_S", 0.2)
    before = len(publishing_threads())
    assert publish_after_commit(app, [("tests.noop", (1,))], "first")
    assert len(publishing_threads()) == before + 1
    deadline = time.monotonic() + 5
    while len(publishing_threads()) > before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(publishing_threads()) == before, "the idle thread did not end"
    assert publish_after_commit(app, [("tests.noop", (2,))], "after the idle time")
    assert queued(redis_url, queue) == 2
