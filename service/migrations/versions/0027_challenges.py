"""``challenges``: open challenges in the lobby and standing requests for an opponent
(``service.lobby.challenges``).

Revision ID: 0027
Revises: 0026
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision: str = "0027"
down_revision: str | None = "0026"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "challenges",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("poster_id", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(length=32), nullable=False),
        sa.Column("claims", sa.String(length=16), nullable=False),
        sa.Column("days_per_move", sa.Integer(), nullable=False),
        sa.Column("message", sa.String(length=500), nullable=True),
        sa.Column("played_only", sa.Boolean(), nullable=False),
        sa.Column("keep_going", sa.Boolean(), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("taken_by_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("renew_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.func.now(),
            nullable=False,
        ),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["poster_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["taken_by_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("challenges", schema=None) as batch_op:
        batch_op.create_index(
            "ix_challenges_lobby",
            ["kind", "status", "ruleset", "days_per_move", "id"],
            unique=False,
        )
        batch_op.create_index("ix_challenges_poster_status", ["poster_id", "status"], unique=False)
        batch_op.create_index("ix_challenges_renew", ["renew_at"], unique=False)


def downgrade() -> None:
    op.drop_table("challenges")
