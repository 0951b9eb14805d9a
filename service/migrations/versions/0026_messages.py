"""``game_messages``, ``mutes``, ``message_reports``; players' ``messages_off`` and
``suspended_at`` (``service.players.messages``, ``service.players.moderation``); the message
of a held reply (``inbound_messages.held_message``).

Revision ID: 0026
Revises: 0025
Create Date: 2026-11-26
"""

from collections.abc import Sequence

import sqlalchemy as sa
import sqlmodel  # noqa: F401
from alembic import op

revision: str = "0026"
down_revision: str | None = "0025"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("messages_off", sa.Boolean(), server_default=sa.false(), nullable=False)
        )
        batch_op.add_column(sa.Column("suspended_at", sa.DateTime(timezone=True), nullable=True))
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.add_column(sa.Column("held_message", sa.String(length=500), nullable=True))
    op.create_table(
        "game_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(length=1), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("ply", sa.Integer(), nullable=False),
        sa.Column("body", sa.String(length=500), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("hidden_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"]),
        sa.ForeignKeyConstraint(["player_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("game_id", "seat", "ply"),
    )
    with op.batch_alter_table("game_messages", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_game_messages_game_id"), ["game_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_game_messages_player_id"), ["player_id"], unique=False)
    op.create_table(
        "mutes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("muter_id", sa.Integer(), nullable=False),
        sa.Column("muted_id", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(["muted_id"], ["players.id"]),
        sa.ForeignKeyConstraint(["muter_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("muter_id", "muted_id"),
    )
    with op.batch_alter_table("mutes", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_mutes_muter_id"), ["muter_id"], unique=False)
    op.create_table(
        "message_reports",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.Integer(), nullable=False),
        sa.Column("reporter_id", sa.Integer(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("reviewed_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(["message_id"], ["game_messages.id"]),
        sa.ForeignKeyConstraint(["reporter_id"], ["players.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id", "reporter_id"),
    )
    with op.batch_alter_table("message_reports", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_message_reports_message_id"), ["message_id"], unique=False
        )


def downgrade() -> None:
    op.drop_table("message_reports")
    op.drop_table("mutes")
    op.drop_table("game_messages")
    with op.batch_alter_table("inbound_messages", schema=None) as batch_op:
        batch_op.drop_column("held_message")
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.drop_column("suspended_at")
        batch_op.drop_column("messages_off")
