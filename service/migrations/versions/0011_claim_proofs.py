"""A claim's proof kept with its log entry (``moves.proof``): pages explain a claim without
replaying the game to it. Entries logged before stay NULL and are explained by a replay.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.add_column(sa.Column("proof", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("moves", schema=None) as batch_op:
        batch_op.drop_column("proof")
