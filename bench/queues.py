"""A person's email while the computer thinks: ``python -m bench.queues [--moves 40]
[--games 20] [--json]`` from the repository root.

The latency of a turn by mail (``bench.mail``'s: a move link's POST to the opponent's "your
turn" email arriving at an aiosmtpd server, p50 and p99 over ``--moves`` moves) with no game
against the computer, then with ``--games`` games against the strong computer thinking at once
(their person's side is played back by this bench the moment its "your turn" email arrives, so
each game always has the computer's search queued or running), side by side in one run, for
two layouts of the workers:

- ``before``: one ``celery worker`` on every queue, ``--concurrency 2``: the Procfile before the
  queues were split, where mail waited behind the computer's search;
- ``after``: the Procfile's ``worker-*`` processes, each on its own queues with its own
  concurrency (read from ``Procfile``).

Real PostgreSQL (its own database, dropped at the end), Redis on 127.0.0.1:6379 (queues of its
own), the computer playing at once (``COMPUTER_DELAY_S=0``). This process serves the moves of
both the measured games and the computer games' person (Flask's test client), as gunicorn would.
Prints a table, or with ``--json`` one JSON object a line (``layout``, ``load``, ``moves``,
``p50_ms``, ``p99_ms``, ``max_ms``, ``computer_moves``: the computer's moves during the
measurement).
"""

from __future__ import annotations

import argparse
import os
import re
import secrets
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlmodel import select

from bench import ROOT
from bench.bench_stack import (
    MOVE_LINK,
    REDIS_URL,
    Counting,
    bench_stack,
    delete_queues,
    first_link,
    queue_keys,
    readable,
    start_worker,
    turn_latencies,
)
from bench.report import Column, Table, arguments, json_line, percentile
from service import create_app
from service.db import get_engine, session_scope, upgrade_schema
from service.outbox import MailKind
from service.outbox.models import OutboxMessage
from worker import QUEUES

BEFORE = (("worker", 2, QUEUES),)
"""The one worker of the Procfile before the split: every queue, two processes."""
PROCFILE_WORKER = re.compile(r"^(worker[\w-]*):.*--concurrency (\d+).* -Q ([\w,]+)", re.M)


def procfile_workers() -> tuple[tuple[str, int, tuple[str, ...]], ...]:
    """The Procfile's workers: name, concurrency, routed queues (``celery``, the default
    queue of tasks queued by an older release, is taken by every bench worker anyway)."""
    text = (ROOT / "Procfile").read_text()
    return tuple(
        (name, int(concurrency), tuple(q for q in queues.split(",") if q in QUEUES))
        for name, concurrency, queues in PROCFILE_WORKER.findall(text)
    )


class ComputerGames:
    """``games`` games of a person against the strong computer, the person's side played by a
    thread of this process the moment its "your turn" email arrives (a finished game is
    followed by a new one for the same person)."""

    def __init__(self, app: Any, handler: Counting, games: int, tag: str) -> None:
        self.app = app
        self.handler = handler
        self.people = [f"c{tag}{number}@example.org" for number in range(games)]
        self.stop = threading.Event()
        self.computer_moves = 0
        self.thread = threading.Thread(target=self._play, name="computer-games", daemon=True)

    def start(self) -> None:
        self.client = self.app.test_client()
        for person in self.people:
            self._new_game(person)
        self.thread.start()

    def _new_game(self, person: str) -> None:
        form = {
            "a_name": person.split("@")[0], "a_email": person, "b_computer": "strong",
            "ruleset": "battleline", "claims": "advanced",
        }  # fmt: skip
        assert self.client.post("/games/new", data=form).status_code == 303

    def _kind(self, message_id: str) -> str:
        with self.app.app_context(), session_scope() as session:
            kind = session.exec(
                select(OutboxMessage.kind).where(OutboxMessage.message_id == message_id)
            ).first()
        return str(kind)

    def _play(self) -> None:
        seen = 0
        people = set(self.people)
        while not self.stop.is_set():
            with self.handler.lock:
                fresh = self.handler.kept[seen:]
                seen += len(fresh)
            for _, to, message in fresh:
                if to not in people or self.stop.is_set():
                    continue
                kind, text = self._kind(str(message["Message-ID"])), readable(message)
                if kind == MailKind.CONFIRM_ADDRESS:
                    self.client.post(first_link(text, "/p/") + "/invite")
                elif kind == MailKind.YOUR_TURN and (link := MOVE_LINK.search(text)):
                    self.computer_moves += 1  # the computer moved (or the game began)
                    page = self.client.get(link.group(1)).get_data(as_text=True)
                    then = re.search(r'<option value="([^"]+)"', page)
                    self.client.post(link.group(1), data={"then": then.group(1)} if then else {})
                elif kind == MailKind.GAME_OVER:
                    self._new_game(to)
            time.sleep(0.005)

    def end(self) -> None:
        self.stop.set()
        self.thread.join(timeout=30)


@dataclass(frozen=True)
class Measured:
    layout: str
    load: str
    latencies: list[float]
    computer_moves: int

    def row(self) -> dict[str, Any]:
        p50, p99 = (percentile(self.latencies, q) * 1000 for q in (0.5, 0.99))
        return {
            "layout": self.layout, "load": self.load, "moves": len(self.latencies),
            "p50_ms": round(p50, 1), "p99_ms": round(p99, 1),
            "max_ms": round(max(self.latencies) * 1000, 1), "computer_moves": self.computer_moves,
        }  # fmt: skip


def measure_layout(
    layout: str, workers: tuple[tuple[str, int, tuple[str, ...]], ...], app: Any,
    handler: Counting, env: dict[str, str], args: argparse.Namespace, logs: Path,
) -> list[Measured]:  # fmt: skip
    """Start ``workers``, measure without and with the computer games, stop them and empty
    the queues."""
    started: list[subprocess.Popen[bytes]] = []
    try:
        for name, concurrency, queues in workers:
            log = logs / f"{layout}-{name}.log"
            started.append(start_worker(env, concurrency, log, queues=queues, name=name))
        time.sleep(3)  # the workers are up
        tag = secrets.token_hex(2)
        idle = turn_latencies(app, handler, args.moves, tag=f"{layout}i{tag}")
        games = ComputerGames(app, handler, args.games, f"{layout}{tag}")
        games.start()
        time.sleep(args.warm_up)  # every game's computer is thinking or queued
        before = games.computer_moves
        busy = turn_latencies(app, handler, args.moves, tag=f"{layout}b{tag}")
        moves = games.computer_moves - before
        games.end()
    finally:
        for process in started:
            os.killpg(process.pid, signal.SIGTERM)
        for process in started:
            process.wait(timeout=60)
        delete_queues(REDIS_URL, queue_keys(env))
    return [
        Measured(layout, "none", idle, 0),
        Measured(layout, f"{args.games} computer games", busy, moves),
    ]


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--moves", type=int, default=40, help="moves timed in each measurement")
    parser.add_argument("--games", type=int, default=20, help="computer games thinking at once")
    parser.add_argument(
        "--warm-up", type=float, default=5.0, help="seconds of computer games before timing"
    )
    args = parser.parse_args()

    results: list[Measured] = []
    with bench_stack(
        COMPUTER_DELAY_S="0",
        RATELIMIT_ENABLED="0",  # one client makes every game
    ) as stack:
        stack.handler.keep = True
        logs = Path(tempfile.mkdtemp(prefix=f"{stack.database}-"))
        app = None
        try:
            upgrade_schema(stack.url)
            config: dict[str, Any] = {
                **stack.env, "MAIL_PORT": stack.port, "MAIL_SUPPRESS_SEND": False
            }  # fmt: skip
            config["RATELIMIT_ENABLED"] = False
            config["COMPUTER_DELAY_S"] = 0.0
            app = create_app(config)
            with app.app_context():
                for layout, workers in (("before", BEFORE), ("after", procfile_workers())):
                    results += measure_layout(
                        layout, workers, app, stack.handler, stack.env, args, logs
                    )
        finally:
            if app is not None:
                app.extensions["celery"].close()
                get_engine(app).dispose()
    report(args, results, logs)


def report(args: argparse.Namespace, results: list[Measured], logs: Path) -> None:
    if args.json:
        for measured in results:
            json_line(measured.row())
        return
    print("Move POST -> opponent's 'your turn' email at the SMTP server (ms)")
    table = Table((
        Column("layout", 8, left=True), Column("computer games", 20, left=True),
        Column("moves", 6), Column("p50", 8, ".0f"), Column("p99", 8, ".0f"),
        Column("max", 8, ".0f"), Column("computer moves", 16),
    ))  # fmt: skip
    print(table.header())
    for measured in results:
        r = measured.row()
        print(table.row(r["layout"], r["load"], r["moves"], r["p50_ms"], r["p99_ms"],
                        r["max_ms"], r["computer_moves"]))  # fmt: skip
    workers = ", ".join(f"{n} x{c} ({'+'.join(q)})" for n, c, q in procfile_workers())
    print(f"before: one worker x2 on every queue; after: the Procfile's {workers}")
    print(f"worker logs: {logs}")


if __name__ == "__main__":
    main()
