"""Mail throughput and turn latency: ``python -m bench.mail [-n 400] [--rounds 5]
[--concurrency N] [--moves 40] [--json]`` from the repository root.

Emails per second from the outbox to an aiosmtpd server through the real worker (Redis,
PostgreSQL, a ``celery worker`` subprocess: one process, so one SMTP connection like the baseline,
unless ``--concurrency`` says more; the Procfile runs 2), beside plain smtplib sending the same
messages to the same server in the same run (the baseline), and the ratio: the median of
``--rounds`` rounds, each the baseline then the worker on new rows (the machine's speed drifts
between seconds, and a round of 400 emails lasts a fraction of one). Then the latency of a
turn by mail: from a move link's POST (the player presses "Confirm") to the opponent's "your
turn" email arriving at the SMTP server, through the worker's ``start_turn`` and ``deliver``
tasks (p50, p99 over ``--moves`` moves, games played by the first link of each email).
Needs PostgreSQL on 127.0.0.1:5432 (user postgres) and Redis on 127.0.0.1:6379; makes and drops
its own database. Prints a table, or with ``--json`` one JSON object a line (``measure``:
``smtplib`` and ``worker`` for each round, ``ratio``, ``turn-latency``).
``BENCH_LOGLEVEL=INFO`` keeps the worker's per-task timings in its log (printed path).
"""

from __future__ import annotations

import argparse
import collections
import email
import email.message
import email.policy
import os
import re
import secrets
import signal
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psycopg
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from bench import ROOT
from bench.report import Column, Table, arguments, json_line
from service import create_app
from service.db import get_engine, session_scope, upgrade_schema
from service.models import Player
from service.outbox import MailKind, queue_email
from service.outbox.models import OutboxMessage
from service.outbox.queue import PENDING_KEY, dispatch
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


def marked_sent(ids: list[int], wait_s: float) -> int:
    """How many of the rows are marked sent, waiting up to ``wait_s`` for all of them."""
    deadline = time.perf_counter() + wait_s
    while True:
        with session_scope() as session:
            sent = sum(
                1 for row_id in ids if (row := session.get(OutboxMessage, row_id))
                and row.status == "sent"
            )  # fmt: skip
        if sent == len(ids) or time.perf_counter() > deadline:
            return sent
        time.sleep(0.05)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def wait_until(counter: Counting, target: int, timeout: float) -> float:
    """Seconds until ``counter`` reaches ``target`` (raises on timeout)."""
    start = time.perf_counter()
    while counter.count < target:
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"only {counter.count} of {target} emails arrived")
        time.sleep(0.002)
    return time.perf_counter() - start


def queue_settings(name: str) -> dict[str, str]:
    """A bench's own queues on the shared Redis: the default one, and the routed ones
    (``worker.QUEUES``) named after it."""
    return {"CELERY_DEFAULT_QUEUE": name, "CELERY_QUEUE_PREFIX": f"{name}-"}


def queue_keys(env: dict[str, str], queues: tuple[str, ...] = QUEUES) -> list[str]:
    """The broker's names of the default queue and of ``queues`` (routed) under ``env``."""
    return [env["CELERY_DEFAULT_QUEUE"], *(env["CELERY_QUEUE_PREFIX"] + q for q in queues)]


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


@dataclass(frozen=True)
class Round:
    """One round of the throughput measurement: the baseline, then the worker, on new rows."""

    baseline_s: float
    worker_s: float
    marked_sent: int
    once: int
    repeats: int
    missing: int
    bytes_each: int
    """The size of the round's first email."""

    def ratio(self, n: int) -> float:
        return (n / self.worker_s) / (n / self.baseline_s)


def queue_rows(app: Any, n: int, round_number: int) -> tuple[list[int], list[Any]]:
    """``n`` new outbox rows, each to a recipient of its own (not dispatched): their ids and
    the envelopes and bytes the baseline sends."""
    with session_scope() as session:
        ids = []
        for number in range(n):
            player = Player(
                email=f"p{round_number}-{number}@example.org", display_name=f"P{number}"
            )
            session.add(player)
            session.flush()
            row = queue_email(
                session, MailKind.MY_GAMES, player, subject="Your Battle Line games",
                context={"games_url": f"{BASE_URL}/me/token-{round_number}-{number}"},
            )  # fmt: skip
            assert row is not None and row.id is not None
            ids.append(row.id)
        session.info.pop(PENDING_KEY, None)  # dispatched by the round, under its clock
        rows = [session.get(OutboxMessage, row_id) for row_id in ids]
        sender = app.config["MAIL_DEFAULT_SENDER"]
        return ids, [(sender, [r.recipient], r.mime.encode()) for r in rows if r is not None]


def measure_round(app: Any, handler: Counting, port: int, n: int, round_number: int) -> Round:
    """Write ``n`` rows, send their bytes with plain smtplib (the baseline), then have the worker
    send the rows themselves; count what arrived."""
    ids, wire = queue_rows(app, n, round_number)
    # The baseline: the same messages, one smtplib connection, nothing else.
    handler.count = 0
    start = time.perf_counter()
    with smtplib.SMTP("127.0.0.1", port) as client:
        for envelope_from, recipients, data in wire:
            client.sendmail(envelope_from, recipients, data)
    wait_until(handler, n, 60)
    baseline_s = time.perf_counter() - start
    handler.count = 0
    handler.by_recipient.clear()

    time.sleep(0.5)
    start = time.perf_counter()
    dispatch(ids)
    worker_s = wait_until(handler, n, 300)
    sent = marked_sent(ids, wait_s=10)  # "sent" is committed just after each 250
    time.sleep(0.5)  # a repeat would come now, if any
    with handler.lock:
        counts = [handler.by_recipient[recipients[0]] for _, recipients, _ in wire]
    return Round(
        baseline_s, worker_s, sent, once=counts.count(1),
        repeats=sum(c - 1 for c in counts if c > 1), missing=counts.count(0),
        bytes_each=len(wire[0][2]),
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


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("-n", type=int, default=400, help="emails per measurement")
    parser.add_argument(
        "--rounds", type=int, default=5,
        help="rounds of baseline then worker, each on new rows (the ratio: their median)",
    )  # fmt: skip
    parser.add_argument(
        "--concurrency", type=int, default=1,
        help="worker processes (default 1: one SMTP connection, as the baseline's)",
    )  # fmt: skip
    parser.add_argument("--moves", type=int, default=40, help="moves timed for the latency")
    args = parser.parse_args()

    with bench_stack(
        MAIL_SWEEP_AFTER_S="600",  # the tasks, not the sweep, deliver in this measurement
        RATELIMIT_ENABLED="0",  # one client makes every game of the latency measurement
    ) as stack:
        handler, port, env = stack.handler, stack.port, stack.env
        log = Path(tempfile.gettempdir()) / f"{stack.database}-worker.log"
        worker: subprocess.Popen[bytes] | None = None
        app = None
        try:
            upgrade_schema(stack.url)
            config: dict[str, Any] = {**env, "MAIL_PORT": port, "MAIL_SUPPRESS_SEND": False}
            config["MAIL_SWEEP_AFTER_S"] = 600.0
            config["RATELIMIT_ENABLED"] = False
            app = create_app(config)
            worker = start_worker(env, args.concurrency, log)
            with app.app_context():
                time.sleep(1.5)  # the worker is up
                rounds = [
                    measure_round(app, handler, port, args.n, number)
                    for number in range(args.rounds)
                ]
                handler.keep = True
                latencies = turn_latencies(app, handler, args.moves)
                handler.keep = False
        finally:
            if worker is not None:
                os.killpg(worker.pid, signal.SIGTERM)
                worker.wait(timeout=30)
            if app is not None:
                app.extensions["celery"].close()
                get_engine(app).dispose()

    report(args, rounds, latencies, log)


def report(
    args: argparse.Namespace, rounds: list[Round], latencies: list[float], log: Path
) -> None:
    n, bytes_each = args.n, rounds[0].bytes_each
    ratio = statistics.median(r.ratio(n) for r in rounds)
    once, repeats = sum(r.once for r in rounds), sum(r.repeats for r in rounds)
    missing, sent = sum(r.missing for r in rounds), sum(r.marked_sent for r in rounds)
    p50, p99 = (percentile(latencies, q) * 1000 for q in (0.5, 0.99))
    if args.json:
        size = {"emails": n, "bytes_each": bytes_each}
        for number, r in enumerate(rounds):
            json_line({"measure": "smtplib", "round": number, **size,
                       "seconds": r.baseline_s, "emails_s": n / r.baseline_s})  # fmt: skip
            json_line({
                "measure": "worker", "round": number, **size, "concurrency": args.concurrency,
                "seconds": r.worker_s, "emails_s": n / r.worker_s, "ratio": r.ratio(n),
                "marked_sent": r.marked_sent, "once": r.once, "repeats": r.repeats,
                "missing": r.missing,
            })  # fmt: skip
        json_line({"measure": "ratio", "rounds": len(rounds), "median": ratio, "aim": 0.5,
                   "once": once, "repeats": repeats, "missing": missing})  # fmt: skip
        json_line({"measure": "turn-latency", "moves": len(latencies), "p50_ms": p50,
                   "p99_ms": p99, "max_ms": max(latencies) * 1000})  # fmt: skip
        return
    print(f"Mail throughput, {n} emails a round ({bytes_each} bytes each), aiosmtpd on loopback")
    table = Table((
        Column("round", 7, left=True), Column("smtplib emails/s", 18, ".0f"),
        Column(f"worker x{args.concurrency} emails/s", 22, ".0f"), Column("ratio", 8, ".0%"),
    ))  # fmt: skip
    print(table.header())
    for number, r in enumerate(rounds):
        print(table.row(number, n / r.baseline_s, n / r.worker_s, r.ratio(n)))
    print(
        "smtplib: one connection, nothing else (the baseline); worker: outbox -> Redis -> "
        "worker -> SMTP, the same emails' rows"
    )
    print(f"ratio worker/baseline, median of {len(rounds)} rounds: {ratio:.0%} (aim: 50% or more)")
    print(f"rows marked sent: {sent}/{n * len(rounds)}; worker log: {log}")
    print(
        f"exactly once: {once}/{n * len(rounds)} emails arrived once ({repeats} repeats, "
        f"{missing} missing)"
    )
    print()
    print(f"Turn latency, move POST -> opponent's email at the SMTP server, {len(latencies)} moves")
    print(
        f"p50 {p50:.0f} ms, p99 {p99:.0f} ms, max {max(latencies) * 1000:.0f} ms "
        "(aim: p99 under 1000 ms)"
    )


if __name__ == "__main__":
    main()
