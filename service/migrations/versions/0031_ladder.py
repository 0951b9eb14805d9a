"""A ladder: each entrant's rung (``tournament_entrants.rung``) and the day each challenge was
made (``tournament_games.challenged_at``, for the re-challenge rule) (``service.tournaments``).

Revision ID: 0031
Revises: 0030
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision: str = "0031"
down_revision: str | None = "0030"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("tournament_entrants", schema=None) as batch_op:
        batch_op.add_column(sa.Column("rung", sa.Integer(), nullable=True))
    with op.batch_alter_table("tournament_games", schema=None) as batch_op:
        batch_op.add_column(sa.Column("challenged_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("tournament_games", schema=None) as batch_op:
        batch_op.drop_column("challenged_at")
    with op.batch_alter_table("tournament_entrants", schema=None) as batch_op:
        batch_op.drop_column("rung")
