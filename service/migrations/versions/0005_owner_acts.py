"""Only an address's owner acts for it: a creation key against duplicate games, and turn
preferences per seat (a seat link changes only its own game).

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("creation_key", sa.String(length=64), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_games_creation_key"), ["creation_key"])
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("preferences", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("preferences")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("uq_games_creation_key"), type_="unique")
        batch_op.drop_column("creation_key")
