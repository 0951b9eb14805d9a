"""Old sent emails lose their bodies: ``outbox.text_body``, ``html_body`` and ``mime`` may be
NULL (a row sent longer ago than ``OUTBOX_KEEP_BODIES_DAYS``), and a partial index holds the sent
rows that still have them, by ``sent_at``, for the pruning to find.

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

SENT_WITH_BODIES = "status = 'sent' AND mime IS NOT NULL"
BODIES = ("text_body", "html_body", "mime")


def upgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        for column in BODIES:
            batch_op.alter_column(column, existing_type=sa.Text(), nullable=True)
        batch_op.create_index(
            "ix_outbox_sent_with_bodies",
            ["sent_at"],
            unique=False,
            postgresql_where=sa.text(SENT_WITH_BODIES),
            sqlite_where=sa.text(SENT_WITH_BODIES),
        )


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_sent_with_bodies")
    # Pruned rows get empty bodies back: the columns are NOT NULL again.
    for column in BODIES:
        op.execute(f"UPDATE outbox SET {column} = '' WHERE {column} IS NULL")
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        for column in BODIES:
            batch_op.alter_column(column, existing_type=sa.Text(), nullable=False)
