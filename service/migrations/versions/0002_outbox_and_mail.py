"""The outbox (every email, with its delivery state), address status and per-game mutes.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-21
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _timestamp(name: str, *, nullable: bool = False) -> sa.Column[Any]:
    if nullable:
        return sa.Column(name, sa.DateTime(timezone=True), nullable=True)
    return sa.Column(name, sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False)


def upgrade() -> None:
    op.create_table(
        "address_status",
        sa.Column("player_id", sa.Integer(), nullable=False),
        _timestamp("confirmed_at", nullable=True),
        _timestamp("bounced_at", nullable=True),
        sa.Column("bounce_reason", sa.String(length=500), nullable=True),
        _timestamp("unsubscribed_at", nullable=True),
        _timestamp("refuses_invitations_at", nullable=True),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_address_status_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", name=op.f("pk_address_status")),
    )
    op.create_table(
        "game_mutes",
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        _timestamp("created_at"),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_game_mutes_game_id_games")
        ),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_game_mutes_player_id_players")
        ),
        sa.PrimaryKeyConstraint("player_id", "game_id", name=op.f("pk_game_mutes")),
    )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("recipient", sa.String(length=254), nullable=False),
        sa.Column("recipient_name", sa.String(length=40), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=32), nullable=False),
        sa.Column("subject", sa.String(length=200), nullable=False),
        sa.Column("text_body", sa.Text(), nullable=False),
        sa.Column("html_body", sa.Text(), nullable=False),
        sa.Column("message_id", sa.String(length=250), nullable=False),
        sa.Column("headers", sa.JSON(), nullable=False),
        sa.Column("mime", sa.Text(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default="0", nullable=False),
        sa.Column("last_error", sa.Text(), nullable=True),
        _timestamp("created_at"),
        _timestamp("next_attempt_at"),
        _timestamp("sent_at", nullable=True),
        sa.CheckConstraint("status IN ('queued', 'sent', 'failed')", name=op.f("ck_outbox_status")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_outbox_game_id_games")),
        sa.ForeignKeyConstraint(
            ["player_id"], ["players.id"], name=op.f("fk_outbox_player_id_players")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_outbox")),
        sa.UniqueConstraint("message_id", name=op.f("uq_outbox_message_id")),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_game_id_player_id", ["game_id", "player_id"])
        batch_op.create_index("ix_outbox_status_next_attempt_at", ["status", "next_attempt_at"])


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status_next_attempt_at")
        batch_op.drop_index("ix_outbox_game_id_player_id")
    op.drop_table("outbox")
    op.drop_table("game_mutes")
    op.drop_table("address_status")
