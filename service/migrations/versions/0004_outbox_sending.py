"""The outbox's "sending" state: a claimed row, sent with no transaction open.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-05
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_BEFORE = "status IN ('queued', 'sent', 'failed')"
_AFTER = "status IN ('queued', 'sending', 'sent', 'failed')"


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.drop_constraint(op.f("ck_outbox_status"), type_="check")
        batch_op.create_check_constraint(op.f("ck_outbox_status"), sa.text(_AFTER))
        batch_op.create_index("ix_outbox_status_claimed_at", ["status", "claimed_at"])


def downgrade() -> None:
    # A row caught mid-send goes back to the queue: the old code sends it again (same bytes).
    op.execute("UPDATE outbox SET status = 'queued' WHERE status = 'sending'")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status_claimed_at")
        batch_op.drop_constraint(op.f("ck_outbox_status"), type_="check")
        batch_op.create_check_constraint(op.f("ck_outbox_status"), sa.text(_BEFORE))
        batch_op.drop_column("claimed_at")
