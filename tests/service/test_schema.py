"""Alembic creates the schema on both databases, and it matches the models."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlmodel import SQLModel

from service.db import MIGRATIONS_DIR, make_engine, upgrade_schema

REPO = Path(__file__).resolve().parents[2]
TABLES = {"players", "series", "games", "seats", "moves", "snapshots", "alembic_version"}
TABLES |= {"outbox", "address_status", "game_mutes"}  # 0002: the mail tables
TABLES |= {"reply_keys", "inbound_messages"}  # 0009: play by reply
TABLES |= {"notice_days"}  # 0016: notices one person causes another to receive, capped
TABLES |= {"blocks"}  # 0024: who blocks whom
TABLES |= {"challenges"}  # 0027: open challenges and standing requests for an opponent
TABLES |= {"game_messages", "mutes", "message_reports"}  # 0026: messages with moves
TABLES |= {"ratings", "rating_changes"}  # 0029: ratings per pool, changes per game
TABLES |= {"tournaments", "tournament_entrants", "tournament_rounds", "tournament_games"}  # 0030


def _tables(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(sa.inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_alembic_upgrade_head_from_the_command_line(fresh_database_url: str) -> None:
    assert _tables(fresh_database_url) == set()
    env = {**os.environ, "DATABASE_URL": fresh_database_url}
    result = subprocess.run(
        [
            str(Path(sys.executable).with_name("alembic")),
            "-c",
            str(MIGRATIONS_DIR / "alembic.ini"),
            "upgrade",
            "head",
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert _tables(fresh_database_url) == TABLES


def test_schema_matches_the_models(fresh_database_url: str) -> None:
    upgrade_schema(fresh_database_url)
    engine = make_engine(fresh_database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection, opts={"compare_type": True})
            assert compare_metadata(context, SQLModel.metadata) == []
    finally:
        engine.dispose()


def test_downgrade_to_base_and_up_again(fresh_database_url: str) -> None:
    upgrade_schema(fresh_database_url)
    upgrade_schema(fresh_database_url, "head")  # idempotent
    from alembic import command

    from service.db import alembic_config

    command.downgrade(alembic_config(fresh_database_url), "base")
    assert _tables(fresh_database_url) == {"alembic_version"}
    upgrade_schema(fresh_database_url)
    assert _tables(fresh_database_url) == TABLES
