"""``inbound_messages.rate_key`` (the hourly limit counts per sender, reply key and whether the
sender was authenticated) and ``inbound_messages.held_moves`` (the moves of a reply that waits
for its owner's confirmation).

Revision ID: 0020
Revises: 0019
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0020"
down_revision: str | None = "0019"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("rate_key", sa.String(length=64), nullable=False, server_default="")
        )
        batch_op.add_column(sa.Column("held_moves", sa.String(length=500), nullable=True))
        batch_op.create_index(
            "ix_inbound_messages_rate_key_received_at", ["rate_key", "received_at"], unique=False
        )


def downgrade() -> None:
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_index("ix_inbound_messages_rate_key_received_at")
        batch_op.drop_column("held_moves")
        batch_op.drop_column("rate_key")
