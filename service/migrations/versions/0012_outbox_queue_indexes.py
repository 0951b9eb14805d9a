"""The outbox's status indexes hold only the rows they serve, and its bodies lie out of line.

``ix_outbox_status_next_attempt_at`` and ``ix_outbox_status_claimed_at`` held every row, sent
ones included (nearly all), and each change of status added an entry to both. They become
partial: the queued rows by ``next_attempt_at`` (claims and the sweep) and the rows being sent by
``claimed_at`` (the reclaim). On PostgreSQL, ``toast_tuple_target`` moves the bodies of rows
written from now on into the TOAST table, so that a change of status rewrites a small row.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

QUEUED_ONLY = "status = 'queued'"
SENDING_ONLY = "status = 'sending'"


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status_next_attempt_at")
        batch_op.drop_index("ix_outbox_status_claimed_at")
        batch_op.create_index(
            "ix_outbox_queued_next_attempt_at",
            ["next_attempt_at", "id"],
            unique=False,
            postgresql_where=sa.text(QUEUED_ONLY),
            sqlite_where=sa.text(QUEUED_ONLY),
        )
        batch_op.create_index(
            "ix_outbox_sending_claimed_at",
            ["claimed_at"],
            unique=False,
            postgresql_where=sa.text(SENDING_ONLY),
            sqlite_where=sa.text(SENDING_ONLY),
        )
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE outbox SET (toast_tuple_target = 128)")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE outbox RESET (toast_tuple_target)")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_sending_claimed_at")
        batch_op.drop_index("ix_outbox_queued_next_attempt_at")
        batch_op.create_index("ix_outbox_status_claimed_at", ["status", "claimed_at"], unique=False)
        batch_op.create_index(
            "ix_outbox_status_next_attempt_at", ["status", "next_attempt_at"], unique=False
        )
