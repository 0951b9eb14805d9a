"""Disk per finished game: ``python -m bench.storage [--games N] [--json]`` from the repository
root (.venv/bin/python).

Plays N games to their end through the service's own functions (one ``apply_moves`` per move, as
the pages and links make them; random legal moves from a fixed seed) on a PostgreSQL database of
its own, then reads what the game tables take on disk, rows and indexes
(``pg_total_relation_size`` of games, seats, moves and snapshots, after ``VACUUM FULL`` so that
pages hold only live rows), and divides by N. The outbox too (every email of those games, sent:
the bench sends nothing out), twice: as it is, and after its bodies were pruned
(``service.outbox.prune``, as the beat does it ``OUTBOX_KEEP_BODIES_DAYS`` after sending).
Prints a table, or with ``--json`` one JSON object per table and one for the total, one a line.
The aim: the game tables under 32 KB a finished game.
"""

from __future__ import annotations

import secrets
from datetime import timedelta
from random import Random

import psycopg

from bench.bench_stack import PG_ADMIN
from bench.real_games import accepted_game, play_randomly
from bench.report import arguments, json_line
from service import create_app
from service.db import get_engine, upgrade_schema
from service.models import utcnow
from service.outbox.prune import prune_bodies

TABLES = ("games", "seats", "moves", "snapshots")
OUTBOX = "outbox"
AIM_BYTES = 32 * 1024


def play_to_the_end(index: int, rng: Random) -> int:
    """One game created, accepted and played to its end; returns its ply count."""
    form = {
        "a_name": "Ann", "a_email": f"a{index}@bench.example",
        "b_name": "Ben", "b_email": f"b{index}@bench.example",
    }  # fmt: skip
    game_id = accepted_game(form)
    return play_randomly(game_id, rng, by_server=True).ply


def sizes_on_disk(dsn: str, tables: tuple[str, ...]) -> dict[str, int]:
    """Bytes of each table with its indexes and TOAST, after ``VACUUM FULL``."""
    with psycopg.connect(dsn, autocommit=True) as db:
        db.execute("VACUUM FULL")
        return {
            table: db.execute("SELECT pg_total_relation_size(%s)", (table,)).fetchone()[0]
            for table in tables
        }


def main() -> None:
    parser = arguments(__doc__)
    parser.add_argument("--games", type=int, default=40)
    args = parser.parse_args()
    admin = psycopg.connect(PG_ADMIN, autocommit=True)
    database = f"battleline_storage_{secrets.token_hex(4)}"
    admin.execute(f'CREATE DATABASE "{database}"')
    url = f"postgresql+psycopg://postgres@127.0.0.1:5432/{database}"
    app = None
    try:
        upgrade_schema(url)
        app = create_app(
            {
                "APP_ENV": "testing",
                "TESTING": True,
                "DATABASE_URL": url,
                "SECRET_KEY": "storage-bench-secret-key-0123456789-abcdef",
                "BASE_URL": "http://bl.bench.test",
                "REDIS_URL": None,
                "MAIL_SERVER": None,
            }
        )
        rng = Random(20261123)
        with app.app_context():
            plies = [play_to_the_end(i, rng) for i in range(args.games)]
        dsn = url.replace("+psycopg", "")
        sizes = sizes_on_disk(dsn, (*TABLES, OUTBOX))
        outbox_before = sizes.pop(OUTBOX)
        with app.app_context():
            # Every row as if sent OUTBOX_KEEP_BODIES_DAYS ago: what the outbox keeps for good.
            while prune_bodies(utcnow() + timedelta(seconds=1), keep=timedelta(0)).more:
                pass
        outbox_after = sizes_on_disk(dsn, (OUTBOX,))[OUTBOX]
    finally:
        if app is not None:
            get_engine(app).dispose()
        admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
        admin.close()
    total = sum(sizes.values())
    mean_plies = sum(plies) / len(plies)
    if args.json:
        for table, size in sizes.items():
            json_line({"table": table, "bytes_per_game": round(size / len(plies))})
        for table, size in (("outbox", outbox_before), ("outbox_pruned", outbox_after)):
            json_line({"table": table, "bytes_per_game": round(size / len(plies))})
        json_line(
            {
                "table": "total",
                "bytes_per_game": round(total / len(plies)),
                "games": len(plies),
                "mean_plies": round(mean_plies, 1),
                "aim_bytes": AIM_BYTES,
            }
        )
        return
    print(
        f"{len(plies)} finished games, {mean_plies:.0f} plies on average; "
        "per game, rows and indexes:"
    )
    for table, size in sizes.items():
        print(f"  {table:<10}{size / len(plies):>10,.0f} bytes")
    print(f"  {'total':<10}{total / len(plies):>10,.0f} bytes (aim under {AIM_BYTES:,})")
    print("and its emails (the outbox, rows and indexes):")
    print(f"  {'sent':<10}{outbox_before / len(plies):>10,.0f} bytes")
    print(f"  {'pruned':<10}{outbox_after / len(plies):>10,.0f} bytes (bodies dropped)")


if __name__ == "__main__":
    main()
