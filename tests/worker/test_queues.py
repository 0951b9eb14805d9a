"""Mail, turn starts and the computer's thinking go to queues of their own, each with worker
processes of its own (``worker.TASK_QUEUES``, the Procfile, ``docs/deployment.md``): with the
computer's worker stopped (or busy searching), a person's move still brings the opponent's email
through the mail and turns workers, and the computer's turn waits on its queue until a computer
worker takes it. Real Redis, PostgreSQL, ``celery worker`` processes and aiosmtpd."""

from __future__ import annotations

import email.message
import json
from collections.abc import Callable
from typing import Any

import redis
from flask import Flask

import worker
from service.outbox import MailKind
from service.outbox.prune import PRUNE_TASK
from service.outbox.queue import DELIVER_TASK, SWEEP_TASK
from service.turns import scan, start
from tests.service.conftest import VALID_FORM
from tests.worker.conftest import SMTPServer, Stack, WorkerProcess, wait_for
from tests.worker.outbox_rows import link_to, path_of
from tests.worker.test_delivery import bodies
from tests.worker.test_game_by_mail import kind_of
from tests.worker.turn_games import confirm_and_draw, move_links


def test_each_task_has_its_queue() -> None:
    assert worker.START_TURN_TASK == start.START_TURN_TASK
    assert worker.COMPUTER_TURN_TASK == start.COMPUTER_TURN_TASK
    assert worker.CHECK_TASK == scan.CHECK_TASK
    assert worker.COMPUTER_CHECK_TASK == scan.COMPUTER_CHECK_TASK
    queues = worker.TASK_QUEUES
    assert queues[DELIVER_TASK] == queues[SWEEP_TASK] == worker.MAIL_QUEUE
    assert queues[start.START_TURN_TASK] == queues[scan.CHECK_TASK] == worker.TURNS_QUEUE
    assert queues[PRUNE_TASK] == worker.TURNS_QUEUE
    assert queues[start.COMPUTER_TURN_TASK] == queues[scan.COMPUTER_CHECK_TASK] == "computer"


def test_the_routes_carry_the_prefix_and_eager_mode_keeps_them_unused(app: Flask) -> None:
    celery_app = app.extensions["celery"]
    assert celery_app.conf.task_always_eager  # the embedded default: no broker, no queues
    routes = worker.celery_config(app)["task_routes"]
    assert routes[DELIVER_TASK] == {"queue": "mail"}
    assert routes[start.COMPUTER_TURN_TASK] == {"queue": "computer"}
    app.config["CELERY_QUEUE_PREFIX"] = "eu-"
    assert worker.celery_config(app)["task_routes"][SWEEP_TASK] == {"queue": "eu-mail"}


def queued_tasks(stack: Stack, queue: str) -> list[str]:
    """The names of the tasks waiting on one of the stack's routed queues (kombu's Redis
    transport keeps each as a JSON message in a list of the queue's name)."""
    client: redis.Redis[bytes] = redis.Redis.from_url(stack.redis_url)
    try:
        waiting = client.lrange(stack.routed([queue])[0], 0, -1)
    finally:
        client.close()
    return [json.loads(raw)["headers"]["task"] for raw in waiting]


def arrived(
    web: Flask, smtp: SMTPServer, to: str, kind: str, after: int
) -> Callable[[], tuple[int, email.message.EmailMessage] | None]:
    """A condition for ``wait_for``: the first email of ``kind`` to ``to`` from index ``after``
    on, with its index."""

    def found() -> tuple[int, email.message.EmailMessage] | None:
        for index, message in enumerate(smtp.mailbox.messages()):
            if index < after or message["To"].addresses[0].addr_spec != to:
                continue
            if kind_of(web, message) == kind:
                return index, message
        return None

    return found


def email_of(web: Flask, smtp: SMTPServer, to: str, kind: str, after: int = 0) -> Any:
    return wait_for(arrived(web, smtp, to, kind, after), 30, f"a {kind} email to {to}")


def test_mail_flows_while_no_computer_worker_runs(
    web: Flask, smtp: SMTPServer, stack: Stack, start_worker: Callable[..., WorkerProcess]
) -> None:
    start_worker(beat=False, routed=[worker.MAIL_QUEUE], name="mail")
    start_worker(beat=False, routed=[worker.TURNS_QUEUE], name="turns")
    client = web.test_client()

    # Alice against the computer, which plays at once (COMPUTER_DELAY_S=0): whoever begins, the
    # computer's turn comes at most one move of hers later, and waits on its queue.
    alice = "alice@example.org"
    form = {**VALID_FORM, "b_name": "", "b_email": "", "b_computer": "strong"}
    assert client.post("/games/new", data=form).status_code == 303
    _, confirmation = email_of(web, smtp, alice, "confirm_address")
    text, _ = bodies(confirmation)
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303

    alice_moved = [False]

    def computer_waits() -> bool:
        if queued_tasks(stack, worker.COMPUTER_QUEUE):
            return True
        turn = arrived(web, smtp, alice, MailKind.YOUR_TURN, 0)()
        if turn is not None and not alice_moved[0]:
            alice_moved[0] = True
            _, html = bodies(turn[1])
            assert confirm_and_draw(client, move_links(html)[0]) == 303
        return False

    wait_for(computer_waits, 30, "the computer's turn on its queue")
    assert queued_tasks(stack, worker.COMPUTER_QUEUE) == [start.COMPUTER_TURN_TASK]

    # Bob and Carol play by email meanwhile: a move brings the opponent's "your turn".
    people = {
        **VALID_FORM, "a_name": "Bob", "a_email": "bob@example.org",
        "b_name": "Carol", "b_email": "carol@example.org",
    }  # fmt: skip
    assert client.post("/games/new", data=people).status_code == 303
    _, confirmation = email_of(web, smtp, "bob@example.org", "confirm_address")
    text, _ = bodies(confirmation)
    assert client.post(path_of(link_to(text, "/p/")) + "/invite").status_code == 303
    _, invitation = email_of(web, smtp, "carol@example.org", "invitation")
    text, _ = bodies(invitation)
    assert client.post(path_of(link_to(text, "/accept"))).status_code == 303
    first = wait_for(
        lambda: (
            arrived(web, smtp, "bob@example.org", MailKind.YOUR_TURN, 0)()
            or arrived(web, smtp, "carol@example.org", MailKind.YOUR_TURN, 0)()
        ),
        30,
        "the first 'your turn' of Bob and Carol's game",
    )
    index, message = first
    mover = message["To"].addresses[0].addr_spec
    opponent = "carol@example.org" if mover == "bob@example.org" else "bob@example.org"
    _, html = bodies(message)
    assert confirm_and_draw(client, move_links(html)[0]) == 303
    email_of(web, smtp, opponent, MailKind.YOUR_TURN, after=index + 1)

    # The computer's turn is still waiting for its own worker, which plays it.
    assert queued_tasks(stack, worker.COMPUTER_QUEUE) == [start.COMPUTER_TURN_TASK]
    seen = len(smtp.mailbox.messages())
    start_worker(beat=False, routed=[worker.COMPUTER_QUEUE], name="computer")
    email_of(web, smtp, alice, MailKind.YOUR_TURN, after=seen)
    assert queued_tasks(stack, worker.COMPUTER_QUEUE) == []
