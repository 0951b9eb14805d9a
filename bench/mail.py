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
import os
import signal
import smtplib
import statistics
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bench.bench_stack import BASE_URL, Counting, bench_stack, start_worker, turn_latencies
from bench.report import Column, Table, arguments, json_line, percentile
from service import create_app
from service.db import get_engine, session_scope, upgrade_schema
from service.models import Player
from service.outbox import MailKind, queue_email
from service.outbox.models import OutboxMessage
from service.outbox.queue import PENDING_KEY, dispatch


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


def wait_until(counter: Counting, target: int, timeout: float) -> float:
    """Seconds until ``counter`` reaches ``target`` (raises on timeout)."""
    start = time.perf_counter()
    while counter.count < target:
        if time.perf_counter() - start > timeout:
            raise TimeoutError(f"only {counter.count} of {target} emails arrived")
        time.sleep(0.002)
    return time.perf_counter() - start


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
