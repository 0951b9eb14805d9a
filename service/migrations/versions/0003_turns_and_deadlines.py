"""Turns across days: the clock of the current turn, vacation days, the digest.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-28
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("vacation_days", sa.Integer(), server_default="7", nullable=False)
        )
        batch_op.add_column(
            sa.Column("current_turn", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(
            sa.Column("turn_notified", sa.Integer(), server_default="0", nullable=False)
        )
        batch_op.add_column(sa.Column("turn_started_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("reminders_sent", sa.JSON(), server_default=sa.text("'[]'"), nullable=False)
        )
        batch_op.add_column(
            sa.Column("last_reminder_at", sa.DateTime(timezone=True), nullable=True)
        )
        batch_op.add_column(
            sa.Column("late_notice_sent", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("next_check_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_next_check_at"), ["next_check_at"], unique=False)
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("vacation_days_used", sa.Integer(), server_default="0", nullable=False)
        )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("digest_sent_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("digest_sent_at")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_column("vacation_days_used")
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_next_check_at"))
        for name in (
            "next_check_at",
            "late_notice_sent",
            "last_reminder_at",
            "reminders_sent",
            "turn_started_at",
            "turn_notified",
            "current_turn",
            "vacation_days",
        ):
            batch_op.drop_column(name)
