"""``seats.seat`` becomes ``seats.letter`` (a row is a seat; its letter says which), and the
letter may be ``C``: the three-player variant (V6.1, docs/rules.md) seats A, B and C.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-23
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_seats_seat"), type_="check")
        batch_op.drop_constraint(batch_op.f("uq_seats_game_id_seat"), type_="unique")
        batch_op.alter_column(
            "seat", new_column_name="letter", existing_type=sa.String(length=1), nullable=False
        )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_check_constraint(batch_op.f("ck_seats_letter"), "letter IN ('A', 'B', 'C')")
        batch_op.create_unique_constraint(
            batch_op.f("uq_seats_game_id_letter"), ["game_id", "letter"]
        )


def downgrade() -> None:
    op.execute("DELETE FROM seats WHERE letter = 'C'")
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_seats_letter"), type_="check")
        batch_op.drop_constraint(batch_op.f("uq_seats_game_id_letter"), type_="unique")
        batch_op.alter_column(
            "letter", new_column_name="seat", existing_type=sa.String(length=1), nullable=False
        )
    with op.batch_alter_table("seats", schema=None) as batch_op:
        batch_op.create_check_constraint(batch_op.f("ck_seats_seat"), "seat IN ('A', 'B')")
        batch_op.create_unique_constraint(batch_op.f("uq_seats_game_id_seat"), ["game_id", "seat"])
