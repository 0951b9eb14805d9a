"""Instructions per request: ``python -m bench.instructions`` from the repository root.

``bench.service`` measures CPU time, which on a shared machine drifts by a tenth or more from
one run to the next: more than most single changes to a page. The instructions a request
executes do not drift. This serves the pages in process (Flask's test client, PostgreSQL, mail
queued to Redis as in production) under valgrind's callgrind, counting the requests only: the
counting is switched on after the warm-up and off after the last request (``callgrind_control``),
so start-up and imports are left out. It prints, for each endpoint, the instructions per request
and their ratio to ``/healthz``'s, measured side by side in one run. The same code on the same
database counts the same to a few in a hundred thousand, so two commits compare by running it
in each.

The games are ``bench.service``'s (``play_template``, the same seed): real games played through
the service, stopped in mid-game. Endpoints:

- ``healthz``: ``GET /healthz``, the baseline;
- ``private``: the private page of the seat to move;
- ``public-early``: the public replay page at ``?ply=3``;
- ``public-late``: the public page at the latest position of the long games.

The web process's own share (gunicorn, the socket) is not counted: it is the same for every
endpoint. Needs valgrind (Debian's package). No assertion anywhere: this prints figures, as a
table, or with ``--json`` one JSON object a line (``endpoint``, ``requests``,
``instructions_per_request``, ``x_healthz``).
"""

from __future__ import annotations

import gc
import json
import os
import secrets
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from random import Random
from typing import IO, Any

import psycopg

from bench import ROOT
from bench.bench_stack import PG_ADMIN, delete_queues, queue_keys, queue_settings
from bench.report import Column, Table, arguments, json_line
from bench.service import (
    LONG_PLIES,
    REDIS_URL,
    TEMPLATES,
    app_settings,
    play_template,
    production_env,
)
from service import create_app, tokens
from service.db import get_engine, read_scope, upgrade_schema
from service.games.loaded import load_game

ENDPOINTS = ("healthz", "private", "public-early", "public-late")


def settings(url: str, queue: str) -> dict[str, Any]:
    """The application's settings: ``bench.service``'s, mail queued to a Redis queue of this
    run (no worker consumes it: a page sends nothing, and the games' emails are never
    delivered, so the mail server production asks for is never reached)."""
    return app_settings(production_env(url, queue, 25))


def plan(url: str, queue: str) -> dict[str, list[str]]:
    """Play the games and say which addresses each endpoint walks."""
    app = create_app(settings(url, queue))
    rng = Random(20250301)  # bench.service's games
    paths: dict[str, list[str]] = {"healthz": ["/healthz"]}
    with app.app_context():
        games = [play_template(i, rng) for i in range(TEMPLATES)]
        paths["private"] = [
            f"/p/{tokens.make_private_token(t.game_id, t.to_move, 0)}" for t in games
        ]
        with read_scope() as session:
            public = {t.game_id: load_game(session, t.game_id).game.public_id for t in games}
    paths["public-early"] = [f"/games/{public[t.game_id]}?ply=3" for t in games]
    paths["public-late"] = [
        f"/games/{public[t.game_id]}?ply={t.ply}" for t in games if t.ply >= LONG_PLIES[0]
    ]
    get_engine(app).dispose()
    return paths


def child(url: str, queue: str, paths: list[str], requests: int) -> None:
    """Run under callgrind: warm up, say "ready", serve ``requests`` requests when told "go",
    say "done", and leave when told to."""
    app = create_app(settings(url, queue))
    client = app.test_client()
    for path in paths * 3:  # the caches of the pages' words, claims and buttons fill
        status = client.get(path).status_code
        if status != 200:
            raise SystemExit(f"{path}: HTTP {status}")
    # As gunicorn.conf.py does after loading the app: the start-up objects leave the collector.
    gc.collect()
    gc.freeze()
    talk("ready", sys.stdin, sys.stdout)
    for index in range(requests):
        client.get(paths[index % len(paths)])
    talk("done", sys.stdin, sys.stdout)
    get_engine(app).dispose()


def talk(said: str, incoming: IO[str], outgoing: IO[str]) -> str:
    """Say a line, then wait for the answer's."""
    outgoing.write(said + "\n")
    outgoing.flush()
    return incoming.readline().strip()


def count(url: str, queue: str, paths: list[str], requests: int, workdir: Path) -> int:
    """The instructions ``requests`` requests to ``paths`` execute, counted by callgrind."""
    out = workdir / f"callgrind.{secrets.token_hex(4)}"
    command = [
        "valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}",
        sys.executable, "-m", "bench.instructions", "--child", url, queue, json.dumps(paths),
        str(requests),
    ]  # fmt: skip
    # Sets and dicts of strings iterate in the same order every run: the same instructions.
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    with (workdir / "valgrind.log").open("a") as log, subprocess.Popen(
        command, cwd=ROOT, env=env, text=True, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=log,
    ) as process:  # fmt: skip
        assert process.stdin is not None and process.stdout is not None
        if process.stdout.readline().strip() != "ready":
            raise SystemExit(f"the served process did not start: see {workdir / 'valgrind.log'}")
        control(process.pid, "on")
        if talk("go", process.stdout, process.stdin) != "done":
            raise SystemExit(f"the served process stopped: see {workdir / 'valgrind.log'}")
        control(process.pid, "off")
        process.stdin.write("bye\n")
        process.stdin.close()
        if process.wait() != 0:
            raise SystemExit(f"the served process failed: see {workdir / 'valgrind.log'}")
    for line in out.read_text().splitlines():
        if line.startswith("totals:"):
            return int(line.split()[1])
    raise SystemExit(f"no totals in {out}")


def control(pid: int, switch: str) -> None:
    subprocess.run(
        ["callgrind_control", "-i", switch, str(pid)],
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--requests", type=int, default=40, help="counted per endpoint")
    args = parser.parse_args()
    missing = [tool for tool in ("valgrind", "callgrind_control") if shutil.which(tool) is None]
    if missing:
        parser.error(f"needs {' and '.join(missing)}: apt-get install -y valgrind")
    if args.requests < 1:
        parser.error("--requests must be 1 or more")
    progress = sys.stderr if args.json else sys.stdout
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    database = f"battleline_instructions_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
    queue = f"battleline-instructions-{secrets.token_hex(4)}"
    workdir = Path(tempfile.mkdtemp(prefix="bench-instructions-"))
    counts: dict[str, int] = {}
    try:
        upgrade_schema(url)
        paths = plan(url, queue)
        print(f"{TEMPLATES} real games played; counting under callgrind", file=progress)
        for endpoint in ENDPOINTS:
            counts[endpoint] = count(url, queue, paths[endpoint], args.requests, workdir)
            print(f"  {endpoint}: {counts[endpoint] // args.requests:,}", file=progress)
    finally:
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()
        delete_queues(REDIS_URL, queue_keys(queue_settings(queue)))
        shutil.rmtree(workdir, ignore_errors=True)
    report(counts, args.requests, as_json=args.json)


def report(counts: dict[str, int], requests: int, *, as_json: bool) -> None:
    healthz = counts["healthz"] / requests
    table = Table((Column("endpoint", 16, left=True), Column("instr/req", 14, ","),
                   Column("x healthz", 11, ".1f")))  # fmt: skip
    if not as_json:
        print(table.header())
    for endpoint, total in counts.items():
        per_request = total / requests
        if as_json:
            json_line(
                {
                    "endpoint": endpoint,
                    "requests": requests,
                    "instructions_per_request": round(per_request),
                    "x_healthz": round(per_request / healthz, 2),
                }
            )
        else:
            print(table.row(endpoint, round(per_request), per_request / healthz))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        url, queue, paths, requests = sys.argv[2:6]
        child(url, queue, json.loads(paths), int(requests))
    else:
        main()
