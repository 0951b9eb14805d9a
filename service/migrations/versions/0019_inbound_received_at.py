"""``ix_inbound_messages_received_at``: the received emails by time, for the pruning of rows
older than ``INBOUND_KEEP_DAYS`` (``service.inbound.prune``).

Revision ID: 0019
Revises: 0018
Create Date: 2026-11-25
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.create_index("ix_inbound_messages_received_at", ["received_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_inbound_messages_received_at")
