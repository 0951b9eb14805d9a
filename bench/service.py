"""Service throughput: ``python -m bench.service`` from the repository root (.venv/bin/python).

Starts gunicorn as the Procfile does (``gunicorn.conf.py``: a sync worker per core; ``--workers``
to try another number) on a PostgreSQL database of its own (made and dropped here) and measures,
side by side in one run, requests per second and p50/p99 latency of

- ``healthz``: ``GET /healthz``, a minimal Flask endpoint, the baseline;
- ``private``: ``GET /p/<token>``, the private page of the seat to move (hand, board, legal
  moves, claim proofs);
- ``public-early``: ``GET /games/<public_id>?ply=3``, the public replay page near the deal;
- ``public-late``: the same page at the latest position of a long game (90 to 120 plies);
- ``move``: ``POST /p/<token>/move``, a real move, each request in a different game (the first
  move form of the private page, as a browser sends it), its outbox rows and the start of the
  next turn included,
- ``lobby``: ``GET /lobby``, one page of the open challenges (one challenge per game stored,
  posted by its seat A: as many challenges as games, twice as many players), unfiltered, by
  variant, by variant and days, and an older page (``before=``),
- ``players``: ``GET /players/<name>``, the player page of a random player (every stored player
  has a public name, two per game: 200,000 players beside 100,000 games; every other game is
  public, so half the pages list a game; ``bench.player_pages``),

with 1,000 and then with 100,000 games stored. The load generator is ``wrk`` (Debian's package,
``apt-get install -y wrk``) with a Lua script that walks a list of requests; its own CPU use is
printed beside the baseline so it can be seen not to be the bottleneck.

How the games are made: a few real games are created, accepted and played through the service's
own functions (random legal moves from a fixed seed) up to the start of a turn in mid-game; then
their rows are copied in SQL (``INSERT ... SELECT`` over ``generate_series``): games, two new
players and two seats per game, the whole move log and the snapshots.

Mail: by default the emails a move causes are queued to Redis on 127.0.0.1:6379 (a queue of this
run, deleted at the end; no worker consumes it), as in production. ``--eager-mail`` runs the
embedded mode instead (the email is rendered and "sent" inside the request).

No assertion on timings anywhere: this prints figures and the aims beside them, as a table, or
with ``--json`` one JSON object per measurement (``endpoint``, ``games``, ``req_s``, ``p50_ms``,
``p99_ms``, ``cpu_ms_per_req``, ``healthz_cpu_ms_per_req``, ``x_healthz``, ``errors``,
``others_cores``), one a line.

Side by side: the machine's speed drifts over a run (a shared VM: other guests, frequency), so
``/healthz`` is measured again after each endpoint, and each endpoint's CPU per request is set
against the mean of the healthz windows just before and after it (``healthz_cpu_ms_per_req``).
The healthz line itself is its first window. Before the windows of each number of games, the
workers warm up on all three pages for ``--warm-up`` seconds, so that their caches (move words,
claims, buttons) are full before any window rather than filling during the first one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import runpy
import secrets
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from random import Random
from typing import Any

import psycopg
from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Sink

from bench import ROOT
from bench.bench_stack import PG_ADMIN, delete_queues, queue_keys, queue_settings
from bench.player_pages import name_players, player_requests
from bench.real_games import accepted_game, play_randomly, turn_starts_at
from bench.report import arguments, json_line
from service import create_app, tokens
from service.db import get_engine, upgrade_schema

REDIS_URL = "redis://127.0.0.1:6379/0"
SECRET_KEY = "bench-secret-key-bench-secret-key-0123456789"
BASE_URL = "https://bl.bench"
TEMPLATES = 8
"""Real games played through the service; every other game is a copy of one of them."""
SIZES = (1_000, 100_000)
WARM_UP_POSTS = 64
ENDPOINTS = ("healthz", "private", "public-early", "public-late", "move", "lobby", "players")
AIMS = {
    "private": 12, "public-early": 12, "public-late": 12, "move": 25, "lobby": 12, "players": 12,
}  # fmt: skip
"""The most server CPU per request each endpoint may cost, as a multiple of ``healthz``."""
P99_AIM = 1.3
"""p99 at 100,000 games at most this multiple of p99 at 1,000 games."""
LUA = r"""
-- Walks the requests of a file, one line each: METHOD <tab> PATH <tab> BODY (url-encoded).
local requests = {}
local next_index = 0
local limit = 0
local answered = 0

function init(args)
  for line in io.lines(args[1]) do
    local method, path, body = line:match("^(%u+)\t([^\t]+)\t?(.*)$")
    local headers = {}
    if method == "POST" then
      headers["Content-Type"] = "application/x-www-form-urlencoded"
    else
      body = nil
    end
    requests[#requests + 1] = wrk.format(method, path, headers, body)
  end
  -- "once": each request is sent at most once (each POST plays in its own game). Only then
  -- is there a response() to call: wrk hands it every body, which costs the client time.
  if args[2] == "once" then
    limit = #requests
    response = function(status, headers, body)
      answered = answered + 1
      if answered >= limit then wrk.thread:stop() end
    end
  end
end

function request()
  next_index = next_index + 1
  return requests[(next_index - 1) % #requests + 1]
end

function done(summary, latency, requests)
  io.write(string.format(
    '@@{"requests":%d,"duration_us":%d,"p50_us":%d,"p99_us":%d,"max_us":%d,' ..
    '"status_errors":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    latency.max, summary.errors.status, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.timeout))
end
"""


# --- the real games ---------------------------------------------------------------------------


@dataclass
class Template:
    """A real game stopped at the start of a turn in mid-game."""

    game_id: int
    ply: int
    to_move: str
    form: dict[str, str] = field(default_factory=dict)
    """The first move form of the private page of the seat to move (filled in once served)."""


LONG_PLIES = (90, 120)
"""The odd-numbered templates stop this late: the public page at their last ply is the page of a
long game (``public-late``)."""


def play_template(index: int, rng: Random) -> Template:
    """Create, accept and play one game through the service (in an app context) up to the
    start of a turn at a ply from 30 to 50 (odd ``index``: from 90 to 120), with random legal
    moves. A game that ends before is set aside and another one played."""
    low, high = LONG_PLIES if index % 2 else (30, 50)
    target = rng.randint(low, high)
    for attempt in range(20):
        form = {
            "a_name": f"Ann {index}",
            "a_email": f"template{index}a@bench.example",
            "b_name": f"Ben {index}",
            "b_email": f"template{index}b@bench.example",
            "days_per_move": str(attempt % 14 + 1),  # another request each attempt
        }
        game_id = accepted_game(form, seed=f"bench-{index}-{attempt}")
        state = play_randomly(game_id, rng, turn_starts_at(target))
        if state.result is None:
            assert state.to_move is not None
            return Template(game_id=game_id, ply=state.ply, to_move=state.to_move)
    raise RuntimeError(f"no game of template {index} lasted {target} plies in 20 attempts")


class FirstMoveForm(HTMLParser):
    """The fields that pressing the first move button of a private page sends."""

    def __init__(self) -> None:
        super().__init__()
        self.fields: dict[str, str] | None = None
        self._current: dict[str, str] | None = None
        self._select: str | None = None
        self._button: tuple[str, str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {key: value or "" for key, value in attrs}
        if self.fields is not None:
            return
        if tag == "form" and a.get("action", "").endswith("/move"):
            self._current, self._button = {}, None
        elif self._current is None:
            return
        elif tag == "input" and a.get("type") == "hidden":
            self._current[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select = a["name"]
        elif tag == "option" and self._select is not None:
            if self._select not in self._current or "selected" in a:
                self._current[self._select] = a.get("value", "")
        elif tag == "button" and a.get("name") == "move" and self._button is None:
            self._button = ("move", a.get("value", ""))

    def handle_endtag(self, tag: str) -> None:
        if tag == "select":
            self._select = None
        elif tag == "form" and self._current is not None:
            if self._button is not None:
                self.fields = {**self._current, self._button[0]: self._button[1]}
            self._current = None


def first_move_form(html: str) -> dict[str, str]:
    parser = FirstMoveForm()
    parser.feed(html)
    if not parser.fields:
        raise RuntimeError("the private page of the seat to move has no move form")
    return parser.fields


# --- copying rows ------------------------------------------------------------------------------


def columns(db: psycopg.Connection[Any], table: str, skip: set[str]) -> list[str]:
    """The columns of ``table`` but ``skip``, whatever migrations added since this was written."""
    rows = db.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = %s "
        "AND table_schema = 'public' ORDER BY ordinal_position",
        (table,),
    ).fetchall()
    return [name for (name,) in rows if name not in skip]


def copy_games(
    db: psycopg.Connection[Any], templates: list[Template], first: int, last: int
) -> None:
    """Games ``first``..``last`` (their ids) as copies of the templates, round robin. Copy g
    has players 2g-1 (seat A) and 2g (seat B); template ids and player ids are all lower."""
    ids = "ARRAY[" + ",".join(str(t.game_id) for t in templates) + "]::int[]"
    template_of = f"({ids})[g % {len(templates)} + 1]"
    series = f"generate_series({first}, {last}) AS g"
    game_cols = columns(db, "games", {"id", "public_id"})
    # A copy has no public name of its template's: keys are unique (``bench.player_pages``).
    player_cols = columns(db, "players", {"id", "email", "name_key"})
    seat_cols = columns(db, "seats", {"id", "game_id", "player_id"})
    move_cols = columns(db, "moves", {"id", "game_id"})
    snap_cols = columns(db, "snapshots", {"id", "game_id"})

    def listed(names: list[str], prefix: str) -> tuple[str, str]:
        return ", ".join(names), ", ".join(f"{prefix}.{n}" for n in names)

    into, values = listed(game_cols, "t")
    db.execute(
        f"INSERT INTO games (id, public_id, {into}) SELECT g, 'bench-' || g, {values} "
        f"FROM {series} JOIN games t ON t.id = {template_of}"
    )
    player = "2 * g - 1 + (s.letter = 'B')::int"
    into, values = listed(player_cols, "p")
    db.execute(
        f"INSERT INTO players (id, email, {into}) "
        f"SELECT {player}, 'g' || g || lower(s.letter) || '@bench.example', {values} "
        f"FROM {series} JOIN seats s ON s.game_id = {template_of} "
        "JOIN players p ON p.id = s.player_id"
    )
    into, values = listed(seat_cols, "s")
    db.execute(
        f"INSERT INTO seats (game_id, player_id, {into}) SELECT g, {player}, {values} "
        f"FROM {series} JOIN seats s ON s.game_id = {template_of}"
    )
    into, values = listed(move_cols, "m")
    db.execute(
        f"INSERT INTO moves (game_id, {into}) SELECT g, {values} "
        f"FROM {series} JOIN moves m ON m.game_id = {template_of}"
    )
    into, values = listed(snap_cols, "s")
    db.execute(
        f"INSERT INTO snapshots (game_id, {into}) SELECT g, {values} FROM {series} "
        f"JOIN snapshots s ON s.game_id = {template_of}"
    )
    for table in ("games", "players"):
        db.execute(
            f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))"
        )
    # Settle the new rows before measuring: statistics, visibility map, and no checkpoint due.
    db.execute("VACUUM ANALYZE")
    db.execute("CHECKPOINT")


LOBBY_RULESETS = ("battleline", "no-tactics", "playing-cards", "schotten-totten")


def seed_challenges(db: psycopg.Connection[Any], first: int, last: int) -> None:
    """One open challenge for each of games ``first``..``last``, posted by its seat A's player
    (2g-1, as ``copy_games`` numbers them): variants and days per move spread over all."""
    rulesets = "ARRAY[" + ",".join(f"'{r}'" for r in LOBBY_RULESETS) + "]"
    db.execute(
        "INSERT INTO challenges (kind, status, poster_id, ruleset, claims, days_per_move, "
        "message, played_only, keep_going, expires_at) "
        f"SELECT 'open', 'open', 2 * g - 1, ({rulesets})[g % {len(LOBBY_RULESETS)} + 1], "
        "'advanced', g % 14 + 1, 'Good luck & have fun <3', false, false, "
        f"now() + interval '7 days' FROM generate_series({first}, {last}) AS g"
    )
    db.execute("ANALYZE challenges")


def lobby_requests(db: psycopg.Connection[Any], rng: Random) -> list[str]:
    """The lobby as people open it: every page, by variant, by variant and days, and older
    pages from a random challenge down."""
    row = db.execute("SELECT min(id), max(id) FROM challenges").fetchone()
    low, high = (row[0], row[1]) if row and row[0] is not None else (1, 1)
    lines = []
    for _ in range(500):
        ruleset, days = rng.choice(LOBBY_RULESETS), rng.randint(1, 14)
        lines += [
            "GET\t/lobby",
            f"GET\t/lobby?ruleset={ruleset}",
            f"GET\t/lobby?ruleset={ruleset}&days={days}",
            f"GET\t/lobby?before={rng.randint(low, high)}",
        ]
    return lines


# --- gunicorn and wrk -------------------------------------------------------------------------


def production_env(url: str, queue: str, mail_port: int, *, queued: bool = True) -> dict[str, str]:
    """The environment of the bench's service: production on the database at ``url``, mail
    queued to the Redis queue ``queue`` (sent at once when not ``queued``) and sent to the
    mail server at ``mail_port``."""
    return {
        "APP_ENV": "production",
        "DATABASE_URL": url,
        "SECRET_KEY": SECRET_KEY,
        "BASE_URL": BASE_URL,
        "REDIS_URL": REDIS_URL if queued else "",
        **queue_settings(queue),
        "MAIL_SERVER": "127.0.0.1",
        "MAIL_PORT": str(mail_port),
        # wrk sends thousands of requests a second from one address: the per-client limits
        # would answer most with 429 and measure nothing else.
        "RATELIMIT_ENABLED": "0",
    }


def app_settings(env: dict[str, str]) -> dict[str, Any]:
    """``production_env`` as ``create_app``'s settings, for an app in the bench's process."""
    return {
        **env,
        "REDIS_URL": env["REDIS_URL"] or None,
        "MAIL_PORT": int(env["MAIL_PORT"]),
        "MAIL_SUPPRESS_SEND": False,
        "RATELIMIT_ENABLED": False,
    }


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def start_gunicorn(
    env: dict[str, str], port: int, workers: int | None, log: Path
) -> subprocess.Popen[bytes]:
    """gunicorn as the Procfile runs it (its config file: one worker per core), or with
    ``workers``."""
    command = [
        str(Path(sys.executable).with_name("gunicorn")),
        "--config", str(ROOT / "gunicorn.conf.py"),
        *(["--workers", str(workers)] if workers else []),
        "--bind", f"127.0.0.1:{port}",
        "--backlog", "2048", "--log-level", "warning", "service:create_app()",
    ]  # fmt: skip
    with open(log, "wb") as out:
        process = subprocess.Popen(
            command, cwd=ROOT, env={**os.environ, **env}, stdout=out, stderr=subprocess.STDOUT,
            start_new_session=True,
        )  # fmt: skip
    for _ in range(100):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1) as r:
                if r.read() == b"ok":
                    time.sleep(1.0)  # every worker booted, not only the first
                    return process
        except OSError:
            time.sleep(0.1)
    process.kill()
    raise RuntimeError(f"gunicorn did not answer /healthz; see {log}")


def configured_workers() -> int:
    """The number of workers gunicorn.conf.py starts (the Procfile's)."""
    workers: int = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["workers"]
    return workers


TICK = os.sysconf("SC_CLK_TCK")


def group_cpu(pgid: int, *, system_only: bool = False) -> float:
    """CPU seconds used so far by the live processes of process group ``pgid`` (gunicorn); with
    ``system_only`` the kernel's part alone (system calls, page faults)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        if int(fields[2]) == pgid:  # pgrp; utime and stime follow at 11 and 12
            total += int(fields[12]) if system_only else int(fields[11]) + int(fields[12])
    return total / TICK


def host_busy() -> float:
    """CPU seconds the whole machine has been busy (all cores), from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    return (sum(values[:8]) - idle) / TICK


@dataclass
class Result:
    endpoint: str
    games: int
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    errors: int
    client_cpu: float
    """The load generator's CPU seconds per wall second (1.0 = one core)."""
    server_ms: float
    """gunicorn's CPU milliseconds per request (master and workers): steadier than req/s on a
    shared machine."""
    others: float
    """Cores busy with everything but gunicorn and wrk: PostgreSQL, Redis, and whatever else
    runs on the machine (a high figure means the run was disturbed)."""
    again: bool = False
    """A healthz window measured after an endpoint's, for the ratio of the endpoint next to it
    (``baselines``), not a line of its own."""

    @property
    def rate(self) -> float:
        return self.requests / self.seconds


def run_wrk(
    url: str,
    lines: list[str],
    workdir: Path,
    *,
    seconds: float,
    connections: int,
    once: bool = False,
    pgid: int = 0,
) -> dict[str, Any]:
    requests_file = workdir / "requests.tsv"
    requests_file.write_text("\n".join(lines) + "\n")
    script = workdir / "walk.lua"
    script.write_text(LUA)
    command = [
        "wrk", "-t1", f"-c{connections}", f"-d{max(1, round(seconds))}s", "--timeout", "10s",
        "-s", str(script), url, "--", str(requests_file), "once" if once else "cycle",
    ]  # fmt: skip
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    server_before, busy_before = group_cpu(pgid), host_busy()
    kernel_before = group_cpu(pgid, system_only=True)
    start = time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    wall = time.perf_counter() - start
    server_cpu, busy = group_cpu(pgid) - server_before, host_busy() - busy_before
    kernel_cpu = group_cpu(pgid, system_only=True) - kernel_before
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    match = re.search(r"^@@(\{.*\})$", out, re.MULTILINE)
    if not match:
        raise RuntimeError(f"wrk printed no summary:\n{out}")
    data: dict[str, Any] = json.loads(match.group(1))
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    data["client_cpu"] = cpu / wall
    data["server_cpu"] = server_cpu
    data["server_kernel_share"] = kernel_cpu / server_cpu if server_cpu else 0.0
    data["others"] = max(0.0, busy - server_cpu - cpu) / wall
    return data


def measure(
    name: str, games: int, base: str, lines: list[str], workdir: Path, args: argparse.Namespace,
    *, once: bool = False, again: bool = False,
) -> Result:  # fmt: skip
    """One window of ``lines`` after a warm-up (a baseline window ``again``: one after an
    endpoint's, the machine warm already)."""
    if once:
        # Warm up on games of their own: a POST game serves once.
        warm, lines = lines[:WARM_UP_POSTS], lines[WARM_UP_POSTS:]
        run_wrk(base, warm, workdir, seconds=3, connections=args.connections, once=True)
    elif not again:
        run_wrk(base, lines, workdir, seconds=2, connections=args.connections)
    data = run_wrk(
        base,
        lines,
        workdir,
        seconds=args.seconds,
        connections=args.connections,
        once=once,
        pgid=args.server_pgid,
    )
    errors = sum(data[k] for k in ("status_errors", "connect", "read", "write", "timeout"))
    result = Result(
        endpoint=name,
        games=games,
        requests=data["requests"],
        seconds=data["duration_us"] / 1e6,
        p50_ms=data["p50_us"] / 1000,
        p99_ms=data["p99_us"] / 1000,
        errors=errors,
        client_cpu=data["client_cpu"],
        server_ms=data["server_cpu"] * 1000 / max(1, data["requests"]),
        others=data["others"],
        again=again,
    )
    print(
        f"  {name:<14}{games:>9,} games {result.rate:>8.0f} req/s  p50 {result.p50_ms:6.1f} ms"
        f"  p99 {result.p99_ms:6.1f} ms  errors {errors}  server {result.server_ms:5.2f} ms CPU/req"
        f" ({data['server_kernel_share']:.0%} kernel)"
        f"  (wrk {result.client_cpu:.0%} of a core, others {result.others:.2f} cores)",
        file=sys.stderr if args.json else sys.stdout,
        flush=True,
    )
    return result


# --- the run -------------------------------------------------------------------------------------


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument(
        "--workers",
        type=int,
        help="gunicorn sync workers (default: gunicorn.conf.py's, a core each)",
    )
    parser.add_argument("--connections", type=int, default=16, help="wrk connections")
    parser.add_argument("--seconds", type=float, default=8, help="per measurement")
    parser.add_argument(
        "--warm-up", type=float, default=8, help="on all pages, before each number of games"
    )
    parser.add_argument("--eager-mail", action="store_true", help="embedded mode, no Redis")
    parser.add_argument("--keep", action="store_true", help="keep the database (prints its URL)")
    parser.add_argument(
        "--only",
        default=",".join(ENDPOINTS[1:]),
        help="the endpoints to measure, comma-separated (healthz always is)",
    )
    args = parser.parse_args()
    if args.seconds < 3:
        parser.error("--seconds must be 3 or more: shorter runs measure little but start-up")
    only = set(args.only.split(","))
    if not only <= set(ENDPOINTS):
        parser.error("--only takes some of " + ", ".join(ENDPOINTS[1:]))

    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    database = f"battleline_bench_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
    queue = f"battleline-bench-{secrets.token_hex(4)}"
    # Production refuses to run without a mail server: a sink takes what --eager-mail sends
    # (queued mail is never delivered here: no worker consumes the queue).
    smtp_port = free_port()
    smtp = Controller(Sink(), hostname="127.0.0.1", port=smtp_port)
    smtp.start()
    env = production_env(url, queue, smtp_port, queued=not args.eager_mail)
    # With --json, standard output carries only the JSON lines; progress goes to standard error.
    progress = sys.stderr if args.json else sys.stdout
    workdir = Path(tempfile.mkdtemp(prefix="bench-service-"))
    server: subprocess.Popen[bytes] | None = None
    app = None
    results: list[Result] = []
    try:
        upgrade_schema(url)
        app = create_app(app_settings(env))
        rng = Random(20250301)
        start = time.perf_counter()
        with app.app_context():
            templates = [play_template(i, rng) for i in range(TEMPLATES)]
        print(
            f"{TEMPLATES} real games played through the service in "
            f"{time.perf_counter() - start:.1f} s, at plies "
            + ", ".join(str(t.ply) for t in templates),
            file=progress,
            flush=True,
        )
        port = free_port()
        server = start_gunicorn(env, port, args.workers, workdir / "gunicorn.log")
        args.server_pgid = server.pid  # start_new_session: the master leads the group
        base = f"http://127.0.0.1:{port}"
        with app.app_context():
            for t in templates:
                token = tokens.make_private_token(t.game_id, t.to_move, 0)
                with urllib.request.urlopen(f"{base}/p/{token}", timeout=10) as page:
                    t.form = first_move_form(page.read().decode())
        by_id = {t.game_id: t for t in templates}
        template_ids = [t.game_id for t in templates]
        # Copies come after every game played so far (templates and games set aside).
        first_copy = max(template_ids) + 1

        db = psycopg.connect(url.replace("+psycopg", ""), autocommit=True)
        stored = first_copy - 1
        used_for_moves = 0
        for size in SIZES:
            start = time.perf_counter()
            copy_games(db, templates, stored + 1, size)
            seed_challenges(db, stored + 1, size)
            named = name_players(db)
            stored = size
            row = db.execute("SELECT count(*) FROM players").fetchone()
            print(
                f"{size:,} games stored (copied in {time.perf_counter() - start:.1f} s), "
                f"{row[0] if row else 0:,} players ({named:,} named now)",
                file=progress,
            )
            row = db.execute("SELECT max(id) FROM moves").fetchone()
            last_move = row[0] if row else 0
            # Copy g is a copy of template (g % TEMPLATES) + 1, as copy_games makes them.
            template_of = {g: by_id[template_ids[g % TEMPLATES]] for g in range(1, size + 1)}
            copies = range(first_copy, size + 1)
            sample = Random(size).sample(copies, min(2000, len(copies)))
            with app.app_context():
                private = [
                    f"GET\t/p/{tokens.make_private_token(g, template_of[g].to_move, 0)}"
                    for g in sample
                ]
                moves = []
                for g in range(max(used_for_moves + 1, first_copy), size + 1):
                    t = template_of[g]
                    body = urllib.parse.urlencode(t.form)
                    token = tokens.make_private_token(g, t.to_move, 0)
                    moves.append(f"POST\t/p/{token}/move\t{body}")
            early = [f"GET\t/games/bench-{g}?ply=3" for g in sample]
            # The latest position of the long games (90 to 120 plies).
            late = [
                f"GET\t/games/bench-{g}?ply={template_of[g].ply}"
                for g in sample
                if template_of[g].ply >= LONG_PLIES[0]
            ]
            # The workers' caches fill on all the pages before any window (late is the
            # shortest list, the long games only: zip stops there).
            mixed = [line for three in zip(private, early, late, strict=False) for line in three]
            print(f"  warming up on the pages for {args.warm_up:.0f} s", file=progress)
            run_wrk(base, mixed, workdir, seconds=args.warm_up, connections=args.connections)
            # The baseline again after each endpoint: each is set against the healthz windows
            # just before and after it, measured under the same conditions of the machine.
            healthz = ["GET\t/healthz"]
            results.append(measure("healthz", size, base, healthz, workdir, args))
            pages = (
                ("private", private), ("public-early", early), ("public-late", late),
                ("lobby", lobby_requests(db, Random(size))),
                ("players", player_requests(db, Random(size))),
            )  # fmt: skip
            for name, lines in pages:
                if name not in only:
                    continue
                results.append(measure(name, size, base, lines, workdir, args))
                results.append(measure("healthz", size, base, healthz, workdir, args, again=True))
            if "move" in only:
                results.append(measure("move", size, base, moves, workdir, args, once=True))
                results.append(measure("healthz", size, base, healthz, workdir, args, again=True))
            used_for_moves = size
            played = db.execute(
                "SELECT count(DISTINCT game_id) FROM moves WHERE id > %s", (last_move,)
            ).fetchone()
            print(f"  games moved on by these POSTs: {played[0] if played else 0}", file=progress)
        db.close()
        if args.keep:
            print(f"database kept: {url}", file=progress)
    finally:
        smtp.stop()
        if server is not None:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=30)
        if app is not None:
            app.extensions["celery"].close()
            get_engine(app).dispose()
        if not args.eager_mail:
            try:
                delete_queues(REDIS_URL, queue_keys(env))
            except Exception as error:  # cleanup must not hide the figures
                print(f"could not delete the Redis queue {queue}: {error}")
        if not args.keep:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()

    report(results, args)


def baselines(results: list[Result]) -> dict[tuple[str, int], float]:
    """healthz's CPU ms per request beside each measurement: for an endpoint, the mean of the
    healthz windows just before and after it (the machine's speed drifts over a run, and a
    ratio is of two figures taken under the same conditions); for healthz, its own."""
    found = {}
    for i, r in enumerate(results):
        if r.endpoint == "healthz":
            if not r.again:
                found[(r.endpoint, r.games)] = r.server_ms
            continue
        beside = [
            results[j].server_ms
            for j in (i - 1, i + 1)
            if 0 <= j < len(results)
            and results[j].endpoint == "healthz"
            and results[j].games == r.games
        ]
        found[(r.endpoint, r.games)] = sum(beside) / len(beside)
    return found


def report(results: list[Result], args: argparse.Namespace) -> None:
    base = baselines(results)
    lines = [r for r in results if not r.again]
    if args.json:
        for r in lines:
            healthz = base[(r.endpoint, r.games)]
            json_line(
                {
                    "endpoint": r.endpoint,
                    "games": r.games,
                    "req_s": round(r.rate, 1),
                    "p50_ms": round(r.p50_ms, 2),
                    "p99_ms": round(r.p99_ms, 2),
                    "cpu_ms_per_req": round(r.server_ms, 3),
                    "healthz_cpu_ms_per_req": round(healthz, 3),
                    "x_healthz": round(r.server_ms / healthz, 2) if healthz else None,
                    "errors": r.errors,
                    "others_cores": round(r.others, 2),
                }
            )
        return
    mail = "embedded (eager)" if args.eager_mail else "queued to Redis"
    print()
    print(
        f"gunicorn {args.workers or configured_workers()} sync workers, "
        f"wrk 1 thread {args.connections} connections, "
        f"{args.seconds:.0f} s per line; PostgreSQL; mail {mail}; {os.cpu_count()} cores"
    )
    print(
        f"{'endpoint':<14}{'games':>9}{'req/s':>8}{'p50 ms':>8}{'p99 ms':>8}{'errors':>7}"
        f"{'CPU ms/req':>11}{'healthz':>9}{'x healthz':>10}{'others':>8}"
    )
    by = {(r.endpoint, r.games): r for r in lines}
    for r in lines:
        healthz = base[(r.endpoint, r.games)]
        times = r.server_ms / healthz if healthz else 0.0
        print(
            f"{r.endpoint:<14}{r.games:>9,}{r.rate:>8.0f}{r.p50_ms:>8.1f}{r.p99_ms:>8.1f}"
            f"{r.errors:>7}{r.server_ms:>11.2f}{healthz:>9.2f}{times:>9.1f}x{r.others:>8.2f}"
        )
    print(
        "CPU ms/req: gunicorn's CPU time per request (steadier than req/s on a shared machine); "
        "healthz: healthz's, in the windows just before and after that line; x healthz: the "
        "ratio of the two; others: cores busy with anything but gunicorn and wrk"
    )
    print()
    for size in SIZES:
        print(
            f"{size:,} games, server CPU per request over healthz's: "
            + ", ".join(
                f"{name} {by[(name, size)].server_ms / base[(name, size)]:.1f}x (aim <= {aim}x)"
                for name, aim in AIMS.items()
                if (name, size) in by
            )
        )
    small, large = SIZES
    for name in ENDPOINTS:
        if (name, small) not in by or (name, large) not in by:
            continue
        before, after = by[(name, small)].p99_ms, by[(name, large)].p99_ms
        ratio = f"{after / before:.2f}x" if before else "n/a"
        print(f"p99 {large:,} vs {small:,} games, {name}: {ratio} (aim <= {P99_AIM}x)")
    baseline = by[("healthz", small)]
    print(
        f"load generator: wrk used {baseline.client_cpu:.0%} of one core during the baseline "
        "(the 2 cores are shared with gunicorn and PostgreSQL)"
    )


if __name__ == "__main__":
    main()
