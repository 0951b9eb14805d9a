"""Public names: ``players.name_key`` (the chosen name's key, ``service.players.names``, unique)
and ``players.name_changed_at`` (a change waits a month after the last).

The names players chose before get their key here, the first chooser of a key keeping it: a
later player whose chosen name looks like theirs is asked to choose again (their name is a label
until they do).

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from service.players.names import name_key

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("name_key", sa.String(length=160), nullable=True))
        batch_op.add_column(sa.Column("name_changed_at", sa.DateTime(timezone=True), nullable=True))
    connection = op.get_bind()
    players = sa.table(
        "players",
        sa.column("id", sa.Integer()),
        sa.column("display_name", sa.String()),
        sa.column("name_confirmed", sa.Boolean()),
        sa.column("name_key", sa.String()),
    )
    chosen = connection.execute(
        sa.select(players.c.id, players.c.display_name)
        .where(players.c.name_confirmed == sa.true())
        .order_by(players.c.id)
    ).all()
    taken: set[str] = set()
    for player_id, display_name in chosen:
        key = name_key(display_name)
        mine = key not in taken
        taken.add(key)
        connection.execute(
            players.update()
            .where(players.c.id == player_id)
            .values(name_key=key if mine else None, name_confirmed=mine)
        )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.create_unique_constraint(batch_op.f("uq_players_name_key"), ["name_key"])


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_players_name_key"), type_="unique")
        batch_op.drop_column("name_changed_at")
        batch_op.drop_column("name_key")
