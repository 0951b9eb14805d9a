"""Notices one person causes another to receive are capped in the database: one row per (kind,
recipient, game, day), its primary key refusing a second (``service.outbox.notice_days``).

Revision ID: 0017
Revises: 0016
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "notice_days",
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("recipient_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("day", sa.Date(), nullable=False),
        sa.ForeignKeyConstraint(["recipient_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.PrimaryKeyConstraint("kind", "recipient_id", "game_id", "day"),
    )


def downgrade() -> None:
    op.drop_table("notice_days")
