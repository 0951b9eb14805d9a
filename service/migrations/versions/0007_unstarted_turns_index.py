"""An index for the deadline scan's search of turns whose start task was lost.

``sweep_unstarted_turns`` (run by every deadline scan) looks for active games with
``turn_notified < current_turn``; without an index that read every game row each minute. The
index is partial, on exactly that condition: it holds only the games whose turn start is still
pending (almost none), so it stays tiny and costs next to nothing on writes.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

PENDING_START = "turn_notified < current_turn"


def upgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.create_index(
            "ix_games_unstarted_turn",
            ["turn_started_at"],
            unique=False,
            postgresql_where=sa.text(PENDING_START),
            sqlite_where=sa.text(PENDING_START),
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_index("ix_games_unstarted_turn")
