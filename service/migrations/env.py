"""Alembic environment: the URL comes from the caller (``service.db.upgrade_schema``), else from
the app's own configuration (``DATABASE_URL`` or the development SQLite file)."""

from __future__ import annotations

import logging.config
from typing import Any, Literal

from alembic import context
from alembic.autogenerate.api import AutogenContext
from sqlmodel import SQLModel

from service import (
    inbound_models,  # noqa: F401  (reply keys, received emails)
    models,
)
from service.db import make_engine
from service.outbox import models as mail_models  # noqa: F401  (the mail tables)
from service.players import challenge_models  # noqa: F401  (challenges)
from service.players import models as player_models  # noqa: F401  (blocks)
from service.ratings import models as rating_models  # noqa: F401  (ratings)
from service.tournaments import models as tournament_models  # noqa: F401  (tournaments)

config = context.config
if config.config_file_name is not None and not config.attributes.get("database_url"):
    # Only the command line configures logging; the app and the tests keep their own.
    logging.config.fileConfig(config.config_file_name, disable_existing_loggers=False)

target_metadata = SQLModel.metadata


def _database_url() -> str:
    url = config.attributes.get("database_url")
    if url:
        return str(url)
    # Only the database setting: a schema upgrade needs no secret key (and must not fail
    # open for want of one), so no app is built here.
    from service import INSTANCE_DIR
    from service.config import config_from_env

    return str(config_from_env(str(INSTANCE_DIR))["DATABASE_URL"])


def _render_item(type_: str, obj: Any, autogen_context: AutogenContext) -> str | Literal[False]:
    # Our TypeDecorator is a plain timestamp in the schema; migrations must not import the app.
    if type_ == "type" and isinstance(obj, models.UTCDateTime):
        return "sa.DateTime(timezone=True)"
    return False


def run_migrations_offline() -> None:
    context.configure(
        url=_database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
        render_item=_render_item,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_migrations_online() -> None:
    url = _database_url()
    engine = make_engine(url, foreign_keys=False)
    try:
        with engine.connect() as connection:
            context.configure(
                connection=connection,
                target_metadata=target_metadata,
                render_as_batch=True,  # SQLite alters tables by copying them
                render_item=_render_item,
                compare_type=True,
                transactional_ddl=True,
            )
            with context.begin_transaction():
                context.run_migrations()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_migrations_offline()
else:
    run_migrations_online()
