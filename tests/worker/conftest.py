"""Fixtures for mail and worker tests, with real components.

- ``app``/``client`` (eager, embedded mode) come from tests/service and run on SQLite and
  PostgreSQL.
- ``smtp``: an aiosmtpd ``Controller`` on a free port that records what arrives and can refuse
  addresses, go down, come back, hold a message mid-delivery, or stop a session at any SMTP
  stage (``Stop``: tests/worker/test_kill_points.py).
- ``redis_url``: the Redis at 127.0.0.1:6379 (started if it is not running; a clear failure if
  it cannot be); ``private_redis``: a Redis of the test's own on a free port.
- ``worker_db``: a PostgreSQL database of this session, emptied before each test.
- ``start_worker``: a real ``celery worker`` subprocess on that database, Redis and SMTP server.
- ``web``: the service's app in the test process, queueing rows for those workers.

None of these skip: a missing Redis or PostgreSQL fails with what is missing.
"""

from __future__ import annotations

import asyncio
import email
import email.message
import email.policy
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import redis
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from flask import Flask
from sqlmodel import SQLModel

from bench.bench_stack import delete_queues
from service.db import get_engine, upgrade_schema
from service.mail import delivery
from tests.service.conftest import (  # noqa: F401  (fixtures shared with the service tests)
    TEST_BASE_URL,
    TEST_SECRET_KEY,
    VALID_FORM,
    PostgresServer,
    app,
    client,
    database_url,
    make_test_app,
    new_game,
    postgres,
    valid_form,
)
from tests.worker import delivery_steps
from worker import QUEUES

# test_kill_points.py takes a delivery's steps one by one, as ``delivery.NAME``: the service
# delivers in batches only, so the tests' own steps (made of its API) stand in for those names.
for _step in delivery_steps.STEPS:
    setattr(delivery, _step, getattr(delivery_steps, _step))

REPO = Path(__file__).resolve().parents[2]
CELERY = Path(sys.executable).with_name("celery")
REDIS_HOST = "127.0.0.1"
REDIS_PORT = 6379

# Short intervals so that retries and sweeps happen within a test (settings, not code paths).
FAST_MAIL_SETTINGS: dict[str, str] = {
    "MAIL_RETRY_BACKOFF_S": "1",
    "MAIL_RETRY_BACKOFF_MAX_S": "1",
    # Short enough for a reclaim within a test, long enough that no live worker here is overtaken
    # (each SMTP exchange in these tests takes milliseconds; production: 2 * timeout + 30).
    "MAIL_SENDING_LEASE_S": "2",
    "MAIL_SWEEP_EVERY_S": "0.5",
    "MAIL_SWEEP_AFTER_S": "1",
    "MAIL_TIMEOUT_S": "5",
}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def wait_for(
    condition: Callable[[], Any], timeout: float, what: str, step: float = 0.05,
    detail: Callable[[], str] | None = None,
) -> Any:  # fmt: skip
    """Poll ``condition`` until it returns something true; fail saying ``what`` did not happen
    (and ``detail()``, what was seen meanwhile)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            seen = f"\n{detail()}" if detail else ""
            pytest.fail(f"timed out after {timeout:.0f}s waiting for {what}{seen}", pytrace=False)
        time.sleep(step)


# ---------------------------------------------------------------- SMTP


@dataclass
class Arrived:
    """One message the SMTP server accepted."""

    message: email.message.EmailMessage
    rcpt_tos: list[str]
    peer: Any
    raw: bytes = b""
    """The message as it came over the wire (after dot-unstuffing)."""
    mail_from: str | None = None


SMTP_STAGES = ("connect", "ehlo", "mail", "rcpt", "data", "body", "received", "quit")


@dataclass
class Stop:
    """Where the next SMTP session waits (``Mailbox.stop``), once, until ``release`` is set.

    ``connect``: the connection is accepted, before the 220 greeting. ``ehlo``, ``mail``,
    ``rcpt``, ``quit``: the command arrived, before its reply. ``data``: the DATA command arrived,
    before the 354. ``body``: the first lines of the message body arrived, and the server reads no
    further until released. ``received``: the whole body arrived, before the reply. A client
    that goes away meanwhile ends the session when the server sees it (``abandoned``): nothing
    more is answered or kept.
    """

    stage: str
    reply: str | None = None
    """The answer once released, instead of the usual one (``ehlo``, ``mail``, ``rcpt``,
    ``data``, ``received``, ``quit``), e.g. ``451 4.3.0 Try again later``."""
    keep: bool = True
    """At ``received``: the server keeps the message before it waits, as Postfix does once it has
    the final ".", so it is delivered even if the client never reads the 250. False: kept only
    if the session goes on after the release."""
    passes: int = 0
    """How many times the stage is passed before the stop (the later messages of a batch)."""
    reached: threading.Event = field(default_factory=threading.Event)
    release: threading.Event = field(default_factory=threading.Event)
    abandoned: threading.Event = field(default_factory=threading.Event)
    """Set when the client went away while the session waited here (the server saw the
    connection end before it read or answered anything more)."""

    def __post_init__(self) -> None:
        assert self.stage in SMTP_STAGES, self.stage


@dataclass
class Mailbox:
    """The SMTP server's behaviour and record, shared with its asyncio thread."""

    arrived: list[Arrived] = field(default_factory=list)
    refuse: dict[str, str] = field(default_factory=dict)
    """Address -> the reply to RCPT TO (e.g. ``550 5.1.1 No such user``)."""
    delay_s: float = 0.0
    hold: threading.Event | None = None
    """When set up: the next DATA waits until this event is set, then answers 451."""
    holding: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: Stop | None = None
    """The next session to reach ``stop.stage`` waits there until ``stop.release``."""

    @staticmethod
    def passing(stop: Stop) -> bool:
        """Whether this time at the stop's stage is one of its ``passes`` (counted down)."""
        if stop.passes <= 0:
            return False
        stop.passes -= 1
        return True

    async def checkpoint(self, stage: str) -> Stop | None:
        """Wait here if the stop is set for ``stage`` (then clear it); the Stop, or None."""
        stop = self.stop
        if stop is None or stop.stage != stage or self.passing(stop):
            return None
        self.stop = None
        stop.reached.set()
        try:
            while not stop.release.is_set():
                await asyncio.sleep(0.01)
        except asyncio.CancelledError:  # the connection ended (aiosmtpd cancels the session)
            stop.abandoned.set()
            raise
        return stop

    async def handle_EHLO(
        self, server: SMTP, session: Session, envelope: Envelope, hostname: str,
        responses: list[str],
    ) -> list[str]:  # fmt: skip
        session.host_name = hostname
        stop = await self.checkpoint("ehlo")
        return [stop.reply] if stop is not None and stop.reply else responses

    async def handle_MAIL(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        stop = await self.checkpoint("mail")
        if stop is not None and stop.reply:
            return stop.reply
        envelope.mail_from = address
        envelope.mail_options.extend(options)
        return "250 OK"

    async def handle_QUIT(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        stop = await self.checkpoint("quit")
        return stop.reply if stop is not None and stop.reply else "221 Bye"

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: Any
    ) -> str:
        stop = await self.checkpoint("rcpt")
        if stop is not None and stop.reply:
            return stop.reply
        if address in self.refuse:
            return self.refuse[address]
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        hold = self.hold
        if hold is not None:
            self.hold = None
            self.holding.set()
            while not hold.is_set():
                await asyncio.sleep(0.02)
            return "451 4.3.0 Interrupted, try again"
        stop = self.stop
        if stop is not None and stop.stage == "received" and not self.passing(stop):
            if stop.keep:
                self._keep(session, envelope)
            await self.checkpoint("received")
            if stop.reply:
                return stop.reply
            if not stop.keep:
                self._keep(session, envelope)
            return "250 Message accepted"
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        self._keep(session, envelope)
        return "250 Message accepted"

    def _keep(self, session: Session, envelope: Envelope) -> None:
        content = envelope.content
        assert isinstance(content, bytes)
        parsed = email.message_from_bytes(content, policy=email.policy.default)
        assert isinstance(parsed, email.message.EmailMessage)
        with self.lock:
            self.arrived.append(
                Arrived(parsed, list(envelope.rcpt_tos), session.peer, content, envelope.mail_from)
            )

    def messages(self) -> list[email.message.EmailMessage]:
        with self.lock:
            return [arrived.message for arrived in self.arrived]

    def message_ids(self) -> list[str]:
        return [str(message["Message-ID"]) for message in self.messages()]


class _PausingReader:
    """The stream aiosmtpd reads a message body from, stopping at the ``body`` stop after a few
    lines (the rest stays unread)."""

    def __init__(self, reader: asyncio.StreamReader, mailbox: Mailbox, after_lines: int) -> None:
        self._reader = reader
        self._mailbox = mailbox
        self._after = after_lines
        self._lines = 0

    async def readuntil(self, separator: bytes = b"\n") -> bytes:
        line = await self._reader.readuntil(separator)
        self._lines += 1
        if self._lines == self._after:
            await self._mailbox.checkpoint("body")
        return line

    async def read(self, n: int = -1) -> bytes:
        return await self._reader.read(n)


class StoppingSMTP(SMTP):
    """aiosmtpd's server with the stops no handler hook offers: ``connect`` (before the
    greeting), ``data`` (before the 354) and ``body`` (part-way through the message body)."""

    async def _handle_client(self) -> None:
        if isinstance(self.event_handler, Mailbox):
            try:
                await self.event_handler.checkpoint("connect")
            except asyncio.CancelledError:
                self._writer.close()  # what aiosmtpd does for a session that ends later
                raise
        await super()._handle_client()

    async def smtp_DATA(self, arg: str) -> None:
        mailbox = self.event_handler
        if not isinstance(mailbox, Mailbox) or not self.envelope or not self.envelope.rcpt_tos:
            await super().smtp_DATA(arg)
            return
        stop = await mailbox.checkpoint("data")
        if stop is not None and stop.reply:
            self._set_post_data_state()
            await self.push(stop.reply)
            return
        if mailbox.stop is None or mailbox.stop.stage != "body":
            await super().smtp_DATA(arg)
            return
        reader = self._reader
        self._reader = _PausingReader(reader, mailbox, after_lines=3)  # type: ignore[assignment]
        try:
            await super().smtp_DATA(arg)
        finally:
            self._reader = reader


class StoppingController(Controller):
    """A ``Controller`` serving ``StoppingSMTP``."""

    def factory(self) -> SMTP:
        return StoppingSMTP(self.handler, **self.SMTP_kwargs)


class SMTPServer:
    """An aiosmtpd server on a fixed free port that can be stopped and started again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.mailbox = Mailbox()
        self._controller: Controller | None = None

    def start(self) -> None:
        self._controller = StoppingController(self.mailbox, hostname="127.0.0.1", port=self.port)
        self._controller.start()
        assert self._controller.server is not None
        for listening in self._controller.server.sockets:
            # A fixed, small receive buffer (inherited by each connection): a client sending a
            # message of some megabytes to a session stopped at ``body`` really waits part-way.
            listening.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 64 * 1024)

    def stop(self) -> None:
        if self._controller is not None:
            self._controller.stop()
            self._controller = None


@pytest.fixture
def smtp() -> Iterator[SMTPServer]:
    server = SMTPServer()
    server.start()
    yield server
    server.stop()


# ---------------------------------------------------------------- Redis


def _redis_up(port: int) -> bool:
    try:
        with redis.Redis(host=REDIS_HOST, port=port, socket_timeout=1) as client:
            return bool(client.ping())
    except redis.RedisError:
        return False


def _redis_server_command(port: int) -> list[str]:
    binary = shutil.which("redis-server")
    if binary is None:
        pytest.fail(
            "redis-server is not installed (apt-get install redis-server); the worker tests "
            "need a real Redis",
            pytrace=False,
        )
    return [
        binary,
        "--bind",
        REDIS_HOST,
        "--port",
        str(port),
        "--save",
        "",
        "--appendonly",
        "no",
        "--maxmemory-policy",
        "noeviction",
    ]


@pytest.fixture(scope="session")
def redis_url() -> str:
    """The shared Redis on 6379, started if it is not running."""
    if not _redis_up(REDIS_PORT):
        subprocess.run([*_redis_server_command(REDIS_PORT), "--daemonize", "yes"], check=False)
        wait_for(lambda: _redis_up(REDIS_PORT), 10, f"Redis on {REDIS_HOST}:{REDIS_PORT} to start")
    return f"redis://{REDIS_HOST}:{REDIS_PORT}/0"


class PrivateRedis:
    """A Redis of one test's own, on a free port, that the test may stop and start again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.url = f"redis://{REDIS_HOST}:{self.port}/0"
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(
            _redis_server_command(self.port),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(lambda: _redis_up(self.port), 10, f"a private Redis on port {self.port}")

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait(timeout=10)
            self._process = None

    def pause(self) -> None:
        """SIGSTOP: a stalled Redis. Connections stay open and TCP connects still succeed (the
        kernel accepts them), but nothing answers until ``resume``. Only this test's own Redis:
        never the shared one on 6379."""
        assert self._process is not None and self.port != REDIS_PORT
        self._process.send_signal(signal.SIGSTOP)

    def resume(self) -> None:
        """SIGCONT: the paused Redis answers again, with its data and connections intact."""
        if self._process is not None:
            self._process.send_signal(signal.SIGCONT)


@pytest.fixture
def private_redis() -> Iterator[PrivateRedis]:
    server = PrivateRedis()
    server.start()
    yield server
    server.stop()


# ---------------------------------------------------------------- database, web app, worker


@pytest.fixture(scope="session")
def worker_db(request: pytest.FixtureRequest) -> str:
    """A migrated PostgreSQL database for the tests with a real worker."""
    server: PostgresServer = request.getfixturevalue("postgres")
    url = server.new_database()
    upgrade_schema(url)
    return url


def _empty(flask_app: Flask) -> None:
    with get_engine(flask_app).begin() as connection:
        for table in reversed(SQLModel.metadata.sorted_tables):
            connection.execute(table.delete())


@dataclass
class Stack:
    """The settings that a test's web app and its workers share."""

    database_url: str
    redis_url: str
    smtp: SMTPServer
    queue: str = field(default_factory=lambda: f"battleline-test-{secrets.token_hex(4)}")
    settings: dict[str, str] = field(default_factory=dict)
    """Numeric MAIL_* settings of this stack's own, over FAST_MAIL_SETTINGS."""

    def env(self) -> dict[str, str]:
        return {
            "APP_ENV": "testing",
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "CELERY_DEFAULT_QUEUE": self.queue,
            "CELERY_QUEUE_PREFIX": f"{self.queue}-",
            "MAIL_SERVER": "127.0.0.1",
            "MAIL_PORT": str(self.smtp.port),
            "MAIL_SUPPRESS_SEND": "0",
            "MAIL_DEFAULT_SENDER": "Battle Line by mail <battleline@bl.test>",
            "SECRET_KEY": TEST_SECRET_KEY,
            "BASE_URL": TEST_BASE_URL,
            # The computer plays as soon as its turn starts (a few minutes in production).
            "COMPUTER_DELAY_S": "0",
            **FAST_MAIL_SETTINGS,
            **self.settings,
        }

    def routed(self, queues: Sequence[str] = QUEUES) -> list[str]:
        """The broker's names of these of ``worker.QUEUES`` (default: all) for this stack."""
        return [f"{self.queue}-{queue}" for queue in queues]

    def forget(self, extra: Sequence[str] = ()) -> None:
        """Delete this stack's queues and ``extra`` from its Redis (after its workers): a test's
        queues must not pile up in the shared Redis."""
        delete_queues(self.redis_url, [self.queue, *self.routed(), *extra])

    def app_config(self) -> dict[str, Any]:
        config: dict[str, Any] = {}
        for name, value in self.env().items():
            if name in ("APP_ENV", "DATABASE_URL", "SECRET_KEY", "BASE_URL"):
                continue
            config[name] = value
        config["MAIL_PORT"] = self.smtp.port
        config["MAIL_SUPPRESS_SEND"] = False
        for name, value in {**FAST_MAIL_SETTINGS, **self.settings}.items():
            config[name] = float(value)
        return config


class WorkerProcess:
    """A ``celery worker`` subprocess (its own process group: beat's child dies with it)."""

    def __init__(self, stack: Stack, log: Path, *, beat: bool, queues: list[str]) -> None:
        self.stack = stack
        self.log = log
        self.beat = beat
        self.queues = queues
        self.process: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def start(self) -> None:
        self.starts += 1
        command = [
            str(CELERY), "-A", "worker.celery_app:celery_app", "worker",
            "--pool", "solo", "--loglevel", "INFO",
            "-Q", ",".join(self.queues),
            "-n", f"{self.log.stem}-{self.starts}-{secrets.token_hex(3)}@%h",
            "--without-gossip", "--without-mingle", "--without-heartbeat",
        ]  # fmt: skip
        if self.beat:
            schedule = self.log.with_suffix(f".beat{self.starts}")
            command += ["--beat", "--schedule", str(schedule)]
        env = {**os.environ, **self.stack.env(), "PYTHONUNBUFFERED": "1"}
        with open(self.log, "ab") as log:
            log.write(f"\n=== start {self.starts}\n".encode())
            log.flush()
            self.process = subprocess.Popen(
                command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT,
                start_new_session=True,
            )  # fmt: skip
        marker = f"=== start {self.starts}\n"
        wait_for(
            lambda: self._ready(marker),
            60,
            f"the celery worker to be ready (log: {self.log})",
            step=0.1,
        )

    def _ready(self, marker: str) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            pytest.fail(f"the celery worker exited:\n{self.log_text()[-3000:]}", pytrace=False)
        text = self.log_text()
        return " ready." in text[text.rfind(marker) :]

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def kill(self) -> None:
        """SIGKILL the worker (and its beat) with no chance to clean up."""
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=10)
        self.process = None


@pytest.fixture
def stack(worker_db: str, redis_url: str, smtp: SMTPServer) -> Iterator[Stack]:
    made = Stack(database_url=worker_db, redis_url=redis_url, smtp=smtp)
    yield made
    made.forget()  # after the workers: their fixtures need this one


@pytest.fixture
def web(stack: Stack) -> Iterator[Flask]:
    """The service's app in the test process, on the workers' database and Redis."""
    flask_app = make_test_app(stack.database_url, **stack.app_config())
    _empty(flask_app)
    yield flask_app
    close_app(flask_app)


def close_app(flask_app: Flask) -> None:
    """Empty the database and close the app's pools (database, Celery's broker connections)."""
    _empty(flask_app)
    flask_app.extensions["celery"].close()
    get_engine(flask_app).dispose()


@pytest.fixture
def start_worker(stack: Stack, tmp_path: Path) -> Iterator[Callable[..., WorkerProcess]]:
    """Start a worker: ``start_worker(beat=True, queues=[...], name="w1")``. It takes the
    stack's default queue, the routed ones named by ``routed`` (default: all of
    ``worker.QUEUES``, as one worker did before the split) and ``queues``."""
    started: list[WorkerProcess] = []

    def start(
        *, beat: bool = True, queues: list[str] | None = None, name: str = "worker",
        stack_: Stack | None = None, routed: Sequence[str] = QUEUES,
    ) -> WorkerProcess:  # fmt: skip
        chosen = stack_ or stack
        every = [chosen.queue, *chosen.routed(routed), *(queues or [])]
        worker = WorkerProcess(chosen, tmp_path / f"{name}.log", beat=beat, queues=every)
        started.append(worker)
        worker.start()
        return worker

    yield start
    for worker in started:
        worker.stop()
    # The queues of the workers' own (``queues``) on the shared Redis; a test's private Redis
    # goes with its server.
    for worker in started:
        if worker.stack.redis_url == stack.redis_url:
            delete_queues(stack.redis_url, worker.queues)
