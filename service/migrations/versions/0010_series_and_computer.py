"""Series (R23) and the computer opponent: a series' target, page address, status and who left
it; the computer's players (``players.computer``, the level); the delay before a computer seat
plays (``games.computer_delay_s``).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("series", schema=None) as batch_op:
        batch_op.add_column(sa.Column("target_points", sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column("public_id", sa.String(length=32), nullable=True))
        batch_op.add_column(
            sa.Column("status", sa.String(length=16), server_default="playing", nullable=False)
        )
        batch_op.add_column(sa.Column("left_by", sa.String(length=1), nullable=True))
        batch_op.create_unique_constraint(batch_op.f("uq_series_public_id"), ["public_id"])
        batch_op.create_check_constraint(
            batch_op.f("ck_series_status"), "status IN ('playing', 'finished', 'left')"
        )
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("computer", sa.String(length=16), nullable=True))
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("computer_delay_s", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table("games", schema=None) as batch_op:
        batch_op.drop_column("computer_delay_s")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("computer")
    with op.batch_alter_table("series", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_series_status"), type_="check")
        batch_op.drop_constraint(batch_op.f("uq_series_public_id"), type_="unique")
        batch_op.drop_column("left_by")
        batch_op.drop_column("status")
        batch_op.drop_column("public_id")
        batch_op.drop_column("target_points")
