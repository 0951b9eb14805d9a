"""``players.name_confirmed`` (the owner chose their name; before, it is a label someone else
typed) and ``seats.typed_name`` (the name a game's creator typed for themselves, theirs once they
confirm the game).

Revision ID: 0021
Revises: 0020
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("name_confirmed", sa.Boolean(), nullable=False, server_default=sa.false())
        )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(sa.Column("typed_name", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("typed_name")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("name_confirmed")
