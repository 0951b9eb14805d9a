"""``games.invited_at`` for every game whose invitation is in the outbox: that column alone
now says the invitations went out (the outbox records mail, not game state).

Revision ID: 0022
Revises: 0021
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

FIRST_INVITATION = (
    "SELECT MIN(outbox.created_at) FROM outbox"
    " WHERE outbox.game_id = games.id AND outbox.kind = 'invitation'"
)


def upgrade() -> None:
    op.execute(
        sa.text(
            f"UPDATE games SET invited_at = ({FIRST_INVITATION})"
            f" WHERE invited_at IS NULL AND ({FIRST_INVITATION}) IS NOT NULL"
        )
    )


def downgrade() -> None:
    """The column keeps what it learned: 0018's reader accepts either."""
