"""The deadline scan at scale: ``python -m bench.deadlines [--games N] [--due N] [--batch N]
[--eager] [--json]`` from the repository root (.venv/bin/python).

Makes a PostgreSQL database of its own (Alembic upgrade to head; dropped at the end) holding
``--games`` active games (dealt, in play) of which ``--due`` have something due now, then runs
``service.turns.scan.scan_deadlines`` (what the beat task calls) and the ``check_games`` tasks it
queues, apart, and checks that exactly the due games changed, each as intended.

The design measured: the scan only claims the due games (an index scan; their ``next_check_at``
moved to ``now + CHECK_LEASE``) and publishes ``worker.check_games(now, *game_ids)`` tasks
(``CHECK_TASK_GAMES`` games each) after the commit; a worker's ``check_games`` does each game's work
in its own transaction. One run of the scan takes at most ``TURN_SCAN_BATCH`` games (500 by default;
``--batch`` overrides it), so it runs as many times as the due games need, as successive beat runs
would. The aim: the scan under 1 s, reading only the due games.

How the games are made: a few real games are created, accepted and played through the service's own
functions (random legal moves from a fixed seed) to the start of a turn in mid-game; every other
game is a copy of one of them in SQL (``INSERT ... SELECT`` over ``generate_series``: games, two new
players and two seats per game, the move log and the snapshots). Then a few ``UPDATE`` statements
set the clock of every game's turn: the due games get, in turn, a reminder due (half the time used),
the "running late" note due, a passed deadline with vacation days left, and a passed deadline with
none left (the loss on time); every other game's next check is from one minute to three days ahead.

Everything runs in an app context (``APP_ENV=testing``, the clock fixed at ``NOW``). By default the
tasks go to a real broker: the Redis at 127.0.0.1:6379, database ``REDIS_DB`` (15; flushed before
and after, no other database touched), queue ``QUEUE``; no worker reads it. After the scan the bench
reads the queued ``check_games`` tasks back from Redis and runs ``scan.check_game(game_id, now)``
for each of their games itself, one after the other: that is worker time (shared by the workers in
production), timed and printed apart from the scan. The emails the checks queue go to the same
broker (their ``deliver`` tasks are counted, not run). ``--eager`` is the embedded mode (no broker):
the checks, and the emails' delivery (Flask-Mail sends nothing under ``TESTING``), run inside the
scan, so ``scan_s`` includes them and there is no ``checks_s``.

What is measured:

- ``scan_s``: the wall time of the scan, all runs (``run_s``: each of its ``scan_runs``), the
  publishing of the tasks to Redis included; ``select_ms``: the part of it spent in the queries that
  select the games (cursor events); ``statements``, ``rows_returned``: the SQL statements the scan
  sent and the rows they returned;
- ``rows_read``, ``games_rows_read``: rows PostgreSQL read for the scan, from
  ``pg_stat_user_tables`` (tuples read by sequential scans plus tuples fetched by index scans; reset
  before the scan, read once every connection of the scan has closed), in all tables and in the
  games table; ``games_seq_scans``: sequential scans of the games table;
- the plans (``EXPLAIN (ANALYZE, BUFFERS)``) of the claim's two statements, the due games ``SELECT
  ... FOR UPDATE SKIP LOCKED`` and the ``UPDATE`` of their ``next_check_at`` (before the scan, while
  the games are due, in a transaction rolled back, then vacuumed away), and of the query of the
  turns whose start was lost (the scan's own statement);
- ``tasks_queued``: the ``check_games`` tasks found in the Redis queue after the scan;
  ``games_in_tasks``: the games they name (must equal ``due``, and be the claimed ones),
  ``other_tasks``: any other task there; ``publish_warnings``: warnings logged by
  ``service.after_commit`` (a publish cut short by ``BROKER_PUBLISH_TIMEOUT_S``);
- ``checks_s``: the wall time of running the queued checks in this process; ``check_ms``: per
  ``Checked`` kind, how many and the mean and total milliseconds; ``checks_rows_read``: rows
  PostgreSQL read for them; ``deliver_tasks_queued``: the email tasks they published;
- ``rescan_after_claim``, ``rescan_after_checks``: games a scan claims right after the scan runs
  (the lease) and after the checks (must be 0 both);
- ``changed_games``, ``changed_not_due``, ``due_unchanged``: game rows that differ at the end (a
  hash of each row), and how many of them were not due / how many due ones did not change;
  ``left_due``: games still due at the end; ``effects_ok``: each due game shows its own effect, once
  (one reminder or "running late" row in the outbox, a deadline a day later with a vacation day used
  and two notices, the game finished on time with its two game-over emails), and its check returned
  the ``Checked`` kind expected; ``recheck_did_something``: the checks run a second time (a task
  delivered twice) that did anything (must be 0).

No assertion on timings: this prints figures and the aim beside them, as a table, or with ``--json``
one JSON object a line (``bench``, ``games``, ``due``, ``scan_s``, ``scan_runs``, ``rows_read``,
``tasks_queued``, ``checks_s``, ...; then the plans).
"""

from __future__ import annotations

import argparse
import base64
import enum
import json
import logging
import re
import secrets
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from random import Random
from typing import Any

import psycopg
import redis
import sqlalchemy as sa
from flask import Flask
from sqlmodel import col, update

from bench.bench_stack import PG_ADMIN, queue_settings
from bench.real_games import accepted_game, play_randomly, turn_starts_at
from bench.report import arguments, json_line
from service import create_app
from service.after_commit import publish_after_commit
from service.db import get_engine, upgrade_schema
from service.models import Game
from service.outbox.queue import DELIVER_TASK
from service.turns import scan

REDIS_DB = 15
"""The Redis database of this bench (flushed before and after; no other is touched)."""
REDIS_URL = f"redis://127.0.0.1:6379/{REDIS_DB}"
QUEUE = "bench-deadlines"
"""The Celery queue the tasks go to (no worker reads it)."""
SECRET_KEY = "deadline-bench-secret-key-0123456789-abcdef"
TEMPLATES = 8
"""Real games played through the service; every other game is a copy of one of them."""
KINDS = ("reminder", "late", "vacation", "timeout")
"""What is due in the due games, round robin."""
EXPECTED = {
    "reminder": scan.Checked.REMINDED,
    "late": scan.Checked.TOLD_LATE,
    "vacation": scan.Checked.VACATION,
    "timeout": scan.Checked.TIMED_OUT,
}
"""What the check of a due game of each kind must report."""
AIM_S = 1.0
NOW = datetime.now(UTC).replace(microsecond=0)
"""The service's clock for the whole run (``CLOCK_NOW``)."""


# --- the games --------------------------------------------------------------------------------


def play_template(index: int, rng: Random) -> int:
    """Create, accept and play one game through the service (in an app context) up to the start
    of a turn at a ply from 10 to 40, with random legal moves; returns its id. A game that ends
    before is set aside (it stays, finished) and another one played."""
    target = rng.randint(10, 40)
    for attempt in range(20):
        form = {
            "a_name": f"Ann {index}",
            "a_email": f"template{index}-{attempt}a@bench.example",
            "b_name": f"Ben {index}",
            "b_email": f"template{index}-{attempt}b@bench.example",
        }
        game_id = accepted_game(form)
        if play_randomly(game_id, rng, turn_starts_at(target)).result is None:
            return game_id
    raise RuntimeError(f"no game of template {index} lasted {target} plies in 20 attempts")


def columns(db: psycopg.Connection[Any], table: str, skip: set[str]) -> list[str]:
    """The columns of ``table`` but ``skip``, whatever migrations added since this was written."""
    rows = db.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND table_schema = 'public' ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [name for (name,) in rows if name not in skip]


def copy_games(db: psycopg.Connection[Any], templates: list[int], count: int) -> list[int]:
    """``count`` copies of the template games (round robin), with their players, seats, move log
    and snapshots, after every row there is; returns the ids of the copies."""
    first = db.execute("SELECT max(id) + 1 FROM games").fetchone()[0]  # type: ignore[index]
    players = db.execute("SELECT max(id) FROM players").fetchone()[0]  # type: ignore[index]
    last = first + count - 1
    ids = "ARRAY[" + ",".join(str(t) for t in templates) + "]::int[]"
    template_of = f"({ids})[g % {len(templates)} + 1]"
    series = f"generate_series({first}, {last}) AS g"

    def listed(table: str, skip: set[str], prefix: str) -> tuple[str, str]:
        names = columns(db, table, skip)
        return ", ".join(names), ", ".join(f"{prefix}.{n}" for n in names)

    into, values = listed("games", {"id", "public_id", "creation_key"}, "t")
    db.execute(
        f"INSERT INTO games (id, public_id, {into}) SELECT g, 'bench-' || g, {values} "
        f"FROM {series} JOIN games t ON t.id = {template_of}"
    )
    player = f"{players} + 2 * (g - {first}) + 1 + (s.letter = 'B')::int"
    into, values = listed("players", {"id", "email"}, "p")
    db.execute(
        f"INSERT INTO players (id, email, {into}) "
        f"SELECT {player}, 'g' || g || lower(s.letter) || '@bench.example', {values} "
        f"FROM {series} JOIN seats s ON s.game_id = {template_of} "
        "JOIN players p ON p.id = s.player_id"
    )
    into, values = listed("seats", {"id", "game_id", "player_id"}, "s")
    db.execute(
        f"INSERT INTO seats (game_id, player_id, {into}) SELECT g, {player}, {values} "
        f"FROM {series} JOIN seats s ON s.game_id = {template_of}"
    )
    into, values = listed("moves", {"id", "game_id"}, "m")
    db.execute(
        f"INSERT INTO moves (game_id, {into}) SELECT g, {values} "
        f"FROM {series} JOIN moves m ON m.game_id = {template_of}"
    )
    into, values = listed("snapshots", {"id", "game_id"}, "s")
    db.execute(
        f"INSERT INTO snapshots (game_id, {into}) SELECT g, {values} FROM {series} "
        f"JOIN snapshots s ON s.game_id = {template_of}"
    )
    for table in ("games", "players"):
        db.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
        )
    return list(range(first, last + 1))


def set_clocks(db: psycopg.Connection[Any], due: dict[int, str]) -> None:
    """The clock of the current turn of every active game (three days a move, seven vacation
    days, none used): the ``due`` games get what their kind needs at ``NOW``, every other game
    its next check from one minute to three days after ``NOW``."""
    db.execute("CREATE TEMPORARY TABLE bench_due (game_id int PRIMARY KEY, kind text NOT NULL)")
    with db.cursor().copy("COPY bench_due (game_id, kind) FROM STDIN") as copy:
        for game_id, kind in due.items():
            copy.write_row((game_id, kind))
    # Not due: the turn began 36 h before its first reminder, which is 1 min to 3 days away.
    db.execute(
        "UPDATE games SET days_per_move = 3, vacation_days = 7, reminders_sent = '[]', "
        "last_reminder_at = NULL, late_notice_sent = false, "
        "next_check_at = %(now)s + (1 + id %% 4320) * interval '1 minute', "
        "turn_started_at = %(now)s + (1 + id %% 4320) * interval '1 minute' "
        "  - interval '36 hours', "
        "deadline = %(now)s + (1 + id %% 4320) * interval '1 minute' + interval '36 hours' "
        "WHERE status = 'active'",
        {"now": NOW},
    )
    db.execute("UPDATE seats SET vacation_days_used = 0")
    # started, deadline, next check (hours from NOW), reminders sent, last reminder, late told.
    clocks = {
        "reminder": (-40, 32, -4, "[]", None, False),
        "late": (-50, 22, -2, '["half"]', -14, False),
        "vacation": (-73, -1, -1, '["half","eighty","last-day"]', -13, True),
        "timeout": (-73, -1, -1, '["half","eighty","last-day"]', -13, True),
    }
    hour = timedelta(hours=1)
    for kind, (started, deadline, check, sent, last, told) in clocks.items():
        db.execute(
            "UPDATE games g SET turn_started_at = %s, deadline = %s, next_check_at = %s, "
            "reminders_sent = %s::json, last_reminder_at = %s, late_notice_sent = %s "
            "FROM bench_due d WHERE d.game_id = g.id AND d.kind = %s",
            (
                NOW + started * hour,
                NOW + deadline * hour,
                NOW + check * hour,
                sent,
                None if last is None else NOW + last * hour,
                told,
                kind,
            ),
        )
    # No vacation day left for the player to move of the games lost on time.
    db.execute(
        "UPDATE seats s SET vacation_days_used = g.vacation_days FROM games g, bench_due d "
        "WHERE s.game_id = g.id AND s.letter = g.to_move AND d.game_id = g.id "
        "AND d.kind = 'timeout'"
    )
    db.execute("DROP TABLE bench_due")


# --- measuring --------------------------------------------------------------------------------


SELECTING = {"due-games": "next_check_at <=", "lost-turn-starts": "turn_notified <"}
"""The scan's two queries over all games, by a piece of their SQL."""


@dataclass
class Statements:
    """The SQL statements an engine ran while listening: how many, the rows they returned, and
    the time and the statements of the two selecting queries (``SELECTING``)."""

    count: int = 0
    rows: int = 0
    total_s: float = 0.0
    selecting_s: float = 0.0
    selecting: list[tuple[str, str, Any]] = field(default_factory=list)
    _started: float = 0.0

    def listen(self, db_engine: sa.Engine) -> None:
        sa.event.listen(db_engine, "before_cursor_execute", self._before)
        sa.event.listen(db_engine, "after_cursor_execute", self._after)

    def stop(self, db_engine: sa.Engine) -> None:
        sa.event.remove(db_engine, "before_cursor_execute", self._before)
        sa.event.remove(db_engine, "after_cursor_execute", self._after)

    def _before(self, *_args: Any) -> None:
        self._started = time.perf_counter()

    def _after(
        self, _conn: Any, cursor: Any, statement: str, parameters: Any, _context: Any, _many: bool
    ) -> None:
        took = time.perf_counter() - self._started
        self.count += 1
        self.total_s += took
        if cursor.description is not None and cursor.rowcount > 0:
            self.rows += cursor.rowcount
        if "FROM games" in statement:
            for query, piece in SELECTING.items():
                if piece in statement:
                    self.selecting_s += took
                    self.selecting.append((query, statement, parameters))


@dataclass
class Publishes:
    """The scan's calls of ``publish_after_commit`` while attached: their wall times and
    whether each published everything (``False``: failed or cut short by
    ``BROKER_PUBLISH_TIMEOUT_S``). Attached by wrapping the name in ``service.turns.scan``, in
    this process only."""

    times_s: list[float] = field(default_factory=list)
    results: list[bool] = field(default_factory=list)

    @contextmanager
    def attached(self) -> Iterator[None]:
        original = publish_after_commit  # what scan.publish_after_commit is

        def timed(*args: Any, **kwargs: Any) -> bool:
            start = time.perf_counter()
            try:
                ok = original(*args, **kwargs)
            finally:
                self.times_s.append(time.perf_counter() - start)
            self.results.append(ok)
            return ok

        setattr(scan, "publish_after_commit", timed)  # noqa: B010
        try:
            yield
        finally:
            setattr(scan, "publish_after_commit", original)  # noqa: B010


class Warnings(logging.Handler):
    """The warnings (and worse) logged while attached: publishes cut short or failed."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def explain(db: psycopg.Connection[Any], statement: str, parameters: Any) -> list[str]:
    """``EXPLAIN (ANALYZE, BUFFERS)`` of a statement as the driver sent it."""
    rows = db.execute(f"EXPLAIN (ANALYZE, BUFFERS) {statement}", parameters).fetchall()
    return [line for (line,) in rows]


def compiled(app: Flask, statement: Any) -> tuple[str, dict[str, Any]]:
    """A SQLAlchemy statement compiled for PostgreSQL as the driver gets it (``IN`` lists
    expanded), with its parameters: ``NOW`` is UTC already (what UTCDateTime would make of
    it); enum members as their values."""
    with app.app_context():
        done = statement.compile(get_engine(app), compile_kwargs={"render_postcompile": True})
    params = {
        key: value.value if isinstance(value, enum.Enum) else value
        for key, value in done.construct_params().items()
    }
    return done.string, params


def claim_plans(db: psycopg.Connection[Any], app: Flask, batch: int) -> dict[str, list[str]]:
    """The plans of the claim of the first scan run at ``NOW`` (``scan.claim_due_games``): its
    ``SELECT ... FOR UPDATE SKIP LOCKED`` of the due games and its ``UPDATE`` of them, run in a
    transaction that is rolled back."""
    select_sql, select_params = compiled(
        app, scan.due_games_query(NOW, batch).with_for_update(skip_locked=True)
    )
    plans = {}
    with db.transaction(force_rollback=True):
        plans["claim-select"] = explain(db, select_sql, select_params)
        ids = [game_id for (game_id,) in db.execute(select_sql, select_params)]
        claim = (
            update(Game).where(col(Game.id).in_(ids)).values(next_check_at=NOW + scan.CHECK_LEASE)
        )
        update_sql, update_params = compiled(app, claim)
        # The updated_at the model makes at flush time (no value when compiled).
        if update_params.get("updated_at") is None:
            update_params["updated_at"] = NOW
        plan = explain(db, update_sql, update_params)
    # The list of ids, not worth printing: how many.
    plans["claim-update"] = [
        re.sub(r"'\{[\d,]*\}'", f"'{{... {len(ids)} ids}}'", line) for line in plan
    ]
    return plans


def table_reads(db: psycopg.Connection[Any]) -> dict[str, tuple[int, int, int]]:
    """Per table: sequential scans, tuples they read, tuples fetched by index scans."""
    db.execute("SELECT pg_stat_clear_snapshot()")
    rows = db.execute(
        "SELECT relname, coalesce(seq_scan, 0), coalesce(seq_tup_read, 0), "
        "coalesce(idx_tup_fetch, 0) FROM pg_stat_user_tables"
    ).fetchall()
    return {name: (seq, seq_read, fetched) for name, seq, seq_read, fetched in rows}


def rows_read(reads: dict[str, tuple[int, int, int]], table: str | None = None) -> int:
    """Rows read by sequential scans and fetched by index scans, in ``table`` or in all."""
    return sum(r + f for name, (_, r, f) in reads.items() if table in (None, name))


def row_hashes(db: psycopg.Connection[Any], table: str) -> dict[int, str]:
    rows = db.execute(f"SELECT id, md5(t::text) FROM {table} t").fetchall()
    return dict(rows)


def wait_for_no_other_backend(db: psycopg.Connection[Any]) -> None:
    """Until every other connection to this database has closed (their statistics flushed)."""
    for _ in range(100):
        row = db.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
            "AND pid <> pg_backend_pid() AND backend_type = 'client backend'"
        ).fetchone()
        if row is not None and row[0] == 0:
            return
        time.sleep(0.05)
    raise RuntimeError("connections of the scan are still open")


def settle(app: Flask, db: psycopg.Connection[Any]) -> None:
    """Close the app's connections and wait until PostgreSQL has counted what they did."""
    get_engine(app).dispose()
    wait_for_no_other_backend(db)


def queued_tasks(client: redis.Redis) -> list[tuple[str, list[Any]]]:
    """The tasks waiting in the Redis queue ``QUEUE`` (every priority): name and arguments,
    decoded from kombu's message format (JSON; the body a base64 JSON ``[args, kwargs,
    embed]``)."""
    tasks = []
    for key in client.scan_iter(match=f"{QUEUE}*"):
        if client.type(key) != b"list":
            continue
        raws = client.lrange(key, 0, -1)
        assert isinstance(raws, list)  # a synchronous client
        for raw in raws:
            message = json.loads(raw)
            body = message["body"]
            if message["properties"].get("body_encoding") == "base64":
                body = base64.b64decode(body)
            tasks.append((str(message["headers"]["task"]), list(json.loads(body)[0])))
    return tasks


# --- the run -------------------------------------------------------------------------------------


def run_scans(
    app: Flask, due: int, publishes: Publishes
) -> tuple[list[float], list[scan.ScanReport]]:
    """As many runs of the scan at ``NOW`` as the due games need (the beat task's runs: each
    takes at most ``TURN_SCAN_BATCH`` games); their wall times and reports."""
    batch = int(app.config["TURN_SCAN_BATCH"])
    times, reports = [], []
    with app.app_context(), publishes.attached():
        for _ in range(max(1, -(-due // batch))):
            start = time.perf_counter()
            reports.append(scan.scan_deadlines())
            times.append(time.perf_counter() - start)
    return times, reports


def rescan(app: Flask) -> int:
    """Games one more scan at ``NOW`` claims (not measured)."""
    with app.app_context():
        return len(scan.scan_deadlines().checked)


@dataclass
class Checks:
    """The checks run in this process: what each game's check did, and its time."""

    wall_s: float = 0.0
    done: dict[int, scan.Checked] = field(default_factory=dict)
    ms: dict[str, list[float]] = field(default_factory=dict)


def run_checks(app: Flask, tasks: list[tuple[int, str]]) -> Checks:
    """``scan.check_game(game_id, now)`` for each game of each task, one after the other, as a
    worker runs the ``check_games`` tasks."""
    checks = Checks()
    with app.app_context():
        start = time.perf_counter()
        for game_id, now in tasks:
            began = time.perf_counter()
            done = scan.check_game(game_id, datetime.fromisoformat(now))
            checks.ms.setdefault(done.value, []).append((time.perf_counter() - began) * 1000)
            checks.done[game_id] = done
        checks.wall_s = time.perf_counter() - start
    return checks


def make_games(
    app: Flask, dsn: str, args: argparse.Namespace, progress: Any
) -> tuple[dict[int, str], dict[str, list[str]]]:
    """The templates, their copies and the clocks; the due games (id: kind) and the plans of
    the claim."""
    start = time.perf_counter()
    rng = Random(20261201)
    # The templates are played in the eager mode (their turns started and emails sent).
    celery = app.extensions["celery"]
    queued = celery.conf.task_always_eager
    celery.conf.task_always_eager = True
    with app.app_context():
        templates = [play_template(i, rng) for i in range(TEMPLATES)]
    celery.conf.task_always_eager = queued
    played_s = time.perf_counter() - start
    get_engine(app).dispose()

    start = time.perf_counter()
    with psycopg.connect(dsn, autocommit=True) as db:
        copies = copy_games(db, templates, args.games - TEMPLATES)
        active = templates + copies
        due_ids = sorted(Random(args.due).sample(active, args.due))
        due = {game_id: KINDS[i % len(KINDS)] for i, game_id in enumerate(due_ids)}
        set_clocks(db, due)
        # Settle the new rows (statistics, visibility map), then the claim's plans (rolled
        # back), then vacuum what they left and checkpoint: the scan starts on clean tables.
        db.execute("VACUUM ANALYZE")
        plans = claim_plans(db, app, int(app.config["TURN_SCAN_BATCH"]))
        db.execute("VACUUM games")
        db.execute("CHECKPOINT")
        counts = {
            table: one(db, f"SELECT count(*) FROM {table}")
            for table in ("games", "seats", "players", "moves", "snapshots", "outbox")
        }
    print(
        f"{TEMPLATES} games played in {played_s:.1f} s; {len(copies):,} copies and clocks "
        f"in {time.perf_counter() - start:.1f} s: "
        + ", ".join(f"{n:,} {t}" for t, n in counts.items()),
        file=progress,
        flush=True,
    )
    return due, plans


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--games", type=int, default=100_000, help="active games")
    parser.add_argument("--due", type=int, default=1_000, help="games with something due now")
    parser.add_argument(
        "--batch", type=int, default=None, help="TURN_SCAN_BATCH (default: the service's)"
    )
    parser.add_argument(
        "--eager", action="store_true", help="embedded mode: the checks run inside the scan"
    )
    parser.add_argument("--keep", action="store_true", help="keep the database (prints its URL)")
    args = parser.parse_args()
    if args.games < TEMPLATES or not 0 <= args.due <= args.games:
        parser.error(f"need {TEMPLATES} <= --games and 0 <= --due <= --games")
    if args.batch is not None and args.batch < 1:
        parser.error("need --batch >= 1")
    progress = sys.stderr if args.json else sys.stdout

    client = None
    if not args.eager:
        client = redis.Redis.from_url(REDIS_URL, socket_timeout=5)
        client.flushdb()
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    database = f"battleline_deadlines_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
    dsn = url.replace("+psycopg", "")
    app = None
    warnings = Warnings()
    logging.getLogger("service.after_commit").addHandler(warnings)
    checks: Checks | None = None
    check_reads: dict[str, tuple[int, int, int]] = {}
    queued: list[tuple[str, list[Any]]] = []
    delivers = 0
    try:
        upgrade_schema(url)
        config: dict[str, Any] = {
            "APP_ENV": "testing",
            "TESTING": True,
            "DATABASE_URL": url,
            "SECRET_KEY": SECRET_KEY,
            "BASE_URL": "http://bl.bench.test",
            # A Redis URL makes the tasks go to that broker (not eager); none: the embedded mode.
            "REDIS_URL": None if args.eager else REDIS_URL,
            # Every queue's name begins with QUEUE (queued_tasks reads them all).
            **queue_settings(QUEUE),
            "MAIL_SERVER": None,
            "RATELIMIT_ENABLED": False,
            "CLOCK_NOW": NOW,
        }
        if args.batch is not None:
            config["TURN_SCAN_BATCH"] = args.batch
        app = create_app(config)
        assert app.extensions["celery"].conf.task_always_eager == args.eager
        due, plans = make_games(app, dsn, args, progress)
        with psycopg.connect(dsn, autocommit=True) as db:
            before_games = row_hashes(db, "games")
            deadlines: dict[int, datetime | None] = dict(
                db.execute("SELECT id, deadline FROM games").fetchall()
            )
            last_outbox = one(db, "SELECT coalesce(max(id), 0) FROM outbox")
        if client is not None:
            client.flushdb()  # nothing is queued while the games are made; to be sure

        # The scan. Statistics count from here: every connection that ran anything else closed.
        with psycopg.connect(dsn, autocommit=True) as db:
            wait_for_no_other_backend(db)
            db.execute("SELECT pg_stat_reset()")
            listener = Statements()
            listener.listen(get_engine(app))
            publishes = Publishes()
            run_s, reports = run_scans(app, args.due, publishes)
            listener.stop(get_engine(app))
            settle(app, db)
            reads = table_reads(db)
            if client is not None:
                queued = queued_tasks(client)
            for query, statement, parameters in listener.selecting:
                if query == "lost-turn-starts" and query not in plans:
                    plans[query] = explain(db, statement, parameters)
            rescan_after_claim = rescan(app)

            # The queued checks, as the workers would run them (not in the eager mode: they ran
            # in the scan).
            if client is not None:
                tasks = [
                    (int(game_id), str(a[0]))
                    for name, a in queued
                    if name == scan.CHECK_TASK
                    for game_id in a[1:]
                ]
                settle(app, db)
                db.execute("SELECT pg_stat_reset()")
                checks = run_checks(app, tasks)
                settle(app, db)
                check_reads = table_reads(db)
                delivers = sum(name == DELIVER_TASK for name, _ in queued_tasks(client))
            rescan_after_checks = rescan(app)
            get_engine(app).dispose()

            after_games = row_hashes(db, "games")
            changed = {i for i, h in after_games.items() if before_games.get(i) != h}
            outbox = Counter(
                db.execute("SELECT game_id, kind FROM outbox WHERE id > %s", (last_outbox,))
            )
            games_now = {
                game_id: (status, deadline)
                for game_id, status, deadline in db.execute(
                    "SELECT id, status, deadline FROM games"
                )
            }
            seats_now = {
                (game_id, seat): used
                for game_id, seat, used in db.execute(
                    "SELECT game_id, letter, vacation_days_used FROM seats"
                )
            }
            left_due = one(
                db,
                "SELECT count(*) FROM games WHERE status = 'active' AND next_check_at <= %s",
                (NOW,),
            )
            # A check task delivered twice: the second run must find nothing to do.
            recheck = run_checks(app, [(game_id, NOW.isoformat()) for game_id in due])
            get_engine(app).dispose()
            emails_after_recheck = one(
                db, "SELECT count(*) FROM outbox WHERE id > %s", (last_outbox,)
            )
        effects = check_effects(due, outbox, games_now, deadlines, seats_now)
        if checks is not None:
            effects += [
                f"game {game_id}: its check said {checks.done.get(game_id)}, not {EXPECTED[kind]}"
                for game_id, kind in due.items()
                if checks.done.get(game_id) is not EXPECTED[kind]
            ]
        if args.keep:
            print(f"database kept: {url}", file=progress)
    finally:
        logging.getLogger("service.after_commit").removeHandler(warnings)
        if app is not None:
            app.extensions["celery"].close()
            get_engine(app).dispose()
        if not args.keep:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()
        if client is not None:
            client.flushdb()
            client.close()

    scan_s = sum(run_s)
    claimed = [game_id for report in reports for game_id in report.checked]
    check_tasks = [a for name, a in queued if name == scan.CHECK_TASK]
    result: dict[str, Any] = {
        "bench": "deadline-scan",
        "games": args.games,
        "due": args.due,
        "mode": "eager" if args.eager else "broker",
        "batch": int(app.config["TURN_SCAN_BATCH"]),
        "scan_s": round(scan_s, 3),
        "scan_runs": len(run_s),
        "run_s": [round(t, 3) for t in run_s],
        "claimed": len(claimed),
        "select_ms": round(listener.selecting_s * 1000, 3),
        "sql_ms": round(listener.total_s * 1000, 3),
        "publish_ms": [round(t * 1000, 1) for t in publishes.times_s],
        "published_all": all(publishes.results),
        "statements": listener.count,
        "rows_returned": listener.rows,
        "rows_read": rows_read(reads),
        "games_rows_read": rows_read(reads, "games"),
        "games_seq_scans": reads.get("games", (0, 0, 0))[0],
        "tasks_queued": None if args.eager else len(check_tasks),
        "games_in_tasks": None if args.eager else sum(len(a) - 1 for a in check_tasks),
        "tasks_match_claimed": None
        if args.eager
        else sorted(int(g) for a in check_tasks for g in a[1:]) == sorted(claimed),
        "other_tasks": dict(Counter(n for n, _ in queued if n != scan.CHECK_TASK)),
        "publish_warnings": warnings.messages[:5],
        "checks_s": None if checks is None else round(checks.wall_s, 3),
        "check_ms": None
        if checks is None
        else {
            kind: {
                "n": len(times),
                "mean_ms": round(sum(times) / len(times), 2),
                "total_ms": round(sum(times), 1),
            }
            for kind, times in sorted(checks.ms.items())
        },
        "checks_rows_read": None if checks is None else rows_read(check_reads),
        "deliver_tasks_queued": None if checks is None else delivers,
        "turns_started": sum(len(r.turns_started) for r in reports),
        "rescan_after_claim": rescan_after_claim,
        "rescan_after_checks": rescan_after_checks,
        "changed_games": len(changed),
        "changed_not_due": len(changed - due.keys()),
        "due_unchanged": len(due.keys() - changed),
        "left_due": left_due,
        "emails_queued": sum(outbox.values()),
        "effects_ok": not effects,
        "recheck_did_something": sum(
            len(t) for k, t in recheck.ms.items() if k != scan.Checked.NOTHING
        )
        + (emails_after_recheck - sum(outbox.values())),
        "aim_s": AIM_S,
    }
    if args.json:
        json_line(result)
        for query, plan in plans.items():
            json_line({"bench": "deadline-scan", "plan": query, "lines": plan})
        if effects:
            json_line({"bench": "deadline-scan", "effect_errors": effects[:20]})
        return
    print_table(result, reads, check_reads, plans, effects)


def one(db: psycopg.Connection[Any], query: str, parameters: Any = None) -> Any:
    """The single value ``query`` returns."""
    row = db.execute(query, parameters).fetchone()
    assert row is not None
    return row[0]


def check_effects(
    due: dict[int, str],
    outbox: Counter[tuple[int, str]],
    games_now: dict[int, tuple[str, datetime | None]],
    deadlines: dict[int, datetime | None],
    seats_now: dict[tuple[int, str], int],
) -> list[str]:
    """What is wrong with the effect of the scan on each due game (empty: nothing)."""
    errors = []
    for game_id, kind in due.items():
        status, deadline = games_now[game_id]
        if kind == "reminder":
            ok = outbox[(game_id, "reminder")] == 1
        elif kind == "late":
            ok = outbox[(game_id, "running_late")] == 1
        elif kind == "vacation":
            old = deadlines[game_id]
            used = sum(seats_now[(game_id, s)] for s in "AB")
            ok = (
                old is not None
                and deadline == old + timedelta(days=1)
                and used == 1
                and outbox[(game_id, "timeout_notice")] == 2
            )
        else:
            ok = status == "finished" and outbox[(game_id, "game_over")] == 2
        if not ok:
            errors.append(f"game {game_id}: {kind} not done")
    return errors


def print_reads(reads: dict[str, tuple[int, int, int]]) -> None:
    for name, (seq, seq_read, fetched) in sorted(reads.items()):
        if seq_read or fetched:
            print(f"    {name:<12}{seq:>4} seq scans {seq_read:>9,} rows, index {fetched:>7,} rows")


def print_table(
    result: dict[str, Any],
    reads: dict[str, tuple[int, int, int]],
    check_reads: dict[str, tuple[int, int, int]],
    plans: dict[str, list[str]],
    effects: list[str],
) -> None:
    eager = result["mode"] == "eager"
    print()
    print(
        f"deadline scan: {result['games']:,} active games, {result['due']:,} due "
        f"({' / '.join(KINDS)} in turn); TURN_SCAN_BATCH {result['batch']}"
    )
    if eager:
        print("  EAGER (embedded mode, no broker): the checks and their emails ran INSIDE the scan")
    else:
        print(f"  tasks published to Redis {REDIS_URL} (queue {QUEUE}, no worker reading it)")
    runs = " + ".join(f"{t:.3f}" for t in result["run_s"])
    print(f"\nTHE SCAN{' (checks included)' if eager else ''}")
    print(f"  {'scan wall time':<34}{result['scan_s']:>10.3f} s  (aim under {AIM_S:g} s)")
    print(f"  {'runs of the scan':<34}{result['scan_runs']:>10}  ({runs} s)")
    print(f"  {'games claimed':<34}{result['claimed']:>10,}")
    print(f"  {'selecting the games':<34}{result['select_ms']:>10.3f} ms")
    print(f"  {'all its SQL statements':<34}{result['sql_ms']:>10.3f} ms")
    publish = " + ".join(f"{t:.1f}" for t in result["publish_ms"])
    done = "all published" if result["published_all"] else "NOT ALL PUBLISHED"
    label = "running the checks (eager)" if eager else "publishing the tasks"
    print(f"  {label:<34}{sum(result['publish_ms']):>10.1f} ms  ({publish}; {done})")
    print(f"  {'SQL statements':<34}{result['statements']:>10,}")
    print(f"  {'rows returned to the scan':<34}{result['rows_returned']:>10,}")
    print(f"  {'rows read by PostgreSQL, games':<34}{result['games_rows_read']:>10,}")
    print(f"  {'sequential scans of games':<34}{result['games_seq_scans']:>10,}")
    print(f"  {'rows read by PostgreSQL, all':<34}{result['rows_read']:>10,}")
    print_reads(reads)
    if not eager:
        match = "the claimed games" if result["tasks_match_claimed"] else "NOT the claimed games"
        print(f"  {'check tasks in the Redis queue':<34}{result['tasks_queued']:>10,}")
        print(f"  {'games in them':<34}{result['games_in_tasks']:>10,}  ({match})")
    print(f"  {'other tasks in the queue':<34}{sum(result['other_tasks'].values()):>10,}")
    for message in result["publish_warnings"]:
        print(f"    publish warning: {message}")
    if not eager:
        print("\nTHE CHECKS (worker time, run here one after the other; NOT part of the scan)")
        print(f"  {'checks wall time':<34}{result['checks_s']:>10.3f} s")
        for kind, figures in result["check_ms"].items():
            print(
                f"  {kind:<34}{figures['n']:>10,}  x {figures['mean_ms']:.2f} ms"
                f" = {figures['total_ms'] / 1000:.3f} s"
            )
        print(f"  {'rows read by PostgreSQL, all':<34}{result['checks_rows_read']:>10,}")
        print_reads(check_reads)
        print(f"  {'email tasks they queued':<34}{result['deliver_tasks_queued']:>10,}")
    print("\nVERIFIED")
    print(f"  {'games a scan claims right after':<34}{result['rescan_after_claim']:>10,}")
    print(f"  {'  and after the checks':<34}{result['rescan_after_checks']:>10,}")
    print(f"  {'games changed':<34}{result['changed_games']:>10,}")
    print(f"  {'  of them not due':<34}{result['changed_not_due']:>10,}")
    print(f"  {'due games unchanged':<34}{result['due_unchanged']:>10,}")
    print(f"  {'games still due after':<34}{result['left_due']:>10,}")
    print(f"  {'emails queued':<34}{result['emails_queued']:>10,}")
    print(f"  {'turn starts found lost':<34}{result['turns_started']:>10,}")
    print(
        f"  {'every due game did its thing once':<34}{'yes' if result['effects_ok'] else 'NO':>10}"
    )
    for error in effects[:10]:
        print(f"    {error}")
    print(f"  {'checks run again that did a thing':<34}{result['recheck_did_something']:>10,}")
    for query, plan in plans.items():
        print(f"\nplan of the {query} query:")
        for line in plan:
            print(f"  {line}")


if __name__ == "__main__":
    main()
