"""What the mail benches set up (``bench.mail``, ``bench.queues``; ``bench.deadlines`` and
``bench.service`` take their queue names): a PostgreSQL database of their own, an SMTP server
that counts what arrives, the environment of a worker that uses them and the local Redis, the
worker itself, and the latency of a turn by mail."""

from __future__ import annotations

import collections
import email
import email.message
import email.policy
import os
import re
import secrets
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
import redis
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from bench import ROOT
from worker import QUEUES

PG_ADMIN = "postgresql://postgres@127.0.0.1:5432/postgres"
REDIS_URL = "redis://127.0.0.1:6379/0"
SECRET_KEY = "bench-secret-key-bench-secret-key"
# A reserved test domain: APP_ENV=testing refuses a public BASE_URL (service/config.py).
BASE_URL = "https://bl.bench.test"


class Counting:
    """An SMTP handler that counts what it accepts (in all and by recipient) and, when ``keep``
    is set, keeps each message with its arrival time (``time.perf_counter``)."""

    def __init__(self) -> None:
        self.count = 0
        self.by_recipient: collections.Counter[str] = collections.Counter()
        self.lock = threading.Lock()
        self.keep = False
        self.kept: list[tuple[float, str, email.message.Message]] = []

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        arrived = time.perf_counter()
        with self.lock:
            self.count += 1
            self.by_recipient.update(envelope.rcpt_tos)
            if self.keep:
                content = envelope.content
                assert isinstance(content, bytes)
                message = email.message_from_bytes(content, policy=email.policy.default)
                self.kept.append((arrived, envelope.rcpt_tos[0], message))
        return "250 OK"

    def after(
        self, index: int, recipient: str | Collection[str], timeout: float = 30
    ) -> tuple[int, float, str]:
        """The first kept message from ``index`` on to ``recipient`` (or to any of them): (its
        index, arrival time, text body). Raises TimeoutError."""
        wanted = {recipient} if isinstance(recipient, str) else set(recipient)
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            with self.lock:
                for i in range(index, len(self.kept)):
                    arrived, to, message = self.kept[i]
                    if to in wanted:
                        return i, arrived, readable(message)
            time.sleep(0.001)
        raise TimeoutError(f"no email to {recipient} arrived")


def readable(message: email.message.EmailMessage) -> str:
    """An email's plain text, then the addresses its HTML part links to, one a line: the move
    links are buttons of the HTML part (the text part lists reply codes instead)."""
    plain = message.get_body(preferencelist=("plain",))
    html = message.get_body(preferencelist=("html",))
    assert plain is not None and html is not None
    links = re.findall(r'href="([^"]+)"', str(html.get_content()))
    return "\n".join([str(plain.get_content()), *links])


MOVE_LINK = re.compile(r"https://bl\.bench\.test(/m/[^\s/]+/\d+)")
LINK = re.compile(r"https://bl\.bench\.test(/[^\s]+)")


def first_link(text: str, fragment: str) -> str:
    """The path of the first link in ``text`` containing ``fragment``."""
    for path in LINK.findall(text):
        if fragment in path:
            return str(path)
    raise LookupError(f"no {fragment} link in:\n{text}")


def turn_latencies(app: Any, handler: Counting, moves: int, tag: str = "") -> list[float]:
    """Play games by email (the first move link of each "your turn" email, with the draw its
    confirm page offers first) and time each move's POST to the opponent's next email. The
    handler keeps messages meanwhile (``keep``); ``tag`` sets these players apart from those
    of other calls (and of other games sending email at the same time)."""
    client = app.test_client()
    latencies: list[float] = []
    game = 0
    while len(latencies) < moves:
        game += 1
        players = {"A": f"a{tag}{game}@example.org", "B": f"b{tag}{game}@example.org"}
        form = {
            "a_name": f"A{game}", "a_email": players["A"], "b_name": f"B{game}",
            "b_email": players["B"], "ruleset": "battleline", "claims": "advanced",
        }  # fmt: skip
        seen = len(handler.kept)
        assert client.post("/games/new", data=form).status_code == 303
        seen, _, text = handler.after(seen, players["A"])
        # The creator's email links the private page, whose button sends the invitation.
        assert client.post(first_link(text, "/p/") + "/invite").status_code == 303
        seen, _, text = handler.after(seen + 1, players["B"])
        assert client.post(first_link(text, "/accept")).status_code == 303
        # The "game started" emails, then the first "your turn".
        while True:
            seen, _, text = handler.after(seen + 1, players.values())
            if MOVE_LINK.search(text):
                break
        while len(latencies) < moves:
            to_move = handler.kept[seen][1]
            opponent = players["B"] if to_move == players["A"] else players["A"]
            path = MOVE_LINK.search(text)
            assert path is not None, text
            page = client.get(path.group(1)).get_data(as_text=True)
            then = re.search(r'<option value="([^"]+)"', page)
            data = {"then": then.group(1)} if then else {}
            mark = len(handler.kept)
            start = time.perf_counter()
            assert client.post(path.group(1), data=data).status_code == 303
            seen, arrived, text = handler.after(mark, opponent)
            latencies.append(arrived - start)
            if not MOVE_LINK.search(text):
                break  # the game is over: the next one
    return latencies


def queue_settings(name: str) -> dict[str, str]:
    """A bench's own queues on the shared Redis: the default one, and the routed ones
    (``worker.QUEUES``) named after it."""
    return {"CELERY_DEFAULT_QUEUE": name, "CELERY_QUEUE_PREFIX": f"{name}-"}


def queue_keys(env: dict[str, str], queues: tuple[str, ...] = QUEUES) -> list[str]:
    """The broker's names of the default queue and of ``queues`` (routed) under ``env``."""
    return [env["CELERY_DEFAULT_QUEUE"], *(env["CELERY_QUEUE_PREFIX"] + q for q in queues)]


def delete_queues(redis_url: str, queues: Collection[str]) -> None:
    """Delete ``queues`` (a bench's: ``queue_keys``; a test's) from Redis, with the tables of
    bindings kombu keeps beside each (``_kombu.binding.`` and ``_kombu.binding_permanent.``,
    named after its exchange, which has the queue's name)."""
    client = redis.Redis.from_url(redis_url)
    try:
        for key in queues:
            client.delete(key, f"_kombu.binding.{key}", f"_kombu.binding_permanent.{key}")
    finally:
        client.close()


def start_worker(
    env: dict[str, str], concurrency: int, log: Path, *, queues: tuple[str, ...] = QUEUES,
    name: str = "bench",
) -> subprocess.Popen[bytes]:  # fmt: skip
    """A ``celery worker`` on the default queue and the routed ``queues`` (default: all of
    them, as the one worker before the queues were split)."""
    pool = ["--pool", "solo"] if concurrency == 1 else ["--concurrency", str(concurrency)]
    command = [
        str(Path(sys.executable).with_name("celery")), "-A", "worker.celery_app:celery_app",
        "worker", *pool, "--loglevel", os.environ.get("BENCH_LOGLEVEL", "WARNING"),
        "-Q", ",".join(queue_keys(env, queues)),
        "--without-gossip", "--without-mingle", "--without-heartbeat", "-n", f"{name}@%h",
    ]  # fmt: skip
    with open(log, "wb") as out:
        return subprocess.Popen(
            command, cwd=ROOT, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip


@dataclass
class BenchStack:
    """A bench's own PostgreSQL database, an SMTP server that counts what arrives, and the
    environment a worker (or the app) needs to use them and the local Redis."""

    database: str
    url: str
    port: int
    handler: Counting
    env: dict[str, str]


@contextmanager
def bench_stack(**settings: str) -> Iterator[BenchStack]:
    """A ``BenchStack`` whose environment has ``settings`` on top; the database is dropped and
    the SMTP server stopped afterwards."""
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    database = f"battleline_bench_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
    handler = Counting()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    controller = Controller(handler, hostname="127.0.0.1", port=port)
    controller.start()
    env = {
        "APP_ENV": "testing",
        "DATABASE_URL": url,
        "REDIS_URL": REDIS_URL,
        **queue_settings(f"battleline-bench-{secrets.token_hex(4)}"),
        "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": str(port),
        "MAIL_SUPPRESS_SEND": "0",
        "SECRET_KEY": SECRET_KEY,
        "BASE_URL": BASE_URL,
        **settings,
    }
    try:
        yield BenchStack(database, url, port, handler, env)
    finally:
        controller.stop()
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()
