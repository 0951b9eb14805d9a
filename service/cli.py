"""``flask --app service db ...``: schema upgrades through Alembic."""

from __future__ import annotations

import click
from flask import current_app
from flask.cli import AppGroup

from service.db import upgrade_schema

db_cli = AppGroup("db", help="The database schema (Alembic migrations).")


@db_cli.command("upgrade")
@click.argument("revision", default="head")
def upgrade_command(revision: str) -> None:
    """Create or upgrade the schema of DATABASE_URL to REVISION (default: head)."""
    upgrade_schema(current_app.config["DATABASE_URL"], revision)
    click.echo(f"Schema at {revision}.")
