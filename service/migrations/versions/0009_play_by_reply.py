"""Play by reply: each seat's reply-address key, the emails received (one row per Message-ID),
and the game's ply on every outbox row (a reply to an email is meant for that position).

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "reply_keys",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(length=16), nullable=False),
        sa.Column("seat_id", sa.Integer(), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["seat_id"], ["seats.id"], name=op.f("fk_reply_keys_seat_id_seats")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_reply_keys")),
        sa.UniqueConstraint("key", name=op.f("uq_reply_keys_key")),
        sa.UniqueConstraint("seat_id", "generation", name="uq_reply_keys_seat_id_generation"),
    )
    op.create_table(
        "inbound_messages",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(length=250), nullable=False),
        sa.Column("sender", sa.String(length=254), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("outcome", sa.String(length=32), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=True),
        sa.Column("seat", sa.String(length=1), nullable=True),
        sa.Column("detail", sa.String(length=500), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_inbound_messages_game_id_games")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound_messages")),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_messages_message_id")),
    )
    op.create_index(
        "ix_inbound_messages_sender_received_at",
        "inbound_messages",
        ["sender", "received_at"],
        unique=False,
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("ply", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_column("ply")
    op.drop_index("ix_inbound_messages_sender_received_at", table_name="inbound_messages")
    op.drop_table("inbound_messages")
    op.drop_table("reply_keys")
